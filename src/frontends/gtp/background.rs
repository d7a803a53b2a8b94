//! The search beside the protocol: an analysis (`lz-analyze`,
//! `kata-analyze`, `analyze`) or pondering runs on a thread of its own,
//! on a copy of the game and with the engine's tree, while the dispatcher
//! goes on reading input. The next input stops it: the thread is joined
//! (the search polls its stop flag after every playout: `kosumi bench`
//! measures the whole stop, input to answer, at a few milliseconds) and
//! the tree comes back to the engine for the next `genmove`.

use super::analyze::{self, Request};
use crate::engine::Engine;
use crate::search::chooser::Lent;
use crate::search::{self, Report};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

/// A search running beside the protocol.
pub struct Background {
    stop: Arc<AtomicBool>,
    /// The thread, which gives back the tree and whether stdout took every
    /// line written (`None`: the system refused a thread, and the search
    /// did not run; its tree starts afresh at the next search).
    handle: Option<JoinHandle<(Lent, bool)>>,
    /// Whether an open reply waits for its blank line.
    ends_reply: bool,
}

impl Background {
    /// Starts `request`'s analysis, writing its lines to stdout until
    /// stopped (the reply's first line is already written).
    pub fn analyze(e: &mut Engine, request: Request) -> Background {
        let (game, _) = e.game_to_analyse(request.color);
        Self::start(e, game, Some(request))
    }

    /// Starts pondering: searching the position after the engine's move,
    /// the opponent to move, so that the next `genmove` finds the tree grown.
    pub fn ponder(e: &mut Engine) -> Background {
        let game = e.shown().clone();
        Self::start(e, game, None)
    }

    fn start(e: &mut Engine, game: crate::go::game::Game, request: Option<Request>) -> Background {
        let mut lent = e.lend_search(&game, analyze::UNBOUNDED);
        let stop = Arc::new(AtomicBool::new(false));
        let ends_reply = request.is_some();
        let thread_stop = stop.clone();
        let handle = std::thread::Builder::new().spawn(move || {
            let mut written = true;
            let mut write = |r: &Report| {
                if let Some(request) = &request {
                    let out = &mut std::io::stdout().lock();
                    written &= analyze::write_info(r, request, game.board(), out).is_ok();
                }
            };
            let watch = request.as_ref().map(|r| search::Watch {
                at_end: false,
                ..r.watch(&mut write)
            });
            lent.run(&game, &thread_stop, watch);
            (lent, written)
        });
        let handle = handle
            .map_err(|err| log::warn!("no thread for the search beside the protocol: {err}"))
            .ok();
        log::debug!(
            "{} beside the protocol",
            if ends_reply { "analysing" } else { "pondering" }
        );
        Background {
            stop,
            handle,
            ends_reply,
        }
    }

    /// Stops the search and gives the engine its tree back; whether stdout
    /// took every line, and whether an open reply waits for its blank line.
    pub fn finish(self, e: &mut Engine) -> (bool, bool) {
        self.stop.store(true, Ordering::SeqCst);
        let written = match self.handle.map(JoinHandle::join) {
            Some(Ok((lent, written))) => {
                e.give_back(lent);
                written
            }
            Some(Err(_)) => {
                log::warn!("the search beside the protocol panicked");
                true
            }
            None => true,
        };
        (written, self.ends_reply)
    }
}
