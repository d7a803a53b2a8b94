//! A phantom seat's player: what it knows (its view, the tries refused
//! this turn, how many stones of each colour the true board holds, from
//! the announcements) and how it takes in each announcement.
//!
//! It chooses a try in one of two ways, each in its own module:
//! `determinized`, flat Monte Carlo over samples of the unseen stones
//! (Phantom Go's default), and `view`, the ordinary search on the view
//! as if it were the whole board, with probes and filters (Phantom
//! Rengo's default).

mod determinized;
mod view;

use super::announcement::{Item, Line, Outcome};
use super::options::{CaptureInfo, Options};
use super::probe::Probe;
use super::{Kind, seat_color};
use crate::go::board::{Board, Color, Point};
use crate::go::game::Game;
use crate::go::vertex::color_name;
use crate::nn::Evaluator;
use crate::search::mc::Policy;
use crate::search::{Budget, Decision, SearchConfig};
use std::sync::atomic::AtomicBool;

/// How the player searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// Flat Monte Carlo over determinizations of the unseen stones.
    Determinized,
    /// The ordinary search on the view, as if it were the whole board.
    View,
    /// The network's search on the view, as if it were the whole board,
    /// with the view search's probes and filters: Phantom Rengo's where a
    /// network is loaded.
    Net,
    /// The strongest measured (docs/phantom.md): determinized in Phantom
    /// Go (it beat the network there), in Phantom Rengo the network on
    /// the view where one is loaded, else the view search (half the
    /// stones of both colours are unseen, and random samples of them made
    /// the determinized player lose every game to GNU Go).
    Auto,
}

impl Mode {
    /// The search a seat of `kind` runs, `network` telling whether one is
    /// loaded: `Auto` resolved, and `Net` without a network the view
    /// search.
    pub fn resolve(self, kind: Kind, network: bool) -> Mode {
        match (self, kind) {
            (Mode::Auto, Kind::Go) => Mode::Determinized,
            (Mode::Auto | Mode::Net, _) if network => Mode::Net,
            (Mode::Auto | Mode::Net, _) => Mode::View,
            (mode, _) => mode,
        }
    }
}

/// The search settings of one choice.
#[derive(Clone, Copy)]
pub struct Settings<'a> {
    pub mode: Mode,
    pub policy: Policy,
    pub budget: Budget,
    pub seed: u64,
    /// How the view search searches, as every other search does: its
    /// threads, tree bound, Monte Carlo settings and PUCT's refinements
    /// (the determinized search's light playouts read none of them).
    pub search: &'a SearchConfig,
    /// The network, for [`Mode::Net`].
    pub network: Option<&'a Evaluator>,
}

/// One seat's knowledge.
#[derive(Clone, Debug)]
pub struct Player {
    pub seat: usize,
    pub kind: Kind,
    pub options: Options,
    /// Tries refused since this seat's last accepted move or pass.
    refused: Vec<Point>,
    /// Tries refused as suicide, remembered until a capture (the only
    /// thing that frees their neighbours) is announced.
    suicides: Vec<Point>,
    /// Opponent moves to go before an atari on this seat's colour, heard
    /// lately, stops counting: while it is above zero the samples may put
    /// this seat's chains in atari; at zero they may not (an atari would
    /// have been announced, and a chain left in atari is soon captured
    /// or saved).
    atari_heard: u8,
    /// The try standing on the view, waiting for its announcement.
    pending: Option<Option<Point>>,
    /// What the next turn probes for, from the atari announced on this
    /// seat's last accepted stone ([`Probe`]).
    probe: Option<Probe>,
    /// An `atari self` heard on a try of the opponent this seat faces
    /// (Phantom Rengo): true until that stone shows on the view (its
    /// `play` comes after the announcement) and is located in `kill`.
    kill_heard: bool,
    /// That stone: the next turn probes to capture its chain
    /// ([`Probe::Kill`]).
    kill: Option<Point>,
    /// This seat's last accepted stone, and whether it was tried as a
    /// rescue (a rescue left in atari again is not rescued again).
    last_stone: Option<(Point, bool)>,
    /// Stones of each colour on the true board, as announced.
    on_board: [i64; 2],
    /// Handicap stones at the start (for White's bonus in the count).
    handicap: u32,
    over: bool,
    /// Whether the game has begun for this seat: a try of its own made, or
    /// an announcement heard.
    begun: bool,
}

/// The stones of `c` a view shows.
fn stones_shown(view: &Game, c: Color) -> i64 {
    let b = view.board();
    b.points().filter(|&p| b.color_at(p) == Some(c)).count() as i64
}

/// Puts a stone of `c` at `p` on a view: as a move, or, where the view's
/// own history forbids it (a view repeats positions the true game never
/// had, since captures clear it), as a setup stone: the referee judges
/// tries and stones on the true game. False if it cannot stand at all.
pub fn stand(view: &mut Game, c: Color, p: Point) -> bool {
    view.play(c, Some(p)).is_ok() || view.setup(&[(c, p)], false).is_ok()
}

impl Player {
    /// A player of `seat` whose view starts as `view`'s board (the stones
    /// on it are public: handicap, setup).
    pub fn new(seat: usize, kind: Kind, options: Options, view: &Game) -> Player {
        Player {
            seat,
            kind,
            options,
            refused: Vec::new(),
            suicides: Vec::new(),
            atari_heard: 0,
            pending: None,
            probe: None,
            kill_heard: false,
            kill: None,
            last_stone: None,
            on_board: [
                stones_shown(view, Color::Black),
                stones_shown(view, Color::White),
            ],
            handicap: view.handicap(),
            over: false,
            begun: false,
        }
    }

    pub fn color(&self) -> Color {
        seat_color(self.seat)
    }

    pub fn is_over(&self) -> bool {
        self.over
    }

    /// Whether a try was made or an announcement heard.
    pub fn has_begun(&self) -> bool {
        self.begun
    }

    pub fn refused(&self) -> &[Point] {
        &self.refused
    }

    /// Whether a try at `p` is known to be refused: refused this turn, or
    /// refused as suicide since the last capture.
    pub fn barred(&self, p: Point) -> bool {
        self.refused.contains(&p) || self.suicides.contains(&p)
    }

    /// The colour whose chains the samples must not put in atari: this
    /// seat's, unless an atari on it was heard lately (only where the
    /// preset announces ataris).
    pub fn atari_guard(&self) -> Option<Color> {
        (self.options.ataris && self.atari_heard == 0).then(|| self.color())
    }

    /// Stones of each colour on the true board that the view does not show.
    pub fn unseen(&self, view: &Board) -> [u32; 2] {
        [Color::Black, Color::White].map(|c| {
            let shown = view
                .points()
                .filter(|&p| view.color_at(p) == Some(c))
                .count() as i64;
            (self.on_board[c.index()] - shown).max(0) as u32
        })
    }

    /// What the next turn probes for, if anything.
    pub fn probe(&self) -> Option<Probe> {
        self.probe
    }

    /// Whether `trier` is the opponent this seat faces on its board: the
    /// one whose stones its view shows (Phantom Rengo without shared
    /// views; in Phantom Go no opponent stone shows).
    fn faces(&self, trier: usize) -> bool {
        let shared = self.options.shared_view;
        seat_color(trier) != self.color()
            && self.kind.view_of(trier, shared) == self.kind.view_of(self.seat, shared)
    }

    /// The faced opponent's stone heard in atari by its own try, if it is
    /// still to be captured: located, or the view's last move where the
    /// stone has just been put on it.
    pub fn kill(&self, view: &Game) -> Option<Probe> {
        let them = self.color().opponent();
        let last = || match view.last_move() {
            Some((c, Some(p))) if c == them => Some(p),
            _ => None,
        };
        let p = self.kill.or_else(|| self.kill_heard.then(last).flatten())?;
        (view.board().color_at(p) == Some(them)).then_some(Probe::Kill(p))
    }

    /// Chooses a try for this seat on `view` (never one refused this turn).
    pub fn choose(&self, view: &Game, settings: &Settings, stop: &AtomicBool) -> Decision {
        if self.over {
            return Decision::Pass;
        }
        match settings.mode.resolve(self.kind, settings.network.is_some()) {
            Mode::Determinized => self.choose_determinized(view, settings, stop),
            Mode::Net => self.choose_on_view(view, settings, settings.network, stop),
            Mode::View | Mode::Auto => self.choose_on_view(view, settings, None, stop),
        }
    }

    /// Chooses a try and puts it on `view` ([`Player::put_try`]).
    pub fn choose_try(
        &mut self,
        view: &mut Game,
        settings: &Settings,
        stop: &AtomicBool,
    ) -> Option<Point> {
        self.locate_kill(view);
        view.set_to_move(self.color());
        let mv = match self.choose(view, settings, stop) {
            Decision::Play(p) => Some(p),
            Decision::Pass | Decision::Resign => None,
        };
        self.put_try(view, mv)
    }

    /// Puts this seat's try on `view`, where it stands until its
    /// announcement; returns the try that stands (a pass if the stone
    /// cannot).
    pub fn put_try(&mut self, view: &mut Game, mv: Option<Point>) -> Option<Point> {
        let color = self.color();
        self.begun = true;
        let mv = mv.filter(|&p| stand(view, color, p));
        if mv.is_none() {
            view.play(color, None).expect("pass is legal");
        }
        self.pending = Some(mv);
        mv
    }

    /// Finds the faced opponent's stone heard in atari on `view`, where it
    /// is the last move: before this seat's try stands on it, and before
    /// a capture clears the view's history.
    fn locate_kill(&mut self, view: &Game) {
        if self.kill_heard {
            self.kill = self.kill(view).map(Probe::stone);
            self.kill_heard = false;
        }
    }

    /// The stones of `c` on the board as the announcements count them: a
    /// Phantom Go seat hears every move, a Rengo seat not the other
    /// board's, so only Phantom Go's counts bound what can be announced
    /// (a Rengo seat's are unbounded).
    fn stones_of(&self, c: Color) -> i64 {
        if self.kind == Kind::Go {
            self.on_board[c.index()]
        } else {
            i64::MAX
        }
    }

    /// Takes in one announcement line of `trier`'s try. Checks it against
    /// what the seat knows first: a line that contradicts the view is an
    /// error and changes nothing.
    pub fn hear(&mut self, view: &mut Game, trier: usize, line: &Line) -> Result<(), String> {
        if trier != self.seat && !self.faces(trier) {
            // The faced opponent's stone stands on the view by now.
            self.locate_kill(view);
        }
        if self.over {
            return Err("the game is over".into());
        }
        let counted = self.kind == Kind::Go;
        let stones_of = |c: Color| self.stones_of(c);
        match line {
            Line::Item(Item::Captures(capturer, n, points)) => {
                self.check_captures(view, trier, *capturer, *n, points)?;
            }
            Line::Item(Item::Atari(c, n)) if *n == 0 || i64::from(*n) > stones_of(*c) => {
                return Err(format!(
                    "{n} {} chains in atari, but {} stones are on the board",
                    color_name(*c),
                    stones_of(*c)
                ));
            }
            Line::Outcome(Outcome::Occupied(c))
                if counted && trier == self.seat && stones_shown(view, *c) >= stones_of(*c) =>
            {
                return Err(format!(
                    "every {} stone on the board is on my view already",
                    color_name(*c)
                ));
            }
            _ => {}
        }
        self.learn(view, trier, line)?;
        self.begun = true;
        Ok(())
    }

    /// What the seat learns from a line already checked: its own try's
    /// answer, the stones counted, the captures cleared from its view, the
    /// ataris it hunts or flees.
    fn learn(&mut self, view: &mut Game, trier: usize, line: &Line) -> Result<(), String> {
        let me = self.color();
        let trier_color = seat_color(trier);
        match line {
            Line::Outcome(outcome) if trier == self.seat => self.my_try_answered(view, outcome)?,
            Line::Outcome(Outcome::Accepted) => {
                self.on_board[trier_color.index()] += 1;
                if trier_color != me {
                    self.atari_heard = self.atari_heard.saturating_sub(1);
                }
            }
            Line::Outcome(_) => {}
            Line::Item(Item::Captures(capturer, n, points)) => {
                self.take_captures(view, *capturer, *n, points)?;
            }
            Line::Item(Item::End(_)) => self.over = true,
            Line::Item(Item::Atari(c, _)) if *c == me && seat_color(trier) != me => {
                // Counted down from the next opponent move on.
                self.atari_heard = 2;
            }
            Line::Item(Item::Atari(c, _)) if *c != me && trier == self.seat => {
                if let Some((p, _)) = self.last_stone {
                    self.probe = Some(Probe::Hunt(p));
                }
            }
            Line::Item(Item::AtariSelf) if trier == self.seat => {
                self.atari_heard = 2;
                if let Some((p, false)) = self.last_stone
                    && self.probe.is_none()
                    && view.board().chain_size(p) >= 2
                {
                    self.probe = Some(Probe::Rescue(p));
                }
            }
            Line::Item(Item::AtariSelf) if self.faces(trier) => {
                self.kill_heard = true;
                self.kill = None;
            }
            Line::Item(Item::AtariSelf | Item::Atari(..)) => {}
        }
        Ok(())
    }

    /// Checks a capture heard against what the seat knows: how many stones
    /// can be on the board, the points its view showed, what its own stone
    /// touches.
    fn check_captures(
        &self,
        view: &Game,
        trier: usize,
        capturer: Color,
        n: u32,
        points: &[Point],
    ) -> Result<(), String> {
        let me = self.color();
        let counted = self.kind == Kind::Go;
        let stones_of = |c: Color| self.stones_of(c);
        let victim = capturer.opponent();
        let points_on_board = view.size().points() as i64;
        if n == 0 || i64::from(n) > stones_of(victim).min(points_on_board) {
            return Err(format!(
                "{n} {} stones captured, but {} are on the board",
                color_name(victim),
                stones_of(victim).min(points_on_board)
            ));
        }
        // Where only the victim hears every point (OpenSpiel's
        // convention), the other seats hear those their view showed.
        let in_part = match self.options.captures {
            CaptureInfo::Victim => victim != me,
            CaptureInfo::Count => victim != me || self.kind == Kind::Rengo,
            CaptureInfo::Points => false,
        };
        let named = points.len();
        if !in_part && named != 0 && named != n as usize {
            return Err(format!("{n} stones captured at {named} points"));
        }
        let name = |p: Point| crate::go::vertex::vertex_name(Some(p), view.size());
        // A Phantom Go seat knows every stone of its own: the
        // captured ones are among them (unless its own try took
        // them, a suicide its view has played already).
        if victim == me
            && counted
            && trier != self.seat
            && let Some(&p) = points
                .iter()
                .find(|&&p| view.board().color_at(p) != Some(me))
        {
            return Err(format!(
                "{} is captured, but no stone of mine stands there",
                name(p)
            ));
        }
        // Heard in part, the points are those my view showed (a
        // trier's view before its try: the try made the capture
        // on it already).
        let shown = if trier == self.seat {
            view.earlier_board(1)
        } else {
            Some(view.board())
        };
        if in_part
            && let Some(shown) = shown
            && let Some(&p) = points.iter().find(|&&p| shown.color_at(p) != Some(victim))
        {
            return Err(format!(
                "{} is named captured, but my view shows no {} stone there",
                name(p),
                color_name(victim)
            ));
        }
        // What my stone captured touches it.
        if trier == self.seat
            && capturer == me
            && !in_part
            && let Some((stone, _)) = self.last_stone
            && !points.is_empty()
            && !points
                .iter()
                .any(|&p| view.board().neighbors(stone).contains(&p))
        {
            return Err(format!(
                "my stone at {} captured nothing it touches",
                name(stone)
            ));
        }
        Ok(())
    }

    /// This seat's own try answered: a stone accepted, a pass, or a
    /// refusal (the try taken back from the view, a revealed stone put on
    /// it).
    fn my_try_answered(&mut self, view: &mut Game, outcome: &Outcome) -> Result<(), String> {
        let me = self.color();
        match (outcome, self.pending) {
            (Outcome::Accepted, Some(Some(p))) => {
                self.on_board[me.index()] += 1;
                self.refused.clear();
                self.pending = None;
                let rescue = matches!(self.probe, Some(Probe::Rescue(_)));
                self.last_stone = Some((p, rescue));
                self.probe = None;
                self.kill = None;
            }
            (Outcome::Pass, Some(None) | None) => {
                self.refused.clear();
                self.pending = None;
                self.last_stone = None;
                self.probe = None;
                self.kill = None;
            }
            (o, Some(Some(p))) if o.is_illegal() => {
                if let Outcome::Occupied(c) = o
                    && self.kind == Kind::Go
                    && *c == me
                {
                    return Err("every stone of mine is on my view".into());
                }
                let mut back = view.clone();
                if !back.undo() || back.board().color_at(p).is_some() {
                    return Err("my try is not the last move of my view".into());
                }
                if let Outcome::Occupied(c) = o {
                    back.setup(&[(*c, p)], false)
                        .map_err(|e| format!("the revealed stone cannot stand: {e}"))?;
                }
                back.set_to_move(me);
                *view = back;
                if *o == Outcome::Suicide {
                    self.suicides.push(p);
                }
                self.refused.push(p);
                self.pending = None;
            }
            (o, pending) => {
                return Err(format!(
                    "'{}' does not answer my try ({})",
                    o.line(),
                    match pending {
                        None => "none is waiting".to_string(),
                        Some(None) => "a pass".to_string(),
                        Some(Some(_)) => "a stone".to_string(),
                    }
                ));
            }
        }
        Ok(())
    }

    /// Clears `n` captured stones at `points` from the view (where it
    /// shows them) and from the count.
    fn take_captures(
        &mut self,
        view: &mut Game,
        capturer: Color,
        n: u32,
        points: &[Point],
    ) -> Result<(), String> {
        let victim = capturer.opponent();
        if let Some(&p) = points
            .iter()
            .find(|&&p| view.board().color_at(p) == Some(capturer))
        {
            return Err(format!(
                "point {} holds a stone of the capturing colour on my view",
                crate::go::vertex::vertex_name(Some(p), view.size())
            ));
        }
        let keep: Vec<(Color, Point)> = view
            .board()
            .points()
            .filter(|p| !points.contains(p))
            .filter_map(|p| view.board().color_at(p).map(|c| (c, p)))
            .collect();
        if keep.len() != view.board().stone_count() {
            let mut fresh = view.cleared();
            fresh
                .setup(&keep, false)
                .map_err(|e| format!("the view after the captures: {e}"))?;
            fresh.set_to_move(view.to_move());
            *view = fresh;
        }
        self.on_board[victim.index()] -= i64::from(n);
        self.suicides.clear();
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::go::rules::Rules;
    use crate::go::vertex::parse_vertex;

    /// A search configuration for the tests' settings, which live as long
    /// as the test: `max_nodes` nodes, no learned patterns unless asked.
    pub(crate) fn search_config(max_nodes: usize, patterns: bool) -> &'static SearchConfig {
        Box::leak(Box::new(SearchConfig {
            max_nodes,
            mc: crate::search::MonteCarlo {
                patterns,
                planning: crate::search::Planning::Chance,
            },
            ..SearchConfig::default()
        }))
    }

    /// The point of a vertex on 9×9 (`None` for a pass).
    pub(super) fn pt(v: &str) -> Option<Point> {
        parse_vertex(v, 9).unwrap()
    }

    /// An announcement line on 9×9.
    pub(super) fn line(s: &str) -> Line {
        let words: Vec<&str> = s.split(' ').collect();
        Line::parse(&words, 9.into()).unwrap()
    }

    /// Under OpenSpiel's convention and the source document's the capturer
    /// hears only the captured points its view showed: fewer points than
    /// stones is believed there (and refused under the Computer
    /// Olympiad's, which names them all; more points than stones the
    /// announcement reader refuses already).
    #[test]
    fn a_capturer_believes_the_points_its_view_showed() {
        for (preset, believed) in [("openspiel", true), ("seed", true), ("olympiad", false)] {
            let mut view = Game::new(9, Rules::default(), 7.5);
            let mut p = Player::new(1, Kind::Go, Options::preset(preset).unwrap(), &view);
            for _ in 0..3 {
                p.hear(&mut view, 1, &line("accepted")).ok();
                p.hear(&mut view, 2, &line("accepted")).unwrap();
            }
            // Of the three white stones Black's view shows A1 (revealed);
            // Black's try at A2 takes the chain, A1 on its view with it.
            let shown = [
                (Color::White, pt("A1").unwrap()),
                (Color::Black, pt("B1").unwrap()),
            ];
            view.setup(&shown, false).unwrap();
            p.put_try(&mut view, pt("A2"));
            p.hear(&mut view, 1, &line("accepted")).unwrap();
            let heard = p.hear(&mut view, 1, &line("captures black 3 A1"));
            assert_eq!(heard.is_ok(), believed, "{preset}: {heard:?}");
        }
    }

    #[test]
    fn announcements_that_cannot_be_are_refused_and_change_nothing() {
        let mut view = Game::new(9, Rules::default(), 7.5);
        let mut p = Player::new(2, Kind::Go, Options::preset("seed").unwrap(), &view);
        p.hear(&mut view, 1, &line("accepted")).unwrap();
        let impossible = [
            (1, "captures white 4294967295"),
            (1, "captures white 2"),
            (2, "captures black 1"),
            (2, "captures black 0"),
            (1, "atari black 4294967295"),
            (1, "atari black 2"),
        ];
        for (trier, l) in impossible {
            let before = (view.board().hash(), p.on_board);
            assert!(p.hear(&mut view, trier, &line(l)).is_err(), "{l}");
            assert_eq!((view.board().hash(), p.on_board), before, "{l}");
        }
        // One black stone on the board: one try of mine can find it, a
        // second cannot.
        p.put_try(&mut view, pt("E5"));
        p.hear(&mut view, 2, &line("illegal occupied black"))
            .unwrap();
        p.put_try(&mut view, pt("D4"));
        assert!(
            p.hear(&mut view, 2, &line("illegal occupied black"))
                .is_err()
        );
        // After the end, nothing more.
        let mut over = Game::new(9, Rules::default(), 7.5);
        let mut q = Player::new(2, Kind::Go, Options::preset("seed").unwrap(), &over);
        q.hear(&mut over, 1, &line("pass")).unwrap();
        q.hear(&mut over, 1, &line("end W+7.5")).unwrap();
        assert!(q.hear(&mut over, 1, &line("accepted")).is_err());
    }

    #[test]
    fn captures_that_contradict_the_seats_own_stones_are_refused() {
        // White (seat 2) has G9 and H9; its try at H9 cannot capture at A9.
        let mut view = Game::new(9, Rules::default(), 7.5);
        let mut p = Player::new(2, Kind::Go, Options::preset("seed").unwrap(), &view);
        p.hear(&mut view, 1, &line("accepted")).unwrap();
        p.put_try(&mut view, pt("G9"));
        p.hear(&mut view, 2, &line("accepted")).unwrap();
        p.hear(&mut view, 1, &line("accepted")).unwrap();
        p.put_try(&mut view, pt("H9"));
        p.hear(&mut view, 2, &line("accepted")).unwrap();
        let before = (view.board().hash(), p.on_board);
        let e = p
            .hear(&mut view, 2, &line("captures white 1 A9"))
            .unwrap_err();
        assert!(e.contains("my view shows no black stone there"), "{e}");
        // Black's capture of a white stone where White has none.
        assert_eq!((view.board().hash(), p.on_board), before);
        p.hear(&mut view, 1, &line("accepted")).unwrap();
        let before = (view.board().hash(), p.on_board);
        let e = p
            .hear(&mut view, 1, &line("captures black 1 D4"))
            .unwrap_err();
        assert!(e.contains("no stone of mine stands there"), "{e}");
        assert_eq!((view.board().hash(), p.on_board), before);
        // One of its own stones, G9, it believes.
        p.hear(&mut view, 1, &line("captures black 1 G9")).unwrap();
        assert_eq!(view.board().color_at(pt("G9").unwrap()), None);
        // A Rengo seat cannot count the other board's stones, but no more
        // can be captured than the board has points.
        let mut rengo = Game::new(9, Rules::default(), 7.5);
        let mut q = Player::new(1, Kind::Rengo, Options::preset("seed").unwrap(), &rengo);
        let e = q
            .hear(&mut rengo, 2, &line("captures white 4294967295"))
            .unwrap_err();
        assert!(e.contains("but 81 are on the board"), "{e}");
    }

    #[test]
    fn where_every_point_is_named_a_capture_touches_the_stone_that_made_it() {
        let mut view = Game::new(9, Rules::default(), 7.5);
        let mut p = Player::new(2, Kind::Go, Options::preset("olympiad").unwrap(), &view);
        p.hear(&mut view, 1, &line("accepted")).unwrap();
        p.put_try(&mut view, pt("H9"));
        p.hear(&mut view, 2, &line("accepted")).unwrap();
        let e = p
            .hear(&mut view, 2, &line("captures white 1 A9"))
            .unwrap_err();
        assert!(e.contains("captured nothing it touches"), "{e}");
        p.hear(&mut view, 2, &line("captures white 1 J9")).unwrap();
    }

    #[test]
    fn unseen_stones_are_counted_from_the_announcements() {
        let mut view = Game::new(9, Rules::default(), 7.5);
        let mut p = Player::new(2, Kind::Go, Options::preset("seed").unwrap(), &view);
        p.hear(&mut view, 1, &line("accepted")).unwrap();
        assert_eq!(p.put_try(&mut view, pt("E5")), pt("E5"));
        p.hear(&mut view, 2, &line("illegal occupied black"))
            .unwrap();
        assert_eq!(view.board().color_at(pt("E5").unwrap()), Some(Color::Black));
        assert_eq!(p.refused(), &[pt("E5").unwrap()]);
        assert_eq!(p.unseen(view.board()), [0, 0]);
        p.hear(&mut view, 1, &line("accepted")).unwrap();
        assert_eq!(p.unseen(view.board()), [1, 0]);
        // A contradiction changes nothing.
        let before = view.board().to_ascii();
        assert!(
            p.hear(&mut view, 2, &line("accepted")).is_err(),
            "no try waits"
        );
        assert!(p.hear(&mut view, 1, &line("captures black 1 E5")).is_err());
        assert_eq!(view.board().to_ascii(), before);
        // White surrounds E5 and takes it: the view is cleared of it, and
        // the count of unseen stones stays.
        for w in ["D5", "F5", "E6"] {
            p.put_try(&mut view, pt(w));
            p.hear(&mut view, 2, &line("accepted")).unwrap();
            p.hear(&mut view, 1, &line("accepted")).unwrap();
        }
        let unseen = p.unseen(view.board());
        p.put_try(&mut view, pt("E4"));
        p.hear(&mut view, 2, &line("accepted")).unwrap();
        p.hear(&mut view, 2, &line("captures white 1 E5")).unwrap();
        assert_eq!(view.board().color_at(pt("E5").unwrap()), None);
        assert_eq!(p.unseen(view.board()), unseen);
    }

    #[test]
    fn a_suicide_stays_barred_until_a_capture_and_ataris_lift_the_guard() {
        let mut view = Game::new(9, Rules::default(), 7.5);
        let mut p = Player::new(2, Kind::Go, Options::preset("seed").unwrap(), &view);
        assert_eq!(p.atari_guard(), Some(Color::White));
        p.hear(&mut view, 1, &line("accepted")).unwrap();
        p.put_try(&mut view, pt("A1"));
        p.hear(&mut view, 2, &line("illegal suicide")).unwrap();
        p.put_try(&mut view, pt("E5"));
        p.hear(&mut view, 2, &line("accepted")).unwrap();
        assert!(p.refused().is_empty());
        assert!(
            p.barred(pt("A1").unwrap()),
            "suicide remembered at the next turn"
        );
        assert!(!p.candidates(&view).contains(&pt("A1")));
        // Black's move puts White in atari: the samples may show it for two
        // of Black's moves.
        p.hear(&mut view, 1, &line("accepted")).unwrap();
        p.hear(&mut view, 1, &line("atari white 1")).unwrap();
        assert_eq!(p.atari_guard(), None);
        p.put_try(&mut view, pt("D5"));
        p.hear(&mut view, 2, &line("accepted")).unwrap();
        p.hear(&mut view, 1, &line("accepted")).unwrap();
        assert_eq!(p.atari_guard(), None);
        p.put_try(&mut view, pt("C5"));
        p.hear(&mut view, 2, &line("accepted")).unwrap();
        p.hear(&mut view, 1, &line("accepted")).unwrap();
        assert_eq!(p.atari_guard(), Some(Color::White));
        // A capture may free the point.
        p.hear(&mut view, 1, &line("captures black 1 C5")).unwrap();
        assert!(!p.barred(pt("A1").unwrap()));
        // No guard where the preset does not announce ataris.
        let q = Player::new(2, Kind::Go, Options::preset("olympiad").unwrap(), &view);
        assert_eq!(q.atari_guard(), None);
    }
}
