//! An analysis asked for: the arguments of `lz-analyze`, `kata-analyze`,
//! `analyze` and their `*genmove_analyze` forms, as KataGo takes them:
//! `[COLOR] [INTERVAL] KEY VALUE ...` with keys `interval` (centiseconds),
//! `minmoves`, `maxmoves`, `avoid COLOR VERTICES DEPTH`, `allow COLOR
//! VERTICES DEPTH` (vertices separated by commas), and for `kata-*`
//! `ownership`, `ownershipStdev`, `movesOwnership`, `movesOwnershipStdev`,
//! `noResultValue`, `pvVisits`, `pvEdgeVisits`, `rootInfo` (`true` or
//! `false`).

use super::error::GtpError;
use super::parse::{leading_color, parse_color, parse_int, parse_vertex};
use crate::engine::Engine;
use crate::go::board::Color;
use crate::search::{MoveRules, Report, Watch};
use std::time::Duration;

/// Which dialect the lines are written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Leela Zero: win rate, prior and lcb in hundredths of a percent.
    Lz,
    /// KataGo: floats in [0, 1], with score lead and ownership.
    Kata,
    /// `analyze`, the command Sabaki prefers: Leela Zero's integers, with
    /// KataGo's `scoreLead` (which Sabaki reads when present).
    Analyze,
}

/// One analysis asked for.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub format: Format,
    pub color: Color,
    /// Time between lines; `None` (interval 0) writes only when stopped.
    pub every: Option<Duration>,
    pub min_moves: usize,
    pub max_moves: usize,
    pub ownership: bool,
    pub ownership_stdev: bool,
    /// KataGo's `pvVisits`, `pvEdgeVisits` (the same in a tree) and
    /// `rootInfo`.
    pub pv_visits: bool,
    pub pv_edge_visits: bool,
    pub root_info: bool,
    /// KataGo's `movesOwnership`, `movesOwnershipStdev` (each root move's
    /// ownership, where the network's search counts it) and
    /// `noResultValue`.
    pub moves_ownership: bool,
    pub moves_ownership_stdev: bool,
    pub no_result: bool,
    pub restrict: Option<MoveRules>,
    /// `*genmove_analyze`: choose and play a move, ending with `play VERTEX`.
    pub genmove: bool,
    /// Under Aléago, the roll the analysis assumes for `color`.
    pub roll: Option<u32>,
}

/// Sabaki's interval when none is given: a line every second.
const DEFAULT_INTERVAL_CS: u64 = 100;

fn number(key: &str, value: Option<&&str>) -> Result<u64, GtpError> {
    let value = value.ok_or_else(|| GtpError::syntax(format!("{key} needs a value")))?;
    parse_int(value).map_err(|e| GtpError::syntax(format!("{key}: {e}")))
}

fn flag(key: &str, value: Option<&&str>) -> Result<bool, GtpError> {
    match value.map(|v| v.to_ascii_lowercase()).as_deref() {
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        _ => Err(GtpError::syntax(format!("{key} takes true or false"))),
    }
}

/// `COLOR VERTEX,VERTEX,... DEPTH` of `avoid` and `allow`.
fn move_rule(
    e: &Engine,
    key: &str,
    args: &[&str],
) -> Result<(Color, Vec<Option<crate::go::board::Point>>, usize), GtpError> {
    let [color, vertices, depth] = args else {
        return Err(GtpError::syntax(format!(
            "{key} takes a colour, vertices separated by commas and a depth"
        )));
    };
    let color = parse_color(color).map_err(|e| GtpError::syntax(format!("{key}: {e}")))?;
    let mut points = Vec::new();
    for v in vertices.split(',').filter(|v| !v.is_empty()) {
        match parse_vertex(v, e.shown().size()) {
            Ok(mv) => points.push(mv),
            Err(err) => return Err(GtpError::syntax(format!("{key}: {err}"))),
        }
    }
    let depth = number(key, Some(depth))? as usize;
    Ok((color, points, depth))
}

/// Reads the arguments of an analysis command.
pub fn parse_request(
    e: &Engine,
    args: &[&str],
    format: Format,
    genmove: bool,
) -> Result<Request, GtpError> {
    let (color, mut rest) = match leading_color(args) {
        Some(found) => found,
        None if genmove => return Err(GtpError::syntax("a colour first (b or w)")),
        None => (e.shown().to_move(), args),
    };
    let mut interval = DEFAULT_INTERVAL_CS;
    if let Some(first) = rest.first()
        && first.bytes().all(|b| b.is_ascii_digit())
    {
        interval = number("interval", Some(first))?;
        rest = &rest[1..];
    }
    let mut request = Request {
        format,
        color,
        every: None,
        min_moves: 0,
        max_moves: usize::MAX,
        ownership: false,
        ownership_stdev: false,
        pv_visits: false,
        pv_edge_visits: false,
        root_info: false,
        moves_ownership: false,
        moves_ownership_stdev: false,
        no_result: false,
        restrict: None,
        genmove,
        roll: None,
    };
    let mut i = 0;
    while i < rest.len() {
        let key = rest[i];
        let value = rest.get(i + 1);
        match key {
            "interval" => interval = number(key, value)?,
            "minmoves" => request.min_moves = number(key, value)?.min(1000) as usize,
            "maxmoves" => request.max_moves = number(key, value)? as usize,
            "ownership" if format == Format::Kata => request.ownership = flag(key, value)?,
            "ownershipStdev" if format == Format::Kata => {
                request.ownership_stdev = flag(key, value)?
            }
            "pvVisits" => request.pv_visits = flag(key, value)?,
            "pvEdgeVisits" => request.pv_edge_visits = flag(key, value)?,
            "rootInfo" => request.root_info = flag(key, value)?,
            "movesOwnership" if format == Format::Kata => {
                request.moves_ownership = flag(key, value)?
            }
            "movesOwnershipStdev" if format == Format::Kata => {
                request.moves_ownership_stdev = flag(key, value)?
            }
            "noResultValue" if format == Format::Kata => request.no_result = flag(key, value)?,
            "avoid" | "allow" => {
                let rule = move_rule(e, key, rest.get(i + 1..i + 4).unwrap_or(&[]))?;
                let rules = request.restrict.get_or_insert_with(MoveRules::default);
                if key == "avoid" {
                    rules.avoid.push(rule);
                } else if rules.allow.is_some() {
                    return Err(GtpError::syntax("only one allow"));
                } else {
                    rules.allow = Some(rule);
                }
                i += 4;
                continue;
            }
            _ => return Err(GtpError::syntax(format!("unknown key {key}"))),
        }
        i += 2;
    }
    request.every = (interval > 0).then(|| Duration::from_millis(interval.min(360_000) * 10));
    Ok(request)
}

impl Request {
    /// A watch that writes this request's lines with `write`.
    pub fn watch<'w>(&self, write: &'w mut dyn FnMut(&Report)) -> Watch<'w> {
        Watch {
            every: self.every,
            at_end: true,
            ownership: self.ownership || self.ownership_stdev,
            moves_ownership: self.moves_ownership || self.moves_ownership_stdev,
            min_moves: self.min_moves,
            restrict: self.restrict.clone(),
            on_report: write,
        }
    }
}
