//! What a GPU program's executor asks of a device: its weights kept, and
//! queues (one a thread that evaluates) that allocate memory, copy to and
//! from it, launch the [`kernels`](super::kernels) and multiply matrices, in order.
//! CUDA is one device (`cuda.rs`); the tests' emulator, which runs the
//! same kernels compiled for the host, is the other, so that the executor
//! and the kernels are held to the CPU backend without a GPU.

use super::kernels::Kernel;
use std::marker::PhantomData;

/// A half-precision value as a device stores it: its 16 bits (a `__half`,
/// `unsigned short` in the kernels' source).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Half(pub u16);

/// The address of a device buffer of `T`s: `f32`, or [`Half`]. A buffer of
/// one element type passed where the other goes does not compile; the
/// kernels' declarations say each pointer's type, held to the source.
pub(crate) struct DevicePtr<T> {
    addr: u64,
    element: PhantomData<fn() -> T>,
}

/// Single-precision values on a device.
pub(crate) type F32s = DevicePtr<f32>;
/// Half-precision values on a device.
pub(crate) type Halves = DevicePtr<Half>;

impl<T> DevicePtr<T> {
    /// No buffer (a kernel's optional operand, read only where its flag
    /// says).
    pub(crate) const NULL: DevicePtr<T> = DevicePtr::at(0);

    /// The buffer at `addr`, as a device hands it out.
    pub(crate) const fn at(addr: u64) -> DevicePtr<T> {
        DevicePtr {
            addr,
            element: PhantomData,
        }
    }

    /// Its address, as a launch passes it.
    pub(crate) fn addr(self) -> u64 {
        self.addr
    }

    /// The buffer from its `n`th element on.
    pub(crate) fn offset(self, n: usize) -> DevicePtr<T> {
        DevicePtr::at(self.addr + (n * std::mem::size_of::<T>()) as u64)
    }
}

impl<T> Clone for DevicePtr<T> {
    fn clone(&self) -> DevicePtr<T> {
        *self
    }
}

impl<T> Copy for DevicePtr<T> {}

impl<T> PartialEq for DevicePtr<T> {
    fn eq(&self, other: &DevicePtr<T>) -> bool {
        self.addr == other.addr
    }
}

impl<T> std::fmt::Debug for DevicePtr<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{}@{:#x}", std::any::type_name::<T>(), self.addr)
    }
}

/// A buffer on a device, of its storage's type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum DeviceBuffer {
    F32(F32s),
    F16(Halves),
}

impl DeviceBuffer {
    /// Its single-precision values, or why it holds none.
    pub(crate) fn f32s(self) -> Result<F32s, String> {
        match self {
            DeviceBuffer::F32(p) => Ok(p),
            DeviceBuffer::F16(_) => Err("a buffer in f16 where f32 is read".into()),
        }
    }
}

/// A kernel's argument, as the kernels' source declares it: an address, an
/// `int`, a `long long` or a `float`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Arg {
    Ptr(u64),
    I32(i32),
    I64(i64),
    F32(f32),
}

/// The blocks and threads of a launch, and its dynamic shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Launch {
    pub grid: (u32, u32, u32),
    pub block: (u32, u32, u32),
    pub shared_bytes: u32,
}

/// A product's factors, both of one precision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Factors {
    /// Single precision, multiplied exactly so (CUDA's cores).
    F32 { a: F32s, b: F32s },
    /// Single-precision storage multiplied on the tensor cores as TF32
    /// (10 bits of mantissa, as half precision's), sums in single.
    Tf32 { a: F32s, b: F32s },
    /// Half precision, their sums in single.
    F16 { a: Halves, b: Halves },
}

/// A product's output: single precision, or halves (its sums in single,
/// rounded on the way out).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Output {
    F32(F32s),
    F16(Halves),
}

impl From<F32s> for Output {
    fn from(c: F32s) -> Output {
        Output::F32(c)
    }
}

impl From<Halves> for Output {
    fn from(c: Halves) -> Output {
        Output::F16(c)
    }
}

/// A product `c = alpha · a · op(b) + beta · c` of row-major matrices in
/// `batches` strided batches: `a` `m × k`, `op(b)` `k × n` (`b` itself,
/// or with `b_transposed` the transpose of `b`, `n × k`), `c` `m × n` in
/// single precision or halves. Each has its row stride (`ld_a`, `ld_b`, `ld_c`, in
/// elements: a row of a wider matrix) and its step from one batch to the
/// next (`step_a`, `step_b`, `step_c`), as cuBLAS's strided batches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Gemm {
    pub m: usize,
    pub k: usize,
    pub n: usize,
    pub factors: Factors,
    pub c: Output,
    pub alpha: f32,
    pub beta: f32,
    pub b_transposed: bool,
    pub ld_a: usize,
    pub ld_b: usize,
    pub ld_c: usize,
    pub batches: usize,
    pub step_a: usize,
    pub step_b: usize,
    pub step_c: usize,
}

impl Gemm {
    /// One product of packed matrices (each row right after the one
    /// before), `c = alpha · a · b + beta · c`.
    pub(crate) fn packed(
        (m, k, n): (usize, usize, usize),
        factors: Factors,
        c: Output,
        alpha: f32,
        beta: f32,
    ) -> Gemm {
        Gemm {
            m,
            k,
            n,
            factors,
            c,
            alpha,
            beta,
            b_transposed: false,
            ld_a: k,
            ld_b: n,
            ld_c: n,
            batches: 1,
            step_a: 0,
            step_b: 0,
            step_c: 0,
        }
    }
}

/// A convolution's tensors, all of one precision: the input `x` and the
/// output `y` as `[board][y][x][channel]` (NHWC), the filter `w` as
/// `[out][ky][kx][in]` (KRSC).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum ConvTensors {
    /// Single precision, multiplied exactly so (CUDA's cores).
    F32 { x: F32s, w: F32s, y: F32s },
    /// Half precision, the sums in single and the output rounded to
    /// halves (the tensor cores).
    F16 { x: Halves, w: Halves, y: Halves },
}

/// A library's convolution (cuDNN's `cudnnConvolutionForward`): `y =
/// alpha · conv(x, w) + beta · y` over `batch` boards of `height × width`
/// points, `cin` channels in and `cout` out, a `size × size` filter
/// zero-padded by `size / 2` so that the board keeps its size, stride 1,
/// no dilation, cross-correlation (the filter not flipped).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Convolution {
    pub batch: usize,
    pub height: usize,
    pub width: usize,
    pub cin: usize,
    pub cout: usize,
    pub size: usize,
    pub tensors: ConvTensors,
    pub alpha: f32,
    pub beta: f32,
}

/// Host memory that a queue's copies read and write: plain memory, or a
/// GPU's page-locked memory, which its copies reach at the bus's rate and
/// queue without blocking the host (CUDA copies from plain memory through
/// a staging buffer, the host waiting).
pub(crate) trait HostMemory: Send {
    fn values(&self) -> &[f32];
    fn values_mut(&mut self) -> &mut [f32];
}

impl HostMemory for Vec<f32> {
    fn values(&self) -> &[f32] {
        self
    }

    fn values_mut(&mut self) -> &mut [f32] {
        self
    }
}

/// A queue's host memory, read and written as a slice of values.
pub(crate) struct HostBuffer(Box<dyn HostMemory>);

impl HostBuffer {
    /// `n` zeroed values of plain memory.
    pub(crate) fn plain(n: usize) -> HostBuffer {
        HostBuffer(Box::new(vec![0.0; n]))
    }

    /// A GPU's own host memory (CUDA's page-locked).
    #[cfg(feature = "cuda")]
    pub(crate) fn new(memory: Box<dyn HostMemory>) -> HostBuffer {
        HostBuffer(memory)
    }
}

impl std::ops::Deref for HostBuffer {
    type Target = [f32];
    fn deref(&self) -> &[f32] {
        self.0.values()
    }
}

impl std::ops::DerefMut for HostBuffer {
    fn deref_mut(&mut self) -> &mut [f32] {
        self.0.values_mut()
    }
}

/// A device: a GPU, or the tests' emulator of one.
pub(crate) trait Device: Send + Sync {
    /// Its name, as the backend's name gives it.
    fn name(&self) -> String;
    /// Keeps `values` on the device for good; their address.
    fn keep(&self, values: &[f32]) -> Result<F32s, String>;
    /// Keeps half-precision `bits` on the device for good; their address.
    fn keep_halves(&self, bits: &[u16]) -> Result<Halves, String>;
    /// A new queue, for one thread's evaluations.
    fn queue(&self) -> Result<Box<dyn Queue>, String>;
    /// The library whose convolutions its queues run (`convolve`), and
    /// its version, or why there is none.
    fn convolutions(&self) -> Result<String, String>;
    /// Whether its kernels have the warps' products on the tensor cores
    /// (`mma.sync` m16n8k16 in halves: compute capability 8.0 on), or why
    /// not.
    fn warp_products(&self) -> Result<(), String>;
}

/// One thread's work on a device, in order.
pub(crate) trait Queue: Send {
    /// Frees everything this queue allocated.
    fn free(&mut self);
    /// `n` zeroed single-precision values; their address.
    fn alloc(&mut self, n: usize) -> Result<F32s, String>;
    /// `n` zeroed half-precision values; their address.
    fn alloc_halves(&mut self, n: usize) -> Result<Halves, String>;
    /// `n` zeroed values of host memory for this queue's copies: a GPU's
    /// page-locked memory where it gives it, plain memory otherwise.
    fn host(&mut self, n: usize) -> HostBuffer {
        HostBuffer::plain(n)
    }
    /// Copies `src` to the device at `dst`.
    fn upload(&mut self, src: &[f32], dst: F32s) -> Result<(), String>;
    /// Copies `dst.len()` values from the device at `src`.
    fn download(&mut self, src: F32s, dst: &mut [f32]) -> Result<(), String>;
    /// Runs `kernel` on `args`.
    fn launch(&mut self, kernel: Kernel, launch: Launch, args: &[Arg]) -> Result<(), String>;
    /// Runs a product.
    fn gemm(&mut self, gemm: Gemm) -> Result<(), String>;
    /// Runs a library's convolution, or says why there is none.
    fn convolve(&mut self, convolution: Convolution) -> Result<(), String>;
    /// Makes ready what a convolution of this shape needs (its algorithm,
    /// its workspace) without running one, so that none is allocated
    /// while a graph is captured.
    fn plan_convolution(&mut self, convolution: Convolution) -> Result<(), String> {
        let _ = convolution;
        Ok(())
    }
    /// Waits until everything queued is done.
    fn synchronize(&mut self) -> Result<(), String>;
    /// Marks the point the queue's work has reached (a CUDA event), for
    /// timing the work between marks.
    fn mark(&mut self) -> Result<(), String>;
    /// After [`Queue::synchronize`], the milliseconds from each mark to
    /// the next, in order; the marks are then forgotten.
    fn take_mark_intervals(&mut self) -> Result<Vec<f64>, String>;
    /// From now on records the launches and products queued into a graph
    /// instead of running them (CUDA's stream capture).
    fn begin_capture(&mut self) -> Result<(), String>;
    /// Ends the recording: the graph's number, to replay.
    fn end_capture(&mut self) -> Result<usize, String>;
    /// Runs graph `graph` once, in order with the rest of the queue's work.
    fn replay(&mut self, graph: usize) -> Result<(), String>;
}
