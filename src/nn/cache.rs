//! The evaluations of positions seen before, by a key of everything the
//! network's inputs read: the stones, the player to move, the ko point, the
//! last five moves, the komi, the rules and the playout doubling advantage. A search that meets a position
//! again (a transposition with the same recent moves, the next position of
//! a game analysed turn by turn, a query asked again) takes its evaluation
//! from here. Bounded: two generations of at most `capacity` entries each;
//! when the newer fills, the older is dropped.
//!
//! A position's evaluation is the one of whichever symmetry evaluated it
//! first (as KataGo's cache keeps it). One thing the key leaves out: the
//! points superko bans, which depend on the whole history; where two
//! histories ban differently, a banned move is refused when the search
//! plays it.

use super::output::Evaluation;
use crate::go::board::Color;
use crate::go::game::Game;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Entries a generation holds: about 25 MB of 19×19 evaluations.
pub const CAPACITY: usize = 8192;

#[derive(Default)]
struct Generations {
    newer: HashMap<u64, Arc<Evaluation>>,
    older: HashMap<u64, Arc<Evaluation>>,
    hits: u64,
    misses: u64,
}

/// A cache of evaluations shared by every search on one network.
pub struct Cache {
    capacity: usize,
    generations: Mutex<Generations>,
}

impl Cache {
    pub fn new(capacity: usize) -> Cache {
        Cache {
            capacity: capacity.max(1),
            generations: Mutex::new(Generations::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Generations> {
        self.generations.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn get(&self, key: u64) -> Option<Arc<Evaluation>> {
        let mut g = self.lock();
        let found = g.newer.get(&key).or_else(|| g.older.get(&key)).cloned();
        if found.is_some() {
            g.hits += 1;
        } else {
            g.misses += 1;
        }
        found
    }

    pub fn put(&self, key: u64, eval: Arc<Evaluation>) {
        let mut g = self.lock();
        if g.newer.len() >= self.capacity {
            g.older = std::mem::take(&mut g.newer);
        }
        g.newer.insert(key, eval);
    }

    /// Empties the cache (its counts stay).
    pub fn clear(&self) {
        let mut g = self.lock();
        g.newer.clear();
        g.older.clear();
    }

    /// Lookups that found an evaluation, and those that did not.
    pub fn counts(&self) -> (u64, u64) {
        let g = self.lock();
        (g.hits, g.misses)
    }
}

/// The key of `game` with `to_move` to play, its history read (`fresh`
/// false) or not, with White assumed `white_advantage` playout doublings
/// over Black.
pub fn key(game: &Game, to_move: Color, fresh: bool, white_advantage: f32) -> u64 {
    let board = game.board();
    let mut h = Fnv::default();
    h.add(board.hash());
    h.add(board.size().width as u64);
    h.add(board.size().height as u64);
    h.add(u64::from(to_move == Color::Black));
    h.add(u64::from(fresh));
    // One key for 0 and −0.
    h.add(u64::from((white_advantage + 0.0).to_bits()));
    h.add(game.komi.to_bits());
    h.add(game.rules.handicap_bonus.points(game.handicap()).to_bits());
    for b in game.rules.name.bytes() {
        h.add(u64::from(b));
    }
    if !fresh {
        match board.ko() {
            Some((p, c)) => h.add(u64::from(p) << 1 | u64::from(c == Color::Black)),
            None => h.add(u64::MAX),
        }
        for (c, mv) in game.moves_since_setup().take(5) {
            h.add(u64::from(c == Color::Black) << 32 | mv.map_or(u64::MAX >> 1, u64::from));
        }
    }
    h.0
}

/// FNV-1a over 64-bit words.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn add(&mut self, word: u64) {
        for byte in word.to_le_bytes() {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::rules::Rules;

    fn key_with(game: &Game, to_move: Color, fresh: bool, white_advantage: f32) -> u64 {
        super::key(game, to_move, fresh, white_advantage)
    }

    fn key(game: &Game, to_move: Color, fresh: bool) -> u64 {
        key_with(game, to_move, fresh, 0.0)
    }

    #[test]
    fn keys_tell_apart_what_the_inputs_read() {
        let mut a = Game::new(9, Rules::default(), 7.5);
        let base = key(&a, Color::Black, false);
        assert_eq!(key(&a, Color::Black, false), base);
        assert_ne!(key(&a, Color::White, false), base);
        assert_ne!(
            key(&Game::new(9, Rules::default(), 6.5), Color::Black, false),
            base
        );
        let japanese = Rules::preset("japanese").unwrap();
        assert_ne!(key(&Game::new(9, japanese, 7.5), Color::Black, false), base);
        assert_ne!(key_with(&a, Color::Black, false, 1.5), base);
        assert_eq!(key_with(&a, Color::Black, false, -0.0), base);
        // The same stones reached in another order: other recent moves.
        let p = |x, y| Some(a.board().point(x, y));
        let (c3, g7, e5) = (p(2, 2), p(6, 6), p(4, 4));
        let mut b = a.clone();
        for (c, mv) in [(Color::Black, c3), (Color::White, g7), (Color::Black, e5)] {
            a.play(c, mv).unwrap();
        }
        for (c, mv) in [(Color::Black, e5), (Color::White, g7), (Color::Black, c3)] {
            b.play(c, mv).unwrap();
        }
        assert_eq!(a.board().hash(), b.board().hash());
        assert_ne!(key(&a, Color::White, false), key(&b, Color::White, false));
        assert_eq!(key(&a, Color::White, true), key(&b, Color::White, true));
    }

    #[test]
    fn the_older_generation_goes_when_the_newer_fills() {
        let cache = Cache::new(2);
        let e = Arc::new(Evaluation::default());
        for k in 0..5 {
            cache.put(k, e.clone());
        }
        assert!(cache.get(4).is_some() && cache.get(3).is_some() && cache.get(2).is_some());
        assert!(cache.get(0).is_none());
        assert_eq!(cache.counts(), (3, 1));
        cache.clear();
        assert!(cache.get(4).is_none());
    }
}
