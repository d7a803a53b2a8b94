//! The analysis engine's answers as KataGo's docs/Analysis_Engine.md
//! writes them: `moveInfos` (each searched move's visits, win rate, score,
//! utility, prior, line, and where asked its ownership), `rootInfo`, the
//! position's `ownership` and raw `policy`, all from the side that
//! `reportAnalysisWinratesAs` names; errors and warnings with the field.

use super::query::{Asked, QueryError, Warning};
use crate::go::board::{Board, Color};
use crate::go::vertex::vertex_name;
use crate::nn::Evaluation;
use crate::search::{Candidate, Report};
use serde_json::{Map, Value, json};

/// What the network says of the position itself, before any search.
pub struct Raw<'a> {
    pub eval: &'a Evaluation,
    /// The human-like net's evaluation beside it, if one was asked for.
    pub human: Option<&'a Evaluation>,
    pub board: &'a Board,
}

/// A win rate (0..1) seen from the side `sign` points to: itself at +1,
/// its complement at −1.
fn rate_toward(sign: f64, rate: f64) -> f64 {
    if sign > 0.0 { rate } else { 1.0 - rate }
}

/// An error line.
pub fn error(e: &QueryError) -> Value {
    let mut out = json!({ "error": e.message });
    if let Some(field) = e.field {
        out["field"] = json!(field);
    }
    if let Some(id) = &e.id {
        out["id"] = json!(id);
    }
    out
}

/// A warning line.
pub fn warning(id: &str, w: &Warning) -> Value {
    json!({ "warning": w.message, "field": w.field, "id": id })
}

/// The answer for a position terminated before any search.
pub fn no_results(id: &str, turn: usize) -> Value {
    json!({ "id": id, "isDuringSearch": false, "noResults": true, "turnNumber": turn })
}

/// The analysis of one position at one moment of its search.
pub fn analysis(asked: &Asked, turn: usize, report: &Report, raw: &Raw, during: bool) -> Value {
    let to_move = report.to_move;
    // Values are the side to move's in the report; `flip` turns them to
    // the perspective asked for, `own` turns Black's ownership to it.
    let flip = asked.perspective.sign_for_black(to_move)
        * if to_move == Color::Black { 1.0 } else { -1.0 };
    let own = asked.perspective.sign_for_black(to_move);
    let rate = |w: f64| rate_toward(flip, w);
    let size = raw.board.size();
    let board_values = |values: &[f64], sign: f64| -> Value {
        raw.board
            .points_from_top()
            .map(|p| round(sign * values[p as usize]))
            .collect()
    };
    let infos: Vec<Value> = report
        .candidates
        .iter()
        .enumerate()
        .filter(|(_, m)| m.visits > 0)
        .map(|(order, m)| {
            let mut info = Map::new();
            info.insert("move".into(), json!(vertex_name(m.mv, size)));
            info.insert("order".into(), json!(order));
            info.insert("visits".into(), json!(m.visits));
            info.insert("edgeVisits".into(), json!(m.visits));
            info.insert("weight".into(), json!(m.visits as f64));
            info.insert("winrate".into(), json!(rate(m.win_rate)));
            info.insert("lcb".into(), json!(rate(m.win_rate) - (m.win_rate - m.lcb)));
            info.insert("prior".into(), json!(m.prior));
            insert_scores(&mut info, m, flip);
            if asked.no_result
                && let Some(nr) = m.no_result
            {
                info.insert("noResultValue".into(), json!(nr));
            }
            let pv: Vec<_> =
                m.pv.iter()
                    .take(asked.pv_len + 1)
                    .map(|&p| vertex_name(p, size))
                    .collect();
            if asked.pv_visits {
                let visits = &m.pv_visits[..pv.len().min(m.pv_visits.len())];
                info.insert("pvVisits".into(), json!(visits));
                info.insert("pvEdgeVisits".into(), json!(visits));
            }
            info.insert("pv".into(), json!(pv));
            if let Some((mean, spread)) = &m.ownership {
                if asked.moves_ownership {
                    info.insert("ownership".into(), board_values(mean, own));
                }
                if asked.moves_ownership_stdev {
                    info.insert("ownershipStdev".into(), board_values(spread, 1.0));
                }
            }
            Value::Object(info)
        })
        .collect();
    let mut out = json!({
        "id": asked.id,
        "isDuringSearch": during,
        "turnNumber": turn,
        "moveInfos": infos,
        "rootInfo": root_info(report, raw, flip),
    });
    if let Some((mean, spread)) = &report.ownership {
        if asked.ownership {
            out["ownership"] = board_values(mean, own);
        }
        if asked.ownership_stdev {
            out["ownershipStdev"] = board_values(spread, 1.0);
        }
    }
    if asked.policy {
        out["policy"] = policy_values(raw.eval);
        if let Some(human) = raw.human {
            out["humanPolicy"] = policy_values(human);
        }
    }
    out
}

/// An evaluation's policy as KataGo lists it: row by row from the top,
/// then the pass (illegal points −1).
fn policy_values(eval: &Evaluation) -> Value {
    let mut policy: Vec<Value> = eval.policy.iter().map(|&p| round(f64::from(p))).collect();
    policy.push(round(f64::from(eval.pass)));
    Value::Array(policy)
}

/// A move's scores and utility, turned by `flip`.
fn insert_scores(info: &mut Map<String, Value>, m: &Candidate, flip: f64) {
    if let Some(lead) = m.score_lead {
        info.insert("scoreLead".into(), json!(flip * lead));
        info.insert("scoreMean".into(), json!(flip * lead));
    }
    if let Some(score) = m.score_selfplay {
        info.insert("scoreSelfplay".into(), json!(flip * score));
    }
    if let Some(sd) = m.score_stdev {
        info.insert("scoreStdev".into(), json!(sd));
    }
    if let Some(u) = m.utility {
        info.insert("utility".into(), json!(flip * u));
    }
}

/// The root's figures: means over all its visits, and the raw network's.
fn root_info(report: &Report, raw: &Raw, flip: f64) -> Value {
    let mean = |f: &dyn Fn(&Candidate) -> Option<f64>| report.mean_over_visits(f);
    // The network's own view, White's in the evaluation.
    let white = if report.to_move == Color::White {
        1.0
    } else {
        -1.0
    };
    let raw_side_rate = rate_toward(
        white,
        f64::from((raw.eval.white_win - raw.eval.white_loss) * 0.5 + 0.5),
    );
    let score_mean = f64::from(raw.eval.white_score_mean);
    let score_sd = (f64::from(raw.eval.white_score_mean_sq) - score_mean * score_mean)
        .max(0.0)
        .sqrt();
    let mut info = json!({
        "currentPlayer": report.to_move.letter().to_string(),
        "visits": report.playouts,
        "thisHash": format!("{:016X}{}", raw.board.hash(), report.to_move.letter()),
        "rawWinrate": rate_toward(flip, raw_side_rate),
        "rawLead": flip * white * f64::from(raw.eval.white_lead),
        "rawScoreSelfplay": flip * white * score_mean,
        "rawScoreSelfplayStdev": score_sd,
        "rawNoResultProb": f64::from(raw.eval.no_result),
    });
    let winrate = mean(&|m| (m.visits > 0).then_some(m.win_rate)).unwrap_or(raw_side_rate);
    info["winrate"] = json!(rate_toward(flip, winrate));
    if let Some(lead) = mean(&|m| m.score_lead) {
        info["scoreLead"] = json!(flip * lead);
    }
    if let Some(score) = mean(&|m| m.score_selfplay) {
        info["scoreSelfplay"] = json!(flip * score);
    }
    if let Some(u) = mean(&|m| m.utility) {
        info["utility"] = json!(flip * u);
    }
    info
}

/// Six decimals, as KataGo's arrays are written (and so that -0 is 0).
fn round(v: f64) -> Value {
    let r = (v * 1e6).round() / 1e6;
    json!(if r == 0.0 { 0.0 } else { r })
}
