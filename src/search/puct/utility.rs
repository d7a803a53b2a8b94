//! What a visit is worth: KataGo's utility, the win/loss value plus two
//! shares of the expected score — a static one (the score against 0) and a
//! dynamic one (against the score the root expected when the search began,
//! leaning toward 0) — each `atan` of the score averaged over the network's
//! spread of it; and the value of a game ended by two passes, counted by
//! the network's ownership.

use super::tree::Node;
use crate::go::board::Color;
use crate::go::game::Game;
use crate::nn::{Evaluation, Evaluator, Request};

/// The shares of the utility that the score has (KataGo's
/// `staticScoreUtilityFactor`, `dynamicScoreUtilityFactor`), and their
/// scales in points per board side: the utility of a score s is
/// `atan((s − center) / (scale · side)) · 2/π`.
const STATIC_SCORE_UTILITY: f64 = 0.1;
const STATIC_SCORE_SCALE: f64 = 2.0;
const DYNAMIC_SCORE_UTILITY: f64 = 0.3;
const DYNAMIC_SCORE_SCALE: f64 = 0.75;
/// The dynamic centre leans this much from the expected score toward 0
/// (KataGo's `dynamicScoreCenterZeroWeight`).
const DYNAMIC_CENTER_ZERO_WEIGHT: f64 = 0.2;

/// The score's share of the utility in one search, from White's side.
#[derive(Clone, Copy, Debug)]
pub(super) struct ScoreUtility {
    /// White's score the dynamic share is centred on.
    pub(super) center: f64,
    pub(super) side: f64,
}

/// Points of the standard normal distribution, and their weights, over
/// which the utility of an uncertain score is averaged.
const NORMAL_POINTS: usize = 33;
const NORMAL_REACH: f64 = 4.0;

fn normal_weights() -> &'static [(f64, f64); NORMAL_POINTS] {
    static WEIGHTS: std::sync::LazyLock<[(f64, f64); NORMAL_POINTS]> =
        std::sync::LazyLock::new(|| {
            let mut w = [(0.0, 0.0); NORMAL_POINTS];
            let step = 2.0 * NORMAL_REACH / (NORMAL_POINTS - 1) as f64;
            for (i, slot) in w.iter_mut().enumerate() {
                let z = -NORMAL_REACH + step * i as f64;
                *slot = (z, (-0.5 * z * z).exp());
            }
            let total: f64 = w.iter().map(|&(_, weight)| weight).sum();
            w.map(|(z, weight)| (z, weight / total))
        });
    &WEIGHTS
}

/// `atan((s − center) / scale) · 2/π` averaged over s normally spread
/// around `mean` by `stdev` (KataGo's `expectedWhiteScoreValue`).
fn expected_score_value(mean: f64, stdev: f64, center: f64, scale: f64) -> f64 {
    let at = |s: f64| ((s - center) / scale).atan() * std::f64::consts::FRAC_2_PI;
    if stdev < 1e-3 {
        return at(mean);
    }
    normal_weights()
        .iter()
        .map(|&(z, weight)| weight * at(mean + stdev * z))
        .sum()
}

impl ScoreUtility {
    /// Centred on the score the root expects, as KataGo centres it: the
    /// kept tree's average where the root has visits, the network's
    /// evaluation of the root otherwise; leaning a fifth toward 0, but no
    /// further than the dynamic scale.
    pub(super) fn centred(
        game: &Game,
        net: &Evaluator,
        root: &Node,
        white_advantage: f32,
    ) -> ScoreUtility {
        let to_move = game.to_move();
        let expected = if root.visits > 0 {
            // The root's sums are from the side of the player before it.
            to_move.opponent().from_white() * root.score / f64::from(root.visits)
        } else {
            let request = Request {
                game,
                to_move,
                fresh: false,
                symmetry: 0,
                white_advantage,
            };
            let mut eval = Evaluation::default();
            net.evaluate_cached(request, &mut eval);
            f64::from(eval.white_score_mean)
        };
        // No further from the expected score than the dynamic scale; the
        // scales grow with the board's √area, as KataGo's `sqrtBoardArea`.
        let side = (game.size().points() as f64).sqrt();
        let reach = DYNAMIC_SCORE_SCALE * side;
        let center = (expected * (1.0 - DYNAMIC_CENTER_ZERO_WEIGHT))
            .clamp(expected - reach, expected + reach);
        ScoreUtility { center, side }
    }

    /// White's utility from a score spread around White's `mean` by `stdev`.
    pub(super) fn of(&self, mean: f64, stdev: f64) -> f64 {
        let value = |center, scale| expected_score_value(mean, stdev, center, scale * self.side);
        STATIC_SCORE_UTILITY * value(0.0, STATIC_SCORE_SCALE)
            + DYNAMIC_SCORE_UTILITY * value(self.center, DYNAMIC_SCORE_SCALE)
    }
}

/// Utility and win/loss value (−1..1), score lead and final score of an
/// evaluation for `to_move`.
pub(super) fn values(
    eval: &Evaluation,
    to_move: Color,
    score: &ScoreUtility,
) -> (f64, f64, f64, f64) {
    let sign = to_move.from_white();
    let winloss = sign * (eval.white_win - eval.white_loss) as f64;
    let lead = sign * eval.white_lead as f64;
    let mean = f64::from(eval.white_score_mean);
    let stdev = (f64::from(eval.white_score_mean_sq) - mean * mean)
        .max(0.0)
        .sqrt();
    let utility = winloss + sign * score.of(mean, stdev);
    (utility, winloss, lead, sign * mean)
}

/// A game ended by two passes, for `to_move`: 1 won, −1 lost, 0 drawn, by
/// an area count where each point goes to the side the network's ownership
/// gives it; and that count's margin.
pub(super) fn finished_value(game: &Game, eval: &Evaluation, to_move: Color) -> (f64, f64) {
    let white_area: f64 = eval
        .white_ownership()
        .map(|o| {
            if o > 0.0 {
                1.0
            } else if o < 0.0 {
                -1.0
            } else {
                0.0
            }
        })
        .sum();
    let komi = -crate::go::score::area_komi(game, Color::Black);
    let white_margin = white_area + komi;
    let margin = to_move.from_white() * white_margin;
    (margin.signum(), margin)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::rules::Rules;

    #[test]
    fn an_uncertain_score_is_worth_less_than_a_sure_one() {
        let sure = expected_score_value(10.0, 0.0, 0.0, 14.25);
        assert!((sure - (10.0f64 / 14.25).atan() * std::f64::consts::FRAC_2_PI).abs() < 1e-12);
        let unsure = expected_score_value(10.0, 30.0, 0.0, 14.25);
        assert!(0.0 < unsure && unsure < sure * 0.6, "{unsure} {sure}");
        // Odd about the centre.
        let below = expected_score_value(-10.0 + 5.0, 30.0, 5.0, 14.25);
        assert!((below + expected_score_value(10.0 + 5.0, 30.0, 5.0, 14.25)).abs() < 1e-9);
    }

    #[test]
    fn the_dynamic_centre_follows_the_expected_score_within_reach() {
        let net = Evaluator::embedded();
        let game = Game::new(9, Rules::default(), 7.5);
        let mut root = Node::new(None, 1.0);
        // White expects +10 (the root's sums are Black's: Black moved
        // before a root where White plays).
        let mut white_to_move = game.clone();
        white_to_move.set_to_move(Color::White);
        root.visits = 4;
        root.score = -40.0;
        let centre = |root: &Node| ScoreUtility::centred(&white_to_move, &net, root, 0.0).center;
        assert!((centre(&root) - 8.0).abs() < 1e-9);
        // +100: the lean toward 0 stops at 0.75 · 9 points.
        root.score = -400.0;
        assert!((centre(&root) - (100.0 - 6.75)).abs() < 1e-9);
        // No visits: the network's expected score of the empty board, near 0.
        let fresh = ScoreUtility::centred(&game, &net, &Node::new(None, 1.0), 0.0);
        assert!(fresh.center.abs() < 5.0, "{}", fresh.center);
        // Above the centre is worth more to White, below less.
        assert!(fresh.of(fresh.center + 3.0, 5.0) > fresh.of(fresh.center, 5.0));
    }
}
