//! The board: stones, chains, exact liberty counts, captures, the simple-ko
//! point and the Zobrist hash, on a padded one-dimensional array.
//!
//! The board knows how to place a stone under a suicide rule and what that does
//! to the position. It does not know about history, superko, passes or scoring:
//! those belong to `game` and `score`. Everything here is fixed-size, so playing
//! a move never allocates (the playout hot path).

use crate::go::rules::Suicide;
use std::fmt;

/// Largest supported board side (width and height alike).
pub const MAX_SIZE: usize = 25;
/// Side of the padded array (one border row/column on each side).
const MAX_STRIDE: usize = MAX_SIZE + 2;
/// Number of cells in the padded array.
pub const MAX_POINTS: usize = MAX_STRIDE * MAX_STRIDE;

/// Highest concentric line of the largest board.
pub const MAX_LINES: usize = MAX_SIZE.div_ceil(2);
/// Most points on one line (the edge of the largest board).
const LINE_POINTS: usize = 4 * (MAX_SIZE - 1);

/// Index of a cell in the padded array.
pub type Point = u16;

/// What [`Board::place_undoably`] changed, frame by frame, so that
/// [`Board::undo`] puts it back: each point's entries as they were before
/// their first change (its counts of its neighbours in a list of their
/// own, 8 bytes an entry where a whole point's take 14), the list slots
/// likewise, the scalars at the frame's opening. Kept between uses, it
/// allocates only while it grows.
#[derive(Default)]
pub struct Undo {
    frames: Vec<Frame>,
    points: Vec<SavedPoint>,
    counts: Vec<SavedCount>,
    slots: Vec<SavedSlot>,
}

impl Undo {
    /// The frames open.
    pub fn depth(&self) -> usize {
        self.frames.len()
    }
}

/// The scalars of a board when a frame opened, and where its saved entries
/// start.
struct Frame {
    points: usize,
    counts: usize,
    slots: usize,
    empty_count: usize,
    line_empty_count: [u8; MAX_LINES + 1],
    hash: u64,
    captures: [u32; 2],
    ko: Option<(Point, Color)>,
}

/// A point's entries in every per-point array but its neighbours' counts
/// ([`SavedCount`]) and the marks (which are scratch, kept consistent by
/// their generation).
struct SavedPoint {
    at: Point,
    cell: Cell,
    head: Point,
    next: Point,
    libs: u16,
    stones: u16,
    empty_index: u16,
    line_empty_index: u8,
}

/// A point's counts of its neighbours by what they hold, saved apart: a
/// placement changes them at each of its neighbours (and a capture at
/// each of the captured stones'), and nothing else there.
struct SavedCount {
    at: Point,
    count: u32,
}

/// A slot of the empty points' list (`line` = [`EMPTY_LIST`]) or of a
/// line's list.
struct SavedSlot {
    line: u8,
    index: u16,
    point: Point,
}

/// [`SavedSlot::line`] of the list of all empty points.
const EMPTY_LIST: u8 = u8::MAX;

/// Where a placement's writes are told before they are made: nowhere
/// (`()`, the plain [`Board::place`]: the calls compile to nothing) or an
/// [`Undo`].
trait Journal {
    fn point(&mut self, board: &Board, at: Point);
    fn count(&mut self, board: &Board, at: Point);
    fn empty_slot(&mut self, board: &Board, index: usize);
    fn line_slot(&mut self, board: &Board, line: usize, index: usize);
}

impl Journal for () {
    #[inline(always)]
    fn point(&mut self, _: &Board, _: Point) {}
    #[inline(always)]
    fn count(&mut self, _: &Board, _: Point) {}
    #[inline(always)]
    fn empty_slot(&mut self, _: &Board, _: usize) {}
    #[inline(always)]
    fn line_slot(&mut self, _: &Board, _: usize, _: usize) {}
}

impl Journal for Undo {
    fn point(&mut self, board: &Board, at: Point) {
        let i = at as usize;
        self.points.push(SavedPoint {
            at,
            cell: board.cells[i],
            head: board.head[i],
            next: board.next[i],
            libs: board.libs[i],
            stones: board.stones[i],
            empty_index: board.empty_index[i],
            line_empty_index: board.line_empty_index[i],
        });
    }

    fn count(&mut self, board: &Board, at: Point) {
        self.counts.push(SavedCount {
            at,
            count: board.neighbor_count[at as usize],
        });
    }

    fn empty_slot(&mut self, board: &Board, index: usize) {
        self.slots.push(SavedSlot {
            line: EMPTY_LIST,
            index: index as u16,
            point: board.empty[index],
        });
    }

    fn line_slot(&mut self, board: &Board, line: usize, index: usize) {
        self.slots.push(SavedSlot {
            line: line as u8,
            index: index as u16,
            point: board.line_empty[line][index],
        });
    }
}

/// A board's width (columns) and height (rows), each 2..=25 on a board
/// that exists. Square boards are the common case; KataGo, Sabaki and SGF
/// (`SZ[13:9]`) also know rectangular ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BoardSize {
    pub width: usize,
    pub height: usize,
}

impl BoardSize {
    /// A square board of side `side`.
    pub const fn square(side: usize) -> BoardSize {
        BoardSize {
            width: side,
            height: side,
        }
    }

    /// A board of `width` columns and `height` rows, if both sides are
    /// 2..=25.
    pub fn new(width: usize, height: usize) -> Result<BoardSize, String> {
        let size = BoardSize { width, height };
        if (2..=MAX_SIZE).contains(&width) && (2..=MAX_SIZE).contains(&height) {
            Ok(size)
        } else {
            Err(format!(
                "unacceptable size {size}: each side must be 2 to {MAX_SIZE}"
            ))
        }
    }

    pub fn is_square(self) -> bool {
        self.width == self.height
    }

    /// The number of points.
    pub const fn points(self) -> usize {
        self.width * self.height
    }

    /// The longer side.
    pub fn longer(self) -> usize {
        self.width.max(self.height)
    }

    /// The shorter side.
    pub fn shorter(self) -> usize {
        self.width.min(self.height)
    }

    /// `19x19`, `13x9`: the board as a sentence names it.
    pub fn shape_name(self) -> String {
        format!("{}x{}", self.width, self.height)
    }
}

/// A square board of that side.
impl From<usize> for BoardSize {
    fn from(side: usize) -> BoardSize {
        BoardSize::square(side)
    }
}

/// `19` for a square board, `13x9` (width × height, as KataGo writes it)
/// for another.
impl fmt::Display for BoardSize {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.is_square() {
            write!(f, "{}", self.width)
        } else {
            write!(f, "{}x{}", self.width, self.height)
        }
    }
}

/// The colour of a stone or of a player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    Black,
    White,
}

impl Color {
    pub fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }
    pub fn index(self) -> usize {
        self as usize
    }
    /// What turns a value from White's side into this colour's: 1 for
    /// White, −1 for Black.
    pub fn from_white(self) -> f64 {
        match self {
            Color::White => 1.0,
            Color::Black => -1.0,
        }
    }
    /// `B` or `W`, as GTP and SGF write it.
    pub fn letter(self) -> char {
        match self {
            Color::Black => 'B',
            Color::White => 'W',
        }
    }
    /// The cell a stone of this colour makes.
    pub(crate) fn cell(self) -> Cell {
        match self {
            Color::Black => Cell::Black,
            Color::White => Cell::White,
        }
    }
}

/// What a cell of the padded array holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Cell {
    Empty,
    Black,
    White,
    Border,
}

impl Cell {
    /// The colour of the stone it holds, if any: read from a table, so
    /// that no branch (nor a jump through a table of branches) waits on
    /// what the cell holds.
    #[inline]
    pub fn color(self) -> Option<Color> {
        const COLORS: [Option<Color>; 4] = [None, Some(Color::Black), Some(Color::White), None];
        COLORS[self as usize]
    }
}

/// Why a stone cannot be placed. `game` adds the history-based reasons.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Illegal {
    Occupied,
    Suicide,
    Ko,
    Superko,
    NotOnRolledLine,
}

impl fmt::Display for Illegal {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            Illegal::Occupied => "point is occupied",
            Illegal::Suicide => "suicide",
            Illegal::Ko => "ko",
            Illegal::Superko => "superko: the position would repeat",
            Illegal::NotOnRolledLine => "not on the rolled line",
        })
    }
}

/// The point at column `x`, row `y` (0-based, row 0 at the bottom) of a
/// board of `size`: points are indices into a grid padded by one border
/// row and column on each side, `size.width + 2` cells a row.
pub const fn point_at(size: BoardSize, x: usize, y: usize) -> Point {
    ((y + 1) * (size.width + 2) + x + 1) as Point
}

/// Column and row of an on-board point of a board of `size`.
pub const fn coords_of(size: BoardSize, p: Point) -> (usize, usize) {
    let (p, stride) = (p as usize, size.width + 2);
    (p % stride - 1, p / stride - 1)
}

/// The line of column `x`, row `y` on a board of `size`: 1 at the edge
/// (the dice of Aléago roll lines), the distance to the nearest edge.
pub fn line(size: BoardSize, x: usize, y: usize) -> u32 {
    (x.min(y).min(size.width - 1 - x).min(size.height - 1 - y) + 1) as u32
}

/// The highest line of a board of `size`.
pub fn top_line(size: BoardSize) -> u32 {
    size.shorter().div_ceil(2) as u32
}

const fn zobrist_table() -> [[u64; MAX_POINTS]; 2] {
    let mut t = [[0u64; MAX_POINTS]; 2];
    let mut c = 0;
    while c < 2 {
        let mut p = 0;
        while p < MAX_POINTS {
            let seed = ((c * MAX_POINTS + p) as u64).wrapping_mul(0x1234_5678_9ABC_DEF1);
            t[c][p] = crate::core::random::splitmix(seed.wrapping_add(7));
            p += 1;
        }
        c += 1;
    }
    t
}

static ZOBRIST: [[u64; MAX_POINTS]; 2] = zobrist_table();

/// One neighbour holding `cell`, in the packed counts of
/// `Board::neighbor_count`.
#[inline(always)]
const fn count_unit(cell: Cell) -> u32 {
    1 << (8 * cell as u32)
}

/// What a successful placement did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Placed {
    /// Opponent stones removed.
    pub captured: u32,
    /// Own stones removed by a (legal) suicide.
    pub suicided: u32,
}

/// A Go board of 2..=25 columns and rows.
#[derive(Clone)]
pub struct Board {
    size: BoardSize,
    stride: usize,
    cells: [Cell; MAX_POINTS],
    /// Chain representative of each stone.
    head: [Point; MAX_POINTS],
    /// Next stone of the same chain (circular list).
    next: [Point; MAX_POINTS],
    /// Liberties of a chain, stored at its head.
    libs: [u16; MAX_POINTS],
    /// Stones of a chain, stored at its head.
    stones: [u16; MAX_POINTS],
    /// Empty points, in no order, and each empty point's index in that list.
    empty: [Point; MAX_POINTS],
    empty_index: [u16; MAX_POINTS],
    empty_count: usize,
    /// The concentric line of each point (1 at the edge) and, if
    /// `keep_lines`, the empty points of each line, for Aléago's rolled lines.
    line: [u8; MAX_POINTS],
    /// Whether the per-line lists are kept up to date: on by default, off on
    /// the playout and reading boards of plain Go (keeping them costs a
    /// light playout 4% of its instructions); see [`Board::keep_lines`].
    keep_lines: bool,
    line_empty: [[Point; LINE_POINTS]; MAX_LINES + 1],
    line_empty_count: [u8; MAX_LINES + 1],
    line_empty_index: [u8; MAX_POINTS],
    /// How many neighbours of each point hold each kind of cell, one byte
    /// per kind (see [`Board::count`]), kept as stones come and go: the quick
    /// answers of the eye, suicide and self-atari checks. Packed in one word
    /// so that a stone coming or going updates a neighbour with one addition.
    neighbor_count: [u32; MAX_POINTS],
    /// Marks for counting distinct liberties.
    mark: [u32; MAX_POINTS],
    mark_gen: u32,
    hash: u64,
    /// Stones captured by each colour (prisoners it holds), suicides included.
    captures: [u32; 2],
    /// The point the given colour may not play because of simple ko.
    ko: Option<(Point, Color)>,
}

impl Board {
    /// An empty board; each side must be 2..=25 (checked by the caller).
    pub fn new(size: impl Into<BoardSize>) -> Board {
        let size = size.into();
        assert!(BoardSize::new(size.width, size.height).is_ok());
        let stride = size.width + 2;
        let mut b = Board {
            size,
            stride,
            cells: [Cell::Border; MAX_POINTS],
            head: [0; MAX_POINTS],
            next: [0; MAX_POINTS],
            libs: [0; MAX_POINTS],
            stones: [0; MAX_POINTS],
            empty: [0; MAX_POINTS],
            empty_index: [0; MAX_POINTS],
            empty_count: 0,
            line: [0; MAX_POINTS],
            keep_lines: true,
            line_empty: [[0; LINE_POINTS]; MAX_LINES + 1],
            line_empty_count: [0; MAX_LINES + 1],
            line_empty_index: [0; MAX_POINTS],
            neighbor_count: [0; MAX_POINTS],
            mark: [0; MAX_POINTS],
            mark_gen: 0,
            hash: 0,
            captures: [0; 2],
            ko: None,
        };
        for y in 0..size.height {
            for x in 0..size.width {
                let p = b.point(x, y);
                b.cells[p as usize] = Cell::Empty;
                b.line[p as usize] = line(size, x, y) as u8;
                b.add_empty(p, &mut ());
            }
        }
        for p in 0..b.cell_count() as Point {
            if b.cells[p as usize] != Cell::Border {
                for q in b.neighbors(p) {
                    b.neighbor_count[p as usize] += count_unit(b.cells[q as usize]);
                }
            }
        }
        b
    }

    /// Makes `self` a copy of `other`, copying only the part of each array
    /// that `other`'s size uses (a ninth of a full clone on 9×9): the
    /// scratch boards of tactical reading. The marks are not copied: `self`
    /// keeps its own, which stay consistent with its own generation.
    pub fn copy_from(&mut self, other: &Board) {
        let n = other.cell_count();
        self.size = other.size;
        self.stride = other.stride;
        self.cells[..n].copy_from_slice(&other.cells[..n]);
        self.head[..n].copy_from_slice(&other.head[..n]);
        self.next[..n].copy_from_slice(&other.next[..n]);
        self.libs[..n].copy_from_slice(&other.libs[..n]);
        self.stones[..n].copy_from_slice(&other.stones[..n]);
        self.empty[..other.empty_count].copy_from_slice(&other.empty[..other.empty_count]);
        self.empty_index[..n].copy_from_slice(&other.empty_index[..n]);
        self.empty_count = other.empty_count;
        self.line[..n].copy_from_slice(&other.line[..n]);
        if self.keep_lines && !other.keep_lines {
            self.rebuild_lines();
        } else if self.keep_lines {
            for l in 1..=top_line(other.size) as usize {
                let k = other.line_empty_count[l] as usize;
                self.line_empty[l][..k].copy_from_slice(&other.line_empty[l][..k]);
            }
            self.line_empty_count = other.line_empty_count;
            self.line_empty_index[..n].copy_from_slice(&other.line_empty_index[..n]);
        }
        self.neighbor_count[..n].copy_from_slice(&other.neighbor_count[..n]);
        self.hash = other.hash;
        self.captures = other.captures;
        self.ko = other.ko;
    }

    pub fn size(&self) -> BoardSize {
        self.size
    }

    /// Cells of the padded array this board uses: its rows and the border
    /// rows above and below, `stride` cells each.
    fn cell_count(&self) -> usize {
        (self.size.height + 2) * self.stride
    }

    /// The padded array's cells this board uses, by [`Point`].
    pub fn cells(&self) -> &[Cell] {
        &self.cells[..self.cell_count()]
    }

    /// The point at column `x`, row `y` (0-based, row 0 at the bottom).
    pub fn point(&self, x: usize, y: usize) -> Point {
        point_at(self.size, x, y)
    }

    /// Column and row of an on-board point.
    pub fn coords(&self, p: Point) -> (usize, usize) {
        coords_of(self.size, p)
    }

    /// Every on-board point, row by row from the bottom.
    pub fn points(&self) -> impl Iterator<Item = Point> + '_ {
        (0..self.size.height).flat_map(move |y| self.row(y))
    }

    /// The points of row `y` (0 at the bottom), from the left: a step of
    /// one apart.
    fn row(&self, y: usize) -> std::ops::Range<Point> {
        let first = self.point(0, y);
        first..first + self.size.width as Point
    }

    /// Every on-board point in the order GTP's and KataGo's texts list a
    /// board (and KataGo's networks lay it out): rows from the top, each
    /// from the left.
    pub fn points_from_top(&self) -> impl Iterator<Item = Point> + '_ {
        (0..self.size.height).rev().flat_map(move |y| self.row(y))
    }

    /// Each row in the order of [`Board::points_from_top`]: the index
    /// there of its first point (KataGo's), and that point.
    pub fn rows_from_top(&self) -> impl Iterator<Item = (usize, Point)> + '_ {
        let width = self.size.width;
        (0..self.size.height)
            .rev()
            .enumerate()
            .map(move |(row, y)| (row * width, self.point(0, y)))
    }

    #[inline]
    pub fn neighbors(&self, p: Point) -> [Point; 4] {
        let s = self.stride as Point;
        [p - s, p - 1, p + 1, p + s]
    }

    #[inline]
    pub fn diagonals(&self, p: Point) -> [Point; 4] {
        let s = self.stride as Point;
        [p - s - 1, p - s + 1, p + s - 1, p + s + 1]
    }

    /// The empty region around `start` (flood fill through empty points,
    /// marking `seen`) and whether stones of each colour border it
    /// (`[black, white]`); `touching` is called with each bordering stone.
    /// Not for the playouts: the region is a new vector.
    pub fn empty_region(
        &self,
        start: Point,
        seen: &mut [bool],
        mut touching: impl FnMut(Point),
    ) -> (Vec<Point>, [bool; 2]) {
        let mut region = vec![start];
        seen[start as usize] = true;
        let mut borders = [false; 2];
        let mut i = 0;
        while i < region.len() {
            let p = region[i];
            i += 1;
            for q in self.neighbors(p) {
                match self.cell(q) {
                    Cell::Empty if !seen[q as usize] => {
                        seen[q as usize] = true;
                        region.push(q);
                    }
                    cell => {
                        if let Some(c) = cell.color() {
                            borders[c.index()] = true;
                            touching(q);
                        }
                    }
                }
            }
        }
        (region, borders)
    }

    #[inline]
    pub fn cell(&self, p: Point) -> Cell {
        self.cells[p as usize]
    }

    pub fn color_at(&self, p: Point) -> Option<Color> {
        self.cells[p as usize].color()
    }

    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Stones captured so far by `c` (suicided stones of the opponent included).
    pub fn captures(&self, c: Color) -> u32 {
        self.captures[c.index()]
    }

    /// Adds prisoners to `c` (dead stones removed at scoring, pass stones).
    pub fn add_captures(&mut self, c: Color, n: u32) {
        self.captures[c.index()] += n;
    }

    pub fn ko(&self) -> Option<(Point, Color)> {
        self.ko
    }

    pub fn clear_ko(&mut self) {
        self.ko = None;
    }

    /// Liberties of the chain through `p` (0 for an empty point).
    #[inline]
    pub fn liberties(&self, p: Point) -> usize {
        match self.cells[p as usize] {
            Cell::Black | Cell::White => self.libs[self.head[p as usize] as usize] as usize,
            _ => 0,
        }
    }

    /// Number of stones of the chain through `p`.
    pub fn chain_size(&self, p: Point) -> usize {
        match self.cells[p as usize] {
            Cell::Black | Cell::White => self.stones[self.head[p as usize] as usize] as usize,
            _ => 0,
        }
    }

    /// The chain representative of the stone at `p`.
    #[inline]
    pub fn chain(&self, p: Point) -> Point {
        self.head[p as usize]
    }

    /// The stones of the chain through `p`.
    pub fn chain_stones(&self, p: Point) -> ChainStones<'_> {
        ChainStones {
            board: self,
            start: p,
            at: Some(p),
        }
    }

    /// The empty points, in no particular order.
    #[inline]
    pub fn empty_points(&self) -> &[Point] {
        &self.empty[..self.empty_count]
    }

    pub fn stone_count(&self) -> usize {
        self.size.points() - self.empty_count
    }

    /// The concentric line of an on-board point (1 at the edge).
    #[inline]
    pub fn line(&self, p: Point) -> u32 {
        self.line[p as usize] as u32
    }

    /// The empty points of one line, in no particular order (on a board
    /// that keeps them, see [`Board::keep_lines`]).
    #[inline]
    pub fn empty_points_on_line(&self, line: usize) -> &[Point] {
        debug_assert!(self.keep_lines, "a board that keeps its line lists");
        &self.line_empty[line][..self.line_empty_count[line] as usize]
    }

    /// Starts or stops keeping the empty points of each line (Aléago's
    /// rolled lines). Starting again rebuilds them from the empty points.
    /// A copy (`copy_from`) keeps the copying board's own setting.
    pub fn keep_lines(&mut self, keep: bool) {
        if keep && !self.keep_lines {
            self.rebuild_lines();
        }
        self.keep_lines = keep;
    }

    /// The per-line lists, made afresh from the empty points.
    fn rebuild_lines(&mut self) {
        self.line_empty_count = [0; MAX_LINES + 1];
        for i in 0..self.empty_count {
            self.add_to_line(self.empty[i]);
        }
    }

    fn add_empty<J: Journal>(&mut self, p: Point, journal: &mut J) {
        journal.point(self, p);
        journal.empty_slot(self, self.empty_count);
        self.empty_index[p as usize] = self.empty_count as u16;
        self.empty[self.empty_count] = p;
        self.empty_count += 1;
        if self.keep_lines {
            let l = self.line[p as usize] as usize;
            journal.line_slot(self, l, self.line_empty_count[l] as usize);
            self.add_to_line(p);
        }
    }

    fn add_to_line(&mut self, p: Point) {
        let l = self.line[p as usize] as usize;
        let n = self.line_empty_count[l];
        self.line_empty_index[p as usize] = n;
        self.line_empty[l][n as usize] = p;
        self.line_empty_count[l] = n + 1;
    }

    fn remove_empty<J: Journal>(&mut self, p: Point, journal: &mut J) {
        let i = self.empty_index[p as usize] as usize;
        self.empty_count -= 1;
        let last = self.empty[self.empty_count];
        journal.empty_slot(self, i);
        journal.point(self, last);
        self.empty[i] = last;
        self.empty_index[last as usize] = i as u16;
        if !self.keep_lines {
            return;
        }
        let l = self.line[p as usize] as usize;
        let i = self.line_empty_index[p as usize] as usize;
        let n = self.line_empty_count[l] - 1;
        let last = self.line_empty[l][n as usize];
        journal.line_slot(self, l, i);
        journal.point(self, last);
        self.line_empty[l][i] = last;
        self.line_empty_index[last as usize] = i as u8;
        self.line_empty_count[l] = n;
    }

    /// Distinct chain heads among the neighbours of `p` holding colour `cell`.
    /// Written without branches (the stones around a random point are as
    /// unpredictable as it gets; simulated mispredictions per light playout
    /// fell by a third): each neighbour's head goes to the next free slot and
    /// the count moves on only if it is a new chain of `cell`. Slots past the
    /// count hold rejected values and are never compared (only stones carry
    /// a meaningful head).
    #[inline(always)]
    fn neighbor_chains(&self, p: Point, cell: Cell) -> ([Point; 4], usize) {
        let mut out = [0; 4];
        let mut n = 0;
        for q in self.neighbors(p) {
            let h = self.head[q as usize];
            let seen = (n > 0) & (out[0] == h) | (n > 1) & (out[1] == h) | (n > 2) & (out[2] == h);
            out[n & 3] = h; // n <= 3 before the last neighbour's count
            n += ((self.cells[q as usize] == cell) & !seen) as usize;
        }
        (out, n)
    }

    /// True if placing `c` at empty `p` leaves its chain with no liberty
    /// (before any suicide is carried out).
    #[inline(always)]
    pub fn is_suicide(&self, c: Color, p: Point) -> bool {
        if self.count(p, Cell::Empty) > 0 {
            return false;
        }
        let own = c.cell();
        let opp = c.opponent().cell();
        for q in self.neighbors(p) {
            let cell = self.cells[q as usize];
            if cell == Cell::Empty {
                return false;
            }
            let libs = self.libs[self.head[q as usize] as usize];
            if (cell == own && libs > 1) || (cell == opp && libs == 1) {
                return false;
            }
        }
        true
    }

    /// The hash of the position after `c` plays at empty `p` (a move
    /// [`Board::check`] allows under some rule), as [`Board::hash`] would
    /// give it on a copy with the stone placed: the stone, less the
    /// opponent chains it captures, or, where it captures nothing and has
    /// no liberty, less the stone and the chains it joins (suicide). No
    /// copy is made: a superko check of every empty point stays cheap.
    pub fn hash_after(&self, c: Color, p: Point) -> u64 {
        let z = |color: Color, s: Point| ZOBRIST[color.index()][s as usize];
        let mut hash = self.hash ^ z(c, p);
        // Next to an empty point and to no opponent stone, a move neither
        // captures nor is a suicide: its stone alone changes the hash.
        if self.count(p, Cell::Empty) > 0 && self.count(p, c.opponent().cell()) == 0 {
            return hash;
        }
        let chain_hash =
            |color: Color, g: Point| self.chain_stones(g).fold(0, |h, s| h ^ z(color, s));
        if self.is_suicide(c, p) {
            let (own, n) = self.neighbor_chains(p, c.cell());
            hash ^= z(c, p);
            for &g in &own[..n] {
                hash ^= chain_hash(c, g);
            }
            return hash;
        }
        let opp = c.opponent();
        let (chains, n) = self.neighbor_chains(p, opp.cell());
        for &g in chains[..n].iter().filter(|&&g| self.libs[g as usize] == 1) {
            hash ^= chain_hash(opp, g);
        }
        hash
    }

    /// True if `c` at empty `p` captures nothing and leaves its chain with
    /// exactly one liberty (a self-atari). Suicide counts as no.
    pub fn is_self_atari(&self, c: Color, p: Point) -> bool {
        if self.count(p, Cell::Empty) >= 2 {
            return false;
        }
        // Capturing is never a self-atari; without a capture the count of
        // liberties after the move is exact.
        let opp = c.opponent().cell();
        let captures = self.neighbors(p).iter().any(|&q| {
            self.cells[q as usize] == opp && self.libs[self.head[q as usize] as usize] == 1
        });
        !captures && self.liberties_after(c, p, 2) == 1
    }

    /// A lower bound on the liberties the chain of `c` at empty `p` would
    /// have, counted up to `max`: distinct empty points next to `p` and to
    /// the own chains it joins, and the opponent stones next to `p` it would
    /// capture. Exact when nothing is captured.
    pub fn liberties_after(&self, c: Color, p: Point, max: usize) -> usize {
        let max = max.min(8);
        let own = c.cell();
        let opp = c.opponent().cell();
        let mut libs = [0 as Point; 8];
        let mut n = 0;
        let add = |q: Point, libs: &mut [Point; 8], n: &mut usize| -> bool {
            if q != p && !libs[..*n].contains(&q) {
                libs[*n] = q;
                *n += 1;
            }
            *n >= max
        };
        // The cheap answers first: empty neighbours, captures, and own
        // chains with liberties enough; only then walk the own chains.
        let mut walk = [0 as Point; 4];
        let mut walks = 0;
        for q in self.neighbors(p) {
            match self.cells[q as usize] {
                // An empty neighbour, or a captured stone's point.
                Cell::Empty if add(q, &mut libs, &mut n) => return n,
                cell if cell == opp
                    && self.libs[self.head[q as usize] as usize] == 1
                    && add(q, &mut libs, &mut n) =>
                {
                    return n;
                }
                cell if cell == own => {
                    let h = self.head[q as usize];
                    if self.libs[h as usize] as usize > max {
                        return max;
                    }
                    if !walk[..walks].contains(&h) {
                        walk[walks] = h;
                        walks += 1;
                    }
                }
                _ => {}
            }
        }
        for &h in &walk[..walks] {
            let mut s = h;
            loop {
                for r in self.neighbors(s) {
                    if self.cells[r as usize] == Cell::Empty && add(r, &mut libs, &mut n) {
                        return n;
                    }
                }
                s = self.next[s as usize];
                if s == h {
                    break;
                }
            }
        }
        n
    }

    /// How many neighbours of `p` hold `cell`.
    #[inline(always)]
    fn count(&self, p: Point, cell: Cell) -> u8 {
        (self.neighbor_count[p as usize] >> (8 * cell as u32)) as u8
    }

    /// How many neighbours of `p` are empty.
    #[inline]
    pub fn empty_neighbors(&self, p: Point) -> usize {
        self.count(p, Cell::Empty) as usize
    }

    /// How many neighbours of `p` hold a stone of `c`.
    #[inline]
    pub fn neighbors_of_color(&self, c: Color, p: Point) -> usize {
        self.count(p, c.cell()) as usize
    }

    /// Whether the suicide rule lets `c` play at empty `p`.
    #[inline]
    fn suicide_permitted(&self, c: Color, p: Point, rule: Suicide) -> bool {
        match rule {
            Suicide::Forbidden => false,
            Suicide::Allowed => true,
            Suicide::MultiStone => self
                .neighbors(p)
                .iter()
                .any(|&q| self.cells[q as usize] == c.cell()),
        }
    }

    /// Checks placement only (occupied, suicide); ko is the caller's business.
    pub fn check(&self, c: Color, p: Point, rule: Suicide) -> Result<(), Illegal> {
        if self.cells[p as usize] != Cell::Empty {
            return Err(Illegal::Occupied);
        }
        if self.is_suicide(c, p) && !self.suicide_permitted(c, p, rule) {
            return Err(Illegal::Suicide);
        }
        Ok(())
    }

    /// Places a stone of colour `c` at `p`, capturing as needed. Does not check
    /// ko: see [`Board::ko`].
    pub fn play(&mut self, c: Color, p: Point, rule: Suicide) -> Result<Placed, Illegal> {
        self.check(c, p, rule)?;
        Ok(self.place(c, p))
    }

    /// Places a stone known to be legal (see [`Board::check`]).
    pub fn place(&mut self, c: Color, p: Point) -> Placed {
        self.place_journaled(c, p, &mut ())
    }

    /// [`Board::place`], what it changes saved in `undo` so that
    /// [`Board::undo`] puts the board back as it was, bit for bit (the
    /// reading of ladders: a move and its undoing in place of a board's copy).
    pub fn place_undoably(&mut self, c: Color, p: Point, undo: &mut Undo) -> Placed {
        self.checkpoint(undo);
        self.place_journaled(c, p, undo)
    }

    /// Opens a frame in `undo`: [`Board::undo`] puts back the board's
    /// scalars (the hash, the prisoners, the ko, the empty points' counts)
    /// as they are now, with whatever [`Board::place_undoably`] changes in
    /// the frames opened after it.
    pub fn checkpoint(&self, undo: &mut Undo) {
        undo.frames.push(Frame {
            points: undo.points.len(),
            counts: undo.counts.len(),
            slots: undo.slots.len(),
            empty_count: self.empty_count,
            line_empty_count: self.line_empty_count,
            hash: self.hash,
            captures: self.captures,
            ko: self.ko,
        });
    }

    /// Puts the board back as it was at the last open frame of `undo`
    /// ([`Board::checkpoint`] or [`Board::place_undoably`]) and closes it;
    /// false where none is open.
    pub fn undo(&mut self, undo: &mut Undo) -> bool {
        let Some(frame) = undo.frames.pop() else {
            return false;
        };
        for saved in undo.points.drain(frame.points..).rev() {
            let i = saved.at as usize;
            self.cells[i] = saved.cell;
            self.head[i] = saved.head;
            self.next[i] = saved.next;
            self.libs[i] = saved.libs;
            self.stones[i] = saved.stones;
            self.empty_index[i] = saved.empty_index;
            self.line_empty_index[i] = saved.line_empty_index;
        }
        for saved in undo.counts.drain(frame.counts..).rev() {
            self.neighbor_count[saved.at as usize] = saved.count;
        }
        for saved in undo.slots.drain(frame.slots..).rev() {
            match saved.line {
                EMPTY_LIST => self.empty[saved.index as usize] = saved.point,
                l => self.line_empty[l as usize][saved.index as usize] = saved.point,
            }
        }
        self.empty_count = frame.empty_count;
        self.line_empty_count = frame.line_empty_count;
        self.hash = frame.hash;
        self.captures = frame.captures;
        self.ko = frame.ko;
        true
    }

    fn place_journaled<J: Journal>(&mut self, c: Color, p: Point, journal: &mut J) -> Placed {
        let own = c.cell();
        let opp = c.opponent().cell();
        let pi = p as usize;
        let (opp_chains, n_opp) = self.neighbor_chains(p, opp);
        let (own_chains, n_own) = self.neighbor_chains(p, own);
        for &h in opp_chains[..n_opp].iter().chain(&own_chains[..n_own]) {
            journal.point(self, h);
            self.libs[h as usize] -= 1;
        }
        // The empty neighbours of p, counted before p is filled.
        let empty_around = self.count(p, Cell::Empty) as u16;
        journal.point(self, p);
        self.cells[pi] = own;
        let filled = count_unit(own).wrapping_sub(count_unit(Cell::Empty));
        for q in self.neighbors(p) {
            journal.count(self, q);
            let count = &mut self.neighbor_count[q as usize];
            *count = count.wrapping_add(filled);
        }
        self.hash ^= ZOBRIST[c.index()][pi];
        self.remove_empty(p, journal);
        self.head[pi] = p;
        self.next[pi] = p;
        self.stones[pi] = 1;
        let mut h = p;
        if n_own == 0 {
            self.libs[pi] = empty_around;
        } else if n_own == 1 {
            // Extending one chain: its liberties (p already taken off) plus
            // the empty neighbours of p that were not liberties of it (those
            // whose only own neighbour is p are not, at once).
            let g = own_chains[0];
            let mut libs = self.libs[g as usize];
            if empty_around > 0 {
                for q in self.neighbors(p) {
                    if self.cells[q as usize] == Cell::Empty
                        && (self.count(q, own) == 1
                            || !self.neighbors(q).iter().any(|&r| {
                                r != p
                                    && self.cells[r as usize] == own
                                    && self.head[r as usize] == g
                            }))
                    {
                        libs += 1;
                    }
                }
            }
            h = self.merge(h, g, journal);
            self.libs[h as usize] = libs;
        } else {
            // Joining chains: the biggest one's liberties (p already taken
            // off), plus those of the others and of p that it lacks.
            let chains = &own_chains[..n_own];
            let big = *chains
                .iter()
                .max_by_key(|&&g| self.stones[g as usize])
                .expect("chains to join");
            let libs = self.libs[big as usize] + self.liberties_beyond(big, p, chains);
            for &g in chains {
                h = self.merge(h, g, journal);
            }
            self.libs[h as usize] = libs;
        }
        let mut placed = Placed::default();
        let mut last_captured = 0;
        for &g in &opp_chains[..n_opp] {
            if self.libs[g as usize] == 0 {
                last_captured = g;
                placed.captured += self.remove_chain(g, journal);
            }
        }
        self.captures[c.index()] += placed.captured;
        self.ko = None;
        let h = self.head[pi];
        if self.libs[h as usize] == 0 {
            placed.suicided = self.remove_chain(h, journal);
            self.captures[c.opponent().index()] += placed.suicided;
        } else if placed.captured == 1 && self.stones[h as usize] == 1 && self.libs[h as usize] == 1
        {
            self.ko = Some((last_captured, c.opponent()));
        }
        placed
    }

    /// Joins the chains with heads `a` and `b`; returns the new head.
    fn merge<J: Journal>(&mut self, a: Point, b: Point, journal: &mut J) -> Point {
        if a == b {
            return a;
        }
        let (big, small) = if self.stones[a as usize] >= self.stones[b as usize] {
            (a, b)
        } else {
            (b, a)
        };
        journal.point(self, big);
        let mut s = small;
        loop {
            journal.point(self, s);
            self.head[s as usize] = big;
            s = self.next[s as usize];
            if s == small {
                break;
            }
        }
        self.next.swap(big as usize, small as usize);
        self.stones[big as usize] += self.stones[small as usize];
        big
    }

    /// The distinct empty points next to `p` or to the chains `chains`
    /// (other than `big`) that are not liberties of the chain `big`.
    fn liberties_beyond(&mut self, big: Point, p: Point, chains: &[Point]) -> u16 {
        self.mark_gen = self.mark_gen.wrapping_add(1);
        if self.mark_gen == 0 {
            self.mark = [0; MAX_POINTS];
            self.mark_gen = 1;
        }
        let generation = self.mark_gen;
        let own = self.cells[big as usize];
        let mut count = 0;
        let mut visit = |board: &mut Board, s: Point| {
            for q in board.neighbors(s) {
                if board.cells[q as usize] == Cell::Empty && board.mark[q as usize] != generation {
                    board.mark[q as usize] = generation;
                    let of_big = board
                        .neighbors(q)
                        .iter()
                        .any(|&r| board.cells[r as usize] == own && board.head[r as usize] == big);
                    if !of_big {
                        count += 1;
                    }
                }
            }
        };
        visit(self, p);
        for &g in chains.iter().filter(|&&g| g != big) {
            let mut s = g;
            loop {
                visit(self, s);
                s = self.next[s as usize];
                if s == g {
                    break;
                }
            }
        }
        count
    }

    /// Removes the chain with head `h`; returns the number of stones removed.
    fn remove_chain<J: Journal>(&mut self, h: Point, journal: &mut J) -> u32 {
        let color = self.cells[h as usize].color().expect("a chain");
        let other = color.opponent().cell();
        let mut n = 0;
        let mut s = h;
        let emptied = count_unit(Cell::Empty).wrapping_sub(count_unit(color.cell()));
        loop {
            let following = self.next[s as usize];
            journal.point(self, s);
            self.cells[s as usize] = Cell::Empty;
            for q in self.neighbors(s) {
                journal.count(self, q);
                let count = &mut self.neighbor_count[q as usize];
                *count = count.wrapping_add(emptied);
            }
            self.hash ^= ZOBRIST[color.index()][s as usize];
            self.add_empty(s, journal);
            let (chains, k) = self.neighbor_chains(s, other);
            for &g in &chains[..k] {
                journal.point(self, g);
                self.libs[g as usize] += 1;
            }
            n += 1;
            s = following;
            if s == h {
                break;
            }
        }
        n
    }

    /// Removes the stone chain through `p` as dead and gives it to the opponent
    /// as prisoners (territory scoring). Returns the stones removed.
    pub fn remove_dead_chain(&mut self, p: Point) -> u32 {
        let c = match self.color_at(p) {
            Some(c) => c,
            None => return 0,
        };
        let n = self.remove_chain(self.head[p as usize], &mut ());
        self.captures[c.opponent().index()] += n;
        n
    }

    /// True if `p` is an empty point surrounded by `c` that `c` should not
    /// fill: all neighbours `c` or border, and few enough opponent diagonals.
    #[inline]
    pub fn is_eye(&self, c: Color, p: Point) -> bool {
        let own = c.cell();
        if self.count(p, own) + self.count(p, Cell::Border) < 4 {
            return false;
        }
        let opp = c.opponent().cell();
        let mut bad = 0;
        let mut edge = false;
        for q in self.diagonals(p) {
            match self.cells[q as usize] {
                Cell::Border => edge = true,
                cell if cell == opp => bad += 1,
                _ => {}
            }
        }
        if edge { bad == 0 } else { bad < 2 }
    }

    /// Distinct liberties of the chain through `p`, recounted from scratch
    /// (for checking the incremental counts).
    pub fn recount_liberties(&self, p: Point) -> usize {
        let mut seen = Vec::new();
        for s in self.chain_stones(p) {
            for q in self.neighbors(s) {
                if self.cells[q as usize] == Cell::Empty && !seen.contains(&q) {
                    seen.push(q);
                }
            }
        }
        seen.len()
    }

    /// One liberty of the chain through `p`, if it has any.
    pub fn some_liberty(&self, p: Point) -> Option<Point> {
        self.chain_stones(p).find_map(|s| {
            self.neighbors(s)
                .into_iter()
                .find(|&q| self.cells[q as usize] == Cell::Empty)
        })
    }

    /// Up to two distinct liberties of the chain through `p`; 0 (off the
    /// board) where it has fewer.
    pub fn two_liberties(&self, p: Point) -> [Point; 2] {
        let mut out = [0 as Point; 2];
        let mut n = 0;
        for s in self.chain_stones(p) {
            for q in self.neighbors(s) {
                if self.cells[q as usize] == Cell::Empty && !out[..n].contains(&q) {
                    out[n] = q;
                    n += 1;
                    if n == 2 {
                        return out;
                    }
                }
            }
        }
        out
    }

    /// Whether the kept neighbour counts match the stones (for checking).
    pub fn neighbor_counts_agree(&self) -> bool {
        self.points().all(|p| {
            let count: u32 = self
                .neighbors(p)
                .iter()
                .map(|&q| count_unit(self.cells[q as usize]))
                .sum();
            count == self.neighbor_count[p as usize]
        })
    }

    /// The hash a board with exactly these stones has (for checking).
    pub fn recompute_hash(&self) -> u64 {
        self.points()
            .filter_map(|p| self.color_at(p).map(|c| ZOBRIST[c.index()][p as usize]))
            .fold(0, |a, b| a ^ b)
    }

    /// Parses a board drawn in ASCII (top row first, `X` black, `O` white,
    /// `.` or `+` empty, spaces ignored; as many columns as the first row).
    /// Used by tests.
    pub fn from_ascii(text: &str) -> Board {
        let rows: Vec<Vec<char>> = text
            .lines()
            .map(|l| l.chars().filter(|c| !c.is_whitespace()).collect::<Vec<_>>())
            .filter(|r| !r.is_empty())
            .collect();
        let (width, height) = (rows[0].len(), rows.len());
        let mut b = Board::new(BoardSize { width, height });
        for (i, row) in rows.iter().enumerate() {
            assert_eq!(row.len(), width, "row {i} of an ASCII board");
            for (x, ch) in row.iter().enumerate() {
                let p = b.point(x, height - 1 - i);
                let c = match ch {
                    'X' | 'x' => Color::Black,
                    'O' | 'o' => Color::White,
                    _ => continue,
                };
                b.place(c, p);
            }
        }
        b
    }

    /// The board as rows of `X`, `O`, `.` (top row first).
    pub fn to_ascii(&self) -> String {
        let mut s = String::new();
        for y in (0..self.size.height).rev() {
            for x in 0..self.size.width {
                s.push(match self.cell(self.point(x, y)) {
                    Cell::Black => 'X',
                    Cell::White => 'O',
                    _ => '.',
                });
            }
            s.push('\n');
        }
        s
    }
}

/// Iterator over the stones of one chain.
pub struct ChainStones<'a> {
    board: &'a Board,
    start: Point,
    at: Option<Point>,
}

impl Iterator for ChainStones<'_> {
    type Item = Point;
    fn next(&mut self) -> Option<Point> {
        let p = self.at?;
        if self.board.cell(p).color().is_none() {
            self.at = None;
            return None;
        }
        let n = self.board.next[p as usize];
        self.at = if n == self.start { None } else { Some(n) };
        Some(p)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The point of a GTP vertex on `b` (tests).
    pub(crate) fn at(b: &Board, v: &str) -> Point {
        crate::go::vertex::parse_vertex(v, b.size())
            .unwrap()
            .unwrap()
    }

    #[test]
    fn a_rectangle_has_its_own_edges_lines_and_captures() {
        let size = BoardSize::new(13, 9).unwrap();
        let mut b = Board::new(size);
        assert_eq!(b.points().count(), 117);
        assert_eq!(b.empty_points().len(), 117);
        // The far corner, column 13 row 9: two neighbours on the board.
        let corner = b.point(12, 8);
        assert_eq!(b.coords(corner), (12, 8));
        assert_eq!(b.empty_neighbors(corner), 2);
        assert_eq!(b.line(corner), 1);
        // The middle of 13x9 is on line 5, the short side's middle.
        assert_eq!(b.line(b.point(6, 4)), 5);
        assert_eq!(b.line(b.point(4, 4)), 5);
        assert_eq!(b.line(b.point(3, 4)), 4);
        assert_eq!(b.points_from_top().next(), Some(b.point(0, 8)));
        b.place(Color::Black, corner);
        b.place(Color::White, b.point(11, 8));
        let placed = b.place(Color::White, b.point(12, 7));
        assert_eq!(placed.captured, 1);
        assert_eq!(b.color_at(corner), None);
        assert!(b.neighbor_counts_agree());
        assert_eq!(b.hash(), b.recompute_hash());
        let drawn = Board::from_ascii(&b.to_ascii());
        assert_eq!(drawn.size(), size);
        assert_eq!(drawn.hash(), b.hash());
        // A copy onto a larger board's arrays takes the rectangle's shape.
        let mut copy = Board::new(19);
        copy.copy_from(&b);
        assert_eq!(copy.size(), size);
        assert_eq!(copy.to_ascii(), b.to_ascii());
        assert!(copy.neighbor_counts_agree());
        assert_eq!(
            copy.liberties(b.point(11, 8)),
            3,
            "L9, M8 and the emptied N9"
        );
    }

    #[test]
    fn capture_in_the_corner() {
        let mut b = Board::from_ascii(
            "
            . . .
            X . .
            O . .",
        );
        let a1 = at(&b, "A1");
        assert_eq!(b.liberties(a1), 1);
        let placed = b
            .play(Color::Black, at(&b, "B1"), Suicide::Forbidden)
            .unwrap();
        assert_eq!(placed.captured, 1);
        assert_eq!(b.cell(a1), Cell::Empty);
        assert_eq!(b.liberties(at(&b, "A2")), 3);
        assert_eq!(b.liberties(at(&b, "B1")), 3);
    }

    #[test]
    fn simple_capture_and_ko_point() {
        let mut b = Board::from_ascii(
            "
            . . . . .
            . X O . .
            X O . O .
            . X O . .
            . . . . .",
        );
        let c3 = at(&b, "C3");
        let placed = b.play(Color::Black, c3, Suicide::Forbidden).unwrap();
        assert_eq!(placed.captured, 1);
        assert_eq!(b.captures(Color::Black), 1);
        let b3 = at(&b, "B3");
        assert_eq!(b.cell(b3), Cell::Empty);
        assert_eq!(b.ko(), Some((b3, Color::White)));
        assert_eq!(b.liberties(c3), 1);
    }

    #[test]
    fn suicide_rules() {
        let b = Board::from_ascii(
            "
            . O . O
            O . O .
            . O . .
            . . . .",
        );
        let a4 = at(&b, "A4");
        assert_eq!(
            b.check(Color::Black, a4, Suicide::Forbidden),
            Err(Illegal::Suicide)
        );
        assert_eq!(
            b.check(Color::Black, a4, Suicide::MultiStone),
            Err(Illegal::Suicide)
        );
        assert_eq!(b.check(Color::Black, a4, Suicide::Allowed), Ok(()));
        let mut b2 = Board::from_ascii(
            "
            X O . .
            . O . .
            O . . .
            . . . .",
        );
        let a3 = at(&b2, "A3");
        assert_eq!(
            b2.check(Color::Black, a3, Suicide::Forbidden),
            Err(Illegal::Suicide)
        );
        let placed = b2.play(Color::Black, a3, Suicide::MultiStone).unwrap();
        assert_eq!(placed.suicided, 2);
        assert_eq!(b2.captures(Color::White), 2);
        assert_eq!(b2.cell(at(&b2, "A4")), Cell::Empty);
        assert_eq!(b2.liberties(at(&b2, "B4")), 5);
    }

    #[test]
    fn merging_counts_shared_liberties_once() {
        let mut b = Board::from_ascii(
            "
            . . . . .
            . X . X .
            . . . . .
            . . . . .
            . . . . .",
        );
        let c4 = at(&b, "C4");
        b.play(Color::Black, c4, Suicide::Forbidden).unwrap();
        assert_eq!(b.chain_size(c4), 3);
        assert_eq!(b.liberties(c4), 8);
        assert_eq!(b.recount_liberties(c4), 8);
        assert_eq!(b.hash(), b.recompute_hash());
    }

    #[test]
    fn self_atari() {
        let b = Board::from_ascii(
            "
            . O . . .
            X O . . .
            . X . . .
            . . . . .
            . . . . .",
        );
        assert!(!b.is_self_atari(Color::White, at(&b, "A5")));
        assert!(b.is_self_atari(Color::Black, at(&b, "A5")));
        assert!(b.is_self_atari(Color::White, at(&b, "A3")));
        assert!(!b.is_self_atari(Color::Black, at(&b, "C4")));
    }

    #[test]
    fn eyes() {
        let b = Board::from_ascii(
            "
            . X . . .
            X X . . .
            . . . . .
            . . . . .
            . . . . .",
        );
        assert!(b.is_eye(Color::Black, at(&b, "A5")));
        assert!(!b.is_eye(Color::White, at(&b, "A5")));
        assert!(!b.is_eye(Color::Black, at(&b, "C5")));
    }

    /// Every entry a board keeps but its marks (scratch), over the part of
    /// each array its size uses.
    fn state(b: &Board) -> impl PartialEq + fmt::Debug + use<> {
        let n = b.cell_count();
        let lines: Vec<Vec<Point>> = (0..=MAX_LINES)
            .map(|l| b.line_empty[l][..b.line_empty_count[l] as usize].to_vec())
            .collect();
        (
            (
                b.cells[..n].to_vec(),
                b.head[..n].to_vec(),
                b.next[..n].to_vec(),
            ),
            (b.libs[..n].to_vec(), b.stones[..n].to_vec()),
            (
                b.empty[..b.empty_count].to_vec(),
                b.empty_index[..n].to_vec(),
            ),
            (lines, b.line_empty_index[..n].to_vec()),
            (b.neighbor_count[..n].to_vec(), b.hash, b.captures, b.ko),
        )
    }

    /// Random games on square and rectangular boards, lines kept or not:
    /// placements stacked up to eight deep (captures, suicides, kos among
    /// them) and undone one at a time give back, at each step, the board
    /// as it was, entry for entry.
    #[test]
    fn undoing_placements_gives_back_each_board_bit_for_bit() {
        use rand::{RngExt, SeedableRng, rngs::SmallRng};
        let mut rng = SmallRng::seed_from_u64(11);
        let mut undo = Undo::default();
        let (mut captures, mut suicides) = (0, 0);
        for (w, h, keep) in [(5, 5, true), (9, 9, false), (19, 19, true), (7, 11, false)] {
            let mut b = Board::new(BoardSize::new(w, h).unwrap());
            b.keep_lines(keep);
            for _ in 0..300 {
                if b.empty_points().is_empty() {
                    break;
                }
                let mut before = Vec::new();
                for _ in 0..rng.random_range(1..=8) {
                    let free = b.empty_points();
                    let Some(&p) = free.get(rng.random_range(0..free.len().max(1))) else {
                        break;
                    };
                    let c = [Color::Black, Color::White][rng.random_range(0..2)];
                    before.push(state(&b));
                    let placed = b.place_undoably(c, p, &mut undo);
                    captures += placed.captured;
                    suicides += placed.suicided;
                    assert!(b.neighbor_counts_agree());
                }
                while let Some(was) = before.pop() {
                    assert!(b.undo(&mut undo));
                    assert!(state(&b) == was, "an undo left the board changed");
                }
                assert_eq!(undo.depth(), 0);
                assert!(!b.undo(&mut undo), "no frame is open");
                // One placement kept, so that the games move on.
                let free = b.empty_points();
                let p = free[rng.random_range(0..free.len())];
                b.place([Color::Black, Color::White][rng.random_range(0..2)], p);
            }
        }
        assert!(captures > 100 && suicides > 10, "{captures} {suicides}");
    }

    /// Random games on square and rectangular boards: at every step, for
    /// each empty point and colour, the hash after the move without a copy
    /// is the hash of a copy with the stone placed (captures and suicides
    /// among them).
    #[test]
    fn the_hash_after_a_move_is_the_hash_of_the_board_it_makes() {
        use rand::{RngExt, SeedableRng, rngs::SmallRng};
        let mut rng = SmallRng::seed_from_u64(5);
        let (mut captures, mut suicides) = (0, 0);
        for (w, h) in [(5, 5), (9, 9), (7, 11)] {
            let mut b = Board::new(BoardSize::new(w, h).unwrap());
            for _ in 0..200 {
                let free = b.empty_points().to_vec();
                if free.is_empty() {
                    break;
                }
                for &p in &free {
                    for c in [Color::Black, Color::White] {
                        let mut next = b.clone();
                        let placed = next.place(c, p);
                        captures += u32::from(placed.captured > 0);
                        suicides += u32::from(placed.suicided > 0);
                        assert_eq!(b.hash_after(c, p), next.hash());
                    }
                }
                let p = free[rng.random_range(0..free.len())];
                b.place([Color::Black, Color::White][rng.random_range(0..2)], p);
            }
        }
        assert!(captures > 100 && suicides > 100, "{captures} {suicides}");
    }

    /// A checkpoint with no placement gives back the scalars a caller
    /// changed (the ladder reader clears the ko for the defender).
    #[test]
    fn a_checkpoint_gives_back_a_cleared_ko() {
        let mut b = Board::new(5);
        for (c, v) in [
            (Color::Black, "C4"),
            (Color::Black, "B3"),
            (Color::Black, "C2"),
            (Color::Black, "D3"),
            (Color::White, "D4"),
            (Color::White, "E3"),
            (Color::White, "D2"),
        ] {
            b.place(c, at(&b, v));
        }
        let mut undo = Undo::default();
        let placed = b.place_undoably(Color::White, at(&b, "C3"), &mut undo);
        assert_eq!(placed.captured, 1);
        let ko = b.ko();
        assert_eq!(ko, Some((at(&b, "D3"), Color::Black)));
        b.checkpoint(&mut undo);
        b.clear_ko();
        assert!(b.undo(&mut undo));
        assert_eq!(b.ko(), ko);
        assert!(b.undo(&mut undo));
        assert_eq!((b.ko(), b.cell(at(&b, "D3"))), (None, Cell::Black));
    }
}
