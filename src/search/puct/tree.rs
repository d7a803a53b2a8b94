//! The network's search tree: one arena of nodes (a move, its prior, the
//! sums of what its visits found, its children as a range of the arena, a
//! virtual loss for the threads on their way through), the expansion of a
//! leaf by the network's policy, and the tree kept between searches and
//! re-rooted when the next position follows from it.

use super::bias::{BiasTable, Drift};
use crate::go::board::Point;
use crate::go::game::{Action, Game, Standing};
use crate::nn::Evaluation;

pub(super) struct Node {
    /// The move that leads here (`None`: pass).
    pub(super) mv: Option<Point>,
    pub(super) prior: f32,
    pub(super) visits: u32,
    /// Sums of utility and of win/loss value, from the side of the player
    /// who made `mv`.
    pub(super) utility: f64,
    pub(super) winloss: f64,
    /// The sum of the squared utilities (their spread, for exploration
    /// and the confidence bound of the move chosen).
    pub(super) utility_sq: f64,
    /// The network's utility of this position, once evaluated, from the
    /// side of the player who made `mv`, and its win/loss value, score
    /// lead and final score from that side, its squared score and its
    /// chance of no result: the node's own evaluation in its sums.
    pub(super) nn_utility: f32,
    pub(super) nn_winloss: f32,
    pub(super) nn_lead: f32,
    pub(super) nn_score: f32,
    pub(super) nn_score_sq: f32,
    pub(super) nn_no_result: f32,
    /// The subtree value bias key of the move that leads here (0: none;
    /// see `bias`), the drift this node has filed under it (as a weighted
    /// sum and its weight), and the correction its own network value has
    /// in the sums.
    pub(super) bias_key: u64,
    pub(super) filed_delta: f32,
    pub(super) filed_weight: f32,
    pub(super) bias_applied: f32,
    /// Sums of the score lead and the final score (the mover's side), of
    /// the network's squared score and of its chance of no result, for
    /// analysis.
    pub(super) lead: f64,
    pub(super) score: f64,
    pub(super) score_sq: f64,
    pub(super) no_result: f64,
    /// Children, once evaluated (`first..first + count` in the arena).
    pub(super) first: u32,
    pub(super) count: u32,
    pub(super) expanded: bool,
    /// Legal by the network's mask but refused by the game (a situational
    /// repetition): never chosen again.
    pub(super) refused: bool,
    /// Threads on their way through this node whose visits are not backed
    /// up yet: each counts as a visit lost, so that others look elsewhere.
    pub(super) virtual_loss: u32,
}

impl Node {
    /// The drift this node has filed under its bias key.
    pub(super) fn filed(&self) -> Drift {
        Drift {
            delta: f64::from(self.filed_delta),
            weight: f64::from(self.filed_weight),
        }
    }

    pub(super) fn new(mv: Option<Point>, prior: f32) -> Node {
        Node {
            mv,
            prior,
            visits: 0,
            utility: 0.0,
            winloss: 0.0,
            utility_sq: 0.0,
            nn_utility: 0.0,
            nn_winloss: 0.0,
            nn_lead: 0.0,
            nn_score: 0.0,
            nn_score_sq: 0.0,
            nn_no_result: 0.0,
            bias_key: 0,
            filed_delta: 0.0,
            filed_weight: 0.0,
            bias_applied: 0.0,
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
    pub(super) nodes: Vec<Node>,
    /// Where the root's game stood.
    pub(super) grown_for: Option<Standing>,
    pub(super) white_advantage: f64,
    /// The subtree value bias table of the kept nodes.
    pub(super) bias: BiasTable,
}

impl NetTree {
    /// The nodes under the position of `game`, re-rooted, with the
    /// subtree value bias table of the nodes kept; or a new root and an
    /// empty table.
    pub(super) fn take_for(&mut self, game: &Game, white_advantage: f64) -> (Vec<Node>, BiasTable) {
        let mut nodes = std::mem::take(&mut self.nodes);
        self.bias = BiasTable::default();
        let Some(at) = self.kept_root(&nodes, game, white_advantage) else {
            return (vec![Node::new(None, 1.0)], BiasTable::default());
        };
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
        let filed = |n: &Node| (n.bias_key != 0).then(|| (n.bias_key, n.filed()));
        let table = BiasTable::rebuilt(
            kept.iter().filter_map(filed),
            nodes.iter().filter_map(filed),
        );
        (kept, table)
    }

    /// Where the position of `game` is in the kept tree, if it follows
    /// from the kept root by moves the tree holds, under the same rules,
    /// komi and advantage.
    fn kept_root(&self, nodes: &[Node], game: &Game, white_advantage: f64) -> Option<usize> {
        let grown = self
            .grown_for
            .as_ref()
            .filter(|g| g.continued_by(game) && self.white_advantage == white_advantage)?;
        if nodes.is_empty() {
            return None;
        }
        let mut at = 0;
        let mut to_move = grown.to_move;
        for a in &game.actions()[grown.actions.len()..] {
            let Action::Move(c, mv, _) = a else {
                return None;
            };
            let node = &nodes[at];
            let child = (node.first..node.first + node.count)
                .map(|i| i as usize)
                .find(|&i| nodes[i].mv == *mv && !nodes[i].refused);
            match child {
                Some(i) if node.expanded && to_move == *c => at = i,
                _ => return None,
            }
            to_move = c.opponent();
        }
        (to_move == game.to_move()).then_some(at)
    }

    pub(super) fn keep(
        &mut self,
        nodes: Vec<Node>,
        bias: BiasTable,
        game: &Game,
        white_advantage: f64,
    ) {
        self.nodes = nodes;
        self.bias = bias;
        self.white_advantage = white_advantage;
        self.grown_for = Some(game.standing());
    }
}

/// Adds the legal moves of the position at `leaf` with their priors (pass
/// included).
pub(super) fn expand(nodes: &mut Vec<Node>, leaf: usize, game: &Game, eval: &Evaluation) {
    let board = game.board();
    let first = nodes.len();
    for (p, prior) in eval.priors(board) {
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
