//! Why the engine refuses a request: the engine's typed errors, whose text
//! is the GTP error message (the standard one first, then a short reason).

use super::role::Refusal;
use crate::core::setting::SettingError;
use crate::go::board::{BoardSize, Color, Illegal};
use crate::go::vertex::color_name;
use crate::phantom::referee::TryError;
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub enum EngineError {
    /// The move breaks a rule; under dice, with the roll it had to obey
    /// (the colour, the total, the dice).
    Illegal {
        why: Illegal,
        roll: Option<(Color, u32, String)>,
    },
    /// A stone that cannot stand (a phantom seat's view, a sequence), with
    /// the reason.
    IllegalStone(String),
    CannotUndo,
    BoardNotEmpty,
    /// No handicap placement for that many stones on this board.
    Handicap(&'static str),
    /// Free handicap stones: a count the board cannot take.
    StoneCount {
        count: usize,
        size: BoardSize,
    },
    /// The record cannot be read or replayed.
    CannotLoad(String),
    /// An argument the engine cannot take (a colour its seat does not
    /// play, an unknown option or value).
    Syntax(String),
    /// An option or value the conventions do not have.
    Setting(SettingError),
    /// The phantom game says no (dice on).
    Phantom(String),
    /// The referee takes no try (the game is over, not this seat's turn).
    Try(TryError),
    /// An announcement that contradicts what the seat knows.
    Contradiction {
        seat: usize,
        why: String,
    },
    /// The role does not allow it.
    Refused(Refusal),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            EngineError::Illegal { why, roll: None } => write!(f, "illegal move: {why}"),
            EngineError::Illegal {
                why,
                roll: Some((c, total, dice)),
            } => write!(
                f,
                "illegal move: {why} ({} rolled {total} with {dice})",
                color_name(*c)
            ),
            EngineError::IllegalStone(why) => write!(f, "illegal move: {why}"),
            EngineError::CannotUndo => f.write_str("cannot undo"),
            EngineError::BoardNotEmpty => f.write_str("board not empty"),
            EngineError::Handicap(why) => f.write_str(why),
            EngineError::StoneCount { count, size } => write!(
                f,
                "invalid number of stones: {count} on a {} board",
                size.shape_name()
            ),
            EngineError::CannotLoad(why) => write!(f, "cannot load file: {why}"),
            EngineError::Syntax(why) => write!(f, "syntax error: {why}"),
            EngineError::Setting(why) => write!(f, "syntax error: {why}"),
            EngineError::Phantom(why) => f.write_str(why),
            EngineError::Try(why) => why.fmt(f),
            EngineError::Contradiction { seat, why } => {
                write!(f, "contradicts what seat {seat} knows: {why}")
            }
            EngineError::Refused(r) => r.fmt(f),
        }
    }
}

impl std::error::Error for EngineError {}

impl From<Refusal> for EngineError {
    fn from(r: Refusal) -> EngineError {
        EngineError::Refused(r)
    }
}
