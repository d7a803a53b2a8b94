//! Ladders as KataGo's network inputs read them (`Board::searchIsLadderCaptured`
//! and `searchIsLadderCapturedAttackerFirst2Libs` in KataGo's `board.cpp`):
//! a chain in atari is laddered if, the defender moving first, every
//! extension or liberty-gaining capture is answered by an atari that
//! eventually captures; a chain with two liberties is laddered if the
//! attacker has a first atari that starts such a ladder (the "working
//! moves"). Kos count for the defender, a search stops after 25,000 moves
//! (then: not laddered), and a sequence longer than 1.5 times the board's
//! points counts as captured, all as KataGo does, so that the planes equal
//! the ones the network was trained on.
//!
//! A search plays its moves on one copy of the board and takes each back
//! ([`Board::place_undoably`], [`Board::undo`]), as KataGo's does, in place
//! of a board's copy a move: one copy serves every chain of a position.
//!
//! A reading also keeps its footprint: every cell whose contents its
//! outcome depends on. It marks each point whose chain it reads (the
//! chain through a point: its stones, liberties, size) and each point
//! where it plays or weighs a move, with that point's neighbours; at the
//! end each marked point's chain on the board read is taken whole, with
//! every cell next to it. A chain on the scratch board is its original
//! chains joined by stones the reading played, and each such stone's
//! neighbours were marked, so every chain it read and every liberty it
//! counted lies in the footprint. A board that differs from the one read
//! only outside a reading's footprint (and in neither board's ko point
//! within it) gives the same reading move for move, so its outcome can be
//! reused (`ladder_memo.rs`).
//!
//! This is not kosumi's own tactical reader (`crate::knowledge::tactics`), which
//! serves the playouts with a depth bound instead.

use crate::go::board::{Board, BoardSize, Cell, Color, Point, Undo};
use crate::go::cell_set::{CellSet, Layout};
use crate::go::rules::Suicide;

/// KataGo's bound on the moves of one ladder search.
const NODE_BUDGET: u32 = 25_000;

/// The search ran out of its budget.
struct Exhausted;

/// A scratch board, on which a search plays each move and takes it back
/// (KataGo's `playMoveRecorded` and `undo`), and a move list a depth,
/// reused between searches.
pub struct LadderReader {
    board: Box<Board>,
    undo: Undo,
    moves: Vec<Vec<Point>>,
    /// The liberties of a chain of two, kept between calls.
    pair: Vec<Point>,
    nodes: u32,
    /// The points whose chain, or whose neighbourhood, the reading read.
    marked: CellSet,
}

impl Default for LadderReader {
    fn default() -> Self {
        LadderReader::new()
    }
}

fn ko_point(board: &Board) -> Option<Point> {
    board.ko().map(|(p, _)| p)
}

/// Marks `p` and its neighbours: a move there, played or weighed, reads
/// them and their chains.
fn mark_around(marked: &mut CellSet, board: &Board, p: Point) {
    marked.insert(p);
    for q in board.neighbors(p) {
        marked.insert(q);
    }
}

/// KataGo's legality inside a ladder: empty, not the ko point (for either
/// colour) and not suicide. Marks the move's neighbourhood, which playing
/// it reads too.
fn legal(board: &Board, marked: &mut CellSet, c: Color, p: Point) -> bool {
    mark_around(marked, board, p);
    ko_point(board) != Some(p) && board.check(c, p, Suicide::Forbidden).is_ok()
}

/// The liberties of the chain through `p`, in the order its stones are
/// walked, skipping any already in `list[from..]`, appended to `list`.
fn push_liberties(board: &Board, p: Point, list: &mut Vec<Point>, from: usize) {
    for s in board.chain_stones(p) {
        for q in board.neighbors(s) {
            if board.cell(q) == Cell::Empty && !list[from..].contains(&q) {
                list.push(q);
            }
        }
    }
}

/// The points that capture an opponent chain in atari next to the chain
/// through `p` (each such chain's liberty), appended to `list`; every
/// opponent chain next to it marked (its liberties were read).
fn push_liberty_gaining_captures(
    board: &Board,
    marked: &mut CellSet,
    p: Point,
    list: &mut Vec<Point>,
) {
    let Some(own) = board.color_at(p) else { return };
    let opp = own.opponent();
    let from = list.len();
    let mut checked = [0 as Point; 64];
    let mut n = 0;
    for s in board.chain_stones(p) {
        for q in board.neighbors(s) {
            if board.color_at(q) != Some(opp) {
                continue;
            }
            marked.insert(q);
            if board.liberties(q) == 1 {
                let head = board.chain(q);
                if checked[..n].contains(&head) {
                    continue;
                }
                push_liberties(board, q, list, from);
                if n < checked.len() {
                    checked[n] = head;
                    n += 1;
                }
            }
        }
    }
}

fn has_liberty_gaining_captures(board: &Board, marked: &mut CellSet, p: Point) -> bool {
    let Some(own) = board.color_at(p) else {
        return false;
    };
    board.chain_stones(p).any(|s| {
        board.neighbors(s).iter().any(|&q| {
            board.color_at(q) == Some(own.opponent()) && {
                marked.insert(q);
                board.liberties(q) == 1
            }
        })
    })
}

fn immediate_liberties(board: &Board, p: Point) -> i32 {
    board
        .neighbors(p)
        .iter()
        .filter(|&&q| board.cell(q) == Cell::Empty)
        .count() as i32
}

/// Twice the liberties beyond 1.5 of each neighbouring chain of `c`
/// (KataGo's ordering heuristic).
fn connection_liberties_x2(board: &Board, c: Color, p: Point) -> i32 {
    board
        .neighbors(p)
        .iter()
        .filter(|&&q| board.color_at(q) == Some(c))
        .map(|&q| board.liberties(q) as i32)
        .filter(|&l| l > 1)
        .map(|l| 2 * l - 3)
        .sum()
}

/// A quick lower and upper bound on the liberties of a stone of `c` at `p`.
fn liberty_bounds(board: &Board, c: Color, p: Point) -> (usize, usize) {
    let (mut immediate, mut caps, mut cap_stones, mut conn, mut max_conn) = (0, 0, 0, 0, 0);
    for q in board.neighbors(p) {
        match board.cell(q) {
            Cell::Empty => immediate += 1,
            cell if cell.color() == Some(c.opponent()) && board.liberties(q) == 1 => {
                caps += 1;
                cap_stones += board.chain_size(q);
            }
            cell if cell.color() == Some(c) => {
                let l = board.liberties(q) - 1;
                conn += l;
                max_conn = max_conn.max(l);
            }
            _ => {}
        }
    }
    (
        caps + max_conn.max(immediate),
        immediate + cap_stones + conn,
    )
}

/// Exact liberties of a stone of `c` at `p`, or `max` if at least `max`
/// (at most 8). The opponent stones next to the chains it joins are
/// marked (whether each is captured reads its chain); `p`'s neighbourhood
/// is the caller's to mark.
fn liberties_after(board: &Board, marked: &mut CellSet, c: Color, p: Point, max: usize) -> usize {
    assert!(max <= 8, "liberties are counted up to 8");
    let mut libs = Liberties::default();
    let mut captured: [Point; 4] = [0; 4];
    let mut n_captured = 0;
    for q in board.neighbors(p) {
        match board.cell(q) {
            Cell::Empty => libs.push(q),
            cell if cell.color() == Some(c.opponent()) && board.liberties(q) == 1 => {
                libs.push(q);
                let head = board.chain(q);
                if !captured[..n_captured].contains(&head) {
                    captured[n_captured] = head;
                    n_captured += 1;
                }
            }
            _ => {}
        }
        if libs.len() >= max {
            return max;
        }
    }
    let mut would_be_empty = |q: Point| match board.cell(q) {
        Cell::Empty => true,
        cell if cell.color() == Some(c.opponent()) => {
            marked.insert(q);
            captured[..n_captured].contains(&board.chain(q))
        }
        _ => false,
    };
    let mut joined: [Point; 4] = [0; 4];
    let mut n_joined = 0;
    for q in board.neighbors(p) {
        if board.color_at(q) != Some(c) || joined[..n_joined].contains(&board.chain(q)) {
            continue;
        }
        joined[n_joined] = board.chain(q);
        n_joined += 1;
        for s in board.chain_stones(q) {
            for l in board.neighbors(s) {
                if l != p && would_be_empty(l) && !libs.contains(l) {
                    libs.push(l);
                    if libs.len() >= max {
                        return max;
                    }
                }
            }
        }
    }
    libs.len()
}

/// A few liberties, counted without allocating.
#[derive(Default)]
struct Liberties {
    points: [Point; 8],
    len: usize,
}

impl Liberties {
    fn push(&mut self, p: Point) {
        self.points[self.len] = p;
        self.len += 1;
    }

    fn len(&self) -> usize {
        self.len
    }

    fn contains(&self, p: Point) -> bool {
        self.points[..self.len].contains(&p)
    }
}

/// Whether `c` playing `p` captures exactly one lone opponent stone with
/// every neighbour of `p` an opponent stone or the edge.
fn would_be_ko_capture(board: &Board, c: Color, p: Point) -> bool {
    if board.cell(p) != Cell::Empty {
        return false;
    }
    let mut capturable = None;
    for q in board.neighbors(p) {
        match board.cell(q) {
            Cell::Border => {}
            cell if cell.color() == Some(c.opponent()) => {
                if board.liberties(q) == 1 {
                    if capturable.is_some() {
                        return false;
                    }
                    capturable = Some(q);
                }
            }
            _ => return false,
        }
    }
    capturable.is_some_and(|q| board.chain_size(q) == 1)
}

impl LadderReader {
    pub fn new() -> LadderReader {
        let mut board = Box::new(Board::new(BoardSize::square(2)));
        // Copies then leave the per-line lists alone (Aléago's, not read here).
        board.keep_lines(false);
        LadderReader {
            board,
            undo: Undo::default(),
            moves: Vec::new(),
            pair: Vec::new(),
            nodes: 0,
            marked: CellSet::default(),
        }
    }

    /// The reader on a copy of `board`, for any number of its chains (one
    /// copy for them all: each search leaves the copy as it found it),
    /// made when the first chain is read.
    pub fn on<'a>(&'a mut self, board: &'a Board) -> Reading<'a> {
        self.marked = CellSet::default();
        Reading {
            reader: self,
            board,
            copied: false,
        }
    }

    fn working_moves(&mut self, p: Point) -> [Option<Point>; 2] {
        let mut working = [None; 2];
        let board = &self.board;
        let Some(own) = board.color_at(p) else {
            return working;
        };
        self.marked.insert(p);
        if board.liberties(p) != 2 {
            return working;
        }
        let mut libs = std::mem::take(&mut self.pair);
        libs.clear();
        push_liberties(board, p, &mut libs, 0);
        for (i, &m) in libs.iter().enumerate().take(2) {
            if !legal(&self.board, &mut self.marked, own.opponent(), m) {
                continue;
            }
            self.board.place_undoably(own.opponent(), m, &mut self.undo);
            if self.search(p, true) {
                working[i] = Some(m);
            }
            self.board.undo(&mut self.undo);
        }
        self.pair = libs;
        working
    }

    /// KataGo's `searchIsLadderCaptured` on the scratch board, which it
    /// leaves as it found it.
    fn search(&mut self, p: Point, defender_first: bool) -> bool {
        let board = &self.board;
        self.marked.insert(p);
        if board.color_at(p).is_none() {
            return false;
        }
        let libs = board.liberties(p);
        if libs > 2 || (defender_first && libs > 1) {
            return false;
        }
        self.board.checkpoint(&mut self.undo);
        if defender_first {
            self.board.clear_ko();
        }
        self.nodes = 0;
        let stack_size = self.board.size().points() * 3 / 2 + 1;
        let laddered = self
            .level(0, p, defender_first, stack_size)
            .unwrap_or(false);
        self.board.undo(&mut self.undo);
        laddered
    }

    fn level(
        &mut self,
        depth: usize,
        p: Point,
        defender_first: bool,
        stack_size: usize,
    ) -> Result<bool, Exhausted> {
        if depth >= stack_size - 1 {
            return Ok(true);
        }
        if self.nodes >= NODE_BUDGET {
            return Err(Exhausted);
        }
        if self.moves.len() <= depth {
            self.moves.resize_with(depth + 1, Vec::new);
        }
        let board = &self.board;
        let defender = board
            .color_at(p)
            .expect("the chain stays on the board while the ladder runs");
        let attacker = defender.opponent();
        let is_defender = depth.is_multiple_of(2) == defender_first;
        let libs = board.liberties(p);
        if !is_defender && libs <= 1 {
            return Ok(true);
        }
        if !is_defender && libs >= 3 {
            return Ok(false);
        }
        if is_defender && libs >= 2 {
            return Ok(false);
        }
        if is_defender && board.ko().is_some() {
            return Ok(false);
        }
        let mut moves = std::mem::take(&mut self.moves[depth]);
        moves.clear();
        let marked = &mut self.marked;
        if is_defender {
            push_liberty_gaining_captures(board, marked, p, &mut moves);
            push_liberties(board, p, &mut moves, 0);
            let last = *moves.last().expect("a chain in atari has a liberty");
            mark_around(marked, board, last);
            let (lower, upper) = liberty_bounds(board, defender, last);
            if lower >= 3 {
                self.moves[depth] = moves;
                return Ok(false);
            }
            if moves.len() == 1 && upper <= 1 {
                self.moves[depth] = moves;
                return Ok(true);
            }
        } else {
            push_liberties(board, p, &mut moves, 0);
            let (m0, m1) = (moves[0], moves[1]);
            mark_around(marked, board, m0);
            mark_around(marked, board, m1);
            let mut libs0 = immediate_liberties(board, m0);
            let mut libs1 = immediate_liberties(board, m1);
            if libs0 == 0
                && libs1 == 0
                && would_be_ko_capture(board, attacker, m0)
                && would_be_ko_capture(board, attacker, m1)
                && liberties_after(board, marked, defender, m0, 3) <= 2
                && liberties_after(board, marked, defender, m1, 3) <= 2
                && !has_liberty_gaining_captures(board, marked, p)
            {
                self.moves[depth] = moves;
                return Ok(true);
            }
            if !board.neighbors(m0).contains(&m1) {
                if libs0 >= 3 && libs1 >= 3 {
                    self.moves[depth] = moves;
                    return Ok(false);
                } else if libs0 >= 3 {
                    moves.truncate(1);
                } else if libs1 >= 3 {
                    moves[0] = m1;
                    moves.truncate(1);
                }
            }
            if moves.len() > 1 {
                libs0 = libs0 * 2 + connection_liberties_x2(board, defender, m0);
                libs1 = libs1 * 2 + connection_liberties_x2(board, defender, m1);
                if libs1 > libs0 {
                    moves.swap(0, 1);
                }
            }
        }
        let mover = if is_defender { defender } else { attacker };
        let mut result = is_defender;
        for &m in &moves {
            if !legal(&self.board, &mut self.marked, mover, m) {
                continue;
            }
            self.board.place_undoably(mover, m, &mut self.undo);
            self.nodes += 1;
            let deeper = self.level(depth + 1, p, defender_first, stack_size);
            self.board.undo(&mut self.undo);
            let captured = match deeper {
                Ok(c) => c,
                Err(e) => {
                    self.moves[depth] = moves;
                    return Err(e);
                }
            };
            if self.nodes >= NODE_BUDGET {
                self.moves[depth] = moves;
                return Err(Exhausted);
            }
            if is_defender && !captured {
                result = false;
                break;
            }
            if !is_defender && captured {
                result = true;
                break;
            }
        }
        self.moves[depth] = moves;
        Ok(result)
    }
}

/// A [`LadderReader`] on one board's copy ([`LadderReader::on`]).
pub struct Reading<'a> {
    reader: &'a mut LadderReader,
    board: &'a Board,
    /// Whether the reader's board is a copy of `board` yet.
    copied: bool,
}

impl Reading<'_> {
    /// The reader, its board a copy of the board read.
    fn reader(&mut self) -> &mut LadderReader {
        if !self.copied {
            self.reader.board.copy_from(self.board);
            self.copied = true;
        }
        self.reader
    }

    /// Whether the chain through `p`, in atari, is captured in a ladder
    /// with its owner to move.
    pub fn in_atari_is_laddered(&mut self, p: Point) -> bool {
        self.reader().search(p, true)
    }

    /// For a chain of two liberties: the attacker's ataris that start a
    /// ladder capturing it (none: not laddered).
    pub fn two_liberties_working_moves(&mut self, p: Point) -> [Option<Point>; 2] {
        self.reader().working_moves(p)
    }

    /// The footprint of the readings since the last call (or since the
    /// board was copied): the marked points, and each marked point's
    /// chain on the board read with every cell next to it.
    pub fn footprint(&mut self, layout: Layout) -> CellSet {
        let marked = std::mem::take(&mut self.reader.marked);
        let board = self.board;
        let mut chains = CellSet::default();
        for q in marked.iter() {
            if board.color_at(q).is_some() && !chains.contains(q) {
                board.chain_stones(q).for_each(|s| chains.insert(s));
            }
        }
        marked.or(&chains.widened(layout))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::vertex::parse_vertex;

    fn pt(b: &Board, v: &str) -> Point {
        parse_vertex(v, b.size()).unwrap().unwrap()
    }

    const LADDER: &str = ". . . . . . . . .
                          . . . . . . . . .
                          . . . . . . . . .
                          . . . . . . . . .
                          . . . . . . . . .
                          . . . X . . . . .
                          . X O X . . . . .
                          . . X . . . . . .
                          . . . . . . . . .";

    #[test]
    fn a_stone_in_atari_runs_into_a_ladder_unless_a_breaker_stands_in_its_path() {
        // White C3 in atari: C4 gives it two liberties, C5 ataris again and
        // the chain runs to the left edge.
        let ladder = Board::from_ascii(LADDER);
        let mut reader = LadderReader::new();
        assert!(reader.on(&ladder).in_atari_is_laddered(pt(&ladder, "C3")));
        let mut broken = ladder.clone();
        broken.place(Color::White, pt(&broken, "B5"));
        assert!(!reader.on(&broken).in_atari_is_laddered(pt(&broken, "C3")));
    }

    #[test]
    fn a_chain_of_two_liberties_has_the_atari_that_starts_the_ladder() {
        let mut b = Board::new(9);
        for (c, v) in [
            (Color::Black, "B3"),
            (Color::Black, "C2"),
            (Color::Black, "D4"),
            (Color::White, "C3"),
        ] {
            b.place(c, pt(&b, v));
        }
        let mut reader = LadderReader::new();
        let working = reader.on(&b).two_liberties_working_moves(pt(&b, "C3"));
        assert!(working.contains(&Some(pt(&b, "D3"))), "{working:?}");
        b.place(Color::White, pt(&b, "B5"));
        b.place(Color::White, pt(&b, "E2"));
        let working = reader.on(&b).two_liberties_working_moves(pt(&b, "C3"));
        assert_eq!(working, [None, None]);
    }
}
