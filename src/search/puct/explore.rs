//! How a node's children are weighed on the way down, as KataGo weighs
//! them: a child's value `Q` (its mean utility for the player to move, or
//! the first-play urgency while unvisited) plus `c·P·√W / (1 + n)`, where
//! `W` is the weight of the children visited so far, `c` grows slowly with
//! `W` and, with `cpuctUtilityStdevScale`, with the spread of the
//! utilities seen at the node; first-play urgency is the parent's value,
//! leaning from the network's value toward the visits' mean as more of the
//! policy is visited (`fpuParentWeightByVisitedPolicy`), less a reduction;
//! at the root in analysis, KataGo's wide root noise.

use super::tree::{Node, Tree};
use crate::go::board::Point;
use crate::search::config::Puct;
use rand::RngExt;
use rand::rngs::SmallRng;

/// KataGo's exploration constant (utility in −1.4..1.4).
const CPUCT: f64 = 1.0;
/// KataGo's growth of exploration with visits: `+ 0.45·ln((W + 500) / 500)`.
const CPUCT_LOG: f64 = 0.45;
const CPUCT_BASE: f64 = 500.0;
/// Keeps `√W` above 0 before any child is visited (KataGo's
/// `TOTALCHILDWEIGHT_PUCT_OFFSET`).
const CHILD_WEIGHT_OFFSET: f64 = 0.01;
/// The spread of utilities exploration is scaled to
/// (`cpuctUtilityStdevPrior`), and the visits that prior is worth
/// (`cpuctUtilityStdevPriorWeight`).
const UTILITY_STDEV_PRIOR: f64 = 0.40;
const UTILITY_STDEV_PRIOR_WEIGHT: f64 = 2.0;
/// First-play urgency: an unvisited child starts at its parent's value less
/// this times the root of the prior already visited (KataGo: 0.2, 0.1 at the root).
const FPU_REDUCTION: f64 = 0.2;
const ROOT_FPU_REDUCTION: f64 = 0.1;
/// The parent's mean counts `(visited policy)^2` in the urgency
/// (`fpuParentWeightByVisitedPolicyPow`), its network value the rest.
const FPU_VISITED_POLICY_POW: f64 = 2.0;

/// What the children of one node are weighed against: the exploration
/// term's scale and the value of an unvisited child, for the player to
/// move at the node.
pub(super) struct Exploration {
    pub(super) scale: f64,
    pub(super) fpu: f64,
}

impl Exploration {
    /// For the children of node `at` of `tree`, counting the threads on
    /// their way as visits.
    pub(super) fn at(tree: &Tree, at: usize, is_root: bool, puct: &Puct) -> Exploration {
        let made = tree.children(at).filter_map(|e| tree.child(e));
        Exploration::of(&tree.nodes[at], made, is_root, puct)
    }

    /// For the children of `node`: `children` those made (in their
    /// moves' order; one never made was never seen).
    pub(super) fn of<'a>(
        node: &Node,
        children: impl Iterator<Item = &'a Node>,
        is_root: bool,
        puct: &Puct,
    ) -> Exploration {
        let (mut weight, mut visited_prior) = (0.0, 0.0);
        for c in children {
            let seen = c.visits + c.virtual_loss;
            if seen > 0 {
                weight += f64::from(seen);
                visited_prior += f64::from(c.prior);
            }
        }
        // The node's sums are from the side of the player who moved into
        // it, the opponent of the player to move there.
        let visits = f64::from(node.visits);
        let (mean, mean_sq) = if node.visits > 0 {
            (-node.utility / visits, node.utility_sq / visits)
        } else {
            (0.0, 0.0)
        };
        let stdev_factor = if puct.utility_stdev_scale > 0.0 {
            let stdev = if visits <= 1.0 {
                UTILITY_STDEV_PRIOR
            } else {
                let mean_sq = mean_sq.max(mean * mean);
                let prior = (mean * mean + UTILITY_STDEV_PRIOR * UTILITY_STDEV_PRIOR)
                    * UTILITY_STDEV_PRIOR_WEIGHT;
                ((prior + mean_sq * visits) / (UTILITY_STDEV_PRIOR_WEIGHT + visits - 1.0)
                    - mean * mean)
                    .max(0.0)
                    .sqrt()
            };
            1.0 + puct.utility_stdev_scale * (stdev / UTILITY_STDEV_PRIOR - 1.0)
        } else {
            1.0
        };
        let cpuct = CPUCT + CPUCT_LOG * ((weight + CPUCT_BASE) / CPUCT_BASE).ln();
        let scale = cpuct * (weight + CHILD_WEIGHT_OFFSET).sqrt() * stdev_factor;
        let parent = if puct.fpu_by_visited_policy && node.expanded {
            let share = visited_prior.powf(FPU_VISITED_POLICY_POW).min(1.0);
            share * mean + (1.0 - share) * -f64::from(node.nn_utility)
        } else {
            mean
        };
        let reduction = if is_root {
            ROOT_FPU_REDUCTION
        } else {
            FPU_REDUCTION
        };
        Exploration {
            scale,
            fpu: parent - reduction * visited_prior.sqrt(),
        }
    }

    /// The selection value of a child with this prior, value (for the
    /// player choosing) and weight.
    pub(super) fn value(&self, prior: f64, q: f64, weight: f64) -> f64 {
        q + self.scale * prior / (1.0 + weight)
    }

    /// The selection value of an unvisited child of this prior and value:
    /// [`Exploration::value`] at weight 0, the division by 1 (exact) left
    /// out, as most of a node's moves are unvisited.
    pub(super) fn unvisited_value(&self, prior: f64, q: f64) -> f64 {
        q + self.scale * prior
    }

    /// The weight at which a child of this prior and value would have the
    /// selection value `target` (0 if none would; unbounded if every
    /// weight would stay above it): how many visits PUCT wanted it to have.
    pub(super) fn weight_for(&self, target: f64, prior: f64, q: f64) -> f64 {
        let explore = target - q;
        if explore <= 0.0 {
            return f64::INFINITY;
        }
        (self.scale * prior / explore - 1.0).max(0.0)
    }
}

/// The edge of node `at` with the highest PUCT value among those `permits`
/// lets through, if any; with `noise`, each child's prior and value widened
/// by [`widen`]. A move whose node is not made yet is unvisited.
pub(super) fn select(
    tree: &Tree,
    at: usize,
    is_root: bool,
    puct: &Puct,
    permits: impl Fn(Option<Point>) -> bool,
    mut noise: Option<&mut SmallRng>,
) -> Option<usize> {
    let how = Exploration::at(tree, at, is_root, puct);
    tree.children(at)
        .filter_map(|e| {
            let (edge, child) = (&tree.edges[e], tree.child(e));
            let open = !child.is_some_and(|n| n.refused) && permits(edge.mv);
            open.then_some((e, edge.prior, child))
        })
        .map(|(e, prior, child)| {
            // A virtual loss is a visit worth −1 to the mover.
            let (seen, q) = match child {
                Some(n) if n.visits + n.virtual_loss > 0 => {
                    let seen = n.visits + n.virtual_loss;
                    let q = (n.utility - f64::from(n.virtual_loss)) / f64::from(seen);
                    (seen, q)
                }
                _ => (0, how.fpu),
            };
            let (prior, q) = match noise.as_mut() {
                Some(rng) => widen(f64::from(prior), q, puct.wide_root_noise, rng),
                None => (f64::from(prior), q),
            };
            let value = match seen {
                0 => how.unvisited_value(prior, q),
                seen => how.value(prior, q, f64::from(seen)),
            };
            (e, value)
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(e, _)| e)
}

/// KataGo's wide root noise for one root child: its prior flattened to the
/// power `1 / (4·wide + 1)` and, one time in two, its value raised by
/// `wide·|z|`, z drawn from the standard normal distribution.
fn widen(prior: f64, q: f64, wide: f64, rng: &mut SmallRng) -> (f64, f64) {
    let prior = prior.powf(1.0 / (4.0 * wide + 1.0));
    if rng.random::<bool>() {
        // Box and Muller's normal deviate from two uniform ones.
        let u: f64 = 1.0 - rng.random::<f64>();
        let z = (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * rng.random::<f64>()).cos();
        (prior, q + wide * z.abs())
    } else {
        (prior, q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn widening_flattens_the_prior_and_raises_values_half_the_time() {
        let mut rng = SmallRng::seed_from_u64(1);
        let draws: Vec<(f64, f64)> = (0..1000)
            .map(|_| widen(0.01, 0.2, 0.25, &mut rng))
            .collect();
        // 0.01 to the power 1/2.
        assert!(draws.iter().all(|&(p, _)| (p - 0.1).abs() < 1e-12));
        let raised: Vec<f64> = draws
            .iter()
            .map(|&(_, q)| q - 0.2)
            .filter(|&d| d > 0.0)
            .collect();
        assert!((430..570).contains(&raised.len()), "{}", raised.len());
        // |z| has mean √(2/π) ≈ 0.80: times 0.25, about 0.2.
        let mean = raised.iter().sum::<f64>() / raised.len() as f64;
        assert!((mean - 0.2).abs() < 0.03, "{mean}");
        assert!(draws.iter().all(|&(_, q)| q >= 0.2));
    }

    /// A parent with `visits` visits of utilities alternating ±`swing`
    /// about 0, its two children visited (priors 0.5, 0.3).
    fn parent(visits: u32, swing: f64) -> Vec<Node> {
        let mut nodes = vec![Node::new(None, 1.0)];
        nodes[0].visits = visits;
        nodes[0].utility_sq = swing * swing * f64::from(visits);
        nodes[0].expanded = true;
        nodes[0].first = 1;
        nodes[0].count = 3;
        nodes[0].nn_utility = -0.3;
        for (prior, v) in [(0.5, visits / 2), (0.3, visits - 1 - visits / 2), (0.2, 0)] {
            let mut child = Node::new(None, prior);
            child.visits = v;
            nodes.push(child);
        }
        nodes
    }

    /// The exploration of a root-and-children arena's root.
    fn at(nodes: &[Node], is_root: bool, puct: &Puct) -> Exploration {
        Exploration::of(&nodes[0], nodes[1..].iter(), is_root, puct)
    }

    #[test]
    fn exploration_widens_with_the_spread_of_utilities() {
        let puct = Puct::default();
        let calm = at(&parent(100, 0.1), false, &puct);
        let wild = at(&parent(100, 0.8), false, &puct);
        assert!(
            wild.scale > 1.5 * calm.scale,
            "{} {}",
            wild.scale,
            calm.scale
        );
        let fixed = Puct {
            utility_stdev_scale: 0.0,
            ..puct
        };
        let plain = at(&parent(100, 0.8), false, &fixed);
        // c·√W with W = 99 children's visits.
        let c = CPUCT + CPUCT_LOG * ((99.0 + CPUCT_BASE) / CPUCT_BASE).ln();
        assert!((plain.scale - c * 99.01f64.sqrt()).abs() < 1e-9);
    }

    #[test]
    fn first_play_urgency_leans_on_the_network_until_the_policy_is_visited() {
        // 80% of the policy visited: the mean (0) counts 0.64, the
        // network's value (+0.3 for the player to move) 0.36.
        let nodes = parent(100, 0.1);
        let by_policy = at(&nodes, false, &Puct::default());
        let expected = 0.36 * 0.3 - FPU_REDUCTION * 0.8f64.sqrt();
        assert!((by_policy.fpu - expected).abs() < 1e-6, "{}", by_policy.fpu);
        let by_mean = Puct {
            fpu_by_visited_policy: false,
            ..Puct::default()
        };
        let plain = at(&nodes, false, &by_mean);
        assert!((plain.fpu + FPU_REDUCTION * 0.8f64.sqrt()).abs() < 1e-6);
    }

    #[test]
    fn an_unvisited_childs_value_is_its_value_at_weight_zero_to_the_bit() {
        let how = at(&parent(50, 0.3), false, &Puct::default());
        let mut rng = SmallRng::seed_from_u64(3);
        for _ in 0..10_000 {
            let prior = rng.random::<f64>().powi(3);
            let q = rng.random::<f64>() * 2.0 - 1.0;
            assert_eq!(
                how.unvisited_value(prior, q).to_bits(),
                how.value(prior, q, 0.0).to_bits()
            );
        }
    }

    #[test]
    fn the_weight_wanted_inverts_the_selection_value() {
        let how = at(&parent(50, 0.3), true, &Puct::default());
        let target = how.value(0.2, 0.1, 7.0);
        assert!((how.weight_for(target, 0.2, 0.1) - 7.0).abs() < 1e-9);
        assert_eq!(how.weight_for(0.05, 0.2, 0.1), f64::INFINITY);
    }
}
