//! The dispatcher: one command line in, one response out. It splits the
//! line, finds the command in the table, asks the engine's role once
//! whether it permits what the command touches, runs the handler (a panic
//! becomes an `internal error` reply) and formats what it answered.

use super::analyze;
use super::commands::COMMANDS;
use super::error::GtpError;
use super::input::MAX_LINE;
use super::parse::{self, preprocess};
use super::reply::{Answer, format_response};
use crate::engine::Engine;

/// What the dispatcher makes of a command line.
pub enum Response {
    /// A whole reply, `=id text` or `?id message` and its blank line.
    Reply(String),
    /// A reply after a move the engine played: pondering may follow it.
    Moved(String),
    /// The reply to `quit`; nothing follows it.
    Quit(String),
    /// The start of a reply (`=id `, then a line break) that the analysis of
    /// `request` goes on writing; a blank line ends it.
    Stream {
        head: String,
        request: analyze::Request,
    },
}

/// Handles one raw input line; `None` when the line holds no command. An
/// analysis command runs here to its end, within the move's budget (under
/// `serve` it runs beside the protocol until the next input).
pub fn execute(engine: &mut Engine, raw: &[u8]) -> Option<String> {
    execute_ending(engine, raw).map(|(text, _)| text)
}

/// [`execute`], also telling whether the command ended the session
/// (`quit`).
pub fn execute_ending(engine: &mut Engine, raw: &[u8]) -> Option<(String, bool)> {
    Some(match dispatch(engine, raw)? {
        Response::Reply(r) | Response::Moved(r) => (r, false),
        Response::Quit(r) => (r, true),
        Response::Stream { head, request } => {
            let mut out = head.into_bytes();
            if request.genmove {
                analyze::genmove(engine, &request, &mut out);
            } else {
                analyze::analyze_in_line(engine, &request, &mut out);
            }
            out.push(b'\n');
            (String::from_utf8_lossy(&out).into_owned(), false)
        }
    })
}

/// Runs one raw input line's command; `None` when it holds no command. The
/// command table says what the command touches, and the engine's role is
/// asked once whether it permits that.
pub fn dispatch(engine: &mut Engine, raw: &[u8]) -> Option<Response> {
    let line = preprocess(raw);
    if line.is_empty() {
        return None;
    }
    let (id, answer) = match parse::command_line(&line) {
        Err(e) => (e.id, Err(GtpError::syntax(e.reason))),
        Ok(cmd) => {
            let answer = match COMMANDS.iter().find(|c| c.name == cmd.name) {
                None => Err(GtpError::new("unknown command", cmd.name)),
                Some(c) => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    engine
                        .permits(c.touch)
                        .map_err(|refusal| GtpError(refusal.to_string()))?;
                    if c.touch.reads_position() {
                        engine.catch_up();
                    }
                    (c.run)(engine, &cmd.args)
                }))
                .unwrap_or_else(|_| Err(GtpError("internal error".into()))),
            };
            (cmd.id.map(str::to_string), answer)
        }
    };
    Some(match answer {
        Ok(Answer::Text(text)) => Response::Reply(format_response(id, Ok(text))),
        Ok(Answer::Moved(text)) => Response::Moved(format_response(id, Ok(text))),
        Ok(Answer::Quit) => Response::Quit(format_response(id, Ok(String::new()))),
        // `=id`, a space and the line break: GoGui takes the reply's text
        // from after its first space.
        Ok(Answer::Stream(request)) => Response::Stream {
            head: format!("={} \n", id.unwrap_or_default()),
            request,
        },
        Err(e) => Response::Reply(format_response(id, Err(e))),
    })
}

/// Answers a line that was too long to read, echoing its id if it started
/// with one.
pub fn too_long(id: Option<String>) -> String {
    format_response(
        id,
        Err(GtpError::syntax(format!(
            "line longer than {MAX_LINE} bytes"
        ))),
    )
}
