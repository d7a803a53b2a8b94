//! A GTP client for tests: starts the built `kosumi` binary and talks to it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

/// The longest a test waits for one line of a response: an engine that
/// hangs fails the test instead of stalling the suite.
const ANSWER_WITHIN: Duration = Duration::from_secs(300);

pub struct Engine {
    child: Child,
    stdin: ChildStdin,
    /// The engine's output lines, read by a thread of their own.
    stdout: Receiver<String>,
}

impl Engine {
    /// Starts kosumi with `args`, working in `dir`.
    pub fn start(args: &[&str], dir: &Path) -> Engine {
        Engine::spawn(Path::new(env!("CARGO_BIN_EXE_kosumi")), args, dir)
    }

    /// Starts any GTP engine.
    pub fn spawn(program: &Path, args: &[&str], dir: &Path) -> Engine {
        let mut child = Command::new(program)
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("start {}: {e}", program.display()));
        let stdin = child.stdin.take().unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        let (lines, stdout) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut out = out;
            loop {
                // Only the newline goes: a stray '\r' stays for the tests to see.
                let mut line = String::new();
                match out.read_line(&mut line) {
                    Ok(n) if n > 0 => {}
                    _ => break,
                }
                let line = line.trim_end_matches('\n').to_string();
                if lines.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            stdin,
            stdout,
        }
    }

    /// Sends raw bytes (one or more lines).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }

    /// Reads one response as written, its lines joined by `\n` (the
    /// blank line that ends it left out).
    pub fn read_raw(&mut self) -> String {
        let mut lines = Vec::new();
        loop {
            let line = self
                .stdout
                .recv_timeout(ANSWER_WITHIN)
                .unwrap_or_else(|e| panic!("no answer ({e:?}); got so far {lines:?}"));
            if line.is_empty() {
                if lines.is_empty() {
                    continue;
                }
                return lines.join("\n");
            }
            lines.push(line);
        }
    }

    /// Sends one line and reads its response as written.
    pub fn read_raw_after(&mut self, line: &str) -> String {
        self.send_raw(format!("{line}\n").as_bytes());
        self.read_raw()
    }

    /// The next line written (a blank one included), if one comes within
    /// `within`.
    pub fn next_line(&mut self, within: Duration) -> Option<String> {
        self.stdout.recv_timeout(within).ok()
    }

    /// Whether the process has exited within `within`.
    pub fn exits_within(&mut self, within: Duration) -> bool {
        let start = std::time::Instant::now();
        while start.elapsed() < within {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        false
    }

    /// Whether the engine writes nothing more within `wait`.
    pub fn silent_for(&mut self, wait: Duration) -> bool {
        loop {
            match self.stdout.recv_timeout(wait) {
                Ok(line) if line.is_empty() => continue,
                Ok(_) => return false,
                Err(_) => return true,
            }
        }
    }

    /// Reads one response: (success, text without the `=`/`?` and id).
    pub fn read_response(&mut self) -> (bool, String) {
        let mut lines = Vec::new();
        loop {
            let line = match self.stdout.recv_timeout(ANSWER_WITHIN) {
                Ok(line) => line,
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("engine closed its output; got so far {lines:?}")
                }
                Err(RecvTimeoutError::Timeout) => {
                    let _ = self.child.kill();
                    panic!("no answer within {ANSWER_WITHIN:?}; got so far {lines:?}")
                }
            };
            if line.is_empty() {
                if lines.is_empty() {
                    continue;
                }
                break;
            }
            lines.push(line);
        }
        let first = lines[0].clone();
        let ok = first.starts_with('=');
        assert!(ok || first.starts_with('?'), "bad response {first:?}");
        let rest = first[1..].trim_start_matches(|c: char| c.is_ascii_digit());
        lines[0] = rest.strip_prefix(' ').unwrap_or(rest).to_string();
        (ok, lines.join("\n"))
    }

    /// Sends one command and returns its response.
    pub fn command(&mut self, cmd: &str) -> (bool, String) {
        self.send_raw(format!("{cmd}\n").as_bytes());
        self.read_response()
    }

    /// Sends a command that must succeed; returns its text.
    pub fn ok(&mut self, cmd: &str) -> String {
        let (ok, text) = self.command(cmd);
        assert!(ok, "{cmd} failed: {text}");
        text
    }

    /// Sends a command that must fail; returns its message.
    pub fn err(&mut self, cmd: &str) -> String {
        let (ok, text) = self.command(cmd);
        assert!(!ok, "{cmd} should fail but answered {text}");
        text
    }

    /// Closes stdin and waits for the exit status.
    pub fn finish(self) -> std::process::ExitStatus {
        let Engine {
            mut child, stdin, ..
        } = self;
        drop(stdin);
        child.wait().unwrap()
    }
}
