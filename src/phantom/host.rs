//! A phantom game hosted for one person: the referee and kosumi's players
//! of every other seat in one process, the person's seat played through
//! `play` and shown only its own view. This is what GoGui's ruler interface
//! (`gogui-rules_*`) shows: after each of the person's tries kosumi's seats
//! try until it is the person's turn again (the [`Table`]'s loop), and the
//! announcements the person heard are kept for display.

use super::announcement::{Announcement, Item};
use super::options::Options;
use super::player::{self, Player};
use super::referee::Referee;
use super::table::{Seat, Stop, Table, TableError, Turn};
use super::{Kind, seat_color};
use crate::core::random::nth_seed;
use crate::go::board::{Color, Point};
use crate::go::game::Game;
use crate::go::vertex::{color_title, vertex_name};
use std::cell::Cell;
use std::sync::atomic::AtomicBool;

/// One of kosumi's seats: its player and its view.
#[derive(Clone)]
struct Kosumi {
    number: usize,
    player: Player,
    view: Game,
}

/// A kosumi seat at the table for one stretch of play: the search settings
/// and the count of choices made (which varies the seeds).
struct KosumiAtTable<'a> {
    seat: &'a mut Kosumi,
    settings: &'a player::Settings<'a>,
    stop: &'a AtomicBool,
    choices: &'a Cell<u64>,
}

impl Seat for KosumiAtTable<'_> {
    fn number(&self) -> usize {
        self.seat.number
    }

    fn turn(&mut self) -> Result<Turn, String> {
        self.choices.set(self.choices.get() + 1);
        let settings = player::Settings {
            seed: nth_seed(self.settings.seed, self.choices.get()),
            ..*self.settings
        };
        let seat = &mut *self.seat;
        Ok(Turn::Try(seat.player.choose_try(
            &mut seat.view,
            &settings,
            self.stop,
        )))
    }

    fn forced_pass(&mut self) {
        let seat = &mut *self.seat;
        seat.player.put_try(&mut seat.view, None);
    }

    fn tell(
        &mut self,
        referee: &Referee,
        a: &Announcement,
        trier: usize,
        mv: Option<Point>,
    ) -> Result<(), String> {
        let seat = &mut *self.seat;
        let t = seat.number;
        let Some(heard) = referee.heard_by(a, trier, t) else {
            return Ok(());
        };
        for line in heard.to_lines() {
            if let Err(e) = seat.player.hear(&mut seat.view, trier, &line) {
                log::warn!("phantom host: seat {t} cannot take {line:?}: {e}");
            }
        }
        // A board-mate's accepted stone, or the stone its refused try
        // revealed, shows on this seat's board.
        if let Some((c, p)) = referee.shown_stone(a, trier, t, mv) {
            player::stand(&mut seat.view, c, p);
        }
        Ok(())
    }
}

/// The person's seat: what they heard since their last try, and their
/// tries refused this turn.
#[derive(Clone, Default)]
struct Person {
    number: usize,
    /// The person's tries refused this turn.
    refused: Vec<Point>,
    /// What the person heard since their last try, a line each.
    heard: Vec<String>,
    /// The captured points the person was told of since their last try.
    captured: Vec<Point>,
    /// Everything the person heard in the game, a line each.
    history: Vec<String>,
}

impl Seat for Person {
    fn number(&self) -> usize {
        self.number
    }

    fn turn(&mut self) -> Result<Turn, String> {
        Ok(Turn::Waiting)
    }

    fn tell(
        &mut self,
        referee: &Referee,
        a: &Announcement,
        trier: usize,
        mv: Option<Point>,
    ) -> Result<(), String> {
        if trier == self.number {
            self.heard.clear();
            self.captured.clear();
            match mv {
                Some(p) if a.outcome.is_illegal() => self.refused.push(p),
                _ => self.refused.clear(),
            }
        }
        let Some(heard) = referee.heard_by(a, trier, self.number) else {
            return Ok(());
        };
        for item in &heard.items {
            if let Item::Captures(_, _, points) = item {
                self.captured.extend(points);
            }
        }
        let size = referee.view(self.number).size();
        let who = format!("{} (seat {trier})", color_title(seat_color(trier)));
        let what = match (trier == self.number, mv) {
            (true, Some(p)) => format!("{who} {}", vertex_name(Some(p), size)),
            _ => who,
        };
        let line = format!("{what}: {}", heard.lines(size).join(", "));
        self.history.push(line.clone());
        self.heard.push(line);
        Ok(())
    }
}

#[derive(Clone)]
pub struct Host {
    /// The person's seat.
    pub human: usize,
    /// The referee and the true game.
    table: Table,
    /// The position the game started from.
    start: Game,
    /// The person's board: their view's stones with the public counts
    /// (captures, passes), the only game a person's command reads.
    shown: Game,
    seats: Vec<Kosumi>,
    person: Person,
    /// Choices made so far (varies the players' seeds).
    choices: u64,
}

impl Host {
    /// A phantom game on `game`'s position, the person at `human`; kosumi's
    /// seats have not tried yet ([`Host::play_others`]).
    pub fn new(kind: Kind, options: Options, human: usize, game: Game, seed: u64) -> Host {
        let mut referee = Referee::new(kind, options, &game);
        referee.seed = seed;
        let seats = (1..=kind.seats())
            .filter(|&s| s != human)
            .map(|s| Kosumi {
                number: s,
                player: Player::new(s, kind, options, &game),
                view: game.clone(),
            })
            .collect();
        let mut host = Host {
            human,
            shown: game.clone(),
            start: game.clone(),
            table: Table::new(referee, game),
            seats,
            person: Person {
                number: human,
                ..Person::default()
            },
            choices: 0,
        };
        host.refresh_shown();
        host
    }

    pub fn referee(&self) -> &Referee {
        &self.table.referee
    }

    /// The position the game started from, before any try.
    pub fn start_position(&self) -> Game {
        self.start.clone()
    }

    /// The true game.
    pub fn truth(&self) -> &Game {
        &self.table.truth
    }

    /// The person's board ([`Game::showing`] of their view, the person's
    /// colour to move), or the true game once the game is over.
    pub fn shown(&self) -> &Game {
        &self.shown
    }

    /// The person's board: their view while the game goes on, the true
    /// game once it is over (nothing is hidden then).
    fn refresh_shown(&mut self) {
        if self.table.referee.result().is_some() {
            self.shown = self.table.truth.clone();
            return;
        }
        let view = self.table.referee.view(self.human).stones();
        self.shown = self.table.truth.showing(&view);
        self.shown.set_to_move(self.human_color());
    }

    pub fn human_color(&self) -> Color {
        seat_color(self.human)
    }

    pub fn heard(&self) -> &[String] {
        &self.person.heard
    }

    pub fn refused(&self) -> &[Point] {
        &self.person.refused
    }

    /// Everything the person heard in the game, a line each, oldest first.
    pub fn history(&self) -> &[String] {
        &self.person.history
    }

    /// The captured points the person was told of since their last try.
    pub fn captured(&self) -> &[Point] {
        &self.person.captured
    }

    /// The person's try, and kosumi's seats' tries after it until it is
    /// the person's turn again. Errors (nothing changed): not their turn,
    /// or the game is over.
    pub fn human_try(
        &mut self,
        mv: Option<Point>,
        settings: &player::Settings,
        stop: &AtomicBool,
    ) -> Result<Announcement, TableError> {
        let human = self.human;
        let a = self.at_table(settings, stop, |table, seats| {
            let a = table.judge(human, mv, seats, &mut |_| {})?;
            if !a.outcome.is_illegal() {
                Self::run(table, seats);
            }
            Ok(a)
        })?;
        Ok(a)
    }

    /// kosumi's seats try until it is the person's turn or the game ends.
    pub fn play_others(&mut self, settings: &player::Settings, stop: &AtomicBool) {
        self.at_table(settings, stop, Self::run);
    }

    /// Runs `play` on the table with every seat sat at it (kosumi's with
    /// `settings`, the person's), then keeps the count of choices and
    /// refreshes the person's board.
    fn at_table<R>(
        &mut self,
        settings: &player::Settings,
        stop: &AtomicBool,
        play: impl FnOnce(&mut Table, &mut [&mut dyn Seat]) -> R,
    ) -> R {
        let choices = Cell::new(self.choices);
        let mut kosumi: Vec<KosumiAtTable> = self
            .seats
            .iter_mut()
            .map(|seat| KosumiAtTable {
                seat,
                settings,
                stop,
                choices: &choices,
            })
            .collect();
        let mut seats: Vec<&mut dyn Seat> = kosumi.iter_mut().map(|s| s as &mut dyn Seat).collect();
        seats.push(&mut self.person);
        let result = play(&mut self.table, &mut seats);
        drop(seats);
        drop(kosumi);
        self.choices = choices.get();
        self.refresh_shown();
        result
    }

    /// The table's loop: it stops at the person's turn or the end; kosumi's
    /// seats do not fail, so a failure is logged and play stops.
    fn run(table: &mut Table, seats: &mut [&mut dyn Seat]) {
        match table.run(seats, &mut |_| {}) {
            Ok(Stop::Over | Stop::Waiting(_)) => {}
            Err(e) => log::warn!("phantom host: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::announcement::Outcome;
    use super::*;
    use crate::go::rules::Rules;
    use crate::go::vertex::parse_vertex;
    use crate::search::Budget;
    use crate::search::mc::Policy;

    fn settings() -> player::Settings<'static> {
        player::Settings {
            mode: player::Mode::Determinized,
            policy: Policy::Light,
            budget: Budget {
                playouts: Some(100),
                time: None,
            },
            seed: 1,
            search: crate::phantom::player::tests::search_config(1000, false),
            network: None,
        }
    }

    #[test]
    fn kosumi_plays_the_other_seats_until_the_persons_turn() {
        let stop = AtomicBool::new(false);
        for (kind, human) in [(Kind::Go, 2), (Kind::Rengo, 3)] {
            let game = Game::new(7, Rules::default(), 7.5);
            let options = Options::preset("seed").unwrap();
            let mut host = Host::new(kind, options, human, game, 1);
            host.play_others(&settings(), &stop);
            assert_eq!(host.referee().to_move(), Some(human));
            assert_eq!(host.truth().board().stone_count(), human - 1, "{kind:?}");
            let p = parse_vertex("D4", 7).unwrap();
            let a = host.human_try(p, &settings(), &stop).unwrap();
            if a.outcome == Outcome::Accepted {
                assert_eq!(host.referee().to_move(), Some(human));
                assert!(host.heard().len() >= kind.seats(), "{:?}", host.heard());
            } else {
                assert_eq!(host.refused(), &[p.unwrap()]);
            }
            // The person's view holds their stones and no unseen one, and
            // the board they are shown is that view.
            assert!(
                host.referee()
                    .view(human)
                    .is_subset_of(host.truth().board())
            );
            let shown = host.shown().board();
            assert!(
                shown
                    .points()
                    .all(|q| shown.color_at(q) == host.referee().view(human).at(q))
            );
        }
    }
}
