//! Dynamic komi in handicap games, Pachi 12.90's default (linear
//! dynkomi): the search counts, instead of the real komi, a komi worth the
//! handicap stones, fading linearly to the real komi as the game goes on.
//!
//! Monte Carlo search plays badly when its win rate is near 0 or 1: as
//! Black with a handicap every move wins and it plays slack, giving the
//! lead away a point at a time; as White against one every move loses and
//! it plays wild. With the handicap's worth counted for White, the game
//! looks closer at the start and the searching side must keep (or win
//! back) a little more with every move. As in Pachi, a stone is valued
//! below its real worth (about twice the komi, 15 points): 12 points when
//! kosumi is Black, so that it is not too pessimistic, 8 when it is White,
//! so that it still feels behind and tries harder without being hopeless.
//! Even games are not touched.

use crate::go::board::{BoardSize, Color};
use crate::go::game::Game;

/// Points a handicap stone is counted for, by the colour searching.
fn stone_value(searching: Color) -> f64 {
    match searching {
        Color::Black => 12.0,
        Color::White => 8.0,
    }
}

/// Moves over which the extra komi fades (Pachi's `linear_moves`): 15 on
/// boards up to 9×9, 50 from 10×10 to 14×14, 100 on 15×15, and above that
/// 200 for Black and 150 for White; a rectangle goes by its longer side.
fn fade_moves(size: BoardSize, searching: Color) -> f64 {
    match (size.longer(), searching) {
        (..=9, _) => 15.0,
        (15, _) => 100.0,
        (16.., Color::Black) => 200.0,
        (16.., Color::White) => 150.0,
        _ => 50.0,
    }
}

/// The komi the search for the side to move in `game` adds for White.
pub fn extra_komi(game: &Game) -> f64 {
    let handicap = game.handicap();
    if handicap < 2 {
        return 0.0;
    }
    let searching = game.to_move();
    let base = handicap as f64 * stone_value(searching) + 0.5 - game.komi;
    let fade = fade_moves(game.size(), searching);
    base * (1.0 - game.move_count() as f64 / fade).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::rules::Rules;

    fn handicap_game(stones: &[(usize, usize)]) -> Game {
        let mut g = Game::new(19, Rules::default(), 0.5);
        let points: Vec<_> = stones
            .iter()
            .map(|&(x, y)| (Color::Black, g.board().point(x, y)))
            .collect();
        g.setup(&points, true).unwrap();
        g
    }

    #[test]
    fn the_handicap_worth_fades_to_the_real_komi() {
        let mut g = handicap_game(&[(3, 3), (15, 15), (3, 15), (15, 3)]);
        // White to move counts 8 points a stone, Black 12.
        assert_eq!(extra_komi(&g), 32.0);
        g.play(Color::White, Some(g.board().point(9, 17))).unwrap();
        assert!((extra_komi(&g) - 48.0 * 199.0 / 200.0).abs() < 1e-9);
        let mut c = Color::Black;
        for i in 0..99 {
            let p = g.board().point(i % 19, 6 + i / 19);
            g.play(c, Some(p)).unwrap();
            c = c.opponent();
        }
        // Move 100, White to move: a third of White's 150 moves are left.
        assert!((extra_komi(&g) - 32.0 * 50.0 / 150.0).abs() < 1e-9);
        for _ in 0..100 {
            g.play(c, None).unwrap();
            c = c.opponent();
        }
        assert_eq!(g.to_move(), Color::White);
        assert_eq!(extra_komi(&g), 0.0);
    }

    #[test]
    fn even_games_keep_their_komi() {
        let g = Game::new(19, Rules::default(), 0.5);
        assert_eq!(extra_komi(&g), 0.0);
    }
}
