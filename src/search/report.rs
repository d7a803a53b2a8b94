//! What a search has found so far, for analysis, in one form for both
//! searches: each root move's visits, win rate, lower confidence bound,
//! prior and expected score, its principal variation, and who owns each
//! point. Each search fills it from its own tree (`mc::report`,
//! `puct::report`).

use crate::go::board::{Color, Point};

/// The longest principal variation reported.
pub(super) const MAX_PV: usize = 24;

/// One root move as analysis shows it, from the side to move's view.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// `None` is a pass.
    pub mv: Option<Point>,
    /// Playouts through this move (prior knowledge not counted).
    pub visits: u64,
    /// Win rate of those playouts (the prior's when there are none).
    pub win_rate: f64,
    /// A lower confidence bound of the win rate (95%, normal approximation).
    pub lcb: f64,
    /// The move's share of the prior knowledge over all root moves.
    pub prior: f64,
    /// Points the side to move is ahead by at the end of those playouts,
    /// komi included, and their spread.
    pub score_lead: Option<f64>,
    pub score_stdev: Option<f64>,
    /// The network's search only: the mean final score (not the lead), the
    /// mean utility (win/loss and score together, −1.2..1.2), and the
    /// chance of no result.
    pub score_selfplay: Option<f64>,
    pub utility: Option<f64>,
    pub no_result: Option<f64>,
    /// The move and the most visited line after it, legal moves only.
    pub pv: Vec<Option<Point>>,
    /// The visits of each move of `pv`.
    pub pv_visits: Vec<u64>,
    /// Where counted: each point's expected owner after this move (+1
    /// Black) and its standard deviation, indexed by point.
    pub ownership: Option<(Vec<f64>, Vec<f64>)>,
}

/// A search's findings at one moment.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub to_move: Color,
    /// Playouts through the root, those of a reused tree included.
    pub playouts: u64,
    /// Best first: most visits, then highest win rate.
    pub candidates: Vec<Candidate>,
    /// With ownership counted: each point's expected owner (+1 Black) and
    /// its standard deviation, indexed by point.
    pub ownership: Option<(Vec<f64>, Vec<f64>)>,
}

impl Report {
    /// Points the side to move is ahead by, over all playouts so far.
    pub fn score_lead(&self) -> Option<f64> {
        self.mean_over_visits(|c| c.score_lead)
    }

    /// The mean of a root move's figure over the visits of the moves that
    /// have it (the root's own figure), `None` where none has.
    pub fn mean_over_visits(&self, figure: impl Fn(&Candidate) -> Option<f64>) -> Option<f64> {
        let (n, sum) = self
            .candidates
            .iter()
            .filter_map(|c| Some((c.visits as f64, figure(c)? * c.visits as f64)))
            .fold((0.0, 0.0), |(n, s), (k, v)| (n + k, s + v));
        (n > 0.0).then(|| sum / n)
    }
}

/// A 95% lower bound on a win rate of `q` over `n` playouts (or visits).
pub(super) fn lower_bound(q: f64, n: f64) -> f64 {
    if n < 1.0 {
        return 0.0;
    }
    (q - 1.96 * (q * (1.0 - q) / n).sqrt() - 0.5 / n).clamp(0.0, 1.0)
}

impl Candidate {
    /// The candidate with its principal variation and the visits of each
    /// of its moves.
    pub fn with_line(self, line: (Vec<Option<Point>>, Vec<u64>)) -> Candidate {
        Candidate {
            pv: line.0,
            pv_visits: line.1,
            ..self
        }
    }
}
