//! How kosumi searches, as one value: KataGo's `SearchParams`. A
//! [`SearchConfig`] is built once from wherever the user says how to search
//! — the command line (and GTP's `kata-set-param` on it), the JSON engine's
//! defaults with a query's overrides, `review`'s options — and read by the
//! move chooser, both searches and the phantom player. It holds what is
//! common to every search (a fixed budget, threads, the seed), what only the
//! Monte Carlo search reads ([`MonteCarlo`]), what only PUCT reads
//! ([`Puct`]) and the chooser's policy around the search ([`ChooserPolicy`]).

use super::budget::{Budget, Planning};
use std::time::Duration;

/// Every setting of how to search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchConfig {
    /// Playouts (Monte Carlo) or visits (the network) a move, if fixed.
    pub playouts: Option<u64>,
    /// Seconds a move, if fixed.
    pub time: Option<f64>,
    /// Threads on one tree.
    pub threads: usize,
    /// The seed every search varies (the same seed, the same moves).
    pub seed: u64,
    /// Upper bound on a search tree's nodes (memory), either search's.
    pub max_nodes: usize,
    pub mc: MonteCarlo,
    pub puct: Puct,
    pub chooser: ChooserPolicy,
}

/// What the Monte Carlo search alone reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MonteCarlo {
    /// Whether the learned move patterns add to the priors.
    pub patterns: bool,
    /// Aléago: how the search plans for the rolls below the root.
    pub planning: Planning,
}

/// What the network's PUCT search alone reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Puct {
    /// KataGo's `wideRootNoise`: how much wider than its values say the
    /// root is searched (0 in play; KataGo's analysis engine: 0.04).
    pub wide_root_noise: f64,
}

/// The policy around the search: when to resign, and how hard to look at
/// dead stones before passing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChooserPolicy {
    /// Resign below this win rate (0 never resigns).
    pub resign: f64,
    /// Playouts of the ownership estimate that judges dead stones where no
    /// network does.
    pub ownership_playouts: usize,
}

impl Default for SearchConfig {
    fn default() -> SearchConfig {
        SearchConfig {
            playouts: None,
            time: None,
            threads: 1,
            seed: 0,
            max_nodes: 4_000_000,
            mc: MonteCarlo::default(),
            puct: Puct::default(),
            chooser: ChooserPolicy::default(),
        }
    }
}

impl Default for MonteCarlo {
    fn default() -> MonteCarlo {
        MonteCarlo {
            patterns: true,
            planning: Planning::Chance,
        }
    }
}

impl Default for Puct {
    /// As in play: no root noise.
    fn default() -> Puct {
        Puct {
            wide_root_noise: 0.0,
        }
    }
}

impl Default for ChooserPolicy {
    fn default() -> ChooserPolicy {
        ChooserPolicy {
            resign: 0.1,
            ownership_playouts: 1000,
        }
    }
}

impl SearchConfig {
    /// The fixed budget (playouts, seconds or both), if either is set.
    pub fn fixed_budget(&self) -> Option<Budget> {
        (self.playouts.is_some() || self.time.is_some()).then(|| Budget {
            playouts: self.playouts,
            time: self.time.map(Duration::from_secs_f64),
        })
    }
}
