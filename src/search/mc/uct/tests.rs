//! The UCT-RAVE search's tests.

use super::*;
use crate::go::rules::Rules;
use crate::search::Budget;
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
    let s = McSearch::new(&g, 1, 1 << 20);
    let settings = McSettings {
        budget: Budget {
            playouts: Some(3000),
            time: None,
        },
        seed: 1,
        cleanup: false,
        max_nodes: 1 << 20,
        patterns: false,
    };
    let (d, rate) = s.run(&settings, 1, &AtomicBool::new(false));
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
