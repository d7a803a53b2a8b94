//! What a caller asks of a running search, either search: a [`Watch`]
//! (reports while it runs, what to count for them) and the moves it keeps
//! out ([`MoveRules`], KataGo's and Leela Zero's `avoid` and `allow`).

use super::report::Report;
use crate::go::board::{Color, Point};
use std::time::Duration;

/// Moves kept out of the search: KataGo's and Leela Zero's `avoid COLOR
/// VERTICES DEPTH` (none of those moves by that colour in the first DEPTH
/// moves) and `allow COLOR VERTICES DEPTH` (only those). `None` in a list
/// is a pass: as in KataGo, an `allow` list without it keeps pass out too.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MoveRules {
    pub avoid: Vec<(Color, Vec<Option<Point>>, usize)>,
    pub allow: Option<(Color, Vec<Option<Point>>, usize)>,
}

impl MoveRules {
    /// Whether `c` may play `p` (`None`: pass) as the search's `depth`-th
    /// move (1: a root move).
    pub fn permits(&self, c: Color, p: Option<Point>, depth: usize) -> bool {
        let avoided = self
            .avoid
            .iter()
            .any(|(color, points, until)| *color == c && depth <= *until && points.contains(&p));
        let allowed = match &self.allow {
            Some((color, points, until)) if *color == c && depth <= *until => points.contains(&p),
            _ => true,
        };
        !avoided && allowed
    }
}

/// Someone watching a search (analysis, live graphics): what to count for
/// them, and what to do with a report every `every` while it runs.
pub struct Watch<'w> {
    /// Time between reports; `None` reports only at the end.
    pub every: Option<Duration>,
    /// Whether to report at the end too.
    pub at_end: bool,
    /// Count each point's final owner.
    pub ownership: bool,
    /// Count each point's owner under each root move too (the network's
    /// search only).
    pub moves_ownership: bool,
    /// Report at least this many root moves (unvisited ones by prior).
    pub min_moves: usize,
    /// Moves the search leaves alone; such a search starts from a fresh
    /// tree and does not keep it (a reused tree holds them).
    pub restrict: Option<MoveRules>,
    pub on_report: &'w mut dyn FnMut(&Report),
}

impl<'w> Watch<'w> {
    /// A watch that only keeps `restrict`'s moves out, or only asks for the
    /// final report (the network's search returns it): nothing counted,
    /// no report during the search, `on_report` never called.
    pub fn quiet(restrict: Option<MoveRules>, on_report: &'w mut dyn FnMut(&Report)) -> Watch<'w> {
        Watch {
            every: None,
            at_end: false,
            ownership: false,
            moves_ownership: false,
            min_moves: 0,
            restrict,
            on_report,
        }
    }
}
