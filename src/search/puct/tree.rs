//! The network's search tree: an arena of nodes (a position reached by a
//! move: its prior, the sums of what its visits found, a virtual loss for
//! the threads on their way through) and an arena of edges (each node's
//! moves, a range of it: the move, its prior and, once a descent has
//! chosen it, its node), as KataGo makes a child only when it is first
//! visited; the expansion of a leaf by the network's policy; and the tree
//! kept between searches and re-rooted when the next position follows
//! from it.

use super::bias::{BiasTable, Drift};
use crate::go::board::Point;
use crate::go::game::{Action, Game, Standing};
use crate::nn::Evaluation;
use std::ops::Range;

/// A move from a node: what the policy gave it and, once a descent chose
/// it, the node it leads to.
#[derive(Clone, Copy, Debug)]
pub(super) struct Edge {
    pub(super) mv: Option<Point>,
    pub(super) prior: f32,
    /// The child's index in the node arena; 0 (the root's, never a
    /// child) while no descent has chosen it.
    pub(super) node: u32,
}

/// The nodes and their moves; the root is node 0.
pub(super) struct Tree {
    pub(super) nodes: Vec<Node>,
    pub(super) edges: Vec<Edge>,
}

impl Default for Tree {
    /// A root alone.
    fn default() -> Tree {
        Tree {
            nodes: vec![Node::new(None, 1.0)],
            edges: Vec::new(),
        }
    }
}

impl Tree {
    /// The edges of node `n`'s moves.
    pub(super) fn children(&self, n: usize) -> Range<usize> {
        let node = &self.nodes[n];
        node.first as usize..(node.first + node.count) as usize
    }

    /// The node edge `e` leads to, if a descent has made it.
    pub(super) fn child(&self, e: usize) -> Option<&Node> {
        match self.edges[e].node {
            0 => None,
            n => Some(&self.nodes[n as usize]),
        }
    }

    /// The node edge `e` leads to, made (unvisited) if none is yet.
    pub(super) fn node_of(&mut self, e: usize) -> usize {
        let edge = &mut self.edges[e];
        if edge.node == 0 {
            edge.node = self.nodes.len() as u32;
            self.nodes.push(Node::new(edge.mv, edge.prior));
        }
        edge.node as usize
    }

    /// The node of edge `e` as it stands, or an unvisited one where none
    /// is made yet.
    pub(super) fn view(&self, e: usize) -> Node {
        let edge = &self.edges[e];
        self.child(e)
            .cloned()
            .unwrap_or_else(|| Node::new(edge.mv, edge.prior))
    }

    /// The root and its children (made or not) as one arena: the root at
    /// 0, its children from 1 in their edges' order. What reads the
    /// root's moves alone (the move chosen, the report) reads this.
    pub(super) fn root_family(&self) -> Vec<Node> {
        let children = self.children(0);
        let mut family = Vec::with_capacity(children.len() + 1);
        family.push(Node {
            first: 1,
            ..self.nodes[0].clone()
        });
        family.extend(children.map(|e| self.view(e)));
        family
    }

    /// `root` over `children`, each child's node made.
    #[cfg(test)]
    pub(super) fn family(root: Node, children: impl IntoIterator<Item = Node>) -> Tree {
        let mut tree = Tree {
            nodes: vec![root],
            edges: Vec::new(),
        };
        for child in children {
            tree.edges.push(Edge {
                mv: child.mv,
                prior: child.prior,
                node: tree.nodes.len() as u32,
            });
            tree.nodes.push(child);
        }
        tree.nodes[0].first = 0;
        tree.nodes[0].count = tree.edges.len() as u32;
        tree.nodes[0].expanded = true;
        tree
    }

    /// The tree's memory in nodes: each node made, and each move as the
    /// share of a node its edge takes.
    pub(super) fn size(&self) -> usize {
        self.nodes.len() + self.edges.len() * size_of::<Edge>() / size_of::<Node>()
    }

    /// The nodes made: the root, then each move's node in the edges'
    /// order.
    pub(super) fn in_order(&self) -> impl Iterator<Item = &Node> {
        std::iter::once(&self.nodes[0]).chain(self.edges.iter().filter_map(|e| match e.node {
            0 => None,
            n => Some(&self.nodes[n as usize]),
        }))
    }
}

#[derive(Clone)]
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
    /// Its moves, once evaluated (`first..first + count` in the edges).
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
    pub(super) tree: Tree,
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
    pub(super) fn take_for(&mut self, game: &Game, white_advantage: f64) -> (Tree, BiasTable) {
        let mut old = std::mem::take(&mut self.tree);
        self.bias = BiasTable::default();
        let Some(at) = self.kept_root(&mut old, game, white_advantage) else {
            return (Tree::default(), BiasTable::default());
        };
        // Copy the subtree under `at` into new arenas, each node's moves
        // together, in the order the old tree's nodes are taken.
        let old_root = std::mem::replace(&mut old.nodes[at], Node::new(None, 1.0));
        let mut kept = Tree {
            nodes: vec![Node {
                mv: None,
                prior: 1.0,
                ..old_root
            }],
            edges: Vec::new(),
        };
        // Each kept node still names its moves by their old edges until it
        // is taken from the queue.
        let mut queue = vec![0usize];
        while let Some(new) = queue.pop() {
            if !kept.nodes[new].expanded {
                continue;
            }
            let (first, count) = (
                kept.nodes[new].first as usize,
                kept.nodes[new].count as usize,
            );
            let start = kept.edges.len();
            for e in first..first + count {
                let mut edge = old.edges[e];
                if edge.node != 0 {
                    let node =
                        std::mem::replace(&mut old.nodes[edge.node as usize], Node::new(None, 0.0));
                    edge.node = kept.nodes.len() as u32;
                    queue.push(kept.nodes.len());
                    kept.nodes.push(node);
                }
                kept.edges.push(edge);
            }
            kept.nodes[new].first = start as u32;
        }
        // The table sums each key's drifts in one order (the floating sums'
        // bits follow it): the root, then each made node in its edge's
        // order (`Tree::in_order`).
        let filed = |n: &Node| (n.bias_key != 0).then(|| (n.bias_key, n.filed()));
        let table = BiasTable::rebuilt(
            kept.in_order().filter_map(filed),
            old.in_order().filter_map(filed),
        );
        (kept, table)
    }

    /// Where the position of `game` is in the kept tree (its node made if
    /// no descent had), if it follows from the kept root by moves the
    /// tree holds, under the same rules, komi and advantage.
    fn kept_root(&self, tree: &mut Tree, game: &Game, white_advantage: f64) -> Option<usize> {
        let grown = self
            .grown_for
            .as_ref()
            .filter(|g| g.continued_by(game) && self.white_advantage == white_advantage)?;
        let mut at = 0;
        let mut to_move = grown.to_move;
        for a in &game.actions()[grown.actions.len()..] {
            let Action::Move(c, mv, _) = a else {
                return None;
            };
            let edge = tree
                .children(at)
                .find(|&e| tree.edges[e].mv == *mv && !tree.child(e).is_some_and(|n| n.refused));
            match edge {
                Some(e) if tree.nodes[at].expanded && to_move == *c => at = tree.node_of(e),
                _ => return None,
            }
            to_move = c.opponent();
        }
        (to_move == game.to_move()).then_some(at)
    }

    pub(super) fn keep(&mut self, tree: Tree, bias: BiasTable, game: &Game, white_advantage: f64) {
        self.tree = tree;
        self.bias = bias;
        self.white_advantage = white_advantage;
        self.grown_for = Some(game.standing());
    }
}

/// Adds the legal moves of the position at `leaf` with their priors (pass
/// included), as edges with no node yet.
pub(super) fn expand(tree: &mut Tree, leaf: usize, game: &Game, eval: &Evaluation) {
    let board = game.board();
    let first = tree.edges.len();
    for (p, prior) in eval.priors(board) {
        if prior >= 0.0 {
            tree.edges.push(Edge {
                mv: Some(p),
                prior,
                node: 0,
            });
        }
    }
    tree.edges.push(Edge {
        mv: None,
        prior: eval.pass,
        node: 0,
    });
    let count = (tree.edges.len() - first) as u32;
    let node = &mut tree.nodes[leaf];
    node.first = first as u32;
    node.count = count;
    node.expanded = true;
}
