//! What a GPU program's executor asks of a device: its weights kept, and
//! queues (one a thread that evaluates) that allocate memory, copy to and
//! from it, launch the [`kernels`](super::kernels) and multiply matrices, in order.
//! CUDA is one device (`cuda.rs`); the tests' emulator, which runs the
//! same kernels compiled for the host, is the other, so that the executor
//! and the kernels are held to the CPU backend without a GPU.

use super::kernels::Kernel;

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

/// A product `c = alpha · a · b + beta · c` of row-major matrices: `a`
/// `m × k`, `b` `k × n`, `c` `m × n` in single precision; `a` and `b` in
/// half precision with `half` (their sums in single).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Gemm {
    pub m: usize,
    pub k: usize,
    pub n: usize,
    pub a: u64,
    pub b: u64,
    pub c: u64,
    pub alpha: f32,
    pub beta: f32,
    pub half: bool,
}

/// A device: a GPU, or the tests' emulator of one.
pub(crate) trait Device: Send + Sync {
    /// Its name, as the backend's name gives it.
    fn name(&self) -> String;
    /// Keeps `values` on the device for good; their address.
    fn keep(&self, values: &[f32]) -> Result<u64, String>;
    /// Keeps half-precision `bits` on the device for good; their address.
    fn keep_halves(&self, bits: &[u16]) -> Result<u64, String>;
    /// A new queue, for one thread's evaluations.
    fn queue(&self) -> Result<Box<dyn Queue>, String>;
}

/// One thread's work on a device, in order.
pub(crate) trait Queue: Send {
    /// Frees everything this queue allocated.
    fn free(&mut self);
    /// `n` zeroed single-precision values; their address.
    fn alloc(&mut self, n: usize) -> Result<u64, String>;
    /// `n` zeroed half-precision values; their address.
    fn alloc_halves(&mut self, n: usize) -> Result<u64, String>;
    /// Copies `src` to the device at `dst`.
    fn upload(&mut self, src: &[f32], dst: u64) -> Result<(), String>;
    /// Copies `dst.len()` values from the device at `src`.
    fn download(&mut self, src: u64, dst: &mut [f32]) -> Result<(), String>;
    /// Runs `kernel` on `args`.
    fn launch(&mut self, kernel: Kernel, launch: Launch, args: &[Arg]) -> Result<(), String>;
    /// Runs a product.
    fn gemm(&mut self, gemm: Gemm) -> Result<(), String>;
    /// Waits until everything queued is done.
    fn synchronize(&mut self) -> Result<(), String>;
    /// Marks the point the queue's work has reached (a CUDA event), for
    /// timing the work between marks.
    fn mark(&mut self) -> Result<(), String>;
    /// After [`Queue::synchronize`], the milliseconds from each mark to
    /// the next, in order; the marks are then forgotten.
    fn take_mark_intervals(&mut self) -> Result<Vec<f64>, String>;
}
