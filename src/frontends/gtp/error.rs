//! A failed command: the message after the `?`, a standard GTP error
//! first and a short reason after it, and how the engine's typed errors
//! become one.

use crate::engine::{EngineError, Refusal};
use std::fmt;

/// A failed command: the message after `?`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GtpError(pub String);

impl fmt::Display for GtpError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl GtpError {
    /// A standard GTP error message with a short reason after a colon.
    pub fn new(standard: &str, reason: impl fmt::Display) -> GtpError {
        let reason = reason.to_string();
        if reason.is_empty() {
            GtpError(standard.to_string())
        } else {
            GtpError(format!("{standard}: {reason}"))
        }
    }
    pub fn syntax(reason: impl fmt::Display) -> GtpError {
        GtpError::new("syntax error", reason)
    }
}

/// The engine's error as a GTP error (its text is the message).
pub fn engine_error(e: EngineError) -> GtpError {
    GtpError(e.to_string())
}

/// The role's refusal as a GTP error.
pub fn refusal(r: Refusal) -> GtpError {
    GtpError(r.to_string())
}
