//! The search tree: nodes with atomic statistics in an arena the threads
//! grow without a lock, and the tree kept from one move to the next.

use super::PASS;
use crate::board::{Color, Point};
use crate::game::{Action, Game};
use crate::rules::Rules;
use std::sync::OnceLock;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicUsize};

/// One node of the tree as a plain value: the move that leads to it and its
/// statistics, seen by the player who made that move. The live tree keeps
/// the same fields in an [`AtomicNode`]; this is a node being made, or a
/// snapshot of a live one.
#[derive(Clone, Debug, Default)]
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
            ..Node::default()
        }
    }
}

/// RAVE equivalence parameter: how many real visits one AMAF visit is worth
/// before the real ones dominate.
pub(super) const RAVE_EQUIV: f32 = 3000.0;
/// Visits before a leaf is expanded.
pub(super) const EXPAND_AT: f32 = 2.0;

/// A node of the live tree. Its statistics are counts (priors, visits and
/// wins are whole numbers), each an atomic the threads update without a
/// lock: visits and wins by atomic addition; the AMAF counts, touched for
/// dozens of siblings per playout, by a plain load and store, so that two
/// threads updating one sibling at the same instant may lose one count (as
/// in Fuego's lock-free mode), a noise far below the statistics' own.
#[derive(Default)]
pub(super) struct AtomicNode {
    pub(super) mv: AtomicU16,
    pub(super) prior_visits: AtomicU32,
    pub(super) visits: AtomicU32,
    pub(super) wins: AtomicU32,
    pub(super) amaf_visits: AtomicU32,
    pub(super) amaf_wins: AtomicU32,
    /// [`LEAF`], [`EXPANDING`], or the children: first index << 16 | count.
    children: AtomicU64,
}

/// A node without children.
const LEAF: u64 = 0;
/// A node whose children one thread is making (a leaf to the others).
const EXPANDING: u64 = 1;

impl AtomicNode {
    fn set(&self, n: &Node) {
        self.mv.store(n.mv, Relaxed);
        self.prior_visits.store(n.prior_visits as u32, Relaxed);
        self.visits.store(n.visits as u32, Relaxed);
        self.wins.store(n.wins as u32, Relaxed);
        self.amaf_visits.store(n.amaf_visits as u32, Relaxed);
        self.amaf_wins.store(n.amaf_wins as u32, Relaxed);
    }

    /// Adds one to a count that may lose an update under a race.
    #[inline]
    pub(super) fn bump(count: &AtomicU32, by: u32) {
        count.store(count.load(Relaxed).wrapping_add(by), Relaxed);
    }
}

/// Nodes per chunk of the arena (half a megabyte).
const CHUNK_BITS: usize = 14;
const CHUNK: usize = 1 << CHUNK_BITS;

/// The live tree: nodes in chunks allocated as the tree grows, up to a
/// fixed capacity, so memory stays bounded; a node's children lie side by
/// side, reserved by one atomic addition and published by one atomic store
/// into the parent. The root is node 0.
pub(super) struct Arena {
    chunks: Box<[OnceLock<Box<[AtomicNode]>>]>,
    next: AtomicUsize,
    capacity: usize,
}

impl Arena {
    /// An arena of `capacity` nodes holding a root of no move.
    pub(super) fn new(capacity: usize) -> Arena {
        let capacity = capacity.clamp(1, u32::MAX as usize >> 1);
        let arena = Arena {
            chunks: (0..capacity.div_ceil(CHUNK)).map(|_| OnceLock::new()).collect(),
            next: AtomicUsize::new(0),
            capacity,
        };
        let root = arena.alloc(1).expect("room for the root");
        arena.node(root).set(&Node::new(PASS, 0.0, 0.0));
        arena
    }

    /// Node `i`, which must have been allocated.
    #[inline]
    pub(super) fn node(&self, i: usize) -> &AtomicNode {
        let chunk = self.chunks[i >> CHUNK_BITS]
            .get()
            .expect("a node is read only once allocated");
        &chunk[i & (CHUNK - 1)]
    }

    /// Nodes allocated so far.
    pub(super) fn len(&self) -> usize {
        self.next.load(Relaxed).min(self.capacity)
    }

    /// The range of node `i`'s children, if it has them.
    #[inline]
    pub(super) fn children(&self, i: usize) -> Option<std::ops::Range<usize>> {
        let word = self.node(i).children.load(Acquire);
        (word > EXPANDING).then(|| {
            let first = (word >> 16) as usize;
            first..first + (word & 0xFFFF) as usize
        })
    }

    /// Reserves `n` consecutive nodes within one chunk; `None` when the
    /// arena is full.
    fn alloc(&self, n: usize) -> Option<usize> {
        loop {
            let start = self.next.fetch_add(n, Relaxed);
            if start + n > self.capacity {
                return None;
            }
            if (start & (CHUNK - 1)) + n > CHUNK {
                continue; // across a chunk's end: those slots stay unused
            }
            self.chunks[start >> CHUNK_BITS]
                .get_or_init(|| (0..CHUNK).map(|_| AtomicNode::default()).collect());
            return Some(start);
        }
    }

    /// Whether the calling thread may make node `i`'s children (no other
    /// thread has made or is making them).
    pub(super) fn claim(&self, i: usize) -> bool {
        self.node(i)
            .children
            .compare_exchange(LEAF, EXPANDING, Acquire, Relaxed)
            .is_ok()
    }

    /// Gives node `i`, claimed by the caller, its `children`; if the arena
    /// is full, leaves it a leaf. Returns whether it got them.
    pub(super) fn attach(&self, i: usize, children: &[Node]) -> bool {
        let Some(first) = self.alloc(children.len()) else {
            self.node(i).children.store(LEAF, Release);
            return false;
        };
        for (k, child) in children.iter().enumerate() {
            let node = self.node(first + k);
            node.set(child);
            node.children.store(LEAF, Relaxed);
        }
        let word = (first as u64) << 16 | children.len() as u64;
        self.node(i).children.store(word, Release);
        true
    }

    /// A snapshot of node `i`.
    pub(super) fn get(&self, i: usize) -> Node {
        let n = self.node(i);
        let children = self.children(i);
        Node {
            mv: n.mv.load(Relaxed),
            visits: n.visits.load(Relaxed) as f32,
            wins: n.wins.load(Relaxed) as f32,
            prior_visits: n.prior_visits.load(Relaxed) as f32,
            amaf_visits: n.amaf_visits.load(Relaxed) as f32,
            amaf_wins: n.amaf_wins.load(Relaxed) as f32,
            first_child: children.as_ref().map_or(0, |r| r.start as u32),
            children: children.as_ref().map_or(0, |r| r.len() as u16),
            expanded: children.is_some(),
        }
    }

    /// A copy of the subtree under node `at` as a new arena of the same
    /// capacity, `at` its root.
    fn subtree(&self, at: usize) -> Arena {
        let out = Arena::new(self.capacity);
        out.node(0).set(&self.get(at));
        let mut queue = vec![(at, 0usize)];
        while let Some((old, new)) = queue.pop() {
            let Some(range) = self.children(old) else {
                continue;
            };
            let children: Vec<Node> = range.clone().map(|j| self.get(j)).collect();
            if !out.attach(new, &children) {
                continue;
            }
            let first = out.children(new).expect("just attached").start;
            queue.extend(range.zip(first..));
        }
        out
    }
}

impl Clone for Arena {
    fn clone(&self) -> Arena {
        self.subtree(0)
    }
}

/// A search tree kept from one move to the next (tree reuse).
#[derive(Clone, Default)]
pub struct Tree {
    pub(super) arena: Option<Arena>,
    /// The game the tree was grown for: its actions, side to move, size,
    /// rules and komi. A later game is the same one played on only if it
    /// agrees on all of them (after `boardsize`, `loadsgf`, `undo` and a
    /// different move, `komi`, or a side to move set by hand, the tree's
    /// statistics, and its points, belong to another game).
    pub(super) grown_for: Option<GrownFor>,
}

#[derive(Clone)]
pub(super) struct GrownFor {
    pub(super) actions: Vec<Action>,
    pub(super) to_move: Color,
    pub(super) size: usize,
    pub(super) rules: Rules,
    pub(super) komi: f64,
}

impl Tree {
    /// Snapshots of the root and its children (for tests).
    #[cfg(test)]
    pub(super) fn root_and_children(&self) -> (Node, Vec<Node>) {
        let arena = self.arena.as_ref().expect("a grown tree");
        let children = arena.children(0).unwrap_or(0..0);
        (arena.get(0), children.map(|j| arena.get(j)).collect())
    }

    /// The subtree for the current position of `game`, if the moves played
    /// since this tree was grown are all in it (and no dice constrain the
    /// root, whose children a reused node would not have filtered).
    pub(super) fn reuse(self, game: &Game) -> Option<Arena> {
        let grown = self.grown_for.as_ref()?;
        let arena = self.arena.as_ref()?;
        let played_on = grown.size == game.size()
            && grown.rules == game.rules
            && grown.komi == game.komi
            && game.actions().starts_with(&grown.actions);
        if game.dice().is_some() || !played_on {
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
            let want = mv.unwrap_or(PASS);
            at = arena
                .children(at)?
                .find(|&j| arena.node(j).mv.load(Relaxed) == want)?;
        }
        if arena.children(at).is_none() || game.to_move() != to_move {
            return None;
        }
        Some(if at == 0 {
            self.arena?
        } else {
            arena.subtree(at)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;
    use crate::search::{Budget, Planning, Settings, run_threads};
    use std::sync::atomic::AtomicBool;
    /// A tree grown for `game` with `playouts` playouts, one thread.
    fn grown_tree(game: &Game, playouts: u64) -> Tree {
        let settings = Settings {
            budget: Budget {
                playouts: Some(playouts),
                time: None,
            },
            seed: 5,
            cleanup: false,
            max_nodes: 1 << 20,
        };
        let mut tree = Tree::default();
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
        let (_, children) = tree.root_and_children();
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
        assert_eq!(kept.get(0).mv, reply.mv);
        assert_eq!(kept.get(0).visits, reply.visits);

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
    fn the_arena_stays_within_its_capacity_and_the_search_goes_on() {
        let g = Game::new(9, Rules::default(), 7.5);
        let settings = Settings {
            budget: Budget {
                playouts: Some(3000),
                time: None,
            },
            seed: 9,
            cleanup: false,
            max_nodes: 600,
        };
        let mut tree = Tree::default();
        let stop = AtomicBool::new(false);
        let (d, _, playouts) = run_threads(&g, &settings, 2, Planning::Chance, &stop, &mut tree);
        // The arena is full after a few dozen playouts; the search goes on
        // (it may stop before its budget once the best move is decided).
        assert!(playouts >= 1000, "{playouts}");
        assert!(matches!(d, crate::search::Decision::Play(_)));
        let arena = tree.arena.as_ref().unwrap();
        assert!(arena.len() <= 600, "{}", arena.len());
        // Every node reached from the root was allocated and is consistent:
        // children lie within the arena, visits never below the prior.
        let mut queue = vec![0usize];
        let mut seen = 0;
        while let Some(i) = queue.pop() {
            seen += 1;
            let n = arena.get(i);
            assert!(n.visits >= n.prior_visits && n.wins <= n.visits);
            if let Some(children) = arena.children(i) {
                assert!(children.end <= arena.len());
                queue.extend(children);
            }
        }
        assert!(seen > 100 && seen <= 600, "{seen}");
    }
}
