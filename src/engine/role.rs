//! The engine's part in the game it holds, and what that part lets a
//! command touch. A [`Role`] owns its games: plain Go holds one game; a
//! phantom referee holds the true game; a phantom player holds its seat's
//! view; a host holds the true game and shows a person their seat's view.
//! Every command says in the command table what it [`Touch`]es, and the
//! dispatcher asks [`Role::permits`] once before running it.

use super::hosting::Hosting;
use crate::go::game::Game;
use crate::go::score::Status;
use crate::phantom::player::Player;
use crate::phantom::referee::Referee;
use std::fmt;

/// What the engine is doing with its game.
#[derive(Clone)]
pub enum Role {
    /// Plain Go (Aléago included): the game is everybody's.
    Go(Game),
    /// Refereeing a phantom game: the true game, judged try by try.
    Referee { referee: Referee, truth: Game },
    /// Playing one seat of a phantom game: what the seat knows, on its view.
    Player { player: Player, view: Game },
    /// Hosting a phantom game for a person at one seat: kosumi referees and
    /// plays the other seats; the person is shown their seat's view only.
    Host(Box<Hosting>),
}

/// What a command touches: the command table gives one per command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Touch {
    /// No game: the protocol, names, the clock.
    Nothing,
    /// Reads the shown game (the board, the stones, legality).
    Reads,
    /// Counts the shown game: scores, dead stones, ownership estimates.
    Counts,
    /// Searches the game for analysis, without playing.
    Searches,
    /// Plays a given move (`play`: a person's try when hosting, a stone a
    /// phantom player learns of).
    Moves,
    /// Searches and plays its choice (`genmove`: a phantom player's try).
    Chooses,
    /// Changes the position otherwise: undo, setup, handicap, sequences,
    /// the dice.
    Edits,
    /// Changes the rules or komi.
    Settles,
    /// Starts another game (board size, a new board, a record).
    Restarts,
    /// Starts refereeing a phantom game.
    StartsReferee,
    /// Takes a seat in a phantom game as its player.
    TakesSeat,
    /// Judges a phantom try, or reads the referee's views.
    Referees,
    /// Hears a phantom announcement as a seat's player.
    Hears,
    /// Reads or sets the phantom game's conventions.
    PhantomOptions,
    /// GoGui's ruler interface to a hosted phantom game.
    Hosts,
    /// GoGui's ruler commands that describe the hosted game without
    /// reading its position (its name, its board size).
    Describes,
}

impl Touch {
    /// Whether a command that touches this reads the game's position (a
    /// hosted game judges the person's pending tries first).
    pub fn reads_position(self) -> bool {
        !matches!(
            self,
            Touch::Nothing | Touch::Moves | Touch::Restarts | Touch::Describes
        )
    }
}

/// Why a role refuses a command: the GTP error's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The referee's true game changes only by tries.
    Refereed,
    /// The hosted game changes only by the person's tries, and shows only
    /// their view.
    Hosted,
    /// A phantom player's view changes only by what it hears.
    Playing,
    /// No phantom game at all.
    NoPhantomGame,
    /// A referee's command, and no phantom game is refereed here.
    NoReferee,
    /// A referee's command at a phantom player.
    NotReferee,
    /// A player's command, and the engine plays no seat.
    NoPlayer,
    /// The command serves only a hosted phantom game.
    NotHosting,
    /// The phantom game has begun: its settings are fixed.
    Begun,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            Refusal::Refereed => {
                "a phantom game is refereed here: its true game changes only by phantom-try (clear_board ends it)"
            }
            Refusal::Hosted => {
                "kosumi hosts a phantom game for a person: only their view is shown and only their tries (play) change it"
            }
            Refusal::Playing => {
                "this engine plays a phantom seat: its view changes only by what it hears (clear_board ends the game)"
            }
            Refusal::NoPhantomGame => "no phantom game (phantom-new or phantom-seat first)",
            Refusal::NoReferee => "no phantom game is refereed (phantom-new go|rengo)",
            Refusal::NotReferee => "this engine is a phantom player, not the referee",
            Refusal::NoPlayer => "this engine is no phantom player (phantom-seat first)",
            Refusal::NotHosting => {
                "the gogui-rules commands answer only when kosumi hosts a phantom game (--phantom-human)"
            }
            Refusal::Begun => "the phantom game has begun: its settings are fixed until clear_board",
        })
    }
}

impl std::error::Error for Refusal {}

impl Role {
    /// The game the role works on: the game, the true game, or the seat's view.
    pub fn game(&self) -> &Game {
        match self {
            Role::Go(game) => game,
            Role::Referee { truth, .. } => truth,
            Role::Player { view, .. } => view,
            Role::Host(hosting) => hosting.current().truth(),
        }
    }

    /// The game every reading command reads: the person's view when
    /// hosting, the role's game otherwise.
    pub fn shown(&self) -> &Game {
        match self {
            Role::Host(hosting) => hosting.current().shown(),
            other => other.game(),
        }
    }

    /// The result of a finished phantom game and the dead stones it
    /// counted (the referee's, or the hosted game's).
    pub fn phantom_end(&self) -> Option<(&str, &[Status])> {
        let referee = match self {
            Role::Referee { referee, .. } => referee,
            Role::Host(hosting) => hosting.current().referee(),
            _ => return None,
        };
        Some((referee.result()?, referee.end_statuses()?))
    }

    /// Whether the phantom game has begun: a try made (heard, for a
    /// player; the person's, when hosting).
    fn phantom_begun(&self) -> bool {
        match self {
            Role::Go(_) => false,
            Role::Referee { referee, .. } => referee.tries() > 0,
            Role::Player { player, .. } => player.has_begun(),
            Role::Host(hosting) => hosting.person_tried(),
        }
    }

    /// Whether a command touching `touch` may run now.
    pub fn permits(&self, touch: Touch) -> Result<(), Refusal> {
        use Touch::*;
        let refused = match self {
            Role::Go(_) => match touch {
                Referees => Some(Refusal::NoReferee),
                Hears => Some(Refusal::NoPlayer),
                PhantomOptions => Some(Refusal::NoPhantomGame),
                Hosts | Describes => Some(Refusal::NotHosting),
                _ => None,
            },
            Role::Referee { .. } => match touch {
                Nothing | Reads | Counts | Restarts | StartsReferee | Referees | PhantomOptions => {
                    None
                }
                Settles if !self.phantom_begun() => None,
                Settles => Some(Refusal::Begun),
                Hears => Some(Refusal::NoPlayer),
                Hosts | Describes => Some(Refusal::NotHosting),
                Searches | Moves | Chooses | Edits | TakesSeat => Some(Refusal::Refereed),
            },
            Role::Player { .. } => match touch {
                Nothing | Reads | Moves | Chooses | Restarts | Hears | PhantomOptions => None,
                Settles if !self.phantom_begun() => None,
                Settles => Some(Refusal::Begun),
                Referees => Some(Refusal::NotReferee),
                Hosts | Describes => Some(Refusal::NotHosting),
                Counts | Searches | Edits | StartsReferee | TakesSeat => Some(Refusal::Playing),
            },
            Role::Host(_) => match touch {
                Nothing | Reads | Moves | Restarts | Hosts | Describes => None,
                // Settings restart the hosted game, until the person tries.
                Settles | PhantomOptions if !self.phantom_begun() => None,
                Settles | PhantomOptions => Some(Refusal::Begun),
                Counts | Searches | Chooses | Edits | StartsReferee | TakesSeat | Referees
                | Hears => Some(Refusal::Hosted),
            },
        };
        refused.map_or(Ok(()), Err)
    }

    /// Whether `list_commands` lists a command touching `touch`: every
    /// command the engine knows, except GoGui's ruler commands outside
    /// hosting (GoGui takes a program that lists them for the ruler of
    /// another game than Go); when hosting, only what the role permits.
    pub fn lists(&self, touch: Touch) -> bool {
        match self {
            Role::Host(_) => self.permits(touch).is_ok(),
            _ => !matches!(touch, Touch::Hosts | Touch::Describes),
        }
    }
}
