//! Evaluations from many threads gathered into the backend's batches, as
//! KataGo's NN server and lc0's multiplexer gather them for a GPU: each
//! thread makes its positions' input rows itself (the inputs, the ladders:
//! the CPU's share) and hands them in; whichever thread finds the device
//! free takes every waiting submission of one board size, up to the
//! largest batch, runs them as one forward pass, and gives each its raw
//! outputs back; the others wait, and their rows ride in the next batch.
//! While one batch runs, the next gathers, so the batches grow with the
//! threads in flight and the device is never idle while work waits. A
//! backend may take a second pass while one runs (`Batching::in_flight`,
//! a GPU's two streams); one starts then only with a preferred batch
//! waiting, so that batches stay full. Only a
//! backend that wants batches (a GPU's, the simulated GPU) goes through
//! here; the CPU's evaluates each thread's positions itself.

use super::backend::{Batching, Computation, PassError, RawOutput, Shape};
use super::rows;
use crate::go::board::BoardSize;
use std::sync::{Condvar, Mutex};

/// One thread's positions: their input rows, and the buffer their raw
/// outputs are written to. The buffers go back to the thread with the
/// outputs, to be reused.
#[derive(Default)]
pub(crate) struct Submission {
    pub(crate) size: Option<BoardSize>,
    pub(crate) boards: usize,
    /// The points' planes as bits ([`super::rows::write`]), laid down in
    /// the backend's inputs as the batch is gathered.
    pub(crate) planes: Vec<u32>,
    pub(crate) global: Vec<f32>,
    pub(crate) metadata: Vec<f32>,
    pub(crate) raw: Vec<RawOutput>,
    /// Why the pass gave no outputs, where it gave none.
    pub(crate) failed: Option<PassError>,
    ticket: u64,
}

#[derive(Default)]
struct State {
    waiting: Vec<Submission>,
    finished: Vec<Submission>,
    /// The passes running.
    running: usize,
    next_ticket: u64,
}

impl State {
    /// Whether a pass may start now: any waiting submission where none
    /// runs; below the backend's passes in flight, a preferred batch of
    /// the oldest submission's board size.
    fn may_start(&self, batching: &Batching) -> bool {
        let Some(oldest) = self.waiting.first() else {
            return false;
        };
        if self.running == 0 {
            return true;
        }
        if self.running >= batching.in_flight {
            return false;
        }
        let Some(size) = oldest.size else {
            return true;
        };
        let boards: usize = self
            .waiting
            .iter()
            .filter(|s| s.size == oldest.size)
            .map(|s| s.boards)
            .sum();
        boards >= batching.preferred(size)
    }
}

/// The gatherer: shared by the threads of one evaluator.
#[derive(Default)]
pub(crate) struct Batcher {
    state: Mutex<State>,
    changed: Condvar,
}

impl Batcher {
    /// Hands `submission` in and returns it with its raw outputs, having
    /// run its batch (and the others' in it) in `computation` if the
    /// device was free, or waited for the thread that did. `runs` counts
    /// the forward passes this thread ran and their boards.
    pub(crate) fn evaluate(
        &self,
        mut submission: Submission,
        batching: &Batching,
        computation: &mut dyn Computation,
        runs: &mut (u64, u64),
    ) -> Submission {
        let lock = || self.state.lock().unwrap_or_else(|e| e.into_inner());
        let mut state = lock();
        let ticket = state.next_ticket;
        state.next_ticket += 1;
        submission.ticket = ticket;
        state.waiting.push(submission);
        loop {
            if let Some(at) = state.finished.iter().position(|s| s.ticket == ticket) {
                return state.finished.swap_remove(at);
            }
            if state.may_start(batching) {
                state.running += 1;
                let mut batch = take_batch(&mut state.waiting, batching);
                drop(state);
                let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    run(&mut batch, computation, runs)
                }));
                if ran.is_err() {
                    // The others' evaluations fail; none waits forever.
                    for s in &mut batch {
                        s.failed = Some(PassError::Panicked);
                    }
                }
                state = lock();
                state.running -= 1;
                state.finished.append(&mut batch);
                self.changed.notify_all();
                if let Err(panic) = ran {
                    drop(state);
                    std::panic::resume_unwind(panic);
                }
                continue;
            }
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// The oldest waiting submission and every later one of its board size,
/// while they fit the backend's largest batch, in the order they came.
fn take_batch(waiting: &mut Vec<Submission>, batching: &Batching) -> Vec<Submission> {
    let size = waiting[0].size;
    let most = size.map_or(1, |s| batching.max(s));
    let mut boards = 0;
    let mut taken = Vec::new();
    let mut i = 0;
    while i < waiting.len() {
        let s = &waiting[i];
        if s.size == size && (taken.is_empty() || boards + s.boards <= most) {
            boards += s.boards;
            taken.push(waiting.remove(i));
        } else {
            i += 1;
        }
    }
    taken
}

/// Runs `batch` as one forward pass and writes each submission's raw
/// outputs into its own buffer, or why there are none.
fn run(batch: &mut [Submission], computation: &mut dyn Computation, runs: &mut (u64, u64)) {
    let Some(size) = batch[0].size else {
        return;
    };
    let boards: usize = batch.iter().map(|s| s.boards).sum();
    let shape = Shape::of(size, boards);
    let mut inputs = computation.inputs(shape);
    let (mut points, mut global, mut metadata) = (0, 0, 0);
    for s in batch.iter() {
        rows::lay_down(&s.planes, &mut inputs.spatial, points);
        inputs.global[global..global + s.global.len()].copy_from_slice(&s.global);
        let m = s.metadata.len().min(inputs.metadata.len() - metadata);
        inputs.metadata[metadata..metadata + m].copy_from_slice(&s.metadata[..m]);
        points += s.planes.len();
        global += s.global.len();
        metadata += m;
    }
    // The outputs land in the first submission's buffer, grown to the
    // batch, then each takes its own share.
    let mut raw = std::mem::take(&mut batch[0].raw);
    raw.resize_with(boards.max(raw.len()), RawOutput::default);
    let ran = computation.forward(shape, &mut raw);
    runs.0 += 1;
    runs.1 += boards as u64;
    for s in batch.iter_mut() {
        s.failed = ran.clone().err();
    }
    if ran.is_err() {
        batch[0].raw = raw;
        return;
    }
    let mut at = batch[0].boards;
    for s in batch.iter_mut().skip(1) {
        s.raw
            .resize_with(s.raw.len().max(s.boards), RawOutput::default);
        for (mine, theirs) in s.raw.iter_mut().zip(&raw[at..at + s.boards]) {
            mine.clone_from(theirs);
        }
        at += s.boards;
    }
    batch[0].raw = raw;
}

#[cfg(test)]
mod tests {
    use super::{Batching, State, Submission};
    use crate::go::board::BoardSize;
    use crate::go::game::Game;
    use crate::go::rules::Rules;
    use crate::nn::{Evaluation, Request};

    /// Eight positions of 9×9, each its own value on the test backend
    /// (k stones of one colour, k passes).
    fn eight_games() -> Vec<Game> {
        (0..8)
            .map(|k| {
                let mut g = Game::new(9, Rules::default(), 7.5);
                for i in 0..k {
                    let c = g.to_move();
                    g.play(c, Some(g.board().point(i, 0))).unwrap();
                    g.play(c.opponent(), None).unwrap();
                }
                g
            })
            .collect()
    }

    fn waiting(sizes: &[(usize, usize)]) -> Vec<Submission> {
        sizes
            .iter()
            .map(|&(side, boards)| Submission {
                size: Some(BoardSize::square(side)),
                boards,
                ..Submission::default()
            })
            .collect()
    }

    /// A pass starts at once where none runs; a second beside it only
    /// below the backend's passes in flight and with a preferred batch of
    /// the oldest submission's size waiting (other sizes not counted).
    #[test]
    fn a_second_pass_starts_only_with_a_preferred_batch_waiting() {
        let two = Batching::boards(256, 8).in_flight(2);
        let state = |running, sizes: &[(usize, usize)]| State {
            waiting: waiting(sizes),
            running,
            ..State::default()
        };
        assert!(!state(0, &[]).may_start(&two));
        assert!(state(0, &[(19, 1)]).may_start(&two));
        assert!(!state(1, &[(19, 3), (19, 4)]).may_start(&two));
        assert!(state(1, &[(19, 3), (19, 5)]).may_start(&two));
        assert!(!state(1, &[(19, 3), (9, 5)]).may_start(&two));
        assert!(!state(2, &[(19, 8), (19, 8)]).may_start(&two));
        let one = Batching::boards(256, 8);
        assert!(!state(1, &[(19, 8), (19, 8)]).may_start(&one));
        assert_eq!(Batching::boards(4, 4).in_flight(0).in_flight, 1);
    }

    /// Eight threads on a simulated device taking two passes at once,
    /// each thread's pass sleeping: every thread reads its own position's
    /// outputs, whichever pass carried them.
    #[test]
    fn two_passes_in_flight_give_each_thread_its_own_outputs() {
        use crate::nn::simulated::Simulated;
        use crate::nn::test_backend::Counting;
        use std::sync::Arc;
        use std::time::Duration;
        let desc = crate::nn::model::ModelDesc::parse(crate::nn::model::EMBEDDED_MODEL).unwrap();
        let device = Simulated::new(
            Arc::new(Counting::default()),
            Duration::from_millis(2),
            Duration::from_micros(100),
            (4, 2),
        );
        let net = crate::nn::Evaluator::with_backend(&desc, Arc::new(device));
        let games = eight_games();
        let alone: Vec<f32> = games
            .iter()
            .map(|g| net.evaluate(Request::of(g)).white_win)
            .collect();
        std::thread::scope(|scope| {
            for (g, &want) in games.iter().zip(&alone) {
                let net = &net;
                scope.spawn(move || {
                    for _ in 0..20 {
                        let mut out = [Evaluation::default(), Evaluation::default()];
                        net.evaluate_batch(&[Request::of(g), Request::of(g)], &mut out);
                        assert_eq!([out[0].white_win, out[1].white_win], [want, want]);
                    }
                });
            }
        });
    }

    #[test]
    fn threads_evaluating_at_once_share_forward_passes_and_get_their_own_outputs() {
        // The test backend wants batches of 4 and prints each board's
        // stones into its value: eight threads, each its own position,
        // several rounds; every thread reads its own position's value.
        let (net, counts) = crate::nn::on_test_backend();
        let games = eight_games();
        let alone: Vec<f32> = games
            .iter()
            .map(|g| net.evaluate(Request::of(g)).white_win)
            .collect();
        let before = counts.passes.load(std::sync::atomic::Ordering::Relaxed);
        let before_boards = counts.boards.load(std::sync::atomic::Ordering::Relaxed);
        std::thread::scope(|scope| {
            for (g, &want) in games.iter().zip(&alone) {
                let net = &net;
                scope.spawn(move || {
                    for _ in 0..40 {
                        let mut out = [Evaluation::default(), Evaluation::default()];
                        let request = Request::of(g);
                        net.evaluate_batch(&[request, request], &mut out);
                        assert_eq!(out[0].white_win, want);
                        assert_eq!(out[1].white_win, want);
                    }
                });
            }
        });
        let passes = counts.passes.load(std::sync::atomic::Ordering::Relaxed) - before;
        let boards = counts.boards.load(std::sync::atomic::Ordering::Relaxed) - before_boards;
        // 640 boards, each once, at most 4 a pass (the largest batch), so
        // 160 to 320 passes as the threads happen to meet.
        assert_eq!(boards, 640);
        assert!((160..=320).contains(&passes), "{passes}");
        assert_eq!(net.take_counts().boards, 640 + 8);
    }
}
