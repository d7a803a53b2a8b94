//! The back door of the network: what a backend computes and the shapes it
//! computes on. A backend runs a batch of boards of one size through a
//! model's layers and gives the heads' raw numbers; the evaluator
//! (`nn/mod.rs`) makes the inputs, owns the buffers, the symmetries and the
//! cache, and turns the raw numbers into evaluations. kosumi's backends
//! are the CPU's (`nn/cpu/`) and, with the `cuda` feature, CUDA's
//! (`nn/gpu/`).

use crate::go::board::BoardSize;

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
/// spatial inputs point by point (`[board][point][plane]`), the global
/// inputs board by board, and a human-like net's metadata inputs board by
/// board (empty for other nets).
pub struct Inputs<'a> {
    pub spatial: &'a mut [f32],
    pub global: &'a mut [f32],
    pub metadata: &'a mut [f32],
}

/// One thread's buffers of a backend: the backend alone knows what is in
/// them.
pub trait Workspace: Send {
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any;
}

/// The arithmetic a backend's products run in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arithmetic {
    /// Single precision throughout.
    F32,
    /// bfloat16 factors, single-precision sums.
    Bf16,
    /// Half-precision factors (a GPU's tensor cores).
    F16,
}

/// What a backend is: a model's layers, ready to run on some hardware.
pub trait Backend: Send + Sync {
    /// Where it runs, as `bench` and the logs name it (`cpu avx512`).
    fn name(&self) -> String;
    /// The most boards of `size` it runs through the layers at once.
    fn max_batch(&self, size: BoardSize) -> usize;
    /// The boards of `size` it wants at once to reach its rate: what a
    /// search keeps in flight (1 where a batch gains nothing).
    fn preferred_batch(&self, size: BoardSize) -> usize;
    /// The arithmetic of its products.
    fn arithmetic(&self) -> Arithmetic;
    /// A new set of buffers for one thread's evaluations.
    fn workspace(&self) -> Box<dyn Workspace>;
    /// The input buffers of `shape`, to be filled before [`Backend::forward`].
    fn inputs<'a>(&self, ws: &'a mut dyn Workspace, shape: Shape) -> Inputs<'a>;
    /// Runs the model on the inputs in `ws` and writes each board's raw
    /// heads.
    fn forward(&self, shape: Shape, ws: &mut dyn Workspace, out: &mut [RawOutput]);
    /// Multiply-adds of one evaluation on a board of `size`.
    fn macs(&self, size: BoardSize) -> f64;
    /// Single-precision operations one core (or device) issues a cycle at
    /// most with the instructions in use: the peak `bench` sets the
    /// reached rate beside.
    fn peak_flops_per_cycle(&self) -> f64;
    /// Whether its passes keep the calling thread's core busy (the CPU's)
    /// rather than wait on a device (a GPU, a simulated device): a search
    /// runs no more threads than the cores only in the first case.
    fn on_processor(&self) -> bool {
        true
    }
}
