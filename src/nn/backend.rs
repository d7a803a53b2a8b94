//! The back door of the network: what a backend computes and the shapes it
//! computes on. A backend runs a batch of boards of one size through a
//! model's layers and gives the heads' raw numbers; the evaluator
//! (`nn/mod.rs`) makes the inputs, keeps each thread's [`Computation`]
//! (the backend's own buffers), the symmetries and the cache, and turns the
//! raw numbers into evaluations. kosumi's backends
//! are the CPU's (`nn/cpu/`) and, with the `cuda` feature, CUDA's
//! (`nn/gpu/`).

use crate::go::board::BoardSize;
use crate::nn::precision::Precision;

/// The shape of the activations a layer works on: `batch` boards of
/// `width` columns and `height` rows, each laid out row by row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub width: usize,
    pub height: usize,
    pub batch: usize,
}

impl Shape {
    /// `batch` boards of `size`.
    pub fn of(size: BoardSize, batch: usize) -> Shape {
        Shape {
            width: size.width,
            height: size.height,
            batch,
        }
    }
    pub fn points(self) -> usize {
        self.width * self.height
    }
    /// Points across the batch: the rows of an activation.
    pub fn rows(self) -> usize {
        self.points() * self.batch
    }
}

/// What the heads computed for one board, before postprocessing, from the
/// point of view of the side to move, in the inputs' orientation.
#[derive(Clone, Debug, Default)]
pub struct RawOutput {
    /// One logit per point, row by row.
    pub policy: Vec<f32>,
    pub pass: f32,
    /// The optimistic policy's logits (version 12 on; empty before).
    pub policy_optimistic: Vec<f32>,
    pub pass_optimistic: f32,
    /// Win, loss and no-result logits.
    pub value: [f32; 3],
    /// Score mean, score spread (before softplus), lead, variance time,
    /// then (version 9 on) the short-term win/loss and score errors.
    pub score: [f32; 6],
    /// One ownership value per point (before tanh).
    pub ownership: Vec<f32>,
}

/// A batch's input buffers, filled before [`Backend::forward`]: the
/// spatial inputs point by point, the global inputs board by board, and a
/// human-like net's metadata inputs board by board (empty for other nets).
pub struct Inputs<'a> {
    pub spatial: SpatialInputs<'a>,
    pub global: &'a mut [f32],
    pub metadata: &'a mut [f32],
}

/// The spatial inputs in the form a backend takes them.
pub enum SpatialInputs<'a> {
    /// Each point's row of values 0 and 1 (`[board][point][plane]`).
    Rows(&'a mut [f32]),
    /// Each point's planes as one value, their bits (plane `c` at bit
    /// `c`, an exact integer in single precision): a device spreads them
    /// into rows itself, and the host sends a 22nd of the bytes.
    Masks(&'a mut [f32]),
}

/// Why a forward pass gave no outputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PassError {
    /// The device failed, or its buffers could not be made: its words.
    Device(String),
    /// The pass panicked on another thread, whose batch this was in.
    Panicked,
}

impl std::fmt::Display for PassError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PassError::Device(why) => write!(f, "the device failed: {why}"),
            PassError::Panicked => write!(f, "the pass panicked"),
        }
    }
}

/// Where profiled passes spent their time: each part's name (an
/// operation's kind, a block's, a head) and its total over the passes, in
/// the order the parts first ran.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PassProfile {
    pub parts: Vec<(&'static str, std::time::Duration)>,
    /// The passes the times are totals of.
    pub passes: usize,
    /// Each part's floor over the same passes, where the device's peaks
    /// are known: the least time its work takes there (a GPU's roofline).
    pub floors: Vec<(&'static str, std::time::Duration)>,
    /// Each part's operations over the same passes, where the backend
    /// counts them (the CPU's: its products as run, a multiply-add two).
    pub flops: Vec<(&'static str, f64)>,
}

impl PassProfile {
    /// Adds `took` to the part `name`.
    pub fn add(&mut self, name: &'static str, took: std::time::Duration) {
        add_to(&mut self.parts, name, took);
    }

    /// Adds `floor` to the floor of the part `name`.
    pub fn add_floor(&mut self, name: &'static str, floor: std::time::Duration) {
        add_to(&mut self.floors, name, floor);
    }

    /// Adds `flops` operations to the part `name`.
    pub fn add_flops(&mut self, name: &'static str, flops: f64) {
        add_to(&mut self.flops, name, flops);
    }

    /// The operations counted in the part `name`, where counted.
    pub fn flops(&self, name: &str) -> Option<f64> {
        of_part(&self.flops, name)
    }

    /// The floor of the part `name`, where known.
    pub fn floor(&self, name: &str) -> Option<std::time::Duration> {
        of_part(&self.floors, name)
    }

    /// The parts' time together.
    pub fn total(&self) -> std::time::Duration {
        self.parts.iter().map(|&(_, d)| d).sum()
    }
}

/// Adds `value` to the part `name`'s total in `parts` (a new part last).
fn add_to<T: std::ops::AddAssign>(
    parts: &mut Vec<(&'static str, T)>,
    name: &'static str,
    value: T,
) {
    match parts.iter_mut().find(|(n, _)| *n == name) {
        Some((_, total)) => *total += value,
        None => parts.push((name, value)),
    }
}

/// The part `name`'s total in `parts`, where it has one.
fn of_part<T: Copy>(parts: &[(&'static str, T)], name: &str) -> Option<T> {
    parts.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
}

/// Laps of the wall clock into a [`PassProfile`], where one is kept: each
/// [`Laps::lap`] adds the time since the last to a part, and the
/// operations counted since, where a counter is given. Without a profile
/// it reads no clock.
pub struct Laps<'a> {
    profile: Option<&'a mut PassProfile>,
    last: Option<std::time::Instant>,
    /// The operations this thread has run so far, and their count at the
    /// last lap.
    counter: Option<(fn() -> f64, f64)>,
}

impl<'a> Laps<'a> {
    pub fn new(profile: Option<&'a mut PassProfile>) -> Laps<'a> {
        let last = profile.as_ref().map(|_| std::time::Instant::now());
        Laps {
            profile,
            last,
            counter: None,
        }
    }

    /// Laps that also give each part the operations `counted` (a running
    /// total) grew by.
    pub fn counting(profile: Option<&'a mut PassProfile>, counted: fn() -> f64) -> Laps<'a> {
        let counter = profile.as_ref().map(|_| (counted, counted()));
        Laps {
            counter,
            ..Laps::new(profile)
        }
    }

    /// The time since the last lap, as the part `name`.
    pub fn lap(&mut self, name: &'static str) {
        if let (Some(profile), Some(last)) = (self.profile.as_deref_mut(), self.last.as_mut()) {
            let now = std::time::Instant::now();
            profile.add(name, now - *last);
            *last = now;
            if let Some((counted, at)) = self.counter.as_mut() {
                let total = counted();
                profile.add_flops(name, total - *at);
                *at = total;
            }
        }
    }
}

/// One thread's passes through a backend: the buffers, of the backend's
/// own types, and the backend they run on (lc0's `BackendComputation`).
/// A thread fills the inputs of a shape, then runs the pass.
pub trait Computation: Send {
    /// The input buffers of `shape`, to be filled before
    /// [`Computation::forward`].
    fn inputs(&mut self, shape: Shape) -> Inputs<'_>;
    /// Runs the model on the inputs and writes each board's raw heads, or
    /// says why it could not (the outputs are then not to be read).
    fn forward(&mut self, shape: Shape, out: &mut [RawOutput]) -> Result<(), PassError>;
    /// [`Computation::forward`], its time added to `profile` part by part
    /// (by the wall clock on the processor, by the device's own clock on
    /// a device); a backend without parts gives the pass whole.
    fn forward_profiled(
        &mut self,
        shape: Shape,
        out: &mut [RawOutput],
        profile: &mut PassProfile,
    ) -> Result<(), PassError> {
        let mut laps = Laps::new(Some(profile));
        let ran = self.forward(shape, out);
        laps.lap("forward pass");
        ran
    }
}

/// How many boards a backend runs at once, by board size: a batch holds
/// at most `max_points` points and `max_boards` boards (at least one
/// board), and the backend reaches its rate at `preferred_points` points
/// (at least `min_preferred` boards, at most the largest batch). Up to
/// `in_flight` passes run at once, each on its own thread's queue (a
/// GPU's: one pass's uploads, launches and downloads beside another's
/// arithmetic); a second starts only with a preferred batch waiting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Batching {
    pub max_points: usize,
    pub max_boards: usize,
    pub preferred_points: usize,
    pub min_preferred: usize,
    pub in_flight: usize,
}

impl Batching {
    /// Batches of `boards` boards whatever the size.
    pub const fn boards(max: usize, preferred: usize) -> Batching {
        Batching {
            max_points: usize::MAX,
            max_boards: max,
            preferred_points: 0,
            min_preferred: preferred,
            in_flight: 1,
        }
    }

    /// These batches with up to `passes` passes at once (at least one).
    pub const fn in_flight(self, passes: usize) -> Batching {
        Batching {
            in_flight: if passes > 1 { passes } else { 1 },
            ..self
        }
    }

    /// The most boards of `size` run at once.
    pub fn max(&self, size: BoardSize) -> usize {
        (self.max_points / size.points().max(1)).clamp(1, self.max_boards.max(1))
    }

    /// The boards of `size` wanted at once to reach the rate: what a
    /// search keeps in flight (1 where a batch gains nothing).
    pub fn preferred(&self, size: BoardSize) -> usize {
        (self.preferred_points / size.points().max(1))
            .max(self.min_preferred)
            .clamp(1, self.max(size))
    }
}

/// The facts of a backend (lc0's `BackendAttributes`): fixed when it is
/// made.
#[derive(Clone, Debug, PartialEq)]
pub struct Attributes {
    /// Where it runs, as `bench` and the logs name it (`cpu avx512`).
    pub name: String,
    /// The precision of its products.
    pub precision: Precision,
    pub batching: Batching,
    /// Single-precision operations one core issues a cycle at most with
    /// the instructions in use: the peak `bench` sets the reached rate
    /// beside (0 for a device, whose peak is not a core's).
    pub peak_flops_per_cycle: f64,
    /// Whether its passes keep the calling thread's core busy (the CPU's)
    /// rather than wait on a device (a GPU, a simulated device): a search
    /// runs no more threads than the cores only in the first case.
    pub on_processor: bool,
}

/// What a backend is: a model's layers, ready to run on some hardware.
pub trait Backend: Send + Sync {
    fn attributes(&self) -> &Attributes;
    /// A new computation for one thread's evaluations, holding the
    /// backend.
    fn computation(self: std::sync::Arc<Self>) -> Box<dyn Computation>;
    /// Multiply-adds of one evaluation on a board of `size`.
    fn macs(&self, size: BoardSize) -> f64;
}
