//! Handicap play with the network, KataGo's way (its `gtp.cpp`): the
//! playout doubling advantage and when White may resign a handicap game.
//!
//! KataGo's network reads a playout doubling advantage: how many doublings
//! of playouts the player to move is assumed to have over its opponent. A
//! side given a handicap assumes it is the stronger player, up to 2.75
//! doublings (about 6.7 times the playouts) on 19×19 with nine stones, and
//! the network then values positions as a stronger player would: White's
//! lead with nine stones down reads −48 points where it reads −100 without.
//! The searching side keeps the advantage where the game stays hard but
//! not hopeless (White's win/loss value between −0.9 and −0.5), an eighth
//! of a doubling a move, so that it neither gives up nor plays slack. Even
//! games (less than about four points of advantage on 19×19) and boards
//! below 8×8 are played with none.
//!
//! A handicap game is not resigned early for being behind by the handicap
//! itself: White resigns only after a fifth of the board's points in moves
//! and only when it is behind the schedule of catching up the initial
//! advantage over 60% of the board's points in moves, with a margin.

use crate::go::board::{BoardSize, Color};
use crate::go::game::Game;
use crate::go::rules::Scoring;

/// The most doublings a side assumes for each point of initial advantage
/// beyond the threshold (KataGo's `dynamicPlayoutDoublingAdvantageCapPerOppLead`).
const CAP_PER_POINT: f64 = 0.045;
/// The most doublings at all: beyond, the network was not trained well.
const MAX_DOUBLINGS: f64 = 2.75;
/// The step the advantage moves by, a move at a time.
const STEP: f64 = 0.125;

/// Black's advantage at the start of `game`, in points: the handicap
/// stones after the first (each worth 15 points under area scoring, 14
/// under territory) less White's compensation, against an even game's
/// fair komi of 7.
pub fn initial_black_advantage(game: &Game) -> f64 {
    let stones = game.handicap();
    let komi_gap = 7.0 - game.komi;
    if stones <= 1 {
        return komi_gap;
    }
    let stone_value = match game.rules.scoring {
        Scoring::Area => 15.0,
        Scoring::Territory => 14.0,
    };
    let bonus = game.rules.handicap_bonus.points(stones);
    stone_value * f64::from(stones - 1) + komi_gap - bonus
}

/// How much a point of advantage counts on this board: more on small
/// boards.
fn board_scaling(size: BoardSize) -> f64 {
    (361.0 / size.points() as f64).powf(0.75)
}

/// The initial advantage in points above which a game is a handicap game.
fn handicap_threshold(size: BoardSize) -> f64 {
    (4.0 / board_scaling(size)).max(2.0)
}

/// The advantage the engine's searches assume, carried from move to move.
#[derive(Clone, Copy, Debug, Default)]
pub struct Advantage {
    /// Doublings White assumes over Black (negative: Black over White).
    white: f64,
    /// White's win/loss value (−1..1) at the end of the last search.
    last_white_winloss: Option<f64>,
}

impl Advantage {
    /// The doublings White is assumed to have over Black for the next
    /// search of `game`: the cap at the start of a game, then a step
    /// toward keeping the disadvantaged side's value between −0.9 and
    /// −0.5.
    pub fn update(&mut self, game: &Game) -> f64 {
        let size = game.size();
        let black_advantage = initial_black_advantage(game);
        let points = black_advantage.abs();
        if points < handicap_threshold(size) || size.shorter() <= 7 {
            self.white = 0.0;
            return 0.0;
        }
        let disadvantaged = if black_advantage >= 0.0 {
            Color::White
        } else {
            Color::Black
        };
        let sign = disadvantaged.from_white();
        let cap = (CAP_PER_POINT * (points - handicap_threshold(size)) * board_scaling(size))
            .min(MAX_DOUBLINGS);
        let cap = (cap / STEP).round() * STEP;
        let board = game.board();
        let new_game = !board
            .points()
            .any(|p| board.color_at(p) == Some(Color::White));
        let mut own = sign * self.white;
        match self.last_white_winloss {
            Some(w) if !new_game => {
                let value = sign * w;
                if value < -0.9 {
                    own += STEP;
                } else if value > -0.5 {
                    own -= STEP;
                }
                own = own.clamp(0.0, cap);
            }
            _ => own = cap,
        }
        self.white = sign * own;
        self.white
    }

    /// Records White's win/loss value at the end of a search.
    pub fn record(&mut self, white_winloss: f64) {
        self.last_white_winloss = Some(white_winloss);
    }
}

/// Whether `pla` may resign `game` with White's lead `white_lead` as the
/// search reads it: in a handicap game White plays on while it is on
/// schedule to catch up the handicap.
pub fn may_resign(game: &Game, pla: Color, white_lead: f64) -> bool {
    let advantage = initial_black_advantage(game);
    if advantage <= 0.9 || pla != Color::White {
        return true;
    }
    let points = game.size().points() as f64;
    let min_turn = 1.0 + (points / 5.0).floor();
    let turns = game.move_count() as f64;
    if turns < min_turn {
        return false;
    }
    let to_catch_up = (0.6 * points - min_turn).max(1.0);
    let spent = (turns - min_turn).clamp(0.0, to_catch_up);
    let behind_schedule = -advantage * (to_catch_up - spent) / to_catch_up - 5.0 - advantage * 0.15;
    white_lead <= behind_schedule
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::rules::Rules;

    fn handicap_game(size: usize, stones: usize, komi: f64) -> Game {
        let mut game = Game::new(size, Rules::default(), komi);
        let points: Vec<_> = crate::go::handicap::fixed(size.into(), stones)
            .unwrap()
            .into_iter()
            .map(|(x, y)| (Color::Black, game.board().point(x, y)))
            .collect();
        game.setup(&points, true).unwrap();
        game
    }

    #[test]
    fn nine_stones_are_worth_about_a_hundred_points() {
        // Chinese rules give White a point a stone: 8 · 15 + 6.5 − 9.
        let game = handicap_game(19, 9, 0.5);
        assert_eq!(initial_black_advantage(&game), 117.5);
        assert_eq!(
            initial_black_advantage(&Game::new(19, Rules::default(), 7.5)),
            -0.5
        );
    }

    #[test]
    fn the_advantage_starts_at_its_cap_and_follows_the_value() {
        let mut game = handicap_game(19, 9, 0.5);
        let mut adv = Advantage::default();
        assert_eq!(adv.update(&game), MAX_DOUBLINGS);
        // White stones on the board: the value steers it.
        game.play(Color::White, Some(game.board().point(2, 2)))
            .unwrap();
        adv.record(-0.3);
        assert_eq!(adv.update(&game), MAX_DOUBLINGS - STEP);
        adv.record(-0.95);
        assert_eq!(adv.update(&game), MAX_DOUBLINGS);
        adv.record(-0.7);
        assert_eq!(adv.update(&game), MAX_DOUBLINGS);
        // Two stones on 19×19: a small cap, 0.045 · (21.5 − 4) rounded.
        let two = handicap_game(19, 2, 0.5);
        assert_eq!(Advantage::default().update(&two), 0.75);
        // An even game, and a handicap on a small board: none.
        assert_eq!(adv.update(&Game::new(19, Rules::default(), 7.5)), 0.0);
        assert_eq!(Advantage::default().update(&handicap_game(7, 2, 0.5)), 0.0);
    }

    #[test]
    fn white_plays_on_while_it_can_still_catch_up() {
        let mut game = handicap_game(19, 9, 0.5);
        assert!(!may_resign(&game, Color::White, -200.0), "too early");
        // A hundred moves on the even rows (no captures).
        let mut color = Color::White;
        for (x, y) in (0..10)
            .flat_map(|row| (0..19).map(move |x| (x, 2 * row)))
            .take(100)
        {
            game.play(color, Some(game.board().point(x, y))).unwrap();
            color = color.opponent();
        }
        assert_eq!(game.move_count(), 100);
        // Behind by the handicap after 100 moves (the schedule: −118
        // points): still on schedule.
        assert!(!may_resign(&game, Color::White, -100.0));
        assert!(may_resign(&game, Color::White, -140.0));
        // Black and even games resign by the value alone.
        assert!(may_resign(&game, Color::Black, 100.0));
        assert!(may_resign(
            &Game::new(19, Rules::default(), 7.5),
            Color::White,
            0.0
        ));
    }
}
