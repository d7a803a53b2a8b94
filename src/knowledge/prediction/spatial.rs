//! Spatial patterns of growing size around a candidate move, in the manner
//! of Pachi and Crazy Stone: the points within gridcular distance
//! `d = dx + dy + max(dx, dy)` of the move (d ≤ 3 is the 3×3 square, d ≤ 10
//! about a diameter-7 disc), each seen as own stone, opponent stone, empty or
//! off the board. A pattern of each size is hashed (Zobrist, ring by ring)
//! under the eight symmetries of the square, and the smallest of the eight
//! hashes names it, so that a pattern, its mirror images and rotations share
//! one name. Colours are relative to the player to move, so a pattern and
//! its colour swap are the same for the player who plays it.

use crate::go::board::{Board, BoardSize, Color, Point};
use std::sync::OnceLock;

/// The largest gridcular distance of a pattern.
pub const MAX_DISTANCE: i32 = 10;
/// Pattern sizes: all points within distance 3, 4, ... `MAX_DISTANCE`.
pub const SIZES: usize = (MAX_DISTANCE - 2) as usize;

/// The offsets of a pattern, nearest first, and where each size ends.
struct Shape {
    offsets: Vec<(i32, i32)>,
    /// `ends[s]`: the number of offsets in size `s` (distance ≤ s + 3).
    ends: [usize; SIZES],
    /// Random keys: `keys[k][content]` for offset `k`.
    keys: Vec<[u64; 4]>,
}

fn shape() -> &'static Shape {
    static SHAPE: OnceLock<Shape> = OnceLock::new();
    SHAPE.get_or_init(|| {
        let distance = |dx: i32, dy: i32| dx.abs() + dy.abs() + dx.abs().max(dy.abs());
        let mut offsets: Vec<(i32, i32)> = (-MAX_DISTANCE..=MAX_DISTANCE)
            .flat_map(|dx| (-MAX_DISTANCE..=MAX_DISTANCE).map(move |dy| (dx, dy)))
            .filter(|&(dx, dy)| (dx, dy) != (0, 0) && distance(dx, dy) <= MAX_DISTANCE)
            .collect();
        offsets.sort_by_key(|&(dx, dy)| (distance(dx, dy), dx, dy));
        let mut ends = [0; SIZES];
        for (s, end) in ends.iter_mut().enumerate() {
            *end = offsets
                .iter()
                .filter(|&&(dx, dy)| distance(dx, dy) <= s as i32 + 3)
                .count();
        }
        // SplitMix64 from a fixed seed: the same keys in every build, so a
        // trained table's hashes stay valid.
        let mut next = crate::core::random::splitmix_sequence(0x6b6f_7375_6d69_u64);
        let keys = offsets
            .iter()
            .map(|_| [next(), next(), next(), next()])
            .collect();
        Shape {
            offsets,
            ends,
            keys,
        }
    })
}

/// A map of an offset.
type Symmetry = fn(i32, i32) -> (i32, i32);

/// The eight symmetries of the square.
const SYMMETRIES: [Symmetry; 8] = [
    |x, y| (x, y),
    |x, y| (-x, y),
    |x, y| (x, -y),
    |x, y| (-x, -y),
    |x, y| (y, x),
    |x, y| (-y, x),
    |x, y| (y, -x),
    |x, y| (-y, -x),
];

/// The farthest a pattern reaches along a row or column.
const REACH: i32 = MAX_DISTANCE / 2;

/// A position seen by the player to move, laid out for reading patterns:
/// each point's content (0 empty, 1 own, 2 opponent, 3 off the board) in a
/// grid with a margin of `REACH` off-board points, and each symmetry's
/// offsets as steps in that grid. Built once for all the candidates of a
/// position.
pub struct Grid {
    cells: Vec<u8>,
    width: i32,
    size: BoardSize,
    steps: &'static [Vec<i32>; 8],
}

/// Each symmetry's offsets as steps in a grid of `width`, worked out once
/// per board size.
fn steps(width: i32) -> &'static [Vec<i32>; 8] {
    const WIDTHS: usize = crate::go::board::MAX_SIZE + 2 * REACH as usize + 1;
    static STEPS: [OnceLock<[Vec<i32>; 8]>; WIDTHS] = [const { OnceLock::new() }; WIDTHS];
    STEPS[width as usize].get_or_init(|| {
        let shape = shape();
        SYMMETRIES.map(|symmetry| {
            shape
                .offsets
                .iter()
                .map(|&(dx, dy)| {
                    let (dx, dy) = symmetry(dx, dy);
                    dy * width + dx
                })
                .collect()
        })
    })
}

/// An empty grid, holding no board until [`Grid::lay_out`].
impl Default for Grid {
    fn default() -> Grid {
        Grid {
            cells: Vec::new(),
            width: 0,
            size: BoardSize::square(0),
            steps: steps(0),
        }
    }
}

impl Grid {
    pub fn new(board: &Board, c: Color) -> Grid {
        let mut grid = Grid::default();
        grid.lay_out(board, c);
        grid
    }

    /// Lays `board` out again in this grid, as seen by `c`, reusing its
    /// memory (allocating only when the board is larger than before).
    pub fn lay_out(&mut self, board: &Board, c: Color) {
        let size = board.size();
        let width = size.width as i32 + 2 * REACH;
        let height = size.height as i32 + 2 * REACH;
        self.width = width;
        self.steps = steps(width);
        self.size = size;
        self.cells.clear();
        self.cells.resize((width * height) as usize, 3);
        for y in 0..size.height {
            for x in 0..size.width {
                let content = match board.color_at(board.point(x, y)) {
                    None => 0,
                    Some(s) if s == c => 1,
                    Some(_) => 2,
                };
                self.cells[((y as i32 + REACH) * width + x as i32 + REACH) as usize] = content;
            }
        }
    }

    /// The names of the patterns of every size around the point at `(x,
    /// y)`: `out[s]` for distance ≤ s + 3.
    pub fn hashes(&self, x: usize, y: usize) -> [u64; SIZES] {
        debug_assert!(x < self.size.width && y < self.size.height);
        let shape = shape();
        let centre = (y as i32 + REACH) * self.width + x as i32 + REACH;
        let mut best = [u64::MAX; SIZES];
        for steps in self.steps {
            let mut hash = 0u64;
            let mut k = 0;
            for (s, &end) in shape.ends.iter().enumerate() {
                while k < end {
                    let content = self.cells[(centre + steps[k]) as usize];
                    hash ^= shape.keys[k][content as usize];
                    k += 1;
                }
                best[s] = best[s].min(hash);
            }
        }
        best
    }
}

impl Grid {
    /// The name of the largest pattern around `(x, y)` that `known`
    /// accepts, growing the pattern size by size and stopping at the first
    /// size it refuses (a table of patterns played often enough holds every
    /// smaller part of each pattern it holds, so nothing larger can be
    /// known then); most points stop after a size or two.
    pub fn largest_known(&self, x: usize, y: usize, known: impl Fn(u64) -> bool) -> Option<u64> {
        let shape = shape();
        let centre = (y as i32 + REACH) * self.width + x as i32 + REACH;
        let mut hashes = [0u64; 8];
        let mut found = None;
        let mut k = 0;
        for &end in &shape.ends {
            for (hash, steps) in hashes.iter_mut().zip(self.steps) {
                for (step, keys) in steps[k..end].iter().zip(&shape.keys[k..end]) {
                    let content = self.cells[(centre + step) as usize];
                    *hash ^= keys[content as usize];
                }
            }
            k = end;
            let name = *hashes.iter().min().expect("eight symmetries");
            if !known(name) {
                break;
            }
            found = Some(name);
        }
        found
    }
}

/// The names of the patterns of every size around `p` for `c` to play:
/// `out[s]` for distance ≤ s + 3 (one point; for many, build a [`Grid`]).
pub fn hashes(board: &Board, c: Color, p: Point) -> [u64; SIZES] {
    let (x, y) = board.coords(p);
    Grid::new(board, c).hashes(x, y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetric_positions_share_their_names_and_others_do_not() {
        let a = Board::from_ascii(
            "
            . . . . .
            . X . . .
            . . . O .
            . . . . .
            . . . . .",
        );
        // The same, mirrored left to right, with colours swapped: for the
        // other player it is the same pattern.
        let b = Board::from_ascii(
            "
            . . . . .
            . . . O .
            . X . . .
            . . . . .
            . . . . .",
        );
        let centre = a.point(2, 2);
        let ha = hashes(&a, Color::Black, centre);
        let hb = hashes(&b, Color::White, centre);
        assert_eq!(ha, hb);
        // For the other colour the first board is another pattern.
        assert_ne!(hashes(&a, Color::White, centre)[0], ha[0]);
        // A corner point sees the edge in every size.
        let corner = hashes(&a, Color::Black, a.point(0, 0));
        assert_ne!(corner[0], ha[0]);
        // Sizes nest: each larger pattern differs from the smaller.
        assert!(ha.windows(2).all(|w| w[0] != w[1]));
        assert_eq!(shape().ends[0], 8);
        assert_eq!(shape().ends[1], 12);
    }

    #[test]
    fn the_largest_known_pattern_is_the_largest_size_known() {
        let b = Board::from_ascii(
            "
            . . . . . . .
            . . X . . . .
            . . . . O . .
            . . . . . . .
            . . O X . . .
            . . . . . . .
            . . . . . . .",
        );
        let p = b.point(3, 3);
        let all = hashes(&b, Color::Black, p);
        let grid = Grid::new(&b, Color::Black);
        let known = |upto: usize| move |h: u64| all[..upto].contains(&h);
        assert_eq!(grid.largest_known(3, 3, known(3)), Some(all[2]));
        assert_eq!(grid.largest_known(3, 3, known(SIZES)), Some(all[SIZES - 1]));
        assert_eq!(grid.largest_known(3, 3, known(0)), None);
    }
}
