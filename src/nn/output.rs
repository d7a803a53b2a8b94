//! From the heads' raw numbers to what a player reads: the policy as
//! probabilities over the legal moves, win / loss / no-result chances, score
//! mean, spread and lead, the variance time and the short-term errors, and
//! ownership, all from White's side as KataGo reports them
//! (`NNEvaluator::evaluate` in KataGo's `nneval.cpp`: the scores scaled by
//! the model's multipliers, the short-term errors transformed as its version
//! says), and KataGo's `kata-raw-nn` text.

use super::backend::RawOutput;
use super::inputs::NetRules;
use super::model::{PostProcess, ShorttermErrors};
use crate::go::board::{Board, BoardSize, Color, Point};
use crate::go::rules::Ko;
use std::fmt::Write;

/// One evaluation, White's point of view, KataGo's orientation (rows from
/// the top).
#[derive(Clone, Debug, Default)]
pub struct Evaluation {
    /// The board's width: the length of a row of `policy` and of the
    /// ownership.
    pub width: usize,
    /// A probability per point, −1 where the move is illegal.
    pub policy: Vec<f32>,
    pub pass: f32,
    pub white_win: f32,
    pub white_loss: f32,
    pub no_result: f32,
    pub white_score_mean: f32,
    pub white_score_mean_sq: f32,
    pub white_lead: f32,
    /// The network's estimate of the game's remaining variance time.
    pub var_time_left: f32,
    /// The network's estimates of its own short-term error in win/loss
    /// value and in score (version 9 on; −1 before).
    pub shortterm_winloss_error: f32,
    pub shortterm_score_error: f32,
    /// The network's ownership of each point before its `tanh`, from the
    /// side of the player to move: [`Evaluation::white_ownership`] takes
    /// the `tanh` (361 calls of glibc's `tanhf` on 19×19, where a search
    /// that shows no ownership reads none of them) only where it is read.
    ownership_logits: Vec<f32>,
    /// Whether the player to move was Black (the logits are then Black's).
    ownership_by_black: bool,
    /// The network gave NaN or infinity here (a corrupt or hostile file,
    /// a layer out of its range, a GPU's failure): the numbers above are
    /// then a neutral stand-in (an even game, a uniform policy over the
    /// legal moves, no owner), finite for every consumer, and a search or
    /// an answer that reports the network's view refuses it.
    pub failed: bool,
}

impl Evaluation {
    /// Whether every number of it is finite: a net that overflows (a
    /// corrupt or hostile file, or a layer out of its range) gives NaN or
    /// infinity, an evaluation no search or answer may use.
    pub(crate) fn is_finite(&self) -> bool {
        [
            self.pass,
            self.white_win,
            self.white_loss,
            self.no_result,
            self.white_score_mean,
            self.white_score_mean_sq,
            self.white_lead,
            self.var_time_left,
            self.shortterm_winloss_error,
            self.shortterm_score_error,
        ]
        .iter()
        .chain(&self.policy)
        .all(|x| x.is_finite())
            // An infinite logit is an owner for sure (`tanh` ±1).
            && !self.ownership_logits.iter().any(|x| x.is_nan())
    }

    /// The neutral stand-in of a board of `size` whose pass gave no
    /// numbers, failed: `legal` says which points may be played.
    pub(crate) fn fail_on(&mut self, legal: &[bool], size: BoardSize) {
        self.width = size.width;
        self.policy.clear();
        self.policy.extend((0..size.points()).map(|p| {
            if legal.get(p) == Some(&true) {
                0.0
            } else {
                -1.0
            }
        }));
        self.ownership_logits.clear();
        self.ownership_logits.resize(size.points(), 0.0);
        self.fail();
    }

    /// Marks the evaluation failed and puts the neutral stand-in in its
    /// numbers' place: the legal moves (the points whose policy is not the
    /// illegal −1) and the pass equally likely, an even game, no owner.
    pub(crate) fn fail(&mut self) {
        let legal = self.policy.iter().filter(|&&p| p != -1.0).count();
        let share = 1.0 / (legal + 1) as f32;
        for p in self.policy.iter_mut().filter(|p| **p != -1.0) {
            *p = share;
        }
        self.pass = share;
        self.white_win = 0.5;
        self.white_loss = 0.5;
        self.no_result = 0.0;
        self.white_score_mean = 0.0;
        self.white_score_mean_sq = 0.0;
        self.white_lead = 0.0;
        self.var_time_left = -1.0;
        self.shortterm_winloss_error = -1.0;
        self.shortterm_score_error = -1.0;
        self.ownership_logits.fill(0.0);
        self.ownership_by_black = false;
        self.failed = true;
    }
}

/// How a model's score outputs become points: its multipliers and its
/// short-term error transform.
#[derive(Clone, Copy, Debug)]
pub struct Scaling {
    pub post: PostProcess,
    pub shortterm: ShorttermErrors,
}

impl Default for Scaling {
    /// Version 8's.
    fn default() -> Scaling {
        Scaling {
            post: PostProcess::default(),
            shortterm: ShorttermErrors::None,
        }
    }
}

fn soft_plus(x: f64) -> f64 {
    if x > 40.0 { x } else { x.exp().ln_1p() }
}

/// Turns raw outputs (already mapped back to KataGo's orientation) into an
/// evaluation. `legal[pos]` says which points `to_move` may play.
pub fn postprocess(
    raw: &RawOutput,
    legal: &[bool],
    to_move: Color,
    rules: &NetRules,
    size: BoardSize,
    scaling: &Scaling,
    out: &mut Evaluation,
) {
    out.width = size.width;
    let points = size.points();
    out.policy.clear();
    out.policy.resize(points, -1.0);
    let (legal, logits) = (&legal[..points], &raw.policy[..points]);
    // An illegal point's logit read as −∞, with no branch on the points.
    let mut max = raw.pass;
    for (&l, &logit) in legal.iter().zip(logits) {
        max = max.max(if l { logit } else { f32::NEG_INFINITY });
    }
    let mut sum = 0.0f32;
    for ((p, &l), &logit) in out.policy.iter_mut().zip(legal).zip(logits) {
        if l {
            *p = (logit - max).exp();
            sum += *p;
        }
    }
    let pass = (raw.pass - max).exp();
    sum += pass;
    for (p, &l) in out.policy.iter_mut().zip(legal) {
        if l {
            *p /= sum;
        }
    }
    out.pass = pass / sum;

    let [win_logit, loss_logit, mut no_result_logit] = raw.value.map(f64::from);
    let no_result_possible = rules.ko == Ko::Simple || rules.territory;
    if !no_result_possible {
        no_result_logit -= 100_000.0;
    }
    let m = win_logit.max(loss_logit).max(no_result_logit);
    let (mut win, mut loss, mut no_result) = (
        (win_logit - m).exp(),
        (loss_logit - m).exp(),
        (no_result_logit - m).exp(),
    );
    if !no_result_possible {
        no_result = 0.0;
    }
    let total = win + loss + no_result;
    win /= total;
    loss /= total;
    no_result /= total;
    let [
        mean,
        spread,
        lead,
        variance_time,
        winloss_error,
        score_error,
    ] = raw.score.map(f64::from);
    let post = &scaling.post;
    let score_mean = mean * f64::from(post.score_mean);
    let stdev = soft_plus(spread) * f64::from(post.score_stdev);
    let mean_sq = (score_mean * score_mean + stdev * stdev) * (1.0 - no_result);
    let score_mean = score_mean * (1.0 - no_result);
    let lead = lead * f64::from(post.lead) * (1.0 - no_result);
    // Version 8 nets report no variance time (KataGo gives −1).
    out.var_time_left = match scaling.shortterm {
        ShorttermErrors::None => -1.0,
        _ => (soft_plus(variance_time) * f64::from(post.variance_time)) as f32,
    };
    let (value_mult, score_mult) = (
        f64::from(post.shortterm_value_error),
        f64::from(post.shortterm_score_error),
    );
    let (winloss_error, score_error) = match scaling.shortterm {
        ShorttermErrors::None => (-1.0, -1.0),
        ShorttermErrors::Softplus => (soft_plus(winloss_error), soft_plus(score_error) * 10.0),
        ShorttermErrors::SqrtSoftplus => (
            (soft_plus(winloss_error) * value_mult).sqrt(),
            (soft_plus(score_error) * score_mult).sqrt(),
        ),
        ShorttermErrors::SqrtSquaredHalfSoftplus => {
            let (w, s) = (soft_plus(winloss_error * 0.5), soft_plus(score_error * 0.5));
            ((w * w * value_mult).sqrt(), (s * s * score_mult).sqrt())
        }
    };
    out.shortterm_winloss_error = winloss_error as f32;
    out.shortterm_score_error = score_error as f32;
    let white = to_move == Color::White;
    out.white_win = (if white { win } else { loss }) as f32;
    out.white_loss = (if white { loss } else { win }) as f32;
    out.no_result = no_result as f32;
    out.white_score_mean = (if white { score_mean } else { -score_mean }) as f32;
    out.white_score_mean_sq = mean_sq as f32;
    out.white_lead = (if white { lead } else { -lead }) as f32;
    out.ownership_logits.clear();
    out.ownership_logits
        .extend(raw.ownership.iter().take(points).copied());
    out.ownership_by_black = !white;
}

impl Evaluation {
    /// Each point of `board`, rows from the top, with its prior (−1 where
    /// the move is illegal): the policy read by board point.
    pub fn priors<'a>(&'a self, board: &'a Board) -> impl Iterator<Item = (Point, f32)> + 'a {
        board.points_from_top().zip(self.policy.iter().copied())
    }

    /// White's ownership of each point, −1 (Black's) to 1, rows from the
    /// top: the network's `tanh` of its logits, taken as it is read.
    pub fn white_ownership(&self) -> impl ExactSizeIterator<Item = f32> + Clone + '_ {
        let by_black = self.ownership_by_black;
        self.ownership_logits.iter().map(move |&o| {
            let t = o.tanh();
            if by_black { -t } else { t }
        })
    }

    /// White's ownership of each point of `board`, rows from the top.
    pub fn white_ownership_by_point<'a>(
        &'a self,
        board: &'a Board,
    ) -> impl Iterator<Item = (Point, f32)> + 'a {
        board.points_from_top().zip(self.white_ownership())
    }

    /// KataGo's `kata-raw-nn` block for this evaluation in `symmetry`
    /// (model version 8's short-term errors, which it has not, printed as
    /// −1).
    pub fn raw_nn_text(&self, symmetry: usize) -> String {
        raw_nn_text(symmetry, self, false)
    }

    /// The same as `kata-raw-human-nn` prints it: the score and its square
    /// in place of the lead, the self-play score and the time left.
    pub fn raw_human_nn_text(&self, symmetry: usize) -> String {
        raw_nn_text(symmetry, self, true)
    }
}

fn raw_nn_text(symmetry: usize, e: &Evaluation, human: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "symmetry {symmetry}");
    let _ = writeln!(s, "whiteWin {:.6}", e.white_win);
    let _ = writeln!(s, "whiteLoss {:.6}", e.white_loss);
    let _ = writeln!(s, "noResult {:.6}", e.no_result);
    if human {
        let _ = writeln!(s, "whiteScore {:.3}", e.white_score_mean);
        let _ = writeln!(s, "whiteScoreSq {:.3}", e.white_score_mean_sq);
    } else {
        let _ = writeln!(s, "whiteLead {:.3}", e.white_lead);
        let _ = writeln!(s, "whiteScoreSelfplay {:.3}", e.white_score_mean);
        let _ = writeln!(s, "whiteScoreSelfplaySq {:.3}", e.white_score_mean_sq);
        let _ = writeln!(s, "varTimeLeft {:.3}", e.var_time_left);
    }
    let _ = writeln!(s, "shorttermWinlossError {:.3}", e.shortterm_winloss_error);
    let _ = writeln!(s, "shorttermScoreError {:.3}", e.shortterm_score_error);
    s.push_str("policy\n");
    for row in e.policy.chunks(e.width) {
        for &p in row {
            if p < 0.0 {
                s.push_str("    NAN ");
            } else {
                let _ = write!(s, "{p:8.6} ");
            }
        }
        s.push('\n');
    }
    let _ = writeln!(s, "policyPass {:8.6} ", e.pass);
    s.push_str("whiteOwnership\n");
    let ownership: Vec<f32> = e.white_ownership().collect();
    for row in ownership.chunks(e.width) {
        for &o in row {
            let _ = write!(s, "{o:9.7} ");
        }
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::rules::Rules;

    #[test]
    fn the_policy_sums_to_one_over_legal_moves_and_pass_and_values_flip_for_black() {
        let raw = RawOutput {
            policy: vec![1.0, 2.0, 3.0, 0.5],
            pass: 0.0,
            value: [2.0, 0.0, -1.0],
            score: [0.1, 0.0, 0.2, 0.0, 0.0, 0.0],
            ownership: vec![0.5; 4],
            ..RawOutput::default()
        };
        let rules = NetRules::of(&Rules::default());
        let mut e = Evaluation::default();
        postprocess(
            &raw,
            &[true, true, false, true],
            Color::Black,
            &rules,
            2.into(),
            &Scaling::default(),
            &mut e,
        );
        assert_eq!(e.policy[2], -1.0);
        let total: f32 = e.policy.iter().filter(|p| **p >= 0.0).sum::<f32>() + e.pass;
        assert!((total - 1.0).abs() < 1e-6);
        // Black to move: the net's win is Black's, so White's loss.
        assert!(e.white_loss > e.white_win);
        assert_eq!(
            e.no_result, 0.0,
            "no result cannot happen under superko and area scoring"
        );
        assert!((e.white_lead + 4.0).abs() < 1e-5);
        assert!(e.white_ownership().all(|o| o < 0.0));
        let text = raw_nn_text(3, &e, false);
        assert!(text.starts_with("symmetry 3\nwhiteWin "));
        assert!(text.contains("    NAN "));
    }
}
