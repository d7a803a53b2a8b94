//! GoGui's view of the search: live graphics while thinking (`gogui-gfx:`
//! blocks on stderr, as Pachi and Fuego write them: the candidates' visits
//! as labels, the expected line, a status text) and analyze commands that
//! search the position and show the candidates with their visits
//! (`pspairs`), the principal variation (`var`) and the evaluation
//! (`string`).

use super::args::{arity, color};
use super::error::GtpError;
use super::reply::Reply;
use crate::engine::Engine;
use crate::go::board::{BoardSize, Color};
use crate::go::vertex::{color_name, vertex_name};
use crate::search::{Report, Watch};
use std::fmt::Write as _;
use std::io::Write;
use std::time::Duration;

/// How often the live graphics are redrawn.
const LIVE_EVERY: Duration = Duration::from_millis(500);

/// Candidates labelled on the board.
const SHOWN: usize = 12;

/// A watch that draws GoGui's live graphics of a search on a board of
/// `size` with `draw`.
pub fn live_watch<'w>(draw: &'w mut dyn FnMut(&Report)) -> Watch<'w> {
    Watch {
        every: Some(LIVE_EVERY),
        at_end: false,
        ownership: false,
        moves_ownership: false,
        min_moves: 0,
        restrict: None,
        on_report: draw,
    }
}

/// Writes one `gogui-gfx:` block for `report` on stderr.
pub fn draw_live(report: &Report, size: BoardSize) {
    let _ = std::io::stderr().write_all(gfx(report, size).as_bytes());
}

/// The gfx block of a report: labels, the best line, a status text, and
/// the blank line that ends it.
fn gfx(report: &Report, size: BoardSize) -> String {
    let mut out = String::from("gogui-gfx:\n");
    let labels = visit_labels(report, size);
    if !labels.is_empty() {
        let _ = writeln!(out, "LABEL {labels}");
    }
    if let Some(best) = report.candidates.first() {
        let _ = writeln!(out, "VAR {}", variation(report.to_move, &best.pv, size));
        let _ = writeln!(out, "TEXT {}", evaluation(report, size));
    }
    out.push('\n');
    out
}

/// `D4 836 Q16 500 ...`: the most visited moves searched, with their visits.
fn visit_labels(report: &Report, size: BoardSize) -> String {
    report
        .candidates
        .iter()
        .filter(|m| m.mv.is_some() && m.visits > 0)
        .take(SHOWN)
        .map(|m| format!("{} {}", vertex_name(m.mv, size), m.visits))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `b D4 w Q16 ...`: a line of moves with their colours, `first` moving first.
fn variation(first: Color, pv: &[Option<crate::go::board::Point>], size: BoardSize) -> String {
    let mut c = first;
    let mut moves = Vec::new();
    for &p in pv {
        moves.push(format!(
            "{} {}",
            c.letter().to_ascii_lowercase(),
            vertex_name(p, size)
        ));
        c = c.opponent();
    }
    moves.join(" ")
}

/// One line: the best move, its win rate and the score estimate.
fn evaluation(report: &Report, size: BoardSize) -> String {
    let Some(best) = report.candidates.first() else {
        return format!("{} to move: no move searched", color_name(report.to_move));
    };
    let mut text = format!(
        "{} to move: best {}, win rate {:.1}% ({} of {} visits)",
        color_name(report.to_move),
        vertex_name(best.mv, size),
        100.0 * best.win_rate,
        best.visits,
        report.playouts
    );
    if let Some(lead) = report.score_lead() {
        let (leader, by) = if lead >= 0.0 {
            (report.to_move, lead)
        } else {
            (report.to_move.opponent(), -lead)
        };
        let _ = write!(text, ", {} ahead by {by:.1}", color_name(leader));
    }
    text
}

/// Searches for `c` within the move's budget (rolling first under dice, as
/// `genmove` would) and reports; the tree is kept for the next `genmove`.
fn searched(e: &mut Engine, a: &[&str]) -> Result<(Report, BoardSize), GtpError> {
    arity(a, 1)?;
    let c = color(a[0])?;
    let (game, _) = e.game_to_analyse(c);
    let mut last = None;
    let mut keep = |r: &Report| last = Some(r.clone());
    e.analyse(
        &game,
        Watch {
            every: None,
            at_end: true,
            ..live_watch(&mut keep)
        },
    );
    let report = last.expect("a report at the end");
    Ok((report, game.size()))
}

/// `kosumi-candidates COLOR` (pspairs): the moves searched, most visited
/// first, each with its visits.
pub(super) fn candidates(e: &mut Engine, a: &[&str]) -> Reply {
    let (report, size) = searched(e, a)?;
    Ok(visit_labels(&report, size))
}

/// `kosumi-pv COLOR` (var): the expected line.
pub(super) fn principal_variation(e: &mut Engine, a: &[&str]) -> Reply {
    let (report, size) = searched(e, a)?;
    Ok(report
        .candidates
        .first()
        .map(|best| variation(report.to_move, &best.pv, size))
        .unwrap_or_default())
}

/// `kosumi-evaluation COLOR` (string): best move, win rate, score estimate.
pub(super) fn evaluation_text(e: &mut Engine, a: &[&str]) -> Reply {
    let (report, size) = searched(e, a)?;
    Ok(evaluation(&report, size))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Candidate;

    #[test]
    fn a_gfx_block_labels_candidates_and_ends_with_a_blank_line() {
        let report = Report {
            to_move: Color::White,
            playouts: 300,
            candidates: vec![Candidate {
                mv: Some(crate::go::board::Board::new(9).point(2, 2)),
                visits: 250,
                win_rate: 0.625,
                lcb: 0.6,
                prior: 0.1,
                score_lead: Some(-3.5),
                score_stdev: Some(10.0),
                score_selfplay: None,
                utility: None,
                no_result: None,
                pv: vec![Some(crate::go::board::Board::new(9).point(2, 2)), None],
                pv_visits: vec![250, 120],
                ownership: None,
            }],
            ownership: None,
        };
        let text = gfx(&report, 9.into());
        assert_eq!(
            text,
            "gogui-gfx:\nLABEL C3 250\nVAR w C3 b pass\nTEXT white to move: best C3, win rate 62.5% (250 of 300 visits), black ahead by 3.5\n\n"
        );
    }
}
