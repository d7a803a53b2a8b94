//! Enclosures: the empty regions of a view that only one colour's stones
//! border.
//!
//! In Phantom Rengo a seat's board shows its own moves and its
//! face-to-face opponent's, so a region of its view that only its own
//! stones (and the edge) border is its own area on that board. A stone
//! there gains nothing under area scoring, and the partner, who cannot see
//! this board's stones, may fill the same area from the other board: the
//! two fill the eyes of their own groups between them, and the groups die.
//! In 50 Rengo records (2026-11-24, commit b178fd2) the kosumi seats made
//! 40 tries a game in such regions (up to 109), the GNU Go seats 4.5
//! (docs/phantom.md).
//!
//! A region larger than a quarter of the board is not counted (early in
//! the game, before the opponent has walled anything off, most of the
//! board is one region).

use crate::go::board::{Board, Cell, Color, MAX_POINTS, Point};

/// Whether the empty point `p` lies in a region of `board`'s empty points
/// that stones of `c` alone border, of at most a quarter of the board.
pub fn in_enclosure(board: &Board, c: Color, p: Point) -> bool {
    if board.cell(p) != Cell::Empty {
        return false;
    }
    let mut seen = [false; MAX_POINTS];
    let (region, borders) = board.empty_region(p, &mut seen, |_| {});
    region.len() <= board.size().points() / 4
        && borders[c.index()]
        && !borders[c.opponent().index()]
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::go::board::tests::at as pt;

    #[test]
    fn a_region_walled_by_own_stones_is_an_enclosure_of_that_colour_only() {
        // Black walls off A1..B2 (four points); the rest touches White.
        let b = Board::from_ascii(
            ". . . . . . .\n\
             . . . . . . .\n\
             . . . . . . .\n\
             . . . . O . .\n\
             X X X . . . .\n\
             . . X . . . .\n\
             . . X . . . .",
        );
        for v in ["A1", "B1", "A2", "B2"] {
            assert!(in_enclosure(&b, Color::Black, pt(&b, v)), "{v}");
            assert!(!in_enclosure(&b, Color::White, pt(&b, v)), "{v}");
        }
        // The open region is large and touches the white stone.
        for v in ["D1", "G7", "D3"] {
            assert!(!in_enclosure(&b, Color::Black, pt(&b, v)), "{v}");
            assert!(!in_enclosure(&b, Color::White, pt(&b, v)), "{v}");
        }
        // A stone is in no region.
        assert!(!in_enclosure(&b, Color::Black, pt(&b, "C1")));
    }

    #[test]
    fn an_opponent_stone_inside_or_a_large_region_is_no_enclosure() {
        let b = Board::from_ascii(
            ". . . . .\n\
             . . . . .\n\
             X X X . .\n\
             O . X . .\n\
             . . X . .",
        );
        // A1..B2 touches the white stone at A2.
        assert!(!in_enclosure(&b, Color::Black, pt(&b, "B1")));
        // Only black stones border the open region, but it holds 16 of 25
        // points: more than a quarter of the board.
        assert!(!in_enclosure(&b, Color::Black, pt(&b, "E5")));
        // The empty board has no enclosure.
        let empty = Board::new(9);
        assert!(!in_enclosure(&empty, Color::Black, pt(&empty, "E5")));
    }
}
