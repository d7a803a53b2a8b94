//! The Monte Carlo search, where no network applies (Aléago's dice, `--nn
//! off`, `--search mc`): playouts (`playout`: light, uniform but never
//! filling an own eye; full, with captures, atari escapes read for ladders
//! and 3×3 patterns near the last two moves) under a UCT tree with RAVE
//! statistics and prior knowledge (`priors`), one tree shared by the
//! threads (`threads`, virtual loss) and reused from move to move (`tree`);
//! `uct` is one search's descent, expansion and update, `root` the root's
//! move rules, score statistics and choice, `dynkomi` the handicap's worth
//! counted for White, `report` what analysis shows of it. Under Aléago the
//! playouts and the tree draw a roll for every move below the root.
//! `ownership` is the playouts' estimate behind dead stones where no
//! network judges them.
//!
//! Below the root the tree and its playouts use the board's placement
//! rules and simple ko, as Monte Carlo engines do; the root's moves are
//! checked under every rule of the game.

mod dynkomi;
mod ownership;
mod playout;
mod priors;
mod report;
mod root;
mod threads;
mod tree;
mod uct;

pub use ownership::ownership;
pub use playout::{Policy, Rolls, playout, playout_area};
pub use root::{RootMove, decide};
pub use threads::{run_threads, run_watched};
pub use tree::McTree;
pub use uct::{McSearch, McSettings};
