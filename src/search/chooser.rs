//! The one move chooser: every move the engine plays or analyses is chosen
//! here, with the policy around the search — when to pass (the opponent
//! passed, the board is settled and the count wins), when to resign (below
//! the threshold, late enough, after searching enough, three moves in a
//! row), and which search runs (the network's PUCT where a network applies
//! and nobody watches, Monte Carlo otherwise) or, at a playing level, the
//! policy's choice of a person of that rank. It keeps both searches'
//! trees between moves, the network's handicap advantage and the run of
//! moves judged lost, and counts its searches, so that each gets a seed of
//! its own.

use super::advantage::{self, Advantage};
use super::budget::{Budget, Decision, Planning};
use super::config::SearchConfig;
use super::level::{self, Rank};
use super::mc::{McSettings, McTree, ownership, run_watched};
use super::puct::{self, NetTree, PuctParams};
use super::watch::Watch;
use crate::core::random::nth_seed;
use crate::go::board::{Color, Point};
use crate::go::game::Game;
use crate::go::score::{self, Status};
use crate::nn::{Evaluation, Evaluator, Request, SYMMETRIES};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// Network visits per move when nothing sets a budget (KataGo's example
/// configuration: 500).
pub const DEFAULT_VISITS: u64 = 500;
/// Monte Carlo playouts per move when nothing sets a budget.
pub const DEFAULT_PLAYOUTS: u64 = 10_000;

/// One move's search as the engine asks for it: how (the configuration),
/// how long (the move's budget) and with what (the network, if any).
#[derive(Clone, Copy)]
pub struct MoveSearch<'a> {
    pub config: &'a SearchConfig,
    /// The move's budget: fixed playouts or seconds, or the clock's share;
    /// `None` for both when nothing sets one.
    pub budget: Budget,
    /// The network, where the engine chooses its moves with it.
    pub network: Option<&'a Evaluator>,
    /// A human-like net beside it, which a playing level draws from.
    pub human_network: Option<&'a Evaluator>,
}

impl MoveSearch<'_> {
    /// Playouts of the dead-stone estimate: the setting, but no more than
    /// about a tenth of the move's time where the clock is short (ten
    /// playouts a millisecond, at least 32).
    fn estimate_playouts(&self) -> usize {
        match self.budget.time {
            Some(t) => (t.as_millis() as usize * 10)
                .clamp(32, self.config.chooser.ownership_playouts.max(32)),
            None => self.config.chooser.ownership_playouts,
        }
    }

    /// The budget of a Monte Carlo search.
    pub fn playout_budget(&self) -> Budget {
        self.budget_or(DEFAULT_PLAYOUTS)
    }

    /// The budget of a network search.
    pub fn visit_budget(&self) -> Budget {
        self.budget_or(DEFAULT_VISITS)
    }

    /// The move's budget, or `count` playouts or visits where nothing sets
    /// one.
    fn budget_or(&self, count: u64) -> Budget {
        if self.budget.playouts.is_none() && self.budget.time.is_none() {
            Budget {
                playouts: Some(count),
                time: None,
            }
        } else {
            self.budget
        }
    }
}

/// The trees kept between moves and the count of searches made.
#[derive(Default)]
pub struct Chooser {
    tree: McTree,
    net_tree: NetTree,
    /// The playout doubling advantage of the network's searches in
    /// handicap games, carried from move to move.
    advantage: Advantage,
    searches: u64,
    /// The engine's moves in a row that would have resigned.
    hopeless: HopelessRun,
}

/// Moves in a row the engine judges lost before it resigns (KataGo's
/// `resignConsecTurns`): one search's low win rate may be its blind spot.
const RESIGN_AFTER: u32 = 3;

/// The run of the engine's moves, each a move or two after the one before
/// in the same game, whose search judged the game lost.
#[derive(Default)]
struct HopelessRun {
    /// The game's move count at the run's last move.
    at_move: usize,
    moves: u32,
}

impl HopelessRun {
    /// Notes whether the search at `game`'s move judged it lost; true when
    /// that makes [`RESIGN_AFTER`] in a row. A move not one or two after the
    /// run's last (another game, an undo) starts a new run.
    fn note(&mut self, game: &Game, lost: bool) -> bool {
        let at = game.move_count();
        let follows = at > self.at_move && at <= self.at_move + 2;
        self.moves = match (lost, follows) {
            (false, _) => 0,
            (true, true) => self.moves + 1,
            (true, false) => 1,
        };
        self.at_move = at;
        self.moves >= RESIGN_AFTER
    }
}

impl Chooser {
    /// The seed of the next search: a new one for every search of the
    /// engine's life, so that games differ (a new game does not reset it)
    /// yet replay identically from the same seed and the same commands.
    pub fn next_seed(&mut self, base: u64) -> u64 {
        self.searches += 1;
        nth_seed(base, self.searches)
    }

    /// The settings of the next Monte Carlo search.
    fn next_settings(&mut self, how: &MoveSearch, budget: Budget, cleanup: bool) -> McSettings {
        McSettings {
            budget,
            seed: self.next_seed(how.config.seed),
            cleanup,
            max_nodes: how.config.max_nodes,
            patterns: how.config.mc.patterns,
        }
    }

    /// Chooses a move for `game`'s player to move (the roll drawn, under
    /// dice) without playing it, reporting to `watch` while searching. In
    /// cleanup mode it does not pass while opponent stones it judges dead
    /// remain.
    pub fn choose(
        &mut self,
        game: &Game,
        cleanup: bool,
        how: &MoveSearch,
        stop: &AtomicBool,
        watch: Option<Watch>,
    ) -> Decision {
        let color = game.to_move();
        // Dead stones matter only for passing now or for cleanup: estimate
        // them only then (it costs a thousand playouts).
        let opponent_passed = game.last_move() == Some((color.opponent(), None));
        let network = how.network.filter(|n| n.applies_to(game));
        let (statuses, settled) = if opponent_passed || cleanup {
            // The network's ownership where it applies (one evaluation, a
            // few milliseconds); playouts otherwise.
            let ownership = match network {
                Some(net) => net.ownership(game),
                None => ownership(game, how.estimate_playouts(), how.config.seed),
            };
            let statuses = match network {
                Some(_) => score::statuses_from_network(game.board(), &ownership),
                None => score::statuses(game.board(), &ownership),
            };
            let settled = score::is_settled(game.board(), &ownership, &statuses);
            (statuses, settled)
        } else {
            (Vec::new(), false)
        };
        let board = game.board();
        let dead_opponents = !statuses.is_empty()
            && board.points().any(|p| {
                board.color_at(p) == Some(color.opponent()) && statuses[p as usize] == Status::Dead
            });
        let sign = if color == Color::Black { 1.0 } else { -1.0 };
        // The opponent passed, the board is settled and we win as things
        // stand: end the game. (Under dice a pass often means a bad roll,
        // not a finished game: an unsettled board is played on.)
        if opponent_passed && settled && !(cleanup && dead_opponents) {
            let mut ended = game.clone();
            ended.play(color, None).expect("pass is legal");
            let margin = score::score(&ended, &statuses).margin * sign;
            if margin > 0.0 {
                return Decision::Pass;
            }
        }
        // At a level: a person's choice from the policy, no search (and
        // no resignation, as KaTrain's rank AI).
        if let (Some(net), Some(rank), false) = (network, how.config.chooser.level, cleanup) {
            let seed = self.next_seed(how.config.seed);
            return match level_move(game, net, how.human_network, rank, seed) {
                Some(p) => Decision::Play(p),
                None => Decision::Pass,
            };
        }
        // The network searches plain Go (no dice); the cleanup of dead
        // stones comes from the Monte Carlo search.
        if let Some(net) = network.filter(|_| !cleanup) {
            let params = PuctParams {
                white_advantage: self.advantage.update(game),
                ..PuctParams::of(
                    how.config,
                    how.visit_budget(),
                    self.next_seed(how.config.seed),
                )
            };
            let out = puct::search_watched(game, net, params, stop, &mut self.net_tree, watch);
            // A net that gave no finite evaluation of this position leaves
            // the move to the Monte Carlo search (said where it dropped).
            if out.visits == 0 && out.dropped > 0 {
                log::warn!("no finite evaluation from the network: the Monte Carlo search moves");
                let settings = self.next_settings(how, how.playout_budget(), false);
                let planning = how.config.mc.planning;
                let threads = how.config.threads;
                return run_watched(
                    game,
                    &settings,
                    threads,
                    planning,
                    stop,
                    &mut self.tree,
                    None,
                )
                .0;
            }
            // The mover's side to White's: the same sign as the other way.
            let for_white = |v: f64| color.from_white() * v;
            self.advantage.record(for_white(2.0 * out.win_rate - 1.0));
            let white_lead = for_white(out.lead);
            let lost = resigns(
                game,
                how.config.chooser.resign,
                out.win_rate,
                out.visits >= 50,
            ) && advantage::may_resign(game, color, white_lead);
            if self.hopeless.note(game, lost) {
                return Decision::Resign;
            }
            return out.decision;
        }
        let settings = self.next_settings(how, how.playout_budget(), cleanup && dead_opponents);
        let (decision, win_rate, playouts) = run_watched(
            game,
            &settings,
            how.config.threads,
            how.config.mc.planning,
            stop,
            &mut self.tree,
            watch,
        );
        let lost = resigns(game, how.config.chooser.resign, win_rate, playouts >= 500);
        if self.hopeless.note(game, lost) {
            return Decision::Resign;
        }
        decision
    }

    /// Searches `game` for its player to move within the budget, reporting
    /// to `watch`, without choosing; the tree is kept for the next move.
    /// With the network where it applies (no dice).
    pub fn analyse(&mut self, game: &Game, how: &MoveSearch, stop: &AtomicBool, watch: Watch) {
        if let Some(net) = how.network.filter(|n| n.applies_to(game)) {
            let params = PuctParams::of(
                how.config,
                how.visit_budget(),
                self.next_seed(how.config.seed),
            );
            puct::search_watched(game, net, params, stop, &mut self.net_tree, Some(watch));
            return;
        }
        let settings = self.next_settings(how, how.playout_budget(), false);
        run_watched(
            game,
            &settings,
            how.config.threads,
            how.config.mc.planning,
            stop,
            &mut self.tree,
            Some(watch),
        );
    }

    /// A search of `game` with `budget` to run elsewhere (beside the
    /// protocol): the network's where `network` is given and applies (no
    /// dice), Monte Carlo otherwise, with its tree;
    /// [`Chooser::give_back`] returns the tree.
    pub fn lend(
        &mut self,
        how: &MoveSearch,
        budget: Budget,
        game: &Game,
        network: Option<Arc<Evaluator>>,
    ) -> Lent {
        match network.filter(|n| n.applies_to(game)) {
            Some(net) => Lent::Network {
                tree: std::mem::take(&mut self.net_tree),
                net,
                params: PuctParams::of(how.config, budget, self.next_seed(how.config.seed)),
            },
            None => Lent::MonteCarlo {
                settings: self.next_settings(how, budget, false),
                tree: std::mem::take(&mut self.tree),
                threads: how.config.threads,
                planning: how.config.mc.planning,
            },
        }
    }

    pub fn give_back(&mut self, lent: Lent) {
        match lent {
            Lent::Network { tree, .. } => self.net_tree = tree,
            Lent::MonteCarlo { tree, .. } => self.tree = tree,
        }
    }
}

/// A search lent out to run on another thread, with its tree.
pub enum Lent {
    MonteCarlo {
        tree: McTree,
        settings: McSettings,
        threads: usize,
        planning: Planning,
    },
    Network {
        tree: NetTree,
        net: Arc<Evaluator>,
        params: PuctParams,
    },
}

impl Lent {
    /// Searches `game` until the budget is spent or `stop` is raised,
    /// reporting to `watch`.
    pub fn run(&mut self, game: &Game, stop: &AtomicBool, watch: Option<Watch>) {
        match self {
            Lent::MonteCarlo {
                tree,
                settings,
                threads,
                planning,
            } => {
                run_watched(game, settings, *threads, *planning, stop, tree, watch);
            }
            Lent::Network { tree, net, params } => {
                puct::search_watched(game, net, *params, stop, tree, watch);
            }
        }
    }
}

/// The move a player of `rank` chooses in `game` from the network's
/// policy (one evaluation, in a symmetry drawn from `seed`), among the
/// moves the game allows: KaTrain's rank AI, or a draw from a human-like
/// net's policy under the rank's profile (the net beside the network, or
/// the network itself).
fn level_move(
    game: &Game,
    net: &Evaluator,
    human: Option<&Evaluator>,
    rank: Rank,
    seed: u64,
) -> Option<Point> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let color = game.to_move();
    let request = Request {
        game,
        to_move: color,
        fresh: false,
        symmetry: rng.random_range(0..SYMMETRIES),
        white_advantage: 0.0,
    };
    // A human-like net beside the network, under the rank's profile (the
    // level refused the ranks no profile has); else the network, itself
    // under the rank's profile where it is human-like (the level set it).
    let beside = human.zip(rank.human_profile().ok());
    let mut eval = Evaluation::default();
    match &beside {
        Some((h, profile)) => eval = h.evaluate_under(profile, request),
        None => net.evaluate_cached(request, &mut eval),
    }
    let mut policy: Vec<(Option<Point>, f32)> = eval
        .priors(game.board())
        .filter(|&(p, prior)| prior >= 0.0 && game.check(color, p).is_ok())
        .map(|(p, prior)| (Some(p), prior))
        .collect();
    policy.push((None, eval.pass));
    let squares = game.size().points();
    if beside.is_some() || net.is_human() {
        level::choose_human(&policy, game.move_count(), squares, &mut rng)
    } else {
        level::choose(&policy, squares, rank, &mut rng)
    }
}

/// Whether to resign with `win_rate` for `game`'s player to move: below
/// `threshold`, never in the first quarter of the game, and only after
/// `searched_enough`.
fn resigns(game: &Game, threshold: f64, win_rate: f64, searched_enough: bool) -> bool {
    let late_enough = game.move_count() >= game.size().points() / 4;
    threshold > 0.0 && win_rate < threshold && late_enough && searched_enough
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::rules::Rules;

    /// A game `moves` moves long (passes will do: only the count matters).
    fn game_after(moves: usize) -> Game {
        let mut game = Game::new(9, Rules::default(), 7.5);
        for _ in 0..moves {
            game.play(game.to_move(), None).unwrap();
        }
        game
    }

    /// Notes each `(move count, judged lost)` on one run and checks
    /// whether the engine resigns there.
    fn check_run(steps: &[(usize, bool, bool)]) {
        let mut run = HopelessRun::default();
        for &(at, lost, resigns) in steps {
            assert_eq!(run.note(&game_after(at), lost), resigns, "at move {at}");
        }
    }

    #[test]
    fn the_engine_resigns_on_the_third_lost_move_in_a_row() {
        check_run(&[(40, true, false), (42, true, false), (44, true, true)]);
        // A move judged playable ends the run.
        check_run(&[
            (40, true, false),
            (42, true, false),
            (44, false, false),
            (46, true, false),
            (48, true, false),
            (50, true, true),
        ]);
        // The engine playing both sides counts each move.
        check_run(&[(40, true, false), (41, true, false), (42, true, true)]);
    }

    #[test]
    fn a_new_game_or_an_undo_starts_the_run_again() {
        check_run(&[
            (40, true, false),
            (42, true, false),
            // A new game (its first moves) or moves taken back.
            (2, true, false),
            (4, true, false),
            (2, true, false),
            // Moves skipped (the engine was not asked for a while).
            (10, true, false),
            (12, true, false),
            (14, true, true),
        ]);
    }
}
