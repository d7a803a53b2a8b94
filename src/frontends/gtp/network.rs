//! The network's GTP command, `kata-raw-nn [COLOR] SYMMETRY|all [OPTIMISM]`,
//! as KataGo has it: the raw evaluation of the current position for one of
//! the eight symmetries or all of them, in KataGo's text. With `all` the
//! blocks follow one another without the blank line KataGo puts between
//! them (a blank line would end the GTP reply). OPTIMISM blends in the
//! optimistic policy of version 12 nets and later (KataGo's default for
//! this command, its root's `rootPolicyOptimism`: 0.2).

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
    let (to_move, mut rest) = leading_color(args).unwrap_or((e.shown().to_move(), args));
    let usage = "expected an optional color, a symmetry 'all' or index [0-7], and an optional optimism [0-1]";
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
    if let Some(opt) = rest.first() {
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
    let text: Vec<String> = symmetries
        .into_iter()
        .map(|symmetry| {
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
            eval.raw_nn_text(symmetry)
        })
        .collect();
    Ok(text.concat().trim_end().to_string())
}
