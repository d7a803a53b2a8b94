//! Choosing a move, by one of two searches behind one chooser.
//!
//! [`chooser`] is the one move chooser: when to pass, when to resign, and
//! which search runs; `config` is how to search, one value for every
//! search ([`SearchConfig`]), and `budget` holds what a search is told (its budget,
//! dice planning) and what it decides.
//!
//! **PUCT with the network** ([`puct`], the default in plain Go): KataGo's
//! and Leela Zero's search — each visit descends by the network's policy and
//! the children's utility, evaluates its leaf with the network (no
//! playouts) and backs the value up; threads share one tree with a virtual
//! loss; KataGo's refinements (the confidence bound of the move played,
//! exploration by the utilities' spread, the subtree value bias) each by
//! KataGo's name in `config`. Its files: `puct/tree.rs`, `puct/explore.rs`,
//! `puct/visit.rs`, `puct/bias.rs`, `puct/utility.rs`, `puct/choice.rs`,
//! `puct/report.rs`. `advantage` is its handicap play (the playout doubling
//! advantage).
//!
//! **A playing level** ([`level`]): a person's rank played from the
//! network's policy alone, as KaTrain's calibrated rank AI plays; the
//! chooser uses it in place of a search where a level is set.
//!
//! **Monte Carlo** (where no network applies: Aléago's dice, `--nn off`,
//! `--search mc`): playouts (`playout`: light, uniform but never filling an
//! own eye; full, with captures, atari escapes read for ladders and 3×3
//! patterns near the last two moves) under a UCT tree with RAVE statistics
//! and prior knowledge (`priors`), one tree shared by the threads (`threads`,
//! virtual loss) and reused from move to move (`tree`); `uct` is one
//! search's descent, expansion and update, `root` the root's move rules,
//! score statistics and choice, `dynkomi` the handicap's worth counted for
//! White. Under Aléago the playouts and the tree draw a roll for every move
//! below the root.
//!
//! Shared by both: `report` (what analysis shows), `ownership` (the
//! playouts' estimate behind dead stones where no network judges them).
//!
//! The searches work on copies of the board; they never change the game.
//! The root's moves are checked under every rule of the game (superko
//! included); below the root the Monte Carlo tree and its playouts use the
//! board's placement rules and simple ko, as Monte Carlo engines do.

mod advantage;
mod budget;
pub mod chooser;
mod config;
mod dynkomi;
pub mod level;
mod ownership;
mod playout;
mod priors;
pub mod puct;
mod report;
mod root;
mod threads;
mod tree;
mod uct;

pub use budget::{Budget, Decision, Planning, Settings};
pub use config::{ChooserPolicy, MonteCarlo, PUCT_SETTINGS, Puct, PuctSetting, SearchConfig};
pub use ownership::ownership;
pub use playout::{Policy, Rolls, playout, playout_area};
pub use report::{Candidate, Report};
pub use root::{MoveRules, RootMove, decide};
pub use threads::{Watch, run_threads, run_watched};
pub use tree::Tree;
pub use uct::Search;
