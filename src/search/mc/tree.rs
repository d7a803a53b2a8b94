//! The search tree's nodes and the tree kept from one move to the next.

use crate::go::board::Point;
use crate::go::game::{Action, Game, Standing};

/// Pass in the tree and in playout move lists.
pub(super) const PASS: Point = 0;

/// One node of the tree: the move that leads to it and its statistics, seen
/// by the player who made that move.
#[derive(Clone, Debug)]
pub(super) struct Node {
    pub(super) mv: Point,
    pub(super) visits: f32,
    pub(super) wins: f32,
    /// The part of `visits` that is prior knowledge.
    pub(super) prior_visits: f32,
    pub(super) amaf_visits: f32,
    pub(super) amaf_wins: f32,
    pub(super) first_child: u32,
    pub(super) children: u16,
    pub(super) expanded: bool,
}

impl Node {
    pub(super) fn new(mv: Point, prior_visits: f32, prior_wins: f32) -> Node {
        Node {
            mv,
            visits: prior_visits,
            wins: prior_wins,
            prior_visits,
            amaf_visits: 0.0,
            amaf_wins: 0.0,
            first_child: 0,
            children: 0,
            expanded: false,
        }
    }
}

/// RAVE equivalence parameter: how many real visits one AMAF visit is worth
/// before the real ones dominate. 1000 won 431 of 800 self-play games
/// (53.9%) against 3000 at 3000 playouts a move on 9×9 (docs/strength.md).
pub(super) const RAVE_EQUIV: f32 = 1000.0;
/// Visits before a leaf is expanded.
pub(super) const EXPAND_AT: f32 = 2.0;

/// A search tree kept from one move to the next (tree reuse).
#[derive(Clone, Default)]
pub struct McTree {
    pub(super) nodes: Vec<Node>,
    /// The game the tree was grown for: its actions, side to move, size,
    /// rules and komi. A later game is the same one played on only if it
    /// agrees on all of them (after `boardsize`, `loadsgf`, `undo` and a
    /// different move, `komi`, or a side to move set by hand, the tree's
    /// statistics, and its points, belong to another game).
    pub(super) grown_for: Option<Standing>,
    /// The score counts of the root's moves (`RootScores`), for a later
    /// search of the same position; empty when none were kept.
    pub(super) root_scores: Vec<[i64; 4]>,
}

impl McTree {
    /// What the tree was grown for, if `game` is that game played on (the
    /// same size, rules and komi, its actions a continuation).
    fn played_on(&self, game: &Game) -> Option<&Standing> {
        self.grown_for.as_ref().filter(|g| g.continued_by(game))
    }

    /// Whether `game` stands where the tree was grown (no move since).
    pub(super) fn grown_at(&self, game: &Game) -> bool {
        self.grown_for.as_ref().is_some_and(|g| g.is_where(game))
    }

    /// The subtree for the current position of `game`, if the moves played
    /// since this tree was grown are all in it (and no dice constrain the
    /// root, whose children a reused node would not have filtered).
    pub(super) fn reuse(self, game: &Game) -> Option<Vec<Node>> {
        let grown = self.played_on(game)?;
        if self.nodes.is_empty() || game.dice().is_some() {
            return None;
        }
        let mut at = 0usize;
        let mut to_move = grown.to_move;
        for action in &game.actions()[grown.actions.len()..] {
            // The tree's levels alternate colours: two moves of one colour
            // in a row leave it.
            let Action::Move(color, mv, _) = *action else {
                return None;
            };
            if color != to_move {
                return None;
            }
            to_move = to_move.opponent();
            let node = &self.nodes[at];
            if !node.expanded {
                return None;
            }
            let want = mv.unwrap_or(PASS);
            let start = node.first_child as usize;
            at = (start..start + node.children as usize).find(|&j| self.nodes[j].mv == want)?;
        }
        if !self.nodes[at].expanded || game.to_move() != to_move {
            return None;
        }
        // Copy the subtree under `at` into a fresh arena, children contiguous.
        let mut out = vec![self.nodes[at].clone()];
        let mut queue = vec![(at, 0usize)];
        while let Some((old, new)) = queue.pop() {
            let node = &self.nodes[old];
            if !node.expanded {
                continue;
            }
            let first = out.len();
            let start = node.first_child as usize;
            for j in start..start + node.children as usize {
                queue.push((j, out.len()));
                out.push(self.nodes[j].clone());
            }
            out[new].first_child = first as u32;
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::board::Color;
    use crate::go::rules::Rules;
    use crate::search::mc::{McSettings, run_threads};
    use crate::search::{Budget, Planning};
    use std::sync::atomic::AtomicBool;
    /// A tree grown for `game` with `playouts` playouts, one thread.
    fn grown_tree(game: &Game, playouts: u64) -> McTree {
        let settings = McSettings {
            budget: Budget {
                playouts: Some(playouts),
                time: None,
            },
            seed: 5,
            cleanup: false,
            max_nodes: 1 << 20,
            patterns: false,
        };
        let mut tree = McTree::default();
        let stop = AtomicBool::new(false);
        run_threads(game, &settings, 1, Planning::Chance, &stop, &mut tree);
        tree
    }

    #[test]
    fn a_tree_is_reused_only_for_the_game_it_was_grown_for() {
        let mut g = Game::new(9, Rules::default(), 7.5);
        g.play(Color::Black, Some(g.board().point(4, 4))).unwrap();
        let tree = grown_tree(&g, 3000);
        // White's most visited reply and Black's answer to it are in the tree.
        let root = &tree.nodes[0];
        let children = &tree.nodes[root.first_child as usize..][..root.children as usize];
        let reply = children
            .iter()
            .max_by(|a, b| a.visits.total_cmp(&b.visits))
            .unwrap();
        assert!(reply.expanded);
        let white = Some(reply.mv);
        let mut played_on = g.clone();
        played_on.play(Color::White, white).unwrap();
        let kept = tree
            .clone()
            .reuse(&played_on)
            .expect("the same game, one move on");
        assert_eq!(kept[0].mv, reply.mv);
        assert_eq!(kept[0].visits, reply.visits);

        // The same number of moves, another game: after undo and another
        // move, on another board size, with another komi or ruleset, with
        // two moves of one colour in a row, or with the side to move set by
        // hand, nothing is reused.
        let mut other = g.clone();
        other.undo();
        other
            .play(Color::Black, Some(g.board().point(2, 2)))
            .unwrap();
        other.play(Color::White, white).unwrap();
        assert!(tree.clone().reuse(&other).is_none());
        let mut resized = Game::new(19, Rules::default(), 7.5);
        for (c, p) in g.moves().chain([(Color::White, white)]) {
            let p = p.map(|p| {
                let (x, y) = g.board().coords(p);
                resized.board().point(x, y)
            });
            resized.play(c, p).unwrap();
        }
        assert!(tree.clone().reuse(&resized).is_none());
        let mut komi = played_on.clone();
        komi.komi = 0.5;
        assert!(tree.clone().reuse(&komi).is_none());
        let mut rules = played_on.clone();
        rules.rules = Rules::preset("japanese").unwrap();
        assert!(tree.clone().reuse(&rules).is_none());
        let mut same_colour = g.clone();
        same_colour.play(Color::Black, white).unwrap();
        assert!(tree.clone().reuse(&same_colour).is_none());
        let mut to_move = played_on.clone();
        to_move.set_to_move(Color::White);
        assert!(tree.reuse(&to_move).is_none());
    }

    #[test]
    fn the_tree_stays_within_its_node_bound_and_the_search_goes_on() {
        let g = Game::new(9, Rules::default(), 7.5);
        let settings = McSettings {
            budget: Budget {
                playouts: Some(3000),
                time: None,
            },
            seed: 9,
            cleanup: false,
            max_nodes: 600,
            patterns: false,
        };
        let mut tree = McTree::default();
        let stop = AtomicBool::new(false);
        let (d, _, playouts) = run_threads(&g, &settings, 2, Planning::Chance, &stop, &mut tree);
        // The tree is full after a few dozen playouts; the search goes on
        // (it may stop before its budget once the best move is decided).
        assert!(playouts >= 1000, "{playouts}");
        assert!(matches!(d, crate::search::Decision::Play(_)));
        assert!(tree.nodes.len() <= 600, "{}", tree.nodes.len());
        for n in &tree.nodes {
            assert!(n.visits >= n.prior_visits && n.wins <= n.visits);
            if n.expanded {
                assert!(n.first_child as usize + n.children as usize <= tree.nodes.len());
            }
        }
    }
}
