//! The rules of Go, and nothing above them: the board ([`board`]: stones,
//! chains, liberties, captures, the hash, the geometry of points and lines;
//! its cells as sets of bits, [`cell_set`]), colours and vertices as GTP writes them ([`vertex`]), the ruleset as data
//! ([`rules`]), the game ([`game`]: history, ko and superko, passes, undo),
//! the count ([`score`]), handicap placement ([`handicap`]), Aléago's dice
//! ([`dice`]) and the game record ([`sgf`]; its text in its own encoding,
//! [`encoding`]). This folder never names the search, the network, the
//! engine or a front end.

pub mod board;
pub mod cell_set;
pub mod dice;
pub mod encoding;
pub mod game;
pub mod handicap;
pub mod rules;
pub mod score;
pub mod sgf;
pub mod vertex;
