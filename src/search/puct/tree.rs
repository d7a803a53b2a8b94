//! The network's search tree: one arena of nodes (a move, its prior, the
//! sums of what its visits found, its children as a range of the arena, a
//! virtual loss for the threads on their way through), the expansion of a
//! leaf by the network's policy, and the tree kept between searches and
//! re-rooted when the next position follows from it.

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
    pub(super) fn new(mv: Option<Point>, prior: f32) -> Node {
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
    pub(super) nodes: Vec<Node>,
    /// Where the root's game stood.
    pub(super) grown_for: Option<Standing>,
    pub(super) white_advantage: f64,
}

impl NetTree {
    /// The nodes under the position of `game`, re-rooted, or a new root.
    pub(super) fn take_for(&mut self, game: &Game, white_advantage: f64) -> Vec<Node> {
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

    pub(super) fn keep(&mut self, nodes: Vec<Node>, game: &Game, white_advantage: f64) {
        self.nodes = nodes;
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
