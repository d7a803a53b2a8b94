//! What a command answers: its text or a typed [`Answer`] (a move played,
//! a stream, the end of the session), and how an answer or an error is
//! written as a GTP response (`=id text` or `?id message`, ended by a
//! blank line).

use super::error::GtpError;
use super::request::Request;

/// A handler's text reply, or its error.
pub type Reply = Result<String, GtpError>;

/// What a command's handler answers.
pub enum Answer {
    /// The reply's text.
    Text(String),
    /// The reply's text, after the engine played a move (pondering may
    /// follow).
    Moved(String),
    /// An analysis to stream: the reply opens and the analysis of the
    /// request goes on writing it.
    Stream(Request),
    /// The reply to `quit`: the session ends after it.
    Quit,
}

impl From<String> for Answer {
    fn from(text: String) -> Answer {
        Answer::Text(text)
    }
}

/// The response to a command: `=id text` or `?id message`, the text kept
/// free of empty lines, and the blank line that ends it.
pub fn format_response(id: Option<String>, reply: Reply) -> String {
    let (mark, text) = match reply {
        Ok(t) => ('=', t),
        Err(e) => ('?', e.0),
    };
    // A response ends at the first empty line: keep the text free of them
    // (a leading newline, as in `showboard`, stays).
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let mut body = String::new();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            if line.trim().is_empty() {
                continue;
            }
            body.push('\n');
        }
        body.push_str(line);
    }
    match id {
        Some(id) => format!("{mark}{id} {body}\n\n"),
        None => format!("{mark} {body}\n\n"),
    }
}
