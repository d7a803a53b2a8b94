//! A phantom seat's player: what it knows (its view, the tries refused
//! this turn, how many stones of each colour the true board holds, from
//! the announcements) and how it chooses a try.
//!
//! The choice is flat Monte Carlo over determinizations, as the programs
//! that won the Computer Olympiad's Phantom Go did (Cazenave 2005): before
//! each playout the unseen stones (their number is known: accepted tries
//! less captures, less what the view shows) are placed at random on the
//! view's empty points where a stone could stand without capturing, a
//! candidate try is chosen by UCB1, and a playout (uniform by default;
//! the full policy on request) decides the winner. A candidate that the
//! sample has occupied is scored with the mean so far (an occupied try
//! costs nothing but a retry). The baseline, `view`, searches the view as
//! if it were the whole board with the ordinary UCT search.

use super::announcement::{Item, Line, Outcome};
use super::enclosure::in_enclosure;
use super::options::Options;
use super::probe::Probe;
use super::{Kind, seat_color};
use crate::board::{Board, Color, Point};
use crate::game::Game;
use crate::rules::Suicide;
use crate::search::{self, Budget, Decision, Policy};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// How the player searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Flat Monte Carlo over determinizations of the unseen stones.
    Determinized,
    /// The ordinary search on the view, as if it were the whole board.
    View,
    /// Determinized in Phantom Go, the view in Phantom Rengo, where half
    /// the stones of both colours are unseen and random samples of them
    /// made the determinized player lose every game to GNU Go (docs/phantom.md).
    Auto,
}

/// The search settings of one choice.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    pub mode: Mode,
    pub policy: Policy,
    pub budget: Budget,
    pub seed: u64,
    pub max_nodes: usize,
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
    /// This seat's last accepted stone, and whether it was tried as a
    /// rescue (a rescue left in atari again is not rescued again).
    last_stone: Option<(Point, bool)>,
    /// Stones of each colour on the true board, as announced.
    on_board: [i64; 2],
    /// Handicap stones at the start (for White's bonus in the count).
    handicap: u32,
    over: bool,
}

/// Whether a stone of `c` at `p` would capture.
fn captures(board: &Board, c: Color, p: Point) -> bool {
    board
        .neighbors(p)
        .iter()
        .any(|&q| board.color_at(q) == Some(c.opponent()) && board.liberties(q) == 1)
}

/// Whether a stone of `c` at `p` would leave a chain of the other colour
/// with one liberty that has two now.
fn would_atari(board: &Board, c: Color, p: Point) -> bool {
    board
        .neighbors(p)
        .iter()
        .any(|&q| board.color_at(q) == Some(c.opponent()) && board.liberties(q) == 2)
}

/// Places `unseen` stones of each colour at random empty points of
/// `board` where they stand without capturing and are no suicide (a view
/// is a subset of the truth: the truth's other stones stand so). With
/// `guard`, no stone of the other colour is placed where it would put a
/// chain of `guard` in atari (no atari on that colour was announced
/// lately). Gives up on a colour after many failed draws (a crowded board).
pub fn place_unseen(
    board: &mut Board,
    unseen: [u32; 2],
    rule: Suicide,
    guard: Option<Color>,
    rng: &mut SmallRng,
) {
    for c in [Color::Black, Color::White] {
        let guarded = guard == Some(c.opponent());
        let mut left = unseen[c.index()];
        let mut draws = 0;
        while left > 0 && draws < 64 + 8 * unseen[c.index()] {
            draws += 1;
            let empty = board.empty_points();
            if empty.is_empty() {
                return;
            }
            let p = empty[rng.random_range(0..empty.len())];
            if board.check(c, p, rule).is_err()
                || captures(board, c, p)
                || (guarded && would_atari(board, c, p))
            {
                continue;
            }
            board.place(c, p);
            left -= 1;
        }
    }
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
        let b = view.board();
        let count = |c: Color| b.points().filter(|&p| b.color_at(p) == Some(c)).count() as i64;
        Player {
            seat,
            kind,
            options,
            refused: Vec::new(),
            suicides: Vec::new(),
            atari_heard: 0,
            pending: None,
            probe: None,
            last_stone: None,
            on_board: [count(Color::Black), count(Color::White)],
            handicap: view.handicap(),
            over: false,
        }
    }

    pub fn color(&self) -> Color {
        seat_color(self.seat)
    }

    pub fn is_over(&self) -> bool {
        self.over
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

    /// The probe's first try still open on `view`: not refused, not
    /// suicide on the view. A probe may go into the seat's own enclosure:
    /// the chain it hunts or rescues is where the view shows none.
    fn probe_try(&self, view: &Game) -> Option<Point> {
        let board = view.board();
        let me = self.color();
        self.probe?
            .tries(board, me)
            .into_iter()
            .find(|&q| !self.barred(q) && board.check(me, q, view.rules.suicide).is_ok())
    }

    /// Whether a try at `p` lies in an empty region of the view that only
    /// this seat's stones border ([`enclosure`](super::enclosure)), where
    /// the view shows the face-to-face opponent's moves (Phantom Rengo
    /// with views of their own): its own area, which the partner may be
    /// filling from the other board. In Phantom Go the view shows no
    /// opponent move, so every region would look enclosed.
    fn fills_own_enclosure(&self, board: &Board, p: Point) -> bool {
        self.kind == Kind::Rengo
            && !self.options.shared_view
            && in_enclosure(board, self.color(), p)
    }

    /// Chooses a try for this seat on `view` (never one refused this turn).
    pub fn choose(&self, view: &Game, settings: &Settings, stop: &AtomicBool) -> Decision {
        if self.over {
            return Decision::Pass;
        }
        match (settings.mode, self.kind) {
            (Mode::Determinized, _) | (Mode::Auto, Kind::Go) => {
                self.choose_determinized(view, settings, stop)
            }
            (Mode::View, _) | (Mode::Auto, Kind::Rengo) => {
                self.choose_on_view(view, settings, stop)
            }
        }
    }

    /// The view search: the probe's first open try where an atari on the
    /// seat's last stone asks for one, else the ordinary search on the
    /// view, its choice kept to the points not refused this turn and no
    /// self-atari on the view: a stone that has one liberty on the view
    /// has at most one on the true board, where the opponent's unseen
    /// stones take away more (in session 10's 32 Rengo games against GNU
    /// Go, 307 of 327 such tries were announced `atari self`: 58% of the
    /// 529 self-ataris of the kosumi seats), and in Phantom Rengo none in
    /// the seat's own enclosure ([`Player::fills_own_enclosure`]). The
    /// determinized player does without the probes: its samples weigh
    /// those tries already, and with the probes it won 45 of 100 Phantom Go
    /// games against itself without.
    fn choose_on_view(&self, view: &Game, settings: &Settings, stop: &AtomicBool) -> Decision {
        if let Some(p) = self.probe_try(view) {
            return Decision::Play(p);
        }
        let mut game = view.clone();
        game.set_to_move(self.color());
        let search = search::Search::new(&game, settings.seed, settings.max_nodes);
        let s = search::Settings {
            budget: settings.budget,
            seed: settings.seed,
            cleanup: false,
            max_nodes: settings.max_nodes,
            patterns: false,
        };
        let (decision, _) = search.run(&s, stop);
        let board = view.board();
        let open = |p: Point| {
            !self.barred(p)
                && !board.is_self_atari(self.color(), p)
                && !self.fills_own_enclosure(board, p)
        };
        match decision {
            Decision::Play(p) if !open(p) => {
                // The best of the others.
                let mut stats = search.root_stats();
                stats.sort_by(|a, b| b.visits.total_cmp(&a.visits));
                stats
                    .iter()
                    .find(|m| m.mv.is_none_or(open))
                    .map_or(Decision::Pass, |m| {
                        m.mv.map_or(Decision::Pass, Decision::Play)
                    })
            }
            other => other,
        }
    }

    /// The candidate tries: the view's empty points where the stone is no
    /// suicide on the view and fills no own eye, not refused; pass only
    /// where there is none, or where filling one's own area costs points
    /// (territory scoring). Under area scoring a try in one's own area
    /// costs nothing, while an early pass may end the game (the others
    /// pass as soon as they believe they lead). Measured: letting pass
    /// compete whenever it beat the best try by 5%, and leaving alone the
    /// points that were the seat's in 90% of the playouts, won 55 of 63
    /// games against the view search where this rule won 100 of 100.
    pub fn candidates(&self, view: &Game) -> Vec<Option<Point>> {
        let board = view.board();
        let me = self.color();
        let rule = view.rules.suicide;
        let mut tries: Vec<Option<Point>> = board
            .empty_points()
            .iter()
            .copied()
            .filter(|&p| {
                !self.barred(p) && board.check(me, p, rule).is_ok() && !board.is_eye(me, p)
            })
            .map(Some)
            .collect();
        if tries.is_empty() || view.rules.scoring == crate::rules::Scoring::Territory {
            tries.push(None);
        }
        tries
    }

    fn choose_determinized(&self, view: &Game, settings: &Settings, stop: &AtomicBool) -> Decision {
        self.search_determinized(view, settings, stop).0
    }

    /// The determinized search: its decision and the playouts it made.
    pub fn search_determinized(
        &self,
        view: &Game,
        settings: &Settings,
        stop: &AtomicBool,
    ) -> (Decision, u64) {
        let me = self.color();
        let board = view.board();
        let rule = view.rules.suicide;
        let komi = view.komi + view.rules.handicap_bonus.points(self.handicap);
        let unseen = self.unseen(board);
        let guard = self.atari_guard();
        let candidates = self.candidates(view);
        let mut visits = vec![0.0f64; candidates.len()];
        let mut wins = vec![0.0f64; candidates.len()];
        let (mut total_visits, mut total_wins) = (0.0f64, 0.0f64);
        let mut rng = SmallRng::seed_from_u64(settings.seed ^ board.hash());
        let mut sample = Box::new(board.clone());
        let start = Instant::now();
        let mut playouts = 0u64;
        let limit = settings.budget.playouts;
        loop {
            if stop.load(Ordering::Relaxed)
                || limit.is_some_and(|n| playouts >= n)
                || settings.budget.time.is_some_and(|t| start.elapsed() >= t)
                || (limit.is_none() && settings.budget.time.is_none() && playouts >= 10_000)
            {
                break;
            }
            // UCB1 over the candidates, each tried once first.
            let log_n = (total_visits + 1.0).ln();
            let pick = (0..candidates.len())
                .max_by(|&a, &b| {
                    let ucb = |i: usize| {
                        if visits[i] == 0.0 {
                            f64::INFINITY
                        } else {
                            wins[i] / visits[i] + 0.5 * (log_n / visits[i]).sqrt()
                        }
                    };
                    ucb(a).total_cmp(&ucb(b))
                })
                .expect("a candidate at least");
            sample.copy_from(board);
            place_unseen(&mut sample, unseen, rule, guard, &mut rng);
            playouts += 1;
            let reward = match candidates[pick] {
                Some(p) if sample.check(me, p, rule).is_err() => {
                    // Occupied (or suicide) in this sample: the try would
                    // be refused and tried again; worth the mean so far.
                    if total_visits > 0.0 {
                        total_wins / total_visits
                    } else {
                        0.5
                    }
                }
                mv => {
                    match mv {
                        Some(p) => {
                            sample.place(me, p);
                        }
                        None => sample.clear_ko(),
                    }
                    search::playout(
                        &mut sample,
                        me.opponent(),
                        settings.policy,
                        &mut rng,
                        None,
                        [mv, None],
                        |_, _| {},
                    );
                    let lead = search::playout_area(&sample) as f64 - komi;
                    f64::from(u8::from((lead > 0.0) == (me == Color::Black)))
                }
            };
            visits[pick] += 1.0;
            wins[pick] += reward;
            total_visits += 1.0;
            total_wins += reward;
        }
        let best = (0..candidates.len())
            .max_by(|&a, &b| {
                visits[a]
                    .total_cmp(&visits[b])
                    .then((wins[a] / visits[a].max(1.0)).total_cmp(&(wins[b] / visits[b].max(1.0))))
            })
            .expect("a candidate at least");
        log::info!(
            "phantom seat {}: {playouts} playouts, unseen {unseen:?}, best win rate {:.3}",
            self.seat,
            wins[best] / visits[best].max(1.0)
        );
        (
            candidates[best].map_or(Decision::Pass, Decision::Play),
            playouts,
        )
    }

    /// Chooses a try and puts it on `view` ([`Player::put_try`]).
    pub fn choose_try(
        &mut self,
        view: &mut Game,
        settings: &Settings,
        stop: &AtomicBool,
    ) -> Option<Point> {
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
        let mv = mv.filter(|&p| stand(view, color, p));
        if mv.is_none() {
            view.play(color, None).expect("pass is legal");
        }
        self.pending = Some(mv);
        mv
    }

    /// Takes in one announcement line of `trier`'s try. Checks it against
    /// what the seat knows first: a line that contradicts the view is an
    /// error and changes nothing.
    pub fn hear(&mut self, view: &mut Game, trier: usize, line: &Line) -> Result<(), String> {
        let me = self.color();
        let trier_color = seat_color(trier);
        match line {
            Line::Outcome(outcome) if trier == self.seat => match (outcome, self.pending) {
                (Outcome::Accepted, Some(Some(p))) => {
                    self.on_board[me.index()] += 1;
                    self.refused.clear();
                    self.pending = None;
                    let rescue = matches!(self.probe, Some(Probe::Rescue(_)));
                    self.last_stone = Some((p, rescue));
                    self.probe = None;
                }
                (Outcome::Pass, Some(None) | None) => {
                    self.refused.clear();
                    self.pending = None;
                    self.last_stone = None;
                    self.probe = None;
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
            },
            Line::Outcome(Outcome::Accepted) => {
                self.on_board[trier_color.index()] += 1;
                if trier_color != me {
                    self.atari_heard = self.atari_heard.saturating_sub(1);
                }
            }
            Line::Outcome(_) => {}
            Line::Item(Item::Captures(capturer, n, points)) => {
                let victim = capturer.opponent();
                if let Some(&p) = points
                    .iter()
                    .find(|&&p| view.board().color_at(p) == Some(*capturer))
                {
                    return Err(format!(
                        "point {} holds a stone of the capturing colour on my view",
                        crate::vertex::vertex_name(Some(p), view.size())
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
                self.on_board[victim.index()] -= i64::from(*n);
                self.suicides.clear();
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
            Line::Item(Item::AtariSelf | Item::Atari(..)) => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;
    use crate::vertex::parse_vertex;

    fn pt(v: &str) -> Option<Point> {
        parse_vertex(v, 9).unwrap()
    }

    fn line(s: &str) -> Line {
        let words: Vec<&str> = s.split(' ').collect();
        Line::parse(&words, 9).unwrap()
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
        // White's capture of E5 clears it from the view.
        p.hear(&mut view, 2, &line("captures white 1 E5")).unwrap();
        assert_eq!(view.board().color_at(pt("E5").unwrap()), None);
        assert_eq!(p.unseen(view.board()), [1, 0]);
    }

    #[test]
    fn determinized_choice_is_legal_on_the_view_and_never_refused() {
        let mut view = Game::new(9, Rules::default(), 7.5);
        let mut p = Player::new(1, Kind::Go, Options::preset("seed").unwrap(), &view);
        p.refused.push(pt("E5").unwrap());
        p.on_board = [0, 5];
        view.set_to_move(Color::Black);
        let settings = Settings {
            mode: Mode::Determinized,
            policy: Policy::Light,
            budget: Budget {
                playouts: Some(600),
                time: None,
            },
            seed: 3,
            max_nodes: 10_000,
        };
        let stop = AtomicBool::new(false);
        for seed in 0..4 {
            let d = p.choose(&view, &Settings { seed, ..settings }, &stop);
            assert_ne!(d, Decision::Play(pt("E5").unwrap()));
            if let Decision::Play(q) = d {
                assert!(view.check(Color::Black, q).is_ok());
            }
        }
    }

    #[test]
    fn samples_place_the_unseen_stones_without_capturing() {
        let board = Board::from_ascii(
            "
            . X . . .
            X O . . .
            . X . . .
            . . . . .
            . . . . .",
        );
        let mut rng = SmallRng::seed_from_u64(1);
        for _ in 0..50 {
            let mut b = board.clone();
            place_unseen(&mut b, [2, 3], Suicide::Forbidden, None, &mut rng);
            assert_eq!(b.stone_count(), board.stone_count() + 5);
            assert_eq!(b.captures(Color::Black) + b.captures(Color::White), 0);
        }
    }

    #[test]
    fn guarded_samples_put_no_chain_of_that_colour_in_atari() {
        let board = Board::from_ascii(
            "
            . . . . .
            . X X . .
            . . . . .
            . . . . .
            . . . X .",
        );
        let mut rng = SmallRng::seed_from_u64(2);
        let ataris = |b: &Board| {
            b.points()
                .filter(|&p| b.color_at(p) == Some(Color::Black) && b.liberties(p) == 1)
                .count()
        };
        let mut unguarded = 0;
        for _ in 0..200 {
            let mut b = board.clone();
            place_unseen(
                &mut b,
                [0, 6],
                Suicide::Forbidden,
                Some(Color::Black),
                &mut rng,
            );
            assert_eq!(ataris(&b), 0, "{}", b.to_ascii());
            let mut b = board.clone();
            place_unseen(&mut b, [0, 6], Suicide::Forbidden, None, &mut rng);
            unguarded += ataris(&b);
        }
        assert!(
            unguarded > 0,
            "without the guard some samples put Black in atari"
        );
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

    /// View-search settings for tests: light playouts, a fixed budget.
    fn view_settings(playouts: u64, seed: u64) -> Settings {
        Settings {
            mode: Mode::View,
            policy: Policy::Light,
            budget: Budget {
                playouts: Some(playouts),
                time: None,
            },
            seed,
            max_nodes: 10_000,
        }
    }

    #[test]
    fn an_atari_on_the_last_stone_makes_the_next_turn_probe() {
        let settings = view_settings(50, 1);
        let stop = AtomicBool::new(false);
        let mut view = Game::new(9, Rules::default(), 7.5);
        let mut p = Player::new(1, Kind::Go, Options::preset("seed").unwrap(), &view);
        // Black's E5 puts a white chain in atari: the next turn tries
        // E5's neighbours, and after E6 shows a white stone, the points
        // next to it.
        p.put_try(&mut view, pt("E5"));
        p.hear(&mut view, 1, &line("accepted")).unwrap();
        p.hear(&mut view, 1, &line("atari white 1")).unwrap();
        assert_eq!(p.probe(), Some(Probe::Hunt(pt("E5").unwrap())));
        p.hear(&mut view, 2, &line("accepted")).unwrap();
        let grid = Board::new(9);
        let near = |d: Decision, around: &str| match d {
            Decision::Play(q) => grid.neighbors(pt(around).unwrap()).contains(&q),
            _ => false,
        };
        assert!(near(p.choose(&view, &settings, &stop), "E5"));
        p.put_try(&mut view, pt("E6"));
        p.hear(&mut view, 1, &line("illegal occupied white"))
            .unwrap();
        let d = p.choose(&view, &settings, &stop);
        assert!(near(d, "E6"), "{d:?}");
        assert_ne!(d, Decision::Play(pt("E5").unwrap()));
        // An accepted try ends the hunt; a self-atari of a lone stone asks
        // for no rescue, of two stones it does, once.
        p.put_try(&mut view, pt("D6"));
        p.hear(&mut view, 1, &line("accepted")).unwrap();
        p.hear(&mut view, 1, &line("atari self")).unwrap();
        assert_eq!(p.probe(), None);
        p.hear(&mut view, 2, &line("accepted")).unwrap();
        p.put_try(&mut view, pt("D5"));
        p.hear(&mut view, 1, &line("accepted")).unwrap();
        p.hear(&mut view, 1, &line("atari self")).unwrap();
        assert_eq!(p.probe(), Some(Probe::Rescue(pt("D5").unwrap())));
        p.hear(&mut view, 2, &line("accepted")).unwrap();
        let d = p.choose(&view, &settings, &stop);
        let chain_libs = ["C5", "D4", "C6", "D7", "F5", "E4"].map(pt);
        assert!(
            chain_libs.iter().any(|&q| d == Decision::Play(q.unwrap())),
            "{d:?}"
        );
        p.put_try(
            &mut view,
            match d {
                Decision::Play(q) => Some(q),
                _ => None,
            },
        );
        p.hear(&mut view, 1, &line("accepted")).unwrap();
        p.hear(&mut view, 1, &line("atari self")).unwrap();
        assert_eq!(p.probe(), None, "a rescue is not rescued again");
    }

    /// A 5×5 view from rows of `X`, `O` and `.`, the top row first.
    fn view_of(rows: &[&str; 5]) -> Game {
        let mut view = Game::new(5, Rules::default(), 0.5);
        for (r, row) in rows.iter().enumerate() {
            for (c, cell) in row.split(' ').enumerate() {
                let color = match cell {
                    "X" => Color::Black,
                    "O" => Color::White,
                    _ => continue,
                };
                let p = view.board().point(c, 4 - r);
                assert!(stand(&mut view, color, p));
            }
        }
        view
    }

    #[test]
    fn a_rengo_seat_does_not_fill_its_own_enclosure() {
        // Black's view: B2..D2 is walled by black stones alone, the top
        // row's points are self-ataris; pass is the open choice. In
        // Phantom Go the same view has every region "enclosed", and the
        // rule is off.
        let view = view_of(&[
            ". . O . .",
            "O O O O O",
            "X X X X X",
            "X . . . X",
            "X X X X X",
        ]);
        let enclosed = ["B2", "C2", "D2"].map(|v| {
            crate::vertex::parse_vertex(v, 5)
                .expect("vertex")
                .expect("not a pass")
        });
        let stop = AtomicBool::new(false);
        let mut filled_in_go = 0;
        for seed in 0..8 {
            let settings = view_settings(300, seed);
            let rengo = Player::new(1, Kind::Rengo, Options::preset("seed").unwrap(), &view);
            let d = rengo.choose(&view, &settings, &stop);
            assert_eq!(d, Decision::Pass, "seed {seed}");
            let go = Player::new(1, Kind::Go, Options::preset("seed").unwrap(), &view);
            if let Decision::Play(q) = go.choose(&view, &settings, &stop) {
                filled_in_go += enclosed.contains(&q) as usize;
            }
        }
        assert!(
            filled_in_go > 0,
            "the view search never fills it: the test shows nothing"
        );
    }

    #[test]
    fn the_view_search_tries_no_self_atari_on_the_view() {
        // Black's view: its points to the top row are self-ataris (one
        // liberty each), the rest its own eyes; pass is the open choice.
        let view = view_of(&[
            ". . O . .",
            "O O O O O",
            "X X X X X",
            "X . X . X",
            "X X X X X",
        ]);
        let p = Player::new(1, Kind::Rengo, Options::preset("seed").unwrap(), &view);
        let stop = AtomicBool::new(false);
        for seed in 0..6 {
            let settings = view_settings(300, seed);
            let d = p.choose(&view, &settings, &stop);
            if let Decision::Play(q) = d {
                assert!(!view.board().is_self_atari(Color::Black, q), "{d:?}");
            }
        }
    }
}
