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
//! The parts: `tree` (the arena of nodes, expansion, the tree kept between
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

use super::budget::{Budget, Decision};
use super::config::{Puct, SearchConfig};
use super::report::Report;
use super::watch::Watch;
use crate::core::concurrency::{search_threads, spawn_scoped};
use crate::core::random::nth_seed;
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

/// The most nodes a tree holds where nothing else says (96 bytes each:
/// about 320 MB).
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
    /// The most nodes the tree holds (96 bytes each); the search stops
    /// there.
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
    /// Visits dropped for an evaluation that was not finite.
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
    let (nodes, bias) = tree.take_for(game, white_advantage);
    let score = ScoreUtility::centred(game, net, &nodes[0], white_advantage as f32);
    let shared = Mutex::new(Shared {
        nodes,
        bias,
        owned: Ownership::default(),
        owned_by_move: Vec::new(),
        weighed: Vec::new(),
        started: 0,
        visits: 0,
        dropped: 0,
        rounds_done: 0,
        round_time: Duration::ZERO,
    });
    // Threads beyond the cores only take turns on them where the network
    // runs on the processor; on a device they wait while it works.
    let threads = if net.on_processor() {
        search_threads(threads)
    } else {
        threads.clamp(1, MAX_DEVICE_THREADS)
    };
    // Where the backend wants batches, twice its batch in flight over all
    // the threads: one batch runs while the next gathers (the evaluator's
    // batcher joins the threads' rounds), so the device's batches stay
    // near their size however many threads there are.
    let preferred = net.preferred_batch(game.size());
    let in_flight = if preferred > 1 { 2 * preferred } else { 1 };
    let leaves = leaves
        .unwrap_or_else(|| in_flight.div_ceil(threads))
        .clamp(1, MAX_LEAVES);
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
    let walker = |n: u64| Walker::new(game, leaves, SmallRng::seed_from_u64(nth_seed(seed, n)));
    let lock = || shared.lock().unwrap_or_else(|e| e.into_inner());
    std::thread::scope(|scope| {
        // The helpers only visit; this thread visits and reports.
        for n in 1..job.threads {
            let (job, shared) = (&job, &shared);
            let mut w = walker(n as u64);
            if spawn_scoped(scope, move || while job.visit(shared, &mut w) {}).is_none() {
                break;
            }
        }
        let mut w = walker(0);
        let mut last_report = Instant::now();
        while job.visit(&shared, &mut w) {
            if let Some(watch) = watch.as_mut()
                && watch
                    .every
                    .is_some_and(|every| last_report.elapsed() >= every)
            {
                let s = lock();
                let r = report(
                    &s.nodes,
                    game,
                    &puct,
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
    let s = shared.into_inner().unwrap_or_else(|e| e.into_inner());
    let final_report = watch.as_mut().map(|w| {
        let at_end = report(
            &s.nodes,
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
    let (nodes, bias) = (s.nodes, s.bias);
    let root = &nodes[0];
    // The move of most weight the watch permits (with a budget of a visit
    // or two, an unvisited one by its prior).
    let to_move = game.to_move();
    let weights = choice::play_weights(&nodes, &puct, |i| {
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
    let decision = match best.map(|i| nodes[i].mv) {
        Some(Some(p)) => Decision::Play(p),
        _ => Decision::Pass,
    };
    // The root's sums are from the side of the player who moved before it.
    let (win_rate, lead) = if root.visits > 0 {
        let visits = root.visits as f64;
        ((1.0 - root.winloss / visits) / 2.0, -root.lead / visits)
    } else {
        (0.5, 0.0)
    };
    let outcome = Outcome {
        decision,
        win_rate,
        lead,
        visits: s.visits,
        dropped: s.dropped,
        report: final_report,
    };
    tree.keep(nodes, bias, game, white_advantage);
    outcome
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
/// the visits: KataGo's judge of dead stones at the end of a game.
pub fn ownership(game: &Game, net: &Evaluator, visits: u64, seed: u64) -> Vec<f64> {
    let mut ignore = |_: &Report| {};
    let watch = Watch {
        ownership: true,
        ..Watch::quiet(None, &mut ignore)
    };
    let out = judging_search(game, net, visits, seed, Some(watch));
    let report = out.report.expect("a watched search reports at its end");
    report
        .ownership
        .map(|(mean, _)| mean)
        .expect("the watch counts ownership")
}

/// White's expected lead in points by a judging search (see
/// [`judging_search`]): KataGo's `computeLead`, its `final_score` of a game
/// not yet over.
pub fn white_lead(game: &Game, net: &Evaluator, visits: u64, seed: u64) -> f64 {
    game.to_move().from_white() * judging_search(game, net, visits, seed, None).lead
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::board::Color;
    use crate::go::rules::Rules;
    use crate::go::vertex::parse_vertex;

    #[test]
    fn wide_root_noise_spreads_the_roots_visits() {
        let game = Game::new(9, Rules::default(), 7.5);
        let net = Evaluator::embedded();
        let budget = Budget {
            playouts: Some(150),
            time: None,
        };
        let root_moves_visited = |wide_root_noise: f64| {
            let mut tree = NetTree::default();
            let params = PuctParams {
                puct: Puct {
                    wide_root_noise,
                    ..Puct::default()
                },
                ..PuctParams::new(budget, 5)
            };
            search_watched(
                &game,
                &net,
                params,
                &AtomicBool::new(false),
                &mut tree,
                None,
            );
            let root = &tree.nodes[0];
            let children = root.first as usize..(root.first + root.count) as usize;
            children.filter(|&c| tree.nodes[c].visits > 0).count()
        };
        let (narrow, wide) = (root_moves_visited(0.0), root_moves_visited(0.5));
        assert!(wide > narrow + 5, "{narrow} {wide}");
    }

    /// White E5 in atari (Black D5, F5, E6; liberty E4), Black to play.
    fn white_in_atari() -> Game {
        let mut game = Game::new(9, Rules::default(), 7.5);
        for (c, v) in [
            (Color::Black, "D5"),
            (Color::White, "E5"),
            (Color::Black, "F5"),
            (Color::White, "A1"),
            (Color::Black, "E6"),
            (Color::White, "J1"),
        ] {
            game.play(c, parse_vertex(v, 9).unwrap()).unwrap();
        }
        game
    }

    #[test]
    fn a_search_on_the_test_backend_is_exact_and_repeatable() {
        // The deterministic backend: each visit one evaluation, the same
        // seed the same tree, every visit backed up.
        let (net, counts) = crate::nn::on_test_backend();
        let game = white_in_atari();
        let budget = Budget {
            playouts: Some(120),
            time: None,
        };
        let run = || {
            let mut tree = NetTree::default();
            let out = search_watched(
                &game,
                &net,
                PuctParams::new(budget, 11),
                &AtomicBool::new(false),
                &mut tree,
                None,
            );
            let visits: Vec<u32> = tree.nodes.iter().map(|n| n.visits).collect();
            (out.decision, out.visits, out.dropped, visits)
        };
        let first = run();
        assert_eq!((first.1, first.2), (120, 0));
        assert!(matches!(first.0, Decision::Play(p) if game.check(game.to_move(), p).is_ok()));
        assert!(counts.boards.load(std::sync::atomic::Ordering::Relaxed) > 0);
        net.cache().clear();
        assert_eq!(run(), first);
    }

    #[test]
    fn a_thread_gathers_its_leaves_in_batches_where_the_backend_wants_them() {
        // The test backend prefers batches of four: one thread's rounds
        // send several boards a forward pass; asked for one leaf a round,
        // every pass is one board. Either way the budget is kept exactly
        // and every virtual loss is taken back.
        use std::sync::atomic::Ordering::Relaxed;
        let game = white_in_atari();
        let budget = Budget {
            playouts: Some(200),
            time: None,
        };
        let mut batch = Vec::new();
        for leaves in [None, Some(1)] {
            let (net, counts) = crate::nn::on_test_backend();
            let mut tree = NetTree::default();
            let params = PuctParams {
                leaves,
                ..PuctParams::new(budget, 5)
            };
            let out = search_watched(
                &game,
                &net,
                params,
                &AtomicBool::new(false),
                &mut tree,
                None,
            );
            assert_eq!((out.visits, out.dropped), (200, 0));
            assert_eq!(tree.nodes[0].visits, 200);
            assert!(tree.nodes.iter().all(|n| n.virtual_loss == 0));
            assert!(
                matches!(out.decision, Decision::Play(p) if game.check(game.to_move(), p).is_ok())
            );
            let (passes, boards) = (counts.passes.load(Relaxed), counts.boards.load(Relaxed));
            batch.push(boards as f64 / passes as f64);
        }
        assert!(batch[0] > 2.0, "{batch:?}");
        assert_eq!(batch[1], 1.0);
    }

    #[test]
    fn threads_gathering_minibatches_share_one_tree_and_keep_to_the_budget() {
        // The real net, two threads of eight leaves a round: the capture
        // is still found, the budget kept, the tree consistent.
        let game = white_in_atari();
        let net = Evaluator::embedded();
        let budget = Budget {
            playouts: Some(300),
            time: None,
        };
        let mut tree = NetTree::default();
        let params = PuctParams {
            leaves: Some(8),
            ..PuctParams::new(budget, 4).threads(2)
        };
        let out = search_watched(
            &game,
            &net,
            params,
            &AtomicBool::new(false),
            &mut tree,
            None,
        );
        assert_eq!(out.visits, 300);
        let nodes = &tree.nodes;
        assert_eq!(nodes[0].visits, 300);
        assert!(nodes.iter().all(|n| n.virtual_loss == 0));
        let children = nodes[0].first as usize..(nodes[0].first + nodes[0].count) as usize;
        let most = children.clone().max_by_key(|&c| nodes[c].visits).unwrap();
        assert_eq!(nodes[most].mv, parse_vertex("E4", 9).unwrap());
        // Each node's visits are its own evaluation's and its children's.
        for n in nodes.iter().filter(|n| n.expanded) {
            let below: u32 = (n.first..n.first + n.count)
                .map(|c| nodes[c as usize].visits)
                .sum();
            assert!(
                below < n.visits && below + 3 >= n.visits,
                "{below} {}",
                n.visits
            );
        }
    }

    #[test]
    fn two_threads_share_one_tree_and_keep_to_the_budget() {
        let game = white_in_atari();
        let net = Evaluator::embedded();
        let budget = Budget {
            playouts: Some(200),
            time: None,
        };
        let mut tree = NetTree::default();
        let stop = AtomicBool::new(false);
        let out = search_watched(
            &game,
            &net,
            PuctParams::new(budget, 3).threads(2),
            &stop,
            &mut tree,
            None,
        );
        assert_eq!(out.visits, 200);
        // Every visit backed up, every virtual loss taken back.
        let nodes = &tree.nodes;
        assert_eq!(nodes[0].visits, 200);
        assert!(nodes.iter().all(|n| n.virtual_loss == 0));
        let children = nodes[0].first as usize..(nodes[0].first + nodes[0].count) as usize;
        // The capture is searched most (in a position this far won, the
        // move played may be another whose bound is as good).
        let most = children.clone().max_by_key(|&c| nodes[c].visits).unwrap();
        assert_eq!(nodes[most].mv, parse_vertex("E4", 9).unwrap());
        assert!(matches!(out.decision, Decision::Play(_)));
        // The visits that found the root unexpanded (one a thread at
        // most) stop there.
        let below: u32 = children.map(|c| nodes[c].visits).sum();
        assert!((198..=199).contains(&below), "{below}");
    }

    #[test]
    fn it_captures_a_stone_in_atari_and_plays_a_legal_move() {
        // Black takes the stone in atari.
        let mut game = white_in_atari();
        let net = Evaluator::embedded();
        let budget = Budget {
            playouts: Some(64),
            time: None,
        };
        let mut tree = NetTree::default();
        let out = search(&game, &net, budget, 1, &AtomicBool::new(false), &mut tree);
        let e4 = parse_vertex("E4", 9).unwrap().unwrap();
        assert_eq!(out.decision, Decision::Play(e4));
        assert_eq!(out.visits, 64);
        assert!(out.win_rate > 0.5, "{}", out.win_rate);
        // The next search starts from the subtree of the move played.
        game.play(Color::Black, Some(e4)).unwrap();
        let (kept, bias) = tree.take_for(&game, 0.0);
        assert!(kept[0].visits > 10, "{}", kept[0].visits);
        assert!(kept[0].expanded);
        let children = kept[0].first as usize..(kept[0].first + kept[0].count) as usize;
        assert_eq!(
            kept[0].visits - 1,
            children.map(|c| kept[c].visits).sum::<u32>()
        );
        // Another game does not reuse it: other komi, another advantage,
        // or an empty board of another size (the root of an empty 9x9
        // board kept).
        tree.keep(kept, bias, &game, 0.0);
        let other = Game::new(9, Rules::default(), 6.5);
        assert_eq!(tree.take_for(&other, 0.0).0[0].visits, 0);
        let empty = Game::new(9, Rules::default(), 7.5);
        search(&empty, &net, budget, 2, &AtomicBool::new(false), &mut tree);
        assert!(tree.take_for(&empty, 0.0).0[0].visits > 0);
        search(&empty, &net, budget, 2, &AtomicBool::new(false), &mut tree);
        assert_eq!(tree.take_for(&empty, 0.5).0[0].visits, 0);
        search(&empty, &net, budget, 2, &AtomicBool::new(false), &mut tree);
        assert_eq!(
            tree.take_for(&Game::new(13, Rules::default(), 7.5), 0.0).0[0].visits,
            0
        );
    }

    #[test]
    fn each_node_sums_its_childrens_values_and_its_corrected_own_value() {
        // Without the children's weighting (noise pruning, value weights),
        // a node's utility sum is its children's (from the other side)
        // plus its network value with the bias correction it has now:
        // every correction reached the ancestors' sums.
        let game = white_in_atari();
        let net = Evaluator::embedded();
        let budget = Budget {
            playouts: Some(400),
            time: None,
        };
        let unweighted = PuctParams {
            puct: Puct {
                noise_pruning: false,
                value_weight_exponent: 0.0,
                ..Puct::default()
            },
            ..PuctParams::new(budget, 4)
        };
        let mut tree = NetTree::default();
        search_watched(
            &game,
            &net,
            unweighted,
            &AtomicBool::new(false),
            &mut tree,
            None,
        );
        let nodes = &tree.nodes;
        let mut checked = 0;
        for n in nodes.iter().filter(|n| n.expanded) {
            let children = &nodes[n.first as usize..(n.first + n.count) as usize];
            let visits: u32 = children.iter().map(|c| c.visits).sum();
            if n.visits != visits + 1 {
                continue;
            }
            let below: f64 = children.iter().map(|c| c.utility).sum();
            let own = f64::from(n.nn_utility) + f64::from(n.bias_applied);
            assert!(
                (n.utility - (own - below)).abs() < 1e-3,
                "{} {}",
                n.utility,
                own - below
            );
            checked += 1;
        }
        assert!(checked > 50, "{checked}");
        let corrected = nodes.iter().filter(|n| n.bias_applied != 0.0).count();
        assert!(corrected > 20, "{corrected}");
        // Without the correction, none.
        let plain = PuctParams {
            puct: Puct {
                subtree_bias: 0.0,
                ..unweighted.puct
            },
            ..PuctParams::new(budget, 4)
        };
        let mut tree = NetTree::default();
        search_watched(&game, &net, plain, &AtomicBool::new(false), &mut tree, None);
        assert!(
            tree.nodes
                .iter()
                .all(|n| n.bias_applied == 0.0 && n.bias_key == 0)
        );
    }

    #[test]
    fn analysis_lists_the_move_played_first() {
        // Over several positions and seeds, the report's first candidate is
        // the move the search decides on (by its confidence bound too).
        let net = Evaluator::embedded();
        let budget = Budget {
            playouts: Some(120),
            time: None,
        };
        let mut game = white_in_atari();
        for seed in 0..12 {
            let mut ignore = |_: &Report| {};
            let watch = Watch::quiet(None, &mut ignore);
            let out = search_watched(
                &game,
                &net,
                PuctParams::new(budget, seed),
                &AtomicBool::new(false),
                &mut NetTree::default(),
                Some(watch),
            );
            let first = out.report.expect("watched").candidates[0].mv;
            let played = match out.decision {
                Decision::Play(p) => Some(p),
                _ => None,
            };
            assert_eq!(first, played, "seed {seed}");
            game.play(game.to_move(), played).unwrap();
        }
    }

    #[test]
    fn the_tree_stops_growing_at_its_bound() {
        let game = Game::new(9, Rules::default(), 7.5);
        let net = Evaluator::embedded();
        let budget = Budget {
            playouts: Some(2000),
            time: None,
        };
        let mut tree = NetTree::default();
        let params = PuctParams {
            max_nodes: 300,
            ..PuctParams::new(budget, 1)
        };
        let out = search_watched(
            &game,
            &net,
            params,
            &AtomicBool::new(false),
            &mut tree,
            None,
        );
        // The search stops at the bound, past it by one expansion at most
        // (a node's children, 82 on 9x9).
        assert!(out.visits < 2000, "{}", out.visits);
        assert!(tree.nodes.len() <= 300 + 82, "{}", tree.nodes.len());
    }
}
