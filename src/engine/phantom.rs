//! The engine's phantom roles: starting a referee, a seat's player or a
//! hosted game for a person, and what each does with a try, a stone or an
//! announcement. The role owns the games; these methods move it from one
//! state to the next, all or nothing.

use super::hosting::Hosting;
use super::role::{Refusal, Role};
use super::{Engine, EngineError};
use crate::go::board::{Color, Point};
use crate::go::vertex::color_name;
use crate::phantom::Kind;
use crate::phantom::announcement::{Announcement, Line};
use crate::phantom::host::Host;
use crate::phantom::options::Options;
use crate::phantom::player::{self, Player};
use crate::phantom::referee::Referee;
use crate::search::Budget;
use crate::search::chooser::{Chooser, MoveSearch};

impl Engine {
    /// The budget of a phantom seat's choice for `color`: visits for the
    /// network's search on the view, playouts otherwise.
    fn seat_budget(&self, color: Color) -> Budget {
        self.seats_budget(Self::choosing(&self.config, self.move_budget(color)))
    }

    /// The visits (the network's search on the view) or playouts a seat's
    /// search gets of `how`'s budget.
    fn seats_budget(&self, how: MoveSearch) -> Budget {
        let kind = self.phantom_kind().unwrap_or(Kind::Go);
        match self
            .config
            .phantom_mode
            .resolve(kind, self.config.network.is_some())
        {
            player::Mode::Net => how.visit_budget(),
            _ => how.playout_budget(),
        }
    }

    /// The fixed budget of kosumi's seats in a hosted game: their search's
    /// playouts or visits (`--playouts`, or the default), never the clock,
    /// so that each answer is a function of the game so far.
    fn host_budget(&self) -> Budget {
        let fixed = Budget {
            playouts: self.config.search.playouts,
            time: None,
        };
        self.seats_budget(Self::choosing(&self.config, fixed))
    }

    /// Phantom games roll no dice.
    fn no_dice(&self) -> Result<(), EngineError> {
        match self.role.game().dice() {
            Some(_) => Err(EngineError::Phantom(
                "phantom games roll no dice (aleago-dice off first)".into(),
            )),
            None => Ok(()),
        }
    }

    /// Starts refereeing a phantom game on the present position.
    pub fn referee_new(&mut self, kind: Kind, options: Options) -> Result<(), EngineError> {
        self.no_dice()?;
        let truth = self.role.game().clone();
        let mut referee = Referee::new(kind, options, &truth);
        referee.seed = self.config.search.seed;
        self.role = Role::Referee { referee, truth };
        Ok(())
    }

    /// Takes `seat` of a phantom game as its player; the present position's
    /// stones are public.
    pub fn take_seat(
        &mut self,
        seat: usize,
        kind: Kind,
        options: Options,
    ) -> Result<(), EngineError> {
        self.no_dice()?;
        let view = self.role.game().clone();
        let player = Player::new(seat, kind, options, &view);
        self.role = Role::Player { player, view };
        Ok(())
    }

    /// Starts hosting the phantom game of `config.phantom_host`, if any, on
    /// the present position: kosumi's seats try until it is the person's turn.
    pub fn start_host(&mut self) {
        let Some((human, kind, options)) = self.config.phantom_host else {
            return;
        };
        let mut game = self.role.game().clone();
        game.set_dice(None);
        let mut host = Host::new(kind, options, human, game, self.config.search.seed);
        let budget = self.host_budget();
        let settings = host_settings(&self.config, budget, 0);
        host.play_others(&settings, &self.stop);
        self.role = Role::Host(Box::new(Hosting::new(host)));
    }

    /// The kind of the phantom game in any phantom role.
    pub fn phantom_kind(&self) -> Option<Kind> {
        match &self.role {
            Role::Go(_) => None,
            Role::Referee { referee, .. } => Some(referee.kind),
            Role::Player { player, .. } => Some(player.kind),
            Role::Host(hosting) => Some(hosting.current().referee().kind),
        }
    }

    /// The referee, when refereeing.
    pub fn referee(&self) -> Option<&Referee> {
        match &self.role {
            Role::Referee { referee, .. } => Some(referee),
            _ => None,
        }
    }

    /// The hosted game, when hosting.
    pub fn host(&self) -> Option<&Host> {
        match &self.role {
            Role::Host(hosting) => Some(hosting.current()),
            _ => None,
        }
    }

    /// The phantom game's conventions.
    pub fn phantom_options(&self) -> Option<&Options> {
        match &self.role {
            Role::Go(_) => None,
            Role::Referee { referee, .. } => Some(&referee.options),
            Role::Player { player, .. } => Some(&player.options),
            Role::Host(hosting) => Some(&hosting.current().referee().options),
        }
    }

    /// Sets one convention before the game has begun (a hosted game
    /// restarts under it).
    pub fn set_phantom_option(&mut self, name: &str, value: &str) -> Result<(), EngineError> {
        self.role.permits(super::Touch::Settles)?;
        let mut options = *self
            .phantom_options()
            .ok_or(EngineError::Refused(Refusal::NoPhantomGame))?;
        options.set(name, value).map_err(EngineError::Setting)?;
        match &mut self.role {
            Role::Referee { referee, .. } => referee.options = options,
            Role::Player { player, .. } => player.options = options,
            Role::Host(hosting) => {
                if let Some((_, _, o)) = &mut self.config.phantom_host {
                    *o = options;
                }
                let start = hosting.first().start_position();
                self.start(start);
            }
            Role::Go(_) => {}
        }
        Ok(())
    }

    /// The referee judges `seat`'s try; the announcement.
    pub fn referee_try(
        &mut self,
        seat: usize,
        mv: Option<Point>,
    ) -> Result<Announcement, EngineError> {
        let Role::Referee { referee, truth } = &mut self.role else {
            return Err(Refusal::NoReferee.into());
        };
        let (mut judged, mut game) = (referee.clone(), truth.clone());
        let announcement = judged
            .try_move(&mut game, seat, mv)
            .map_err(EngineError::Try)?;
        *referee = judged;
        *truth = game;
        Ok(announcement)
    }

    /// The person's try when hosting: recorded, and judged when something
    /// reads the game (an illegal try is no error: it is announced, and the
    /// person tries again).
    pub(super) fn person_tries(
        &mut self,
        color: Color,
        mv: Option<Point>,
    ) -> Result<(), EngineError> {
        let Role::Host(hosting) = &mut self.role else {
            return Err(Refusal::NotHosting.into());
        };
        hosting.play(color, mv).map_err(EngineError::IllegalStone)
    }

    /// When hosting, judges the person's tries not judged yet, kosumi's
    /// seats answering each.
    pub fn catch_up(&mut self) {
        let Role::Host(hosting) = &self.role else {
            return;
        };
        if hosting.caught_up() {
            return;
        }
        let budget = self.host_budget();
        let (config, stop) = (&self.config, &self.stop);
        let Role::Host(hosting) = &mut self.role else {
            unreachable!("hosting")
        };
        hosting.catch_up(|tries| host_settings(config, budget, tries), stop);
    }

    /// A stone a phantom player learns of (a board-mate's move, or a stone
    /// a try revealed), put on its view: as a move, or as a setup stone
    /// where the view's own history forbids the move (a view repeats
    /// positions the true game never had, since captures clear it); an
    /// occupied point stays an error. A pass is an ordinary move.
    pub(super) fn hear_stone(
        &mut self,
        color: Color,
        mv: Option<Point>,
    ) -> Result<(), EngineError> {
        let Role::Player { view, .. } = &mut self.role else {
            return Err(Refusal::NoPhantomGame.into());
        };
        let mut changed = view.clone();
        match changed.play(color, mv) {
            Ok(()) => {}
            Err(why) => {
                let p = mv.expect("a pass is legal");
                changed
                    .setup(&[(color, p)], false)
                    .map_err(|_| EngineError::Illegal { why, roll: None })?;
            }
        }
        *view = changed;
        Ok(())
    }

    /// A phantom player takes in one announcement line of `trier`'s try.
    pub fn hear(&mut self, trier: usize, line: &Line) -> Result<(), EngineError> {
        let Role::Player { player, view } = &mut self.role else {
            return Err(Refusal::NoPlayer.into());
        };
        let (mut heard, mut changed) = (player.clone(), view.clone());
        heard
            .hear(&mut changed, trier, line)
            .map_err(|why| EngineError::Contradiction {
                seat: heard.seat,
                why,
            })?;
        *player = heard;
        *view = changed;
        Ok(())
    }

    /// A phantom player's try for its seat, put on its view.
    pub(super) fn player_try(
        &mut self,
        color: Color,
    ) -> Result<crate::search::Decision, EngineError> {
        let (seat, seat_color) = match &self.role {
            Role::Player { player, .. } => (player.seat, player.color()),
            _ => return Err(Refusal::NoPhantomGame.into()),
        };
        if color != seat_color {
            return Err(EngineError::Syntax(format!(
                "seat {seat} plays {}",
                color_name(seat_color)
            )));
        }
        let budget = self.seat_budget(color);
        let settings = seat_settings(&self.config, &mut self.chooser, budget);
        let Role::Player { player, view } = &mut self.role else {
            unreachable!("a player")
        };
        Ok(match player.choose_try(view, &settings, &self.stop) {
            Some(p) => crate::search::Decision::Play(p),
            None => crate::search::Decision::Pass,
        })
    }
}

/// The search settings of kosumi's seats in a hosted game, answering the
/// person's tries of fingerprint `tries`: seeded by it, not by the count of
/// the engine's searches.
fn host_settings(config: &super::Config, budget: Budget, tries: u64) -> player::Settings<'_> {
    seeded_settings(
        config,
        budget,
        crate::core::random::nth_seed(config.search.seed, tries),
    )
}

/// A phantom seat's search settings under `config`, for one choice: the
/// chooser gives it a seed of its own.
fn seat_settings<'c>(
    config: &'c super::Config,
    chooser: &mut Chooser,
    budget: Budget,
) -> player::Settings<'c> {
    seeded_settings(config, budget, chooser.next_seed(config.search.seed))
}

/// A phantom seat's search settings under `config` with `budget` and `seed`.
fn seeded_settings(config: &super::Config, budget: Budget, seed: u64) -> player::Settings<'_> {
    player::Settings {
        mode: config.phantom_mode,
        policy: config.phantom_policy,
        budget,
        seed,
        search: &config.search,
        network: config.network.as_deref(),
    }
}
