//! The network's GTP command, `kata-raw-nn [COLOR] SYMMETRY|all [OPTIMISM]`,
//! as KataGo has it: the raw evaluation of the current position for one of
//! the eight symmetries or all of them, in KataGo's text. With `all` the
//! blocks follow one another without the blank line KataGo puts between
//! them (a blank line would end the GTP reply). OPTIMISM blends in the
//! optimistic policy of version 12 nets and later (KataGo's default for
//! this command, its root's `rootPolicyOptimism`: 0.2).
//! `kata-raw-human-nn [COLOR] SYMMETRY|all` is the same for the human-like
//! net beside the network (`--human-model`) under `humanSLProfile`.

use super::error::GtpError;
use super::parse::{leading_color, parse_float};
use super::reply::Reply;
use crate::engine::Engine;
use crate::nn::{self, Request};

/// KataGo's `rootPolicyOptimism` where its configuration sets none.
const ROOT_POLICY_OPTIMISM: f32 = 0.2;

pub(super) fn kata_raw_nn(e: &mut Engine, args: &[&str]) -> Reply {
    let Some(net) = e.config.network.clone() else {
        return Err(GtpError(
            "no network loaded (kosumi runs with --nn off)".into(),
        ));
    };
    raw(e, &net, args, true)
}

pub(super) fn kata_raw_human_nn(e: &mut Engine, args: &[&str]) -> Reply {
    let Some(net) = e.config.human_network.clone() else {
        return Err(GtpError(
            "cannot run kata-raw-human-nn: no human-like net beside the network (--human-model)"
                .into(),
        ));
    };
    if net.is_human() && net.profile().is_none() {
        return Err(GtpError(
            "cannot run kata-raw-human-nn: humanSLProfile is not set (kata-set-param humanSLProfile rank_5k)"
                .into(),
        ));
    }
    raw(e, &net, args, false)
}

/// The raw evaluation by `net`: the network's, with its optimism argument
/// (`with_optimism`), or the human-like net's in KataGo's form for it.
fn raw(e: &Engine, net: &nn::Evaluator, args: &[&str], with_optimism: bool) -> Reply {
    let (to_move, mut rest) = leading_color(args).unwrap_or((e.shown().to_move(), args));
    let usage = if with_optimism {
        "expected an optional color, a symmetry 'all' or index [0-7], and an optional optimism [0-1]"
    } else {
        "expected an optional color followed by a symmetry 'all' or index [0-7]"
    };
    let symmetries: Vec<usize> = match rest.first().map(|s| s.to_ascii_lowercase()) {
        Some(s) if s == "all" => (0..nn::SYMMETRIES).collect(),
        Some(s) => match s.parse::<usize>() {
            Ok(n) if n < nn::SYMMETRIES => vec![n],
            _ => return Err(GtpError::syntax(format!("symmetry '{s}': {usage}"))),
        },
        None => return Err(GtpError::syntax(usage.to_string())),
    };
    rest = &rest[1..];
    let mut optimism = ROOT_POLICY_OPTIMISM;
    if let Some(opt) = rest.first().filter(|_| with_optimism) {
        match parse_float(opt) {
            Ok(x) if (0.0..=1.0).contains(&x) => {
                optimism = x as f32;
                rest = &rest[1..];
            }
            _ => return Err(GtpError::syntax(format!("optimism '{opt}': {usage}"))),
        }
    }
    if let Some(extra) = rest.first() {
        return Err(GtpError::syntax(format!("unexpected argument '{extra}'")));
    }
    let fresh = to_move != e.shown().to_move();
    let mut text = String::new();
    for symmetry in symmetries {
        let eval = net.evaluate_with_optimism(
            Request {
                game: e.shown(),
                to_move,
                fresh,
                symmetry,
                white_advantage: 0.0,
            },
            optimism,
        );
        // A net that overflows gives NaN or infinity: an error, never
        // numbers that are none.
        if eval.failed {
            return Err(GtpError(format!(
                "the network {} gave no finite evaluation of this position (symmetry {symmetry}: NaN or infinity)",
                net.name()
            )));
        }
        text += &if with_optimism {
            eval.raw_nn_text(symmetry)
        } else {
            eval.raw_human_nn_text(symmetry)
        };
    }
    Ok(text.trim_end().to_string())
}
