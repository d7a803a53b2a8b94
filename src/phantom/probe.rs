//! Probes: the tries a seat makes on its next turn after an atari was
//! announced on its own accepted stone, or on the stone of the opponent
//! it faces, before any search.
//!
//! A refused try costs no turn and shows the stone it hit, so a seat can
//! feel its way along chains it cannot see:
//! - **Hunt**: the seat's stone put an opponent chain in atari
//!   (`atari white 1` after its own try). That chain touches the stone and
//!   has one liberty, and any empty point next to it is that liberty. The
//!   seat tries the view's empty points next to the opponent stones it
//!   knows beside its stone first (an accepted try there is next to them),
//!   then the empty points next to its stone, which find those stones.
//! - **Rescue**: the seat's stone joined a chain of two stones or more that
//!   is now in atari (`atari self`). The one true liberty is among the
//!   chain's empty points on the view (the others hold unseen stones; a
//!   partner's stone found there joins the chain and adds its own), so the
//!   first of them accepted extends the chain; none that leaves it one
//!   liberty on the view. Tried once: a rescue that is in atari again is
//!   left alone, as a lone stone in atari is.
//! - **Kill**: the opponent the seat faces on its board (Phantom Rengo)
//!   put its own stone in atari (`atari self` on its try). The seat sees
//!   that stone, and the one true liberty of its chain is among the
//!   chain's empty points on the view; the others hold stones the seat
//!   cannot see (its partner's, mostly), and a try there is refused at no
//!   cost. So the first try accepted captures the chain, unless the
//!   other board's opponent saved it in between.
//!
//! The probes are data (an ordered list of points); the player tries the
//! first that is not refused or suicide on its view, and searches when
//! none is left.

use crate::go::board::{Board, Cell, Color, Point};

/// What the seat's next turn should probe for, and from which stone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Probe {
    /// Capture the opponent chain the stone at this point put in atari.
    Hunt(Point),
    /// Extend the seat's chain through this point, left in atari.
    Rescue(Point),
    /// Capture the opponent chain through this point, which its own
    /// stone there put in atari.
    Kill(Point),
}

impl Probe {
    /// The seat's stone the probe starts from.
    pub fn stone(self) -> Point {
        match self {
            Probe::Hunt(p) | Probe::Rescue(p) | Probe::Kill(p) => p,
        }
    }

    /// The colour of the stone the probe starts from: the seat's own, or
    /// the opponent's for a kill.
    fn stone_color(self, me: Color) -> Color {
        match self {
            Probe::Kill(_) => me.opponent(),
            Probe::Hunt(_) | Probe::Rescue(_) => me,
        }
    }

    /// The points to try, best first, for a seat of colour `me` on its
    /// view `board`; empty where the stone is no longer there.
    pub fn tries(self, board: &Board, me: Color) -> Vec<Point> {
        let s = self.stone();
        if board.color_at(s) != Some(self.stone_color(me)) {
            return Vec::new();
        }
        let mut out = Vec::new();
        match self {
            Probe::Hunt(_) => {
                for q in board.neighbors(s) {
                    if board.color_at(q) == Some(me.opponent()) {
                        push_liberties(board, q, &mut out);
                    }
                }
                for q in board.neighbors(s) {
                    push_empty(board, q, &mut out);
                }
            }
            Probe::Rescue(_) => {
                let mut libs = Vec::new();
                push_liberties(board, s, &mut libs);
                // Most room first: the extension most likely to live;
                // none that leaves one liberty on the view (it saves
                // nothing, and unseen stones may take that one too).
                libs.retain(|&q| !board.is_self_atari(me, q));
                libs.sort_by_key(|&q| std::cmp::Reverse(board.empty_neighbors(q)));
                out = libs;
            }
            Probe::Kill(_) => push_liberties(board, s, &mut out),
        }
        out
    }
}

fn push_empty(board: &Board, q: Point, out: &mut Vec<Point>) {
    if board.cell(q) == Cell::Empty && !out.contains(&q) {
        out.push(q);
    }
}

/// Pushes the empty points next to the chain through `p`.
fn push_liberties(board: &Board, p: Point, out: &mut Vec<Point>) {
    for r in board.chain_stones(p) {
        for q in board.neighbors(r) {
            push_empty(board, q, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::go::board::tests::at as pt;

    #[test]
    fn a_hunt_tries_next_to_known_opponent_stones_first() {
        // Black's stone at C2 with a revealed white stone at C3.
        let b = Board::from_ascii(
            ". . . . .\n\
             . . . . .\n\
             . . O . .\n\
             . . X . .\n\
             . . . . .",
        );
        let tries = Probe::Hunt(pt(&b, "C2")).tries(&b, Color::Black);
        let first: Vec<Point> = ["B3", "D3", "C4"].iter().map(|v| pt(&b, v)).collect();
        assert_eq!(tries.len(), 6, "{tries:?}");
        for p in &tries[..3] {
            assert!(first.contains(p), "{p} is not next to the white stone");
        }
        assert!(
            tries[3..]
                .iter()
                .all(|&p| b.neighbors(pt(&b, "C2")).contains(&p))
        );
    }

    #[test]
    fn a_rescue_tries_the_chain_liberties_widest_first_and_stops_when_captured() {
        let b = Board::from_ascii(
            ". . . . .\n\
             . . . . .\n\
             . . . . .\n\
             X X . . .\n\
             O . . . .",
        );
        let s = pt(&b, "A2");
        let tries = Probe::Rescue(s).tries(&b, Color::Black);
        assert_eq!(tries.len(), 4, "{tries:?}");
        assert!(tries.contains(&pt(&b, "B1")));
        assert!(
            tries
                .windows(2)
                .all(|w| b.empty_neighbors(w[0]) >= b.empty_neighbors(w[1]))
        );
        assert!(Probe::Rescue(s).tries(&b, Color::White).is_empty());
    }

    #[test]
    fn a_rescue_leaves_out_the_liberty_that_keeps_the_chain_in_atari() {
        // Black B2-C2 has the view liberties C1 and D2: at C1 the chain
        // would have D2 alone.
        let b = Board::from_ascii(
            ". . . . .\n\
             . . . . .\n\
             . O O . .\n\
             O X X . .\n\
             . O . O .",
        );
        let tries = Probe::Rescue(pt(&b, "B2")).tries(&b, Color::Black);
        assert_eq!(tries, vec![pt(&b, "D2")]);
    }
}
