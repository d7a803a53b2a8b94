//! The engine below the protocol. [`Engine`] holds the settings, the clock,
//! the move chooser with its trees, and a [`Role`] that owns the games:
//! plain Go, a phantom referee, a phantom player or a host for a person.
//! Its methods speak Go — play, choose and play a move, undo, handicap,
//! rules and komi, count, analyse, and the phantom game's tries and
//! announcements — and every reading command reads one game,
//! [`Engine::shown`]: the person's view when hosting, the true game when
//! refereeing, the seat's view when playing a seat.
//!
//! The parts: `config` (the settings), `role` (the roles and what each
//! lets a command touch), `error` (why a request is refused), and
//! `phantom` (the phantom roles' methods).

pub mod clock;
mod config;
mod error;
mod hosting;
mod phantom;
mod role;

pub use config::Config;
pub use error::EngineError;
pub use hosting::Hosting;
pub use role::{Refusal, Role, Touch};

use crate::engine::clock::Clock;
use crate::go::board::{BoardSize, Color, Point};
use crate::go::dice::Dice;
use crate::go::game::{Game, Standing};
use crate::go::rules::Rules;
use crate::go::score::{self, Score, Status};
use crate::search::chooser::{Chooser, Lent, MoveSearch};
use crate::search::{self, Budget, Decision, Watch};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Visits of the search whose ownership judges dead stones with the
/// network (KataGo's: at least 100).
const STATUS_VISITS: u64 = 100;

/// The engine: its settings, clock, move chooser and role.
pub struct Engine {
    pub config: Config,
    pub clock: Clock,
    role: Role,
    /// Whether the controller has set the komi (then rules changes keep it).
    komi_from_controller: bool,
    stop: Arc<AtomicBool>,
    started: Instant,
    chooser: Chooser,
    /// The last judgement of dead stones, with what it was made for.
    judged: Mutex<Option<(Judged, Vec<Status>)>>,
}

/// What a judgement of dead stones depends on: where the game stands, its
/// dice, and the engine's seed. A controller asks `final_score` and
/// `final_status_list` of one position in turn; the second reuses the
/// first's search.
#[derive(PartialEq)]
struct Judged {
    standing: Standing,
    dice: Option<Dice>,
    seed: u64,
}

impl Judged {
    fn of(game: &Game, seed: u64) -> Judged {
        Judged {
            standing: game.standing(),
            dice: game.dice(),
            seed,
        }
    }
}

impl Engine {
    pub fn new(
        config: Config,
        rules: Rules,
        size: impl Into<BoardSize>,
        komi: Option<f64>,
    ) -> Engine {
        Engine {
            role: Role::Go(Game::new(size, rules, komi.unwrap_or(rules.default_komi))),
            config,
            clock: Clock::default(),
            komi_from_controller: komi.is_some(),
            stop: Arc::new(AtomicBool::new(false)),
            started: Instant::now(),
            chooser: Chooser::default(),
            judged: Mutex::new(None),
        }
    }

    pub fn role(&self) -> &Role {
        &self.role
    }

    /// The game every reading command reads.
    pub fn shown(&self) -> &Game {
        self.role.shown()
    }

    /// Whether a command touching `touch` may run now.
    pub fn permits(&self, touch: Touch) -> Result<(), Refusal> {
        self.role.permits(touch)
    }

    /// The flag that stops a running search (set by `# interrupt`).
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    pub fn cpu_seconds(&self) -> f64 {
        cpu_time().unwrap_or_else(|| self.started.elapsed().as_secs_f64())
    }

    /// The plain game, to edit it (undo, setup, the dice); refused in a
    /// phantom role, whose games change only by tries.
    pub fn game_mut(&mut self) -> Result<&mut Game, Refusal> {
        match &mut self.role {
            Role::Go(game) => Ok(game),
            Role::Referee { .. } => Err(Refusal::Refereed),
            Role::Player { .. } => Err(Refusal::Playing),
            Role::Host(_) => Err(Refusal::Hosted),
        }
    }

    /// Starts a new game on an empty board (of `size`, or the same): a
    /// phantom game ends. When hosting, a board of the same size goes back
    /// to the hosted game's start (the person's tries replayed next are
    /// answered from the record); another size starts the next game.
    pub fn new_game(&mut self, size: Option<BoardSize>) {
        if let Role::Host(hosting) = &mut self.role
            && size.is_none_or(|n| n == hosting.first().truth().size())
        {
            hosting.rewind();
            return;
        }
        let game = self.role.game();
        let game = match size {
            Some(n) => game.resized(n),
            None => game.cleared(),
        };
        self.start(game);
    }

    /// Goes on from `game` (a loaded record) as a new game.
    pub fn load_game(&mut self, game: Game) {
        self.start(game);
    }

    /// Makes `game` the engine's game, in plain Go or, when hosting, as
    /// the next hosted game.
    fn start(&mut self, game: Game) {
        self.role = Role::Go(game);
        if self.config.phantom_host.is_some() {
            self.start_host();
        }
    }

    /// Sets the rules; the komi follows them unless the controller set it.
    pub fn set_rules(&mut self, rules: Rules) {
        let komi_from_controller = self.komi_from_controller;
        self.settle(|game| {
            game.rules = rules;
            if !komi_from_controller {
                game.komi = rules
                    .handicap_komi(game.handicap())
                    .unwrap_or(rules.default_komi);
            }
        });
    }

    pub fn set_komi(&mut self, komi: f64) {
        self.komi_from_controller = true;
        self.settle(|game| game.komi = komi);
    }

    /// Changes the settings of the role's game (a hosted game restarts
    /// under them; the role permits it only before the person's first try).
    fn settle(&mut self, change: impl Fn(&mut Game)) {
        match &mut self.role {
            Role::Go(game) => change(game),
            Role::Referee { truth, .. } => change(truth),
            Role::Player { view, .. } => change(view),
            Role::Host(hosting) => {
                let mut game = hosting.first().start_position();
                change(&mut game);
                self.start(game);
            }
        }
    }

    /// Plays `mv` for `c`: a move of plain Go (under the dice's referee
    /// mode, obeying a roll of kosumi's, drawn now if none is pending); a
    /// stone a phantom player learns of; the person's try when hosting.
    pub fn play(&mut self, c: Color, mv: Option<Point>) -> Result<(), EngineError> {
        match &mut self.role {
            Role::Go(game) => {
                if mv.is_some() {
                    game.referee_roll(c);
                }
                game.play(c, mv).map_err(|why| EngineError::Illegal {
                    why,
                    // The roll the stone had to obey, which stays pending.
                    roll: game
                        .pending_roll(c)
                        .zip(game.dice())
                        .map(|(t, d)| (c, t, d.spec())),
                })
            }
            Role::Player { .. } => self.hear_stone(c, mv),
            Role::Host(_) => self.person_tries(c, mv),
            Role::Referee { .. } => Err(Refusal::Refereed.into()),
        }
    }

    /// The move's budget: fixed playouts or seconds, else the clock's
    /// share; none where nothing sets one (the chooser has defaults).
    pub fn move_budget(&self, color: Color) -> Budget {
        if let Some(fixed) = self.config.search.fixed_budget() {
            return fixed;
        }
        let game = self.role.game();
        Budget {
            playouts: None,
            time: self.clock.budget(
                color.index(),
                game.board().empty_points().len(),
                game.size().points(),
            ),
        }
    }

    /// How the settings have a move of `budget` chosen.
    fn choosing(config: &Config, budget: Budget) -> MoveSearch<'_> {
        MoveSearch {
            config: &config.search,
            budget,
            network: config.network.as_deref().filter(|_| config.net_search),
            human_network: config.human_network.as_deref(),
        }
    }

    /// Chooses a move for `color` in plain Go without playing it (a roll
    /// drawn for it under dice), reporting to `watch` while searching. In
    /// cleanup mode it does not pass while opponent stones it judges dead
    /// remain.
    pub fn choose(&mut self, color: Color, cleanup: bool, watch: Option<Watch>) -> Decision {
        let budget = self.move_budget(color);
        let Role::Go(game) = &mut self.role else {
            unreachable!("the role permits choosing a plain move only in plain Go")
        };
        if game.to_move() != color {
            game.set_to_move(color);
        }
        roll_for_search(game, color);
        let how = Self::choosing(&self.config, budget);
        self.chooser.choose(game, cleanup, &how, &self.stop, watch)
    }

    /// `genmove`: chooses `color`'s move and plays it (a resignation is not
    /// played); a phantom player's try, put on its view.
    pub fn genmove(
        &mut self,
        color: Color,
        cleanup: bool,
        watch: Option<Watch>,
    ) -> Result<Decision, EngineError> {
        if let Role::Player { .. } = self.role {
            return self.player_try(color);
        }
        let decision = self.choose(color, cleanup, watch);
        let game = self.game_mut()?;
        match decision {
            Decision::Resign => {}
            Decision::Pass => game.play(color, None).expect("pass is legal"),
            Decision::Play(p) => game.play(color, Some(p)).expect("search plays legal moves"),
        }
        Ok(decision)
    }

    /// `reg_genmove`: the move `genmove` would choose, the game left
    /// exactly as it was (rolls included).
    pub fn choose_only(&mut self, color: Color) -> Result<Decision, EngineError> {
        let saved = self.game_mut()?.clone();
        let decision = self.choose(color, false, None);
        *self.game_mut()? = saved;
        Ok(decision)
    }

    /// Takes back `n` moves, all or none.
    pub fn undo(&mut self, n: usize) -> Result<(), EngineError> {
        let game = self.game_mut()?;
        let mut copy = game.clone();
        for _ in 0..n {
            if !copy.undo() {
                return Err(EngineError::CannotUndo);
            }
        }
        *game = copy;
        Ok(())
    }

    /// Puts `n` handicap stones on their fixed points (GTP's placement).
    pub fn fixed_handicap(&mut self, n: usize) -> Result<Vec<Point>, EngineError> {
        let game = self.empty_board()?;
        let points = crate::go::handicap::fixed(game.size(), n)
            .map_err(EngineError::Handicap)?
            .into_iter()
            .map(|(x, y)| game.board().point(x, y))
            .collect::<Vec<_>>();
        self.place_handicap(&points)?;
        Ok(points)
    }

    /// Puts `n` handicap stones where kosumi chooses.
    pub fn free_handicap(&mut self, n: usize) -> Result<Vec<Point>, EngineError> {
        let game = self.empty_board()?;
        let points = crate::go::handicap::free(game.board(), n).map_err(EngineError::Handicap)?;
        self.place_handicap(&points)?;
        Ok(points)
    }

    /// Puts handicap stones where the controller says.
    pub fn set_free_handicap(&mut self, points: &[Point]) -> Result<(), EngineError> {
        let size = self.empty_board()?.size();
        if points.len() < 2 || points.len() >= size.points() {
            return Err(EngineError::StoneCount {
                count: points.len(),
                size,
            });
        }
        self.place_handicap(points)
    }

    fn empty_board(&mut self) -> Result<&mut Game, EngineError> {
        let game = self.game_mut()?;
        if game.board().stone_count() > 0 {
            return Err(EngineError::BoardNotEmpty);
        }
        Ok(game)
    }

    /// Places handicap stones; under rules that fix a handicap game's komi
    /// (EGC 2011: N − 0.5) the komi follows (a `komi` the controller sends
    /// afterwards still has the last word).
    fn place_handicap(&mut self, points: &[Point]) -> Result<(), EngineError> {
        let game = self.game_mut()?;
        let stones: Vec<(Color, Point)> = points.iter().map(|&p| (Color::Black, p)).collect();
        game.setup(&stones, true)
            .map_err(|why| EngineError::Illegal { why, roll: None })?;
        if let Some(k) = game.rules.handicap_komi(game.handicap()) {
            game.komi = k;
        }
        Ok(())
    }

    /// Puts stones on the board outside the flow of moves.
    pub fn setup(&mut self, stones: &[(Color, Point)]) -> Result<(), EngineError> {
        self.game_mut()?
            .setup(stones, false)
            .map_err(|why| EngineError::Illegal { why, roll: None })
    }

    /// Plays a sequence of moves, all or none; the error names the first
    /// illegal one by its index.
    pub fn play_sequence(
        &mut self,
        moves: &[(Color, Option<Point>)],
    ) -> Result<(), (usize, EngineError)> {
        let game = self.game_mut().map_err(|r| (0, r.into()))?;
        let mut copy = game.clone();
        for (i, &(c, mv)) in moves.iter().enumerate() {
            copy.play(c, mv)
                .map_err(|why| (i, EngineError::Illegal { why, roll: None }))?;
        }
        *game = copy;
        Ok(())
    }

    /// Ownership of every point of the shown game (+1 Black), from
    /// playouts: what `final_score` and the dead-stone lists judge by where
    /// the network does not apply.
    pub fn ownership(&self) -> Vec<f64> {
        search::mc::ownership(
            self.shown(),
            self.config.search.chooser.ownership_playouts,
            self.config.search.seed,
        )
    }

    /// Each point's expected owner for people to see (+1 Black): the
    /// network's where one is loaded and the game rolls no dice (its
    /// ownership head, averaged over the eight symmetries), the playouts'
    /// estimate otherwise. Random playouts leave the open parts of a large
    /// board near 0; the network sees who they belong to.
    pub fn shown_ownership(&self) -> Vec<f64> {
        let game = self.shown();
        match &self.config.network {
            Some(net) if net.applies_to(game) => net.ownership_averaged(game),
            _ => self.ownership(),
        }
    }

    /// Alive, dead or seki for every point of the shown game: by the
    /// ownership of a short search with the network where one is loaded
    /// and the game rolls no dice (KataGo's way: the position searched as
    /// one play goes on from, so that stones that would die are seen
    /// dying), by playouts otherwise. Random playouts misjudge the large
    /// groups of a 19×19 endgame (a game counted B+33.5 by them was W+36.5
    /// by GNU Go and KataGo). The judgement is kept for its position
    /// (`Judged`).
    pub fn statuses(&self) -> Vec<Status> {
        // A finished phantom game has one count: its referee's.
        if let Some((_, statuses)) = self.role.phantom_end() {
            return statuses.to_vec();
        }
        let game = self.shown();
        let judged = Judged::of(game, self.config.search.seed);
        let mut last = self.judged.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((at, statuses)) = last.as_ref()
            && *at == judged
        {
            return statuses.clone();
        }
        let statuses = match &self.config.network {
            Some(net) if net.applies_to(game) => {
                let ownership =
                    search::puct::ownership(game, net, STATUS_VISITS, self.config.search.seed);
                score::statuses_from_search(game.board(), &ownership)
            }
            _ => score::statuses(game.board(), &self.ownership()),
        };
        *last = Some((judged, statuses.clone()));
        statuses
    }

    /// Black's expected margin in a game not yet over, where the network
    /// applies: the lead a search of `max(50, 10 × threads)` visits finds,
    /// rounded to the points a result can take (whole points with a whole
    /// komi, else half points), as KataGo's `final_score` answers mid-game.
    /// `None` once the game is over (then it is counted) or without the
    /// network.
    pub fn estimated_margin(&self) -> Option<f64> {
        let game = self.shown();
        let net = self.config.network.as_ref()?;
        if game.is_over() || !net.applies_to(game) || self.role.phantom_end().is_some() {
            return None;
        }
        let visits = (10 * self.config.search.threads as u64).max(50);
        let lead = search::puct::white_lead(game, net, visits, self.config.search.seed);
        let rounded = if game.komi.fract() == 0.0 {
            lead.round()
        } else {
            (lead + 0.5).round() - 0.5
        };
        Some(-rounded)
    }

    /// The result of a finished phantom game, as its referee announced it.
    pub fn phantom_result(&self) -> Option<&str> {
        self.role.phantom_end().map(|(result, _)| result)
    }

    /// The count of the shown game, dead stones by the ownership estimate
    /// (a finished phantom game's by its referee's).
    pub fn score(&self) -> Score {
        score::score(self.shown(), &self.statuses())
    }

    /// The game to analyse for `color`: the game with `color` to move, its
    /// roll drawn under dice (the roll the next move will get: the pending
    /// one, drawn now if none is, as `genmove` would). Returns the roll too.
    pub fn game_to_analyse(&mut self, color: Color) -> (Game, Option<u32>) {
        let roll = match &mut self.role {
            Role::Go(game) => roll_for_search(game, color),
            _ => None,
        };
        let mut game = self.shown().clone();
        if game.to_move() != color {
            game.set_to_move(color);
        }
        (game, roll)
    }

    /// Searches `game` (from [`Engine::game_to_analyse`]) within the move's
    /// budget, reporting to `watch`; the tree is kept for the next move.
    pub fn analyse(&mut self, game: &Game, watch: Watch) {
        let how = Self::choosing(&self.config, self.move_budget(game.to_move()));
        self.chooser.analyse(game, &how, &self.stop, watch);
    }

    /// A search of `game` with `budget` to run beside the protocol (the
    /// network's where the engine searches with it), with its tree;
    /// [`Engine::give_back`] returns the tree.
    pub fn lend_search(&mut self, game: &Game, budget: Budget) -> Lent {
        let how = Self::choosing(&self.config, budget);
        let network = self
            .config
            .network
            .clone()
            .filter(|_| self.config.net_search);
        self.chooser.lend(&how, budget, game, network)
    }

    pub fn give_back(&mut self, lent: Lent) {
        self.chooser.give_back(lent);
    }
}

/// Aléago: draws `color`'s roll for its next move unless one is pending
/// (and, with the crystal ball, the opponent's too); the roll.
fn roll_for_search(game: &mut Game, color: Color) -> Option<u32> {
    let roll = game.roll(color);
    if game.dice().is_some_and(|d| d.crystal_ball) {
        game.roll(color.opponent());
    }
    roll
}

/// CPU seconds used by this process (Linux), if the system tells.
fn cpu_time() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dead_stones_of_a_position_are_judged_once() {
        let mut e = Engine::new(Config::default(), Rules::default(), 9, Some(7.5));
        let at = |x, y| Some(e.shown().board().point(x, y));
        let (e5, c3) = (at(4, 4), at(2, 2));
        e.play(Color::Black, e5).unwrap();
        let first = e.statuses();
        let kept = |e: &Engine| {
            let judged = e.judged.lock().unwrap();
            judged.as_ref().map(|(at, statuses)| {
                (
                    *at == Judged::of(e.shown(), e.config.search.seed),
                    statuses.clone(),
                )
            })
        };
        assert_eq!(kept(&e), Some((true, first.clone())));
        // Asked again in the same position, the kept judgement is the
        // answer (marked here to tell it from a new search's).
        let marked = vec![Status::Seki; first.len()];
        e.judged.lock().unwrap().as_mut().unwrap().1 = marked.clone();
        assert_eq!(e.statuses(), marked);
        // A move, another komi: judged afresh.
        e.play(Color::White, c3).unwrap();
        assert_ne!(e.statuses(), marked);
        e.judged.lock().unwrap().as_mut().unwrap().1 = marked.clone();
        e.set_komi(0.5);
        assert_ne!(e.statuses(), marked);
    }
}
