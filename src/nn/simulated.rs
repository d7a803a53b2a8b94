//! A simulated device: another backend's arithmetic (the test backend's,
//! which costs next to nothing) behind a latency model, so that how a
//! search feeds a GPU, or a slow CPU net, can be measured and tuned on any
//! machine. A forward pass of `n` boards takes `fixed + per_board · n` and
//! no processor time (the thread sleeps): its boards `per_board · n` one
//! pass at a time as on one GPU, its fixed part (a GPU's launches and
//! copies) beside another pass's boards where the device takes two passes
//! in flight; the backend wants batches of `preferred` boards (1: a CPU's
//! net, whose threads each evaluate their own). `kosumi bench --simulate
//! A,B[,P] --in-flight K` searches with it.

use super::backend::{
    Attributes, Backend, Batching, Computation, Inputs, PassError, RawOutput, Shape,
};
use super::evaluator::Evaluator;
use super::model::EMBEDDED_MODEL;
use super::model::ModelDesc;
use super::test_backend::Counting;
use crate::go::board::BoardSize;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A network on a simulated device: the test backend's arithmetic (the
/// embedded net's name and scalings) behind a latency model, a pass of `n`
/// boards taking `fixed_ms + per_board_ms · n` of sleep, its boards one
/// pass at a time and up to `in_flight` passes at once; batches of
/// `preferred` boards wanted (1: a CPU's net, each thread its own pass,
/// side by side). For measuring how a search feeds a device, on any
/// machine. The clock beside it keeps the time the test backend's own
/// arithmetic took, the device's work it stands in for, so that the
/// host's share of a pass can be told from it.
pub fn on_simulated_device(
    fixed_ms: f64,
    per_board_ms: f64,
    preferred: usize,
    in_flight: usize,
) -> (Evaluator, DeviceClock) {
    let desc = ModelDesc::parse(EMBEDDED_MODEL).expect("the embedded net");
    let ms = |v: f64| Duration::from_secs_f64(v.max(0.0) / 1e3);
    let backend = Simulated::new(
        Arc::new(Counting::taking_masks()),
        ms(fixed_ms),
        ms(per_board_ms),
        (preferred.max(1), in_flight),
    );
    let clock = DeviceClock(backend.arithmetic.clone());
    (Evaluator::with_backend(&desc, Arc::new(backend)), clock)
}

/// The time a simulated device's passes spent in the arithmetic standing
/// in for the device's (the inner backend's), all threads together.
#[derive(Clone)]
pub struct DeviceClock(Arc<AtomicU64>);

impl DeviceClock {
    /// The arithmetic's time so far.
    pub fn elapsed(&self) -> Duration {
        Duration::from_nanos(self.0.load(Relaxed))
    }
}

/// `inner`'s outputs, each pass taking the model's time.
pub(crate) struct Simulated {
    inner: Arc<dyn Backend>,
    fixed: Duration,
    per_board: Duration,
    /// Whether passes wait for each other, as on one device (a model
    /// wanting batches); a CPU net's threads run side by side.
    one_device: bool,
    /// One pass's boards at a time where the model is a device's: held
    /// through a pass's per-board part.
    device: Mutex<()>,
    /// Nanoseconds spent in the inner backend's passes.
    arithmetic: Arc<AtomicU64>,
    attributes: Attributes,
}

/// The largest batch of the simulated device (a GPU's, as `nnMaxBatchSize`
/// allows).
const MAX_BATCH: usize = 256;

impl Simulated {
    /// `inner` behind passes of `fixed + per_board · n`, wanting batches of
    /// `preferred` boards, `in_flight` passes at once.
    pub(crate) fn new(
        inner: Arc<dyn Backend>,
        fixed: Duration,
        per_board: Duration,
        (preferred, in_flight): (usize, usize),
    ) -> Simulated {
        let attributes = Attributes {
            name: format!(
                "simulated ({:.2} ms + {:.3} ms a board, batches of {preferred})",
                fixed.as_secs_f64() * 1e3,
                per_board.as_secs_f64() * 1e3,
            ),
            batching: Batching::boards(MAX_BATCH.max(preferred), preferred).in_flight(in_flight),
            on_processor: false,
            ..inner.attributes().clone()
        };
        Simulated {
            inner,
            fixed,
            per_board,
            one_device: preferred > 1,
            device: Mutex::new(()),
            arithmetic: Arc::default(),
            attributes,
        }
    }
}

/// A thread's passes: the inner backend's, then the model's sleep.
struct SimulatedComputation {
    model: Arc<Simulated>,
    inner: Box<dyn Computation>,
}

impl Computation for SimulatedComputation {
    fn inputs(&mut self, shape: Shape) -> Inputs<'_> {
        self.inner.inputs(shape)
    }

    fn forward(&mut self, shape: Shape, out: &mut [RawOutput]) -> Result<(), PassError> {
        let model = &self.model;
        let start = Instant::now();
        let ran = self.inner.forward(shape, out);
        let arithmetic = start.elapsed().as_nanos();
        model
            .arithmetic
            .fetch_add(u64::try_from(arithmetic).unwrap_or(u64::MAX), Relaxed);
        // The fixed part beside any other pass; the boards alone on the
        // device.
        if let Some(left) = model.fixed.checked_sub(start.elapsed()) {
            std::thread::sleep(left);
        }
        let _device = model.one_device.then(|| model.device.lock());
        std::thread::sleep(model.per_board * shape.batch as u32);
        ran
    }
}

impl Backend for Simulated {
    fn attributes(&self) -> &Attributes {
        &self.attributes
    }

    fn computation(self: Arc<Self>) -> Box<dyn Computation> {
        let inner = self.inner.clone().computation();
        Box::new(SimulatedComputation { model: self, inner })
    }

    fn macs(&self, size: BoardSize) -> f64 {
        self.inner.macs(size)
    }
}
