//! What one board of a phantom game shows: some of the true game's stones
//! (the moves made on it, and what the referee revealed), never a stone the
//! true game does not have at that point. Any subset of a legal position is
//! a legal position whichever order its stones are placed in (no chain of
//! it lacks a liberty), so a view replays onto any board without captures:
//! that is how plain engines are re-synchronised.

use crate::go::board::{Board, BoardSize, Color, MAX_POINTS, Point};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    size: BoardSize,
    stones: Vec<Option<Color>>,
}

impl View {
    pub fn new(size: BoardSize) -> View {
        View {
            size,
            stones: vec![None; MAX_POINTS],
        }
    }

    /// The view of every stone on `board` (handicap and setup stones are
    /// public).
    pub fn of_board(board: &Board) -> View {
        let mut v = View::new(board.size());
        for p in board.points() {
            v.stones[p as usize] = board.color_at(p);
        }
        v
    }

    pub fn size(&self) -> BoardSize {
        self.size
    }

    pub fn at(&self, p: Point) -> Option<Color> {
        self.stones[p as usize]
    }

    pub fn set(&mut self, p: Point, c: Option<Color>) {
        self.stones[p as usize] = c;
    }

    /// The stones shown, in point order.
    pub fn stones(&self) -> Vec<(Color, Point)> {
        self.stones
            .iter()
            .enumerate()
            .filter_map(|(p, c)| c.map(|c| (c, p as Point)))
            .collect()
    }

    pub fn count(&self, c: Color) -> usize {
        self.stones.iter().filter(|&&s| s == Some(c)).count()
    }

    /// The view as a board.
    pub fn board(&self) -> Board {
        let mut b = Board::new(self.size);
        for (c, p) in self.stones() {
            b.place(c, p);
        }
        b
    }

    /// Whether every stone shown is on `truth` at the same point.
    pub fn is_subset_of(&self, truth: &Board) -> bool {
        self.stones()
            .iter()
            .all(|&(c, p)| truth.color_at(p) == Some(c))
    }
}
