//! The back door of the network: what a backend computes and the shapes it
//! computes on. A backend runs a batch of boards of one size through a
//! model's layers and gives the heads' raw numbers; the evaluator
//! (`nn/mod.rs`) makes the inputs, owns the buffers, the symmetries and the
//! cache, and turns the raw numbers into evaluations. kosumi's backend is
//! the CPU's (`nn/cpu/`).

/// The shape of the activations a layer works on: `batch` boards of side `side`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub side: usize,
    pub batch: usize,
}

impl Shape {
    pub fn points(self) -> usize {
        self.side * self.side
    }
    /// Points across the batch: the rows of an activation.
    pub fn rows(self) -> usize {
        self.points() * self.batch
    }
}
