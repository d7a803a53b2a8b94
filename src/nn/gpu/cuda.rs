//! CUDA's executor of a [`Program`]: the weights uploaded once, each
//! operation a kernel of `kernels.cu` (compiled by NVRTC for the GPU at
//! hand) or a cuBLAS product, in single precision. A workspace is a CUDA
//! stream with its own cuBLAS handle and its own buffers, so that the
//! threads that evaluate run their batches side by side. The libraries are
//! loaded at run time (cudarc's dynamic loading): a build with the `cuda`
//! feature runs on a machine without CUDA, where [`open`] says why there is
//! no GPU rather than failing inside the loader.

use super::program::{Angles, Buf, Extent, Op, Pool, Program};
use super::{KERNELS, Kernel};
use crate::go::board::BoardSize;
use crate::nn::backend::{Arithmetic, Backend, Inputs, RawOutput, Shape, Workspace};
use crate::nn::model::{Activation, ModelDesc};
use cudarc::cublas::{CudaBlas, sys::cublasOperation_t};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg,
};
use std::sync::{Arc, Mutex};

/// The most boards a batch holds on a GPU unless told otherwise (KataGo's
/// `nnMaxBatchSize`).
pub(crate) const MAX_BATCH: usize = 256;

/// Threads a block of the element-wise kernels, and of the RMSNorm's (a
/// power of two: its sums are halved in turn).
const BLOCK: u32 = 256;

/// Threads a block of the attention kernel (a power of two, at most 256).
const ATTENTION_THREADS: u32 = 128;

/// Why there is no GPU to run on: a library missing, no device, or a
/// device that failed to start.
pub(crate) fn probe(gpu: usize) -> Result<Arc<CudaContext>, String> {
    // SAFETY: each only tries to open the library by its names.
    let present = unsafe {
        [
            (
                "the CUDA driver (libcuda)",
                cudarc::driver::sys::is_culib_present(),
            ),
            ("NVRTC (libnvrtc)", cudarc::nvrtc::sys::is_culib_present()),
            (
                "cuBLAS (libcublas)",
                cudarc::cublas::sys::is_culib_present(),
            ),
        ]
    };
    if let Some((name, _)) = present.iter().find(|(_, here)| !here) {
        return Err(format!("{name} is not on this machine"));
    }
    let count = CudaContext::device_count().map_err(|e| format!("CUDA: {e}"))?;
    if gpu >= count.max(0) as usize {
        return Err(match count {
            0 => "the CUDA driver finds no GPU".to_string(),
            n => format!(
                "there is no GPU {gpu}: the CUDA driver finds {n} (0 to {})",
                n - 1
            ),
        });
    }
    CudaContext::new(gpu).map_err(|e| format!("GPU {gpu} does not start: {e}"))
}

/// Whether GPU `gpu` has tensor cores (compute capability 7 on), where
/// half-precision products pay.
pub(crate) fn has_tensor_cores(gpu: usize) -> Result<bool, String> {
    let (major, _) = probe(gpu)?
        .compute_capability()
        .map_err(said("the compute capability"))?;
    Ok(major >= 7)
}

/// A program ready on a GPU.
pub(crate) struct CudaNetwork {
    program: Program,
    ctx: Arc<CudaContext>,
    device: String,
    /// The weights on the device, and their addresses.
    _weights: Vec<CudaSlice<f32>>,
    weight_ptrs: Vec<u64>,
    /// In half precision, the convolutions' weights again as halves (the
    /// address of each, 0 for the weights of other operations).
    half: bool,
    _half_weights: Vec<CudaSlice<u16>>,
    half_ptrs: Vec<u64>,
    /// The most boards a batch holds.
    max_batch: usize,
    /// The kernels, loaded for this GPU, in [`Kernel::ALL`]'s order.
    kernels: Vec<CudaFunction>,
    /// One workspace made at load for the largest batch on 19×19, so that
    /// a GPU without the memory for it refuses the net at once; the first
    /// thread to evaluate takes it.
    first: Mutex<Option<CudaWorkspace>>,
}

/// A failure of the device, as the user reads it.
fn said(what: &str) -> impl Fn(cudarc::driver::DriverError) -> String + '_ {
    move |e| format!("CUDA: {what}: {e}")
}

/// The CUDA number of an activation, as `kernels.cu` reads it.
fn act_code(act: Activation) -> i32 {
    match act {
        Activation::Identity => 0,
        Activation::Relu => 1,
        Activation::Mish => 2,
        Activation::Silu => 3,
    }
}

/// The launch of `n` threads, one a value.
fn threads(n: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: ((n as u64).div_ceil(u64::from(BLOCK)).max(1) as u32, 1, 1),
        block_dim: (BLOCK, 1, 1),
        shared_mem_bytes: 0,
    }
}

impl CudaNetwork {
    /// `desc` compiled and uploaded to GPU `gpu`, its products' factors
    /// in half precision with `half` (sums in single), batches of up to
    /// `max_batch` boards, or why not.
    pub(crate) fn open(
        desc: &ModelDesc,
        gpu: usize,
        half: bool,
        max_batch: usize,
    ) -> Result<CudaNetwork, String> {
        let max_batch = max_batch.clamp(1, MAX_BATCH);
        let program = Program::compile(desc);
        let ctx = probe(gpu)?;
        let device = ctx.name().map_err(said("the device's name"))?;
        let (major, minor) = ctx
            .compute_capability()
            .map_err(said("the compute capability"))?;
        // The kernels compiled for this GPU's architecture.
        let arch: &'static str = Box::leak(format!("compute_{major}{minor}").into_boxed_str());
        let options = cudarc::nvrtc::CompileOptions {
            arch: Some(arch),
            ..Default::default()
        };
        let ptx = cudarc::nvrtc::compile_ptx_with_opts(KERNELS, options)
            .map_err(|e| format!("NVRTC: the kernels do not compile for {arch}: {e:?}"))?;
        let module = ctx.load_module(ptx).map_err(said("the kernels' module"))?;
        let kernels = Kernel::ALL
            .iter()
            .map(|k| module.load_function(k.name()).map_err(said(k.name())))
            .collect::<Result<Vec<_>, String>>()?;
        let stream = ctx.default_stream();
        let mut weights = Vec::new();
        let mut weight_ptrs = Vec::new();
        for w in &program.weights {
            let slice = stream
                .clone_htod(&w[..])
                .map_err(said("the weights (out of GPU memory?)"))?;
            weight_ptrs.push(slice.device_ptr(&stream).0);
            weights.push(slice);
        }
        let mut half_weights = Vec::new();
        let mut half_ptrs = vec![0u64; program.weights.len()];
        if half {
            for op in &program.ops {
                if let Op::Conv { weights: w, .. } = *op {
                    let halves: Vec<u16> = program.weights[w.0]
                        .iter()
                        .map(|&x| ::half::f16::from_f32(x).to_bits())
                        .collect();
                    let slice = stream
                        .clone_htod(&halves[..])
                        .map_err(said("the weights in half precision (out of GPU memory?)"))?;
                    half_ptrs[w.0] = slice.device_ptr(&stream).0;
                    half_weights.push(slice);
                }
            }
        }
        stream.synchronize().map_err(said("the weights' upload"))?;
        let mut net = CudaNetwork {
            program,
            ctx,
            device,
            _weights: weights,
            weight_ptrs,
            half,
            _half_weights: half_weights,
            half_ptrs,
            max_batch,
            kernels,
            first: Mutex::new(None),
        };
        let first = net
            .new_workspace(Shape::of(BoardSize::square(19), max_batch))
            .map_err(|why| format!("CUDA: a batch of {max_batch} boards of 19×19: {why}"))?;
        net.first = Mutex::new(Some(first));
        Ok(net)
    }

    fn kernel(&self, kernel: Kernel) -> &CudaFunction {
        &self.kernels[kernel as usize]
    }

    /// A stream, a cuBLAS handle and buffers for batches up to `shape`.
    fn new_workspace(&self, shape: Shape) -> Result<CudaWorkspace, String> {
        let stream = self.ctx.new_stream().map_err(said("a stream"))?;
        let blas = CudaBlas::new(stream.clone()).map_err(|e| format!("cuBLAS: {e:?}"))?;
        let mut ws = CudaWorkspace {
            stream,
            blas,
            rows: 0,
            batch: 0,
            buffers: Vec::new(),
            ptrs: Vec::new(),
            col: None,
            col_ptr: 0,
            col_half: None,
            col_half_ptr: 0,
            host: Vec::new(),
            failed: None,
        };
        ws.fit(&self.program, shape, self.half)?;
        Ok(ws)
    }

    /// Runs the program on `ws`'s inputs (uploaded first) and downloads
    /// the heads.
    fn run(
        &self,
        shape: Shape,
        ws: &mut CudaWorkspace,
        out: &mut [RawOutput],
    ) -> Result<(), String> {
        let p = &self.program;
        let s = ws.stream.clone();
        let inputs = [
            Some(p.spatial_input),
            Some(p.global_input),
            p.metadata_input,
        ];
        for buf in inputs.into_iter().flatten() {
            let n = p.buffers[buf.0].len(shape);
            let (host, device) = (&ws.host[buf.0], &mut ws.buffers[buf.0]);
            s.memcpy_htod(&host[..n], &mut device.slice_mut(..n))
                .map_err(said("the inputs' upload"))?;
        }
        let rows = shape.rows() as i32;
        let points = shape.points() as i32;
        let batch = shape.batch as i32;
        let ptrs = &ws.ptrs;
        let weight_ptrs = &self.weight_ptrs;
        let buf = |b: Buf| &ptrs[b.0];
        let w = |i: super::program::Weights| &weight_ptrs[i.0];
        for op in &p.ops {
            // SAFETY (each launch and product): every address is of a
            // buffer sized by `fit` for at least this shape, or of a
            // weight tensor the program sized for the operation; the
            // kernels' arguments match kernels.cu's signatures.
            match *op {
                Op::Conv {
                    src,
                    dst,
                    weights,
                    size,
                    cin,
                    cout,
                    accumulate,
                } if self.half => {
                    // The input in halves, scaled down by 8; the product
                    // scales back up.
                    let k = size * size * cin;
                    let n = shape.rows() * k;
                    let (width, height) = (shape.width as i32, shape.height as i32);
                    let (cin, size_arg) = (cin as i32, size as i32);
                    let count = n as i64;
                    let mut l = if size == 1 {
                        let mut l = s.launch_builder(self.kernel(Kernel::ToHalf));
                        l.arg(buf(src)).arg(&ws.col_half_ptr).arg(&count);
                        l
                    } else {
                        let mut l = s.launch_builder(self.kernel(Kernel::Im2colHalf));
                        l.arg(buf(src))
                            .arg(&ws.col_half_ptr)
                            .arg(&batch)
                            .arg(&width);
                        l.arg(&height).arg(&cin).arg(&size_arg);
                        l
                    };
                    l.arg(&INPUT_SCALE);
                    unsafe { l.launch(threads(n)) }.map_err(said("the halves"))?;
                    let beta = if accumulate { 1.0 } else { 0.0 };
                    let (a, b) = (ws.col_half_ptr, self.half_ptrs[weights.0]);
                    let scale = 1.0 / INPUT_SCALE;
                    unsafe {
                        gemm_half(
                            &ws.blas,
                            shape.rows(),
                            k,
                            cout,
                            a,
                            b,
                            *buf(dst),
                            scale,
                            beta,
                        )
                    }?;
                }
                Op::Conv {
                    src,
                    dst,
                    weights,
                    size,
                    cin,
                    cout,
                    accumulate,
                } => {
                    let k = size * size * cin;
                    let a = if size == 1 {
                        *buf(src)
                    } else {
                        let n = shape.rows() * k;
                        let (width, height) = (shape.width as i32, shape.height as i32);
                        let (cin, size) = (cin as i32, size as i32);
                        let mut l = s.launch_builder(self.kernel(Kernel::Im2col));
                        l.arg(buf(src)).arg(&ws.col_ptr).arg(&batch).arg(&width);
                        l.arg(&height).arg(&cin).arg(&size);
                        unsafe { l.launch(threads(n)) }.map_err(said("im2col"))?;
                        ws.col_ptr
                    };
                    let beta = if accumulate { 1.0 } else { 0.0 };
                    unsafe {
                        gemm(
                            &ws.blas,
                            shape.rows(),
                            k,
                            cout,
                            a,
                            *w(weights),
                            *buf(dst),
                            beta,
                        )
                    }?;
                }
                Op::NormAct {
                    src,
                    dst,
                    channels,
                    scale,
                    bias,
                    extra,
                    act,
                } => {
                    let extra = extra.map_or(0u64, |e| *buf(e));
                    let (c, act) = (channels as i32, act_code(act));
                    let mut l = s.launch_builder(self.kernel(Kernel::NormAct));
                    l.arg(buf(src)).arg(buf(dst)).arg(w(scale)).arg(w(bias));
                    l.arg(&extra).arg(&rows).arg(&points).arg(&c).arg(&act);
                    unsafe { l.launch(threads(shape.rows() * channels)) }
                        .map_err(said("norm_act"))?;
                }
                Op::MatMul {
                    src,
                    dst,
                    weights,
                    cin,
                    cout,
                } => unsafe {
                    gemm(
                        &ws.blas,
                        shape.batch,
                        cin,
                        cout,
                        *buf(src),
                        *w(weights),
                        *buf(dst),
                        0.0,
                    )
                }?,
                Op::BiasAct {
                    dst,
                    bias,
                    channels,
                    act,
                } => {
                    let (c, act) = (channels as i32, act_code(act));
                    let mut l = s.launch_builder(self.kernel(Kernel::BiasAct));
                    l.arg(buf(dst)).arg(w(bias)).arg(&batch).arg(&c).arg(&act);
                    unsafe { l.launch(threads(shape.batch * channels)) }
                        .map_err(said("bias_act"))?;
                }
                Op::AddSpatialBias { src, dst, channels } => {
                    let c = channels as i32;
                    let mut l = s.launch_builder(self.kernel(Kernel::AddSpatialBias));
                    l.arg(buf(src))
                        .arg(buf(dst))
                        .arg(&rows)
                        .arg(&points)
                        .arg(&c);
                    unsafe { l.launch(threads(shape.rows() * channels)) }
                        .map_err(said("add_spatial_bias"))?;
                }
                Op::Pool {
                    src,
                    dst,
                    channels,
                    third,
                } => {
                    let (c, quadratic) = (channels as i32, i32::from(third == Pool::Quadratic));
                    let mut l = s.launch_builder(self.kernel(Kernel::Pool));
                    l.arg(buf(src)).arg(buf(dst)).arg(&batch).arg(&points);
                    l.arg(&c).arg(&quadratic);
                    unsafe { l.launch(threads(shape.batch * channels)) }.map_err(said("pool"))?;
                }
                Op::RmsNorm {
                    src,
                    dst,
                    channels,
                    gamma,
                    beta,
                    epsilon,
                    board,
                    act,
                } => {
                    let beta = beta.map_or(0u64, |b| *w(b));
                    let (c, board_wide, act) = (channels as i32, i32::from(board), act_code(act));
                    let blocks = if board { shape.batch } else { shape.rows() };
                    let mut l = s.launch_builder(self.kernel(Kernel::RmsNorm));
                    l.arg(buf(src)).arg(buf(dst)).arg(w(gamma)).arg(&beta);
                    l.arg(&points)
                        .arg(&c)
                        .arg(&epsilon)
                        .arg(&board_wide)
                        .arg(&act);
                    let config = LaunchConfig {
                        grid_dim: (blocks as u32, 1, 1),
                        block_dim: (BLOCK, 1, 1),
                        shared_mem_bytes: 0,
                    };
                    unsafe { l.launch(config) }.map_err(said("rms_norm"))?;
                }
                Op::Rope {
                    values,
                    heads,
                    dim,
                    angles,
                } => {
                    let (freqs, tables, theta) = match angles {
                        Angles::Learned { freqs, tables } => (*w(freqs), tables as i32, 0.0f32),
                        Angles::Fixed { theta } => (0u64, 0, theta),
                    };
                    let (width, h, d) = (shape.width as i32, heads as i32, dim as i32);
                    let mut l = s.launch_builder(self.kernel(Kernel::Rope));
                    l.arg(buf(values))
                        .arg(&rows)
                        .arg(&points)
                        .arg(&width)
                        .arg(&h)
                        .arg(&d);
                    l.arg(&freqs).arg(&tables).arg(&theta);
                    unsafe { l.launch(threads(shape.rows() * heads * (dim / 2))) }
                        .map_err(said("rope"))?;
                }
                Op::Attention {
                    q,
                    k,
                    v,
                    out,
                    heads,
                    kv_heads,
                    dim,
                    v_dim,
                } => {
                    let (h, kvh, d, vd) = (heads as i32, kv_heads as i32, dim as i32, v_dim as i32);
                    let mut l = s.launch_builder(self.kernel(Kernel::Attention));
                    l.arg(buf(q)).arg(buf(k)).arg(buf(v)).arg(buf(out));
                    l.arg(&points).arg(&h).arg(&kvh).arg(&d).arg(&vd);
                    let config = LaunchConfig {
                        grid_dim: (shape.points() as u32, heads as u32, shape.batch as u32),
                        block_dim: (ATTENTION_THREADS, 1, 1),
                        shared_mem_bytes: (shape.points() * 4) as u32,
                    };
                    unsafe { l.launch(config) }.map_err(said("attention"))?;
                }
                Op::SwiGlu {
                    hidden,
                    gate,
                    channels,
                } => {
                    let n = (shape.rows() * channels) as i64;
                    let mut l = s.launch_builder(self.kernel(Kernel::SwiGlu));
                    l.arg(buf(hidden)).arg(buf(gate)).arg(&n);
                    unsafe { l.launch(threads(n as usize)) }.map_err(said("swiglu"))?;
                }
            }
        }
        let h = p.heads;
        for b in [h.policy, h.pass, h.value, h.score, h.ownership] {
            let n = p.buffers[b.0].len(shape);
            let (device, host) = (&ws.buffers[b.0], &mut ws.host[b.0]);
            s.memcpy_dtoh(&device.slice(..n), &mut host[..n])
                .map_err(said("the heads' download"))?;
        }
        s.synchronize().map_err(said("the forward pass"))?;
        let host = &ws.host;
        p.read_heads(shape, |b| &host[b.0][..], out);
        Ok(())
    }
}

/// `c = a · b + beta · c` for the row-major `m × k` matrix at `a`, the
/// row-major `k × n` matrix at `b` and the row-major `m × n` one at `c`:
/// in cuBLAS's column-major terms, `cᵀ = bᵀ · aᵀ`.
///
/// # Safety
/// The addresses hold matrices of those sizes on the handle's device.
#[allow(clippy::too_many_arguments)]
unsafe fn gemm(
    blas: &CudaBlas,
    m: usize,
    k: usize,
    n: usize,
    a: u64,
    b: u64,
    c: u64,
    beta: f32,
) -> Result<(), String> {
    let alpha = 1.0f32;
    let (m, k, n) = (m as i32, k as i32, n as i32);
    // SAFETY: as the caller promises.
    unsafe {
        cudarc::cublas::result::sgemm(
            *blas.handle(),
            cublasOperation_t::CUBLAS_OP_N,
            cublasOperation_t::CUBLAS_OP_N,
            n,
            m,
            k,
            &alpha,
            b as *const f32,
            n,
            a as *const f32,
            k,
            &beta,
            c as *mut f32,
            n,
        )
    }
    .map_err(|e| format!("cuBLAS: a product of {m}×{k} by {k}×{n}: {e:?}"))
}

/// `c = alpha · a · b + beta · c` as [`gemm`], `a` and `b` in half
/// precision, `c` and the sums in single (the tensor cores').
///
/// # Safety
/// The addresses hold matrices of those sizes and types on the handle's
/// device.
#[allow(clippy::too_many_arguments)]
unsafe fn gemm_half(
    blas: &CudaBlas,
    m: usize,
    k: usize,
    n: usize,
    a: u64,
    b: u64,
    c: u64,
    alpha: f32,
    beta: f32,
) -> Result<(), String> {
    use cudarc::cublas::sys::{cublasComputeType_t, cublasGemmAlgo_t, cudaDataType};
    let (m, k, n) = (m as i32, k as i32, n as i32);
    // SAFETY: as the caller promises; alpha and beta are single precision,
    // as CUBLAS_COMPUTE_32F reads them.
    unsafe {
        cudarc::cublas::result::gemm_ex(
            *blas.handle(),
            cublasOperation_t::CUBLAS_OP_N,
            cublasOperation_t::CUBLAS_OP_N,
            n,
            m,
            k,
            (&alpha as *const f32).cast(),
            b as *const std::ffi::c_void,
            cudaDataType::CUDA_R_16F,
            n,
            a as *const std::ffi::c_void,
            cudaDataType::CUDA_R_16F,
            k,
            (&beta as *const f32).cast(),
            c as *mut std::ffi::c_void,
            cudaDataType::CUDA_R_32F,
            n,
            cublasComputeType_t::CUBLAS_COMPUTE_32F,
            cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
        )
    }
    .map_err(|e| format!("cuBLAS: a half-precision product of {m}×{k} by {k}×{n}: {e:?}"))
}

/// What a product's input is multiplied by on its way to half precision
/// (and the product by its inverse): KataGo's "Scale8", which keeps a
/// mish net's large activations inside half precision's range.
const INPUT_SCALE: f32 = 0.125;

/// One thread's stream, cuBLAS handle and buffers on the GPU, and the
/// host's copies of the inputs and heads.
pub(crate) struct CudaWorkspace {
    stream: Arc<CudaStream>,
    blas: CudaBlas,
    /// The rows (points × boards) and boards the buffers hold.
    rows: usize,
    batch: usize,
    buffers: Vec<CudaSlice<f32>>,
    ptrs: Vec<u64>,
    col: Option<CudaSlice<f32>>,
    col_ptr: u64,
    /// The products' input in half precision (the im2col matrix, or a 1×1
    /// convolution's input).
    col_half: Option<CudaSlice<u16>>,
    col_half_ptr: u64,
    host: Vec<Vec<f32>>,
    /// The first failure of this workspace's device work, said once.
    failed: Option<String>,
}

// SAFETY: a workspace is used by one thread at a time (the evaluator's
// pool hands it out); its stream and handle are not shared.
unsafe impl Send for CudaWorkspace {}

impl CudaWorkspace {
    /// Grows the buffers to hold `shape`: the host's copies always, the
    /// GPU's where its memory allows.
    fn fit(&mut self, program: &Program, shape: Shape, half: bool) -> Result<(), String> {
        if shape.rows() <= self.rows && shape.batch <= self.batch {
            return Ok(());
        }
        // A spatial buffer holds channels × rows, a global one values ×
        // boards: sized for the most rows and boards seen, together.
        let (rows, batch) = (shape.rows().max(self.rows), shape.batch.max(self.batch));
        let len = |extent: &Extent| match *extent {
            Extent::Spatial(c) => c * rows,
            Extent::Global(v) => v * batch,
        };
        self.host = program.buffers.iter().map(|e| vec![0.0; len(e)]).collect();
        let stream = self.stream.clone();
        let alloc = |n: usize| -> Result<CudaSlice<f32>, String> {
            stream
                .alloc_zeros::<f32>(n.max(1))
                .map_err(|e| format!("{} MiB on the GPU: {e}", (n * 4) >> 20))
        };
        let buffers = program
            .buffers
            .iter()
            .map(|e| alloc(len(e)))
            .collect::<Result<Vec<_>, String>>()?;
        let rows_shape = Shape {
            width: rows,
            height: 1,
            batch: 1,
        };
        // Single precision needs an im2col matrix for the larger kernels;
        // half precision a copy of every product's input.
        if half {
            let widest = program.ops.iter().map(|op| match op {
                Op::Conv { cin, .. } => cin * rows,
                _ => 0,
            });
            let n = program
                .im2col_len(rows_shape)
                .max(widest.max().unwrap_or(0));
            let col_half = stream
                .alloc_zeros::<u16>(n.max(1))
                .map_err(|e| format!("{} MiB on the GPU: {e}", (n * 2) >> 20))?;
            self.col_half_ptr = col_half.device_ptr(&stream).0;
            self.col_half = Some(col_half);
        }
        let col = alloc(if half {
            0
        } else {
            program.im2col_len(rows_shape)
        })?;
        self.ptrs = buffers.iter().map(|b| b.device_ptr(&stream).0).collect();
        self.col_ptr = col.device_ptr(&stream).0;
        self.buffers = buffers;
        self.col = Some(col);
        self.rows = rows;
        self.batch = batch;
        Ok(())
    }
}

impl Workspace for CudaWorkspace {
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

/// A workspace that could not be made: its inputs are the host's alone,
/// and every evaluation through it fails with the reason.
struct Broken {
    why: String,
    inputs: [Vec<f32>; 3],
}

impl Workspace for Broken {
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

/// Says once a process what failed on the GPU.
fn failed_once(why: &str) {
    static SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if !SAID.swap(true, std::sync::atomic::Ordering::Relaxed) {
        eprintln!("kosumi: the GPU failed ({why}); its evaluations are dropped");
    }
}

/// Marks every output as no evaluation: a NaN the searches drop.
fn no_outputs(out: &mut [RawOutput]) {
    for o in out {
        o.value = [f32::NAN; 3];
        o.pass = f32::NAN;
    }
}

impl Backend for CudaNetwork {
    fn name(&self) -> String {
        let precision = if self.half { "f16" } else { "f32" };
        format!("cuda {} {precision}", self.device)
    }

    fn max_batch(&self, _size: BoardSize) -> usize {
        self.max_batch
    }

    fn preferred_batch(&self, size: BoardSize) -> usize {
        // Enough boards to fill the GPU: about 128 of 19×19 (PyTorch's
        // anchor reaches its rate there), more of smaller boards.
        (128 * 361 / size.points().max(1))
            .clamp(16, MAX_BATCH)
            .min(self.max_batch)
    }

    fn arithmetic(&self) -> Arithmetic {
        if self.half {
            Arithmetic::F16
        } else {
            Arithmetic::F32
        }
    }

    fn workspace(&self) -> Box<dyn Workspace> {
        if let Some(ws) = self.first.lock().unwrap_or_else(|e| e.into_inner()).take() {
            return Box::new(ws);
        }
        match self.new_workspace(Shape::of(BoardSize::square(19), 1)) {
            Ok(ws) => Box::new(ws),
            Err(why) => Box::new(Broken {
                why,
                inputs: Default::default(),
            }),
        }
    }

    fn inputs<'a>(&self, ws: &'a mut dyn Workspace, shape: Shape) -> Inputs<'a> {
        let p = &self.program;
        let (spatial, global) = (
            p.buffers[p.spatial_input.0].len(shape),
            p.buffers[p.global_input.0].len(shape),
        );
        let metadata = p.metadata_input.map_or(0, |b| p.buffers[b.0].len(shape));
        let any = ws.as_any_mut();
        if any.is::<Broken>() {
            // Inputs to nowhere: the pass fails with the reason.
            let broken: &mut Broken = any.downcast_mut().expect("a broken workspace");
            let [s, g, m] = &mut broken.inputs;
            for (v, n) in [(&mut *s, spatial), (&mut *g, global), (&mut *m, metadata)] {
                v.resize(n, 0.0);
            }
            return Inputs {
                spatial: s,
                global: g,
                metadata: m,
            };
        }
        let ws: &mut CudaWorkspace = any.downcast_mut().expect("a CUDA workspace");
        if let Err(why) = ws.fit(p, shape, self.half) {
            ws.failed = Some(format!("CUDA: {why}"));
        }
        let mut spatial_values: &mut [f32] = &mut [];
        let mut global_values: &mut [f32] = &mut [];
        let mut metadata_values: &mut [f32] = &mut [];
        for (i, v) in ws.host.iter_mut().enumerate() {
            if i == p.spatial_input.0 {
                spatial_values = &mut v[..spatial];
            } else if i == p.global_input.0 {
                global_values = &mut v[..global];
            } else if Some(i) == p.metadata_input.map(|b| b.0) {
                metadata_values = &mut v[..metadata];
            }
        }
        Inputs {
            spatial: spatial_values,
            global: global_values,
            metadata: metadata_values,
        }
    }

    fn forward(&self, shape: Shape, ws: &mut dyn Workspace, out: &mut [RawOutput]) {
        let any = ws.as_any_mut();
        if let Some(Broken { why, .. }) = any.downcast_ref::<Broken>() {
            failed_once(why);
            no_outputs(out);
            return;
        }
        let ws: &mut CudaWorkspace = any.downcast_mut().expect("a CUDA workspace");
        let result = match ws.failed.clone() {
            Some(why) => Err(why),
            None => self.run(shape, ws, out),
        };
        if let Err(why) = result {
            ws.failed = Some(why.clone());
            failed_once(&why);
            no_outputs(out);
        }
    }

    fn macs(&self, size: BoardSize) -> f64 {
        self.program.macs(size.points())
    }

    fn peak_flops_per_cycle(&self) -> f64 {
        // A GPU's peak is not counted by a core's cycles; `bench` gives a
        // GPU's rate beside its evaluations a second instead.
        0.0
    }
}
