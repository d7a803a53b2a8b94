//! Counting a finished position: chain status (alive, dead, seki) from an
//! ownership estimate (Monte Carlo playouts', or a network search's), then
//! area or territory counting under the ruleset, with komi, pass stones,
//! White's extra pass and the handicap bonus.
//!
//! The ownership itself is estimated elsewhere (`search::ownership`,
//! `search::puct::ownership`); this module only turns it into statuses and
//! counts.

use crate::go::board::{Board, Cell, Color, Point};
use crate::go::game::Game;
use crate::go::rules::Scoring;

/// What becomes of a chain at the end of the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Alive,
    Dead,
    Seki,
}

/// A chain is dead when its points end up the opponent's in more than this
/// share of the playouts (ownership runs from -1, always White, to +1).
const DEAD_OWNERSHIP: f64 = 0.1;

/// When a chain counts dead, by its stones' ownership from its own side.
#[derive(Clone, Copy, Debug)]
struct Deadness {
    /// Dead when the chain's average is below this,
    average_below: f64,
    /// or when its worst stone's is below this.
    worst_below: f64,
    /// Then settle chains left alive by the static check.
    static_check: bool,
}

/// The status of every point's chain (empty points: `Alive`, unused).
pub fn statuses(board: &Board, ownership: &[f64]) -> Vec<Status> {
    statuses_by(board, ownership, STATUS_FROM_PLAYOUTS)
}

/// [`statuses`] from an estimate that needs no static check (a neural
/// network's ownership decides lone stones in a territory itself, and an
/// open board's stones are not walled in).
pub fn statuses_from_network(board: &Board, ownership: &[f64]) -> Vec<Status> {
    let deadness = Deadness {
        static_check: false,
        ..STATUS_FROM_PLAYOUTS
    };
    statuses_by(board, ownership, deadness)
}

/// [`statuses`] from the ownership a network's search averaged over its
/// visits, by KataGo's rule (`computeAnticipatedStatusesWithOwnership`):
/// a chain lives only where it owns its points clearly, on average above
/// 0.2 and at its worst stone above −0.6. Then the static check: a lone
/// stone in a wide area walled in by living stones, which the network
/// lets live because its side could play on there, is dead once the game
/// has ended.
pub fn statuses_from_search(board: &Board, ownership: &[f64]) -> Vec<Status> {
    let deadness = Deadness {
        average_below: 0.2,
        worst_below: -0.6,
        static_check: true,
    };
    statuses_by(board, ownership, deadness)
}

/// Playouts' ownership: dead when the chain's points are more often the
/// opponent's than its own, by a margin.
const STATUS_FROM_PLAYOUTS: Deadness = Deadness {
    average_below: -DEAD_OWNERSHIP,
    worst_below: f64::NEG_INFINITY,
    static_check: true,
};

fn statuses_by(board: &Board, ownership: &[f64], deadness: Deadness) -> Vec<Status> {
    let mut status = vec![Status::Alive; ownership.len()];
    for p in board.points() {
        if let Some(c) = board.color_at(p) {
            if board.chain(p) != p {
                continue;
            }
            let stones: Vec<Point> = board.chain_stones(p).collect();
            let sign = if c == Color::Black { 1.0 } else { -1.0 };
            let own = |s: &Point| sign * ownership[*s as usize];
            let average = stones.iter().map(own).sum::<f64>() / stones.len() as f64;
            let worst = stones.iter().map(own).fold(f64::INFINITY, f64::min);
            let st = if average < deadness.average_below || worst < deadness.worst_below {
                Status::Dead
            } else {
                Status::Alive
            };
            for s in stones {
                status[s as usize] = st;
            }
        }
    }
    // Playouts in a large empty area let a lone stone live often enough to
    // keep its ownership near the threshold, or above it, whatever the
    // seed: settle such chains by the static check below.
    for p in board.points() {
        if deadness.static_check
            && board.color_at(p).is_some()
            && board.chain(p) == p
            && status[p as usize] == Status::Alive
            && statically_dead(board, ownership, p)
        {
            for s in board.chain_stones(p) {
                status[s as usize] = Status::Dead;
            }
        }
    }
    // Seki: a living chain sharing a liberty with a living opponent chain,
    // where a stone of either colour on that liberty would be in atari.
    let alive = |p: Point, st: &[Status]| st[p as usize] != Status::Dead;
    let mut seki_points = Vec::new();
    for p in board.points() {
        if board.cell(p) != Cell::Empty {
            continue;
        }
        let near: Vec<Point> = board
            .neighbors(p)
            .into_iter()
            .filter(|&q| board.color_at(q).is_some() && alive(q, &status))
            .collect();
        let has = |c: Color| near.iter().any(|&q| board.color_at(q) == Some(c));
        if !(has(Color::Black) && has(Color::White)) {
            continue;
        }
        let self_atari = |c: Color| {
            let mut b = board.clone();
            if b.check(c, p, crate::go::rules::Suicide::Allowed).is_err() {
                return true;
            }
            let placed = b.place(c, p);
            placed.suicided > 0 || (placed.captured == 0 && b.liberties(p) <= 1)
        };
        if self_atari(Color::Black) && self_atari(Color::White) {
            seki_points.extend(near);
        }
    }
    for q in seki_points {
        for s in board.chain_stones(q) {
            status[s as usize] = Status::Seki;
        }
    }
    status
}

/// Ownership beyond which a chain of the opponent's wall counts as alive.
const WALL_ALIVE: f64 = 0.6;

/// The static check of a finished position: the chain at `p` is dead if the
/// area it can reach without crossing opponent stones (its own stones and
/// the empty points) is walled in only by opponent chains the playouts
/// judge clearly alive, holds no other chain of its colour, and its colour
/// has no chance of two eyes there: at
/// most one eye (an empty region touching only its own stones), and that
/// of at most two points. Anything with more eye space is left to the
/// playouts, so a living group is never killed by this check.
fn statically_dead(board: &Board, ownership: &[f64], p: Point) -> bool {
    let Some(c) = board.color_at(p) else {
        return false;
    };
    let sign = if c == Color::Black { 1.0 } else { -1.0 };
    let mut seen = vec![false; crate::go::board::MAX_POINTS];
    let mut area = vec![p];
    seen[p as usize] = true;
    let mut walled = false;
    let mut i = 0;
    while i < area.len() {
        let q = area[i];
        i += 1;
        for r in board.neighbors(q) {
            if seen[r as usize] {
                continue;
            }
            match board.cell(r) {
                Cell::Empty => {}
                // Another chain of the same colour in the area: not one lone
                // chain walled in (an open board's stones share one area).
                cell if cell.color() == Some(c) && board.chain(r) != board.chain(p) => {
                    return false;
                }
                cell if cell.color() == Some(c) => {}
                cell if cell.color().is_some() => {
                    // An opponent stone of the wall: clearly alive?
                    if sign * ownership[r as usize] > -WALL_ALIVE {
                        return false;
                    }
                    walled = true;
                    continue;
                }
                _ => continue,
            }
            seen[r as usize] = true;
            area.push(r);
        }
    }
    if !walled {
        return false;
    }
    // The eyes: empty regions of the area touching no opponent stone.
    let mut in_region = vec![false; crate::go::board::MAX_POINTS];
    let mut eyes = 0;
    for &start in &area {
        if board.cell(start) != Cell::Empty || in_region[start as usize] {
            continue;
        }
        let (region, borders) = board.empty_region(start, &mut in_region, |_| {});
        if !borders[c.opponent().index()] {
            if region.len() > 2 {
                return false;
            }
            eyes += 1;
        }
    }
    eyes <= 1
}

/// Whether every empty point's owner is clear (or it is a liberty shared in
/// seki or a neutral point between living chains of both colours), so that
/// counting now gives the result that playing on would.
pub fn is_settled(board: &Board, ownership: &[f64], status: &[Status]) -> bool {
    const CLEAR: f64 = 0.6;
    board.points().all(|p| {
        if board.cell(p) != Cell::Empty || ownership[p as usize].abs() >= CLEAR {
            return true;
        }
        // A neutral point: next to living stones of both colours.
        let living = |c: Color| {
            board
                .neighbors(p)
                .iter()
                .any(|&q| board.color_at(q) == Some(c) && status[q as usize] != Status::Dead)
        };
        living(Color::Black) && living(Color::White)
    })
}

/// The count of a finished game. `margin` is Black's lead (negative: White's).
#[derive(Clone, Debug, PartialEq)]
pub struct Score {
    /// Black's and White's points under the ruleset's scoring, before komi.
    pub black: f64,
    pub white: f64,
    pub komi: f64,
    pub handicap_bonus: f64,
    pub margin: f64,
    /// Under pass-stone rules: the same game counted Japanese-style
    /// (territory + prisoners + pass stones), Black's lead after komi.
    pub japanese_style_margin: Option<f64>,
}

impl Score {
    /// `B+3.5`, `W+0.5` or `0`, as GTP `final_score` answers.
    pub fn result(&self) -> String {
        format_margin(self.margin)
    }
}

pub fn format_margin(margin: f64) -> String {
    if margin > 0.0 {
        format!("B+{}", margin)
    } else if margin < 0.0 {
        format!("W+{}", -margin)
    } else {
        "0".to_string()
    }
}

/// Empty regions: for each empty point, which colours border its region, and
/// whether the region touches a seki chain.
fn regions(board: &Board, status: &[Status]) -> Vec<(bool, bool, bool)> {
    let mut out = vec![(false, false, false); crate::go::board::MAX_POINTS];
    let mut seen = vec![false; out.len()];
    for start in board.points() {
        if board.cell(start) != Cell::Empty || seen[start as usize] {
            continue;
        }
        let mut seki = false;
        let (region, [black, white]) = board.empty_region(start, &mut seen, |q| {
            seki |= status[q as usize] == Status::Seki;
        });
        for p in region {
            out[p as usize] = (black, white, seki);
        }
    }
    out
}

/// Counts the game with the given chain statuses (dead chains are removed and
/// become the opponent's prisoners).
pub fn score(game: &Game, status: &[Status]) -> Score {
    let mut board = game.board().clone();
    for p in game.board().points() {
        if board.color_at(p).is_some() && status[p as usize] == Status::Dead {
            board.remove_dead_chain(p);
        }
    }
    let regions = regions(&board, status);
    let mut stones = [0.0; 2];
    let mut territory = [0.0; 2];
    let mut seki_territory = [0.0; 2];
    for p in board.points() {
        match board.color_at(p) {
            Some(c) => stones[c.index()] += 1.0,
            None => {
                let (b, w, seki) = regions[p as usize];
                let owner = match (b, w) {
                    (true, false) => Color::Black,
                    (false, true) => Color::White,
                    _ => continue,
                };
                territory[owner.index()] += 1.0;
                if seki {
                    seki_territory[owner.index()] += 1.0;
                }
            }
        }
    }
    let rules = &game.rules;
    let handicap_bonus = rules.handicap_bonus.points(game.handicap());
    // Prisoners each side holds: captures (dead stones included) and the
    // opponent's pass stones (White's extra pass included).
    let prisoners = |c: Color| (board.captures(c) + game.pass_stones(c.opponent())) as f64;
    let japanese = |seki_counts: bool| {
        let t = |c: Color| {
            territory[c.index()]
                - if seki_counts {
                    0.0
                } else {
                    seki_territory[c.index()]
                }
        };
        t(Color::Black) + prisoners(Color::Black) - t(Color::White) - prisoners(Color::White)
    };
    let (black, white) = match rules.scoring {
        Scoring::Area => (stones[0] + territory[0], stones[1] + territory[1]),
        Scoring::Territory => (
            territory[0] - seki_territory[0] + prisoners(Color::Black),
            territory[1] - seki_territory[1] + prisoners(Color::White),
        ),
    };
    let margin = black - white - game.komi - handicap_bonus;
    // Counted Japanese-style, the stones on the board are missing: each
    // side's stones are its moves less its passes and its captured stones,
    // so the two counts differ by the moves Black made beyond White's. In
    // alternating games that is none, and in a handicap game of N stones
    // N - 1 (White moves first after them, and makes the last move or the
    // extra pass): the Japanese-style count gives those N - 1 back. With
    // EGC's komi of N - 0.5, White's komi in that count is 0.5, as the
    // EGC rules intend; under AGA's N - 1 bonus, territory counting needs none.
    // A handicap given as Black moves with White passing between them
    // already hands Black a pass stone for each of White's passes.
    let handicap_moves = game
        .handicap()
        .saturating_sub(1)
        .saturating_sub(game.opening_white_passes()) as f64;
    let japanese_style_margin = rules
        .pass_stones
        .then(|| japanese(true) + handicap_moves - game.komi - handicap_bonus);
    Score {
        black,
        white,
        komi: game.komi,
        handicap_bonus,
        margin,
        japanese_style_margin,
    }
}

/// White's komi in an area count, from `pla`'s side (KataGo's `selfKomi`,
/// what its network is told): the komi,
/// the handicap bonus, and under territory scoring KataGo's one point for
/// each stone a side has put on the board, handicap and captured stones
/// included (its territory count is an area count less those stones).
/// Pass stones are left out: the result kosumi counts under area scoring
/// does not use them, and that is the count the network predicts.
pub fn area_komi(game: &Game, pla: Color) -> f64 {
    let rules = &game.rules;
    let mut white = game.komi + rules.handicap_bonus.points(game.handicap());
    if rules.scoring == Scoring::Territory {
        let board = game.board();
        let on_board = |c: Color| {
            board
                .points()
                .filter(|&p| board.color_at(p) == Some(c))
                .count() as f64
        };
        // Each side's stones put down: those on the board and those the
        // other side captured.
        let black = on_board(Color::Black) + f64::from(board.captures(Color::White));
        let white_stones = on_board(Color::White) + f64::from(board.captures(Color::Black));
        white += black - white_stones;
    }
    if pla == Color::White { white } else { -white }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::rules::Rules;

    fn all_alive() -> Vec<Status> {
        vec![Status::Alive; crate::go::board::MAX_POINTS]
    }

    #[test]
    fn area_and_territory_on_a_split_board() {
        // Black owns columns A-B (10 points + 5 stones... see below).
        let mut g = Game::new(5, Rules::preset("chinese").unwrap(), 0.5);
        for y in 1..=5 {
            let b = crate::go::vertex::parse_vertex(&format!("B{y}"), 5).unwrap();
            let w = crate::go::vertex::parse_vertex(&format!("C{y}"), 5).unwrap();
            g.play(Color::Black, b).unwrap();
            g.play(Color::White, w).unwrap();
        }
        let s = score(&g, &all_alive());
        assert_eq!((s.black, s.white), (10.0, 15.0));
        assert_eq!(s.result(), "W+5.5");
        g.rules = Rules::preset("japanese").unwrap();
        let s = score(&g, &all_alive());
        assert_eq!((s.black, s.white), (5.0, 10.0));
    }

    #[test]
    fn settled_means_every_empty_point_has_an_owner_or_is_neutral() {
        let board = Board::from_ascii(
            "
            . X O .
            . X O .
            . X O .
            . X O .",
        );
        let mut own = vec![0.0; crate::go::board::MAX_POINTS];
        for p in board.points() {
            let (x, _) = board.coords(p);
            own[p as usize] = if x < 2 { 0.9 } else { -0.9 };
        }
        assert!(is_settled(&board, &own, &all_alive()));
        let open = Board::from_ascii(
            "
            . . . .
            . X . .
            . . O .
            . . . .",
        );
        let mut half = vec![0.0; crate::go::board::MAX_POINTS];
        for p in open.points() {
            half[p as usize] = 0.2;
        }
        assert!(!is_settled(&open, &half, &all_alive()));
    }

    /// Ownership as the playouts of a finished position could give it: the
    /// walls clearly their owners', everything else undecided.
    fn walls_owned(board: &Board) -> Vec<f64> {
        let mut own = vec![0.0; crate::go::board::MAX_POINTS];
        for p in board.points() {
            let (x, _) = board.coords(p);
            own[p as usize] = match board.color_at(p) {
                Some(Color::Black) if x >= 5 => 0.9,
                Some(Color::White) if x >= 5 => -0.9,
                _ => 0.0,
            };
        }
        own
    }

    #[test]
    fn a_lone_stone_in_a_walled_territory_is_dead_whatever_the_playouts_say() {
        let board = Board::from_ascii(
            "
            . . . . . X O . .
            . . . . . X O . .
            . . O . . X O . .
            . . . . . X O . .
            . . . . . X O . .
            . . . . . X O . .
            . . . . . X O . .
            . . . . . X O . .
            . . . . . X O . .",
        );
        let st = statuses(&board, &walls_owned(&board));
        let lone = board.point(2, 6);
        assert_eq!(st[lone as usize], Status::Dead);
        assert_eq!(st[board.point(5, 0) as usize], Status::Alive);
    }

    #[test]
    fn the_static_check_kills_no_group_with_eye_space_and_no_seki() {
        // White inside Black's area with a three-point eye: left alone (the
        // playouts' verdict stands; here undecided, so alive).
        let eye_space = Board::from_ascii(
            "
            . . . . . X O . .
            O O O O . X O . .
            . . . O . X O . .
            O O O O . X O . .
            . . . . . X O . .
            . . . . . X O . .
            . . . . . X O . .
            . . . . . X O . .
            . . . . . X O . .",
        );
        let st = statuses(&eye_space, &walls_owned(&eye_space));
        assert_eq!(st[eye_space.point(0, 5) as usize], Status::Alive);
        // A wall the playouts do not judge alive is no wall.
        let board = Board::from_ascii(
            "
            . . O . . X O . .
            . . . . . X O . .
            . . . . . X O . .
            . . . . . X O . .
            . . . . . X O . .
            . . . . . X O . .
            . . . . . X O . .
            . . . . . X O . .
            . . . . . X O . .",
        );
        let mut own = walls_owned(&board);
        for y in 0..9 {
            own[board.point(5, y) as usize] = 0.3;
        }
        let st = statuses(&board, &own);
        assert_eq!(st[board.point(2, 8) as usize], Status::Alive);
    }

    #[test]
    fn dead_stones_are_removed_and_counted_as_prisoners() {
        let mut g = Game::new(5, Rules::preset("japanese").unwrap(), 0.0);
        for y in 1..=5 {
            let b = crate::go::vertex::parse_vertex(&format!("B{y}"), 5).unwrap();
            g.play(Color::Black, b).unwrap();
        }
        let e1 = crate::go::vertex::parse_vertex("E1", 5).unwrap();
        g.play(Color::White, e1).unwrap();
        let mut status = all_alive();
        status[e1.unwrap() as usize] = Status::Dead;
        let s = score(&g, &status);
        // Black: 15 points of territory on C-E plus 5 on A, and 1 prisoner.
        assert_eq!((s.black, s.white), (21.0, 0.0));
        g.rules = Rules::preset("chinese").unwrap();
        assert_eq!(score(&g, &status).black, 25.0);
    }
}
