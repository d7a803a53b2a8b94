//! 3×3 patterns of the MoGo kind (hane, cut, side moves) around an empty
//! point, matched through a table indexed by the eight neighbours' contents.
//! Used by the playout policy and the tree's priors.
//!
//! The pattern set is the classic one published with MoGo (Gelly et al.,
//! 2006) in the notation michi uses: `X` and `O` are the two colours (either
//! way round), `x` is "not X", `o` is "not O", `.` is empty, `?` anything and
//! a space is off the board. The centre is the candidate move.

use crate::go::board::{Board, Point};
use std::sync::OnceLock;

const SOURCE: &[[&str; 3]] = &[
    ["XOX", "...", "???"], // hane: enclosing hane
    ["XO.", "...", "?.?"], // hane: non-cutting hane
    ["XO?", "X..", "x.?"], // hane: magari
    [".O.", "X..", "..."], // katatsuke or diagonal attachment
    ["XO?", "O.o", "?o?"], // cut: unprotected cut
    ["XO?", "O.X", "???"], // cut: peeped cut
    ["?X?", "O.O", "ooo"], // cut: de
    ["OX?", "o.O", "???"], // cut: keima
    ["X.?", "O.?", "   "], // side: chase
    ["OX?", "X.O", "   "], // side: block side cut
    ["?X?", "x.O", "   "], // side: block side connection
    ["?XO", "x.x", "   "], // side: sagari
    ["?OX", "X.O", "   "], // side: cut
];

/// Codes of a cell in a pattern key: 2 bits each.
const EMPTY: u16 = 0;
const BLACK: u16 = 1;
const WHITE: u16 = 2;
const EDGE: u16 = 3;

/// For each key (8 neighbours × 2 bits, in reading order without the
/// centre), whether some pattern matches: one bit per key, 8 KiB that stay
/// in the first-level cache.
fn table() -> &'static [u64] {
    static TABLE: OnceLock<Vec<u64>> = OnceLock::new();
    TABLE.get_or_init(build)
}

/// The cells a pattern character accepts, with `x_is_black` telling which
/// colour `X` stands for. `?` also accepts the edge.
fn accepts(ch: char, x_is_black: bool) -> Vec<u16> {
    let (x, o) = if x_is_black {
        (BLACK, WHITE)
    } else {
        (WHITE, BLACK)
    };
    match ch {
        'X' => vec![x],
        'O' => vec![o],
        'x' => vec![EMPTY, o],
        'o' => vec![EMPTY, x],
        '.' => vec![EMPTY],
        '?' => vec![EMPTY, BLACK, WHITE, EDGE],
        ' ' => vec![EDGE],
        _ => unreachable!("pattern character {ch}"),
    }
}

/// The eight symmetries of a 3×3 grid.
fn symmetries(p: [[char; 3]; 3]) -> Vec<[[char; 3]; 3]> {
    let rotate = |g: [[char; 3]; 3]| {
        let mut r = [[' '; 3]; 3];
        for (y, row) in r.iter_mut().enumerate() {
            for (x, cell) in row.iter_mut().enumerate() {
                *cell = g[2 - x][y];
            }
        }
        r
    };
    let mirror = |g: [[char; 3]; 3]| {
        let mut r = g;
        for row in r.iter_mut() {
            row.reverse();
        }
        r
    };
    let mut out = Vec::new();
    let mut g = p;
    for _ in 0..4 {
        out.push(g);
        out.push(mirror(g));
        g = rotate(g);
    }
    out
}

fn build() -> Vec<u64> {
    let mut table = vec![0u64; (1 << 16) / 64];
    for src in SOURCE {
        let mut grid = [[' '; 3]; 3];
        for (y, row) in src.iter().enumerate() {
            for (x, ch) in row.chars().enumerate() {
                grid[y][x] = ch;
            }
        }
        for g in symmetries(grid) {
            for x_is_black in [true, false] {
                // Expand the wildcards of the eight neighbours into keys.
                let cells: Vec<Vec<u16>> = (0..9)
                    .filter(|&i| i != 4)
                    .map(|i| accepts(g[i / 3][i % 3], x_is_black))
                    .collect();
                let mut keys = vec![0u16];
                for (k, options) in cells.iter().enumerate() {
                    keys = keys
                        .iter()
                        .flat_map(|&key| options.iter().map(move |&o| key | (o << (2 * k))))
                        .collect();
                }
                for key in keys {
                    table[key as usize / 64] |= 1 << (key % 64);
                }
            }
        }
    }
    table
}

/// The key of the 3×3 neighbourhood of `p`.
#[inline]
fn key(board: &Board, p: Point) -> u16 {
    let s = board.size().width as Point + 2;
    let around = [
        p + s - 1,
        p + s,
        p + s + 1,
        p - 1,
        p + 1,
        p - s - 1,
        p - s,
        p - s + 1,
    ];
    let mut key = 0u16;
    for (k, q) in around.into_iter().enumerate() {
        // The cell's discriminant is its code (checked in the tests).
        key |= (board.cell(q) as u16) << (2 * k);
    }
    key
}

/// Whether a move at empty point `p` matches one of the patterns.
#[inline]
pub fn matches(board: &Board, p: Point) -> bool {
    let key = key(board, p);
    table()[key as usize / 64] & (1 << (key % 64)) != 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::board::Cell;
    use crate::go::board::tests::at;

    #[test]
    fn cells_are_their_pattern_codes() {
        assert_eq!(Cell::Empty as u16, EMPTY);
        assert_eq!(Cell::Black as u16, BLACK);
        assert_eq!(Cell::White as u16, WHITE);
        assert_eq!(Cell::Border as u16, EDGE);
    }

    #[test]
    fn hane_and_cut_match_empty_space_does_not() {
        let b = Board::from_ascii(
            "
            . . . . .
            . X O X .
            . . . . .
            . . . . .
            . . . . .",
        );
        // Enclosing hane below the O stone, from either side.
        assert!(matches(&b, at(&b, "C3")));
        assert!(!matches(&b, at(&b, "C1")));
        let cut = Board::from_ascii(
            "
            . . . . .
            . X O . .
            . O . . .
            . . . . .
            . . . . .",
        );
        assert!(matches(&cut, at(&cut, "C3")));
        // The table is symmetric: every rotation of the cut matches too.
        let rotated = Board::from_ascii(
            "
            . . . . .
            . . O X .
            . . . O .
            . . . . .
            . . . . .",
        );
        assert!(matches(&rotated, at(&rotated, "C3")));
    }

    #[test]
    fn side_patterns_need_the_edge() {
        let b = Board::from_ascii(
            "
            . . . . .
            . . . . .
            . . . . .
            X . . . .
            O . . . .",
        );
        // Chase on the edge: B1 next to O at A1 under X at A2.
        assert!(matches(&b, at(&b, "B1")));
    }
}
