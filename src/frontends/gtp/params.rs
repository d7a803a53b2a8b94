//! KataGo's parameter store, as GTP reaches it: the budget and threads
//! (`maxVisits`, `maxPlayouts`, `maxTime`, `numSearchThreads`), the network
//! search's refinements by KataGo's names (`PUCT_SETTINGS`), the playing
//! level (`playingLevel`, and `kosumi-level`) and a human-like net's profile
//! (`humanSLProfile`); `kata-get-param`, `kata-set-param`, `kata-get-params`
//! and `kata-set-params` read and set them, a refusal leaving every one as
//! it was.

use super::error::GtpError;
use super::parse::parse_float;
use super::reply::Reply;
use crate::engine::{Config, Engine};
use crate::nn::HumanProfile;
use crate::search::level::Rank;
use crate::search::{PUCT_SETTINGS, Puct, PuctSetting};

/// One of KataGo's search parameters kosumi has: how to read it from the
/// settings and how to set it (`None`: no fixed limit).
struct Param {
    name: &'static str,
    get: fn(&Config) -> Option<f64>,
    set: fn(&mut Config, Option<f64>) -> Result<(), String>,
}

/// The budget of a move and the search threads, as KataGo names them;
/// `maxVisits` and `maxPlayouts` are one setting here (kosumi counts one
/// visit a playout). Where visits and time are both set, the search stops
/// at whichever comes first, as KataGo obeys the combination.
const PARAMS: &[Param] = &[
    Param {
        name: "maxVisits",
        get: |c| c.search.playouts.map(|n| n as f64),
        set: set_visits,
    },
    Param {
        name: "maxPlayouts",
        get: |c| c.search.playouts.map(|n| n as f64),
        set: set_visits,
    },
    Param {
        name: "maxTime",
        get: |c| c.search.time,
        set: |c, v| {
            match v {
                Some(t) if !(t > 0.0 && t <= crate::engine::clock::LONGEST_MOVE) => {
                    return Err(format!(
                        "maxTime must be more than 0 and at most {} seconds",
                        crate::engine::clock::LONGEST_MOVE
                    ));
                }
                _ => c.search.time = v,
            }
            Ok(())
        },
    },
    Param {
        name: "numSearchThreads",
        get: |c| Some(c.search.threads as f64),
        set: |c, v| match v {
            Some(n) if n.fract() == 0.0 && (1.0..=256.0).contains(&n) => {
                c.search.threads = n as usize;
                Ok(())
            }
            _ => Err("numSearchThreads must be a whole number from 1 to 256".into()),
        },
    },
];

fn set_visits(c: &mut Config, v: Option<f64>) -> Result<(), String> {
    match v {
        Some(n) if !(n.fract() == 0.0 && (1.0..=1e15).contains(&n)) => {
            Err("visits must be a whole number, at least 1".into())
        }
        _ => {
            c.search.playouts = v.map(|n| n as u64);
            Ok(())
        }
    }
}

/// A parameter by KataGo's name: a budget or thread count (`PARAMS`), one
/// of the network search's refinements (`PUCT_SETTINGS`), or the playing
/// level (`LEVEL_PARAM`, kosumi's own, set as KataGo sets its parameters).
enum Named {
    Budget(&'static Param),
    Search(&'static PuctSetting),
    Level,
    Profile,
}

/// The playing level's parameter name.
const LEVEL_PARAM: &str = "playingLevel";

/// The human-like net's profile, by KataGo's name.
const PROFILE_PARAM: &str = "humanSLProfile";

/// The profile the nets are evaluated under (`""` for none).
fn profile_text(config: &Config) -> String {
    config
        .human_network
        .as_ref()
        .or(config.network.as_ref())
        .and_then(|n| n.profile())
        .map_or(String::new(), |p| p.name().to_string())
}

/// Sets the nets' profile: a human-like network needs one; the human-like
/// net beside it is unused without one (as KataGo's); another net keeps
/// it only to report it, as KataGo keeps the parameter.
fn set_profile(config: &mut Config, text: &str) -> Result<(), GtpError> {
    let Some(net) = &config.network else {
        return Err(GtpError::syntax(
            "a human profile needs a network (--nn off asks for none)",
        ));
    };
    let profile = match text {
        "" | "\"\"" | "_" if net.is_human() => {
            return Err(GtpError::syntax(
                "the human-like net needs a profile (rank_5k, preaz_1d, proyear_1990, ...)",
            ));
        }
        "" | "\"\"" | "_" => None,
        name => Some(HumanProfile::parse(name).map_err(GtpError::syntax)?),
    };
    for n in config.human_network.iter().chain([net]) {
        n.set_profile(profile.clone());
    }
    Ok(())
}

/// The playing level as text: a rank, or `max`.
fn level_text(config: &Config) -> String {
    config
        .search
        .chooser
        .level
        .map_or("max".to_string(), |r| r.name())
}

/// Sets the playing level from `text`; a rank needs the network (the
/// level plays from its policy).
fn set_level(config: &mut Config, text: &str) -> Result<(), GtpError> {
    let rank = Rank::parse(text).map_err(GtpError::syntax)?;
    match (&config.network, rank) {
        (None, Some(_)) => {
            return Err(GtpError::syntax(
                "a playing level plays from the network's policy, and no network is loaded (--nn off)",
            ));
        }
        // A human-like net beside the network draws the rank's moves
        // under the rank's profile; a human-like network plays through it.
        (Some(_), Some(rank)) if config.human_network.is_some() => {
            rank.human_profile().map_err(GtpError::syntax)?;
        }
        (Some(net), Some(rank)) if net.is_human() => {
            net.set_profile(Some(rank.human_profile().map_err(GtpError::syntax)?));
        }
        _ => {}
    }
    config.search.chooser.level = rank;
    Ok(())
}

/// `kosumi-level [RANK]`: the playing level, or sets it (30k to 9d, max).
pub(super) fn kosumi_level(e: &mut Engine, a: &[&str]) -> Reply {
    match a {
        [] => Ok(level_text(&e.config)),
        [rank] => {
            set_level(&mut e.config, rank)?;
            Ok(String::new())
        }
        _ => Err(GtpError::syntax("expected at most one rank")),
    }
}

/// Every parameter's name, the budget's first.
pub(super) fn param_names() -> Vec<&'static str> {
    PARAMS
        .iter()
        .map(|p| p.name)
        .chain(PUCT_SETTINGS.iter().map(|s| s.name))
        .chain([LEVEL_PARAM, PROFILE_PARAM])
        .collect()
}

fn param(name: &str) -> Result<Named, GtpError> {
    if let Some(p) = PARAMS.iter().find(|p| p.name == name) {
        return Ok(Named::Budget(p));
    }
    if name == LEVEL_PARAM {
        return Ok(Named::Level);
    }
    if name == PROFILE_PARAM {
        return Ok(Named::Profile);
    }
    Puct::setting(name).map(Named::Search).ok_or_else(|| {
        GtpError::syntax(format!(
            "unknown parameter '{name}' (kosumi has: {})",
            param_names().join(", ")
        ))
    })
}

impl Named {
    fn text(&self, config: &Config) -> String {
        match self {
            Named::Budget(p) => param_text((p.get)(config)),
            Named::Search(s) => (s.get)(&config.search.puct),
            Named::Level => level_text(config),
            Named::Profile => profile_text(config),
        }
    }

    fn json(&self, config: &Config) -> serde_json::Value {
        match self {
            Named::Budget(p) => match (p.get)(config) {
                None => serde_json::Value::Null,
                Some(v) if v.fract() == 0.0 => serde_json::json!(v as i64),
                Some(v) => serde_json::json!(v),
            },
            Named::Search(s) => serde_json::from_str(&(s.get)(&config.search.puct))
                .unwrap_or(serde_json::Value::Null),
            Named::Level => serde_json::Value::String(level_text(config)),
            Named::Profile => serde_json::Value::String(profile_text(config)),
        }
    }

    /// Sets it from text: a number or `none` for a budget, KataGo's text
    /// for a refinement.
    fn set(&self, config: &mut Config, value: &str) -> Result<(), GtpError> {
        match self {
            Named::Budget(p) => {
                let value = match value {
                    "none" | "null" => None,
                    v => Some(parse_float(v).map_err(GtpError::syntax)?),
                };
                (p.set)(config, value).map_err(GtpError::syntax)
            }
            Named::Search(s) => (s.set)(&mut config.search.puct, value)
                .map_err(|e| GtpError::syntax(format!("{}: {e}", s.name))),
            Named::Level => set_level(config, value),
            Named::Profile => set_profile(config, value),
        }
    }
}

/// A parameter's value as text: its number, or `none` (no fixed limit).
fn param_text(value: Option<f64>) -> String {
    value.map_or("none".into(), |v| v.to_string())
}

pub(super) fn kata_get_param(e: &mut Engine, a: &[&str]) -> Reply {
    let [name] = a else {
        return Err(GtpError::syntax("expected one parameter name"));
    };
    Ok(param(name)?.text(&e.config))
}

/// `kata-set-param NAME VALUE`: a number, or `none` to lift the limit; a
/// refinement's `true`, `false` or number.
pub(super) fn kata_set_param(e: &mut Engine, a: &[&str]) -> Reply {
    let [name, value] = a else {
        return Err(GtpError::syntax("expected a parameter name and a value"));
    };
    param(name)?.set(&mut e.config, value)?;
    Ok(String::new())
}

pub(super) fn params_json(e: &Engine) -> serde_json::Value {
    let entries = PARAMS
        .iter()
        .map(|p| (p.name, Named::Budget(p)))
        .chain(PUCT_SETTINGS.iter().map(|s| (s.name, Named::Search(s))))
        .chain([(LEVEL_PARAM, Named::Level), (PROFILE_PARAM, Named::Profile)])
        .map(|(name, p)| (name.to_string(), p.json(&e.config)));
    serde_json::Value::Object(entries.collect())
}

/// `kata-set-params {JSON}`: every parameter checked before any is set.
pub(super) fn kata_set_params(e: &mut Engine, a: &[&str]) -> Reply {
    let text = a.join(" ");
    let serde_json::Value::Object(entries) = serde_json::from_str(&text)
        .map_err(|err| GtpError::syntax(format!("parameters JSON does not read: {err}")))?
    else {
        return Err(GtpError::syntax("expected a JSON object of parameters"));
    };
    let mut trial = e.config.clone();
    // The network's profile is the network's own: put back on a refusal.
    let profile = e.config.network.as_ref().map(|n| n.profile());
    let restore = |config: &Config| {
        if let (Some(net), Some(p)) = (&config.network, &profile) {
            net.set_profile(p.clone());
        }
    };
    for (name, value) in &entries {
        let value = match value {
            serde_json::Value::Number(_) | serde_json::Value::Bool(_) | serde_json::Value::Null => {
                value.to_string()
            }
            serde_json::Value::String(text) if name == LEVEL_PARAM || name == PROFILE_PARAM => {
                text.clone()
            }
            _ => {
                restore(&e.config);
                return Err(GtpError::syntax(format!(
                    "{name}: a number or null, or true or false"
                )));
            }
        };
        if let Err(err) = param(name).and_then(|p| p.set(&mut trial, &value)) {
            restore(&e.config);
            return Err(err);
        }
    }
    e.config = trial;
    Ok(String::new())
}
