//! A node's values recomputed from its children's at each back-up, as
//! KataGo's `recomputeNodeStats` does. Each visited child weighs its
//! visits, then less where it took more than twice its policy share of the
//! visits while its value is below the weighted mean of the children of
//! higher policy (noise pruning, `useNoisePruning`: the excess weight
//! fades by `1 − exp(−gap / 0.15)`), then times, to the power
//! `valueWeightExponent`, the chance that a Student's t of 3 degrees of
//! freedom puts its value above the children's mean, its spread narrowing
//! with its weight; the children's weights are then scaled back to the sum
//! they had after the pruning. The node's own network value, corrected by
//! the subtree value bias, weighs its own evaluations (a leaf is that value
//! alone). With neither refinement the result is the plain mean of every
//! visit's value.

use super::bias::{self, BiasTable};
use super::tree::Tree;
use crate::search::config::Puct;

/// `noisePruneUtilityScale`: the utility gap over which a child's excess
/// weight fades.
const NOISE_PRUNE_UTILITY_SCALE: f64 = 0.15;
/// A child weighs at least this share more than its policy's before it is
/// pruned (`lenientWeightShareFromRawPolicy`).
const LENIENT_SHARE: f64 = 2.0;

/// One visited child, as the recomputation weighs it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Weighed {
    /// Its node, and its move's edge (the order of its node's moves).
    index: usize,
    edge: usize,
    prior: f32,
    /// Its mean utility from the side of the player who chooses it.
    utility: f64,
    weight: f64,
}

/// Recomputes the sums of node `n`, an evaluated node, (its visits times
/// their weighted means) from its visited children and its own evaluation.
/// `weighed` is scratch space.
pub(super) fn recompute(
    tree: &mut Tree,
    table: &mut BiasTable,
    n: usize,
    puct: &Puct,
    weighed: &mut Vec<Weighed>,
) {
    weighed.clear();
    weighed.extend(tree.children(n).filter_map(|e| {
        let index = tree.edges[e].node as usize;
        let c = tree.child(e).filter(|c| c.visits > 0)?;
        Some(Weighed {
            index,
            edge: e,
            prior: c.prior,
            utility: c.utility / f64::from(c.visits),
            weight: f64::from(c.visits),
        })
    }));
    let nodes = &mut tree.nodes;
    // Each child weighs its visits until the refinements below.
    let child_visits: u32 = weighed.iter().map(|w| nodes[w.index].visits).sum();
    let visited_weight = f64::from(child_visits);
    let mut total = visited_weight;
    if puct.noise_pruning && !weighed.is_empty() {
        total = prune_noise(weighed);
    }
    if puct.value_weight_exponent > 0.0 && total > 0.0 {
        weigh_by_value(weighed, total, puct.value_weight_exponent);
    }

    // The children's weighted means, from this node's side (the children's
    // sums are from the chooser's, the other side).
    let mut sums = Sums::default();
    for w in weighed.iter() {
        let c = &nodes[w.index];
        let share = w.weight / f64::from(c.visits);
        sums.utility -= share * c.utility;
        sums.utility_sq += share * c.utility_sq;
        sums.winloss -= share * c.winloss;
        sums.lead -= share * c.lead;
        sums.score -= share * c.score;
        sums.score_sq += share * c.score_sq;
        sums.no_result += share * c.no_result;
    }
    if puct.subtree_bias > 0.0 && nodes[n].bias_key != 0 {
        let node = &mut nodes[n];
        let mean = if total > 0.0 {
            let drift = bias::drift(
                sums.utility / total,
                f64::from(node.nn_utility),
                visited_weight,
            );
            let old = node.filed();
            node.filed_delta = drift.delta as f32;
            node.filed_weight = drift.weight as f32;
            // The table takes what the node keeps, so that refiling later
            // takes back exactly what was filed.
            table.refile(node.bias_key, old, node.filed())
        } else {
            table.mean_drift(node.bias_key)
        };
        node.bias_applied = (puct.subtree_bias * mean) as f32;
    }

    let node = &mut nodes[n];
    let own = f64::from(node.visits.saturating_sub(child_visits));
    let own_utility = f64::from(node.nn_utility) + f64::from(node.bias_applied);
    sums.utility += own * own_utility;
    sums.utility_sq += own * own_utility * own_utility;
    sums.winloss += own * f64::from(node.nn_winloss);
    sums.lead += own * f64::from(node.nn_lead);
    sums.score += own * f64::from(node.nn_score);
    sums.score_sq += own * f64::from(node.nn_score_sq);
    sums.no_result += own * f64::from(node.nn_no_result);
    let scale = f64::from(node.visits) / (total + own);
    node.utility = sums.utility * scale;
    node.utility_sq = sums.utility_sq * scale;
    node.winloss = sums.winloss * scale;
    node.lead = sums.lead * scale;
    node.score = sums.score * scale;
    node.score_sq = sums.score_sq * scale;
    node.no_result = sums.no_result * scale;
}

/// A node's weighted sums, before they are scaled to its visits.
#[derive(Default)]
struct Sums {
    utility: f64,
    utility_sq: f64,
    winloss: f64,
    lead: f64,
    score: f64,
    score_sq: f64,
    no_result: f64,
}

/// KataGo's `pruneNoiseWeight`: in policy order, a child worse than the
/// weighted mean of those before it loses part of the weight it has beyond
/// twice its policy share of theirs. The weights' new sum.
fn prune_noise(weighed: &mut [Weighed]) -> f64 {
    // Each child's edge is its own, so the order is total and an unstable
    // sort (which needs no scratch buffer) gives the one order there is.
    weighed.sort_unstable_by(|a, b| b.prior.total_cmp(&a.prior).then(a.edge.cmp(&b.edge)));
    let (mut utility_sum, mut weight_sum, mut policy_sum) = (0.0, 0.0, 0.0);
    for w in weighed.iter_mut() {
        let prior = f64::from(w.prior).max(1e-30);
        if weight_sum > 0.0 && policy_sum > 0.0 {
            let gap = utility_sum / weight_sum - w.utility;
            let lenient = LENIENT_SHARE * weight_sum * prior / policy_sum;
            if gap > 0.0 && w.weight > lenient {
                let excess = w.weight - lenient;
                w.weight -= excess * (1.0 - (-gap / NOISE_PRUNE_UTILITY_SCALE).exp());
            }
        }
        utility_sum += w.utility * w.weight;
        weight_sum += w.weight;
        policy_sum += prior;
    }
    weight_sum
}

/// KataGo's `downweightBadChildrenAndNormalizeWeight` (nothing subtracted
/// or pruned): each weight times `(P(t₃ < z) + 0.0001)^exponent`, `z` the
/// child's distance above the weighted mean in its own spread
/// (`√(1/(1.5·√weight))`), then all scaled to sum to `total`.
fn weigh_by_value(weighed: &mut [Weighed], total: f64, exponent: f64) {
    let mean = weighed.iter().map(|w| w.utility * w.weight).sum::<f64>() / total;
    let mut new_total = 0.0;
    for w in weighed.iter_mut() {
        let precision = 1.5 * w.weight.sqrt();
        let stdev = (1e-8 + 1.0 / precision).sqrt();
        let z = (w.utility - mean) / stdev;
        w.weight *= (t3_cdf(z) + 0.0001).powf(exponent);
        new_total += w.weight;
    }
    if new_total > 0.0 {
        let factor = total / new_total;
        for w in weighed.iter_mut() {
            w.weight *= factor;
        }
    }
}

/// The cumulative distribution of Student's t with 3 degrees of freedom.
fn t3_cdf(z: f64) -> f64 {
    let u = z / 3f64.sqrt();
    0.5 + (u.atan() + u / (1.0 + u * u)) / std::f64::consts::PI
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::puct::tree::Node;

    #[test]
    fn the_t_distribution_is_symmetric_and_reaches_its_tails() {
        assert!((t3_cdf(0.0) - 0.5).abs() < 1e-12);
        for z in [0.3, 1.0, 2.5, 7.0] {
            assert!((t3_cdf(z) + t3_cdf(-z) - 1.0).abs() < 1e-12);
        }
        // Student's t with 3 degrees of freedom: P(t < 2.353) = 0.95.
        assert!((t3_cdf(2.353363) - 0.95).abs() < 1e-5);
        assert!(t3_cdf(-50.0) < 1e-4 && t3_cdf(50.0) > 1.0 - 1e-4);
    }

    /// A child of `prior` with `visits` of mean `utility` (the chooser's side).
    type Child = (f32, u32, f64);

    fn child((prior, visits, utility): Child) -> Node {
        let mut c = Node::new(None, prior);
        c.visits = visits;
        c.utility = utility * f64::from(visits);
        c.utility_sq = utility * utility * f64::from(visits);
        c.winloss = utility * f64::from(visits);
        c
    }

    /// A parent at node 0 valuing itself 0.1 over `children`.
    fn family(children: &[Child]) -> Tree {
        let mut parent = Node::new(None, 1.0);
        parent.visits = 1 + children.iter().map(|c| c.1).sum::<u32>();
        parent.nn_utility = 0.1;
        parent.nn_winloss = 0.1;
        Tree::family(parent, children.iter().map(|&c| child(c)))
    }

    fn parent_value(children: &[Child], puct: Puct) -> f64 {
        let mut tree = family(children);
        let mut weighed = Vec::new();
        let mut table = BiasTable::default();
        recompute(&mut tree, &mut table, 0, &puct, &mut weighed);
        tree.nodes[0].utility / f64::from(tree.nodes[0].visits)
    }

    const PLAIN: Puct = Puct {
        wide_root_noise: 0.0,
        lcb: true,
        utility_stdev_scale: 0.85,
        fpu_by_visited_policy: true,
        subtree_bias: 0.0,
        noise_pruning: false,
        value_weight_exponent: 0.0,
    };

    #[test]
    fn without_the_refinements_a_node_is_the_mean_of_its_visits() {
        // Children's values are from the chooser's side: the parent's are
        // their negatives, plus its own 0.1 once.
        let children = [(0.5, 10, 0.2), (0.3, 5, -0.1), (0.2, 0, 0.0)];
        let want = (0.1 - 10.0 * 0.2 + 5.0 * 0.1) / 16.0;
        assert!((parent_value(&children, PLAIN) - want).abs() < 1e-7);
    }

    #[test]
    fn an_overvisited_worse_child_is_pruned_and_better_children_weigh_more() {
        // The chooser's best child (0.3, high policy) and a worse one of low
        // policy that took as many visits: the noise pruning takes most of
        // the worse one's weight, so the parent (the other side) reads the
        // better child's value more.
        let children = [(0.8, 40, 0.3), (0.05, 40, 0.0)];
        let plain = parent_value(&children, PLAIN);
        let pruned = parent_value(
            &children,
            Puct {
                noise_pruning: true,
                ..PLAIN
            },
        );
        assert!(pruned < plain - 0.05, "{pruned} {plain}");
        assert!(pruned > -0.3, "{pruned}");
        // Value weighting leans the same way, less strongly.
        let weighted = parent_value(
            &children,
            Puct {
                value_weight_exponent: 0.25,
                ..PLAIN
            },
        );
        assert!(
            weighted < plain && weighted > pruned,
            "{weighted} {plain} {pruned}"
        );
        // A worse child of high policy keeps its weight under the pruning.
        let fair = [(0.5, 40, 0.3), (0.45, 40, 0.0)];
        let kept = parent_value(
            &fair,
            Puct {
                noise_pruning: true,
                ..PLAIN
            },
        );
        assert!((kept - parent_value(&fair, PLAIN)).abs() < 1e-12);
    }

    #[test]
    fn a_leaf_is_its_own_evaluation_corrected_by_its_keys_drift() {
        let mut tree = family(&[(0.5, 0, 0.0)]);
        tree.nodes[0].bias_key = 7;
        let mut table = BiasTable::default();
        table.refile(7, bias::Drift::default(), bias::drift(0.3, 0.1, 4.0));
        let puct = Puct {
            subtree_bias: 0.5,
            ..PLAIN
        };
        recompute(&mut tree, &mut table, 0, &puct, &mut Vec::new());
        // Its own 0.1, plus half the key's mean drift of 0.2.
        let root = &tree.nodes[0];
        assert!((root.utility - 0.2).abs() < 1e-6, "{}", root.utility);
        assert!((root.winloss - 0.1).abs() < 1e-6);
        assert_eq!(root.visits, 1);
    }
}
