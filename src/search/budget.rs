//! What a search is told and what it answers, for both searches: how long
//! to search, how to plan for dice below the root, and the decision.

use crate::go::board::Point;
use std::time::Duration;

/// How long to search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    pub playouts: Option<u64>,
    pub time: Option<Duration>,
}

/// What the search decided.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Decision {
    Play(Point),
    Pass,
    Resign,
}

/// How the search plans for dice below the root.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Planning {
    /// Every move below the root is made under a roll drawn from the dice.
    Chance,
    /// Only the root obeys the roll; the rest of the search ignores the dice.
    RootOnly,
}
