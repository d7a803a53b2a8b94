//! The session on stdin and stdout: a reader thread feeds lines to the
//! dispatcher (so that GoGui's `# interrupt` comment can stop a running
//! `genmove`), analysis and pondering run beside the protocol until the
//! next input, and replies are written whole.

use super::analyze;
use super::background::Background;
use super::dispatch::{Response, dispatch, too_long};
use super::input::{self, Input};
use crate::engine::Engine;
use std::io::Write;
use std::sync::Arc;
use std::sync::mpsc;

/// Whether to ponder after the engine's move: asked for, in plain Go
/// without dice, the game not over.
fn ponders_after_move(engine: &Engine) -> bool {
    engine.config.ponder
        && matches!(engine.role(), crate::engine::Role::Go(_))
        && engine.shown().dice().is_none()
        && !engine.shown().is_over()
}

/// Writes `bytes` to stdout at once; false if stdout is gone.
pub(super) fn write_out(bytes: &[u8]) -> bool {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes).and_then(|_| out.flush()).is_ok()
}

/// Speaks GTP on stdin and stdout until `quit` or end of input. Analysis
/// and pondering run beside the protocol: any input stops them (an open
/// analysis reply is then ended by its blank line) before it is answered.
pub fn serve(mut engine: Engine) {
    let (tx, rx) = mpsc::channel();
    let interrupts = Arc::new(input::Interrupts::new(engine.stop_flag()));
    let reader_interrupts = interrupts.clone();
    let reader = std::thread::Builder::new().spawn(move || {
        let stdin = std::io::stdin();
        input::read_lines(stdin.lock(), &reader_interrupts, tx)
    });
    if let Err(err) = reader {
        crate::say!("kosumi: no thread could be started to read the input ({err})");
        return;
    }
    let mut beside: Option<Background> = None;
    let mut alive = true;
    for item in rx {
        if let Some(job) = beside.take() {
            alive &= finish(job, &mut engine);
        }
        let response = match item {
            Input::Blank => None,
            Input::Line(seq, raw) => {
                interrupts.begin(seq);
                dispatch(&mut engine, &raw)
            }
            Input::TooLong(id) => Some(Response::Reply(too_long(id))),
        };
        let mut ponder = false;
        match response {
            None => {}
            Some(Response::Reply(r)) => alive &= write_out(r.as_bytes()),
            Some(Response::Moved(r)) => {
                alive &= write_out(r.as_bytes());
                ponder = ponders_after_move(&engine);
            }
            Some(Response::Quit(r)) => {
                write_out(r.as_bytes());
                break;
            }
            Some(Response::Stream { head, request }) => {
                alive &= write_out(head.as_bytes());
                if request.genmove {
                    analyze::genmove(&mut engine, &request, &mut std::io::stdout());
                    alive &= write_out(b"\n");
                    ponder = ponders_after_move(&engine);
                } else {
                    beside = Some(Background::analyze(&mut engine, request));
                }
            }
        }
        if !alive {
            break;
        }
        if ponder {
            beside = Some(Background::ponder(&mut engine));
        }
    }
    if let Some(job) = beside {
        finish(job, &mut engine);
    }
}

/// Stops the search beside the protocol and ends its open reply, if any;
/// false if stdout is gone.
fn finish(job: Background, engine: &mut Engine) -> bool {
    let (written, open_reply) = job.finish(engine);
    written && (!open_reply || write_out(b"\n"))
}
