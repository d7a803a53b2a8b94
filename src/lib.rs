//! kosumi: a Go engine speaking GTP, with rulesets as data, Monte Carlo tree
//! search and SGF in and out.
//!
//! Modules, each owning one concept: [`board`] (stones, chains, liberties,
//! captures, hash), [`rules`] (the ruleset value and its presets), [`game`]
//! (history, ko and superko, passes, undo), [`score`] (counting), [`dice`] (Aléago), [`search`]
//! (playouts and UCT-RAVE), [`clock`] (time controls), [`handicap`], [`patterns`] (3×3 shapes),
//! [`sgf`], [`gtp`] (the protocol) and [`bench`] (speed figures).

pub mod bench;
pub mod board;
pub mod clock;
pub mod dice;
pub mod game;
pub mod gtp;
pub mod handicap;
pub mod patterns;
pub mod rules;
pub mod score;
pub mod search;
pub mod sgf;
