//! Dynamic komi in handicap games, in the manner of Pachi's linear
//! dynkomi: the search counts as if White had, besides the real komi, the
//! handicap stones' worth, fading linearly to nothing as the game goes on.
//!
//! Monte Carlo search plays badly when its win rate is near 1: as Black
//! with a handicap every move wins and it plays slack, giving the lead away
//! a point at a time. With the handicap's worth counted for White, the
//! search sees a closer game at the start and must keep a lead that grows
//! to the real one as the extra komi fades. As Pachi does by default
//! (`dynkomi_mask` black), only the search for Black counts it: as White
//! kosumi's playouts showed no despair at the start of a 19×19 handicap
//! game (White's win rate 0.42 against four stones at komi 0.5, 5000
//! playouts), and extra komi made it 0.56. Even games are not touched.

use crate::board::Color;
use crate::game::Game;

/// Points one handicap stone is worth (Pachi's default).
const STONE_WORTH: f64 = 7.0;

/// Moves over which the extra komi fades on 19×19 (Pachi's default);
/// smaller boards in proportion to their area.
const FADE_MOVES_19: f64 = 200.0;

/// The komi the search adds for White to the game's in `game`'s position.
pub fn extra_komi(game: &Game) -> f64 {
    let handicap = game.handicap();
    if handicap < 2 || game.to_move() == Color::White {
        return 0.0;
    }
    let area = (game.size() * game.size()) as f64;
    let fade = FADE_MOVES_19 * area / 361.0;
    let left = (1.0 - game.move_count() as f64 / fade).max(0.0);
    STONE_WORTH * handicap as f64 * left
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

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
    fn the_handicap_worth_fades_to_nothing() {
        let mut g = handicap_game(&[(3, 3), (15, 15), (3, 15), (15, 3)]);
        // White, to move, does not count it.
        assert_eq!(extra_komi(&g), 0.0);
        g.play(Color::White, Some(g.board().point(9, 17))).unwrap();
        assert!((extra_komi(&g) - 28.0 * 199.0 / 200.0).abs() < 1e-9);
        let mut c = Color::Black;
        for i in 0..98 {
            let p = g.board().point(i % 19, 6 + i / 19);
            g.play(c, Some(p)).unwrap();
            c = c.opponent();
        }
        assert!((extra_komi(&g) - 28.0 * 101.0 / 200.0).abs() < 1e-9);
        for _ in 0..102 {
            g.play(c, None).unwrap();
            c = c.opponent();
        }
        assert_eq!(g.to_move(), Color::Black);
        assert_eq!(extra_komi(&g), 0.0);
    }

    #[test]
    fn even_games_keep_their_komi() {
        let g = Game::new(19, Rules::default(), 7.5);
        assert_eq!(extra_komi(&g), 0.0);
    }
}
