//! The ladders of boards already read, shared by the threads that evaluate
//! a net: for each board, its laddered stones and, by the colour of the
//! chain, the ataris that start a ladder on a chain of two liberties.
//! A position's inputs read the ladders of its board and of the two boards
//! before it (`inputs.rs`); in a search those two are its parent's and its
//! grandparent's, read when they were evaluated, so that a leaf reads one
//! board's ladders where it read three. A board is found by its stones,
//! its size and its ko, compared in full (not by a hash alone), so that
//! what comes back is what reading it again gives, bit for bit.

use crate::go::board::{Board, Color, MAX_SIZE, Point};
use crate::go::cell_set::{CellSet, Contents};
use std::sync::Mutex;

/// Words of a set of a board's points (by KataGo's index: row from the
/// top, then column), for the largest board.
pub(crate) const WORDS: usize = (MAX_SIZE * MAX_SIZE).div_ceil(64);

/// A set of a board's points, by KataGo's index.
pub(crate) type Points = [u64; WORDS];

/// Shards (each behind its lock) and boards a shard keeps: 4,096 boards,
/// each where its hash puts it, the last one read there kept.
const SHARDS: usize = 64;
const SLOTS: usize = 64;

/// What identifies a board's ladders: its size, its stones and its ko.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Key {
    width: u8,
    height: u8,
    ko: Option<(Point, Color)>,
    black: CellSet,
    white: CellSet,
}

impl Key {
    /// `board`'s key, from its `contents`.
    fn of(board: &Board, contents: &Contents) -> Key {
        let size = board.size();
        Key {
            width: size.width as u8,
            height: size.height as u8,
            ko: board.ko(),
            black: contents.black,
            white: contents.white,
        }
    }
}

/// A board's ladders: the stones of laddered chains, and the ataris that
/// start a ladder on a chain of two liberties, by the chain's colour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Ladders {
    pub(crate) laddered: Points,
    pub(crate) working: [Points; 2],
}

impl Ladders {
    /// Adds point `index` (KataGo's) to `set`.
    pub(crate) fn add(set: &mut Points, index: usize) {
        set[index / 64] |= 1 << (index % 64);
    }

    /// Adds the points `at..at + len` (`len` at most 32) that `bits`
    /// holds, `at` at its lowest bit.
    pub(crate) fn add_run(set: &mut Points, at: usize, bits: u32, len: usize) {
        let (i, shift) = (at / 64, at % 64);
        set[i] |= u64::from(bits) << shift;
        if shift + len > 64 {
            set[i + 1] |= u64::from(bits) >> (64 - shift);
        }
    }

    /// The points `at..at + len` (`len` at most 32) of `set` as the low
    /// bits of a word, `at` lowest.
    pub(crate) fn run(set: &Points, at: usize, len: usize) -> u32 {
        crate::go::cell_set::bits_at(set, at, len)
    }

    /// The indices in `set`, in order.
    #[cfg(test)]
    pub(crate) fn indices(set: &Points) -> impl Iterator<Item = usize> + '_ {
        set.iter().enumerate().flat_map(|(w, &bits)| {
            let mut bits = bits;
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let b = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    w * 64 + b
                })
            })
        })
    }
}

/// A board's hash (looked at first), its key and its ladders.
type Shard = Vec<Option<(u64, Key, Ladders)>>;

/// The boards' ladders, shared by the threads (a lock a shard).
pub(crate) struct LadderMemo {
    shards: Vec<Mutex<Shard>>,
}

impl Default for LadderMemo {
    fn default() -> LadderMemo {
        LadderMemo {
            shards: (0..SHARDS).map(|_| Mutex::new(vec![None; SLOTS])).collect(),
        }
    }
}

/// A board's place in the memo, from its hash.
fn place(board: &Board) -> (usize, usize) {
    let h = board.hash()
        ^ board
            .ko()
            .map_or(0, |(p, c)| (p as u64 + 1) << (8 + c.index()));
    let h = h.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    ((h >> 58) as usize % SHARDS, (h >> 32) as usize % SLOTS)
}

impl LadderMemo {
    /// `board`'s ladders where they were read.
    pub(crate) fn get(&self, board: &Board) -> Option<Ladders> {
        let (shard, slot) = place(board);
        let shard = self.shards[shard].lock().unwrap_or_else(|e| e.into_inner());
        match &shard[slot] {
            Some((hash, k, ladders))
                if *hash == board.hash() && *k == Key::of(board, &Contents::of(board)) =>
            {
                Some(*ladders)
            }
            _ => None,
        }
    }

    /// Keeps `board`'s ladders, in the place of what its slot held
    /// (`contents`: the board's, which its reader read).
    pub(crate) fn put(&self, board: &Board, contents: &Contents, ladders: Ladders) {
        let (shard, slot) = place(board);
        let key = Key::of(board, contents);
        let mut shard = self.shards[shard].lock().unwrap_or_else(|e| e.into_inner());
        shard[slot] = Some((board.hash(), key, ladders));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_board_is_found_by_its_stones_and_ko_alone() {
        let memo = LadderMemo::default();
        let mut board = Board::new(9);
        board.place(Color::Black, board.point(2, 2));
        let mut ladders = Ladders::default();
        Ladders::add(&mut ladders.laddered, 70);
        Ladders::add(&mut ladders.working[1], 3);
        memo.put(&board, &Contents::of(&board), ladders);
        assert_eq!(memo.get(&board), Some(ladders));
        assert_eq!(
            Ladders::indices(&ladders.laddered).collect::<Vec<_>>(),
            [70]
        );
        // Another stone, another colour, another size: not found.
        let mut other = board.clone();
        other.place(Color::White, other.point(5, 5));
        assert_eq!(memo.get(&other), None);
        let mut white = Board::new(9);
        white.place(Color::White, white.point(2, 2));
        assert_eq!(memo.get(&white), None);
        let mut wide = Board::new(crate::go::board::BoardSize::new(11, 9).unwrap());
        wide.place(Color::Black, wide.point(2, 2));
        assert_eq!(memo.get(&wide), None);
    }
}
