//! One referee loop for every phantom game: the referee and the true game
//! at a table of seats. Each seat is a [`Seat`] — a GTP engine in a match,
//! kosumi's own player when hosting, a person through GoGui — asked for its
//! try in turn; the referee judges it, and every seat is told what it
//! learns. A seat played by a program passes after [`TRIES_PER_TURN`]
//! refused tries in one turn. The loop stops when the game ends or when the
//! seat to try waits for a person, whose try comes from outside
//! ([`Table::judge`]).

use super::TRIES_PER_TURN;
use super::announcement::Announcement;
use super::referee::{Referee, TryError};
use super::seat_color;
use crate::go::board::Point;
use crate::go::game::Game;
use std::fmt;

/// A seat's answer when asked for its try.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Turn {
    /// A try (`None`: a pass).
    Try(Option<Point>),
    Resign,
    /// The seat is a person's: the loop stops until their try comes.
    Waiting,
}

/// One seat at the table.
pub trait Seat {
    /// Its number (1 to 4).
    fn number(&self) -> usize;
    /// Its try for this turn.
    fn turn(&mut self) -> Result<Turn, String>;
    /// The seat passes without being asked (too many refused tries).
    fn forced_pass(&mut self) {}
    /// What it learns of `trier`'s try `mv`, announced as `announcement`.
    fn tell(
        &mut self,
        referee: &Referee,
        announcement: &Announcement,
        trier: usize,
        mv: Option<Point>,
    ) -> Result<(), String>;
}

/// What happened at the table, for a log.
pub enum Event<'a> {
    Tried {
        seat: usize,
        mv: Option<Point>,
        announcement: &'a Announcement,
        /// The referee after the try (its views, what each seat hears).
        referee: &'a Referee,
    },
    /// A seat passed after too many refused tries.
    ForcedPass {
        seat: usize,
    },
    Resigned {
        seat: usize,
    },
}

/// Why the loop stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The game is over.
    Over,
    /// This seat waits for a person's try.
    Waiting(usize),
}

/// Why the game cannot go on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TableError {
    /// The referee takes no try (nothing changed).
    Referee(TryError),
    /// A seat failed (its program died, hung or answered nonsense).
    Seat { seat: usize, why: String },
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            TableError::Referee(e) => write!(f, "referee: {e}"),
            TableError::Seat { seat, why } => write!(f, "seat {seat}: {why}"),
        }
    }
}

impl std::error::Error for TableError {}

/// The referee and the true game.
#[derive(Clone)]
pub struct Table {
    pub referee: Referee,
    pub truth: Game,
    /// Tries of a program's seat refused in the present turn (a person
    /// may try as often as they like).
    refused_this_turn: usize,
}

impl Table {
    pub fn new(referee: Referee, truth: Game) -> Table {
        Table {
            referee,
            truth,
            refused_this_turn: 0,
        }
    }

    /// Asks the seats for their tries in turn and judges them, until the
    /// game ends or a seat waits for a person.
    pub fn run(
        &mut self,
        seats: &mut [&mut dyn Seat],
        log: &mut dyn FnMut(Event),
    ) -> Result<Stop, TableError> {
        while let Some(s) = self.referee.to_move() {
            let Some(seat) = seats.iter_mut().find(|x| x.number() == s) else {
                return Err(TableError::Seat {
                    seat: s,
                    why: "nobody sits there".into(),
                });
            };
            let mv = if self.refused_this_turn >= TRIES_PER_TURN {
                seat.forced_pass();
                log(Event::ForcedPass { seat: s });
                None
            } else {
                match seat
                    .turn()
                    .map_err(|why| TableError::Seat { seat: s, why })?
                {
                    Turn::Waiting => return Ok(Stop::Waiting(s)),
                    Turn::Resign => {
                        let winner = seat_color(s).opponent().letter();
                        self.referee.end_with(format!("{winner}+Resign"));
                        log(Event::Resigned { seat: s });
                        return Ok(Stop::Over);
                    }
                    Turn::Try(mv) => mv,
                }
            };
            let announcement = self.judge(s, mv, seats, log)?;
            if announcement.outcome.is_illegal() {
                self.refused_this_turn += 1;
            } else {
                self.refused_this_turn = 0;
            }
        }
        Ok(Stop::Over)
    }

    /// Judges `seat`'s try and tells every seat what it learns (a person's
    /// try, or one the loop asked for).
    pub fn judge(
        &mut self,
        seat: usize,
        mv: Option<Point>,
        seats: &mut [&mut dyn Seat],
        log: &mut dyn FnMut(Event),
    ) -> Result<Announcement, TableError> {
        let announcement = self
            .referee
            .try_move(&mut self.truth, seat, mv)
            .map_err(TableError::Referee)?;
        log(Event::Tried {
            seat,
            mv,
            announcement: &announcement,
            referee: &self.referee,
        });
        for s in seats.iter_mut() {
            s.tell(&self.referee, &announcement, seat, mv)
                .map_err(|why| TableError::Seat {
                    seat: s.number(),
                    why,
                })?;
        }
        Ok(announcement)
    }
}
