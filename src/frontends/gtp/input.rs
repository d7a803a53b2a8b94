//! The input side of the protocol: the reader thread that frames the
//! controller's bytes into lines (of at most [`MAX_LINE`] bytes kept), drops
//! the lines that hold no command, and turns GoGui's `# interrupt` comment
//! into a stop of the command it was aimed at.
//!
//! Every line that holds a command gets a sequence number. An interrupt is
//! aimed at the last command read before it, whether that command is
//! running, still queued, or (pipelined in the same write) not yet started:
//! the dispatcher calls [`Interrupts::begin`] before each command, which
//! raises the stop flag at once if an interrupt already came for it.

use super::parse::{holds_command, leading_id, preprocess};
use std::collections::HashSet;
use std::io::{BufRead, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};

/// Longest command line accepted; longer lines are answered with an error.
pub const MAX_LINE: usize = 64 * 1024;

/// One line read from the controller: one that needs a reply, or one that
/// needs none but still stops an analysis (as KataGo's does).
pub enum Input {
    /// A blank line, a comment or an interrupt.
    Blank,
    /// A command line and its sequence number.
    Line(u64, Vec<u8>),
    /// A command line too long to keep, with the id it started with.
    TooLong(Option<String>),
}

/// Which commands were interrupted, shared by the reader and the dispatcher.
pub struct Interrupts {
    /// The flag the search polls.
    stop: Arc<AtomicBool>,
    state: Mutex<InterruptState>,
}

#[derive(Default)]
struct InterruptState {
    /// Sequence number of the last command line read.
    read: u64,
    /// The command being executed (0: none yet).
    running: u64,
    /// Commands interrupted before they started.
    pending: HashSet<u64>,
}

impl Interrupts {
    pub fn new(stop: Arc<AtomicBool>) -> Interrupts {
        Interrupts {
            stop,
            state: Mutex::new(InterruptState::default()),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, InterruptState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The reader read a command line: its sequence number.
    pub fn next_command(&self) -> u64 {
        let mut s = self.state();
        s.read += 1;
        s.read
    }

    /// The reader read `# interrupt`: stop the last command read.
    pub fn interrupt(&self) {
        let mut s = self.state();
        let target = s.read;
        if s.running == target {
            self.stop.store(true, Ordering::SeqCst);
        } else if target > s.running {
            s.pending.insert(target);
        }
    }

    /// The dispatcher starts command `seq`.
    pub fn begin(&self, seq: u64) {
        let mut s = self.state();
        s.running = seq;
        let interrupted = s.pending.remove(&seq);
        s.pending.retain(|&k| k > seq);
        self.stop.store(interrupted, Ordering::SeqCst);
    }
}

/// Whether a line (possibly only its first piece) is GoGui's interrupt.
fn is_interrupt(raw: &[u8]) -> bool {
    let start = raw
        .iter()
        .position(|&b| b != b' ' && b != b'\t')
        .unwrap_or(raw.len());
    raw[start..].starts_with(b"# interrupt")
}

/// Reads lines until end of input, sending those that need a reply.
pub fn read_lines(mut input: impl BufRead, interrupts: &Interrupts, tx: mpsc::Sender<Input>) {
    loop {
        let mut buf = Vec::new();
        let n = match (&mut input)
            .take(MAX_LINE as u64)
            .read_until(b'\n', &mut buf)
        {
            Ok(n) => n,
            Err(e) => {
                log::warn!("reading stdin: {e}");
                break;
            }
        };
        if n == 0 {
            break;
        }
        let item = if buf.len() >= MAX_LINE && buf.last() != Some(&b'\n') {
            // Too long to keep: any input stops an analysis at once, as a
            // short line does; then read the rest in pieces, and answer
            // only if some piece holds a command (a long comment or blank
            // line gets no reply, as any comment or blank line).
            if tx.send(Input::Blank).is_err() {
                break;
            }
            let mut in_comment = false;
            let mut command = holds_command(&buf, &mut in_comment);
            let id = leading_id(&buf);
            loop {
                let mut rest = Vec::new();
                match (&mut input)
                    .take(MAX_LINE as u64)
                    .read_until(b'\n', &mut rest)
                {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        command |= holds_command(&rest, &mut in_comment);
                        if rest.last() == Some(&b'\n') {
                            break;
                        }
                    }
                }
            }
            if !command {
                continue;
            }
            interrupts.next_command();
            Input::TooLong(id)
        } else if is_interrupt(&buf) {
            interrupts.interrupt();
            Input::Blank
        } else if preprocess(&buf).is_empty() {
            Input::Blank
        } else {
            Input::Line(interrupts.next_command(), buf)
        };
        if tx.send(item).is_err() {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(bytes: &[u8]) -> (Vec<String>, Arc<Interrupts>) {
        let stop = Arc::new(AtomicBool::new(false));
        let interrupts = Arc::new(Interrupts::new(stop));
        let (tx, rx) = mpsc::channel();
        read_lines(bytes, &interrupts, tx);
        let lines = rx
            .iter()
            .filter_map(|i| match i {
                Input::Blank => None,
                Input::Line(seq, raw) => Some(format!(
                    "{seq}:{}",
                    String::from_utf8_lossy(&raw).trim_end_matches('\n')
                )),
                Input::TooLong(id) => Some(format!("long:{id:?}")),
            })
            .collect();
        (lines, interrupts)
    }

    #[test]
    fn only_lines_with_commands_are_sent() {
        let mut input = b"name\n\n   \n# c\n\x01\n".to_vec();
        input.extend(vec![b' '; 3 * MAX_LINE]);
        input.push(b'\n');
        input.push(b'#');
        input.extend(vec![b'x'; 2 * MAX_LINE]);
        input.extend(b"\n7 ");
        input.extend(vec![b'y'; 2 * MAX_LINE]);
        input.extend("\n\u{a0}\nversion".as_bytes());
        let (lines, _) = read(&input);
        assert_eq!(
            lines,
            ["1:name", "long:Some(\"7\")", "3:\u{a0}", "4:version"]
        );
    }

    #[test]
    fn a_long_blank_comment_or_nul_line_is_input_that_stops_an_analysis() {
        for filler in [b' ', b'#', 0u8] {
            let mut input = vec![filler; 2 * MAX_LINE];
            input.push(b'\n');
            let stop = Arc::new(AtomicBool::new(false));
            let (tx, rx) = mpsc::channel();
            read_lines(&input[..], &Interrupts::new(stop), tx);
            let items: Vec<Input> = rx.iter().collect();
            assert!(matches!(items[..], [Input::Blank]), "filler {filler}");
        }
    }

    #[test]
    fn an_interrupt_read_before_its_command_starts_stops_it() {
        let (lines, interrupts) = read(b"genmove b\n# interrupt\ngenmove w\n");
        assert_eq!(lines.len(), 2);
        interrupts.begin(1);
        assert!(interrupts.stop.load(Ordering::SeqCst));
        interrupts.begin(2);
        assert!(!interrupts.stop.load(Ordering::SeqCst));
    }

    #[test]
    fn an_interrupt_during_its_command_stops_it_and_not_the_next() {
        let stop = Arc::new(AtomicBool::new(false));
        let i = Interrupts::new(stop.clone());
        let first = i.next_command();
        i.begin(first);
        assert!(!stop.load(Ordering::SeqCst));
        i.interrupt();
        assert!(stop.load(Ordering::SeqCst));
        let second = i.next_command();
        i.begin(second);
        assert!(!stop.load(Ordering::SeqCst));
    }
}
