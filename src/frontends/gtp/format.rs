//! The handlers' writers: points as GTP vertices, a board as `showboard`
//! draws it, options one a line, a search's decision.

use crate::engine::Engine;
use crate::go::board::{Cell, Point};
use crate::go::vertex::vertex_name;
use crate::search::Decision;

pub(super) fn name(e: &Engine, p: Point) -> String {
    vertex_name(Some(p), e.shown().size())
}

/// Points as GTP vertices separated by spaces.
pub(super) fn names(e: &Engine, points: &[Point]) -> String {
    points
        .iter()
        .map(|&p| name(e, p))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A board's points as text: rows from the top, one a line, each row's
/// points separated by spaces (an ownership board, a hosted game's view).
pub(super) fn point_rows(
    board: &crate::go::board::Board,
    text: impl Fn(Point) -> String,
) -> String {
    let points: Vec<Point> = board.points_from_top().collect();
    points
        .chunks(board.size().width)
        .map(|row| row.iter().map(|&p| text(p)).collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A board in `showboard`'s layout: letters, rows from the top with their
/// numbers, `X` Black, `O` White, `*` a ko point, and the letters again.
pub(super) fn board_diagram(board: &crate::go::board::Board) -> String {
    let size = board.size();
    let letters: String = crate::go::vertex::COLUMNS
        .chars()
        .take(size.width)
        .flat_map(|c| [' ', c])
        .collect();
    let mut out = format!("\n   {}\n", letters.trim_start());
    let ko = board.ko().map(|(p, _)| p);
    for y in (0..size.height).rev() {
        out.push_str(&format!("{:>2}", y + 1));
        for x in 0..size.width {
            let p = board.point(x, y);
            let ch = match board.cell(p) {
                Cell::Black => 'X',
                Cell::White => 'O',
                _ if Some(p) == ko => '*',
                _ => '.',
            };
            out.push(' ');
            out.push(ch);
        }
        out.push_str(&format!(" {}\n", y + 1));
    }
    out.push_str(&format!("   {}\n", letters.trim_start()));
    out
}

/// Options as `name value`, one a line (`aleago-option`, `phantom-option`).
pub(super) fn option_lines(options: &[(&str, &str)]) -> String {
    options
        .iter()
        .map(|(n, v)| format!("{n} {v}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The decision as GTP names it.
pub(super) fn decision_name(e: &Engine, decision: Decision) -> String {
    match decision {
        Decision::Resign => "resign".to_string(),
        Decision::Pass => "pass".to_string(),
        Decision::Play(p) => name(e, p),
    }
}
