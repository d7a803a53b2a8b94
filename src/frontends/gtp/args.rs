//! The handlers' argument readers: the count of arguments, a colour, a
//! vertex or point of the shown board, counts and seconds; each error a
//! GTP syntax error with a short reason.

use super::error::GtpError;
use super::parse::{parse_color, parse_float, parse_int, parse_vertex};
use crate::engine::Engine;
use crate::go::board::{Color, Point};

pub(super) fn arity(args: &[&str], n: usize) -> Result<(), GtpError> {
    if args.len() == n {
        Ok(())
    } else {
        Err(GtpError::syntax(format!(
            "expected {n} argument{}, got {}",
            if n == 1 { "" } else { "s" },
            args.len()
        )))
    }
}

pub(super) fn color(s: &str) -> Result<Color, GtpError> {
    parse_color(s).map_err(GtpError::syntax)
}

pub(super) fn vertex(e: &Engine, s: &str) -> Result<Option<Point>, GtpError> {
    parse_vertex(s, e.shown().size()).map_err(GtpError::syntax)
}

/// A vertex that must be a point, not `pass`.
pub(super) fn point(e: &Engine, s: &str) -> Result<Point, GtpError> {
    vertex(e, s)?.ok_or_else(|| GtpError::syntax("expected a point, not pass"))
}

/// A count or a board's side: a non-negative integer (one beyond `usize`
/// reads as the largest, which every bound refuses).
pub(super) fn natural(s: &str) -> Result<usize, GtpError> {
    parse_int(s)
        .map(|n| n.min(usize::MAX as u64) as usize)
        .map_err(GtpError::syntax)
}

pub(super) fn seconds(s: &str) -> Result<f64, GtpError> {
    let v = parse_float(s).map_err(GtpError::syntax)?;
    if v < 0.0 {
        return Err(GtpError::syntax(format!("negative time {s}")));
    }
    Ok(v)
}

pub(super) fn count(s: &str) -> Result<u32, GtpError> {
    let n = parse_int(s).map_err(GtpError::syntax)?;
    u32::try_from(n).map_err(|_| GtpError::syntax(format!("{s} is too large")))
}
