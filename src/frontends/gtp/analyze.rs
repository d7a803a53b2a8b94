//! Live analysis in the formats Sabaki, Lizzie and their kin read: Leela
//! Zero's `lz-analyze`, KataGo's `kata-analyze`, and `analyze` (the one
//! Sabaki prefers: Leela Zero's lines with KataGo's `scoreLead`), with
//! their `*genmove_analyze` forms. This module opens the stream and writes
//! the `info` lines; the search runs beside the protocol (the `background`
//! module) for `*-analyze`, in line for `*genmove_analyze` (a normal,
//! synchronous command that streams). Win rates, scores and ownership are
//! the side to move's.

pub use super::request::{Format, Request, parse_request};

use super::error::GtpError;
use super::reply::Answer;
use crate::engine::Engine;
use crate::go::board::{Board, Color};
use crate::go::vertex::vertex_name;
use crate::search::{Budget, Report};
use std::fmt::Write as _;
use std::io::Write;

/// `lz-analyze`, `kata-analyze`, `analyze` and their `*genmove_analyze`
/// forms: the reply is a stream the dispatcher opens for the request.
pub(super) fn analyze(
    e: &mut Engine,
    args: &[&str],
    format: Format,
    genmove: bool,
) -> Result<Answer, GtpError> {
    let mut request = parse_request(e, args, format, genmove)?;
    // Under dice the analysis assumes the roll the next move will get: the
    // pending one, drawn now if none is (as genmove would).
    request.roll = e.game_to_analyse(request.color).1;
    Ok(Answer::Stream(request))
}

/// `*genmove_analyze`: searches as `genmove` does, writing a line of
/// analysis to `out` every interval (and at the end), plays the move and
/// writes `play VERTEX` (or `play pass`, `play resign`).
pub fn genmove(e: &mut Engine, request: &Request, out: &mut dyn Write) {
    let board = e.shown().board().clone();
    let mut write = |r: &Report| {
        let _ = write_info(r, request, &board, out);
    };
    let decision = e.genmove(request.color, false, Some(request.watch(&mut write)));
    let answer = match decision {
        Ok(crate::search::Decision::Play(p)) => vertex_name(Some(p), board.size()),
        Ok(crate::search::Decision::Pass) => "pass".into(),
        Ok(crate::search::Decision::Resign) | Err(_) => "resign".into(),
    };
    let _ = writeln!(out, "play {answer}");
    let _ = out.flush();
}

/// `*-analyze` run to its end in line: a search of the move's budget (the
/// engine's `--playouts`, `--time` or clock) with a line every interval and
/// one at the end. The tree is kept for the next `genmove`.
pub fn analyze_in_line(e: &mut Engine, request: &Request, out: &mut dyn Write) {
    let (game, _) = e.game_to_analyse(request.color);
    let mut write = |r: &Report| {
        let _ = write_info(r, request, game.board(), out);
    };
    e.analyse(&game, request.watch(&mut write));
}

/// Writes `report`'s line of analysis, if it has one, to `out`, flushed.
pub fn write_info(
    report: &Report,
    request: &Request,
    board: &Board,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    match info_line(report, request, board) {
        Some(line) => {
            writeln!(out, "{line}")?;
            out.flush()
        }
        None => Ok(()),
    }
}

/// An analysis with no end of its own: the budget of `analyze` beside the
/// protocol, stopped by the next input.
pub const UNBOUNDED: Budget = Budget {
    playouts: None,
    time: None,
};

/// How far above the best move's win rate (as a fraction) and score lead
/// (in points) another move's may stand and still be listed.
const LISTED_ABOVE_BEST: (f64, f64) = (0.005, 0.5);

/// The moves a line lists: the best (most visited) and each other move
/// whose win rate and score lead are not above the best's by more than
/// [`LISTED_ABOVE_BEST`]. A move with fewer visits than the best that
/// stands higher is one the search has not confirmed (had it held, the
/// visits would have followed it), and clients read the line's highest
/// values as the position's: Sabaki's graph takes the maximum win rate and
/// score lead over the listed moves. Measured on 240 updates of a 19x19
/// game, about one move in eighteen is left out.
fn listed(report: &Report) -> impl Iterator<Item = &crate::search::Candidate> {
    let best = report.candidates.first().filter(|b| b.visits > 0);
    report
        .candidates
        .iter()
        .enumerate()
        .filter_map(move |(i, m)| {
            let Some(best) = best.filter(|_| i > 0) else {
                return Some(m);
            };
            let (rate_room, score_room) = LISTED_ABOVE_BEST;
            let rate_ok = m.win_rate <= best.win_rate + rate_room;
            let score_ok = match (m.score_lead, best.score_lead) {
                (Some(s), Some(b)) => s <= b + score_room,
                _ => true,
            };
            (rate_ok && score_ok).then_some(m)
        })
}

/// Writes each point's value, rows from the top, each from the left, as
/// KataGo does; `signed` values (+1 Black's) turned to the side to move's.
fn ownership_rows(values: &[f64], signed: bool, to_move: Color, board: &Board, out: &mut String) {
    let sign = if signed && to_move == Color::White {
        -1.0
    } else {
        1.0
    };
    for p in board.points_from_top() {
        let v = sign * values[p as usize];
        let _ = write!(out, " {:.6}", if v == 0.0 { 0.0 } else { v });
    }
}

/// Writes an ownership and its spread under their keys, each where wanted.
fn write_ownership(
    ownership: &Option<(Vec<f64>, Vec<f64>)>,
    (mean_key, spread_key): (&str, &str),
    (mean_wanted, spread_wanted): (bool, bool),
    to_move: Color,
    board: &Board,
    line: &mut String,
) {
    let Some((mean, spread)) = ownership else {
        return;
    };
    for (wanted, key, values, signed) in [
        (mean_wanted, mean_key, mean, true),
        (spread_wanted, spread_key, spread, false),
    ] {
        if wanted {
            line.push(' ');
            line.push_str(key);
            ownership_rows(values, signed, to_move, board, line);
        }
    }
}

/// One line of analysis: an `info` segment per move, best first, then the
/// ownership if asked for; `None` when there is nothing to show (no move
/// searched yet, or `maxmoves 0`): a blank line would end the reply.
pub fn info_line(report: &Report, request: &Request, board: &Board) -> Option<String> {
    let mut line = String::new();
    let integers = request.format != Format::Kata;
    let permyriad = |x: f64| (x * 10000.0).round().clamp(0.0, 10000.0) as i64;
    for (order, m) in listed(report).take(request.max_moves).enumerate() {
        if !line.is_empty() {
            line.push(' ');
        }
        let mv = vertex_name(m.mv, board.size());
        if integers {
            let _ = write!(
                line,
                "info move {mv} visits {} winrate {} prior {} lcb {} order {order}",
                m.visits,
                permyriad(m.win_rate),
                permyriad(m.prior),
                permyriad(m.lcb)
            );
            if let (Format::Analyze, Some(lead)) = (request.format, m.score_lead) {
                let _ = write!(line, " scoreLead {lead:.3}");
            }
        } else {
            let _ = write!(
                line,
                "info move {mv} visits {} edgeVisits {} weight {}",
                m.visits, m.visits, m.visits
            );
            if let Some(u) = m.utility {
                let _ = write!(line, " utility {u:.6}");
            }
            let _ = write!(
                line,
                " winrate {:.6} prior {:.6} lcb {:.6} order {order}",
                m.win_rate, m.prior, m.lcb
            );
            if let Some(lead) = m.score_lead {
                let _ = write!(line, " scoreLead {lead:.3} scoreMean {lead:.3}");
            }
            if let Some(sd) = m.score_stdev {
                let _ = write!(line, " scoreStdev {sd:.3}");
            }
            if let Some(score) = m.score_selfplay {
                let _ = write!(line, " scoreSelfplay {score:.3}");
            }
            if let (true, Some(nr)) = (request.no_result, m.no_result) {
                let _ = write!(line, " noResultValue {nr:.6}");
            }
        }
        if let Some(roll) = request.roll {
            let _ = write!(line, " roll {roll}");
        }
        line.push_str(" pv");
        for &p in &m.pv {
            line.push(' ');
            line.push_str(&vertex_name(p, board.size()));
        }
        for (wanted, key) in [
            (request.pv_visits, "pvVisits"),
            (request.pv_edge_visits, "pvEdgeVisits"),
        ] {
            if wanted {
                line.push(' ');
                line.push_str(key);
                for v in &m.pv_visits {
                    let _ = write!(line, " {v}");
                }
            }
        }
        let keys = ("movesOwnership", "movesOwnershipStdev");
        let wanted = (request.moves_ownership, request.moves_ownership_stdev);
        write_ownership(&m.ownership, keys, wanted, report.to_move, board, &mut line);
    }
    if request.root_info && !line.is_empty() {
        let win_rate = report.mean_over_visits(|m| Some(m.win_rate)).unwrap_or(0.5);
        let _ = write!(
            line,
            " rootInfo visits {} winrate {win_rate:.6}",
            report.playouts
        );
        if let Some(lead) = report.score_lead() {
            let _ = write!(line, " scoreLead {lead:.3}");
        }
        if let Some(score) = report.mean_over_visits(|m| m.score_selfplay) {
            let _ = write!(line, " scoreSelfplay {score:.3}");
        }
        if let Some(utility) = report.mean_over_visits(|m| m.utility) {
            let _ = write!(line, " utility {utility:.6}");
        }
        let _ = write!(line, " currentPlayer {}", report.to_move.letter());
    }
    let wanted = (request.ownership, request.ownership_stdev);
    let keys = ("ownership", "ownershipStdev");
    write_ownership(
        &report.ownership,
        keys,
        wanted,
        report.to_move,
        board,
        &mut line,
    );
    // Clients read `info` segments: ownership alone is not a line.
    line.starts_with("info").then_some(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::rules::Rules;
    use std::time::Duration;

    fn engine() -> Engine {
        Engine::new(crate::engine::Config::default(), Rules::default(), 9, None)
    }

    #[test]
    fn arguments_are_read_as_katago_reads_them() {
        let e = engine();
        let r = parse_request(&e, &["W", "50"], Format::Kata, false).unwrap();
        assert_eq!(r.color, Color::White);
        assert_eq!(r.every, Some(Duration::from_millis(500)));
        let r = parse_request(
            &e,
            &[
                "interval",
                "20",
                "minmoves",
                "3",
                "maxmoves",
                "5",
                "ownership",
                "true",
                "avoid",
                "b",
                "e5,d4,pass",
                "2",
                "allow",
                "w",
                "c3",
                "1",
            ],
            Format::Kata,
            false,
        )
        .unwrap();
        assert_eq!(r.color, Color::Black);
        assert_eq!(r.every, Some(Duration::from_millis(200)));
        assert_eq!((r.min_moves, r.max_moves, r.ownership), (3, 5, true));
        let rules = r.restrict.unwrap();
        assert_eq!(rules.avoid.len(), 1);
        // A pass listed is a pass kept out, as in KataGo.
        assert_eq!(rules.avoid[0].1.len(), 3);
        assert!(rules.avoid[0].1.contains(&None));
        assert_eq!(rules.allow.unwrap().2, 1);
        let r = parse_request(&e, &["b", "0"], Format::Lz, false).unwrap();
        assert_eq!(r.every, None);
    }

    #[test]
    fn lines_are_written_in_each_dialect() {
        let board = Board::new(9);
        let d4 = Some(board.point(3, 3));
        let report = Report {
            to_move: Color::White,
            playouts: 100,
            candidates: vec![crate::search::Candidate {
                mv: d4,
                visits: 80,
                win_rate: 0.61234,
                lcb: 0.5,
                prior: 0.25,
                score_lead: Some(2.5),
                score_stdev: Some(9.0),
                score_selfplay: None,
                utility: None,
                no_result: None,
                pv: vec![d4, None],
                pv_visits: vec![80, 41],
                ownership: None,
            }],
            ownership: None,
        };
        let e = engine();
        let line = |format| {
            let request = parse_request(&e, &[], format, false).unwrap();
            info_line(&report, &request, &board).unwrap()
        };
        assert_eq!(
            line(Format::Lz),
            "info move D4 visits 80 winrate 6123 prior 2500 lcb 5000 order 0 pv D4 pass"
        );
        assert_eq!(
            line(Format::Analyze),
            "info move D4 visits 80 winrate 6123 prior 2500 lcb 5000 order 0 scoreLead 2.500 pv D4 pass"
        );
        assert_eq!(
            line(Format::Kata),
            "info move D4 visits 80 edgeVisits 80 weight 80 winrate 0.612340 prior 0.250000 lcb 0.500000 order 0 scoreLead 2.500 scoreMean 2.500 scoreStdev 9.000 pv D4 pass"
        );
        // KataGo's further keys: the visits along the line, the root's
        // figures; each move's ownership where the search counted it.
        let args = [
            "pvVisits",
            "true",
            "pvEdgeVisits",
            "true",
            "rootInfo",
            "true",
            "movesOwnership",
            "false",
        ];
        let request = parse_request(&e, &args, Format::Kata, false).unwrap();
        assert_eq!(
            info_line(&report, &request, &board).unwrap(),
            "info move D4 visits 80 edgeVisits 80 weight 80 winrate 0.612340 prior 0.250000 lcb 0.500000 order 0 scoreLead 2.500 scoreMean 2.500 scoreStdev 9.000 pv D4 pass pvVisits 80 41 pvEdgeVisits 80 41 rootInfo visits 100 winrate 0.612340 scoreLead 2.500 currentPlayer W"
        );
        let mut owned = report.clone();
        let mut black = vec![0.0; crate::go::board::MAX_POINTS];
        black[board.point(3, 3) as usize] = 1.0;
        owned.candidates[0].ownership = Some((black, vec![0.0; crate::go::board::MAX_POINTS]));
        let request = parse_request(&e, &["movesOwnership", "true"], Format::Kata, false).unwrap();
        let line = info_line(&owned, &request, &board).unwrap();
        let values: Vec<&str> = line
            .split(" movesOwnership ")
            .nth(1)
            .unwrap()
            .split(' ')
            .collect();
        assert_eq!(values.len(), 81);
        // White to move: Black's point is −1 from White's side, D4 the
        // sixth row from the top, fourth point.
        assert_eq!(values[5 * 9 + 3], "-1.000000");
        assert!(parse_request(&e, &["movesOwnership", "maybe"], Format::Kata, false).is_err());
    }

    #[test]
    fn moves_standing_above_the_best_are_not_listed() {
        let board = Board::new(9);
        let candidate =
            |x: usize, visits: u64, win_rate: f64, lead: f64| crate::search::Candidate {
                mv: Some(board.point(x, 0)),
                visits,
                win_rate,
                lcb: 0.0,
                prior: 0.1,
                score_lead: Some(lead),
                score_stdev: None,
                score_selfplay: None,
                utility: None,
                no_result: None,
                pv: vec![Some(board.point(x, 0))],
                pv_visits: vec![visits],
                ownership: None,
            };
        let report = Report {
            to_move: Color::Black,
            playouts: 200,
            candidates: vec![
                candidate(0, 120, 0.50, 1.0),
                candidate(1, 40, 0.53, 1.2), // win rate 3 points above: out
                candidate(2, 20, 0.49, 1.8), // score 0.8 above: out
                candidate(3, 15, 0.504, 1.4), // within half a point: in
                candidate(4, 5, 0.40, -2.0),
            ],
            ownership: None,
        };
        let e = engine();
        let request = parse_request(&e, &[], Format::Analyze, false).unwrap();
        let line = info_line(&report, &request, &board).unwrap();
        let moves: Vec<&str> = line
            .split("info move ")
            .skip(1)
            .map(|s| s.split(' ').next().unwrap())
            .collect();
        assert_eq!(moves, ["A1", "D1", "E1"]);
        assert!(line.contains("info move D1 visits 15 winrate 5040 prior 1000 lcb 0 order 1"));
    }

    #[test]
    fn bad_arguments_are_syntax_errors() {
        let e = engine();
        for args in [
            &["b", "x"][..],
            &["interval"],
            &["interval", "-5"],
            &["minmoves", "many"],
            &["ownership", "true"], // lz has no ownership
            &["avoid", "b", "z99", "1"],
            &["avoid", "b", "d4"],
            &["allow", "b", "d4", "1", "allow", "w", "c3", "1"],
        ] {
            let err = parse_request(&e, args, Format::Lz, false).unwrap_err();
            assert!(err.0.starts_with("syntax error"), "{args:?}: {err}");
        }
        assert!(parse_request(&e, &["50"], Format::Kata, true).is_err());
    }
}
