//! A GTP client: an engine program run as a child process and spoken to over
//! its stdin and stdout. A thread of its own reads the engine's output lines
//! (only the newline taken off: a stray carriage return stays for the caller
//! to see), so that a reply can be waited for with a deadline, the whole
//! reply within it; a line longer than [`MAX_LINE`] or a reply longer than
//! [`MAX_RESPONSE`] ends the reading (the engine floods), and the lines
//! not yet taken are bounded ([`QUEUED_LINES`]: an engine that writes
//! faster than it is read waits on its pipe). The
//! program runs in a process group of its own, ended whole when the client
//! is dropped (a shell wrapper's children too). The phantom match runner
//! drives its seats with it, and the tests drive kosumi.

use crate::core::os::{self as process, ChildTree};
use std::fmt;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// The longest output line read (longer: the engine floods, and its
/// output is read no further).
pub const MAX_LINE: usize = 1 << 20;

/// The longest response read, its lines together.
pub const MAX_RESPONSE: usize = 8 << 20;

/// Lines read ahead of the caller at most.
const QUEUED_LINES: usize = 64;

/// Why a client got no reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientError {
    /// The program could not be started.
    Start(String),
    /// Its stdin is closed: the engine is gone.
    Gone(String),
    /// Nothing came within the deadline.
    NoAnswer,
    /// Its stdout closed before the reply ended.
    Closed,
    /// A reply that starts with neither `=` nor `?`.
    Garbage(String),
    /// An output line longer than [`MAX_LINE`], or a response longer
    /// than [`MAX_RESPONSE`].
    Flood,
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            ClientError::Start(why) => write!(f, "cannot start: {why}"),
            ClientError::Gone(why) => write!(f, "the engine is gone ({why})"),
            ClientError::NoAnswer => f.write_str("no answer"),
            ClientError::Closed => f.write_str("the engine closed its output"),
            ClientError::Garbage(line) => {
                let shown: String = line.chars().take(60).collect();
                write!(f, "garbage reply {shown:?}")
            }
            ClientError::Flood => write!(
                f,
                "an output line longer than {MAX_LINE} bytes or a response longer than {MAX_RESPONSE}"
            ),
        }
    }
}

impl std::error::Error for ClientError {}

/// One GTP response: success (`=`) or failure (`?`), and its text (the
/// marker, the id and one space after them taken off; lines joined by
/// `\n`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    pub ok: bool,
    pub text: String,
}

/// An engine program and the lines it writes.
pub struct Client {
    child: Child,
    tree: ChildTree,
    stdin: Option<ChildStdin>,
    lines: Receiver<Result<String, ClientError>>,
}

impl Client {
    /// Starts `command` with piped stdin and stdout (its stderr is dropped).
    pub fn spawn(mut command: Command) -> Result<Client, ClientError> {
        process::prepare(&mut command);
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| ClientError::Start(e.to_string()))?;
        let mut tree = ChildTree::adopt(&child);
        let stdin = child.stdin.take();
        let mut out = BufReader::new(child.stdout.take().expect("stdout is piped"));
        let (tx, lines) = mpsc::sync_channel(QUEUED_LINES);
        let reader = std::thread::Builder::new().spawn(move || {
            loop {
                let mut bytes = Vec::new();
                match (&mut out)
                    .take(MAX_LINE as u64 + 1)
                    .read_until(b'\n', &mut bytes)
                {
                    Ok(n) if n > 0 => {}
                    _ => break,
                }
                if bytes.len() > MAX_LINE {
                    let _ = tx.send(Err(ClientError::Flood));
                    break;
                }
                let line = String::from_utf8_lossy(&bytes);
                let line = line.strip_suffix('\n').unwrap_or(&line).to_string();
                if tx.send(Ok(line)).is_err() {
                    break;
                }
            }
        });
        if let Err(err) = reader {
            tree.kill(&mut child);
            return Err(ClientError::Start(format!("no thread to read it: {err}")));
        }
        Ok(Client {
            child,
            tree,
            stdin,
            lines,
        })
    }

    /// Starts a command line through the shell.
    pub fn shell(command_line: &str) -> Result<Client, ClientError> {
        Client::spawn(process::shell(command_line))
    }

    /// Sends raw bytes (one or more lines).
    pub fn send_raw(&mut self, bytes: &[u8]) -> Result<(), ClientError> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| ClientError::Gone("stdin closed".into()))?;
        stdin
            .write_all(bytes)
            .and_then(|_| stdin.flush())
            .map_err(|e| ClientError::Gone(e.to_string()))
    }

    /// The next line written (a blank one included), within `within`.
    pub fn next_line(&self, within: Duration) -> Result<String, ClientError> {
        self.lines.recv_timeout(within).map_err(|e| match e {
            RecvTimeoutError::Timeout => ClientError::NoAnswer,
            RecvTimeoutError::Disconnected => ClientError::Closed,
        })?
    }

    /// The lines of the next response, blank lines before it skipped, the
    /// blank line after it left out (a line holding only a carriage return
    /// counts as blank); the whole response within `within`, and at most
    /// [`MAX_RESPONSE`] bytes.
    pub fn response_lines(&self, within: Duration) -> Result<Vec<String>, ClientError> {
        let deadline = Instant::now() + within;
        let mut lines = Vec::new();
        let mut bytes = 0;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.next_line(left)?;
            bytes += line.len() + 1;
            if bytes > MAX_RESPONSE {
                return Err(ClientError::Flood);
            }
            if line.trim_end_matches('\r').is_empty() {
                if lines.is_empty() {
                    continue;
                }
                return Ok(lines);
            }
            lines.push(line);
        }
    }

    /// Reads the next response.
    pub fn read_reply(&self, within: Duration) -> Result<Reply, ClientError> {
        let mut lines = self.response_lines(within)?;
        let first = &lines[0];
        let ok = first.starts_with('=');
        if !ok && !first.starts_with('?') {
            return Err(ClientError::Garbage(first.clone()));
        }
        let rest = first[1..].trim_start_matches(|c: char| c.is_ascii_digit());
        lines[0] = rest.strip_prefix(' ').unwrap_or(rest).to_string();
        Ok(Reply {
            ok,
            text: lines.join("\n"),
        })
    }

    /// Sends one command and reads its response.
    pub fn command(&mut self, command: &str, within: Duration) -> Result<Reply, ClientError> {
        self.send_raw(format!("{command}\n").as_bytes())?;
        self.read_reply(within)
    }

    /// The engine's process.
    pub fn child_mut(&mut self) -> &mut Child {
        &mut self.child
    }

    /// Closes the engine's stdin and waits for its exit.
    pub fn close(mut self) -> std::io::Result<ExitStatus> {
        self.stdin = None;
        self.child.wait()
    }
}

impl Drop for Client {
    /// Asks the engine to quit, and stops it if it has not within 2 s.
    fn drop(&mut self) {
        if let Some(mut stdin) = self.stdin.take() {
            let _ = writeln!(stdin, "quit").and_then(|_| stdin.flush());
        }
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.kill();
    }
}

impl Client {
    /// Ends the engine and everything it started (its wrapper's children
    /// too).
    pub fn kill(&mut self) {
        self.tree.kill(&mut self.child);
    }
}
