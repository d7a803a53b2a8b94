//! One visit of the search, and what the threads of one search share: the
//! descent from the root by PUCT (`Q + c·P·√N / (1 + n)`, first-play urgency
//! for unvisited children, KataGo's wide root noise in analysis), a virtual
//! loss along the path while the leaf is evaluated outside the lock, the
//! leaf's expansion and the back-up of its values.

use super::report::Ownership;
use super::tree::{Node, expand};
use super::utility::{ScoreUtility, finished_value, values};
use crate::go::board::{Color, Point};
use crate::go::game::Game;
use crate::nn::{Evaluation, Evaluator, Request, SYMMETRIES};
use crate::search::budget::Budget;
use crate::search::root::MoveRules;
use rand::RngExt;
use rand::rngs::SmallRng;
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

/// What the threads of one search share, under one lock: the tree, the
/// ownership sums and the count of visits.
pub(super) struct Shared {
    pub(super) nodes: Vec<Node>,
    pub(super) owned: Ownership,
    pub(super) owned_by_move: Vec<Ownership>,
    /// Visits begun, and visits backed up.
    pub(super) started: u64,
    pub(super) visits: u64,
}

/// What one thread of a search keeps: its walk down the tree (a copy of
/// the game), its network buffers and its generator.
pub(super) struct Walker {
    pub(super) walk: Game,
    pub(super) evals: [Evaluation; 1],
    pub(super) rng: SmallRng,
    pub(super) path: Vec<usize>,
}

/// What every thread of one search reads.
pub(super) struct Job<'a> {
    pub(super) net: &'a Evaluator,
    pub(super) budget: Budget,
    pub(super) white_advantage: f32,
    pub(super) wide_root_noise: f64,
    pub(super) score: ScoreUtility,
    pub(super) start: Instant,
    /// Threads visiting at once.
    pub(super) threads: usize,
    /// The most nodes the tree may hold.
    pub(super) max_nodes: usize,
    pub(super) stop: &'a AtomicBool,
    pub(super) restrict: Option<MoveRules>,
    pub(super) ownership: bool,
    pub(super) moves_ownership: bool,
}

impl Job<'_> {
    /// Whether the search is done (after its first visit).
    /// A time budget ends a visit early: a visit begun now would end about
    /// one visit's time later (the mean so far for one thread), so none
    /// begins that would end past the budget. With a big net a visit is a
    /// tenth of a second or more.
    pub(super) fn done(&self, shared: &Shared) -> bool {
        shared.started > 0
            && (self.budget.playouts.is_some_and(|n| shared.started >= n)
                || self.budget.time.is_some_and(|t| {
                    let elapsed = self.start.elapsed();
                    let per_visit = elapsed.mul_f64(self.threads as f64 / shared.started as f64);
                    elapsed + per_visit >= t
                })
                || self.stop.load(Ordering::Relaxed)
                || shared.nodes.len() >= self.max_nodes)
    }

    /// Whether the restriction, if any, lets `mover` play `mv` (pass
    /// always) at `depth` below the root (1: the root's moves).
    pub(super) fn permits(&self, mover: Color, mv: Option<Point>, depth: usize) -> bool {
        self.restrict
            .as_ref()
            .is_none_or(|r| r.permits(mover, mv, depth))
    }

    /// One visit: descends under the lock with a virtual loss along the
    /// path (so that other threads look elsewhere), evaluates the leaf with
    /// the lock released, then expands it and backs its value up. `false`
    /// when the search is done.
    pub(super) fn visit(&self, shared: &Mutex<Shared>, w: &mut Walker) -> bool {
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
        self.net.evaluate_cached(request, &mut w.evals[0]);
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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

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
}
