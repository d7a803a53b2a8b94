//! A phantom game hosted for one person: the referee and kosumi's players
//! of every other seat in one process, the person's seat played through
//! `play` and shown only its own view. This is what GoGui's ruler interface
//! (`gogui-rules_*`) shows: after each of the person's tries kosumi's seats
//! try until it is the person's turn again, and the announcements the
//! person heard are kept for display.

use super::TRIES_PER_TURN;
use super::announcement::Announcement;
use super::options::Options;
use super::player::{self, Player};
use super::referee::{Referee, TryError};
use super::{Kind, seat_color};
use crate::board::{Color, Point};
use crate::game::Game;
use crate::vertex::{color_title, vertex_name};
use std::sync::atomic::AtomicBool;

/// One of kosumi's seats: its player and its view.
#[derive(Clone)]
struct Seat {
    number: usize,
    player: Player,
    view: Game,
}

#[derive(Clone)]
pub struct Host {
    pub referee: Referee,
    /// The person's seat.
    pub human: usize,
    /// The position the game started from.
    start: Game,
    /// The true game.
    truth: Game,
    /// The person's board: their view's stones with the public counts
    /// (captures, passes), the only game a person's command reads.
    shown: Game,
    seats: Vec<Seat>,
    /// The person's tries refused this turn.
    refused: Vec<Point>,
    /// What the person heard since their last try, a line each.
    heard: Vec<String>,
    /// The captured points the person was told of since their last try.
    captured: Vec<Point>,
    /// Choices made so far (varies the players' seeds).
    choices: u64,
    /// Whether the person has tried yet.
    person_tried: bool,
}

impl Host {
    /// A phantom game on `game`'s position, the person at `human`; kosumi's
    /// seats have not tried yet ([`Host::play_others`]).
    pub fn new(kind: Kind, options: Options, human: usize, game: Game, seed: u64) -> Host {
        let mut referee = Referee::new(kind, options, &game);
        referee.seed = seed;
        let seats = (1..=kind.seats())
            .filter(|&s| s != human)
            .map(|s| Seat {
                number: s,
                player: Player::new(s, kind, options, &game),
                view: game.clone(),
            })
            .collect();
        let mut host = Host {
            referee,
            human,
            shown: game.clone(),
            start: game.clone(),
            truth: game,
            seats,
            refused: Vec::new(),
            heard: Vec::new(),
            captured: Vec::new(),
            choices: 0,
            person_tried: false,
        };
        host.refresh_shown();
        host
    }

    /// The position the game started from, before any try.
    pub fn start_position(&self) -> Game {
        self.start.clone()
    }

    /// The true game.
    pub fn truth(&self) -> &Game {
        &self.truth
    }

    /// The person's board ([`Game::showing`] of their view, the person's
    /// colour to move), or the true game once the game is over.
    pub fn shown(&self) -> &Game {
        &self.shown
    }

    /// Whether the person has tried yet (until then the game may restart
    /// under other settings).
    pub fn person_tried(&self) -> bool {
        self.person_tried
    }

    /// The person's board: their view while the game goes on, the true
    /// game once it is over (nothing is hidden then).
    fn refresh_shown(&mut self) {
        if self.referee.result().is_some() {
            self.shown = self.truth.clone();
            return;
        }
        let view = self.referee.view(self.human).stones();
        self.shown = self.truth.showing(&view);
        self.shown.set_to_move(self.human_color());
    }

    pub fn human_color(&self) -> Color {
        seat_color(self.human)
    }

    pub fn heard(&self) -> &[String] {
        &self.heard
    }

    pub fn refused(&self) -> &[Point] {
        &self.refused
    }

    /// The captured points the person was told of since their last try.
    pub fn captured(&self) -> &[Point] {
        &self.captured
    }

    /// The person's try. Errors (nothing changed): not their turn, or the
    /// game is over.
    pub fn human_try(
        &mut self,
        mv: Option<Point>,
        settings: &player::Settings,
        stop: &AtomicBool,
    ) -> Result<Announcement, TryError> {
        let a = self.referee.try_move(&mut self.truth, self.human, mv)?;
        self.heard.clear();
        self.captured.clear();
        self.person_tried = true;
        self.announce(&a, self.human, mv);
        if a.outcome.is_illegal() {
            if let Some(p) = mv {
                self.refused.push(p);
            }
        } else {
            self.refused.clear();
            self.play_others(settings, stop);
        }
        self.refresh_shown();
        Ok(a)
    }

    /// kosumi's seats try until it is the person's turn or the game ends.
    pub fn play_others(&mut self, settings: &player::Settings, stop: &AtomicBool) {
        let mut tries_this_turn = 0;
        while let Some(s) = self.referee.to_move() {
            if s == self.human {
                break;
            }
            let seat = self
                .seats
                .iter_mut()
                .find(|x| x.number == s)
                .expect("kosumi plays every other seat");
            let mv = if tries_this_turn >= TRIES_PER_TURN {
                seat.player.put_try(&mut seat.view, None)
            } else {
                self.choices += 1;
                let settings = player::Settings {
                    seed: crate::random::nth_seed(settings.seed, self.choices),
                    ..*settings
                };
                seat.player.choose_try(&mut seat.view, &settings, stop)
            };
            let Ok(a) = self.referee.try_move(&mut self.truth, s, mv) else {
                break;
            };
            if a.outcome.is_illegal() {
                tries_this_turn += 1;
            } else {
                tries_this_turn = 0;
            }
            self.announce(&a, s, mv);
        }
        self.refresh_shown();
    }

    /// Tells kosumi's seats what they hear, and keeps what the person hears.
    fn announce(&mut self, a: &Announcement, trier: usize, mv: Option<Point>) {
        let size = self.truth.size();
        for seat in &mut self.seats {
            let t = seat.number;
            let Some(heard) = self.referee.heard_by(a, trier, t) else {
                continue;
            };
            for line in heard.to_lines() {
                if let Err(e) = seat.player.hear(&mut seat.view, trier, &line) {
                    log::warn!("phantom host: seat {t} cannot take {line:?}: {e}");
                }
            }
            // A board-mate's accepted stone, or the stone its refused try
            // revealed, shows on this seat's board.
            if let Some((c, p)) = self.referee.shown_stone(a, trier, t, mv) {
                player::stand(&mut seat.view, c, p);
            }
        }
        if let Some(heard) = self.referee.heard_by(a, trier, self.human) {
            for item in &heard.items {
                if let super::announcement::Item::Captures(_, _, points) = item {
                    self.captured.extend(points);
                }
            }
            let who = format!("{} (seat {trier})", color_title(seat_color(trier)));
            let what = match (trier == self.human, mv) {
                (true, Some(p)) => format!("{who} {}", vertex_name(Some(p), size)),
                _ => who,
            };
            self.heard
                .push(format!("{what}: {}", heard.lines(size).join(", ")));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::announcement::Outcome;
    use super::*;
    use crate::rules::Rules;
    use crate::search::{Budget, Policy};
    use crate::vertex::parse_vertex;

    fn settings() -> player::Settings {
        player::Settings {
            mode: player::Mode::Determinized,
            policy: Policy::Light,
            budget: Budget {
                playouts: Some(100),
                time: None,
            },
            seed: 1,
            max_nodes: 1000,
            patterns: false,
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
            assert_eq!(host.referee.to_move(), Some(human));
            assert_eq!(host.truth().board().stone_count(), human - 1, "{kind:?}");
            let p = parse_vertex("D4", 7).unwrap();
            let a = host.human_try(p, &settings(), &stop).unwrap();
            if a.outcome == Outcome::Accepted {
                assert_eq!(host.referee.to_move(), Some(human));
                assert!(host.heard().len() >= kind.seats(), "{:?}", host.heard());
            } else {
                assert_eq!(host.refused(), &[p.unwrap()]);
            }
            // The person's view holds their stones and no unseen one, and
            // the board they are shown is that view.
            assert!(host.referee.view(human).is_subset_of(host.truth().board()));
            let shown = host.shown().board();
            assert!(
                shown
                    .points()
                    .all(|q| shown.color_at(q) == host.referee.view(human).at(q))
            );
        }
    }
}
