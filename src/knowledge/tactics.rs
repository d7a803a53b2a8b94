//! Tactical reading for the search: whether a chain short of liberties can
//! be saved or is lost to a ladder (the attacker keeps it in atari until it
//! is captured). Read on scratch copies of the board, to a bounded depth
//! and a bounded number of positions; a ladder too long to read counts as
//! escaped.

use crate::go::board::{Board, Color, Point};
use std::cell::RefCell;

thread_local! {
    /// Scratch boards of this thread's reading, one per ply in use: after
    /// the first deep reading no board is allocated again.
    static SCRATCH: RefCell<Vec<Box<Board>>> = const { RefCell::new(Vec::new()) };
}

/// Positions one question may read before its ladders count as escaped: a
/// ladder takes two per attacker move, and nets that branch at every move
/// would otherwise cost exponential time.
const READ_POSITIONS: u32 = 120;

/// Runs `read` on a scratch copy of `board` with `c` played at `p`.
fn after_move<R>(board: &Board, c: Color, p: Point, read: impl FnOnce(&Board) -> R) -> R {
    let mut b = SCRATCH
        .with_borrow_mut(|pool| pool.pop())
        .unwrap_or_else(|| {
            let mut fresh = Box::new(board.clone());
            fresh.keep_lines(false); // reading never rolls dice
            fresh
        });
    b.copy_from(board);
    b.place(c, p);
    let result = read(&b);
    SCRATCH.with_borrow_mut(|pool| pool.push(b));
    result
}

/// Attacker moves read before a ladder counts as escaped (a ladder across a
/// 19×19 board takes about 35).
pub const LADDER_DEPTH: u32 = 40;

/// Whether the chain of `c` next to `escape`, put in atari on its other
/// liberty, runs free by extending at `escape`: four liberties there now
/// leave three after the atari, so there is no ladder to read.
fn runs_free(board: &Board, c: Color, escape: Point) -> bool {
    board.liberties_after(c, escape, 4) >= 4
}

/// Takes one position from `budget`; false if none is left.
fn spend(budget: &mut u32) -> bool {
    let left = *budget > 0;
    *budget = budget.saturating_sub(1);
    left
}

/// The chain through `p` is in atari and its owner is to move: is it lost
/// whatever it does (extend at its liberty, or capture an attacker in
/// atari next to it), reading the ladder for `depth` attacker moves?
pub fn lost_in_atari(board: &Board, p: Point, depth: u32) -> bool {
    let mut budget = READ_POSITIONS;
    lost(board, p, depth, &mut budget)
}

/// `lost_in_atari`, reading at most `budget` more positions.
fn lost(board: &Board, p: Point, depth: u32, budget: &mut u32) -> bool {
    let Some(c) = board.color_at(p) else {
        return false;
    };
    let opp = c.opponent();
    // Capturing a neighbour in atari, if that leaves the chain safe.
    for s in board.chain_stones(p) {
        for q in board.neighbors(s) {
            if board.color_at(q) == Some(opp) && board.liberties(q) == 1 {
                let Some(lib) = board.some_liberty(q) else {
                    continue;
                };
                if board.ko() == Some((lib, c)) {
                    continue;
                }
                if !spend(budget) || !after_move(board, c, lib, |b| taken(b, p, depth, budget)) {
                    return false;
                }
            }
        }
    }
    let Some(lib) = board.some_liberty(p) else {
        return true;
    };
    if board.ko() == Some((lib, c)) || board.is_suicide(c, lib) {
        return true;
    }
    if board.liberties_after(c, lib, 3) >= 3 || !spend(budget) {
        return false;
    }
    after_move(board, c, lib, |b| taken(b, p, depth, budget))
}

/// The chain through `p` has just moved and its attacker is to move: can the
/// attacker capture it (at once, or by a ladder of ataris)?
pub fn capturable(board: &Board, p: Point, depth: u32) -> bool {
    let mut budget = READ_POSITIONS;
    taken(board, p, depth, &mut budget)
}

/// `capturable`, reading at most `budget` more positions.
fn taken(board: &Board, p: Point, depth: u32, budget: &mut u32) -> bool {
    let libs = board.liberties(p);
    if libs <= 1 {
        return true;
    }
    if libs >= 3 || depth == 0 {
        return false;
    }
    let Some(c) = board.color_at(p) else {
        return false;
    };
    let opp = c.opponent();
    let [l1, l2] = board.two_liberties(p);
    [(l1, l2), (l2, l1)].into_iter().any(|(a, escape)| {
        if board.ko() == Some((a, opp)) || board.is_suicide(opp, a) {
            return false;
        }
        if runs_free(board, c, escape) || !spend(budget) {
            return false;
        }
        after_move(board, opp, a, |b| {
            b.liberties(p) == 1 && lost(b, p, depth - 1, budget)
        })
    })
}

/// Whether `c` playing at `p` leaves the chain it joins safe from immediate
/// capture and from a ladder (at least two liberties that hold).
pub fn move_is_safe(board: &Board, c: Color, p: Point, depth: u32) -> bool {
    if board.is_suicide(c, p) {
        return false;
    }
    if board.liberties_after(c, p, 3) >= 3 {
        return true;
    }
    !after_move(board, c, p, |b| capturable(b, p, depth))
}

/// Whether `c` playing at `p` puts an adjacent opponent chain of two
/// liberties in atari from which it cannot escape (a working ladder or a
/// net of ataris); returns the size of the chain so caught, 0 if none.
pub fn catches(board: &Board, c: Color, p: Point, depth: u32) -> usize {
    let opp = c.opponent();
    // Chains of two liberties next to `p` that do not run free at their
    // other liberty.
    let targets = board.neighbors(p).map(|q| {
        (board.color_at(q) == Some(opp)
            && board.liberties(q) == 2
            && board
                .two_liberties(q)
                .into_iter()
                .all(|l| l == p || !runs_free(board, opp, l)))
        .then_some(q)
    });
    if targets.iter().all(Option::is_none) {
        return 0;
    }
    let mut budget = READ_POSITIONS;
    after_move(board, c, p, |b| {
        targets
            .into_iter()
            .flatten()
            .filter(|&q| {
                b.color_at(q) == Some(opp)
                    && b.liberties(q) == 1
                    && b.liberties(p) >= 2
                    && lost(b, q, depth, &mut budget)
            })
            .map(|q| b.chain_size(q))
            .max()
            .unwrap_or(0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::board::tests::at;

    /// White C3 in atari (its liberty D3), Black's stones set for a ladder
    /// that runs up and to the right.
    const LADDER: &str = "
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . X . . . . . .
        . X O . . . . . .
        . . X X . . . . .
        . . . . . . . . .";

    #[test]
    fn a_ladder_is_read_to_the_capture() {
        let b = Board::from_ascii(LADDER);
        let w = at(&b, "C3");
        assert_eq!(b.liberties(w), 1);
        assert!(lost_in_atari(&b, w, LADDER_DEPTH));
        // Extending into the ladder is not safe; unread, it looks safe.
        assert!(!move_is_safe(&b, Color::White, at(&b, "D3"), LADDER_DEPTH));
        assert!(move_is_safe(&b, Color::White, at(&b, "D3"), 0));
        // A white breaker on the ladder's path saves the stone.
        let mut broken = b.clone();
        broken.place(Color::White, at(&b, "G7"));
        assert!(!lost_in_atari(&broken, w, LADDER_DEPTH));
        // A ladder too long for the depth counts as escaped.
        assert!(!lost_in_atari(&b, w, 2));
        // So does one that needs more positions than the budget.
        assert!(!lost(&b, w, LADDER_DEPTH, &mut 3));
        let mut budget = READ_POSITIONS;
        assert!(lost(&b, w, LADDER_DEPTH, &mut budget));
    }

    #[test]
    fn capturing_a_neighbour_in_atari_escapes() {
        let mut b = Board::from_ascii(LADDER);
        // Black B3 put in atari by White A3 and B4: White takes it at B2
        // and gets out.
        for v in ["A3", "B4"] {
            b.place(Color::White, at(&b, v));
        }
        assert_eq!(b.liberties(at(&b, "B3")), 1);
        assert!(!lost_in_atari(&b, at(&b, "C3"), LADDER_DEPTH));
    }

    #[test]
    fn atari_that_starts_a_working_ladder_is_found() {
        let mut b = Board::from_ascii(LADDER);
        b.remove_dead_chain(at(&b, "C4"));
        let w = at(&b, "C3");
        assert_eq!(b.liberties(w), 2);
        // Black C4 ataris from above: White runs to D3 and is laddered.
        assert_eq!(catches(&b, Color::Black, at(&b, "C4"), LADDER_DEPTH), 1);
        // Black D3 ataris from the side: White runs up into open board.
        assert_eq!(catches(&b, Color::Black, at(&b, "D3"), LADDER_DEPTH), 0);
    }
}
