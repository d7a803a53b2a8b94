//! What the search shows while it runs and at its end: the root's moves
//! with their visits, win rates, priors, score leads and expected lines, and
//! the network's ownership averaged over the visits (for the whole board and
//! for each root move).

use super::choice;
use super::tree::Tree;
use crate::go::board::{MAX_POINTS, Point};
use crate::go::game::Game;
use crate::search::config::Puct;
use crate::search::report::{Candidate, MAX_PV, Report, lower_bound};

/// The network's ownership summed over the visits (White's, −1..1, in
/// the network's order of points), for its mean and spread.
#[derive(Default)]
pub(super) struct Ownership {
    pub(super) count: u32,
    pub(super) sum: Vec<f64>,
    pub(super) sum_sq: Vec<f64>,
}

impl Ownership {
    /// Adds one evaluation's ownership (White's, in the network's order
    /// of points).
    pub(super) fn add(&mut self, white_ownership: &[f32]) {
        let n = white_ownership.len();
        if self.sum.len() != n {
            *self = Ownership {
                count: 0,
                sum: vec![0.0; n],
                sum_sq: vec![0.0; n],
            };
        }
        for (i, &o) in white_ownership.iter().enumerate() {
            let o = f64::from(o);
            self.sum[i] += o;
            self.sum_sq[i] += o * o;
        }
        self.count += 1;
    }

    /// The mean ownership (Black's +1) and its spread, indexed by point;
    /// `None` before the first evaluation.
    pub(super) fn by_point(&self, board: &crate::go::board::Board) -> Option<(Vec<f64>, Vec<f64>)> {
        (self.count > 0).then(|| {
            let (mut mean, mut spread) = (vec![0.0; MAX_POINTS], vec![0.0; MAX_POINTS]);
            let count = f64::from(self.count);
            for (i, p) in board.points_from_top().enumerate() {
                let m = self.sum[i] / count;
                mean[p as usize] = -m;
                spread[p as usize] = (self.sum_sq[i] / count - m * m).max(0.0).sqrt();
            }
            (mean, spread)
        })
    }
}

/// What the search has found so far: the root's visited moves (and up to
/// `min_moves` in all, the unvisited ones by prior), the move it would
/// play first and then by the weight it would choose them by (as KataGo
/// orders them: visits, and the confidence bound's choice lifted), from the
/// side to move's view; the ownership, Black's +1, by point.
pub(super) fn report(
    tree: &Tree,
    game: &Game,
    puct: &Puct,
    min_moves: usize,
    owned: &Ownership,
    owned_by_move: &[Ownership],
) -> Report {
    let family = tree.root_family();
    let nodes = &family[..];
    let root = &nodes[0];
    let children: Vec<usize> = (root.first..root.first + root.count)
        .map(|i| i as usize)
        .filter(|&i| !nodes[i].refused)
        .collect();
    let candidate = |i: usize| {
        let n = &nodes[i];
        let visits = n.visits as f64;
        let seen = n.visits > 0;
        let mean = |sum: f64| seen.then(|| sum / visits);
        let score = mean(n.score);
        let stdev = score.map(|s| (n.score_sq / visits - s * s).max(0.0).sqrt());
        let win_rate = mean(n.winloss).map_or(0.0, |w| (1.0 + w) / 2.0);
        Candidate {
            mv: n.mv,
            visits: u64::from(n.visits),
            win_rate,
            lcb: lower_bound(win_rate, visits),
            prior: f64::from(n.prior),
            score_lead: mean(n.lead),
            score_stdev: stdev,
            score_selfplay: score,
            utility: mean(n.utility),
            no_result: mean(n.no_result),
            pv: Vec::new(),
            pv_visits: Vec::new(),
            ownership: owned_by_move
                .get(i - root.first as usize)
                .and_then(|o| o.by_point(game.board())),
        }
        .with_line(principal_variation(tree, i - root.first as usize))
    };
    let mut visited: Vec<usize> = children
        .iter()
        .copied()
        .filter(|&i| nodes[i].visits > 0)
        .collect();
    let weights = choice::play_weights(nodes, puct, |i| !nodes[i].refused);
    let weight = |i: usize| weights[i - root.first as usize].unwrap_or(0.0);
    visited.sort_by(|&a, &b| {
        weight(b)
            .total_cmp(&weight(a))
            .then(nodes[b].visits.cmp(&nodes[a].visits))
            .then(nodes[b].prior.total_cmp(&nodes[a].prior))
    });
    let mut unvisited: Vec<usize> = children
        .iter()
        .copied()
        .filter(|&i| nodes[i].visits == 0)
        .collect();
    unvisited.sort_by(|&a, &b| nodes[b].prior.total_cmp(&nodes[a].prior));
    let more = min_moves.saturating_sub(visited.len());
    let candidates = visited
        .into_iter()
        .chain(unvisited.into_iter().take(more))
        .map(candidate)
        .collect();
    let ownership = owned.by_point(game.board());
    Report {
        to_move: game.to_move(),
        playouts: u64::from(root.visits),
        candidates,
        ownership,
    }
}

/// The root's move `nth` (among its moves) and the most visited line after
/// it, with the visits of each.
fn principal_variation(tree: &Tree, nth: usize) -> (Vec<Option<Point>>, Vec<u64>) {
    let first = tree.view(tree.children(0).start + nth);
    let mut pv = vec![first.mv];
    let mut visits = vec![u64::from(first.visits)];
    let mut at = tree.edges[tree.children(0).start + nth].node as usize;
    while pv.len() < MAX_PV && at != 0 && tree.nodes[at].expanded {
        let best = tree
            .children(at)
            .filter_map(|e| Some((e, tree.child(e)?)))
            .filter(|(_, c)| c.visits > 0 && !c.refused)
            .max_by_key(|(_, c)| c.visits);
        let Some((e, c)) = best else {
            break;
        };
        pv.push(c.mv);
        visits.push(u64::from(c.visits));
        at = tree.edges[e].node as usize;
    }
    (pv, visits)
}
