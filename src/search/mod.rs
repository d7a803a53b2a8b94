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
//! **Monte Carlo** ([`mc`], where no network applies: Aléago's dice,
//! `--nn off`, `--search mc`): playouts under a UCT tree with RAVE
//! statistics and prior knowledge, threads on one tree, the tree reused from
//! move to move. Its names say which search they are: `mc::McSearch`,
//! `mc::McTree`, `mc::McSettings`, as PUCT's are `puct::NetTree` and
//! `puct::PuctParams`.
//!
//! Shared by both: `report` (what analysis shows, one [`Report`] for
//! either search) and `watch` (what a caller asks of a running search: a
//! [`Watch`] for reports, the [`MoveRules`] it keeps out).
//!
//! The searches work on copies of the board; they never change the game.
//! The root's moves are checked under every rule of the game (superko
//! included); below the root the Monte Carlo tree and its playouts use the
//! board's placement rules and simple ko, as Monte Carlo engines do.

mod advantage;
mod budget;
pub mod chooser;
mod config;
pub mod level;
pub mod mc;
pub mod puct;
mod report;
mod watch;

pub use budget::{Budget, Decision, Planning};
pub use config::{ChooserPolicy, MonteCarlo, PUCT_SETTINGS, Puct, PuctSetting, SearchConfig};
pub use report::{Candidate, Report};
pub use watch::{MoveRules, Watch};
