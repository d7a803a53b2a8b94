//! kosumi: a Go engine speaking GTP, with rulesets as data, Monte Carlo tree
//! search, a KataGo network read from KataGo's own model files, SGF in and
//! out, and the variants Aléago (dice) and Phantom Go / Phantom Rengo.
//!
//! # Reading guide
//!
//! - **Where a command is handled**: [`gtp`] reads the line ([`gtp::dispatch`]),
//!   finds the command in the one table (`gtp/commands.rs`, [`gtp::COMMANDS`]),
//!   asks the engine's role whether it permits what the command touches, and
//!   runs the handler, which parses its arguments, makes one call on the
//!   [`engine::Engine`] and formats the answer.
//! - **Who owns the game**: [`engine::Role`] — plain Go holds one game, a
//!   phantom referee the true game, a phantom player its seat's view, a host
//!   the true game and the person's view; every reading command reads
//!   [`engine::Engine::shown`].
//! - **Where a rule lives**: [`rules`] (the ruleset as data: ko, suicide,
//!   scoring, pass stones, handicap bonus), applied by [`board`] (placement,
//!   captures, suicide) and [`game`] (ko and superko, passes, the end), and
//!   counted by [`score`]. Aléago's rolls are [`dice`]; the phantom games'
//!   referee and conventions are [`phantom`].
//! - **Where the search chooses**: [`search::chooser`] (the pass and resign
//!   policy, and which search runs), [`search::puct`] (PUCT over the network,
//!   evaluated by [`nn`]) or the Monte Carlo search (`search/uct.rs`, its
//!   threads in `search/threads.rs`).
//!
//! # Modules
//!
//! The board and the rules: [`board`] (stones, chains, liberties, captures,
//! the hash, the geometry of points and lines), [`vertex`] (colours and
//! vertices as GTP writes them), [`rules`], [`game`] (history, ko and superko,
//! passes, undo), [`score`], [`handicap`], [`dice`] (Aléago), [`setting`]
//! (options set by name), [`clock`] (time controls), [`random`] (SplitMix64
//! and seed variation), [`sgf`].
//!
//! Choosing moves: [`search`] (playouts, UCT-RAVE, PUCT, the move chooser,
//! ownership), [`nn`] (KataGo's networks: the model reader, the forward pass,
//! the input planes), [`patterns`] (3×3 shapes), [`prediction`] (learned
//! move patterns), [`tactics`] (ladders).
//!
//! The engine and its protocol: [`engine`] (the engine, its roles and
//! settings), [`gtp`] (the protocol adapter), [`phantom`] (referee, player,
//! host, match runner), [`client`] (a GTP client for engines run as child
//! processes), [`analysis`] (KataGo's JSON analysis engine), [`review`]
//! (a record reviewed by the search), [`katago_rules`] (KataGo's rules
//! names and JSON).
//!
//! Measuring and checking: [`bench`] (speed figures) and [`fuzzing`] (the
//! properties the fuzzers and property tests check).
//!
//! Imports run one way, from the protocol down to the board (see
//! `ARCHITECTURE.md`); no two files import each other.
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

pub mod core;
pub mod engine;
pub mod frontends;
pub mod go;
pub mod knowledge;
pub mod nn;
pub mod phantom;
pub mod search;
pub mod tools;
