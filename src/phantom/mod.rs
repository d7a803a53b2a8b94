//! Phantom Go and Phantom Rengo: games where each
//! player sees only some of the board. A layer over [`Game`](crate::go::game::Game),
//! which stays the true game: [`options`] (the conventions and presets),
//! [`announcement`] (what the referee says, in its GTP grammar), [`view`]
//! (what one board shows), [`referee`] (judges tries and keeps the views),
//! and [`player`] (chooses tries from a view by search over determinizations).
//! Matches between GTP engines are the tool `kosumi phantom-match`
//! (`src/tools/phantom_match.rs`), on the same [`table`].
//!
//! Seats: 1 and 3 play Black, 2 and 4 White. Phantom Go has seats 1 and 2,
//! each with a view of its own. Phantom Rengo has four, tried in the order
//! 1, 2, 3, 4: seats 1 and 2 face each other on board A, seats 3 and 4 on
//! board B, and each board shows the moves made on it; with the option
//! `shared-view`, partners share one view instead.

pub mod announcement;
pub mod enclosure;
pub mod host;
pub mod options;
pub mod player;
pub mod probe;
pub mod referee;
pub mod table;
pub mod view;

use crate::go::board::Color;

/// Illegal tries a seat played by a program (kosumi's own, or an engine in
/// a match) may make in one turn; then it passes.
pub const TRIES_PER_TURN: usize = 10;

/// Phantom Go (two seats) or Phantom Rengo (four).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    Go,
    Rengo,
}

impl Kind {
    pub fn parse(s: &str) -> Result<Kind, String> {
        match s.to_ascii_lowercase().as_str() {
            "go" => Ok(Kind::Go),
            "rengo" => Ok(Kind::Rengo),
            _ => Err(format!("'{s}' is neither go nor rengo")),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Go => "go",
            Kind::Rengo => "rengo",
        }
    }

    pub fn seats(self) -> usize {
        match self {
            Kind::Go => 2,
            Kind::Rengo => 4,
        }
    }

    /// Checks a seat number.
    pub fn seat(self, s: &str) -> Result<usize, String> {
        match s.parse::<usize>() {
            Ok(n) if (1..=self.seats()).contains(&n) => Ok(n),
            _ => Err(format!(
                "seat '{s}' is not 1 to {} in phantom {}",
                self.seats(),
                self.name()
            )),
        }
    }

    /// The view (0 or 1) a seat sees: its own in Go, its board's in Rengo
    /// (board A for seats 1 and 2), or its team's with `shared`.
    pub fn view_of(self, seat: usize, shared: bool) -> usize {
        match self {
            Kind::Go => seat - 1,
            Kind::Rengo if shared => (seat - 1) % 2,
            Kind::Rengo => (seat - 1) / 2,
        }
    }
}

/// The colour a seat plays.
pub fn seat_color(seat: usize) -> Color {
    if seat % 2 == 1 {
        Color::Black
    } else {
        Color::White
    }
}
