//! Move choice by Monte Carlo: playouts (light: uniform but never filling an
//! own eye; full: captures, atari escapes read for ladders, and 3×3 patterns
//! near the last two moves, no self-atari but a lone stone's throw-in), and a
//! UCT tree with RAVE (all-moves-as-first) statistics and prior knowledge on
//! top of them, one tree shared by the threads (virtual loss) and reused
//! from move to move. Under Aléago the playouts
//! and the tree draw a roll for every move below the root. Also the ownership
//! estimate used for dead stones.
//!
//! The search works on copies of the board; it never changes the game. The
//! root's moves are checked under every rule of the game (superko included);
//! below the root the tree and the playouts use the board's placement rules and
//! simple ko, as Monte Carlo engines do.

use crate::board::{Board, Cell, Color, Point};
use crate::dice::{self, ALL_LINES, Dice, Lines};
use crate::game::{Action, Game};
use crate::patterns;
use crate::rules::{Rules, Suicide};
use crate::tactics;
use rand::rngs::SmallRng;
use rand::{Rng, RngExt, SeedableRng};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, TryLockError};
use std::time::{Duration, Instant};

/// How long to search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    pub playouts: Option<u64>,
    pub time: Option<Duration>,
}

/// What the search decided.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Decision {
    Play(Point),
    Pass,
    Resign,
}

/// Pass in the tree and in playout move lists.
const PASS: Point = 0;

/// Aléago in playouts and the tree: the dice, with the descent's line sets
/// of every total worked out once.
pub struct Rolls {
    pub dice: Dice,
    pub top: u32,
    /// The descent's line sets for each total (index: total).
    line_sets: Vec<([Lines; 14], usize)>,
}

impl Rolls {
    pub fn new(dice: Dice, board: &Board) -> Rolls {
        let top = dice::top_line(board.size());
        let (_, high) = dice.range();
        Rolls {
            dice,
            top,
            line_sets: (0..=high).map(|t| dice.line_sets(t, top)).collect(),
        }
    }

    /// Rolls the dice: the line sets to try, in order.
    #[inline]
    pub fn roll(&self, rng: &mut SmallRng) -> &([Lines; 14], usize) {
        &self.line_sets[self.dice.roll(rng) as usize]
    }

    /// The line sets to try for a known total.
    #[inline]
    pub fn sets_for(&self, total: u32) -> &([Lines; 14], usize) {
        &self.line_sets[total as usize]
    }
}

/// How the search plans for dice below the root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Planning {
    /// Every move below the root is made under a roll drawn from the dice.
    Chance,
    /// Only the root obeys the roll; the rest of the search ignores the dice.
    RootOnly,
}

/// How playouts choose their moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Uniform among legal points that are not the mover's own eye.
    Light,
    /// Captures a chain the last move left in atari, else uniform as light
    /// but never a self-atari: the policy of the ownership estimate (final
    /// status), where local fights should be settled bluntly.
    Settle,
    /// Around the last move: capture a chain in atari, save an own chain
    /// from atari, play a 3×3 pattern move; else uniform as light but never
    /// a self-atari.
    Full,
}

/// Plays moves by `policy` until both sides pass. Suicide is never played.
/// `recent` holds the last two moves before the playout (the opponent's
/// last, then the mover's), which the full policy answers. `record`
/// receives each move with its colour (for AMAF).
pub fn playout(
    board: &mut Board,
    mut to_move: Color,
    policy: Policy,
    rng: &mut SmallRng,
    rolls: Option<&Rolls>,
    recent: [Option<Point>; 2],
    mut record: impl FnMut(Color, Point),
) {
    if rolls.is_some() {
        board.keep_lines(true); // the rolled lines' empty points
    } else if policy == Policy::Light {
        return light_playout(board, to_move, rng, record);
    }
    let limit = board.size() * board.size() * 3;
    let mut passes = 0;
    let [mut last, mut last2] = recent;
    for _ in 0..limit {
        // The policy's move near the last move, on `lines`, if it has one.
        let local = |board: &Board, rng: &mut SmallRng, lines: Lines| match policy {
            Policy::Light => None,
            Policy::Settle => {
                last.and_then(|l| capture_move(board, to_move, l, |p| on_line_set(board, p, lines)))
            }
            Policy::Full => last.and_then(|l| local_move(board, to_move, l, last2, rng, lines)),
        };
        let no_self_atari = policy != Policy::Light;
        let mv = match rolls.filter(|r| r.dice.rolls_for(to_move)) {
            None => local(board, rng, ALL_LINES)
                .or_else(|| random_move(board, to_move, rng, no_self_atari, ALL_LINES)),
            Some(r) => {
                // Roll, then take the first of the rolled lines and the lines
                // below that has a playable point; only there is the policy's
                // local move looked for.
                let (sets, n) = r.roll(rng);
                sets[..*n].iter().find_map(|&lines| {
                    let any = random_move(board, to_move, rng, no_self_atari, lines)?;
                    Some(local(board, rng, lines).unwrap_or(any))
                })
            }
        };
        last2 = last;
        last = mv;
        match mv {
            Some(p) => {
                board.place(to_move, p);
                record(to_move, p);
                passes = 0;
            }
            None => {
                board.clear_ko();
                // A pass forced by a bad roll while the board still has
                // room does not count towards the end of the playout: the
                // playout is there to settle the board.
                let dice_pass = rolls.is_some_and(|r| r.dice.rolls_for(to_move))
                    && random_move(board, to_move, rng, no_self_atari, ALL_LINES).is_some();
                if !dice_pass {
                    passes += 1;
                    if passes == 2 {
                        break;
                    }
                }
            }
        }
        to_move = to_move.opponent();
    }
}

/// The light policy without dice: uniform moves that fill no own eye, the
/// moves `playout` would make, in a loop with nothing else to decide (the
/// general loop's dice, local-move and recent-move upkeep cost a light
/// playout 3.6% of its instructions).
fn light_playout(
    board: &mut Board,
    mut to_move: Color,
    rng: &mut SmallRng,
    mut record: impl FnMut(Color, Point),
) {
    let limit = board.size() * board.size() * 3;
    let mut passes = 0;
    for _ in 0..limit {
        match random_move(board, to_move, rng, false, ALL_LINES) {
            Some(p) => {
                board.place(to_move, p);
                record(to_move, p);
                passes = 0;
            }
            None => {
                board.clear_ko();
                passes += 1;
                if passes == 2 {
                    break;
                }
            }
        }
        to_move = to_move.opponent();
    }
}

/// The full policy's move near the opponent's last move `last`: a capture,
/// an escape from atari, or a 3×3 pattern move around `last` or the
/// mover's own last move `last2` (a random one of those).
#[inline]
fn local_move(
    board: &Board,
    c: Color,
    last: Point,
    last2: Option<Point>,
    rng: &mut SmallRng,
    lines: Lines,
) -> Option<Point> {
    let on = |p: Point| on_line_set(board, p, lines);
    if let Some(p) = capture_move(board, c, last, on) {
        return Some(p);
    }
    if let Some(p) = escape_move(board, c, last, on) {
        return Some(p);
    }
    let s = board.size() as Point + 2;
    let mut found = [0 as Point; 16];
    let mut n = 0;
    // The point `c` may not take back (0, off the board, if none).
    let ko = match board.ko() {
        Some((k, kc)) if kc == c => k,
        _ => 0,
    };
    for centre in std::iter::once(last).chain(last2) {
        for q in [
            centre - s - 1,
            centre - s,
            centre - s + 1,
            centre - 1,
            centre + 1,
            centre + s - 1,
            centre + s,
            centre + s + 1,
        ] {
            if board.cell(q) == Cell::Empty
                && q != ko
                && on(q)
                && !found[..n].contains(&q)
                && patterns::matches(board, q)
                && !board.is_suicide(c, q)
                && !board.is_self_atari(c, q)
            {
                found[n] = q;
                n += 1;
            }
        }
    }
    (n > 0).then(|| found[below(rng, n)])
}

/// A move of `c` saving one of its chains next to `last` from atari: taking
/// an attacker in atari next to it, or extending at its liberty when that
/// leaves it safe (two liberties or more, and no ladder).
#[inline]
fn escape_move(board: &Board, c: Color, last: Point, on: impl Fn(Point) -> bool) -> Option<Point> {
    let opp = c.opponent();
    let ko = board.ko();
    for q in board.neighbors(last) {
        if board.color_at(q) == Some(c) && board.liberties(q) == 1 {
            for s in board.chain_stones(q) {
                for r in board.neighbors(s) {
                    if board.color_at(r) == Some(opp) && board.liberties(r) == 1 {
                        let lib = board.some_liberty(r)?;
                        if on(lib) && ko != Some((lib, c)) {
                            return Some(lib);
                        }
                    }
                }
            }
            let lib = board.some_liberty(q)?;
            if on(lib)
                && ko != Some((lib, c))
                && !board.is_self_atari(c, lib)
                && tactics::move_is_safe(board, c, lib, tactics::LADDER_DEPTH)
            {
                return Some(lib);
            }
        }
    }
    None
}

/// A move of `c` capturing a chain next to `last` that is in atari.
#[inline]
fn capture_move(board: &Board, c: Color, last: Point, on: impl Fn(Point) -> bool) -> Option<Point> {
    let opp = c.opponent();
    if board.color_at(last) != Some(opp) {
        return None;
    }
    let ko = board.ko();
    for q in std::iter::once(last).chain(board.neighbors(last)) {
        if board.color_at(q) == Some(opp) && board.liberties(q) == 1 {
            let lib = board.some_liberty(q)?;
            if on(lib) && ko != Some((lib, c)) {
                return Some(lib);
            }
        }
    }
    None
}

/// Whether no stone lies within Manhattan distance `d` of `p`.
fn empty_area(board: &Board, p: Point, d: usize) -> bool {
    let (x, y) = board.coords(p);
    let n = board.size();
    for qy in y.saturating_sub(d)..(y + d + 1).min(n) {
        for qx in x.saturating_sub(d)..(x + d + 1).min(n) {
            if qx.abs_diff(x) + qy.abs_diff(y) <= d && board.color_at(board.point(qx, qy)).is_some()
            {
                return false;
            }
        }
    }
    true
}

/// Whether `p` is on one of `lines`.
#[inline]
fn on_line_set(board: &Board, p: Point, lines: Lines) -> bool {
    lines == ALL_LINES || lines & (1 << board.line(p)) != 0
}

/// A uniformly drawn playout move on `lines`, or `None` (pass).
#[inline]
fn random_move(
    board: &Board,
    c: Color,
    rng: &mut SmallRng,
    no_self_atari: bool,
    lines: Lines,
) -> Option<Point> {
    // Half the time a lone stone may be thrown in to atari (to fill an eye
    // space and kill, nakade); a self-atari that joins own stones never.
    let throw_in = no_self_atari && rng.random_bool(0.5);
    // Empty neighbours settle most points at once: one rules out an eye, the
    // ko point and suicide; two rule out a self-atari as well.
    let free_enough = if no_self_atari { 2 } else { 1 };
    let acceptable = |p: Point| {
        board.empty_neighbors(p) >= free_enough
            || crowded_point_acceptable(board, c, p, no_self_atari, throw_in)
    };
    if lines == ALL_LINES {
        return scan_from_random(board.empty_points(), rng, acceptable);
    }
    // Aléago: only the empty points of the allowed lines.
    if lines.count_ones() == 1 {
        let line = lines.trailing_zeros() as usize;
        if line > crate::board::MAX_LINES {
            return None;
        }
        return scan_from_random(board.empty_points_on_line(line), rng, acceptable);
    }
    // Several lines (the bonus): scan their lists as one, from a uniformly
    // drawn start, so the choice stays uniform.
    let on = |line: usize| lines & (1 << line) != 0;
    let total: usize = (1..=crate::board::MAX_LINES)
        .filter(|&l| on(l))
        .map(|l| board.empty_points_on_line(l).len())
        .sum();
    if total == 0 {
        return None;
    }
    let mut k = rng.random_range(0..total);
    let mut line = 1;
    while !on(line) || k >= board.empty_points_on_line(line).len() {
        if on(line) {
            k -= board.empty_points_on_line(line).len();
        }
        line += 1;
    }
    for _ in 0..total {
        let p = board.empty_points_on_line(line)[k];
        if acceptable(p) {
            return Some(p);
        }
        k += 1;
        while k >= board.empty_points_on_line(line).len() || !on(line) {
            k = 0;
            line = if line >= crate::board::MAX_LINES {
                1
            } else {
                line + 1
            };
            if on(line) && !board.empty_points_on_line(line).is_empty() {
                break;
            }
        }
    }
    None
}

/// Whether a point with few empty neighbours may be played: not an own eye,
/// not the ko point, not suicide, and (if `no_self_atari`) not a self-atari
/// unless a lone stone is thrown in. Kept out of line so that the common
/// case of the scan, a point with room, stays small.
#[inline(never)]
fn crowded_point_acceptable(
    board: &Board,
    c: Color,
    p: Point,
    no_self_atari: bool,
    throw_in: bool,
) -> bool {
    !(board.is_eye(c, p)
        || board.ko() == Some((p, c))
        || board.is_suicide(c, p)
        || (no_self_atari
            && !(throw_in && board.neighbors_of_color(c, p) == 0)
            && board.is_self_atari(c, p)))
}

/// A number below `n` (at most a few thousand) from one 32-bit draw by
/// multiplying and shifting: the playouts' draw, cheaper than rejection
/// sampling and biased by less than `n` in 2^32.
#[inline]
fn below(rng: &mut SmallRng, n: usize) -> usize {
    ((rng.next_u32() as u64 * n as u64) >> 32) as usize
}

/// The first point accepted by `ok`, scanning `points` from a random start.
#[inline]
fn scan_from_random(
    points: &[Point],
    rng: &mut SmallRng,
    ok: impl Fn(Point) -> bool,
) -> Option<Point> {
    let n = points.len();
    if n == 0 {
        return None;
    }
    let mut i = below(rng, n);
    for _ in 0..n {
        let p = points[i];
        if ok(p) {
            return Some(p);
        }
        i += 1;
        if i == n {
            i = 0;
        }
    }
    None
}

/// Black's area lead on a board at the end of a playout: stones plus empty
/// points whose neighbours are all one colour.
pub fn playout_area(board: &Board) -> i32 {
    let mut lead = 0;
    for p in board.points() {
        lead += match board.cell(p) {
            Cell::Black => 1,
            Cell::White => -1,
            _ => point_owner(board, p),
        };
    }
    lead
}

/// +1 Black, -1 White, 0 neither: the owner of an empty point at the end.
fn point_owner(board: &Board, p: Point) -> i32 {
    let (mut b, mut w) = (false, false);
    for q in board.neighbors(p) {
        match board.cell(q) {
            Cell::Black => b = true,
            Cell::White => w = true,
            _ => {}
        }
    }
    match (b, w) {
        (true, false) => 1,
        (false, true) => -1,
        _ => 0,
    }
}

/// For each point, the average final owner over `n` playouts (+1 Black).
pub fn ownership(game: &Game, n: usize, seed: u64) -> Vec<f64> {
    let mut rng = SmallRng::seed_from_u64(seed ^ game.board().hash());
    let mut total = vec![0.0; crate::board::MAX_POINTS];
    for _ in 0..n {
        let mut b = game.board().clone();
        playout(
            &mut b,
            game.to_move(),
            Policy::Settle,
            &mut rng,
            None,
            [None, None],
            |_, _| {},
        );
        for p in b.points() {
            total[p as usize] += match b.cell(p) {
                Cell::Black => 1.0,
                Cell::White => -1.0,
                _ => point_owner(&b, p) as f64,
            };
        }
    }
    for t in &mut total {
        *t /= n.max(1) as f64;
    }
    total
}

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

/// One node of the tree: the move that leads to it and its statistics, seen
/// by the player who made that move.
#[derive(Clone, Debug)]
struct Node {
    mv: Point,
    visits: f32,
    wins: f32,
    /// The part of `visits` that is prior knowledge.
    prior_visits: f32,
    amaf_visits: f32,
    amaf_wins: f32,
    first_child: u32,
    children: u16,
    expanded: bool,
}

impl Node {
    fn new(mv: Point, prior_visits: f32, prior_wins: f32) -> Node {
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
/// before the real ones dominate.
const RAVE_EQUIV: f32 = 3000.0;
/// Visits before a leaf is expanded.
const EXPAND_AT: f32 = 2.0;

/// One move at the root with its statistics.
#[derive(Clone, Copy, Debug)]
pub struct RootMove {
    pub mv: Option<Point>,
    pub visits: f64,
    pub wins: f64,
}

/// The most visited root move (never a pass in cleanup) and its win rate.
pub fn decide(stats: &[RootMove], cleanup: bool) -> (Decision, f64) {
    let best = stats
        .iter()
        .filter(|m| !(cleanup && m.mv.is_none()))
        .max_by(|a, b| a.visits.total_cmp(&b.visits));
    match best {
        None => (Decision::Pass, 0.5),
        Some(m) => {
            let rate = m.wins / m.visits.max(1.0);
            (m.mv.map_or(Decision::Pass, Decision::Play), rate)
        }
    }
}

/// Searches with `threads` threads sharing one tree (each descent adds a
/// virtual loss along its path, so the threads spread over the tree), grown
/// from `tree` where it fits and left there for the next search. Returns
/// the decision, its win rate and the number of playouts made.
pub fn run_threads(
    game: &Game,
    settings: &Settings,
    threads: usize,
    planning: Planning,
    stop: &AtomicBool,
    tree: &mut Tree,
) -> (Decision, f64, u64) {
    let start = Instant::now();
    let threads = threads.max(1);
    let search = Search::new(game, settings.seed, settings.max_nodes)
        .with_planning(planning)
        .with_tree(Some(std::mem::take(tree)));
    std::thread::scope(|scope| {
        for i in 1..threads {
            let search = &search;
            scope.spawn(move || search.search(settings, stop, i));
        }
        search.search(settings, stop, 0);
    });
    let playouts = search.playouts();
    let mut stats = search.root_stats();
    *tree = search.into_tree();
    // A reused tree's root was grown below the root, without the superko
    // check: keep only moves legal now.
    let to_move = game.to_move();
    stats.retain(|m| m.mv.is_none_or(|p| game.check(to_move, p).is_ok()));
    if log::log_enabled!(log::Level::Debug) {
        let mut top = stats.clone();
        top.sort_by(|a, b| b.visits.total_cmp(&a.visits));
        for m in top.iter().take(6) {
            let name = crate::vertex::vertex_name(m.mv, game.size());
            log::debug!(
                "  {name:>4} visits {:>7.0} win rate {:.3}",
                m.visits,
                m.wins / m.visits.max(1.0)
            );
        }
    }
    let (decision, rate) = decide(&stats, settings.cleanup);
    log::info!(
        "search: {playouts} playouts in {:.2}s with {threads} thread(s), {decision:?} win rate {rate:.3}",
        start.elapsed().as_secs_f64()
    );
    (decision, rate, playouts)
}

/// A search tree kept from one move to the next (tree reuse).
#[derive(Clone, Default)]
pub struct Tree {
    nodes: Vec<Node>,
    /// The game the tree was grown for: its actions, side to move, size,
    /// rules and komi. A later game is the same one played on only if it
    /// agrees on all of them (after `boardsize`, `loadsgf`, `undo` and a
    /// different move, `komi`, or a side to move set by hand, the tree's
    /// statistics, and its points, belong to another game).
    grown_for: Option<GrownFor>,
}

#[derive(Clone)]
struct GrownFor {
    actions: Vec<Action>,
    to_move: Color,
    size: usize,
    rules: Rules,
    komi: f64,
}

impl Tree {
    /// The subtree for the current position of `game`, if the moves played
    /// since this tree was grown are all in it (and no dice constrain the
    /// root, whose children a reused node would not have filtered).
    fn reuse(self, game: &Game) -> Option<Vec<Node>> {
        let grown = self.grown_for.as_ref()?;
        let played_on = grown.size == game.size()
            && grown.rules == game.rules
            && grown.komi == game.komi
            && game.actions().starts_with(&grown.actions);
        if self.nodes.is_empty() || game.dice().is_some() || !played_on {
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

/// Settings of one search.
#[derive(Clone, Debug)]
pub struct Settings {
    pub budget: Budget,
    pub seed: u64,
    /// Pass is not considered unless this is false (cleanup removes dead stones).
    pub cleanup: bool,
    /// Upper bound on tree nodes.
    pub max_nodes: usize,
}

/// A UCT-RAVE search from one game position: one tree, behind a lock,
/// shared by the threads that search it.
pub struct Search<'a> {
    game: &'a Game,
    suicide: Suicide,
    komi: f64,
    nodes: Mutex<Vec<Node>>,
    seed: u64,
    playouts: AtomicU64,
    max_nodes: usize,
    policy: Policy,
    /// Aléago: the dice, how to plan for them, and the opponent's roll
    /// already drawn (crystal ball).
    rolls: Option<Rolls>,
    planning: Planning,
    opponent_roll: Option<u32>,
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
}

impl<'a> Search<'a> {
    pub fn new(game: &'a Game, seed: u64, max_nodes: usize) -> Search<'a> {
        let komi = game.komi + game.rules.handicap_bonus.points(game.handicap());
        Search {
            game,
            suicide: game.rules.suicide,
            komi,
            nodes: Mutex::new(vec![Node::new(PASS, 0.0, 0.0)]),
            seed: seed ^ game.board().hash(),
            playouts: AtomicU64::new(0),
            max_nodes,
            policy: Policy::Full,
            rolls: game.dice().map(|d| Rolls::new(d, game.board())),
            planning: Planning::Chance,
            opponent_roll: game.pending_roll(game.to_move().opponent()),
        }
    }

    /// Starts from a tree kept from an earlier search, where it fits.
    pub fn with_tree(mut self, tree: Option<Tree>) -> Search<'a> {
        if let Some(nodes) = tree.and_then(|t| t.reuse(self.game)) {
            log::debug!("search: reusing {} nodes", nodes.len());
            self.nodes = Mutex::new(nodes);
        }
        self
    }

    /// The tree grown, to be reused after the next moves.
    pub fn into_tree(self) -> Tree {
        let game = self.game;
        Tree {
            grown_for: Some(GrownFor {
                actions: game.actions().to_vec(),
                to_move: game.to_move(),
                size: game.size(),
                rules: game.rules,
                komi: game.komi,
            }),
            nodes: self.nodes.into_inner().unwrap_or_else(|e| e.into_inner()),
        }
    }

    /// Sets how the search plans for dice below the root.
    pub fn with_planning(mut self, planning: Planning) -> Search<'a> {
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

    /// Prior knowledge for a move: (visits, wins) added to its statistics.
    /// `last` is the opponent's last move, if any.
    fn prior(board: &Board, c: Color, p: Point, last: Option<Point>) -> (f32, f32) {
        if p == PASS {
            return (10.0, 1.0);
        }
        if board.is_eye(c, p) {
            return (20.0, 0.0);
        }
        // Even prior, then bonuses as (visits, wins) in the manner of michi.
        let (mut visits, mut wins) = (10.0f32, 5.0f32);
        let mut add = |v: f32, w: f32| {
            visits += v;
            wins += w;
        };
        let mut captured = 0;
        for q in board.neighbors(p) {
            if let Some(qc) = board.color_at(q)
                && qc != c
                && board.liberties(q) == 1
            {
                captured += board.chain_size(q);
            }
        }
        if captured == 1 {
            add(15.0, 15.0);
        } else if captured > 1 {
            add(30.0, 30.0);
        }
        // Saving a chain from atari: only if it then holds (no ladder).
        if board
            .neighbors(p)
            .iter()
            .any(|&q| board.color_at(q) == Some(c) && board.liberties(q) == 1)
        {
            if tactics::move_is_safe(board, c, p, tactics::LADDER_DEPTH) {
                add(15.0, 15.0);
            } else if captured == 0 {
                add(10.0, 0.0); // runs into a ladder
            }
        }
        let self_atari = board.is_self_atari(c, p);
        if captured == 0 && self_atari {
            add(10.0, 0.0);
        }
        // An atari the opponent cannot escape (a working ladder).
        if !self_atari {
            match tactics::catches(board, c, p, tactics::LADDER_DEPTH) {
                0 => {}
                1 => add(15.0, 15.0),
                _ => add(30.0, 30.0),
            }
        }
        if patterns::matches(board, p) {
            add(10.0, 10.0);
        }
        // Near the last move.
        if let Some(l) = last.filter(|&l| l != PASS) {
            let (x, y) = board.coords(p);
            let (lx, ly) = board.coords(l);
            let d = x.abs_diff(lx) + y.abs_diff(ly);
            match d {
                1 => add(24.0, 24.0),
                2 => add(22.0, 22.0),
                3 => add(8.0, 8.0),
                _ => {}
            }
        }
        // Empty areas: the third line and above are good, the first two poor.
        let (x, y) = board.coords(p);
        let n = board.size();
        let line = x.min(y).min(n - 1 - x).min(n - 1 - y);
        if empty_area(board, p, 3) {
            if line >= 2 {
                add(10.0, 10.0);
            } else {
                add(10.0, 0.0);
            }
        }
        (visits, wins)
    }

    /// The children of a node for `c` to move on `board` (the root if
    /// `root`), with their priors, into `out`. Computed outside the lock.
    fn children(
        &self,
        board: &Board,
        c: Color,
        root: bool,
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
            if ok {
                let (v, w) = Self::prior(board, c, p, last);
                out.push(Node::new(p, v, w));
            }
        }
        let (v, w) = Self::prior(board, c, PASS, last);
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
    /// path counts the visit now and the win, if any, at the update), the
    /// expansion of the leaf it reached (its children's priors computed
    /// unlocked), the playout (unlocked) and the update (locked again).
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
                if mv == PASS {
                    board.clear_ko();
                    passes += 1;
                } else {
                    board.place(c, mv);
                    passes = 0;
                }
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
        if let Some(i) = leaf {
            let last = match w.sequence.last() {
                Some(&(_, m)) => Some(m),
                None => self.game.last_move().map(|(_, m)| m.unwrap_or(PASS)),
            };
            let mut children = std::mem::take(&mut w.children);
            self.children(board, c, i == 0, last, &mut children);
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
        let lead = playout_area(board) as f64 - self.komi;
        let black_wins = lead > 0.0;
        self.update(&mut self.lock(), w, black_wins);
        self.playouts.fetch_add(1, Ordering::Relaxed);
    }

    /// Adds the result of a playout to the path's wins (its visits were
    /// counted by the descent) and to the AMAF statistics of the siblings.
    fn update(&self, nodes: &mut [Node], w: &mut Worker, black_wins: bool) {
        // first_mover[p]: colour (1 black, 2 white) of the first move at p from
        // the current depth on; filled walking the sequence backwards.
        for m in w.first_mover.iter_mut() {
            *m = 0;
        }
        let path = &w.path;
        let tree_len = path.len() - 1;
        for k in (0..w.sequence.len()).rev() {
            let (col, p) = w.sequence[k];
            if p != PASS {
                w.first_mover[p as usize] = col.index() as u8 + 1;
            }
            if k < tree_len {
                // node path[k] has children played by col
                let parent = &nodes[path[k]];
                let (start, n) = (parent.first_child as usize, parent.children as usize);
                let won = (col == Color::Black) == black_wins;
                for ch in &mut nodes[start..start + n] {
                    if ch.mv != PASS && w.first_mover[ch.mv as usize] == col.index() as u8 + 1 {
                        ch.amaf_visits += 1.0;
                        ch.amaf_wins += won as u8 as f32;
                    }
                }
                nodes[path[k + 1]].wins += won as u8 as f32;
            }
        }
    }

    /// Runs playouts until the budget is spent (by all threads together) or
    /// `stop` is set; `thread` numbers the caller among the threads.
    pub fn search(&self, settings: &Settings, stop: &AtomicBool, thread: usize) {
        let start = Instant::now();
        let mut w = Worker {
            rng: SmallRng::seed_from_u64(
                self.seed
                    .wrapping_add(thread as u64 * 0x5851_F42D_4C95_7F2D),
            ),
            sequence: Vec::with_capacity(1024),
            path: Vec::with_capacity(64),
            children: Vec::with_capacity(crate::board::MAX_POINTS),
            board: Box::new(self.game.board().clone()),
            first_mover: vec![0; crate::board::MAX_POINTS],
        };
        // Aléago's line lists only if dice playouts ask for them.
        w.board.keep_lines(false);
        let max = settings.budget.playouts.unwrap_or(u64::MAX);
        let mut mine = 0u64;
        while self.playouts() < max {
            self.iterate(&mut w);
            mine += 1;
            if mine.is_multiple_of(64) {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
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
    }

    /// Whether the most visited root move stays first whatever the rest of
    /// the budget brings (every remaining playout going to the runner-up).
    fn decided(&self, settings: &Settings, start: Instant) -> bool {
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

    /// Runs the search on the calling thread and returns the decision with
    /// its win rate.
    pub fn run(&self, settings: &Settings, stop: &AtomicBool) -> (Decision, f64) {
        self.search(settings, stop, 0);
        decide(&self.root_stats(), settings.cleanup)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    #[test]
    fn playout_draws_are_uniform_and_in_range() {
        let mut rng = SmallRng::seed_from_u64(5);
        for n in [1, 3, 7, 81, 361] {
            let mut seen = vec![0u32; n];
            let draws = 2000 * n as u32;
            for _ in 0..draws {
                seen[below(&mut rng, n)] += 1;
            }
            // Each count within 15% of the mean (2000): many standard
            // deviations (about 45) away.
            assert!(
                seen.iter().all(|&k| (1700..=2300).contains(&k)),
                "{n}: {seen:?}"
            );
        }
    }

    #[test]
    fn playouts_end_with_only_eyes_left() {
        let mut rng = SmallRng::seed_from_u64(3);
        for _ in 0..20 {
            let mut b = Board::new(9);
            playout(
                &mut b,
                Color::Black,
                Policy::Light,
                &mut rng,
                None,
                [None, None],
                |_, _| {},
            );
            for &p in b.empty_points() {
                assert!(
                    b.is_eye(Color::Black, p)
                        || b.is_eye(Color::White, p)
                        || b.is_suicide(Color::Black, p) && b.is_suicide(Color::White, p)
                );
            }
            assert_eq!(b.hash(), b.recompute_hash());
        }
    }

    #[test]
    fn search_sees_a_won_position() {
        let board = "
            . . . . . . .
            . . . . . . .
            . . . . . . .
            O O O O . . .
            X X X O . . .
            X X X O . . .
            X X X . . . .";
        let mut g = Game::new(7, Rules::default(), 0.5);
        let b = Board::from_ascii(board);
        let mut stones = Vec::new();
        for p in b.points() {
            if let Some(c) = b.color_at(p) {
                stones.push((c, p));
            }
        }
        g.setup(&stones, false).unwrap();
        g.set_to_move(Color::White);
        let s = Search::new(&g, 1, 1 << 20);
        let settings = Settings {
            budget: Budget {
                playouts: Some(3000),
                time: None,
            },
            seed: 1,
            cleanup: false,
            max_nodes: 1 << 20,
        };
        let (d, rate) = s.run(&settings, &AtomicBool::new(false));
        // The black group cannot live: White wins whatever it plays next.
        assert!(rate > 0.85, "{rate}");
        let Decision::Play(p) = d else {
            panic!("{d:?}")
        };
        assert!(g.check(Color::White, p).is_ok());
        // The capture is seen by the prior and the search.
        let d1 = g.board().point(3, 0);
        let capture = s
            .root_stats()
            .into_iter()
            .find(|m| m.mv == Some(d1))
            .unwrap();
        assert!(capture.wins / capture.visits > 0.85);
    }

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
    fn two_threads_share_one_tree() {
        let mut g = Game::new(9, Rules::default(), 7.5);
        g.play(Color::Black, Some(g.board().point(4, 4))).unwrap();
        let settings = Settings {
            budget: Budget {
                playouts: Some(4000),
                time: None,
            },
            seed: 3,
            cleanup: false,
            max_nodes: 1 << 20,
        };
        let mut tree = Tree::default();
        let stop = AtomicBool::new(false);
        let (d, _, playouts) = run_threads(&g, &settings, 2, Planning::Chance, &stop, &mut tree);
        // The budget is shared (the search may also stop early, decided).
        assert!((256..4002).contains(&playouts), "{playouts}");
        let Decision::Play(p) = d else {
            panic!("{d:?}")
        };
        assert!(g.check(Color::White, p).is_ok());
        // Every playout is one visit of the root, and the root's children
        // share them out but for the first descents, which found the root
        // unexpanded (one per thread at most); no virtual loss is left behind.
        let root = &tree.nodes[0];
        assert_eq!(root.visits as u64, playouts);
        let children = &tree.nodes[root.first_child as usize..][..root.children as usize];
        let real: f32 = children.iter().map(|c| c.visits - c.prior_visits).sum();
        let at_root = playouts - real as u64;
        assert!((1..=2).contains(&at_root), "{at_root}");
        assert!(children.iter().all(|c| c.wins <= c.visits));
    }
}
