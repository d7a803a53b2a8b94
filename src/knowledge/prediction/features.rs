//! The features of a candidate move, after Coulom ("Computing Elo Ratings
//! of Move Patterns in the Game of Go", 2007): tactical ones (capture,
//! escape from atari, self-atari, atari), the distance to the edge, the
//! distances to the last two moves, and the largest known spatial pattern.
//! Each feature belongs to one group and a move has at most one feature of
//! each group; a feature is a number, its group's first number plus its
//! level.

use super::spatial;
use crate::go::board::{Board, Color, Point};
use crate::knowledge::tactics;

/// A group of features and how many levels it has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// 1 captures, 2 captures a chain next to an own chain in atari,
    /// 3 captures the last move's chain.
    Capture,
    /// Extends an own chain out of atari: 1 safe, 2 into a ladder.
    Escape,
    /// Leaves the chain it joins with one liberty (capturing nothing).
    SelfAtari,
    /// Puts an opponent chain in atari: 1 that cannot escape (ladder),
    /// 2 while a ko is on the board, 3 other.
    Atari,
    /// The line the move is on: 1 to 5 and more.
    Edge,
    /// Gridcular distance to the opponent's last move: 2 to 16, 17 and more.
    LastMove,
    /// The same to the mover's own previous move.
    PreviousMove,
}

/// The groups with their number of levels (level 0 is "none": no feature).
pub const GROUPS: [(Group, u32); 7] = [
    (Group::Capture, 3),
    (Group::Escape, 2),
    (Group::SelfAtari, 1),
    (Group::Atari, 3),
    (Group::Edge, 5),
    (Group::LastMove, 16),
    (Group::PreviousMove, 16),
];

/// Features numbered before the spatial patterns.
pub const TACTICAL: u32 = {
    let mut n = 0;
    let mut i = 0;
    while i < GROUPS.len() {
        n += GROUPS[i].1;
        i += 1;
    }
    n
};

/// The number of the feature of `group` at `level` (from 1).
pub fn feature(group: Group, level: u32) -> u32 {
    let mut first = 0;
    for (g, n) in GROUPS {
        if g == group {
            debug_assert!(level >= 1 && level <= n);
            return first + level - 1;
        }
        first += n;
    }
    unreachable!("every group is listed")
}

fn gridcular(board: &Board, a: Point, b: Point) -> u32 {
    let (ax, ay) = board.coords(a);
    let (bx, by) = board.coords(b);
    let (dx, dy) = (ax.abs_diff(bx) as u32, ay.abs_diff(by) as u32);
    dx + dy + dx.max(dy)
}

/// Where the move is: the board, the mover, the opponent's last move and
/// the mover's previous one (and the board laid out for patterns).
pub struct Position<'a> {
    pub board: &'a Board,
    pub color: Color,
    pub last: Option<Point>,
    pub previous: Option<Point>,
    grid: spatial::Grid,
}

impl<'a> Position<'a> {
    pub fn new(
        board: &'a Board,
        color: Color,
        last: Option<Point>,
        previous: Option<Point>,
    ) -> Position<'a> {
        Position::with_grid(board, color, last, previous, spatial::Grid::default())
    }

    /// The same, laying the board out in `grid` (no allocation once the
    /// grid has held a board of this size); take it back with
    /// [`Position::into_grid`].
    pub fn with_grid(
        board: &'a Board,
        color: Color,
        last: Option<Point>,
        previous: Option<Point>,
        mut grid: spatial::Grid,
    ) -> Position<'a> {
        grid.lay_out(board, color);
        Position {
            board,
            color,
            last,
            previous,
            grid,
        }
    }

    /// Gives the grid back, for the next [`Position::with_grid`].
    pub fn into_grid(self) -> spatial::Grid {
        self.grid
    }
}

/// The tactical and distance features of `p`, into `out` (cleared first).
pub fn tactical(pos: &Position, p: Point, out: &mut Vec<u32>) {
    out.clear();
    let (board, c) = (pos.board, pos.color);
    let opponent = c.opponent();
    let mut captures = 0;
    let mut saves = false;
    let mut retakes = false;
    let mut own_in_atari = false;
    let mut ataris = false;
    for q in board.neighbors(p) {
        match board.color_at(q) {
            Some(s) if s == opponent => match board.liberties(q) {
                1 => {
                    captures += 1;
                    if pos.last.is_some_and(|l| {
                        board.color_at(l) == Some(opponent) && board.chain(l) == board.chain(q)
                    }) {
                        retakes = true;
                    }
                    if board.chain_stones(q).any(|s| {
                        board
                            .neighbors(s)
                            .iter()
                            .any(|&n| board.color_at(n) == Some(c) && board.liberties(n) == 1)
                    }) {
                        saves = true;
                    }
                }
                2 => ataris = true,
                _ => {}
            },
            Some(_) => own_in_atari |= board.liberties(q) == 1,
            None => {}
        }
    }
    if captures > 0 {
        let level = if retakes {
            3
        } else if saves {
            2
        } else {
            1
        };
        out.push(feature(Group::Capture, level));
    }
    if own_in_atari && captures == 0 {
        let safe = tactics::move_is_safe(board, c, p, tactics::LADDER_DEPTH);
        out.push(feature(Group::Escape, if safe { 1 } else { 2 }));
    }
    let self_atari = captures == 0 && board.is_self_atari(c, p);
    if self_atari {
        out.push(feature(Group::SelfAtari, 1));
    }
    if ataris && !self_atari {
        let level = if tactics::catches(board, c, p, tactics::LADDER_DEPTH) > 0 {
            1
        } else if board.ko().is_some() {
            2
        } else {
            3
        };
        out.push(feature(Group::Atari, level));
    }
    let line = board.line(p) - 1;
    out.push(feature(Group::Edge, line.min(4) + 1));
    for (group, from) in [
        (Group::LastMove, pos.last),
        (Group::PreviousMove, pos.previous),
    ] {
        if let Some(from) = from {
            let d = gridcular(board, p, from).clamp(2, 17);
            out.push(feature(group, d - 1));
        }
    }
}

/// The name of the largest pattern around `p` that `known` accepts.
pub fn largest_known(pos: &Position, p: Point, known: impl Fn(u64) -> bool) -> Option<u64> {
    let (x, y) = pos.board.coords(p);
    pos.grid.largest_known(x, y, known)
}

/// The spatial pattern names of `p` for the mover, every size.
pub fn spatial(pos: &Position, p: Point) -> [u64; spatial::SIZES] {
    let (x, y) = pos.board.coords(p);
    pos.grid.hashes(x, y)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn features(board: &Board, c: Color, p: Point, last: Option<Point>) -> Vec<u32> {
        let mut out = Vec::new();
        let pos = Position::new(board, c, last, None);
        tactical(&pos, p, &mut out);
        out
    }

    #[test]
    fn tactical_features_are_seen() {
        let b = Board::from_ascii(
            "
            . . . . .
            . . . . .
            . . O . .
            . O X O .
            . . . . .",
        );
        // White at C1 captures the black stone at C2 (its last move).
        let c2 = b.point(2, 1);
        let f = features(&b, Color::White, b.point(2, 0), Some(c2));
        assert!(f.contains(&feature(Group::Capture, 3)), "{f:?}");
        // Black at C1 extends its stone out of atari (to two liberties).
        let f = features(&b, Color::Black, b.point(2, 0), None);
        let escape = [feature(Group::Escape, 1), feature(Group::Escape, 2)];
        assert!(f.iter().any(|x| escape.contains(x)), "{f:?}");
        // Every move has an edge feature; C1 is on the first line.
        assert!(f.contains(&feature(Group::Edge, 1)));
        // Distance 2 to a neighbouring last move.
        let f = features(&b, Color::White, b.point(4, 4), Some(b.point(4, 3)));
        assert!(f.contains(&feature(Group::LastMove, 1)), "{f:?}");
        assert_eq!(TACTICAL, 46);
    }
}
