//! The ladders of boards already read, shared by the threads that evaluate
//! a net: for each board, its laddered stones and, by the colour of the
//! chain, the ataris that start a ladder on a chain of two liberties.
//! A position's inputs read the ladders of its board and of the two boards
//! before it (`inputs.rs`); in a search those two are its parent's and its
//! grandparent's, read when they were evaluated, so that a leaf reads one
//! board's ladders where it read three. A board is found by its stones,
//! its size and its ko, compared in full (not by a hash alone), so that
//! what comes back is what reading it again gives, bit for bit.
//!
//! A board also keeps each chain's reading with its footprint (the cells
//! its outcome depends on, `ladder.rs`): a leaf's board is its parent's
//! and one move, and a chain whose reading's footprint that move (its
//! captures, a changed ko) left alone is read the same again, so the
//! leaf takes the parent's outcome for it in place of reading it.

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

/// One chain's reading: the chain (its representative stone), whether it
/// is laddered, the ataris that start a ladder on it where it has two
/// liberties, and the reading's footprint.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChainReading {
    pub(crate) chain: Point,
    pub(crate) laddered: bool,
    pub(crate) working: [Option<Point>; 2],
    pub(crate) footprint: CellSet,
}

/// The chains' readings a board keeps at most (the others are read again
/// on the boards after it): with 112 bytes a reading, 7 KB a board and
/// 29 MB over the memo's boards at most (a 19×19 search's boards hold
/// some 27 readings each).
const READINGS_KEPT: usize = 64;

/// A board's readings, from the memo: its stones and ko (what a later
/// board is compared with), its ladders and its chains' readings.
#[derive(Default)]
pub(crate) struct BoardReadings {
    key: Option<Key>,
    pub(crate) ladders: Ladders,
    chains: Vec<ChainReading>,
    /// The chains of `chains`, for a quick miss.
    read: CellSet,
}

impl BoardReadings {
    /// Where `board` (with `contents`) differs from the board these
    /// readings are of: the cells whose stones differ, and both kos'
    /// points where the kos differ; `None` for a board of another size.
    pub(crate) fn changes(&self, board: &Board, contents: &Contents) -> Option<CellSet> {
        let key = self.key.as_ref()?;
        let size = board.size();
        if (key.width as usize, key.height as usize) != (size.width, size.height) {
            return None;
        }
        let mut changed = CellSet(std::array::from_fn(|i| {
            (key.black.0[i] ^ contents.black.0[i]) | (key.white.0[i] ^ contents.white.0[i])
        }));
        if key.ko != board.ko() {
            for (p, _) in [key.ko, board.ko()].into_iter().flatten() {
                changed.insert(p);
            }
        }
        Some(changed)
    }

    /// The reading of the chain through `chain` (its representative
    /// stone), where its footprint holds none of `changed`.
    pub(crate) fn reusable(&self, chain: Point, changed: &CellSet) -> Option<&ChainReading> {
        if !self.read.contains(chain) {
            return None;
        }
        self.chains.iter().find(|r| r.chain == chain).filter(|r| {
            !r.footprint
                .0
                .iter()
                .zip(&changed.0)
                .any(|(f, c)| f & c != 0)
        })
    }
}

/// A board in the memo: its hash (looked at first), its key, its ladders
/// and its chains' readings.
struct Entry {
    hash: u64,
    key: Key,
    ladders: Ladders,
    chains: Vec<ChainReading>,
}

type Shard = Vec<Option<Entry>>;

/// The boards' ladders, shared by the threads (a lock a shard).
pub(crate) struct LadderMemo {
    shards: Vec<Mutex<Shard>>,
}

impl Default for LadderMemo {
    fn default() -> LadderMemo {
        LadderMemo {
            shards: (0..SHARDS)
                .map(|_| Mutex::new((0..SLOTS).map(|_| None).collect()))
                .collect(),
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
            Some(e) if e.hash == board.hash() && e.key == Key::of(board, &Contents::of(board)) => {
                Some(e.ladders)
            }
            _ => None,
        }
    }

    /// `board`'s ladders and its chains' readings, into `out`, where they
    /// were read; false (and `out` holding none) where not.
    pub(crate) fn get_readings(&self, board: &Board, out: &mut BoardReadings) -> bool {
        out.key = None;
        out.chains.clear();
        out.read = CellSet::default();
        let (shard, slot) = place(board);
        let key = Key::of(board, &Contents::of(board));
        let shard = self.shards[shard].lock().unwrap_or_else(|e| e.into_inner());
        match &shard[slot] {
            Some(e) if e.hash == board.hash() && e.key == key => {
                out.key = Some(key);
                out.ladders = e.ladders;
                out.chains.extend_from_slice(&e.chains);
                e.chains.iter().for_each(|r| out.read.insert(r.chain));
                true
            }
            _ => false,
        }
    }

    /// Keeps `board`'s ladders and its chains' readings (the first
    /// [`READINGS_KEPT`]), in the place of what its slot held (`contents`:
    /// the board's, which its reader read). A slot's list is reused.
    pub(crate) fn put(
        &self,
        board: &Board,
        contents: &Contents,
        ladders: Ladders,
        chains: &[ChainReading],
    ) {
        let (shard, slot) = place(board);
        let key = Key::of(board, contents);
        let chains = &chains[..chains.len().min(READINGS_KEPT)];
        const { assert!(std::mem::size_of::<ChainReading>() <= 112) };
        let mut shard = self.shards[shard].lock().unwrap_or_else(|e| e.into_inner());
        match &mut shard[slot] {
            Some(e) => {
                (e.hash, e.key, e.ladders) = (board.hash(), key, ladders);
                e.chains.clear();
                e.chains.extend_from_slice(chains);
            }
            empty => {
                *empty = Some(Entry {
                    hash: board.hash(),
                    key,
                    ladders,
                    chains: chains.to_vec(),
                })
            }
        }
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
        memo.put(&board, &Contents::of(&board), ladders, &[]);
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

    #[test]
    fn a_board_differs_from_an_earlier_one_in_its_changed_stones_and_both_kos() {
        // Black takes a white stone in a ko; the board keeps the readings.
        let memo = LadderMemo::default();
        let mut board = Board::from_ascii(
            ". . . . .
             . X O . .
             X O . O .
             . X O . .
             . . . . .",
        );
        board.place(Color::Black, board.point(2, 2));
        let ko = board.ko().expect("a ko").0;
        let chain = board.chain(board.point(1, 1));
        let reading = ChainReading {
            chain,
            laddered: true,
            working: [None; 2],
            footprint: CellSet::default(),
        };
        memo.put(
            &board,
            &Contents::of(&board),
            Ladders::default(),
            &[reading],
        );
        let mut earlier = BoardReadings::default();
        assert!(memo.get_readings(&board, &mut earlier));
        // White plays elsewhere: its stone and the ko's point have changed.
        let mut next = board.clone();
        let far = next.point(4, 0);
        next.place(Color::White, far);
        assert_eq!(next.ko(), None);
        let changed = earlier.changes(&next, &Contents::of(&next)).unwrap();
        assert_eq!(changed.iter().collect::<Vec<_>>(), {
            let mut both = vec![far, ko];
            both.sort();
            both
        });
        // A reading whose footprint misses the changes is reused; one that
        // holds the ko's point is not.
        assert!(earlier.reusable(chain, &changed).is_some());
        assert!(earlier.reusable(board.point(3, 3), &changed).is_none());
        let mut touching = reading;
        touching.footprint.insert(ko);
        memo.put(
            &board,
            &Contents::of(&board),
            Ladders::default(),
            &[touching],
        );
        assert!(memo.get_readings(&board, &mut earlier));
        assert!(earlier.reusable(chain, &changed).is_none());
        // A board of another size is not compared.
        let other = Board::new(7);
        assert!(earlier.changes(&other, &Contents::of(&other)).is_none());
        assert!(!memo.get_readings(&other, &mut earlier));
    }
}
