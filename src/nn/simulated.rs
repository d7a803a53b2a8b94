//! A simulated device: another backend's arithmetic (the test backend's,
//! which costs next to nothing) behind a latency model, so that how a
//! search feeds a GPU, or a slow CPU net, can be measured and tuned on any
//! machine. A forward pass of `n` boards takes `fixed + per_board · n` and
//! no processor time (the thread sleeps), one pass at a time as on one GPU;
//! the backend wants batches of `preferred` boards (1: a CPU's net, whose
//! threads each evaluate their own). `kosumi bench --simulate A,B[,P]`
//! searches with it.

use super::backend::{Arithmetic, Backend, Inputs, RawOutput, Shape, Workspace};
use crate::go::board::BoardSize;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// `inner`'s outputs, each pass taking the model's time.
pub(crate) struct Simulated {
    pub(crate) inner: Box<dyn Backend>,
    pub(crate) fixed: Duration,
    pub(crate) per_board: Duration,
    pub(crate) preferred: usize,
    /// One pass at a time where the model is a device's: held through the
    /// pass (a CPU net's threads, `preferred` 1, run side by side).
    pub(crate) device: Mutex<()>,
}

/// The largest batch of the simulated device (a GPU's, as `nnMaxBatchSize`
/// allows).
const MAX_BATCH: usize = 256;

impl Backend for Simulated {
    fn name(&self) -> String {
        format!(
            "simulated ({:.2} ms + {:.3} ms a board, batches of {})",
            self.fixed.as_secs_f64() * 1e3,
            self.per_board.as_secs_f64() * 1e3,
            self.preferred
        )
    }

    fn max_batch(&self, _size: BoardSize) -> usize {
        MAX_BATCH.max(self.preferred)
    }

    fn preferred_batch(&self, _size: BoardSize) -> usize {
        self.preferred
    }

    fn arithmetic(&self) -> Arithmetic {
        Arithmetic::F32
    }

    fn workspace(&self) -> Box<dyn Workspace> {
        self.inner.workspace()
    }

    fn inputs<'a>(&self, ws: &'a mut dyn Workspace, shape: Shape) -> Inputs<'a> {
        self.inner.inputs(ws, shape)
    }

    fn forward(&self, shape: Shape, ws: &mut dyn Workspace, out: &mut [RawOutput]) {
        let _device = (self.preferred > 1).then(|| self.device.lock());
        let start = Instant::now();
        self.inner.forward(shape, ws, out);
        let took = self.fixed + self.per_board * shape.batch as u32;
        if let Some(left) = took.checked_sub(start.elapsed()) {
            std::thread::sleep(left);
        }
    }

    fn macs(&self, size: BoardSize) -> f64 {
        self.inner.macs(size)
    }

    fn peak_flops_per_cycle(&self) -> f64 {
        self.inner.peak_flops_per_cycle()
    }

    fn on_processor(&self) -> bool {
        false
    }
}
