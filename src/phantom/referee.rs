//! The referee of a phantom game: judges each try against the true game,
//! plays the accepted ones on it, keeps the two views, says whose try it is,
//! ends the game under the preset's rule and counts it under the ruleset in
//! force. What each seat hears of an announcement is [`Referee::heard_by`].

use super::announcement::{Announcement, Item, Outcome};
use super::options::{CaptureInfo, Count, End, IllegalInfo, Options, Repetition};
use super::view::View;
use super::{Kind, seat_color};
use crate::go::board::{Color, Illegal, Point};
use crate::go::game::Game;
use crate::go::rules::Ko;
use crate::go::score::Status;
use std::fmt;

/// Playouts of the ownership estimate that judges dead stones at the end.
const SCORING_PLAYOUTS: usize = 1000;

/// Why the referee takes no try (nothing changes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TryError {
    /// The game is over.
    Over,
    /// No seat of that number in this game.
    NoSuchSeat { seat: usize, seats: usize },
    /// Another seat is to try.
    NotYourTurn { seat: usize, to_try: usize },
}

impl fmt::Display for TryError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            TryError::Over => f.write_str("the phantom game is over"),
            TryError::NoSuchSeat { seat, seats } => write!(f, "seat {seat} is not 1 to {seats}"),
            TryError::NotYourTurn { seat, to_try } => {
                write!(f, "seat {to_try} is to try, not seat {seat}")
            }
        }
    }
}

impl std::error::Error for TryError {}

#[derive(Clone, Debug)]
pub struct Referee {
    pub kind: Kind,
    pub options: Options,
    views: [View; 2],
    /// The seat to try next (1-based).
    next_seat: usize,
    passes_in_row: usize,
    tries: usize,
    result: Option<String>,
    /// The dead stones the result counted (by [`final_statuses`]).
    end_statuses: Option<Vec<Status>>,
    /// For each view, the captured points it showed, at the last try.
    captured_seen: [Vec<Point>; 2],
    /// The stone the last try, refused as occupied, put on its board
    /// (one the board did not show yet).
    revealed: Option<(Color, Point)>,
    /// Seed of the ownership estimate at the end.
    pub seed: u64,
}

/// Whether `color` at `p` retakes a ko at once (refused by simple ko, not
/// only by superko).
fn retakes_a_ko(game: &Game, color: Color, p: Point) -> bool {
    let mut simple = game.clone();
    simple.rules.ko = Ko::Simple;
    simple.check(color, p).is_err()
}

/// The dead stones of a finished phantom game, by the playouts' ownership
/// estimate, or none (every stone as it stands): the one judgement its
/// result, `final_score`, `final_status_list` and the record's result all
/// read, whatever search the engine plays with.
pub fn final_statuses(game: &Game, seed: u64, count: Count) -> Vec<Status> {
    match count {
        Count::Estimate => {
            let ownership = crate::search::mc::ownership(game, SCORING_PLAYOUTS, seed);
            crate::go::score::statuses(game.board(), &ownership)
        }
        Count::AsItStands => vec![Status::Alive; crate::go::board::MAX_POINTS],
    }
}

impl Referee {
    /// A phantom game on the true game's present position: its stones
    /// (handicap, setup) are shown on both views; the first seat to try is
    /// the first of the side to move.
    pub fn new(kind: Kind, options: Options, game: &Game) -> Referee {
        let view = View::of_board(game.board());
        let first = (1..=kind.seats())
            .find(|&s| seat_color(s) == game.to_move())
            .unwrap_or(1);
        Referee {
            kind,
            options,
            views: [view.clone(), view],
            next_seat: first,
            passes_in_row: 0,
            tries: 0,
            result: None,
            end_statuses: None,
            captured_seen: [Vec::new(), Vec::new()],
            revealed: None,
            seed: 0,
        }
    }

    /// The seat to try next, or `None` once the game is over.
    pub fn to_move(&self) -> Option<usize> {
        self.result.is_none().then_some(self.next_seat)
    }

    pub fn result(&self) -> Option<&str> {
        self.result.as_deref()
    }

    /// The dead stones the result counted, once the game is over.
    pub fn end_statuses(&self) -> Option<&[Status]> {
        self.end_statuses.as_deref()
    }

    pub fn tries(&self) -> usize {
        self.tries
    }

    /// The view a seat sees.
    pub fn view(&self, seat: usize) -> &View {
        &self.views[self.kind.view_of(seat, self.options.shared_view)]
    }

    /// Ends the game now with this result (a resignation, or a seat that
    /// failed in a match).
    pub fn end_with(&mut self, result: String) {
        self.result = Some(result);
    }

    fn advance(&mut self) {
        self.next_seat = self.next_seat % self.kind.seats() + 1;
    }

    /// Judges `seat`'s try (`None`: a pass) and plays it on the true game if
    /// legal. Errors (nothing changed): the game is over, a seat out of
    /// range, or not this seat's turn.
    pub fn try_move(
        &mut self,
        game: &mut Game,
        seat: usize,
        mv: Option<Point>,
    ) -> Result<Announcement, TryError> {
        if self.result.is_some() {
            return Err(TryError::Over);
        }
        if !(1..=self.kind.seats()).contains(&seat) {
            return Err(TryError::NoSuchSeat {
                seat,
                seats: self.kind.seats(),
            });
        }
        if seat != self.next_seat {
            return Err(TryError::NotYourTurn {
                seat,
                to_try: self.next_seat,
            });
        }
        let color = seat_color(seat);
        let mine = self.kind.view_of(seat, self.options.shared_view);
        let reason = self.options.illegal == IllegalInfo::Reason;
        let mut items = Vec::new();
        self.captured_seen = [Vec::new(), Vec::new()];
        self.revealed = None;
        self.tries += 1;
        let outcome = match mv {
            None => {
                game.play(color, None).expect("a pass is legal");
                self.passes_in_row += 1;
                self.advance();
                Outcome::Pass
            }
            Some(p) => match (game.board().color_at(p), game.check(color, p)) {
                (Some(there), _) => {
                    if self.options.illegal != IllegalInfo::Nothing {
                        if self.views[mine].at(p).is_none() {
                            self.revealed = Some((there, p));
                        }
                        self.views[mine].set(p, Some(there));
                        Outcome::Occupied(there)
                    } else {
                        Outcome::Illegal
                    }
                }
                (None, Err(Illegal::Superko))
                    if self.options.repetition == Repetition::Draw
                        && !retakes_a_ko(game, color, p) =>
                {
                    // The repeating move is played (its captures made and
                    // announced), and the game ends drawn.
                    let rules = game.rules;
                    game.rules.ko = Ko::Simple;
                    self.accept(game, color, p, mine, &mut items);
                    game.rules = rules;
                    self.result = Some("0".into());
                    items.push(Item::End("0".into()));
                    Outcome::Accepted
                }
                (None, Err(Illegal::Suicide)) if reason => Outcome::Suicide,
                (None, Err(Illegal::Ko | Illegal::Superko)) if reason => Outcome::Ko,
                (None, Err(_)) => Outcome::Illegal,
                (None, Ok(())) => {
                    self.accept(game, color, p, mine, &mut items);
                    self.passes_in_row = 0;
                    self.advance();
                    Outcome::Accepted
                }
            },
        };
        // OpenSpiel ends on two passes as the last two entries of its
        // history, where refused tries are entries too.
        if outcome.is_illegal() && self.options.end == End::TwoPassesOrTries {
            self.passes_in_row = 0;
        }
        if self.result.is_none() && self.ends() {
            let statuses = final_statuses(game, self.seed, self.options.count);
            let result = crate::go::score::score(game, &statuses).result();
            items.push(Item::End(result.clone()));
            self.result = Some(result);
            self.end_statuses = Some(statuses);
        }
        Ok(Announcement { outcome, items })
    }

    /// Plays an accepted stone: the views, ataris and captures.
    fn accept(
        &mut self,
        game: &mut Game,
        color: Color,
        p: Point,
        mine: usize,
        items: &mut Vec<Item>,
    ) {
        let before = game.board().clone();
        game.play(color, Some(p)).expect("checked legal");
        let after = game.board();
        let removed = |c: Color| -> Vec<Point> {
            before
                .points()
                .filter(|&q| before.color_at(q) == Some(c) && after.color_at(q).is_none())
                .collect()
        };
        let captured = removed(color.opponent());
        // A suicide (where the rules allow it) takes the tried stone too.
        let mut suicided = removed(color);
        if after.color_at(p) != Some(color) {
            suicided.push(p);
            suicided.sort_unstable();
        }
        if self.options.ataris {
            if after.color_at(p) == Some(color) && after.liberties(p) == 1 {
                items.push(Item::AtariSelf);
            }
            let mut chains: Vec<Point> = after
                .neighbors(p)
                .into_iter()
                .filter(|&q| after.color_at(q) == Some(color.opponent()) && after.liberties(q) == 1)
                .map(|q| after.chain(q))
                .collect();
            chains.sort_unstable();
            chains.dedup();
            if !chains.is_empty() {
                items.push(Item::Atari(color.opponent(), chains.len() as u32));
            }
        }
        if after.color_at(p) == Some(color) {
            self.views[mine].set(p, Some(color));
        }
        for (capturer, points) in [(color, &captured), (color.opponent(), &suicided)] {
            if points.is_empty() {
                continue;
            }
            for (v, view) in self.views.iter_mut().enumerate() {
                for &q in points.iter() {
                    if view.at(q).is_some() {
                        self.captured_seen[v].push(q);
                        view.set(q, None);
                    }
                }
            }
            items.push(Item::Captures(
                capturer,
                points.len() as u32,
                points.clone(),
            ));
        }
        debug_assert!(self.views.iter().all(|v| v.is_subset_of(game.board())));
    }

    /// Whether the game ends now: after a pass by every seat in a row
    /// (`all-pass`, and in Phantom Rengo under every preset: the two
    /// passes of Go are one by each player of each board), or two passes
    /// in a row in Phantom Go; with `two-passes-or-tries`, also after four
    /// tries per point of the board.
    fn ends(&self) -> bool {
        let passes = match (self.options.end, self.kind) {
            (End::AllPass, _) | (_, Kind::Rengo) => self.kind.seats(),
            (End::TwoPasses | End::TwoPassesOrTries, Kind::Go) => 2,
        };
        let size = self.views[0].size();
        self.passes_in_row >= passes
            || (self.options.end == End::TwoPassesOrTries && self.tries >= 4 * size.points())
    }

    /// The stone `trier`'s last try put on `seat`'s board where `seat`
    /// shares that board and did not try: a board-mate's accepted stone
    /// (Phantom Rengo), or the stone a board-mate's try refused as
    /// occupied revealed (the trier places it on the board they share,
    /// under the `seed` preset). The announcement alone does not tell the board-mate
    /// where it stands.
    pub fn shown_stone(
        &self,
        a: &Announcement,
        trier: usize,
        seat: usize,
        mv: Option<Point>,
    ) -> Option<(Color, Point)> {
        let shared = self.options.shared_view;
        if seat == trier || self.kind.view_of(seat, shared) != self.kind.view_of(trier, shared) {
            return None;
        }
        let stone = match a.outcome {
            Outcome::Accepted => (seat_color(trier), mv?),
            Outcome::Occupied(_) => self.revealed?,
            _ => return None,
        };
        (self.view(seat).at(stone.1) == Some(stone.0)).then_some(stone)
    }

    /// What `seat` hears of the announcement of `trier`'s last try (`None`:
    /// nothing, as the others under presets that keep illegal tries
    /// private). Captured points: all of them where the preset names them
    /// (Computer Olympiad); under the source document's count, the points
    /// the seat's own view showed (the stones it sees removed); under
    /// OpenSpiel's, all to the victim and those its view showed to another.
    pub fn heard_by(&self, a: &Announcement, trier: usize, seat: usize) -> Option<Announcement> {
        if a.outcome.is_illegal() && seat != trier && !self.options.tell_others && a.end().is_none()
        {
            return None;
        }
        let outcome = if a.outcome.is_illegal() && seat != trier {
            // The others learn that the try was illegal, not where; the
            // occupying stone's colour only where the referee says the
            // reason aloud (the source document's "the referee tells the
            // stone's colour").
            match a.outcome {
                Outcome::Occupied(_) if self.options.illegal != IllegalInfo::Reason => {
                    Outcome::Illegal
                }
                other => other,
            }
        } else {
            a.outcome
        };
        let view = self.kind.view_of(seat, self.options.shared_view);
        let items = a
            .items
            .iter()
            .map(|item| match item {
                Item::Captures(capturer, n, _)
                    if self.options.captures == CaptureInfo::Count
                        || (self.options.captures == CaptureInfo::Victim
                            && seat_color(seat) != capturer.opponent()) =>
                {
                    Item::Captures(*capturer, *n, self.captured_seen[view].clone())
                }
                other => other.clone(),
            })
            .collect();
        Some(Announcement { outcome, items })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::rules::Rules;
    use crate::go::vertex::parse_vertex;

    fn pt(v: &str) -> Option<Point> {
        parse_vertex(v, 9).unwrap()
    }

    fn referee(kind: Kind, preset: &str) -> (Referee, Game) {
        let game = Game::new(9, Rules::default(), 7.5);
        (
            Referee::new(kind, Options::preset(preset).unwrap(), &game),
            game,
        )
    }

    #[test]
    fn occupied_tries_reveal_the_stone_under_seed_and_nothing_under_olympiad() {
        for (preset, first) in [("seed", "illegal occupied black"), ("olympiad", "illegal")] {
            let (mut r, mut g) = referee(Kind::Go, preset);
            assert_eq!(
                r.try_move(&mut g, 1, pt("E5")).unwrap().outcome,
                Outcome::Accepted
            );
            assert!(
                r.view(2).at(pt("E5").unwrap()).is_none(),
                "white does not see it"
            );
            let a = r.try_move(&mut g, 2, pt("E5")).unwrap();
            assert_eq!(a.lines(9.into())[0], first);
            assert_eq!(r.view(2).at(pt("E5").unwrap()).is_some(), preset == "seed");
            assert_eq!(r.to_move(), Some(2), "white tries again");
            assert_eq!(r.heard_by(&a, 2, 1).is_some(), preset == "seed");
            if preset == "seed" {
                // Said aloud, the reason reaches the other seat too.
                let heard = r.heard_by(&a, 2, 1).unwrap();
                assert_eq!(heard.lines(9.into())[0], "illegal occupied black");
            }
            assert!(
                r.try_move(&mut g, 1, pt("A1")).is_err(),
                "not seat 1's turn"
            );
        }
    }

    #[test]
    fn captures_clear_both_views_and_ataris_are_announced() {
        let (mut r, mut g) = referee(Kind::Go, "seed");
        for (seat, v) in [(1, "A2"), (2, "A1"), (1, "C1"), (2, "E5")] {
            r.try_move(&mut g, seat, pt(v)).unwrap();
        }
        let a = r.try_move(&mut g, 1, pt("B1")).unwrap();
        assert_eq!(a.lines(9.into()), ["accepted", "captures black 1 A1"]);
        // Each seat hears the count and the points its own view showed:
        // White its stone; Black, who never saw A1, none.
        assert_eq!(
            r.heard_by(&a, 1, 2).unwrap().lines(9.into())[1],
            "captures black 1 A1"
        );
        assert_eq!(
            r.heard_by(&a, 1, 1).unwrap().lines(9.into())[1],
            "captures black 1"
        );
        assert!(r.view(2).at(pt("A1").unwrap()).is_none());
        r.try_move(&mut g, 2, pt("B2")).unwrap();
        r.try_move(&mut g, 1, pt("J9")).unwrap();
        let a = r.try_move(&mut g, 2, pt("A3")).unwrap();
        assert_eq!(a.lines(9.into()), ["accepted", "atari black 1"]);
        r.try_move(&mut g, 1, pt("H9")).unwrap();
        // White's stone at A1 takes A2 but has one liberty itself.
        let a = r.try_move(&mut g, 2, pt("A1")).unwrap();
        assert_eq!(
            a.lines(9.into()),
            ["accepted", "atari self", "captures white 1 A2"]
        );
    }

    #[test]
    fn rengo_boards_show_their_seats_moves_and_four_passes_end() {
        let (mut r, mut g) = referee(Kind::Rengo, "seed");
        for (seat, v) in [(1, "C3"), (2, "G7"), (3, "C7"), (4, "G3")] {
            r.try_move(&mut g, seat, pt(v)).unwrap();
        }
        let board_a = r.view(1);
        assert_eq!(board_a.stones().len(), 2);
        assert_eq!(r.view(2), board_a, "seats 1 and 2 share board A");
        assert!(r.view(3).at(pt("C7").unwrap()).is_some());
        for seat in [1, 2, 3] {
            assert!(r.try_move(&mut g, seat, None).unwrap().end().is_none());
        }
        let a = r.try_move(&mut g, 4, None).unwrap();
        assert!(a.end().is_some(), "{a:?}");
        assert_eq!(r.to_move(), None);
        assert!(r.try_move(&mut g, 1, pt("A1")).is_err());
    }

    #[test]
    fn a_board_mate_is_shown_the_stones_its_board_gets() {
        let (mut r, mut g) = referee(Kind::Rengo, "seed");
        let stone = |v: &str, c: Color| Some((c, pt(v).unwrap()));
        let a = r.try_move(&mut g, 1, pt("C3")).unwrap();
        assert_eq!(r.shown_stone(&a, 1, 2, pt("C3")), stone("C3", Color::Black));
        assert_eq!(r.shown_stone(&a, 1, 3, pt("C3")), None, "board B");
        assert_eq!(r.shown_stone(&a, 1, 1, pt("C3")), None, "the trier");
        r.try_move(&mut g, 2, pt("G7")).unwrap();
        r.try_move(&mut g, 3, pt("E5")).unwrap();
        r.try_move(&mut g, 4, pt("G3")).unwrap();
        // White's G3 is on board B: seat 1's try there shows it on board
        // A, where seat 2 sees it as well as seat 1.
        let a = r.try_move(&mut g, 1, pt("G3")).unwrap();
        assert_eq!(a.outcome, Outcome::Occupied(Color::White));
        assert_eq!(r.shown_stone(&a, 1, 2, pt("G3")), stone("G3", Color::White));
        assert_eq!(r.shown_stone(&a, 1, 4, pt("G3")), None);
        // Black's E5, seat 3's, is its partner's: shown to seat 2 too.
        r.try_move(&mut g, 1, pt("D4")).unwrap();
        let a = r.try_move(&mut g, 2, pt("E5")).unwrap();
        assert_eq!(a.outcome, Outcome::Occupied(Color::Black));
        assert_eq!(r.shown_stone(&a, 2, 1, pt("E5")), stone("E5", Color::Black));
        // A stone the board shows already is no news, nor a refusal for
        // another reason.
        let a = r.try_move(&mut g, 2, pt("E5")).unwrap();
        assert_eq!(r.shown_stone(&a, 2, 1, pt("E5")), None);
        let (mut r, mut g) = referee(Kind::Rengo, "olympiad");
        for (seat, v) in [(1, "C3"), (2, "G7"), (3, "E5"), (4, "G3")] {
            r.try_move(&mut g, seat, pt(v)).unwrap();
        }
        let a = r.try_move(&mut g, 1, pt("E5")).unwrap();
        assert_eq!(r.shown_stone(&a, 1, 2, pt("E5")), None, "olympiad hides it");
    }

    #[test]
    fn a_suicide_announces_every_stone_it_takes() {
        for rules in ["new-zealand", "tromp-taylor"] {
            let game = Game::new(9, Rules::preset(rules).unwrap(), 7.5);
            let mut r = Referee::new(Kind::Go, Options::preset("seed").unwrap(), &game);
            let mut g = game;
            for (seat, v) in [
                (1, "A1"),
                (2, "A2"),
                (1, "J9"),
                (2, "B2"),
                (1, "J8"),
                (2, "C1"),
            ] {
                r.try_move(&mut g, seat, pt(v)).unwrap();
            }
            let a = r.try_move(&mut g, 1, pt("B1")).unwrap();
            assert_eq!(a.outcome, Outcome::Accepted, "{rules}");
            assert!(
                a.items.contains(&Item::Captures(
                    Color::White,
                    2,
                    vec![pt("A1").unwrap(), pt("B1").unwrap()]
                )),
                "{rules}: {:?}",
                a.items
            );
            assert!(r.view(1).at(pt("A1").unwrap()).is_none());
        }
    }

    #[test]
    fn rengo_ends_when_every_seat_has_passed_under_every_preset() {
        for preset in ["seed", "olympiad", "openspiel"] {
            let (mut r, mut g) = referee(Kind::Rengo, preset);
            for seat in [1, 2, 3] {
                assert!(
                    r.try_move(&mut g, seat, None).unwrap().end().is_none(),
                    "{preset}"
                );
            }
            assert!(
                r.try_move(&mut g, 4, None).unwrap().end().is_some(),
                "{preset}"
            );
        }
    }

    #[test]
    fn openspiel_refuses_a_ko_retake_and_play_goes_on() {
        let (mut r, mut g) = referee(Kind::Go, "openspiel");
        // A ko: Black takes at C3... set up with alternating tries.
        for (seat, v) in [
            (1, "B4"),
            (2, "C4"),
            (1, "A3"),
            (2, "D3"),
            (1, "B2"),
            (2, "C2"),
            (1, "J9"),
            (2, "B3"),
            (1, "C3"),
        ] {
            assert_eq!(
                r.try_move(&mut g, seat, pt(v)).unwrap().outcome,
                Outcome::Accepted,
                "{v}"
            );
        }
        // White's retake at once is refused, as OpenSpiel refuses it;
        // only a longer repetition ends the game drawn.
        let a = r.try_move(&mut g, 2, pt("B3")).unwrap();
        assert_eq!(a.outcome, Outcome::Illegal);
        assert_eq!(a.end(), None);
        assert_eq!(r.to_move(), Some(2));
    }
}
