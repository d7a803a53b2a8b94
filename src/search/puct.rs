//! The search with the network: PUCT as KataGo and Leela Zero run it. Each
//! visit descends from the root by `Q + c·P·√N / (1 + n)` (P the policy's
//! prior, Q the mean utility of the child, unvisited children at their
//! parent's value less a first-play reduction), evaluates the leaf with the
//! network (no playout), adds the leaf's legal moves with their priors, and
//! backs the leaf's utility up. Utility is the win/loss value plus KataGo's
//! two shares of the expected score: a static one (the score against 0) and
//! a dynamic one (against the score the root expected when the search
//! began), so that a won game is still played tidily and a lost one (a
//! handicap game) is played for points rather than wildly. A game ended by
//! two passes is counted by the network's ownership. The move is the most
//! visited child of the root. In handicap games the network reads a playout
//! doubling advantage (`advantage`).
//!
//! Threads share one tree under one lock: each descends with a virtual
//! loss along its path, evaluates its leaf with the lock released, and
//! backs the value up. Each walks its own copy of the game down and undoes
//! it after each visit, so the search keeps the game's history (superko,
//! the network's history planes).

use super::report::{Candidate, MAX_PV, Report, lower_bound};
use super::root::MoveRules;
use super::settings::{Budget, Decision};
use super::threads::Watch;
use crate::board::{Color, MAX_POINTS, Point};
use crate::game::{Action, Game, Standing};
use crate::nn::{Evaluation, Evaluator, Request, SYMMETRIES, Scratch, inputs};
use crate::random::nth_seed;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// KataGo's exploration constant (utility in −1..1).
const CPUCT: f64 = 1.0;
/// KataGo's growth of exploration with visits: `+ 0.45·ln((N + 500) / 500)`.
const CPUCT_LOG: f64 = 0.45;
const CPUCT_BASE: f64 = 500.0;
/// First-play urgency: an unvisited child starts at its parent's value less
/// this times the root of the prior already visited (KataGo: 0.2, 0.1 at the root).
const FPU_REDUCTION: f64 = 0.2;
const ROOT_FPU_REDUCTION: f64 = 0.1;
/// The most nodes a tree holds (80 bytes each: about 320 MB); the search
/// stops there.
const MAX_NODES: usize = 4_000_000;
/// The shares of the utility that the score has (KataGo's
/// `staticScoreUtilityFactor`, `dynamicScoreUtilityFactor`), and their
/// scales in points per board side: the utility of a score s is
/// `atan((s − center) / (scale · side)) · 2/π`.
const STATIC_SCORE_UTILITY: f64 = 0.1;
const STATIC_SCORE_SCALE: f64 = 2.0;
const DYNAMIC_SCORE_UTILITY: f64 = 0.3;
const DYNAMIC_SCORE_SCALE: f64 = 0.75;
/// The dynamic centre leans this much from the expected score toward 0
/// (KataGo's `dynamicScoreCenterZeroWeight`).
const DYNAMIC_CENTER_ZERO_WEIGHT: f64 = 0.2;

struct Node {
    /// The move that leads here (`None`: pass).
    mv: Option<Point>,
    prior: f32,
    visits: u32,
    /// Sums of utility and of win/loss value, from the side of the player
    /// who made `mv`.
    utility: f64,
    winloss: f64,
    /// Sums of the score lead and the final score (the mover's side), of
    /// the network's squared score and of its chance of no result, for
    /// analysis.
    lead: f64,
    score: f64,
    score_sq: f64,
    no_result: f64,
    /// Children, once evaluated (`first..first + count` in the arena).
    first: u32,
    count: u32,
    expanded: bool,
    /// Legal by the network's mask but refused by the game (a situational
    /// repetition): never chosen again.
    refused: bool,
    /// Threads on their way through this node whose visits are not backed
    /// up yet: each counts as a visit lost, so that others look elsewhere.
    virtual_loss: u32,
}

impl Node {
    fn new(mv: Option<Point>, prior: f32) -> Node {
        Node {
            mv,
            prior,
            visits: 0,
            utility: 0.0,
            winloss: 0.0,
            lead: 0.0,
            score: 0.0,
            score_sq: 0.0,
            no_result: 0.0,
            first: 0,
            count: 0,
            expanded: false,
            refused: false,
            virtual_loss: 0,
        }
    }
}

/// The tree of the last search, kept for the next one: it serves again when
/// the next position follows from its root by moves it holds (the moves
/// played since), under the same rules, komi and advantage.
#[derive(Default)]
pub struct NetTree {
    nodes: Vec<Node>,
    /// Where the root's game stood.
    grown_for: Option<Standing>,
    white_advantage: f64,
}

impl NetTree {
    /// The nodes under the position of `game`, re-rooted, or a new root.
    fn take_for(&mut self, game: &Game, white_advantage: f64) -> Vec<Node> {
        let mut nodes = std::mem::take(&mut self.nodes);
        let grown = self
            .grown_for
            .as_ref()
            .filter(|g| g.continued_by(game) && self.white_advantage == white_advantage);
        let mut at = 0;
        if let Some(grown) = grown
            && !nodes.is_empty()
        {
            let mut to_move = grown.to_move;
            for a in &game.actions()[grown.actions.len()..] {
                let Action::Move(c, mv, _) = a else {
                    return vec![Node::new(None, 1.0)];
                };
                let node = &nodes[at];
                let child = (node.first..node.first + node.count)
                    .map(|i| i as usize)
                    .find(|&i| nodes[i].mv == *mv && !nodes[i].refused);
                match child {
                    Some(i) if node.expanded && to_move == *c => at = i,
                    _ => return vec![Node::new(None, 1.0)],
                }
                to_move = c.opponent();
            }
            if to_move != game.to_move() {
                return vec![Node::new(None, 1.0)];
            }
        } else {
            return vec![Node::new(None, 1.0)];
        }
        // Copy the subtree under `at` into a new arena, children together.
        let mut kept = vec![Node::new(None, 1.0)];
        let old_root = std::mem::replace(&mut nodes[at], Node::new(None, 1.0));
        kept[0] = Node {
            mv: None,
            prior: 1.0,
            ..old_root
        };
        // Each kept node still names its children by their old indices
        // until it is taken from the queue.
        let mut queue = vec![0usize];
        while let Some(new) = queue.pop() {
            if !kept[new].expanded {
                continue;
            }
            let (first, count) = (kept[new].first as usize, kept[new].count as usize);
            let start = kept.len();
            for n in &mut nodes[first..first + count] {
                kept.push(std::mem::replace(n, Node::new(None, 0.0)));
            }
            kept[new].first = start as u32;
            queue.extend(start..start + count);
        }
        kept
    }

    fn keep(&mut self, nodes: Vec<Node>, game: &Game, white_advantage: f64) {
        self.nodes = nodes;
        self.white_advantage = white_advantage;
        self.grown_for = Some(game.standing());
    }
}

/// How one search runs.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// Visits, seconds or both.
    pub budget: Budget,
    pub seed: u64,
    pub threads: usize,
    /// The playout doublings White is assumed to have over Black (see
    /// `advantage`; 0 in even games and in analysis).
    pub white_advantage: f64,
    /// KataGo's `wideRootNoise`: how much wider than its values say the
    /// root is searched (0 in play; KataGo's analysis engine: 0.04).
    pub wide_root_noise: f64,
}

impl Params {
    /// One thread, no advantage.
    pub fn new(budget: Budget, seed: u64) -> Params {
        Params {
            budget,
            seed,
            threads: 1,
            white_advantage: 0.0,
            wide_root_noise: 0.0,
        }
    }

    pub fn threads(self, threads: usize) -> Params {
        Params { threads, ..self }
    }
}

/// What a search found.
pub struct Outcome {
    pub decision: Decision,
    /// The root player's win rate by the search (0..1).
    pub win_rate: f64,
    /// The root player's score lead by the search.
    pub lead: f64,
    pub visits: u64,
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
    search_watched(game, net, Params::new(budget, seed), stop, tree, None)
}

/// What the threads of one search share, under one lock: the tree, the
/// ownership sums and the count of visits.
struct Shared {
    nodes: Vec<Node>,
    owned: Ownership,
    owned_by_move: Vec<Ownership>,
    /// Visits begun, and visits backed up.
    started: u64,
    visits: u64,
}

/// What one thread of a search keeps: its walk down the tree (a copy of
/// the game), its network buffers and its generator.
struct Walker {
    walk: Game,
    scratch: Scratch,
    evals: [Evaluation; 1],
    rng: SmallRng,
    path: Vec<usize>,
}

/// What every thread of one search reads.
struct Job<'a> {
    net: &'a Evaluator,
    budget: Budget,
    white_advantage: f32,
    wide_root_noise: f64,
    score: ScoreUtility,
    start: Instant,
    stop: &'a AtomicBool,
    restrict: Option<MoveRules>,
    ownership: bool,
    moves_ownership: bool,
}

impl Job<'_> {
    /// Whether the search is done (after its first visit).
    fn done(&self, shared: &Shared) -> bool {
        shared.started > 0
            && (self.budget.playouts.is_some_and(|n| shared.started >= n)
                || self.budget.time.is_some_and(|t| self.start.elapsed() >= t)
                || self.stop.load(Ordering::Relaxed)
                || shared.nodes.len() >= MAX_NODES)
    }

    /// Whether the restriction, if any, lets `mover` play `mv` (pass
    /// always) at `depth` below the root (1: the root's moves).
    fn permits(&self, mover: Color, mv: Option<Point>, depth: usize) -> bool {
        self.restrict
            .as_ref()
            .is_none_or(|r| mv.is_none_or(|p| r.permits(mover, p, depth)))
    }

    /// One visit: descends under the lock with a virtual loss along the
    /// path (so that other threads look elsewhere), evaluates the leaf with
    /// the lock released, then expands it and backs its value up. `false`
    /// when the search is done.
    fn visit(&self, shared: &Mutex<Shared>, w: &mut Walker) -> bool {
        let lock = || shared.lock().unwrap_or_else(|e| e.into_inner());
        let mut s = lock();
        if self.done(&s) {
            return false;
        }
        s.started += 1;
        w.path.clear();
        w.path.push(0);
        let mut played = 0;
        while s.nodes[*w.path.last().expect("the root")].expanded && !w.walk.is_over() {
            let at = *w.path.last().expect("the root");
            let mover = w.walk.to_move();
            let depth = w.path.len();
            let permits = |mv| self.permits(mover, mv, depth);
            let noise = (at == 0 && self.wide_root_noise > 0.0)
                .then_some((self.wide_root_noise, &mut w.rng));
            let Some(child) = select(&s.nodes, at, at == 0, permits, noise) else {
                break;
            };
            if w.walk.play(mover, s.nodes[child].mv).is_err() {
                s.nodes[child].refused = true;
                continue;
            }
            played += 1;
            w.path.push(child);
        }
        for &n in &w.path {
            s.nodes[n].virtual_loss += 1;
        }
        drop(s);
        // Evaluate the leaf for its player to move.
        let leaf = *w.path.last().expect("the root");
        let to_move = w.walk.to_move();
        let symmetry = w.rng.random_range(0..SYMMETRIES);
        let request = Request {
            game: &w.walk,
            to_move,
            fresh: false,
            symmetry,
            white_advantage: self.white_advantage,
        };
        self.net
            .evaluate_cached(request, &mut w.scratch, &mut w.evals[0]);
        let eval = &w.evals[0];
        let mut s = lock();
        let (utility, winloss, lead, score) = if w.walk.is_over() {
            let (value, margin) = finished_value(&w.walk, eval, to_move);
            let white_margin = to_move.from_white() * margin;
            let utility = value + to_move.from_white() * self.score.of(white_margin, 0.0);
            (utility, value, margin, margin)
        } else {
            if !s.nodes[leaf].expanded {
                expand(&mut s.nodes, leaf, &w.walk, eval);
            }
            values(eval, to_move, &self.score)
        };
        if self.ownership {
            s.owned.add(eval);
        }
        if self.moves_ownership
            && let Some(&child) = w.path.get(1)
        {
            let at = child - s.nodes[0].first as usize;
            if s.owned_by_move.len() <= at {
                let count = s.nodes[0].count as usize;
                s.owned_by_move.resize_with(count, Ownership::default);
            }
            s.owned_by_move[at].add(eval);
        }
        // Back up: a node's sums are from the side of the player who moved
        // into it, the opponent of the player to move there.
        let mut sign = -1.0;
        for &n in w.path.iter().rev() {
            let node = &mut s.nodes[n];
            node.visits += 1;
            node.virtual_loss -= 1;
            node.utility += sign * utility;
            node.winloss += sign * winloss;
            node.lead += sign * lead;
            node.score += sign * score;
            node.score_sq += f64::from(eval.white_score_mean_sq);
            node.no_result += f64::from(eval.no_result);
            sign = -sign;
        }
        s.visits += 1;
        drop(s);
        for _ in 0..played {
            w.walk.undo();
        }
        true
    }
}

/// [`search`] with `threads` threads on one tree, reporting to `watch`
/// every interval and at the end: the root's moves with their visits, win
/// rates, priors, score leads and lines, and the ownership the network
/// gives, averaged over the visits. A watch that keeps moves out (`avoid`,
/// `allow`) starts a tree of its own and leaves the kept one alone.
pub fn search_watched(
    game: &Game,
    net: &Evaluator,
    params: Params,
    stop: &AtomicBool,
    tree: &mut NetTree,
    mut watch: Option<Watch>,
) -> Outcome {
    let Params {
        budget,
        seed,
        threads,
        white_advantage,
        wide_root_noise,
    } = params;
    let restrict = watch.as_ref().and_then(|w| w.restrict.clone());
    let mut fresh = NetTree::default();
    let tree = if restrict.is_some() { &mut fresh } else { tree };
    let nodes = tree.take_for(game, white_advantage);
    let score = ScoreUtility::centred(game, net, &nodes[0], white_advantage as f32);
    let shared = Mutex::new(Shared {
        nodes,
        owned: Ownership::default(),
        owned_by_move: Vec::new(),
        started: 0,
        visits: 0,
    });
    let job = Job {
        net,
        budget,
        white_advantage: white_advantage as f32,
        wide_root_noise,
        score,
        start: Instant::now(),
        stop,
        restrict,
        ownership: watch.as_ref().is_some_and(|w| w.ownership),
        moves_ownership: watch.as_ref().is_some_and(|w| w.moves_ownership),
    };
    let walker = |n: u64| Walker {
        walk: game.clone(),
        scratch: Scratch::default(),
        evals: [Evaluation::default()],
        rng: SmallRng::seed_from_u64(nth_seed(seed, n)),
        path: Vec::with_capacity(64),
    };
    let lock = || shared.lock().unwrap_or_else(|e| e.into_inner());
    std::thread::scope(|scope| {
        // The helpers only visit; this thread visits and reports.
        for n in 1..threads.max(1) {
            let (job, shared) = (&job, &shared);
            let mut w = walker(n as u64);
            scope.spawn(move || while job.visit(shared, &mut w) {});
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
                let r = report(&s.nodes, game, watch.min_moves, &s.owned, &s.owned_by_move);
                drop(s);
                (watch.on_report)(&r);
                last_report = Instant::now();
            }
        }
    });
    let s = shared.into_inner().unwrap_or_else(|e| e.into_inner());
    let final_report = watch.as_mut().map(|w| {
        let at_end = report(&s.nodes, game, w.min_moves, &s.owned, &s.owned_by_move);
        if w.at_end {
            (w.on_report)(&at_end);
        }
        at_end
    });
    let nodes = s.nodes;
    let root = &nodes[0];
    // The most visited move the watch permits (with a budget of a visit
    // or two, an unvisited one by its prior).
    let to_move = game.to_move();
    let best = (root.first..root.first + root.count)
        .map(|i| i as usize)
        .filter(|&i| !nodes[i].refused && job.permits(to_move, nodes[i].mv, 1))
        .max_by_key(|&i| (nodes[i].visits, (nodes[i].prior * 1e6) as u64));
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
        report: final_report,
    };
    tree.keep(nodes, game, white_advantage);
    outcome
}

/// Each point's expected owner (+1 Black, indexed by point) by a search of
/// `visits` visits from `game`'s position as one play goes on from (its
/// history kept, the passes that ended it no longer ending it), the
/// network's ownership averaged over the visits: KataGo's judge of dead
/// stones at the end of a game.
pub fn ownership(game: &Game, net: &Evaluator, visits: u64, seed: u64) -> Vec<f64> {
    let game = game.continued();
    let mut ignore = |_: &Report| {};
    let watch = Watch {
        ownership: true,
        ..Watch::quiet(None, &mut ignore)
    };
    let budget = Budget {
        playouts: Some(visits),
        time: None,
    };
    let params = Params::new(budget, seed);
    let stop = AtomicBool::new(false);
    let out = search_watched(
        &game,
        net,
        params,
        &stop,
        &mut NetTree::default(),
        Some(watch),
    );
    let report = out.report.expect("a watched search reports at its end");
    report
        .ownership
        .map(|(mean, _)| mean)
        .expect("the watch counts ownership")
}

/// The child of `at` with the highest PUCT value among those `permits`
/// lets through, if any; with `noise`, each child's prior and value widened
/// by [`widen`].
fn select(
    nodes: &[Node],
    at: usize,
    is_root: bool,
    permits: impl Fn(Option<Point>) -> bool,
    mut noise: Option<(f64, &mut SmallRng)>,
) -> Option<usize> {
    let node = &nodes[at];
    let parent_visits = (node.visits + node.virtual_loss).max(1) as f64;
    // The parent's value for the player to move there (its sums are the
    // other side's).
    let parent_q = if node.visits > 0 {
        -node.utility / node.visits as f64
    } else {
        0.0
    };
    let children = node.first as usize..(node.first + node.count) as usize;
    let visited_prior: f64 = children
        .clone()
        .filter(|&c| nodes[c].visits + nodes[c].virtual_loss > 0)
        .map(|c| nodes[c].prior as f64)
        .sum();
    let reduction = if is_root {
        ROOT_FPU_REDUCTION
    } else {
        FPU_REDUCTION
    };
    let fpu = parent_q - reduction * visited_prior.sqrt();
    let cpuct = CPUCT + CPUCT_LOG * ((parent_visits + CPUCT_BASE) / CPUCT_BASE).ln();
    let explore = cpuct * parent_visits.sqrt();
    children
        .filter(|&c| !nodes[c].refused && permits(nodes[c].mv))
        .map(|c| {
            let n = &nodes[c];
            // A virtual loss is a visit worth −1 to the mover.
            let seen = n.visits + n.virtual_loss;
            let q = if seen > 0 {
                (n.utility - f64::from(n.virtual_loss)) / f64::from(seen)
            } else {
                fpu
            };
            let (prior, q) = match noise.as_mut() {
                Some((wide, rng)) => widen(f64::from(n.prior), q, *wide, rng),
                None => (f64::from(n.prior), q),
            };
            (c, q + explore * prior / (1.0 + f64::from(seen)))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(c, _)| c)
}

/// KataGo's wide root noise for one root child: its prior flattened to the
/// power `1 / (4·wide + 1)` and, one time in two, its value raised by
/// `wide·|z|`, z drawn from the standard normal distribution.
fn widen(prior: f64, q: f64, wide: f64, rng: &mut SmallRng) -> (f64, f64) {
    let prior = prior.powf(1.0 / (4.0 * wide + 1.0));
    if rng.random::<bool>() {
        // Box and Muller's normal deviate from two uniform ones.
        let u: f64 = 1.0 - rng.random::<f64>();
        let z = (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * rng.random::<f64>()).cos();
        (prior, q + wide * z.abs())
    } else {
        (prior, q)
    }
}

/// Adds the legal moves of the position at `leaf` with their priors (pass
/// included).
fn expand(nodes: &mut Vec<Node>, leaf: usize, game: &Game, eval: &Evaluation) {
    let board = game.board();
    let first = nodes.len();
    for p in inputs::points_in_net_order(board) {
        let prior = eval.policy[inputs::position(board, p)];
        if prior >= 0.0 {
            nodes.push(Node::new(Some(p), prior));
        }
    }
    nodes.push(Node::new(None, eval.pass));
    let count = (nodes.len() - first) as u32;
    let node = &mut nodes[leaf];
    node.first = first as u32;
    node.count = count;
    node.expanded = true;
}

/// The score's share of the utility in one search, from White's side.
#[derive(Clone, Copy, Debug)]
struct ScoreUtility {
    /// White's score the dynamic share is centred on.
    center: f64,
    side: f64,
}

/// Points of the standard normal distribution, and their weights, over
/// which the utility of an uncertain score is averaged.
const NORMAL_POINTS: usize = 33;
const NORMAL_REACH: f64 = 4.0;

fn normal_weights() -> &'static [(f64, f64); NORMAL_POINTS] {
    static WEIGHTS: std::sync::LazyLock<[(f64, f64); NORMAL_POINTS]> =
        std::sync::LazyLock::new(|| {
            let mut w = [(0.0, 0.0); NORMAL_POINTS];
            let step = 2.0 * NORMAL_REACH / (NORMAL_POINTS - 1) as f64;
            for (i, slot) in w.iter_mut().enumerate() {
                let z = -NORMAL_REACH + step * i as f64;
                *slot = (z, (-0.5 * z * z).exp());
            }
            let total: f64 = w.iter().map(|&(_, weight)| weight).sum();
            w.map(|(z, weight)| (z, weight / total))
        });
    &WEIGHTS
}

/// `atan((s − center) / scale) · 2/π` averaged over s normally spread
/// around `mean` by `stdev` (KataGo's `expectedWhiteScoreValue`).
fn expected_score_value(mean: f64, stdev: f64, center: f64, scale: f64) -> f64 {
    let at = |s: f64| ((s - center) / scale).atan() * std::f64::consts::FRAC_2_PI;
    if stdev < 1e-3 {
        return at(mean);
    }
    normal_weights()
        .iter()
        .map(|&(z, weight)| weight * at(mean + stdev * z))
        .sum()
}

impl ScoreUtility {
    /// Centred on the score the root expects, as KataGo centres it: the
    /// kept tree's average where the root has visits, the network's
    /// evaluation of the root otherwise; leaning a fifth toward 0, but no
    /// further than the dynamic scale.
    fn centred(game: &Game, net: &Evaluator, root: &Node, white_advantage: f32) -> ScoreUtility {
        let to_move = game.to_move();
        let expected = if root.visits > 0 {
            // The root's sums are from the side of the player before it.
            to_move.opponent().from_white() * root.score / f64::from(root.visits)
        } else {
            let request = Request {
                game,
                to_move,
                fresh: false,
                symmetry: 0,
                white_advantage,
            };
            let mut eval = Evaluation::default();
            net.evaluate_cached(request, &mut Scratch::default(), &mut eval);
            f64::from(eval.white_score_mean)
        };
        // No further from the expected score than the dynamic scale.
        let side = game.size() as f64;
        let reach = DYNAMIC_SCORE_SCALE * side;
        let center = (expected * (1.0 - DYNAMIC_CENTER_ZERO_WEIGHT))
            .clamp(expected - reach, expected + reach);
        ScoreUtility { center, side }
    }

    /// White's utility from a score spread around White's `mean` by `stdev`.
    fn of(&self, mean: f64, stdev: f64) -> f64 {
        let value = |center, scale| expected_score_value(mean, stdev, center, scale * self.side);
        STATIC_SCORE_UTILITY * value(0.0, STATIC_SCORE_SCALE)
            + DYNAMIC_SCORE_UTILITY * value(self.center, DYNAMIC_SCORE_SCALE)
    }
}

/// Utility and win/loss value (−1..1), score lead and final score of an
/// evaluation for `to_move`.
fn values(eval: &Evaluation, to_move: Color, score: &ScoreUtility) -> (f64, f64, f64, f64) {
    let sign = to_move.from_white();
    let winloss = sign * (eval.white_win - eval.white_loss) as f64;
    let lead = sign * eval.white_lead as f64;
    let mean = f64::from(eval.white_score_mean);
    let stdev = (f64::from(eval.white_score_mean_sq) - mean * mean)
        .max(0.0)
        .sqrt();
    let utility = winloss + sign * score.of(mean, stdev);
    (utility, winloss, lead, sign * mean)
}

/// A game ended by two passes, for `to_move`: 1 won, −1 lost, 0 drawn, by
/// an area count where each point goes to the side the network's ownership
/// gives it; and that count's margin.
fn finished_value(game: &Game, eval: &Evaluation, to_move: Color) -> (f64, f64) {
    let white_area: f64 = eval
        .white_ownership
        .iter()
        .map(|&o| {
            if o > 0.0 {
                1.0
            } else if o < 0.0 {
                -1.0
            } else {
                0.0
            }
        })
        .sum();
    let komi = -inputs::self_komi(game, Color::Black);
    let white_margin = white_area + komi;
    let margin = to_move.from_white() * white_margin;
    (margin.signum(), margin)
}

/// The network's ownership summed over the visits (White's, −1..1, in
/// the network's order of points), for its mean and spread.
#[derive(Default)]
struct Ownership {
    count: u32,
    sum: Vec<f64>,
    sum_sq: Vec<f64>,
}

impl Ownership {
    fn add(&mut self, eval: &Evaluation) {
        let n = eval.white_ownership.len();
        if self.sum.len() != n {
            *self = Ownership {
                count: 0,
                sum: vec![0.0; n],
                sum_sq: vec![0.0; n],
            };
        }
        for (i, &o) in eval.white_ownership.iter().enumerate() {
            let o = f64::from(o);
            self.sum[i] += o;
            self.sum_sq[i] += o * o;
        }
        self.count += 1;
    }

    /// The mean ownership (Black's +1) and its spread, indexed by point;
    /// `None` before the first evaluation.
    fn by_point(&self, board: &crate::board::Board) -> Option<(Vec<f64>, Vec<f64>)> {
        (self.count > 0).then(|| {
            let (mut mean, mut spread) = (vec![0.0; MAX_POINTS], vec![0.0; MAX_POINTS]);
            let count = f64::from(self.count);
            for (i, p) in inputs::points_in_net_order(board).enumerate() {
                let m = self.sum[i] / count;
                mean[p as usize] = -m;
                spread[p as usize] = (self.sum_sq[i] / count - m * m).max(0.0).sqrt();
            }
            (mean, spread)
        })
    }
}

/// What the search has found so far: the root's visited moves (and up to
/// `min_moves` in all, the unvisited ones by prior), most visited first,
/// from the side to move's view; the ownership, Black's +1, by point.
fn report(
    nodes: &[Node],
    game: &Game,
    min_moves: usize,
    owned: &Ownership,
    owned_by_move: &[Ownership],
) -> Report {
    let root = &nodes[0];
    let children: Vec<usize> = (root.first..root.first + root.count)
        .map(|i| i as usize)
        .filter(|&i| !nodes[i].refused)
        .collect();
    let candidate = |i: usize| {
        let n = &nodes[i];
        let visits = n.visits as f64;
        let seen = n.visits > 0;
        let mean = |sum: f64| seen.then(|| sum / visits);
        let score = mean(n.score);
        let stdev = score.map(|s| (n.score_sq / visits - s * s).max(0.0).sqrt());
        let win_rate = mean(n.winloss).map_or(0.0, |w| (1.0 + w) / 2.0);
        Candidate {
            mv: n.mv,
            visits: u64::from(n.visits),
            win_rate,
            lcb: lower_bound(win_rate, visits),
            prior: f64::from(n.prior),
            score_lead: mean(n.lead),
            score_stdev: stdev,
            score_selfplay: score,
            utility: mean(n.utility),
            no_result: mean(n.no_result),
            pv: Vec::new(),
            pv_visits: Vec::new(),
            ownership: owned_by_move
                .get(i - root.first as usize)
                .and_then(|o| o.by_point(game.board())),
        }
        .with_line(principal_variation(nodes, i))
    };
    let mut visited: Vec<usize> = children
        .iter()
        .copied()
        .filter(|&i| nodes[i].visits > 0)
        .collect();
    visited.sort_by(|&a, &b| {
        nodes[b]
            .visits
            .cmp(&nodes[a].visits)
            .then(nodes[b].prior.total_cmp(&nodes[a].prior))
    });
    let mut unvisited: Vec<usize> = children
        .iter()
        .copied()
        .filter(|&i| nodes[i].visits == 0)
        .collect();
    unvisited.sort_by(|&a, &b| nodes[b].prior.total_cmp(&nodes[a].prior));
    let more = min_moves.saturating_sub(visited.len());
    let candidates = visited
        .into_iter()
        .chain(unvisited.into_iter().take(more))
        .map(candidate)
        .collect();
    let ownership = owned.by_point(game.board());
    Report {
        to_move: game.to_move(),
        playouts: u64::from(root.visits),
        candidates,
        ownership,
    }
}

/// The move of node `i` and the most visited line after it, with the
/// visits of each.
fn principal_variation(nodes: &[Node], mut i: usize) -> (Vec<Option<Point>>, Vec<u64>) {
    let mut pv = vec![nodes[i].mv];
    let mut visits = vec![u64::from(nodes[i].visits)];
    while pv.len() < MAX_PV && nodes[i].expanded {
        let best = (nodes[i].first..nodes[i].first + nodes[i].count)
            .map(|c| c as usize)
            .filter(|&c| nodes[c].visits > 0 && !nodes[c].refused)
            .max_by_key(|&c| nodes[c].visits);
        let Some(c) = best else {
            break;
        };
        pv.push(nodes[c].mv);
        visits.push(u64::from(nodes[c].visits));
        i = c;
    }
    (pv, visits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;
    use crate::vertex::parse_vertex;

    #[test]
    fn an_uncertain_score_is_worth_less_than_a_sure_one() {
        let sure = expected_score_value(10.0, 0.0, 0.0, 14.25);
        assert!((sure - (10.0f64 / 14.25).atan() * std::f64::consts::FRAC_2_PI).abs() < 1e-12);
        let unsure = expected_score_value(10.0, 30.0, 0.0, 14.25);
        assert!(0.0 < unsure && unsure < sure * 0.6, "{unsure} {sure}");
        // Odd about the centre.
        let below = expected_score_value(-10.0 + 5.0, 30.0, 5.0, 14.25);
        assert!((below + expected_score_value(10.0 + 5.0, 30.0, 5.0, 14.25)).abs() < 1e-9);
    }

    #[test]
    fn the_dynamic_centre_follows_the_expected_score_within_reach() {
        let net = Evaluator::embedded();
        let game = Game::new(9, Rules::default(), 7.5);
        let mut root = Node::new(None, 1.0);
        // White expects +10 (the root's sums are Black's: Black moved
        // before a root where White plays).
        let mut white_to_move = game.clone();
        white_to_move.set_to_move(Color::White);
        root.visits = 4;
        root.score = -40.0;
        let centre = |root: &Node| ScoreUtility::centred(&white_to_move, &net, root, 0.0).center;
        assert!((centre(&root) - 8.0).abs() < 1e-9);
        // +100: the lean toward 0 stops at 0.75 · 9 points.
        root.score = -400.0;
        assert!((centre(&root) - (100.0 - 6.75)).abs() < 1e-9);
        // No visits: the network's expected score of the empty board, near 0.
        let fresh = ScoreUtility::centred(&game, &net, &Node::new(None, 1.0), 0.0);
        assert!(fresh.center.abs() < 5.0, "{}", fresh.center);
        // Above the centre is worth more to White, below less.
        assert!(fresh.of(fresh.center + 3.0, 5.0) > fresh.of(fresh.center, 5.0));
    }

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
            let params = Params {
                wide_root_noise,
                ..Params::new(budget, 5)
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

    #[test]
    fn widening_flattens_the_prior_and_raises_values_half_the_time() {
        let mut rng = SmallRng::seed_from_u64(1);
        let draws: Vec<(f64, f64)> = (0..1000)
            .map(|_| widen(0.01, 0.2, 0.25, &mut rng))
            .collect();
        // 0.01 to the power 1/2.
        assert!(draws.iter().all(|&(p, _)| (p - 0.1).abs() < 1e-12));
        let raised: Vec<f64> = draws
            .iter()
            .map(|&(_, q)| q - 0.2)
            .filter(|&d| d > 0.0)
            .collect();
        assert!((430..570).contains(&raised.len()), "{}", raised.len());
        // |z| has mean √(2/π) ≈ 0.80: times 0.25, about 0.2.
        let mean = raised.iter().sum::<f64>() / raised.len() as f64;
        assert!((mean - 0.2).abs() < 0.03, "{mean}");
        assert!(draws.iter().all(|&(_, q)| q >= 0.2));
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
            Params::new(budget, 3).threads(2),
            &stop,
            &mut tree,
            None,
        );
        assert_eq!(out.visits, 200);
        let e4 = parse_vertex("E4", 9).unwrap().unwrap();
        assert_eq!(out.decision, Decision::Play(e4));
        // Every visit backed up, every virtual loss taken back.
        let nodes = &tree.nodes;
        assert_eq!(nodes[0].visits, 200);
        assert!(nodes.iter().all(|n| n.virtual_loss == 0));
        let children = nodes[0].first as usize..(nodes[0].first + nodes[0].count) as usize;
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
        let kept = tree.take_for(&game, 0.0);
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
        tree.keep(kept, &game, 0.0);
        let other = Game::new(9, Rules::default(), 6.5);
        assert_eq!(tree.take_for(&other, 0.0)[0].visits, 0);
        let empty = Game::new(9, Rules::default(), 7.5);
        search(&empty, &net, budget, 2, &AtomicBool::new(false), &mut tree);
        assert!(tree.take_for(&empty, 0.0)[0].visits > 0);
        search(&empty, &net, budget, 2, &AtomicBool::new(false), &mut tree);
        assert_eq!(tree.take_for(&empty, 0.5)[0].visits, 0);
        search(&empty, &net, budget, 2, &AtomicBool::new(false), &mut tree);
        assert_eq!(
            tree.take_for(&Game::new(13, Rules::default(), 7.5), 0.0)[0].visits,
            0
        );
    }
}
