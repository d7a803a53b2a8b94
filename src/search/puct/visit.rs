//! One round of visits of a search thread, and what the threads of one
//! search share: descents from the root by PUCT (`explore`), each with a
//! virtual loss along its path, to a round's leaves (one, or a minibatch
//! where the backend wants batches, as lc0 gathers them), evaluated as one
//! batch outside the lock; then each leaf's expansion and the back-up of
//! its values: each evaluated node on the way recomputed from its children
//! and its own corrected evaluation (`backup`).

use super::backup::{Weighed, recompute};
use super::bias::{self, BiasTable};
use super::explore::select;
use super::report::Ownership;
use super::tree::{Tree, expand};
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
    pub(super) tree: Tree,
    /// The subtree value bias correction's drifts.
    pub(super) bias: BiasTable,
    pub(super) owned: Ownership,
    pub(super) owned_by_move: Vec<Ownership>,
    /// The ownership of the evaluation being backed up (scratch space).
    pub(super) white_ownership: Vec<f32>,
    /// The back-up's scratch space.
    pub(super) weighed: Vec<Weighed>,
    /// Visits begun, visits backed up, and visits dropped for an
    /// evaluation that failed at the network's door.
    pub(super) started: u64,
    pub(super) visits: u64,
    pub(super) dropped: u64,
    /// Rounds finished (gathered, evaluated, backed up) and the time they
    /// took, all threads' together: a round's mean duration.
    pub(super) rounds_done: u64,
    pub(super) round_time: std::time::Duration,
}

/// One walk down the tree to a leaf: the game as played down (a copy of
/// the root's, undone after the round), the nodes from the root, and the
/// symmetry the leaf is evaluated under.
pub(super) struct Leaf {
    pub(super) walk: Game,
    pub(super) path: Vec<usize>,
    /// Which of the root's moves the walk took (its place among them).
    root_move: usize,
    played: usize,
    symmetry: usize,
}

impl Leaf {
    pub(super) fn new(root: &Game) -> Leaf {
        Leaf {
            walk: root.clone(),
            path: Vec::with_capacity(64),
            root_move: 0,
            played: 0,
            symmetry: 0,
        }
    }

    /// Takes the walk back to the root.
    fn undo(&mut self) {
        for _ in 0..self.played {
            self.walk.undo();
        }
        self.played = 0;
    }

    fn node(&self) -> usize {
        *self.path.last().expect("the root")
    }
}

/// What one thread of a search keeps: its walks down the tree (one a leaf
/// of a round), their evaluations and its generator.
pub(super) struct Walker {
    pub(super) leaves: Vec<Leaf>,
    pub(super) evals: Vec<Evaluation>,
    pub(super) rng: SmallRng,
}

impl Walker {
    /// A thread's walker gathering up to `leaves` leaves a round.
    pub(super) fn new(root: &Game, leaves: usize, rng: SmallRng) -> Walker {
        let leaves = leaves.max(1);
        Walker {
            leaves: (0..leaves).map(|_| Leaf::new(root)).collect(),
            evals: vec![Evaluation::default(); leaves],
            rng,
        }
    }
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
    /// A time budget ends a round early: a round begun now would end about
    /// one round's time later (the mean duration of the rounds finished so
    /// far, measured round by round), so none begins that would end past
    /// the budget; before any round has finished, only the budget itself
    /// ends the search. With a big net a visit is a tenth of a second or
    /// more, and many threads start their first rounds before any ends.
    pub(super) fn done(&self, shared: &Shared) -> bool {
        shared.started > 0
            && (self.budget.playouts.is_some_and(|n| shared.started >= n)
                || self.budget.time.is_some_and(|t| {
                    let elapsed = self.start.elapsed();
                    let per_round = match shared.rounds_done {
                        0 => std::time::Duration::ZERO,
                        n => shared.round_time.div_f64(n as f64),
                    };
                    elapsed + per_round >= t
                })
                || self.stop.load(Ordering::Relaxed)
                || shared.tree.size() >= self.max_nodes)
    }

    /// Whether the restriction, if any, lets `mover` play `mv` (pass
    /// always) at `depth` below the root (1: the root's moves).
    pub(super) fn permits(&self, mover: Color, mv: Option<Point>, depth: usize) -> bool {
        self.restrict
            .as_ref()
            .is_none_or(|r| r.permits(mover, mv, depth))
    }

    /// One round of visits: under the lock, descends to up to
    /// the walker's count of leaves with a virtual loss along each path (so that
    /// the next descent, this thread's or another's, looks elsewhere),
    /// stopping early at a leaf already gathered; evaluates the leaves as
    /// one batch with the lock released; then expands each and backs its
    /// value up. `false` when the search is done.
    pub(super) fn visit(&self, shared: &Mutex<Shared>, w: &mut Walker) -> bool {
        let lock = || shared.lock().unwrap_or_else(|e| e.into_inner());
        let began = Instant::now();
        let mut s = lock();
        let mut gathered = 0;
        while gathered < w.leaves.len() && !self.done(&s) {
            s.started += 1;
            let leaf = &mut w.leaves[gathered];
            self.descend(&mut s, leaf, &mut w.rng);
            let node = leaf.node();
            if w.leaves[..gathered].iter().any(|l| l.node() == node) {
                // A collision: the leaf waits on this round's evaluation.
                let leaf = &mut w.leaves[gathered];
                for &n in &leaf.path {
                    s.tree.nodes[n].virtual_loss -= 1;
                }
                s.started -= 1;
                leaf.undo();
                break;
            }
            gathered += 1;
        }
        drop(s);
        if gathered == 0 {
            return false;
        }
        self.evaluate(&w.leaves[..gathered], &mut w.evals[..gathered]);
        let mut s = lock();
        for (leaf, eval) in w.leaves[..gathered].iter().zip(&w.evals) {
            if !eval.failed {
                self.back_up(&mut s, leaf, eval);
            } else {
                // Failed at the network's door (which said why): nothing
                // of it reaches the tree, and it is counted as dropped;
                // the visit counts against the budget, so a net that never
                // gives an evaluation still ends the search.
                for &n in &leaf.path {
                    s.tree.nodes[n].virtual_loss -= 1;
                }
                s.dropped += 1;
            }
        }
        s.rounds_done += 1;
        s.round_time += began.elapsed();
        drop(s);
        for leaf in &mut w.leaves[..gathered] {
            leaf.undo();
        }
        true
    }

    /// Descends from the root by PUCT to a leaf (an unexpanded node, or
    /// the end of the game), playing the moves on `leaf`'s walk, and puts
    /// a virtual loss on every node of the path.
    fn descend(&self, s: &mut Shared, leaf: &mut Leaf, rng: &mut SmallRng) {
        leaf.path.clear();
        leaf.path.push(0);
        leaf.played = 0;
        while s.tree.nodes[leaf.node()].expanded && !leaf.walk.is_over() {
            let at = leaf.node();
            let mover = leaf.walk.to_move();
            let depth = leaf.path.len();
            let permits = |mv| self.permits(mover, mv, depth);
            let noise = (at == 0 && self.puct.wide_root_noise > 0.0).then_some(&mut *rng);
            let Some(edge) = select(&s.tree, at, at == 0, &self.puct, permits, noise) else {
                break;
            };
            let child = s.tree.node_of(edge);
            let node = &mut s.tree.nodes[child];
            let mv = node.mv;
            if self.puct.subtree_bias > 0.0 && node.bias_key == 0 {
                let before = leaf.walk.last_move().map(|(_, m)| m);
                node.bias_key = bias::key(leaf.walk.board(), before, mover, mv).unwrap_or(0);
            }
            if leaf.walk.play(mover, mv).is_err() {
                node.refused = true;
                continue;
            }
            if at == 0 {
                leaf.root_move = edge - s.tree.nodes[0].first as usize;
            }
            leaf.played += 1;
            leaf.path.push(child);
        }
        for &n in &leaf.path {
            s.tree.nodes[n].virtual_loss += 1;
        }
        leaf.symmetry = rng.random_range(0..SYMMETRIES);
    }

    /// Evaluates the leaves for their players to move: from the cache
    /// where it knows them, the rest as one batch.
    fn evaluate(&self, leaves: &[Leaf], evals: &mut [Evaluation]) {
        if let [leaf] = leaves {
            self.net.evaluate_cached(self.request(leaf), &mut evals[0]);
        } else {
            let requests: Vec<Request> = leaves.iter().map(|l| self.request(l)).collect();
            self.net.evaluate_cached_batch(&requests, evals);
        }
    }

    /// The evaluation of `leaf` for its player to move.
    fn request<'l>(&self, leaf: &'l Leaf) -> Request<'l> {
        Request {
            game: &leaf.walk,
            to_move: leaf.walk.to_move(),
            fresh: false,
            symmetry: leaf.symmetry,
            white_advantage: self.white_advantage,
        }
    }

    /// Expands `leaf`'s node with `eval` (unless another visit did) and
    /// backs its value up the path, taking off the virtual loss.
    fn back_up(&self, s: &mut Shared, leaf: &Leaf, eval: &Evaluation) {
        let to_move = leaf.walk.to_move();
        let node = leaf.node();
        let (utility, winloss, lead, score) = if leaf.walk.is_over() {
            let (value, margin) = finished_value(&leaf.walk, eval, to_move);
            let white_margin = to_move.from_white() * margin;
            let utility = value + to_move.from_white() * self.score.of(white_margin, 0.0);
            (utility, value, margin, margin)
        } else {
            let values = values(eval, to_move, &self.score);
            if !s.tree.nodes[node].expanded {
                expand(&mut s.tree, node, &leaf.walk, eval);
                // From the side of the player who moved into the leaf.
                let node = &mut s.tree.nodes[node];
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
        let by_move = self.moves_ownership && leaf.path.len() > 1;
        if self.ownership || by_move {
            // The network's ownership, its `tanh` taken once for both sums.
            let Shared {
                tree,
                owned,
                owned_by_move,
                white_ownership,
                ..
            } = s;
            white_ownership.clear();
            white_ownership.extend(eval.white_ownership());
            if self.ownership {
                owned.add(white_ownership);
            }
            if by_move {
                let at = leaf.root_move;
                if owned_by_move.len() <= at {
                    let count = tree.nodes[0].count as usize;
                    owned_by_move.resize_with(count, Ownership::default);
                }
                owned_by_move[at].add(white_ownership);
            }
        }
        // Back up: a node's sums are from the side of the player who moved
        // into it, the opponent of the player to move there. An evaluated
        // node is recomputed from its children and its own evaluation; a
        // finished game's node adds this visit's value.
        let mut sign = -1.0;
        for &n in leaf.path.iter().rev() {
            let node = &mut s.tree.nodes[n];
            node.visits += 1;
            node.virtual_loss -= 1;
            if node.expanded {
                recompute(&mut s.tree, &mut s.bias, n, &self.puct, &mut s.weighed);
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
    }
}
