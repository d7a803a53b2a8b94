//! The front ends, side by side, each turning one kind of input into calls
//! on the engine or the search: [`gtp`] (the Go Text Protocol, one command
//! table), [`analysis`] (KataGo's JSON analysis engine), [`review`] (a game
//! record searched position by position and written back annotated), and
//! [`katago_rules`] (KataGo's rules names and JSON, which GTP and the JSON
//! engine share), and [`katago_args`] (KataGo's own command line and config
//! files, turned into kosumi's options), and [`networks`] (the backends and
//! networks the command line asks for, set up before any of them starts).
//! Nothing below this folder names it.

pub mod analysis;
pub mod gtp;
pub mod katago_args;
pub mod katago_rules;
pub mod networks;
pub mod review;
