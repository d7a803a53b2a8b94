//! Move choice by Monte Carlo: playouts (light: uniform but never filling an
//! own eye; full: captures, atari escapes read for ladders, and 3×3 patterns
//! near the last two moves, no self-atari but a lone stone's throw-in), and a
//! UCT tree with RAVE (all-moves-as-first) statistics and prior knowledge on
//! top of them, one tree shared by the threads (virtual loss) and reused
//! from move to move. Under Aléago the playouts
//! and the tree draw a roll for every move below the root. Also the ownership
//! estimate used for dead stones.
//!
//! The search works on copies of the board; it never changes the game. The
//! root's moves are checked under every rule of the game (superko included);
//! below the root the tree and the playouts use the board's placement rules and
//! simple ko, as Monte Carlo engines do.
//!
//! The parts: [`chooser`] (the one move chooser: when to pass or resign,
//! and which search runs), `settings` (a search's budget and settings, its
//! decision), `dynkomi` (the handicap's worth the Monte Carlo search counts
//! for White, fading as the game goes on), `advantage` (the network
//! search's handicap play: the playout doubling advantage, resigning), `playout` (the policies and the count of a
//! finished playout), `tree` (nodes, and the tree kept between moves),
//! `priors` (what a new node's children know before their first visit),
//! `root` (the root's move rules, score statistics and choice), `uct` (one
//! search: descent, expansion, update), `threads` (threads sharing one
//! tree), `report` (what analysis shows), `ownership` (the estimate behind
//! dead stones), and [`puct`], the other search: PUCT over the neural
//! network's policy and value, no playouts.

mod advantage;
pub mod chooser;
mod dynkomi;
mod ownership;
mod playout;
mod priors;
pub mod puct;
mod report;
mod root;
mod settings;
mod threads;
mod tree;
mod uct;

pub use ownership::ownership;
pub use playout::{Policy, Rolls, playout, playout_area};
pub use report::{Candidate, Report};
pub use root::{MoveRules, RootMove, decide};
pub use settings::{Budget, Decision, Planning, Settings};
pub use threads::{Watch, run_threads, run_watched};
pub use tree::Tree;
pub use uct::Search;
