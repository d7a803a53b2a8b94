//! Sets of a board's cells as words of bits, laid out as the board's own
//! padded array (its border included, so that a cell's neighbours are the
//! set shifted by one and by a row): the stones of each colour and the
//! empty points read off a board eight cells at a time, and the set
//! arithmetic the readers of whole regions need (Benson's pass-alive
//! areas) or a board's identity (the ladder memo's key).

use super::board::{Board, Cell, MAX_POINTS, Point};
use std::ops::Range;

/// Words of a set of a board's cells, border included, for the largest
/// board.
pub const WORDS: usize = MAX_POINTS.div_ceil(64);

/// A set of a board's cells, by the board's own index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CellSet(pub [u64; WORDS]);

/// What the sets' arithmetic needs of a board's layout: the cells of a
/// row, and the words that hold all its cells.
#[derive(Clone, Copy)]
pub struct Layout {
    stride: u32,
    words: usize,
}

impl Layout {
    pub fn of(board: &Board) -> Layout {
        Layout {
            stride: (board.point(0, 1) - board.point(0, 0)) as u32,
            words: board.cells().len().div_ceil(64),
        }
    }

    /// The words that hold all the board's cells.
    pub fn words(&self) -> usize {
        self.words
    }
}

/// A board's contents as sets: its black stones, its white stones and its
/// empty points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Contents {
    pub black: CellSet,
    pub white: CellSet,
    pub empty: CellSet,
}

impl Contents {
    /// `board`'s contents, with no branch on the stones (which lie
    /// unpredictably): sixteen cells at a time on x86-64 (SSE2, which
    /// every such processor has), eight elsewhere.
    pub fn of(board: &Board) -> Contents {
        #[cfg(target_arch = "x86_64")]
        {
            Contents::sixteen_at_a_time(board.cells())
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Contents::eight_at_a_time(board.cells())
        }
    }

    /// Sixteen cells at a time: each byte compared with what an empty
    /// point, a black stone and a white stone hold, and the comparisons'
    /// sixteen results gathered into sixteen bits; past the board's
    /// cells, the border.
    #[cfg(target_arch = "x86_64")]
    fn sixteen_at_a_time(cells: &[Cell]) -> Contents {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
        };
        let mut contents = Contents::default();
        for (i, chunk) in cells.chunks(16).enumerate() {
            let mut bytes = [Cell::Border as u8; 16];
            for (b, &c) in bytes.iter_mut().zip(chunk) {
                *b = c as u8;
            }
            // SAFETY: SSE2 is part of x86-64 (the instructions are there),
            // and the load reads the 16 bytes of `bytes`, unaligned loads
            // allowed.
            let [black, white, empty] = unsafe {
                let v = _mm_loadu_si128(bytes.as_ptr().cast::<__m128i>());
                [Cell::Black, Cell::White, Cell::Empty].map(|cell| {
                    let same = _mm_cmpeq_epi8(v, _mm_set1_epi8(cell as i8));
                    u64::from(_mm_movemask_epi8(same) as u16)
                })
            };
            let (word, shift) = (i / 4, i % 4 * 16);
            contents.black.0[word] |= black << shift;
            contents.white.0[word] |= white << shift;
            contents.empty.0[word] |= empty << shift;
        }
        contents
    }

    /// Eight cells at a time: a cell holds 0 (empty), 1 (black), 2
    /// (white) or 3 (the border), so a byte's two low bits say which, and
    /// a multiplication gathers eight bytes' bits into one byte.
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    fn eight_at_a_time(cells: &[Cell]) -> Contents {
        const LOW: u64 = 0x0101_0101_0101_0101;
        // Byte k's lowest bit to bit 56 + k: each byte's term lands alone.
        let gather = |bits: u64| bits.wrapping_mul(0x0102_0408_1020_4080) >> 56;
        let mut contents = Contents::default();
        let mut add = |i: usize, bytes: [u8; 8]| {
            let x = u64::from_le_bytes(bytes);
            let (one, two) = (x & LOW, x >> 1 & LOW);
            let (word, shift) = (i / 8, i % 8 * 8);
            contents.black.0[word] |= gather(one & !two) << shift;
            contents.white.0[word] |= gather(two & !one) << shift;
            contents.empty.0[word] |= gather(!(one | two) & LOW) << shift;
        };
        let chunks = cells.chunks_exact(8);
        let (last, tail) = (chunks.len(), chunks.remainder());
        for (i, chunk) in chunks.enumerate() {
            add(i, std::array::from_fn(|b| chunk[b] as u8));
        }
        // Past the board's cells: the border.
        add(
            last,
            std::array::from_fn(|b| tail.get(b).map_or(3, |&c| c as u8)),
        );
        contents
    }
}

/// Bits `first..first + len` (`len` at most 32) of a set held as words
/// of bits, lowest first, as the low bits of a word: a board's row read
/// from a set of cells or of points.
pub fn bits_at(words: &[u64], first: usize, len: usize) -> u32 {
    debug_assert!(len <= 32, "a run of at most 32 bits");
    let (i, shift) = (first / 64, first % 64);
    let mut bits = words[i] >> shift;
    if shift + len > 64 {
        bits |= words[i + 1] << (64 - shift);
    }
    (bits & ((1 << len) - 1)) as u32
}

impl CellSet {
    pub fn insert(&mut self, p: Point) {
        self.0[p as usize / 64] |= 1 << (p % 64);
    }

    pub fn contains(&self, p: Point) -> bool {
        self.0[p as usize / 64] >> (p % 64) & 1 != 0
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().fold(0, |any, &w| any | w) == 0
    }

    /// The cells in the set, lowest first.
    pub fn iter(&self) -> impl Iterator<Item = Point> + '_ {
        self.0.iter().enumerate().flat_map(|(i, &word)| {
            let mut bits = word;
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let b = bits.trailing_zeros();
                    bits &= bits - 1;
                    (i * 64) as Point + b as Point
                })
            })
        })
    }

    /// The cells `first..first + len` (`len` at most 32) as the low bits
    /// of a word, `first` lowest: a row of the board read at once.
    pub fn run(&self, first: Point, len: usize) -> u32 {
        bits_at(&self.0, first as usize, len)
    }

    /// Adds the cells `first..first + 32` that `bits` holds, `first` at
    /// its lowest bit: a run of a row put back.
    pub fn add_run(&mut self, first: Point, bits: u32) {
        let (i, shift) = (first as usize / 64, first as usize % 64);
        self.0[i] |= u64::from(bits) << shift;
        if shift > 32 && i + 1 < WORDS {
            self.0[i + 1] |= u64::from(bits) >> (64 - shift);
        }
    }

    /// The lowest cell in the set.
    pub fn first(&self) -> Option<Point> {
        let (i, &w) = self.0.iter().enumerate().find(|(_, w)| **w != 0)?;
        Some((i * 64) as Point + w.trailing_zeros() as Point)
    }

    pub fn and(&self, other: &CellSet) -> CellSet {
        CellSet(std::array::from_fn(|i| self.0[i] & other.0[i]))
    }

    pub fn or(&self, other: &CellSet) -> CellSet {
        CellSet(std::array::from_fn(|i| self.0[i] | other.0[i]))
    }

    pub fn minus(&self, other: &CellSet) -> CellSet {
        CellSet(std::array::from_fn(|i| self.0[i] & !other.0[i]))
    }

    /// The words `words` of the set, which hold all its cells, beside the
    /// same words of `other`: the set arithmetic of a small set (a region
    /// of a few points) reads two or three words, not a board's all.
    fn beside<'a>(
        &'a self,
        other: &'a CellSet,
        words: &Range<usize>,
    ) -> impl Iterator<Item = (u64, u64)> + 'a {
        let (a, b) = (&self.0[words.clone()], &other.0[words.clone()]);
        a.iter().copied().zip(b.iter().copied())
    }

    /// Whether a set whose cells all lie in `words` shares a cell with
    /// `other` (with no branch).
    pub fn meets_over(&self, other: &CellSet, words: &Range<usize>) -> bool {
        self.beside(other, words).fold(0, |any, (a, b)| any | a & b) != 0
    }

    /// Whether every cell of a set whose cells all lie in `words` is in
    /// `other` (with no branch).
    pub fn within_over(&self, other: &CellSet, words: &Range<usize>) -> bool {
        self.beside(other, words)
            .fold(0, |any, (a, b)| any | a & !b)
            == 0
    }

    /// The cells of a set whose cells all lie in `words` that are not in
    /// `other`, counted up to 2.
    pub fn count_outside_to_two(&self, other: &CellSet, words: &Range<usize>) -> u8 {
        let n: u32 = self
            .beside(other, words)
            .map(|(a, b)| (a & !b).count_ones())
            .sum();
        n.min(2) as u8
    }

    /// Takes the cells of `other`, all of which lie in `words`, into the
    /// set.
    pub fn take_in(&mut self, other: &CellSet, words: &Range<usize>) {
        for i in words.clone() {
            self.0[i] |= other.0[i];
        }
    }

    /// The set and every cell next to one of it, on a board of `layout`;
    /// a cell on the border may come in, never one past the board's cells.
    pub fn widened(&self, layout: Layout) -> CellSet {
        let (w, k) = (&self.0, layout.stride);
        let mut out = CellSet::default();
        // A word's cells moved up and down by one and by a row, with those
        // the words beside it move in.
        let (mut below, mut at) = (0u64, w[0]);
        for i in 0..layout.words {
            let above = w.get(i + 1).copied().unwrap_or(0);
            out.0[i] = at
                | at << 1
                | below >> 63
                | at >> 1
                | above << 63
                | at << k
                | below >> (64 - k)
                | at >> k
                | above << (64 - k);
            (below, at) = (at, above);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::board::{BoardSize, Cell, Color};

    #[test]
    fn a_boards_contents_are_its_cells_by_what_they_hold() {
        for (width, height) in [(19, 19), (2, 2), (25, 25), (7, 11)] {
            let mut board = Board::new(BoardSize::new(width, height).unwrap());
            for (i, p) in board.points().enumerate().collect::<Vec<_>>() {
                match i % 5 {
                    0 | 3 => board.place(Color::Black, p),
                    1 => board.place(Color::White, p),
                    _ => Default::default(),
                };
            }
            // The reading in force and the portable one, eight at a time.
            for contents in [
                Contents::of(&board),
                Contents::eight_at_a_time(board.cells()),
            ] {
                for p in 0..board.cells().len() as Point {
                    let cell = board.cell(p);
                    assert_eq!(contents.black.contains(p), cell == Cell::Black, "{p}");
                    assert_eq!(contents.white.contains(p), cell == Cell::White, "{p}");
                    assert_eq!(contents.empty.contains(p), cell == Cell::Empty, "{p}");
                }
                let beyond = board.cells().len() as Point..(WORDS * 64) as Point;
                let any = contents.empty.or(&contents.black).or(&contents.white);
                assert!(beyond.into_iter().all(|p| !any.contains(p)));
            }
        }
    }

    #[test]
    fn a_run_added_is_its_cells_inserted_one_by_one() {
        use rand::{RngExt, SeedableRng, rngs::SmallRng};
        let mut rng = SmallRng::seed_from_u64(9);
        for (width, height) in [(19, 19), (25, 25), (13, 7), (2, 3)] {
            let board = Board::new(BoardSize::new(width, height).unwrap());
            for y in 0..height {
                let first = board.point(0, y);
                let bits = rng.random::<u32>() >> (32 - width);
                let mut run = CellSet::default();
                run.add_run(first, bits);
                let mut one_by_one = CellSet::default();
                for x in (0..width).filter(|x| bits >> x & 1 != 0) {
                    one_by_one.insert(board.point(x, y));
                }
                assert_eq!(run, one_by_one, "{width}x{height} row {y}");
                assert_eq!(run.run(first, width), bits);
            }
        }
    }

    #[test]
    fn a_widened_set_takes_in_each_cells_four_neighbours() {
        let board = Board::new(BoardSize::new(13, 9).unwrap());
        let layout = Layout::of(&board);
        for p in board.points() {
            let mut one = CellSet::default();
            one.insert(p);
            let widened = one.widened(layout);
            let mut expected = one;
            for q in board.neighbors(p) {
                expected.insert(q);
            }
            assert_eq!(widened, expected, "{p}");
        }
    }
}
