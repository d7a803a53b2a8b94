//! The GTP v2 protocol adapter over the [`engine`](crate::engine): it reads
//! command lines (8-bit, any junk), dispatches them through the one
//! command table in `commands`, each handler parsing its arguments, making
//! one engine call and formatting the answer, and writes `=id result` or
//! `?id message` responses.
//!
//! The parts: `parse` (lines and arguments), `commands` (the table), the
//! handlers by family (`analyze`, `gogui_analysis`, `dice`, `phantom`,
//! `network`), `params` (KataGo's parameter store), `format` (boards and vertices as text), `reply` (answers,
//! errors, responses), `dispatch` (a line to a response), `serve` (the
//! stdin/stdout session), `input` (the reader thread) and `background`
//! (searches beside the protocol).

pub mod analyze;
mod args;
mod background;
mod commands;
mod dice;
mod dispatch;
mod error;
mod format;
mod gogui_analysis;
mod input;
mod network;
mod params;
mod parse;
mod phantom;
mod reply;
mod request;
mod serve;

pub use commands::{COMMANDS, Command};
pub use dispatch::{Response, dispatch, execute, execute_ending, too_long};
pub use error::GtpError;
pub use input::MAX_LINE;
pub use parse::{
    MAX_KOMI, check_komi, holds_command, leading_id, parse_color, parse_float, parse_int,
    parse_vertex, preprocess, vertex_name,
};
pub use reply::{Answer, Reply};
pub use serve::serve;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Config, Engine};
    use crate::go::rules::Rules;

    fn engine() -> Engine {
        Engine::new(Config::default(), Rules::default(), 9, None)
    }

    fn run(e: &mut Engine, line: &str) -> String {
        execute(e, line.as_bytes()).unwrap_or_default()
    }

    #[test]
    fn ids_are_echoed_and_errors_marked() {
        let mut e = engine();
        assert_eq!(run(&mut e, "7 name"), "=7 kosumi\n\n");
        assert_eq!(
            run(&mut e, "frobnicate"),
            "? unknown command: frobnicate\n\n"
        );
        assert_eq!(run(&mut e, "3 boardsize 0"), "?3 unacceptable size: 0\n\n");
        assert!(execute(&mut e, b"   # nothing").is_none());
    }

    #[test]
    fn multi_line_replies_have_no_empty_line() {
        let mut e = engine();
        let r = run(&mut e, "showboard");
        assert!(r.starts_with("= "));
        assert!(!r.trim_end().contains("\n\n"));
    }
}
