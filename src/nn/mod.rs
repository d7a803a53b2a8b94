//! The neural network: KataGo's model files read and evaluated on the CPU,
//! or on an NVIDIA GPU where the build has the CUDA backend.
//!
//! The front door is [`Evaluator`], the one thing the searches and the front
//! ends name: a game, the colour to move and one of the eight symmetries
//! in, an [`Evaluation`] out (read by board point), for one position or a
//! batch, from any thread. It owns the buffers (a pool of them, one taken
//! per evaluation and given back), the cache of evaluations ([`cache`]) and
//! the answer to whether a network applies to a game; a batch goes through
//! it by the steps of [`pass`] (rows in their symmetries by [`rows`], the
//! pass, the outputs mapped back). The back door is [`backend::Backend`]: a
//! model's layers that run a batch of input planes and give the heads' raw
//! numbers: the CPU's ([`cpu`]) or a GPU's (`gpu`, with the `cuda`
//! feature), as the [`options`] chose at start, in a [`Precision`]. Below
//! the front door, [`model`] reads a file into layer descriptions,
//! [`inputs`] makes KataGo's input planes for a kosumi [`Game`] (with
//! [`ladder`] and [`area`], KataGo's ladder and pass-alive readers), and
//! [`output`] turns the heads' numbers into probabilities and scores.
//!
//! kosumi embeds KataGo's six-block net of 2020
//! (`g170-b6c96-s175395328-d26788732`, MIT; see `LICENSE-KataGo.txt` beside
//! this file), so that it plays with a network with nothing else installed.

pub(crate) mod area;
pub(crate) mod backend;
pub(crate) mod batcher;
pub(crate) mod cache;
pub(crate) mod cpu;
mod evaluator;
pub(crate) mod faults;
pub(crate) mod gpu;
pub(crate) mod inputs;
pub(crate) mod ladder;
pub(crate) mod ladder_memo;
pub(crate) mod model;
pub(crate) mod options;
pub(crate) mod output;
mod pass;
pub(crate) mod precision;
pub(crate) mod profile;
pub(crate) mod rows;
pub(crate) mod simulated;
pub(crate) mod test_backend;
#[cfg(test)]
pub(crate) mod test_models;

pub use backend::PassProfile;
pub use cpu::gemm::{Kernel, ProductShape, product_gflops, shapes_of};
pub use evaluator::{Evaluator, SEARCH_POLICY_OPTIMISM};
pub use gpu::ops::{GpuAttention, GpuConv, GpuTrunk};
pub use gpu::roofline::{KindFloor, roofline};
pub use model::{EMBEDDED_MODEL, ModelError};
pub use options::{BackendKind, Backends, GPU_BUILT, Options, OptionsError};
pub use output::Evaluation;
pub use pass::{Counts, PROFILED_PASSES};
pub use precision::Precision;
pub use profile::HumanProfile;
pub use rows::{Request, SYMMETRIES, applicable_symmetry, symmetric_position};
pub use simulated::{DeviceClock, on_simulated_device};
#[cfg(test)]
pub(crate) use test_backend::{on_cpu_and_host_program, on_test_backend};

#[cfg(test)]
mod tests;
