//! One visit of the search, and what the threads of one search share: the
//! descent from the root by PUCT (`explore`), a virtual loss along the path
//! while the leaf is evaluated outside the lock, the leaf's expansion and
//! the back-up of its values: each evaluated node on the way recomputed
//! from its children and its own corrected evaluation (`backup`).

use super::backup::{Weighed, recompute};
use super::bias::{self, BiasTable};
use super::explore::select;
use super::report::Ownership;
use super::tree::{Node, expand};
use super::utility::{ScoreUtility, finished_value, values};
use crate::go::board::{Color, Point};
use crate::go::game::Game;
use crate::nn::{Evaluation, Evaluator, Request, SYMMETRIES};
use crate::search::budget::Budget;
use crate::search::config::Puct;
use crate::search::watch::MoveRules;
use rand::RngExt;
use rand::rngs::SmallRng;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// What the threads of one search share, under one lock: the tree, the
/// ownership sums and the count of visits.
pub(super) struct Shared {
    pub(super) nodes: Vec<Node>,
    /// The subtree value bias correction's drifts.
    pub(super) bias: BiasTable,
    pub(super) owned: Ownership,
    pub(super) owned_by_move: Vec<Ownership>,
    /// The back-up's scratch space.
    pub(super) weighed: Vec<Weighed>,
    /// Visits begun, visits backed up, and visits dropped for an
    /// evaluation that was not finite.
    pub(super) started: u64,
    pub(super) visits: u64,
    pub(super) dropped: u64,
}

/// Says once a process that `net` gave an evaluation that was not finite.
fn dropped_once(net: &crate::nn::Evaluator) {
    static SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if !SAID.swap(true, Ordering::Relaxed) {
        eprintln!(
            "kosumi: the network {} gave an evaluation that is not finite (NaN or infinity); \
             the search drops such evaluations",
            net.name()
        );
    }
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
    pub(super) puct: Puct,
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
            let noise = (at == 0 && self.puct.wide_root_noise > 0.0).then_some(&mut w.rng);
            let Some(child) = select(&s.nodes, at, at == 0, &self.puct, permits, noise) else {
                break;
            };
            let mv = s.nodes[child].mv;
            if self.puct.subtree_bias > 0.0 && s.nodes[child].bias_key == 0 {
                let before = w.walk.last_move().map(|(_, m)| m);
                s.nodes[child].bias_key = bias::key(w.walk.board(), before, mover, mv).unwrap_or(0);
            }
            if w.walk.play(mover, mv).is_err() {
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
        if !eval.is_finite() {
            // Dropped: nothing of it reaches the tree; the visit counts
            // against the budget, so a net that never gives a finite
            // evaluation still ends the search.
            for &n in &w.path {
                s.nodes[n].virtual_loss -= 1;
            }
            s.dropped += 1;
            drop(s);
            dropped_once(self.net);
            for _ in 0..played {
                w.walk.undo();
            }
            return true;
        }
        let (utility, winloss, lead, score) = if w.walk.is_over() {
            let (value, margin) = finished_value(&w.walk, eval, to_move);
            let white_margin = to_move.from_white() * margin;
            let utility = value + to_move.from_white() * self.score.of(white_margin, 0.0);
            (utility, value, margin, margin)
        } else {
            let values = values(eval, to_move, &self.score);
            if !s.nodes[leaf].expanded {
                expand(&mut s.nodes, leaf, &w.walk, eval);
                // From the side of the player who moved into the leaf.
                let node = &mut s.nodes[leaf];
                let (utility, winloss, lead, score) = values;
                node.nn_utility = -utility as f32;
                node.nn_winloss = -winloss as f32;
                node.nn_lead = -lead as f32;
                node.nn_score = -score as f32;
                node.nn_score_sq = eval.white_score_mean_sq;
                node.nn_no_result = eval.no_result;
            }
            values
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
        // into it, the opponent of the player to move there. An evaluated
        // node is recomputed from its children and its own evaluation; a
        // finished game's node adds this visit's value.
        let mut sign = -1.0;
        for &n in w.path.iter().rev() {
            let s = &mut *s;
            let node = &mut s.nodes[n];
            node.visits += 1;
            node.virtual_loss -= 1;
            if node.expanded {
                recompute(&mut s.nodes, &mut s.bias, n, &self.puct, &mut s.weighed);
            } else {
                node.utility += sign * utility;
                node.utility_sq += utility * utility;
                node.winloss += sign * winloss;
                node.lead += sign * lead;
                node.score += sign * score;
                node.score_sq += f64::from(eval.white_score_mean_sq);
                node.no_result += f64::from(eval.no_result);
            }
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
