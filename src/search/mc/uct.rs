//! The UCT-RAVE search: descent, expansion with prior knowledge, playout and
//! update, on one tree behind a lock.

use super::dynkomi;
use super::playout::{Policy, Rolls, final_owner, on_line_set, playout, playout_area};
use super::priors::{self, PatternScratch};
use super::root::{RootMove, RootScores, decide};
use super::tree::{EXPAND_AT, McTree, Node, PASS, RAVE_EQUIV};
use crate::go::board::{Board, Color, Point};
use crate::go::dice::{ALL_LINES, Lines};
use crate::go::game::{Action, Game};
use crate::go::rules::Suicide;
use crate::knowledge::prediction::Model;
use crate::search::budget::{Budget, Decision, Planning};
use crate::search::watch::MoveRules;
use rand::SeedableRng;
use rand::rngs::SmallRng;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, TryLockError};
use std::time::Instant;

/// The last two moves before a playout (latest first; a pass is `None`):
/// those of the tree's descent, then those of the game.
fn recent_moves(sequence: &[(Color, Point)], game: &Game) -> [Option<Point>; 2] {
    let from_game = game.actions().iter().rev().filter_map(|a| match a {
        Action::Move(_, mv, _) => Some(*mv),
        _ => None,
    });
    let mut moves = sequence
        .iter()
        .rev()
        .map(|&(_, p)| (p != PASS).then_some(p))
        .chain(from_game);
    [moves.next().flatten(), moves.next().flatten()]
}

/// The settings of one Monte Carlo search.
#[derive(Clone, Debug)]
pub struct McSettings {
    pub budget: Budget,
    pub seed: u64,
    /// Pass is not considered unless this is false (cleanup removes dead stones).
    pub cleanup: bool,
    /// Upper bound on tree nodes.
    pub max_nodes: usize,
    /// Whether the learned patterns add to the priors.
    pub patterns: bool,
}

/// A UCT-RAVE search from one game position: one tree, behind a lock,
/// shared by the threads that search it.
pub struct McSearch<'a> {
    pub(super) game: &'a Game,
    suicide: Suicide,
    pub(super) komi: f64,
    /// The komi the playouts count with: `komi` plus dynamic komi.
    pub(super) search_komi: f64,
    pub(super) nodes: Mutex<Vec<Node>>,
    seed: u64,
    playouts: AtomicU64,
    max_nodes: usize,
    policy: Policy,
    /// Aléago: the dice, how to plan for them, and the opponent's roll
    /// already drawn (crystal ball).
    rolls: Option<Rolls>,
    planning: Planning,
    opponent_roll: Option<u32>,
    /// The final area count of the playouts under each root move, for the
    /// score estimates of analysis.
    pub(super) root_scores: RootScores,
    /// With analysis of ownership: for each point, the playouts that ended
    /// with it Black's and White's.
    pub(super) owners: Option<Vec<[AtomicU32; 2]>>,
    /// Moves the search may not consider (analysis's `avoid` and `allow`).
    pub(super) restrict: Option<MoveRules>,
}

/// What one search thread keeps to itself.
struct Worker {
    rng: SmallRng,
    /// Moves of the current descent and playout, with their colours.
    sequence: Vec<(Color, Point)>,
    /// The tree nodes of the current descent, root first.
    path: Vec<usize>,
    /// Children being made for a leaf.
    children: Vec<Node>,
    /// The board of the current descent and playout, copied from the
    /// game's at each iteration (only the part its size uses).
    board: Box<Board>,
    first_mover: Vec<u8>,
    /// The learned move patterns whose probabilities add to the priors
    /// (`McSettings::patterns`).
    patterns: Option<&'static Model>,
    pattern_scratch: PatternScratch,
}

/// The mark of a first mover in `Worker::first_mover`: 1 black, 2 white (0
/// for a point no one played).
fn mover_mark(c: Color) -> u8 {
    c.index() as u8 + 1
}

impl Worker {
    /// `first_mover[p]`: the [`mover_mark`] of the first move at `p` in the
    /// playout, below the tree, filled walking the playout backwards; done
    /// before the update takes the lock, which then goes on through the
    /// tree's few moves only.
    fn mark_playout_first_movers(&mut self) {
        self.first_mover.fill(0);
        let tree_len = self.path.len() - 1;
        for &(col, p) in self.sequence[tree_len..].iter().rev() {
            if p != PASS {
                self.first_mover[p as usize] = mover_mark(col);
            }
        }
    }
}

impl<'a> McSearch<'a> {
    pub fn new(game: &'a Game, seed: u64, max_nodes: usize) -> McSearch<'a> {
        let komi = game.komi + game.rules.handicap_bonus.points(game.handicap());
        McSearch {
            game,
            suicide: game.rules.suicide,
            komi,
            search_komi: komi + dynkomi::extra_komi(game),
            nodes: Mutex::new(vec![Node::new(PASS, 0.0, 0.0)]),
            seed: seed ^ game.board().hash(),
            playouts: AtomicU64::new(0),
            max_nodes,
            policy: Policy::Full,
            rolls: game.dice().map(|d| Rolls::new(d, game.board())),
            planning: Planning::Chance,
            opponent_roll: game.pending_roll(game.to_move().opponent()),
            root_scores: RootScores::new(),
            owners: None,
            restrict: None,
        }
    }

    /// Starts from a tree kept from an earlier search, where it fits.
    /// In the same position, the score counts of the root's moves go on
    /// too (so that a move's score lead rests on as many playouts as it
    /// can); after moves, the new root's scores start afresh.
    pub fn with_tree(mut self, tree: Option<McTree>) -> McSearch<'a> {
        if let Some(t) = &tree
            && t.grown_at(self.game)
            && !t.root_scores.is_empty()
        {
            self.root_scores = RootScores::from_snapshot(&t.root_scores);
        }
        if let Some(nodes) = tree.and_then(|t| t.reuse(self.game)) {
            log::debug!("search: reusing {} nodes", nodes.len());
            self.nodes = Mutex::new(nodes);
        }
        self
    }

    /// The tree grown, to be reused after the next moves.
    pub fn into_tree(self) -> McTree {
        let game = self.game;
        McTree {
            grown_for: Some(game.standing()),
            nodes: self.nodes.into_inner().unwrap_or_else(|e| e.into_inner()),
            root_scores: self.root_scores.snapshot(),
        }
    }

    /// Counts, for analysis, who owns each point at the end of each playout.
    pub fn with_ownership(mut self, on: bool) -> McSearch<'a> {
        self.owners = on.then(|| {
            (0..crate::go::board::MAX_POINTS)
                .map(|_| [AtomicU32::new(0), AtomicU32::new(0)])
                .collect()
        });
        self
    }

    /// Keeps the search off the moves `rules` forbid (at the depths they say).
    pub fn with_restrictions(mut self, rules: Option<MoveRules>) -> McSearch<'a> {
        self.restrict = rules;
        self
    }

    /// Sets how the search plans for dice below the root.
    pub fn with_planning(mut self, planning: Planning) -> McSearch<'a> {
        self.planning = planning;
        self
    }

    /// Playouts made so far, by all threads.
    pub fn playouts(&self) -> u64 {
        self.playouts.load(Ordering::Relaxed)
    }

    /// Takes the tree's lock, spinning while another thread holds it: it is
    /// held for a descent or an update, a microsecond or two, far less than
    /// putting the thread to sleep and waking it costs (with a sleeping lock,
    /// two threads made 1.68 times the playouts of one on 9×9; spinning, 1.82).
    /// Every 64 tries the thread yields, so that more threads than cores still
    /// let the holder run.
    fn lock(&self) -> MutexGuard<'_, Vec<Node>> {
        let mut tries = 0u32;
        loop {
            match self.nodes.try_lock() {
                Ok(guard) => return guard,
                Err(TryLockError::Poisoned(e)) => return e.into_inner(),
                Err(TryLockError::WouldBlock) => {
                    tries += 1;
                    if tries.is_multiple_of(64) {
                        std::thread::yield_now();
                    } else {
                        std::hint::spin_loop();
                    }
                }
            }
        }
    }

    /// The children of a node for `c` to move on `board` (the root if
    /// `root`), `depth` moves below the root, with their priors, into `out`,
    /// the pass last. Computed outside the lock.
    fn children(
        &self,
        board: &Board,
        c: Color,
        root: bool,
        depth: usize,
        last: Option<Point>,
        out: &mut Vec<Node>,
    ) {
        out.clear();
        let allowed = if root {
            self.game.allowed_points(c)
        } else {
            None
        };
        for &p in board.empty_points() {
            let ok = if let Some(allowed) = &allowed {
                allowed.contains(&p)
            } else if root {
                self.game.check(c, p).is_ok() && !board.is_eye(c, p)
            } else {
                board.check(c, p, self.suicide).is_ok()
                    && board.ko() != Some((p, c))
                    && !board.is_eye(c, p)
            };
            let permitted = self
                .restrict
                .as_ref()
                .is_none_or(|r| r.permits(c, Some(p), depth));
            if ok && permitted {
                let (v, w) = priors::prior(board, c, p, last);
                out.push(Node::new(p, v, w));
            }
        }
        let (v, w) = priors::prior(board, c, PASS, last);
        out.push(Node::new(PASS, v, w));
    }

    /// Gives node `i` the `children` computed for it, unless another thread
    /// did first or the node budget is spent.
    fn attach(&self, nodes: &mut Vec<Node>, i: usize, children: &[Node]) {
        if nodes[i].expanded || nodes.len() + children.len() > self.max_nodes {
            return;
        }
        let first = nodes.len();
        nodes.extend_from_slice(children);
        let node = &mut nodes[i];
        node.first_child = first as u32;
        node.children = children.len() as u16;
        node.expanded = true;
    }

    /// The child of `i` to descend to; with `lines`, only children on those
    /// lines (and pass) are eligible.
    fn select(&self, nodes: &[Node], i: usize, lines: Lines) -> usize {
        let node = &nodes[i];
        let start = node.first_child as usize;
        let end = start + node.children as usize;
        let mut best = end - 1; // pass, always last
        let mut best_value = f32::MIN;
        for (j, ch) in nodes.iter().enumerate().take(end).skip(start) {
            if ch.mv != PASS && !on_line_set(self.game.board(), ch.mv, lines) {
                continue;
            }
            let q = ch.wins / ch.visits.max(1.0);
            let value = if ch.amaf_visits > 0.0 {
                let aq = ch.amaf_wins / ch.amaf_visits;
                let beta = ch.amaf_visits
                    / (ch.amaf_visits + ch.visits + ch.visits * ch.amaf_visits / RAVE_EQUIV);
                (1.0 - beta) * q + beta * aq
            } else {
                q
            };
            if value > best_value {
                best_value = value;
                best = j;
            }
        }
        best
    }

    /// The lines a move of `c` below the root may use: a roll drawn from the
    /// dice (the opponent's known roll at the first reply), then the first of
    /// the descent's line sets on which node `i` has a child.
    fn roll_lines(
        &self,
        nodes: &[Node],
        rng: &mut SmallRng,
        i: usize,
        depth: usize,
        c: Color,
    ) -> Lines {
        let Some(r) = self.rolls.as_ref() else {
            return ALL_LINES;
        };
        if depth == 1 || self.planning == Planning::RootOnly || !r.dice.rolls_for(c) {
            return ALL_LINES; // the root's children already obey the roll
        }
        let (sets, n) = match self.opponent_roll {
            Some(t) if depth == 2 => *r.sets_for(t),
            _ => *r.roll(rng),
        };
        let node = &nodes[i];
        let children = &nodes[node.first_child as usize..][..node.children as usize];
        let board = self.game.board();
        sets[..n]
            .iter()
            .copied()
            .find(|&lines| {
                children
                    .iter()
                    .any(|ch| ch.mv != PASS && on_line_set(board, ch.mv, lines))
            })
            .unwrap_or(0)
    }

    /// One descent (under the lock, adding a virtual loss: each node on the
    /// path counts the visit now and the win, if any, at the update; the
    /// descent's moves are played on the board after the lock is released),
    /// the expansion of the leaf it reached (its children's priors computed
    /// unlocked), the playout (unlocked) and the update (locked again, for
    /// the tree's moves only: the playout's AMAF marks are made before).
    fn iterate(&self, w: &mut Worker) {
        let board = &mut *w.board;
        board.copy_from(self.game.board());
        let mut c = self.game.to_move();
        w.path.clear();
        w.path.push(0);
        w.sequence.clear();
        let mut passes = self.game.consecutive_passes().min(1);
        let mut leaf = None;
        {
            let mut nodes = self.lock();
            let mut i = 0;
            loop {
                if !nodes[i].expanded {
                    if i == 0 || nodes[i].visits - nodes[i].prior_visits >= EXPAND_AT {
                        leaf = Some(i);
                    }
                    break;
                }
                let lines = self.roll_lines(&nodes, &mut w.rng, i, w.path.len(), c);
                let j = self.select(&nodes, i, lines);
                let mv = nodes[j].mv;
                w.path.push(j);
                w.sequence.push((c, mv));
                passes = if mv == PASS { passes + 1 } else { 0 };
                c = c.opponent();
                i = j;
                if passes >= 2 {
                    break;
                }
            }
            for &k in &w.path {
                nodes[k].visits += 1.0;
            }
        }
        // The descent's moves on the board, with the lock released.
        for &(col, mv) in &w.sequence {
            if mv == PASS {
                board.clear_ko();
            } else {
                board.place(col, mv);
            }
        }
        if let Some(i) = leaf {
            let last = match w.sequence.last() {
                Some(&(_, m)) => Some(m),
                None => self.game.last_move().map(|(_, m)| m.unwrap_or(PASS)),
            };
            let mut children = std::mem::take(&mut w.children);
            self.children(board, c, i == 0, w.path.len(), last, &mut children);
            if let Some(model) = w.patterns {
                let previous = recent_moves(&w.sequence, self.game)[1];
                // Every child but the pass, which `children` puts last.
                let moves = children.len() - 1;
                priors::add_pattern_priors(
                    model,
                    board,
                    c,
                    [last, previous],
                    &mut children[..moves],
                    &mut w.pattern_scratch,
                );
            }
            self.attach(&mut self.lock(), i, &children);
            w.children = children;
        }
        // Two passes in the tree: the playout still runs, to settle dead
        // stones before counting (and, under dice, passes forced by rolls).
        {
            let seq = &mut w.sequence;
            let rolls = self
                .rolls
                .as_ref()
                .filter(|_| self.planning == Planning::Chance);
            let recent = recent_moves(seq, self.game);
            playout(
                board,
                c,
                self.policy,
                &mut w.rng,
                rolls,
                recent,
                |col, p| seq.push((col, p)),
            );
        }
        let area = playout_area(board);
        if let Some(&(_, first)) = w.sequence.first() {
            self.root_scores.add(first, area, self.komi);
        }
        if let Some(owners) = &self.owners {
            for p in board.points() {
                match final_owner(board, p) {
                    1 => owners[p as usize][0].fetch_add(1, Ordering::Relaxed),
                    -1 => owners[p as usize][1].fetch_add(1, Ordering::Relaxed),
                    _ => 0,
                };
            }
        }
        let lead = area as f64 - self.search_komi;
        let black_wins = lead > 0.0;
        w.mark_playout_first_movers();
        self.update(&mut self.lock(), w, black_wins);
        self.playouts.fetch_add(1, Ordering::Relaxed);
    }

    /// Adds the result of a playout to the path's wins (its visits were
    /// counted by the descent) and to the AMAF statistics of the siblings,
    /// `first_mover` holding the playout's first movers
    /// ([`Worker::mark_playout_first_movers`]).
    fn update(&self, nodes: &mut [Node], w: &mut Worker, black_wins: bool) {
        let path = &w.path;
        let tree_len = path.len() - 1;
        for k in (0..tree_len).rev() {
            let (col, p) = w.sequence[k];
            if p != PASS {
                w.first_mover[p as usize] = mover_mark(col);
            }
            // node path[k] has children played by col
            let parent = &nodes[path[k]];
            let (start, n) = (parent.first_child as usize, parent.children as usize);
            let won = (col == Color::Black) == black_wins;
            for ch in &mut nodes[start..start + n] {
                if ch.mv != PASS && w.first_mover[ch.mv as usize] == mover_mark(col) {
                    ch.amaf_visits += 1.0;
                    ch.amaf_wins += won as u8 as f32;
                }
            }
            nodes[path[k + 1]].wins += won as u8 as f32;
        }
    }

    /// Runs playouts until the budget is spent (by all threads together) or
    /// `stop` is set; `thread` numbers the caller among the threads.
    pub fn search(&self, settings: &McSettings, stop: &AtomicBool, thread: usize) {
        let start = Instant::now();
        let mut w = Worker {
            rng: SmallRng::seed_from_u64(
                self.seed
                    .wrapping_add(thread as u64 * 0x5851_F42D_4C95_7F2D),
            ),
            sequence: Vec::with_capacity(1024),
            path: Vec::with_capacity(64),
            children: Vec::with_capacity(crate::go::board::MAX_POINTS),
            board: Box::new(self.game.board().clone()),
            first_mover: vec![0; crate::go::board::MAX_POINTS],
            patterns: settings.patterns.then(Model::embedded),
            pattern_scratch: PatternScratch::default(),
        };
        // Aléago's line lists only if dice playouts ask for them.
        w.board.keep_lines(false);
        let max = settings.budget.playouts.unwrap_or(u64::MAX);
        let mut mine = 0u64;
        while self.playouts() < max {
            self.iterate(&mut w);
            mine += 1;
            // The stop flag after every playout (a relaxed load costs next
            // to nothing): an analysis stops within one playout of the next
            // input, a fraction of a millisecond even on 19x19.
            if stop.load(Ordering::Relaxed) {
                break;
            }
            // The clock after every playout too (tens of nanoseconds
            // against a playout's hundreds of microseconds on 19x19): a
            // move with milliseconds left ends within one playout.
            if settings.budget.time.is_some_and(|t| start.elapsed() >= t) {
                break;
            }
            if mine.is_multiple_of(256) && self.decided(settings, start) {
                log::debug!("search: the best move cannot change, stopping early");
                // The other threads see it at their next check.
                break;
            }
        }
    }

    /// Whether the most visited root move stays first whatever the rest of
    /// the budget brings (every remaining playout going to the runner-up).
    fn decided(&self, settings: &McSettings, start: Instant) -> bool {
        let playouts = self.playouts();
        let by_playouts = settings
            .budget
            .playouts
            .map(|max| max.saturating_sub(playouts) as f64);
        let by_time = settings.budget.time.map(|t| {
            let elapsed = start.elapsed().as_secs_f64().max(1e-6);
            let rate = playouts as f64 / elapsed;
            (t.as_secs_f64() - elapsed).max(0.0) * rate
        });
        let remaining = match (by_playouts, by_time) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => return false,
        };
        let (mut first, mut second) = (0.0f64, 0.0f64);
        for m in self.root_stats() {
            if m.visits > first {
                second = first;
                first = m.visits;
            } else if m.visits > second {
                second = m.visits;
            }
        }
        first - second > remaining
    }

    /// The root's moves with their visits and wins.
    pub fn root_stats(&self) -> Vec<RootMove> {
        let nodes = self.lock();
        let root = &nodes[0];
        let start = root.first_child as usize;
        nodes[start..start + root.children as usize]
            .iter()
            .map(|n| RootMove {
                mv: if n.mv == PASS { None } else { Some(n.mv) },
                visits: n.visits as f64,
                wins: n.wins as f64,
            })
            .collect()
    }

    /// Runs the search on `threads` threads, the calling thread one of
    /// them (fewer where the system refuses one).
    pub fn search_on(&self, settings: &McSettings, threads: usize, stop: &AtomicBool) {
        std::thread::scope(|scope| {
            for i in 1..crate::core::concurrency::search_threads(threads) {
                let started = crate::core::concurrency::spawn_scoped(scope, move || {
                    self.search(settings, stop, i)
                });
                if started.is_none() {
                    break;
                }
            }
            self.search(settings, stop, 0);
        });
    }

    /// [`McSearch::search_on`], then the decision with its win rate.
    pub fn run(&self, settings: &McSettings, threads: usize, stop: &AtomicBool) -> (Decision, f64) {
        self.search_on(settings, threads, stop);
        decide(&self.root_stats(), settings.cleanup)
    }
}

#[cfg(test)]
mod tests;
