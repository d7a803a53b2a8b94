//! Which of the root's moves the search plays, as KataGo chooses
//! (`getPlaySelectionValues`): each move weighs its visits, a move that
//! took more visits than PUCT wanted in retrospect (against the most
//! stably explored move) weighs only what was wanted, and with
//! `useLcbForSelection` the move whose value has the best lower confidence
//! bound (its mean less five standard errors, among the moves with at least
//! 15% of the best one's visits) gets at least the weight that beats every
//! other move it is surely better than. The move of most weight is played.

use super::explore::Exploration;
use super::tree::Node;
use crate::search::config::Puct;

/// Standard errors below the mean for the confidence bound (`lcbStdevs`).
const LCB_STDEVS: f64 = 5.0;
/// The share of the best move's weight a move needs to be chosen by its
/// bound (`minVisitPropForLCB`).
const LCB_MIN_VISIT_SHARE: f64 = 0.15;
/// Half the widest span of a utility (win/loss 1, score 0.1 and 0.3).
const UTILITY_RADIUS: f64 = 1.4;

/// The weight each child of the root would be chosen by, in the arena's
/// order (`None`: not a candidate). `nodes`: the root and its children
/// ([`Tree::root_family`](super::tree::Tree::root_family)); `candidate`
/// says which children may be played.
pub(super) fn play_weights(
    nodes: &[Node],
    puct: &Puct,
    candidate: impl Fn(usize) -> bool,
) -> Vec<Option<f64>> {
    let root = &nodes[0];
    let children: Vec<usize> = (root.first as usize..(root.first + root.count) as usize).collect();
    let mut weights: Vec<Option<f64>> = children
        .iter()
        .map(|&c| candidate(c).then(|| f64::from(nodes[c].visits)))
        .collect();
    // The most stably explored move: the most visited, discounting its
    // last visit, with a little of its prior.
    let goodness = |i: usize| {
        let v = f64::from(nodes[children[i]].visits);
        (v - 1.0).max(0.0) + 2.0 * f64::from(nodes[children[i]].prior)
    };
    let Some(best) = (0..children.len())
        .filter(|&i| weights[i].is_some())
        .max_by(|&a, &b| goodness(a).total_cmp(&goodness(b)))
    else {
        return weights;
    };
    let best_weight = weights[best].unwrap_or(0.0);
    if root.visits > 0 && nodes[children[best]].visits > 0 {
        // Visits past what PUCT wanted, against the best move's value.
        let how = Exploration::of(root, children.iter().map(|&c| &nodes[c]), true, puct);
        let mean = |c: usize| nodes[c].utility / f64::from(nodes[c].visits);
        let b = children[best];
        let target = how.value(f64::from(nodes[b].prior), mean(b), best_weight);
        for (i, w) in weights.iter_mut().enumerate() {
            let c = children[i];
            if let Some(w) = w.as_mut()
                && i != best
                && nodes[c].visits > 0
            {
                let wanted = how.weight_for(target, f64::from(nodes[c].prior), mean(c));
                *w = w.min(wanted.ceil());
            }
        }
    }
    if puct.lcb {
        let bounds: Vec<(f64, f64)> = children.iter().map(|&c| bound(&nodes[c])).collect();
        let eligible = |i: usize| {
            weights[i].is_some_and(|w| w > 0.0 && w >= LCB_MIN_VISIT_SHARE * best_weight)
        };
        if let Some(top) = (0..children.len())
            .filter(|&i| eligible(i))
            .max_by(|&a, &b| bounds[a].0.total_cmp(&bounds[b].0))
        {
            let (top_bound, _) = bounds[top];
            let mut lifted = weights[top].unwrap_or(0.0);
            for (i, &(lower, radius)) in bounds.iter().enumerate() {
                let excess = top_bound - lower;
                if i == top || excess < 0.0 {
                    continue;
                }
                // The radius would have to be this many times wider for
                // the bound to be worse; its square, in weight (at most 25).
                let factor = (radius + excess) / (radius + 0.2 * excess);
                if let Some(w) = weights[i] {
                    lifted = lifted.max(factor * factor * w);
                }
            }
            weights[top] = Some(lifted);
        }
    }
    weights
}

/// A child's lower confidence bound on its utility for the player who
/// chose it, and the bound's radius: its mean less `LCB_STDEVS` standard
/// errors, the variance taken with a small prior at the widest it can be
/// so that a few visits do not look certain (KataGo's
/// `getSelfUtilityLCBAndRadius`, each visit of weight 1).
fn bound(node: &Node) -> (f64, f64) {
    let widest = 2.0 * UTILITY_RADIUS * LCB_STDEVS;
    if node.visits == 0 {
        return (-widest, widest);
    }
    let visits = f64::from(node.visits);
    let mean = node.utility / visits;
    let mean_sq = (node.utility_sq / visits).max(mean * mean + 1e-8);
    // A prior of weight 1/n² at the widest variance.
    let prior = 1.0 / (visits * visits);
    let mean_sq =
        (mean_sq * visits + (mean_sq + UTILITY_RADIUS * UTILITY_RADIUS) * prior) / (visits + prior);
    let weight = visits + prior;
    let samples = weight * weight / (visits + prior * prior);
    let radius = ((mean_sq - mean * mean) / samples).sqrt() * LCB_STDEVS;
    (mean - radius, radius)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A root whose children have these (prior, visits, mean utility,
    /// spread) and have sums to match.
    fn root(children: &[(f32, u32, f64, f64)]) -> Vec<Node> {
        let mut nodes = vec![Node::new(None, 1.0)];
        nodes[0].expanded = true;
        nodes[0].first = 1;
        nodes[0].count = children.len() as u32;
        nodes[0].nn_utility = 0.0;
        for &(prior, visits, mean, spread) in children {
            let mut n = Node::new(Some(nodes.len() as u16), prior);
            n.visits = visits;
            n.utility = mean * f64::from(visits);
            n.utility_sq = (mean * mean + spread * spread) * f64::from(visits);
            nodes[0].visits += visits;
            nodes[0].utility -= n.utility;
            nodes[0].utility_sq += n.utility_sq;
            nodes.push(n);
        }
        nodes[0].visits += 1;
        nodes
    }

    fn chosen(nodes: &[Node], puct: &Puct) -> usize {
        let w = play_weights(nodes, puct, |_| true);
        (0..w.len())
            .max_by(|&a, &b| w[a].unwrap_or(-1.0).total_cmp(&w[b].unwrap_or(-1.0)))
            .unwrap()
    }

    #[test]
    fn a_surely_better_move_with_fewer_visits_is_played() {
        // The second move has 40% of the first's visits and a clearly
        // better value: the bound chooses it, the visits alone do not.
        let nodes = root(&[
            (0.6, 500, 0.0, 0.2),
            (0.3, 200, 0.3, 0.2),
            (0.1, 10, 0.5, 0.2),
        ]);
        let lcb = Puct::default();
        assert_eq!(chosen(&nodes, &lcb), 1);
        let by_visits = Puct { lcb: false, ..lcb };
        assert_eq!(chosen(&nodes, &by_visits), 0);
        // Too few visits to count (2% of the first's): not chosen however good.
        let few = root(&[(0.6, 500, 0.0, 0.2), (0.3, 10, 0.6, 0.2)]);
        assert_eq!(chosen(&few, &lcb), 0);
        // Close values with wide spreads: the visits decide.
        let close = root(&[(0.6, 500, 0.0, 0.6), (0.3, 200, 0.02, 0.6)]);
        assert_eq!(chosen(&close, &lcb), 0);
    }

    #[test]
    fn moves_that_may_not_be_played_have_no_weight() {
        let nodes = root(&[(0.6, 500, 0.0, 0.2), (0.3, 200, 0.3, 0.2)]);
        let w = play_weights(&nodes, &Puct::default(), |c| c != 2);
        assert_eq!(w[1], None);
        assert!(w[0].is_some());
    }

    #[test]
    fn few_visits_give_a_wide_bound() {
        let nodes = root(&[(0.5, 1, 0.5, 0.0), (0.5, 400, 0.5, 0.0)]);
        let (one, many) = (bound(&nodes[1]), bound(&nodes[2]));
        assert!(one.1 > 10.0 * many.1, "{one:?} {many:?}");
        assert!(bound(&Node::new(None, 0.5)).0 <= -2.0 * UTILITY_RADIUS);
    }
}
