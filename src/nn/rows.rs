//! The positions asked for ([`Request`]), the input rows a backend reads
//! for them, and the board's symmetries that move them: each position's
//! planes written point by point into the symmetry it is evaluated under
//! (KataGo's `copyWithSymmetry`), a point's planes as the bits of one word
//! (a board's 1.4 KB where its rows of values are 32 KB), laid down for
//! the pass in the form the backend takes (spread into rows of values, or
//! as they are for a device, which spreads them itself); its global
//! inputs and a human-like net's metadata row beside them; the outputs
//! brought back by the same map.
//! KataGo keeps these (`nninputs.h`) apart from the evaluator
//! (`nneval.h`), as kosumi keeps them apart from `evaluator.rs`.

use super::backend::SpatialInputs;
use super::inputs::{Features, GLOBAL, SPATIAL};
use super::profile::{HumanProfile, METADATA_INPUTS};
use crate::go::board::{BoardSize, Color, MAX_SIZE};
use crate::go::game::Game;

/// One position to evaluate.
#[derive(Clone, Copy)]
pub struct Request<'a> {
    pub game: &'a Game,
    pub to_move: Color,
    /// See the note on `fresh` in [`super::inputs::FeatureMaker::fill`].
    pub fresh: bool,
    pub symmetry: usize,
    /// The playout doublings White is assumed to have over Black (negative:
    /// Black over White; 0 an even match): KataGo's playout doubling
    /// advantage, which its network reads to play handicap games.
    pub white_advantage: f32,
}

impl<'a> Request<'a> {
    /// `game`'s position for its player to move, with its history, under
    /// the identity symmetry, in an even match.
    pub fn of(game: &'a Game) -> Request<'a> {
        Request {
            game,
            to_move: game.to_move(),
            fresh: false,
            symmetry: 0,
            white_advantage: 0.0,
        }
    }

    /// The advantage from the side of the player to move.
    pub fn mover_advantage(&self) -> f32 {
        self.to_move.from_white() as f32 * self.white_advantage
    }
}

/// The number of symmetries of a square board.
pub const SYMMETRIES: usize = 8;

/// The symmetry a board of `size` is evaluated under when `symmetry` is
/// asked: itself on a square board; on a rectangle its flips alone (bit 2,
/// the transposition, dropped), since a transposed rectangle is another
/// board shape, so the eight symmetries a search draws from or averages
/// over become the rectangle's four, each twice.
pub fn applicable_symmetry(symmetry: usize, size: BoardSize) -> usize {
    if size.is_square() {
        symmetry
    } else {
        symmetry & 3
    }
}

/// Where `pos` (row from the top · width + column) of a board of `size`
/// goes under `symmetry` (bit 0 flips rows, bit 1 columns, bit 2
/// transposes: square boards only), as KataGo's `copyWithSymmetry` moves
/// inputs (`reverse` false) or brings outputs back (`reverse` true).
pub fn symmetric_position(symmetry: usize, size: BoardSize, pos: usize, reverse: bool) -> usize {
    let transpose = symmetry & 4 != 0;
    debug_assert!(!transpose || size.is_square(), "a transposed rectangle");
    let (mut flip_x, mut flip_y) = (symmetry & 2 != 0, symmetry & 1 != 0);
    if transpose && !reverse {
        std::mem::swap(&mut flip_x, &mut flip_y);
    }
    let BoardSize { width, height } = size;
    let (row, column) = (pos / width, pos % width);
    let flip = |v: usize, f: bool, n: usize| if f { n - 1 - v } else { v };
    if transpose {
        flip(column, flip_y, width) * width + flip(row, flip_x, height)
    } else {
        flip(row, flip_y, height) * width + flip(column, flip_x, width)
    }
}

/// Writes `requests`' inputs, in their symmetries: `planes` a point's
/// planes as the bits of a word (plane `c` at bit `c`), point by point in
/// the symmetry's order (see [`spread`] for the backend's rows of values),
/// `global` and (a human-like net's, `human`) `metadata` board by board,
/// the metadata under `profile` (zero rows where there is none).
#[allow(clippy::too_many_arguments)]
pub(super) fn write(
    requests: &[Request],
    features: &[Features],
    size: BoardSize,
    human: bool,
    profile: Option<&HumanProfile>,
    planes: &mut [u32],
    global: &mut [f32],
    metadata: &mut [f32],
) {
    let points = size.points();
    if human {
        let rows = metadata.chunks_exact_mut(METADATA_INPUTS);
        for (r, row) in requests.iter().zip(rows) {
            match profile {
                Some(p) => p.fill_row(r.to_move, points, row),
                None => row.fill(0.0),
            }
        }
    }
    let mut masks = [0u32; MAX_SIZE * MAX_SIZE];
    for (b, (r, f)) in requests.iter().zip(features).enumerate() {
        let board = &mut planes[b * points..(b + 1) * points];
        let symmetry = applicable_symmetry(r.symmetry, size);
        // Each point's planes as the bits of a word, put in their place;
        // the board's rows visited in the symmetry's order (a step along
        // a row of the board is a constant step among the points).
        f.point_masks(&mut masks[..points]);
        let BoardSize { width, height } = size;
        for row in 0..height {
            let first = symmetric_position(symmetry, size, row * width, false);
            let step = symmetric_position(symmetry, size, row * width + 1, false) as isize
                - first as isize;
            for (column, &mask) in masks[row * width..(row + 1) * width].iter().enumerate() {
                board[(first as isize + step * column as isize) as usize] = mask;
            }
        }
        global[b * GLOBAL..(b + 1) * GLOBAL].copy_from_slice(&f.global);
    }
}

/// Lays points' planes as bits ([`write`]'s `planes`) down in a backend's
/// spatial inputs from point `first` on, in the form it takes them: rows
/// spread, or the masks as they are.
pub(super) fn lay_down(planes: &[u32], spatial: &mut SpatialInputs, first: usize) {
    match spatial {
        SpatialInputs::Rows(rows) => spread(
            planes,
            &mut rows[first * SPATIAL..(first + planes.len()) * SPATIAL],
        ),
        SpatialInputs::Masks(masks) => {
            for (to, &mask) in masks[first..first + planes.len()].iter_mut().zip(planes) {
                *to = mask as f32;
            }
        }
    }
}

/// The backend's spatial rows from points' planes as bits ([`write`]'s
/// `planes`): each point's row of [`SPATIAL`] values 0 and 1.
fn spread(planes: &[u32], spatial: &mut [f32]) {
    debug_assert_eq!(planes.len() * SPATIAL, spatial.len(), "a row a point");
    for (&mask, row) in planes.iter().zip(spatial.chunks_exact_mut(SPATIAL)) {
        spread_point(mask, row.try_into().expect("a row of SPATIAL values"));
    }
}

/// Each byte's eight bits as the values 0 and 1, lowest bit first.
const BYTE_VALUES: [[f32; 8]; 256] = {
    let mut table = [[0.0; 8]; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut bit = 0;
        while bit < 8 {
            if byte >> bit & 1 != 0 {
                table[byte][bit] = 1.0;
            }
            bit += 1;
        }
        byte += 1;
    }
    table
};

/// A point's planes, the bits of `mask` (plane `c` at bit `c`), as the
/// values 0 and 1 of its row: a byte of planes at a time, from a table.
fn spread_point(mask: u32, out: &mut [f32; SPATIAL]) {
    for (chunk, byte) in out.chunks_mut(8).zip(mask.to_le_bytes()) {
        chunk.copy_from_slice(&BYTE_VALUES[usize::from(byte)][..chunk.len()]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_points_planes_are_spread_bit_by_bit() {
        for mask in [
            0u32,
            1,
            0x2a_5a5a,
            (1 << SPATIAL) - 1,
            1 << (SPATIAL - 1),
            0x0f_00f0,
        ] {
            let mut out = [7.0; SPATIAL];
            spread_point(mask, &mut out);
            for (c, &v) in out.iter().enumerate() {
                assert_eq!(
                    v,
                    f32::from(u8::from(mask >> c & 1 != 0)),
                    "mask {mask:#x} plane {c}"
                );
            }
        }
    }

    #[test]
    fn symmetries_are_permutations_that_come_back() {
        for (width, height) in [(2, 2), (5, 5), (9, 9), (13, 9), (3, 7)] {
            let size = BoardSize::new(width, height).unwrap();
            for s in 0..SYMMETRIES {
                let s = applicable_symmetry(s, size);
                let mut seen = vec![false; size.points()];
                for pos in 0..size.points() {
                    let to = symmetric_position(s, size, pos, false);
                    assert!(!seen[to]);
                    seen[to] = true;
                    assert_eq!(
                        symmetric_position(s, size, to, true),
                        pos,
                        "symmetry {s} board {width}x{height}"
                    );
                }
            }
        }
        // A rectangle's flips: the top-left point (row 0, column 0) of 13x9
        // goes to the top-right, the bottom-left and the bottom-right.
        let size = BoardSize::new(13, 9).unwrap();
        let corners: Vec<usize> = (0..4)
            .map(|s| symmetric_position(s, size, 0, false))
            .collect();
        assert_eq!(corners, [0, 8 * 13, 12, 8 * 13 + 12]);
    }
}
