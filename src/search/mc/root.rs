//! What the Monte Carlo search knows and decides at its root: the score
//! statistics of the playouts under each root move, and the choice of a
//! move from the root's visits.

use crate::go::board::{MAX_POINTS, Point};
use crate::search::budget::Decision;
use std::sync::atomic::{AtomicI64, Ordering};

/// The final area counts of the playouts under each root move (indexed by
/// the move's point, pass at 0): their number, sum and sum of squares, and
/// Black's wins against the game's komi (two a win, one a draw).
pub(super) struct RootScores {
    counts: Vec<[AtomicI64; 4]>,
}

impl RootScores {
    pub(super) fn new() -> RootScores {
        RootScores {
            counts: (0..MAX_POINTS)
                .map(|_| std::array::from_fn(|_| AtomicI64::new(0)))
                .collect(),
        }
    }

    /// The counts as plain numbers, to keep with a tree.
    pub(super) fn snapshot(&self) -> Vec<[i64; 4]> {
        self.counts
            .iter()
            .map(|c| c.each_ref().map(|a| a.load(Ordering::Relaxed)))
            .collect()
    }

    /// Counts kept with a tree, to go on from.
    pub(super) fn from_snapshot(kept: &[[i64; 4]]) -> RootScores {
        let scores = RootScores::new();
        for (c, k) in scores.counts.iter().zip(kept) {
            for (a, &v) in c.iter().zip(k) {
                a.store(v, Ordering::Relaxed);
            }
        }
        scores
    }

    /// A playout under root move `mv` ended with Black `area` points
    /// ahead on the board; the game's komi (White's, with its handicap
    /// bonus) is `komi`.
    pub(super) fn add(&self, mv: Point, area: i32, komi: f64) {
        let c = &self.counts[mv as usize];
        let margin = f64::from(area) - komi;
        let area = area as i64;
        c[0].fetch_add(1, Ordering::Relaxed);
        c[1].fetch_add(area, Ordering::Relaxed);
        c[2].fetch_add(area * area, Ordering::Relaxed);
        let black_wins = if margin > 0.0 {
            2
        } else {
            i64::from(margin == 0.0)
        };
        c[3].fetch_add(black_wins, Ordering::Relaxed);
    }

    /// Black's share of wins against the game's komi under `mv`.
    pub(super) fn black_win_rate(&self, mv: Point) -> Option<f64> {
        let c = &self.counts[mv as usize];
        let n = c[0].load(Ordering::Relaxed);
        (n > 0).then(|| c[3].load(Ordering::Relaxed) as f64 / (2 * n) as f64)
    }

    /// (playouts, mean, standard deviation) of Black's area lead under `mv`.
    pub(super) fn of(&self, mv: Point) -> Option<(i64, f64, f64)> {
        let c = &self.counts[mv as usize];
        let n = c[0].load(Ordering::Relaxed);
        (n > 0).then(|| {
            let mean = c[1].load(Ordering::Relaxed) as f64 / n as f64;
            let square = c[2].load(Ordering::Relaxed) as f64 / n as f64;
            (n, mean, (square - mean * mean).max(0.0).sqrt())
        })
    }
}

/// One move at the root with its statistics.
#[derive(Clone, Copy, Debug)]
pub struct RootMove {
    pub mv: Option<Point>,
    pub visits: f64,
    pub wins: f64,
}

/// The most visited root move (never a pass in cleanup) and its win rate.
pub fn decide(stats: &[RootMove], cleanup: bool) -> (Decision, f64) {
    let best = stats
        .iter()
        .filter(|m| !(cleanup && m.mv.is_none()))
        .max_by(|a, b| a.visits.total_cmp(&b.visits));
    match best {
        None => (Decision::Pass, 0.5),
        Some(m) => {
            let rate = m.wins / m.visits.max(1.0);
            (m.mv.map_or(Decision::Pass, Decision::Play), rate)
        }
    }
}
