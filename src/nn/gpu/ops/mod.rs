//! Each operation of a GPU program in one place: its arguments as a type,
//! how a device runs it (the kernel, the launch and its arguments, the
//! product) and the host's loops that are its reference, side by side,
//! one module a family: the input planes (`inputs`), convolutions
//! (`conv`), norms and biases (`norm`),
//! dense products and the gated unit (`dense`), pooling (`pool`), and
//! attention with its rotary embedding (`attention`). The executors (the
//! device's and the host's) walk a program and hand each operation its
//! step; a new operation, or a new way
//! to run one, touches its module and its test.

pub(crate) mod attention;
pub(crate) mod conv;
pub(crate) mod dense;
pub(crate) mod inputs;
cfg_device! {
    pub(crate) mod launch;
}
pub(crate) mod norm;
pub(crate) mod pool;

cfg_device! {
    use super::device::{DeviceBuffer, F32s, Gemm, Halves, Launch, Queue};
}
#[cfg(any(test, feature = "cuda"))]
use crate::nn::backend::Shape;

/// How a GPU runs attention (`--attention`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum GpuAttention {
    /// Each head's q·kᵀ and p·v as strided-batched products (on the
    /// tensor cores, TF32, where the products are f16), a warp-per-row
    /// softmax between, a chunk of boards' scores at a time.
    #[default]
    Batched,
    /// One kernel on CUDA's cores, a block a query point, head and board.
    Simt,
    /// One kernel on the tensor cores (flash attention: queries, keys,
    /// values and probabilities as halves, the scores in registers, never
    /// in memory), a block 64 query points of a head and board; half
    /// precision only (`--precision f16`, a GPU's default), compute capability 8.0 on,
    /// heads of at most 64 channels.
    Fused,
}

impl std::fmt::Display for GpuAttention {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(match self {
            GpuAttention::Batched => "batched",
            GpuAttention::Simt => "simt",
            GpuAttention::Fused => "fused",
        })
    }
}

/// Where a GPU whose products are f16 keeps the trunk (`--gpu-trunk`):
/// the buffers the blocks' convolutions add their residuals to, and the
/// global inputs' bias is added to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum GpuTrunk {
    /// Single precision: every residual added exactly, each convolution's
    /// output read back from halves and added.
    #[default]
    F32,
    /// Halves (each value times 1/8, KataGo's "Scale8"), as KataGo's CUDA
    /// backend keeps it under FP16: the residual convolutions add into
    /// them (beta = 1), half the trunk's bytes moved; each sum rounded.
    F16,
}

impl std::fmt::Display for GpuTrunk {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(match self {
            GpuTrunk::F32 => "f32",
            GpuTrunk::F16 => "f16",
        })
    }
}

/// How a GPU runs its 3×3 convolutions (`--gpu-conv`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum GpuConv {
    /// cuDNN's convolution (NHWC, implicit GEMM on the tensor cores where
    /// the products are f16), as KataGo's CUDA backend: no im2col matrix.
    Cudnn,
    /// An im2col matrix (nine times the input) and cuBLAS's product.
    Im2col,
}

impl std::fmt::Display for GpuConv {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(match self {
            GpuConv::Cudnn => "cudnn",
            GpuConv::Im2col => "im2col",
        })
    }
}

/// A buffer of the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Buf(pub usize);

/// A tensor of weights of the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Weights(pub usize);

/// How rotary position embedding turns a head's pair at a point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Angles {
    /// Learned: `x · fx + y · fy`, the frequencies `[table][pair][x, y]`
    /// in the weights, table `h · tables / heads` for head `h`.
    Learned { freqs: Weights, tables: usize },
    /// Fixed from θ: pair `p` of the first half turns with the row at
    /// `θ^(−2p / (dim / 2))`, of the second half with the column.
    Fixed { theta: f32 },
}

cfg_device! {
    /// What a device's operation is run with: the thread's queue, the batch's
    /// shape, the buffers (each of its storage's type) and the weights'
    /// addresses, and the products' input scratch, whose type says the
    /// products' factors: halves, or single precision.
    pub(crate) struct DeviceStep<'a> {
        pub(crate) queue: &'a mut dyn Queue,
        pub(crate) shape: Shape,
        pub(crate) buffers: &'a [DeviceBuffer],
        pub(crate) weights: &'a [F32s],
        /// The convolutions' weights as halves, with half-precision factors.
        pub(crate) halves: &'a [Option<Halves>],
        /// The scratch a product's input is laid out in (im2col, halves).
        pub(crate) col: DeviceBuffer,
        /// Attention's scores scratch, and the values it holds.
        pub(crate) scores: F32s,
        pub(crate) score_values: usize,
        /// How attention runs.
        pub(crate) attention: GpuAttention,
        /// How the 3×3 convolutions run.
        pub(crate) conv: GpuConv,
        /// Whether products of activations by activations (attention's)
        /// run on the tensor cores (TF32): where the products are f16.
        pub(crate) tensor_cores: bool,
    }
}

cfg_device! {
    impl DeviceStep<'_> {
        /// A buffer's single-precision values, or why it holds none.
        fn buf(&self, b: Buf) -> Result<F32s, String> {
            self.buffers[b.0].f32s()
        }

        /// A weights tensor's address.
        fn weights(&self, w: Weights) -> F32s {
            self.weights[w.0]
        }

        /// A weights tensor's halves, or why there are none.
        fn halves(&self, w: Weights) -> Result<Halves, String> {
            self.halves[w.0].ok_or_else(|| format!("weights {} have no halves", w.0))
        }

        /// The batch's rows, points, boards, width and height, as the kernels
        /// reads them.
        fn rows(&self) -> i32 {
            self.shape.rows() as i32
        }

        fn points(&self) -> i32 {
            self.shape.points() as i32
        }

        fn boards(&self) -> i32 {
            self.shape.batch as i32
        }

        fn product(&mut self, gemm: Gemm) -> Result<(), String> {
            self.queue.gemm(gemm)
        }
    }
}

cfg_device! {
    /// Threads a block of the element-wise kernels, and of the RMSNorm's (a
    /// power of two: its sums are halved in turn).
    pub(crate) const BLOCK: u32 = 256;
}

cfg_device! {
    /// Threads a block for a row of `channels` values taken in runs of
    /// four: a warp's multiple, at most a block.
    fn channel_threads(channels: usize) -> u32 {
        (channels.div_ceil(4).div_ceil(32) * 32).clamp(32, BLOCK as usize) as u32
    }

    /// The launch of `n` threads, one a value.
    fn threads(n: usize) -> Launch {
        Launch {
            grid: ((n as u64).div_ceil(u64::from(BLOCK)).max(1) as u32, 1, 1),
            block: (BLOCK, 1, 1),
            shared_bytes: 0,
        }
    }
}

/// What the host's loops run an operation with: the program's weights,
/// the batch's shape, every buffer's values and the products' input
/// scratch.
#[cfg(test)]
pub(crate) struct HostStep<'a> {
    pub(crate) weights: &'a [Vec<f32>],
    pub(crate) shape: Shape,
    pub(crate) values: &'a mut [Vec<f32>],
    pub(crate) col: &'a mut Vec<f32>,
}
