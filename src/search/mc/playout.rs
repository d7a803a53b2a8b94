//! Playouts: the light and full policies, Aléago's rolls in them, and the
//! count of a finished playout.

use crate::go::board::{Board, Cell, Color, Point};
use crate::go::dice::{self, ALL_LINES, Dice, Lines};
use crate::knowledge::patterns;
use crate::knowledge::tactics;
#[cfg(test)]
use rand::SeedableRng;
use rand::rngs::SmallRng;
use rand::{Rng, RngExt};

/// Aléago in playouts and the tree: the dice, with the descent's line sets
/// of every total worked out once.
pub struct Rolls {
    pub dice: Dice,
    pub top: u32,
    /// The descent's line sets for each total (index: total).
    line_sets: Vec<([Lines; 14], usize)>,
}

impl Rolls {
    pub fn new(dice: Dice, board: &Board) -> Rolls {
        let top = dice::top_line(board.size());
        let (_, high) = dice.range();
        Rolls {
            dice,
            top,
            line_sets: (0..=high).map(|t| dice.line_sets(t, top)).collect(),
        }
    }

    /// Rolls the dice: the line sets to try, in order.
    #[inline]
    pub fn roll(&self, rng: &mut SmallRng) -> &([Lines; 14], usize) {
        &self.line_sets[self.dice.roll(rng) as usize]
    }

    /// The line sets to try for a known total.
    #[inline]
    pub fn sets_for(&self, total: u32) -> &([Lines; 14], usize) {
        &self.line_sets[total as usize]
    }
}

/// How playouts choose their moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Policy {
    /// Uniform among legal points that are not the mover's own eye.
    Light,
    /// Captures a chain the last move left in atari, else uniform as light
    /// but never a self-atari: the policy of the ownership estimate (final
    /// status), where local fights should be settled bluntly.
    #[value(skip)]
    Settle,
    /// Around the last move: capture a chain in atari, save an own chain
    /// from atari, play a 3×3 pattern move; else uniform as light but never
    /// a self-atari.
    Full,
}

/// Plays moves by `policy` until both sides pass. Suicide is never played.
/// `recent` holds the last two moves before the playout (the opponent's
/// last, then the mover's), which the full policy answers. `record`
/// receives each move with its colour (for AMAF).
pub fn playout(
    board: &mut Board,
    mut to_move: Color,
    policy: Policy,
    rng: &mut SmallRng,
    rolls: Option<&Rolls>,
    recent: [Option<Point>; 2],
    mut record: impl FnMut(Color, Point),
) {
    if rolls.is_some() {
        board.keep_lines(true); // the rolled lines' empty points
    } else if policy == Policy::Light {
        return light_playout(board, to_move, rng, record);
    }
    let limit = board.size().points() * 3;
    let mut passes = 0;
    let [mut last, mut last2] = recent;
    for _ in 0..limit {
        // The policy's move near the last move, on `lines`, if it has one.
        let local = |board: &Board, rng: &mut SmallRng, lines: Lines| match policy {
            Policy::Light => None,
            Policy::Settle => {
                last.and_then(|l| capture_move(board, to_move, l, |p| on_line_set(board, p, lines)))
            }
            Policy::Full => last.and_then(|l| local_move(board, to_move, l, last2, rng, lines)),
        };
        let no_self_atari = policy != Policy::Light;
        let mv = match rolls.filter(|r| r.dice.rolls_for(to_move)) {
            None => local(board, rng, ALL_LINES)
                .or_else(|| random_move(board, to_move, rng, no_self_atari, ALL_LINES)),
            Some(r) => {
                // Roll, then take the first of the rolled lines and the lines
                // below that has a playable point; only there is the policy's
                // local move looked for.
                let (sets, n) = r.roll(rng);
                sets[..*n].iter().find_map(|&lines| {
                    let any = random_move(board, to_move, rng, no_self_atari, lines)?;
                    Some(local(board, rng, lines).unwrap_or(any))
                })
            }
        };
        last2 = last;
        last = mv;
        match mv {
            Some(p) => {
                board.place(to_move, p);
                record(to_move, p);
                passes = 0;
            }
            None => {
                board.clear_ko();
                // A pass forced by a bad roll while the board still has
                // room does not count towards the end of the playout: the
                // playout is there to settle the board.
                let dice_pass = rolls.is_some_and(|r| r.dice.rolls_for(to_move))
                    && random_move(board, to_move, rng, no_self_atari, ALL_LINES).is_some();
                if !dice_pass {
                    passes += 1;
                    if passes == 2 {
                        break;
                    }
                }
            }
        }
        to_move = to_move.opponent();
    }
}

/// The light policy without dice: uniform moves that fill no own eye, the
/// moves `playout` would make, in a loop with nothing else to decide (the
/// general loop's dice, local-move and recent-move upkeep cost a light
/// playout 3.6% of its instructions).
fn light_playout(
    board: &mut Board,
    mut to_move: Color,
    rng: &mut SmallRng,
    mut record: impl FnMut(Color, Point),
) {
    let limit = board.size().points() * 3;
    let mut passes = 0;
    for _ in 0..limit {
        match random_move(board, to_move, rng, false, ALL_LINES) {
            Some(p) => {
                board.place(to_move, p);
                record(to_move, p);
                passes = 0;
            }
            None => {
                board.clear_ko();
                passes += 1;
                if passes == 2 {
                    break;
                }
            }
        }
        to_move = to_move.opponent();
    }
}

/// The full policy's move near the opponent's last move `last`: a capture,
/// an escape from atari, or a 3×3 pattern move around `last` or the
/// mover's own last move `last2` (a random one of those).
#[inline]
fn local_move(
    board: &Board,
    c: Color,
    last: Point,
    last2: Option<Point>,
    rng: &mut SmallRng,
    lines: Lines,
) -> Option<Point> {
    let on = |p: Point| on_line_set(board, p, lines);
    if let Some(p) = capture_move(board, c, last, on) {
        return Some(p);
    }
    if let Some(p) = escape_move(board, c, last, on) {
        return Some(p);
    }
    let s = board.size().width as Point + 2;
    let mut found = [0 as Point; 16];
    let mut n = 0;
    // The point `c` may not take back (0, off the board, if none).
    let ko = match board.ko() {
        Some((k, kc)) if kc == c => k,
        _ => 0,
    };
    for centre in std::iter::once(last).chain(last2) {
        for q in [
            centre - s - 1,
            centre - s,
            centre - s + 1,
            centre - 1,
            centre + 1,
            centre + s - 1,
            centre + s,
            centre + s + 1,
        ] {
            if board.cell(q) == Cell::Empty
                && q != ko
                && on(q)
                && !found[..n].contains(&q)
                && patterns::matches(board, q)
                && !board.is_suicide(c, q)
                && !board.is_self_atari(c, q)
            {
                found[n] = q;
                n += 1;
            }
        }
    }
    (n > 0).then(|| found[below(rng, n)])
}

/// A move of `c` saving one of its chains next to `last` from atari: taking
/// an attacker in atari next to it, or extending at its liberty when that
/// leaves it safe (two liberties or more, and no ladder).
#[inline]
fn escape_move(board: &Board, c: Color, last: Point, on: impl Fn(Point) -> bool) -> Option<Point> {
    let opp = c.opponent();
    let ko = board.ko();
    for q in board.neighbors(last) {
        if board.color_at(q) == Some(c) && board.liberties(q) == 1 {
            for s in board.chain_stones(q) {
                for r in board.neighbors(s) {
                    if board.color_at(r) == Some(opp) && board.liberties(r) == 1 {
                        let lib = board.some_liberty(r)?;
                        if on(lib) && ko != Some((lib, c)) {
                            return Some(lib);
                        }
                    }
                }
            }
            let lib = board.some_liberty(q)?;
            if on(lib)
                && ko != Some((lib, c))
                && !board.is_self_atari(c, lib)
                && tactics::move_is_safe(board, c, lib, tactics::LADDER_DEPTH)
            {
                return Some(lib);
            }
        }
    }
    None
}

/// A move of `c` capturing a chain next to `last` that is in atari.
#[inline]
fn capture_move(board: &Board, c: Color, last: Point, on: impl Fn(Point) -> bool) -> Option<Point> {
    let opp = c.opponent();
    if board.color_at(last) != Some(opp) {
        return None;
    }
    let ko = board.ko();
    for q in std::iter::once(last).chain(board.neighbors(last)) {
        if board.color_at(q) == Some(opp) && board.liberties(q) == 1 {
            let lib = board.some_liberty(q)?;
            if on(lib) && ko != Some((lib, c)) {
                return Some(lib);
            }
        }
    }
    None
}

/// Whether no stone lies within Manhattan distance `d` of `p`.
pub(super) fn empty_area(board: &Board, p: Point, d: usize) -> bool {
    let (x, y) = board.coords(p);
    let size = board.size();
    for qy in y.saturating_sub(d)..(y + d + 1).min(size.height) {
        for qx in x.saturating_sub(d)..(x + d + 1).min(size.width) {
            if qx.abs_diff(x) + qy.abs_diff(y) <= d && board.color_at(board.point(qx, qy)).is_some()
            {
                return false;
            }
        }
    }
    true
}

/// Whether `p` is on one of `lines`.
#[inline]
pub(super) fn on_line_set(board: &Board, p: Point, lines: Lines) -> bool {
    lines == ALL_LINES || lines & (1 << board.line(p)) != 0
}

/// A uniformly drawn playout move on `lines`, or `None` (pass).
#[inline]
fn random_move(
    board: &Board,
    c: Color,
    rng: &mut SmallRng,
    no_self_atari: bool,
    lines: Lines,
) -> Option<Point> {
    // Half the time a lone stone may be thrown in to atari (to fill an eye
    // space and kill, nakade), and some of the time two stones (Pachi's
    // moggy also lets small sacrifices through part of the time); a
    // self-atari of three stones or more never.
    let mut throw_in = if no_self_atari && rng.random_bool(0.5) {
        ThrowIn::LoneStone
    } else {
        ThrowIn::None
    };
    if no_self_atari && rng.random_range(0..100u32) < TWO_STONE_THROW_IN_PERCENT {
        throw_in = ThrowIn::TwoStones;
    }
    // Empty neighbours settle most points at once: one rules out an eye, the
    // ko point and suicide; two rule out a self-atari as well.
    let free_enough = if no_self_atari { 2 } else { 1 };
    let acceptable = |p: Point| {
        board.empty_neighbors(p) >= free_enough
            || crowded_point_acceptable(board, c, p, no_self_atari, throw_in)
    };
    if lines == ALL_LINES {
        return scan_from_random(board.empty_points(), rng, acceptable);
    }
    // Aléago: only the empty points of the allowed lines.
    if lines.count_ones() == 1 {
        let line = lines.trailing_zeros() as usize;
        if line > crate::go::board::MAX_LINES {
            return None;
        }
        return scan_from_random(board.empty_points_on_line(line), rng, acceptable);
    }
    // Several lines (the bonus): scan their lists as one, from a uniformly
    // drawn start, so the choice stays uniform.
    let on = |line: usize| lines & (1 << line) != 0;
    let total: usize = (1..=crate::go::board::MAX_LINES)
        .filter(|&l| on(l))
        .map(|l| board.empty_points_on_line(l).len())
        .sum();
    if total == 0 {
        return None;
    }
    let mut k = rng.random_range(0..total);
    let mut line = 1;
    while !on(line) || k >= board.empty_points_on_line(line).len() {
        if on(line) {
            k -= board.empty_points_on_line(line).len();
        }
        line += 1;
    }
    for _ in 0..total {
        let p = board.empty_points_on_line(line)[k];
        if acceptable(p) {
            return Some(p);
        }
        k += 1;
        while k >= board.empty_points_on_line(line).len() || !on(line) {
            k = 0;
            line = if line >= crate::go::board::MAX_LINES {
                1
            } else {
                line + 1
            };
            if on(line) && !board.empty_points_on_line(line).is_empty() {
                break;
            }
        }
    }
    None
}

/// Whether a point with few empty neighbours may be played: not an own eye,
/// not the ko point, not suicide, and (if `no_self_atari`) not a self-atari
/// unless a lone stone is thrown in. Kept out of line so that the common
/// case of the scan, a point with room, stays small.
#[inline(never)]
fn crowded_point_acceptable(
    board: &Board,
    c: Color,
    p: Point,
    no_self_atari: bool,
    throw_in: ThrowIn,
) -> bool {
    !(board.is_eye(c, p)
        || board.ko() == Some((p, c))
        || board.is_suicide(c, p)
        || (no_self_atari && !throw_in.allows(board, c, p) && board.is_self_atari(c, p)))
}

/// How often (in percent) a playout's random move may be a self-atari of
/// two stones: in self-play on 9×9 (docs/strength.md), 40% won 437 of 800
/// games against never at 3000 playouts a move, and 87 of 151 at equal
/// time (0.18 s a move), its playouts being longer.
const TWO_STONE_THROW_IN_PERCENT: u32 = 40;

/// Which self-ataris one random move may be: a throw-in sacrifices a few
/// stones, to kill an eye space or to take a liberty in a fight.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ThrowIn {
    None,
    /// A stone touching no own stone.
    LoneStone,
    /// A stone joining at most one lone own stone (two stones in atari).
    TwoStones,
}

impl ThrowIn {
    /// Whether a self-atari of `c` at `p` is a throw-in this allows.
    fn allows(self, board: &Board, c: Color, p: Point) -> bool {
        match (self, board.neighbors_of_color(c, p)) {
            (ThrowIn::None, _) => false,
            (_, 0) => true,
            (ThrowIn::TwoStones, 1) => board
                .neighbors(p)
                .into_iter()
                .any(|q| board.color_at(q) == Some(c) && board.chain_size(q) == 1),
            _ => false,
        }
    }
}

/// A number below `n` (at most a few thousand) from one 32-bit draw by
/// multiplying and shifting: the playouts' draw, cheaper than rejection
/// sampling and biased by less than `n` in 2^32.
#[inline]
fn below(rng: &mut SmallRng, n: usize) -> usize {
    ((rng.next_u32() as u64 * n as u64) >> 32) as usize
}

/// The first point accepted by `ok`, scanning `points` from a random start.
#[inline]
fn scan_from_random(
    points: &[Point],
    rng: &mut SmallRng,
    ok: impl Fn(Point) -> bool,
) -> Option<Point> {
    let n = points.len();
    if n == 0 {
        return None;
    }
    let mut i = below(rng, n);
    for _ in 0..n {
        let p = points[i];
        if ok(p) {
            return Some(p);
        }
        i += 1;
        if i == n {
            i = 0;
        }
    }
    None
}

/// Black's area lead on a board at the end of a playout: stones plus empty
/// points whose neighbours are all one colour.
pub fn playout_area(board: &Board) -> i32 {
    let mut lead = 0;
    for p in board.points() {
        lead += match board.cell(p) {
            Cell::Black => 1,
            Cell::White => -1,
            _ => point_owner(board, p),
        };
    }
    lead
}

/// +1 Black, -1 White, 0 neither: the owner of any point at the end of a
/// playout (a stone's colour, or the colour around an empty point).
pub(super) fn final_owner(board: &Board, p: Point) -> i32 {
    match board.cell(p) {
        Cell::Black => 1,
        Cell::White => -1,
        _ => point_owner(board, p),
    }
}

/// +1 Black, -1 White, 0 neither: the owner of an empty point at the end.
pub(super) fn point_owner(board: &Board, p: Point) -> i32 {
    let (mut b, mut w) = (false, false);
    for q in board.neighbors(p) {
        match board.cell(q) {
            Cell::Black => b = true,
            Cell::White => w = true,
            _ => {}
        }
    }
    match (b, w) {
        (true, false) => 1,
        (false, true) => -1,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn playout_draws_are_uniform_and_in_range() {
        let mut rng = SmallRng::seed_from_u64(5);
        for n in [1, 3, 7, 81, 361] {
            let mut seen = vec![0u32; n];
            let draws = 2000 * n as u32;
            for _ in 0..draws {
                seen[below(&mut rng, n)] += 1;
            }
            // Each count within 15% of the mean (2000): many standard
            // deviations (about 45) away.
            assert!(
                seen.iter().all(|&k| (1700..=2300).contains(&k)),
                "{n}: {seen:?}"
            );
        }
    }

    #[test]
    fn throw_ins_sacrifice_at_most_what_they_allow() {
        // Black at A1 would be a lone stone in atari; at F4 it joins the
        // lone G4 (two stones in atari); at C7 the chain A7 B7 (three).
        let b = Board::from_ascii(
            "X X . . . . .
             O O O . . . .
             . . . . . O O
             . . . . . . X
             . . . . . O O
             . . . . . . .
             . O . . . . .",
        );
        let at = |v: &str| crate::go::board::tests::at(&b, v);
        let (lone, two, three) = (at("A1"), at("F4"), at("C7"));
        for p in [lone, two, three] {
            assert!(b.is_self_atari(Color::Black, p), "{p}");
        }
        let allowed = |t: ThrowIn| [lone, two, three].map(|p| t.allows(&b, Color::Black, p));
        assert_eq!(allowed(ThrowIn::None), [false, false, false]);
        assert_eq!(allowed(ThrowIn::LoneStone), [true, false, false]);
        assert_eq!(allowed(ThrowIn::TwoStones), [true, true, false]);
    }

    #[test]
    fn playouts_end_with_only_eyes_left() {
        let mut rng = SmallRng::seed_from_u64(3);
        for _ in 0..20 {
            let mut b = Board::new(9);
            playout(
                &mut b,
                Color::Black,
                Policy::Light,
                &mut rng,
                None,
                [None, None],
                |_, _| {},
            );
            for &p in b.empty_points() {
                assert!(
                    b.is_eye(Color::Black, p)
                        || b.is_eye(Color::White, p)
                        || b.is_suicide(Color::Black, p) && b.is_suicide(Color::White, p)
                );
            }
            assert_eq!(b.hash(), b.recompute_hash());
        }
    }
}
