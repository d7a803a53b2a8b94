//! kosumi: a Go engine speaking GTP, with rulesets as data, Monte Carlo tree
//! search and SGF in and out.
//!
//! Modules, each owning one concept: [`board`] (stones, chains, liberties,
//! captures, hash), [`rules`] (the ruleset value and its presets), [`game`]
//! (history, ko and superko, passes, undo), [`score`] (counting), [`dice`] (Aléago), [`search`]
//! (playouts and UCT-RAVE, and PUCT with the network), [`nn`] (KataGo's
//! networks: the model reader, the forward pass, the input planes),
//! [`clock`] (time controls), [`handicap`], [`patterns`] (3×3 shapes), [`tactics`] (ladders),
//! [`sgf`], [`gtp`] (the protocol), [`bench`] (speed figures) and [`fuzzing`]
//! (the properties the fuzzers and property tests check).

//!
//! A quick start: a game under a preset, a capture, and the GTP engine.
//!
//! ```
//! use kosumi::board::Color;
//! use kosumi::game::Game;
//! use kosumi::engine::{Config, Engine};
//! use kosumi::gtp::{execute, parse_vertex};
//! use kosumi::rules::Rules;
//!
//! let mut game = Game::new(9, Rules::preset("japanese").unwrap(), 6.5);
//! for (color, vertex) in [(Color::White, "A1"), (Color::Black, "B1"), (Color::Black, "A2")] {
//!     game.play(color, parse_vertex(vertex, 9).unwrap()).unwrap();
//! }
//! assert_eq!(game.board().captures(Color::Black), 1);
//!
//! let mut engine = Engine::new(Config::default(), Rules::default(), 9, None);
//! assert_eq!(execute(&mut engine, b"1 play b E5").unwrap(), "=1 \n\n");
//! assert_eq!(execute(&mut engine, b"2 color E5").unwrap(), "=2 black\n\n");
//! ```

pub mod bench;
pub mod board;
pub mod client;
pub mod clock;
pub mod dice;
pub mod engine;
pub mod fuzzing;
pub mod game;
pub mod gtp;
pub mod handicap;
pub mod nn;
pub mod patterns;
pub mod phantom;
pub mod prediction;
pub mod random;
pub mod rules;
pub mod score;
pub mod search;
pub mod setting;
pub mod sgf;
pub mod tactics;
pub mod vertex;
