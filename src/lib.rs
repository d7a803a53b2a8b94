//! kosumi: a Go engine speaking GTP, with rulesets as data, Monte Carlo tree
//! search, a KataGo network read from KataGo's own model files, SGF in and
//! out, and the variants Aléago (dice) and Phantom Go / Phantom Rengo.
//!
//! # Reading guide
//!
//! The folders, bottom up (the map with every file is `ARCHITECTURE.md`):
//! [`core`] (random numbers, options by name), [`go`] (the rules of Go:
//! board, game, rules, score, handicap, Aléago's dice, SGF), [`knowledge`]
//! (ladders, 3×3 shapes, learned move prediction), [`nn`] (KataGo's
//! networks), [`search`] (the move chooser, PUCT with the network, Monte
//! Carlo, one [`search::SearchConfig`]), [`phantom`] (Phantom Go and
//! Rengo), [`engine`] (the engine and the role that owns its games),
//! [`frontends`] (GTP, KataGo's JSON analysis engine, `review`) and
//! [`tools`] (bench, phantom matches, the pattern trainer, fuzzing
//! properties). Each imports only from the folders before it in this list.
//!
//! - **Where a command is handled**: [`frontends::gtp`] reads the line
//!   ([`frontends::gtp::dispatch`]), finds the command in the one table
//!   (`frontends/gtp/commands.rs`, [`frontends::gtp::COMMANDS`]), asks the
//!   engine's role whether it permits what the command touches, and runs the
//!   handler, which parses its arguments, makes one call on the
//!   [`engine::Engine`] and formats the answer.
//! - **Who owns the game**: [`engine::Role`] — plain Go holds one game, a
//!   phantom referee the true game, a phantom player its seat's view, a host
//!   the true game and the person's view; every reading command reads
//!   [`engine::Engine::shown`].
//! - **Where a rule lives**: [`go::rules`] (the ruleset as data: ko,
//!   suicide, scoring, pass stones, handicap bonus), applied by [`go::board`]
//!   (placement, captures, suicide) and [`go::game`] (ko and superko,
//!   passes, the end), and counted by [`go::score`].
//! - **Where the search chooses**: [`search::chooser`] (the pass and resign
//!   policy, and which search runs), [`search::puct`] (PUCT over the
//!   network, evaluated by [`nn`]) or the Monte Carlo search
//!   (`search/mc/uct.rs`, its threads in `search/mc/threads.rs`).
//!
//! A quick start: a game under a preset, a capture, and the GTP engine.
//!
//! ```
//! use kosumi::go::board::Color;
//! use kosumi::go::game::Game;
//! use kosumi::engine::{Config, Engine};
//! use kosumi::frontends::gtp::{execute, parse_vertex};
//! use kosumi::go::rules::Rules;
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

/// Writes a line to stderr, as `eprintln!` does, but says nothing where
/// stderr is gone (a GUI or a pipe that closed before the engine): a
/// message never panics the engine.
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

pub mod core;
pub mod engine;
pub mod frontends;
pub mod go;
pub mod knowledge;
pub mod nn;
pub mod phantom;
pub mod search;
pub mod tools;
