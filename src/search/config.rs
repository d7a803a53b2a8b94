//! How kosumi searches, as one value: KataGo's `SearchParams`. A
//! [`SearchConfig`] is built once from wherever the user says how to search
//! — the command line (and GTP's `kata-set-param` on it), the JSON engine's
//! defaults with a query's overrides, `review`'s options — and read by the
//! move chooser, both searches and the phantom player. It holds what is
//! common to every search (a fixed budget, threads, the seed), what only the
//! Monte Carlo search reads ([`MonteCarlo`]), what only PUCT reads
//! ([`Puct`]) and the chooser's policy around the search ([`ChooserPolicy`]).

use super::budget::{Budget, Planning};
use super::level::Rank;
use std::time::Duration;

/// Every setting of how to search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchConfig {
    /// Playouts (Monte Carlo) or visits (the network) a move, if fixed.
    pub playouts: Option<u64>,
    /// Seconds a move, if fixed.
    pub time: Option<f64>,
    /// Threads on one tree.
    pub threads: usize,
    /// The seed every search varies (the same seed, the same moves).
    pub seed: u64,
    /// Upper bound on a search tree's nodes (memory), either search's.
    pub max_nodes: usize,
    pub mc: MonteCarlo,
    pub puct: Puct,
    pub chooser: ChooserPolicy,
}

/// What the Monte Carlo search alone reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MonteCarlo {
    /// Whether the learned move patterns add to the priors.
    pub patterns: bool,
    /// Aléago: how the search plans for the rolls below the root.
    pub planning: Planning,
}

/// What the network's PUCT search alone reads: KataGo's refinements of
/// plain PUCT, each on by default as in KataGo's GTP engine, each with
/// KataGo's name in [`PUCT_SETTINGS`] so that it can be turned off to
/// measure what it brings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Puct {
    /// KataGo's `wideRootNoise`: how much wider than its values say the
    /// root is searched (0 in play; KataGo's analysis engine: 0.04).
    pub wide_root_noise: f64,
    /// `useLcbForSelection`: the move played is the one whose value's
    /// lower confidence bound is best among those with enough visits, not
    /// only the most visited.
    pub lcb: bool,
    /// `cpuctUtilityStdevScale`: exploration grows with the spread of the
    /// utilities seen below a node (0: a fixed exploration constant).
    pub utility_stdev_scale: f64,
    /// `fpuParentWeightByVisitedPolicy`: an unvisited child starts from
    /// the parent's network value where little of the policy has been
    /// visited, and from the parent's mean as more has.
    pub fpu_by_visited_policy: bool,
    /// `subtreeValueBiasFactor`: how much of the drift of subtrees after
    /// the same local move corrects a node's network value (0: none).
    pub subtree_bias: f64,
    /// `useNoisePruning`: in a node's value, a child that took far more
    /// visits than its policy share while worse than the children before
    /// it weighs less.
    pub noise_pruning: bool,
    /// `valueWeightExponent`: in a node's value, each child weighs its
    /// visits times, to this power, the chance its value is above the
    /// children's mean (0: its visits alone).
    pub value_weight_exponent: f64,
}

/// A setting of [`Puct`] by KataGo's name, read from text.
pub struct PuctSetting {
    pub name: &'static str,
    /// Its value as KataGo writes it (`true`, `0.85`).
    pub get: fn(&Puct) -> String,
    pub set: fn(&mut Puct, &str) -> Result<(), String>,
}

fn boolean(v: &str) -> Result<bool, String> {
    match v {
        "true" | "1" => Ok(true),
        "false" | "0" => Ok(false),
        _ => Err(format!("'{v}' is not true or false")),
    }
}

fn unit(v: &str) -> Result<f64, String> {
    match v.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!("'{v}' is not a number from 0 to 1")),
    }
}

/// The refinements of [`Puct`] a user may set, by KataGo's names.
pub const PUCT_SETTINGS: &[PuctSetting] = &[
    PuctSetting {
        name: "useLcbForSelection",
        get: |p| p.lcb.to_string(),
        set: |p, v| {
            p.lcb = boolean(v)?;
            Ok(())
        },
    },
    PuctSetting {
        name: "cpuctUtilityStdevScale",
        get: |p| p.utility_stdev_scale.to_string(),
        set: |p, v| {
            p.utility_stdev_scale = unit(v)?;
            Ok(())
        },
    },
    PuctSetting {
        name: "fpuParentWeightByVisitedPolicy",
        get: |p| p.fpu_by_visited_policy.to_string(),
        set: |p, v| {
            p.fpu_by_visited_policy = boolean(v)?;
            Ok(())
        },
    },
    PuctSetting {
        name: "subtreeValueBiasFactor",
        get: |p| p.subtree_bias.to_string(),
        set: |p, v| {
            p.subtree_bias = unit(v)?;
            Ok(())
        },
    },
    PuctSetting {
        name: "useNoisePruning",
        get: |p| p.noise_pruning.to_string(),
        set: |p, v| {
            p.noise_pruning = boolean(v)?;
            Ok(())
        },
    },
    PuctSetting {
        name: "valueWeightExponent",
        get: |p| p.value_weight_exponent.to_string(),
        set: |p, v| {
            p.value_weight_exponent = unit(v)?;
            Ok(())
        },
    },
    PuctSetting {
        name: "wideRootNoise",
        get: |p| p.wide_root_noise.to_string(),
        set: |p, v| match v.parse::<f64>() {
            Ok(x) if (0.0..=5.0).contains(&x) => {
                p.wide_root_noise = x;
                Ok(())
            }
            _ => Err(format!("'{v}' is not a number from 0 to 5")),
        },
    },
];

impl Puct {
    /// The setting KataGo calls `name`, if kosumi has it.
    pub fn setting(name: &str) -> Option<&'static PuctSetting> {
        PUCT_SETTINGS.iter().find(|s| s.name == name)
    }

    /// Sets `NAME=VALUE` (KataGo's name, as in [`PUCT_SETTINGS`]).
    pub fn set(&mut self, assignment: &str) -> Result<(), String> {
        let (name, value) = assignment
            .split_once('=')
            .ok_or_else(|| format!("'{assignment}' is not NAME=VALUE"))?;
        let setting = Puct::setting(name.trim()).ok_or_else(|| {
            format!(
                "unknown search setting '{}' (known: {})",
                name.trim(),
                PUCT_SETTINGS
                    .iter()
                    .map(|s| s.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })?;
        (setting.set)(self, value.trim()).map_err(|e| format!("{}: {e}", setting.name))
    }
}

/// The policy around the search: when to resign, how hard to look at
/// dead stones before passing, and the playing level.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChooserPolicy {
    /// Play as a person of this rank (from the network's policy, as
    /// KaTrain's rank AI), or at full strength (`None`).
    pub level: Option<Rank>,
    /// Resign below this win rate (0 never resigns).
    pub resign: f64,
    /// Playouts of the ownership estimate that judges dead stones where no
    /// network does.
    pub ownership_playouts: usize,
}

impl Default for SearchConfig {
    fn default() -> SearchConfig {
        SearchConfig {
            playouts: None,
            time: None,
            threads: 1,
            seed: 0,
            max_nodes: 4_000_000,
            mc: MonteCarlo::default(),
            puct: Puct::default(),
            chooser: ChooserPolicy::default(),
        }
    }
}

impl Default for MonteCarlo {
    fn default() -> MonteCarlo {
        MonteCarlo {
            patterns: true,
            planning: Planning::Chance,
        }
    }
}

impl Default for Puct {
    /// As in play: no root noise.
    fn default() -> Puct {
        Puct {
            wide_root_noise: 0.0,
            lcb: true,
            utility_stdev_scale: 0.85,
            fpu_by_visited_policy: true,
            subtree_bias: 0.45,
            noise_pruning: true,
            value_weight_exponent: 0.25,
        }
    }
}

impl Default for ChooserPolicy {
    fn default() -> ChooserPolicy {
        ChooserPolicy {
            level: None,
            resign: 0.1,
            ownership_playouts: 1000,
        }
    }
}

impl SearchConfig {
    /// The fixed budget (playouts, seconds or both), if either is set.
    pub fn fixed_budget(&self) -> Option<Budget> {
        (self.playouts.is_some() || self.time.is_some()).then(|| Budget {
            playouts: self.playouts,
            time: self.time.map(Duration::from_secs_f64),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_set_by_katago_names_and_bad_ones_refused() {
        let mut p = Puct::default();
        p.set("useLcbForSelection=false").unwrap();
        p.set("cpuctUtilityStdevScale = 0").unwrap();
        p.set("fpuParentWeightByVisitedPolicy=0").unwrap();
        assert!(!p.lcb && p.utility_stdev_scale == 0.0 && !p.fpu_by_visited_policy);
        let before = p;
        for bad in [
            "lcb=true",
            "useLcbForSelection=maybe",
            "cpuctUtilityStdevScale=2",
            "x",
        ] {
            assert!(p.set(bad).is_err(), "{bad}");
        }
        assert_eq!(p, before);
        let e = p.set("nope=1").unwrap_err();
        assert!(e.contains("unknown search setting 'nope'"), "{e}");
    }
}
