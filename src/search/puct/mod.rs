//! The search with the network: PUCT as KataGo and Leela Zero run it. Each
//! visit descends from the root by `Q + c·P·√W / (1 + n)` (P the policy's
//! prior, Q the mean utility of the child, unvisited children at their
//! parent's value less a first-play reduction, c scaled by the spread of
//! the utilities; see `explore`), evaluates the leaf with the network (no
//! playout), adds the leaf's legal moves with their priors, and
//! backs the leaf's utility up. Utility is the win/loss value plus KataGo's
//! two shares of the expected score: a static one (the score against 0) and
//! a dynamic one (against the score the root expected when the search
//! began), so that a won game is still played tidily and a lost one (a
//! handicap game) is played for points rather than wildly. A game ended by
//! two passes is counted by the network's ownership. The move is the most
//! visited child of the root, or one surely better by its confidence bound
//! (`choice`). In handicap games the network reads a playout
//! doubling advantage (`advantage`).
//!
//! Threads share one tree under one lock: each descends with a virtual
//! loss along its path, evaluates its leaf with the lock released, and
//! backs the value up. Each walks its own copy of the game down and undoes
//! it after each visit, so the search keeps the game's history (superko,
//! the network's history planes).
//!
//! The parts: `tree` (the arenas of nodes and of their moves, a move's
//! node made when it is first visited, expansion, the tree kept between
//! moves), `bias` (the subtree value bias correction), `explore` (how the descent weighs children), `visit` (one
//! visit: descent, evaluation, back-up, and what the threads share),
//! `utility` (what a visit is worth), `choice` (the move played), `report`
//! (what analysis shows); this file starts the threads and decides.

mod backup;
mod bias;
mod choice;
mod explore;
mod report;
mod tree;
mod utility;
mod visit;

pub use tree::NetTree;
use tree::Node;

use super::budget::{Budget, Decision};
use super::config::{Puct, SearchConfig};
use super::report::Report;
use super::watch::Watch;
use crate::core::concurrency::{search_threads, spawn_scoped};
use crate::core::random::nth_seed;
use crate::go::board::Color;
use crate::go::game::Game;
use crate::nn::Evaluator;
use rand::SeedableRng;
use rand::rngs::SmallRng;
use report::{Ownership, report};
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use utility::ScoreUtility;
use visit::{Job, Shared, Walker};

/// The most nodes a tree holds where nothing else says (128 bytes each:
/// about 510 MB; a move not yet visited counts the tenth of a node its
/// edge takes).
const DEFAULT_MAX_NODES: usize = 4_000_000;

/// The most leaves a thread gathers a round (each holds a copy of the
/// game).
const MAX_LEAVES: usize = 1024;

/// How one search runs.
#[derive(Clone, Copy, Debug)]
pub struct PuctParams {
    /// Visits, seconds or both.
    pub budget: Budget,
    pub seed: u64,
    pub threads: usize,
    /// The playout doublings White is assumed to have over Black (see
    /// `advantage`; 0 in even games and in analysis).
    pub white_advantage: f64,
    /// KataGo's refinements of PUCT, and its root noise.
    pub puct: Puct,
    /// The most nodes the tree holds (128 bytes each, a move not yet
    /// visited the tenth of one); the search stops there.
    pub max_nodes: usize,
    /// The most leaves a thread gathers a round and evaluates as one batch;
    /// `None`: the backend's preferred batch shared out over the threads
    /// (one on the CPU, whose kernels gain nothing from batches).
    pub leaves: Option<usize>,
}

impl PuctParams {
    /// One thread, no advantage.
    pub fn new(budget: Budget, seed: u64) -> PuctParams {
        PuctParams {
            budget,
            seed,
            threads: 1,
            white_advantage: 0.0,
            puct: Puct::default(),
            max_nodes: DEFAULT_MAX_NODES,
            leaves: None,
        }
    }

    /// As `config` says (its threads and PUCT settings), with this
    /// search's budget and seed, no advantage.
    pub fn of(config: &SearchConfig, budget: Budget, seed: u64) -> PuctParams {
        PuctParams {
            threads: config.threads.max(1),
            puct: config.puct,
            max_nodes: config.max_nodes,
            ..PuctParams::new(budget, seed)
        }
    }

    /// With `threads` threads.
    #[cfg(test)]
    fn threads(self, threads: usize) -> PuctParams {
        PuctParams { threads, ..self }
    }
}

/// The most threads a search runs where the network waits on a device.
pub const MAX_DEVICE_THREADS: usize = 256;

/// What a search found.
pub struct Outcome {
    pub decision: Decision,
    /// The root player's win rate by the search (0..1).
    pub win_rate: f64,
    /// The root player's score lead by the search.
    pub lead: f64,
    pub visits: u64,
    /// Visits dropped for an evaluation that failed at the network's door
    /// (a failed pass, or outputs that are not numbers).
    pub dropped: u64,
    /// With a watch: what the search found at its end.
    pub report: Option<Report>,
}

/// Searches `game` for its player to move within `budget` (visits, seconds
/// or both), stopping early when `stop` is raised.
pub fn search(
    game: &Game,
    net: &Evaluator,
    budget: Budget,
    seed: u64,
    stop: &AtomicBool,
    tree: &mut NetTree,
) -> Outcome {
    search_watched(game, net, PuctParams::new(budget, seed), stop, tree, None)
}

/// [`search`] with `threads` threads on one tree, reporting to `watch`
/// every interval and at the end: the root's moves with their visits, win
/// rates, priors, score leads and lines, and the ownership the network
/// gives, averaged over the visits. A watch that keeps moves out (`avoid`,
/// `allow`) starts a tree of its own and leaves the kept one alone.
pub fn search_watched(
    game: &Game,
    net: &Evaluator,
    params: PuctParams,
    stop: &AtomicBool,
    tree: &mut NetTree,
    mut watch: Option<Watch>,
) -> Outcome {
    // The budget counts from here: the root's first evaluation (for the
    // score's centre) is part of the move's time.
    let start = Instant::now();
    let PuctParams {
        budget,
        seed,
        threads,
        white_advantage,
        puct,
        max_nodes,
        leaves,
    } = params;
    let restrict = watch.as_ref().and_then(|w| w.restrict.clone());
    let mut fresh = NetTree::default();
    let tree = if restrict.is_some() { &mut fresh } else { tree };
    let (kept, bias) = tree.take_for(game, white_advantage);
    let score = ScoreUtility::centred(game, net, &kept.nodes[0], white_advantage as f32);
    let shared = Mutex::new(Shared {
        tree: kept,
        bias,
        owned: Ownership::default(),
        owned_by_move: Vec::new(),
        white_ownership: Vec::new(),
        weighed: Vec::new(),
        started: 0,
        visits: 0,
        dropped: 0,
        rounds_done: 0,
        round_time: Duration::ZERO,
    });
    let (threads, leaves) = spread(net, game, threads, leaves);
    let job = Job {
        net,
        budget,
        white_advantage: white_advantage as f32,
        puct,
        score,
        start,
        threads,
        max_nodes,
        stop,
        restrict,
        ownership: watch.as_ref().is_some_and(|w| w.ownership),
        moves_ownership: watch.as_ref().is_some_and(|w| w.moves_ownership),
    };
    visit_in_rounds(&job, &shared, game, leaves, seed, watch.as_mut());
    let s = shared.into_inner().unwrap_or_else(|e| e.into_inner());
    let final_report = watch.as_mut().map(|w| {
        let at_end = report(
            &s.tree,
            game,
            &puct,
            w.min_moves,
            &s.owned,
            &s.owned_by_move,
        );
        if w.at_end {
            (w.on_report)(&at_end);
        }
        at_end
    });
    let (grown, bias) = (s.tree, s.bias);
    let root = &grown.nodes[0];
    // The root's sums are from the side of the player who moved before it.
    let (win_rate, lead) = if root.visits > 0 {
        let visits = root.visits as f64;
        ((1.0 - root.winloss / visits) / 2.0, -root.lead / visits)
    } else {
        (0.5, 0.0)
    };
    let outcome = Outcome {
        decision: decide(&grown.root_family(), &job, game.to_move()),
        win_rate,
        lead,
        visits: s.visits,
        dropped: s.dropped,
        report: final_report,
    };
    tree.keep(grown, bias, game, white_advantage);
    outcome
}

/// The threads a search runs and the leaves each gathers a round: on the
/// processor no more threads than the cores (more only take turns on
/// them), on a device those asked (they wait while it works); where the
/// backend wants batches, twice its batch in flight over all the threads,
/// so that one batch runs while the next gathers (the evaluator's batcher
/// joins the threads' rounds) and the device's batches stay near their
/// size however many threads there are. `leaves` given wins.
fn spread(net: &Evaluator, game: &Game, threads: usize, leaves: Option<usize>) -> (usize, usize) {
    let threads = if net.on_processor() {
        search_threads(threads)
    } else {
        threads.clamp(1, MAX_DEVICE_THREADS)
    };
    let preferred = net.preferred_batch(game.size());
    let in_flight = if preferred > 1 { 2 * preferred } else { 1 };
    let leaves = leaves
        .unwrap_or_else(|| in_flight.div_ceil(threads))
        .clamp(1, MAX_LEAVES);
    (threads, leaves)
}

/// Visits until the job is done: the helper threads only visit, this one
/// visits and reports to `watch` every interval it asks.
fn visit_in_rounds(
    job: &Job,
    shared: &Mutex<Shared>,
    game: &Game,
    leaves: usize,
    seed: u64,
    mut watch: Option<&mut Watch>,
) {
    let walker = |n: u64| Walker::new(game, leaves, SmallRng::seed_from_u64(nth_seed(seed, n)));
    std::thread::scope(|scope| {
        for n in 1..job.threads {
            let mut w = walker(n as u64);
            if spawn_scoped(scope, move || while job.visit(shared, &mut w) {}).is_none() {
                break;
            }
        }
        let mut w = walker(0);
        let mut last_report = Instant::now();
        while job.visit(shared, &mut w) {
            if let Some(watch) = watch.as_deref_mut()
                && watch
                    .every
                    .is_some_and(|every| last_report.elapsed() >= every)
            {
                let s = shared.lock().unwrap_or_else(|e| e.into_inner());
                let r = report(
                    &s.tree,
                    game,
                    &job.puct,
                    watch.min_moves,
                    &s.owned,
                    &s.owned_by_move,
                );
                drop(s);
                (watch.on_report)(&r);
                last_report = Instant::now();
            }
        }
    });
}

/// The move of most weight the job permits `to_move` (with a budget of a
/// visit or two, an unvisited one by its prior); a pass where none is.
/// `nodes`: the root and its children ([`Tree::root_family`]).
fn decide(nodes: &[Node], job: &Job, to_move: Color) -> Decision {
    let root = &nodes[0];
    let weights = choice::play_weights(nodes, &job.puct, |i| {
        !nodes[i].refused && job.permits(to_move, nodes[i].mv, 1)
    });
    let best = weights
        .iter()
        .enumerate()
        .filter_map(|(i, w)| w.map(|w| (root.first as usize + i, w)))
        .max_by(|a, b| {
            (a.1, nodes[a.0].prior)
                .partial_cmp(&(b.1, nodes[b.0].prior))
                .unwrap_or(std::cmp::Ordering::Equal)
        })
        .map(|(i, _)| i);
    match best.map(|i| nodes[i].mv) {
        Some(Some(p)) => Decision::Play(p),
        _ => Decision::Pass,
    }
}

/// A search of `visits` visits on a tree of its own from `game`'s position
/// as one play goes on from (its history kept, the passes that ended it no
/// longer ending it): how KataGo judges the end or the score of a game.
fn judging_search(
    game: &Game,
    net: &Evaluator,
    visits: u64,
    seed: u64,
    watch: Option<Watch>,
) -> Outcome {
    let budget = Budget {
        playouts: Some(visits),
        time: None,
    };
    search_watched(
        &game.continued(),
        net,
        PuctParams::new(budget, seed),
        &AtomicBool::new(false),
        &mut NetTree::default(),
        watch,
    )
}

/// Each point's expected owner (+1 Black, indexed by point) by a judging
/// search (see [`judging_search`]), the network's ownership averaged over
/// the visits: KataGo's judge of dead stones at the end of a game. Where
/// the search backed nothing up (every evaluation failed), the network's
/// own ownership of the position, a failed one's neutral stand-in.
pub fn ownership(game: &Game, net: &Evaluator, visits: u64, seed: u64) -> Vec<f64> {
    let mut ignore = |_: &Report| {};
    let watch = Watch {
        ownership: true,
        ..Watch::quiet(None, &mut ignore)
    };
    let out = judging_search(game, net, visits, seed, Some(watch));
    out.report
        .and_then(|report| report.ownership)
        .map(|(mean, _)| mean)
        .unwrap_or_else(|| net.ownership(game))
}

/// White's expected lead in points by a judging search (see
/// [`judging_search`]): KataGo's `computeLead`, its `final_score` of a game
/// not yet over.
pub fn white_lead(game: &Game, net: &Evaluator, visits: u64, seed: u64) -> f64 {
    game.to_move().from_white() * judging_search(game, net, visits, seed, None).lead
}

#[cfg(test)]
mod tests;
