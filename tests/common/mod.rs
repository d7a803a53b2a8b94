//! A GTP session for tests: starts the built `kosumi` binary (or any GTP
//! engine) through the library's client, and turns a missing or malformed
//! reply into a test failure.
#![allow(dead_code)]

use kosumi::tools::client::{Client, ClientError};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The longest a test waits for one line of a response: an engine that
/// hangs fails the test instead of stalling the suite.
const ANSWER_WITHIN: Duration = Duration::from_secs(300);

pub struct Engine {
    client: Client,
}

impl Engine {
    /// Starts kosumi with `args`, working in `dir`.
    pub fn start(args: &[&str], dir: &Path) -> Engine {
        Engine::spawn(Path::new(env!("CARGO_BIN_EXE_kosumi")), args, dir)
    }

    /// Starts any GTP engine.
    pub fn spawn(program: &Path, args: &[&str], dir: &Path) -> Engine {
        let mut command = Command::new(program);
        command.args(args).current_dir(dir);
        let client =
            Client::spawn(command).unwrap_or_else(|e| panic!("start {}: {e}", program.display()));
        Engine { client }
    }

    /// Sends raw bytes (one or more lines).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.client.send_raw(bytes).unwrap();
    }

    /// Reads one response as written, its lines joined by `\n` (the
    /// blank line that ends it left out).
    pub fn read_raw(&mut self) -> String {
        match self.client.response_lines(ANSWER_WITHIN) {
            Ok(lines) => lines.join("\n"),
            Err(e) => panic!("no answer: {e}"),
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
        self.client.next_line(within).ok()
    }

    /// Whether the process has exited within `within`.
    pub fn exits_within(&mut self, within: Duration) -> bool {
        let start = std::time::Instant::now();
        let child = self.client.child_mut();
        while start.elapsed() < within {
            if let Ok(Some(_)) = child.try_wait() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = child.kill();
        false
    }

    /// Whether the engine writes nothing more within `wait`.
    pub fn silent_for(&mut self, wait: Duration) -> bool {
        loop {
            match self.client.next_line(wait) {
                Ok(line) if line.is_empty() => continue,
                Ok(_) => return false,
                Err(_) => return true,
            }
        }
    }

    /// Reads one response: (success, text without the `=`/`?` and id).
    pub fn read_response(&mut self) -> (bool, String) {
        match self.client.read_reply(ANSWER_WITHIN) {
            Ok(reply) => (reply.ok, reply.text),
            Err(ClientError::NoAnswer) => {
                let _ = self.client.child_mut().kill();
                panic!("no answer within {ANSWER_WITHIN:?}")
            }
            Err(e) => panic!("{e}"),
        }
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
        self.client.close().unwrap()
    }
}

/// A test's scratch folder under the system's temporary folder, named by
/// the test process and `name`: absent when made (the test creates it, or
/// has the engine create it), and removed with all it holds when dropped,
/// whether the test passes or fails.
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new(prefix: &str, name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("{prefix}-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        Scratch(dir)
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
