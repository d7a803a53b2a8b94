//! A GPU program run on a [`Device`]: the weights kept on it once (again
//! as halves for the products in half precision), and each operation one
//! launch of a `kernels.cu` kernel or one product, on the queue of the
//! thread that evaluates. A workspace is a queue with its own buffers, so
//! that the threads that evaluate run their batches side by side. The
//! backend is the same whatever the device: CUDA on a GPU, or the tests'
//! emulator of one.

use super::Kernel;
use super::device::{Arg, Device, Gemm, Launch, Queue};
use super::program::{Angles, Buf, Extent, Op, Pool, Program};
use crate::go::board::BoardSize;
use crate::nn::backend::{Arithmetic, Backend, Inputs, RawOutput, Shape, Workspace};
use crate::nn::model::{Activation, ModelDesc};
use std::sync::Mutex;

/// The most boards a batch holds on a GPU unless told otherwise (KataGo's
/// `nnMaxBatchSize`).
pub(crate) const MAX_BATCH: usize = 256;

/// Threads a block of the element-wise kernels, and of the RMSNorm's (a
/// power of two: its sums are halved in turn).
const BLOCK: u32 = 256;

/// Threads a block of the attention kernel (a power of two, at most 256).
const ATTENTION_THREADS: u32 = 128;

/// What a product's input is multiplied by on its way to half precision
/// (and the product by its inverse): KataGo's "Scale8", which keeps a
/// mish net's large activations inside half precision's range.
const INPUT_SCALE: f32 = 0.125;

/// A program ready on a device.
pub(crate) struct GpuNetwork {
    program: Program,
    device: Box<dyn Device>,
    /// The weights' addresses on the device.
    weights: Vec<u64>,
    /// In half precision, the convolutions' weights again as halves (the
    /// address of each, 0 for the weights of other operations).
    half: bool,
    halves: Vec<u64>,
    /// The most boards a batch holds.
    max_batch: usize,
    /// One workspace made at load for the largest batch on 19×19, so that
    /// a device without the memory for it refuses the net at once; the
    /// first thread to evaluate takes it.
    first: Mutex<Option<GpuWorkspace>>,
}

/// The number of an activation, as `kernels.cu` reads it.
fn act_code(act: Activation) -> i32 {
    match act {
        Activation::Identity => 0,
        Activation::Relu => 1,
        Activation::Mish => 2,
        Activation::Silu => 3,
    }
}

/// The launch of `n` threads, one a value.
fn threads(n: usize) -> Launch {
    Launch {
        grid: ((n as u64).div_ceil(u64::from(BLOCK)).max(1) as u32, 1, 1),
        block: (BLOCK, 1, 1),
        shared_bytes: 0,
    }
}

impl GpuNetwork {
    /// `desc` compiled and kept on `device`, its products' factors in half
    /// precision with `half` (sums in single), batches of up to
    /// `max_batch` boards, or why not.
    pub(crate) fn new(
        desc: &ModelDesc,
        device: Box<dyn Device>,
        half: bool,
        max_batch: usize,
    ) -> Result<GpuNetwork, String> {
        let max_batch = max_batch.clamp(1, MAX_BATCH);
        let program = Program::compile(desc);
        let weights = program
            .weights
            .iter()
            .map(|w| device.keep(w))
            .collect::<Result<Vec<_>, String>>()?;
        let mut halves = vec![0u64; program.weights.len()];
        if half {
            for op in &program.ops {
                if let Op::Conv { weights: w, .. } = *op {
                    let bits: Vec<u16> = program.weights[w.0]
                        .iter()
                        .map(|&x| ::half::f16::from_f32(x).to_bits())
                        .collect();
                    halves[w.0] = device.keep_halves(&bits)?;
                }
            }
        }
        let mut net = GpuNetwork {
            program,
            device,
            weights,
            half,
            halves,
            max_batch,
            first: Mutex::new(None),
        };
        let first = net
            .new_workspace(Shape::of(BoardSize::square(19), max_batch))
            .map_err(|why| format!("a batch of {max_batch} boards of 19×19: {why}"))?;
        net.first = Mutex::new(Some(first));
        Ok(net)
    }

    /// A queue and buffers for batches up to `shape`.
    fn new_workspace(&self, shape: Shape) -> Result<GpuWorkspace, String> {
        let mut ws = GpuWorkspace {
            queue: self.device.queue()?,
            rows: 0,
            batch: 0,
            ptrs: Vec::new(),
            col: 0,
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
        ws: &mut GpuWorkspace,
        out: &mut [RawOutput],
    ) -> Result<(), String> {
        let p = &self.program;
        let q = &mut *ws.queue;
        for buf in [
            Some(p.spatial_input),
            Some(p.global_input),
            p.metadata_input,
        ]
        .into_iter()
        .flatten()
        {
            let n = p.buffers[buf.0].len(shape);
            q.upload(&ws.host[buf.0][..n], ws.ptrs[buf.0])?;
        }
        let rows = shape.rows() as i32;
        let points = shape.points() as i32;
        let batch = shape.batch as i32;
        let (width, height) = (shape.width as i32, shape.height as i32);
        let buf = |b: Buf| Arg::Ptr(ws.ptrs[b.0]);
        let addr = |b: Buf| ws.ptrs[b.0];
        let w = |i: super::program::Weights| Arg::Ptr(self.weights[i.0]);
        let col = ws.col;
        for op in &p.ops {
            match *op {
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
                    let n = shape.rows() * k;
                    let beta = if accumulate { 1.0 } else { 0.0 };
                    let gemm = |a: u64, b: u64, alpha: f32, half: bool| Gemm {
                        m: shape.rows(),
                        k,
                        n: cout,
                        a,
                        b,
                        c: addr(dst),
                        alpha,
                        beta,
                        half,
                    };
                    let im2col = [
                        buf(src),
                        Arg::Ptr(col),
                        Arg::I32(batch),
                        Arg::I32(width),
                        Arg::I32(height),
                        Arg::I32(cin as i32),
                        Arg::I32(size as i32),
                    ];
                    if self.half {
                        // The input in halves, scaled down by 8; the
                        // product scales back up.
                        let scale = Arg::F32(INPUT_SCALE);
                        if size == 1 {
                            let args = [buf(src), Arg::Ptr(col), Arg::I64(n as i64), scale];
                            q.launch(Kernel::ToHalf, threads(n), &args)?;
                        } else {
                            // im2col's arguments and the scale, on the stack.
                            let [a, b, c, d, e, f, g] = im2col;
                            let args = [a, b, c, d, e, f, g, scale];
                            q.launch(Kernel::Im2colHalf, threads(n), &args)?;
                        }
                        let halves = self.halves[weights.0];
                        q.gemm(gemm(col, halves, 1.0 / INPUT_SCALE, true))?;
                    } else if size == 1 {
                        q.gemm(gemm(addr(src), self.weights[weights.0], 1.0, false))?;
                    } else {
                        q.launch(Kernel::Im2col, threads(n), &im2col)?;
                        q.gemm(gemm(col, self.weights[weights.0], 1.0, false))?;
                    }
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
                    let extra = extra.map_or(Arg::Ptr(0), buf);
                    let args = [
                        buf(src),
                        buf(dst),
                        w(scale),
                        w(bias),
                        extra,
                        Arg::I32(rows),
                        Arg::I32(points),
                        Arg::I32(channels as i32),
                        Arg::I32(act_code(act)),
                    ];
                    q.launch(Kernel::NormAct, threads(shape.rows() * channels), &args)?;
                }
                Op::MatMul {
                    src,
                    dst,
                    weights,
                    cin,
                    cout,
                } => q.gemm(Gemm {
                    m: shape.batch,
                    k: cin,
                    n: cout,
                    a: addr(src),
                    b: self.weights[weights.0],
                    c: addr(dst),
                    alpha: 1.0,
                    beta: 0.0,
                    half: false,
                })?,
                Op::BiasAct {
                    dst,
                    bias,
                    channels,
                    act,
                } => {
                    let args = [
                        buf(dst),
                        w(bias),
                        Arg::I32(batch),
                        Arg::I32(channels as i32),
                        Arg::I32(act_code(act)),
                    ];
                    q.launch(Kernel::BiasAct, threads(shape.batch * channels), &args)?;
                }
                Op::AddSpatialBias { src, dst, channels } => {
                    let args = [
                        buf(src),
                        buf(dst),
                        Arg::I32(rows),
                        Arg::I32(points),
                        Arg::I32(channels as i32),
                    ];
                    q.launch(
                        Kernel::AddSpatialBias,
                        threads(shape.rows() * channels),
                        &args,
                    )?;
                }
                Op::Pool {
                    src,
                    dst,
                    channels,
                    third,
                } => {
                    let args = [
                        buf(src),
                        buf(dst),
                        Arg::I32(batch),
                        Arg::I32(points),
                        Arg::I32(channels as i32),
                        Arg::I32(i32::from(third == Pool::Quadratic)),
                    ];
                    q.launch(Kernel::Pool, threads(shape.batch * channels), &args)?;
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
                    let args = [
                        buf(src),
                        buf(dst),
                        w(gamma),
                        beta.map_or(Arg::Ptr(0), w),
                        Arg::I32(points),
                        Arg::I32(channels as i32),
                        Arg::F32(epsilon),
                        Arg::I32(i32::from(board)),
                        Arg::I32(act_code(act)),
                    ];
                    // A block a point, or a block a board.
                    let blocks = if board { shape.batch } else { shape.rows() };
                    let launch = Launch {
                        grid: (blocks as u32, 1, 1),
                        block: (BLOCK, 1, 1),
                        shared_bytes: 0,
                    };
                    q.launch(Kernel::RmsNorm, launch, &args)?;
                }
                Op::Rope {
                    values,
                    heads,
                    dim,
                    angles,
                } => {
                    let (freqs, tables, theta) = match angles {
                        Angles::Learned { freqs, tables } => (w(freqs), tables as i32, 0.0),
                        Angles::Fixed { theta } => (Arg::Ptr(0), 0, theta),
                    };
                    let args = [
                        buf(values),
                        Arg::I32(rows),
                        Arg::I32(points),
                        Arg::I32(width),
                        Arg::I32(heads as i32),
                        Arg::I32(dim as i32),
                        freqs,
                        Arg::I32(tables),
                        Arg::F32(theta),
                    ];
                    let n = shape.rows() * heads * (dim / 2);
                    q.launch(Kernel::Rope, threads(n), &args)?;
                }
                Op::Attention {
                    q: queries,
                    k,
                    v,
                    out,
                    heads,
                    kv_heads,
                    dim,
                    v_dim,
                } => {
                    let args = [
                        buf(queries),
                        buf(k),
                        buf(v),
                        buf(out),
                        Arg::I32(points),
                        Arg::I32(heads as i32),
                        Arg::I32(kv_heads as i32),
                        Arg::I32(dim as i32),
                        Arg::I32(v_dim as i32),
                    ];
                    // A block a query point, head and board; the board's
                    // scores in shared memory.
                    let launch = Launch {
                        grid: (shape.points() as u32, heads as u32, shape.batch as u32),
                        block: (ATTENTION_THREADS, 1, 1),
                        shared_bytes: (shape.points() * 4) as u32,
                    };
                    q.launch(Kernel::Attention, launch, &args)?;
                }
                Op::SwiGlu {
                    hidden,
                    gate,
                    channels,
                } => {
                    let n = shape.rows() * channels;
                    let args = [buf(hidden), buf(gate), Arg::I64(n as i64)];
                    q.launch(Kernel::SwiGlu, threads(n), &args)?;
                }
            }
        }
        let h = p.heads;
        for b in [h.policy, h.pass, h.value, h.score, h.ownership] {
            let n = p.buffers[b.0].len(shape);
            q.download(ws.ptrs[b.0], &mut ws.host[b.0][..n])?;
        }
        q.synchronize()?;
        let host = &ws.host;
        p.read_heads(shape, |b| &host[b.0][..], out);
        Ok(())
    }
}

/// One thread's queue and buffers on the device, and the host's copies of
/// the inputs and heads.
pub(crate) struct GpuWorkspace {
    queue: Box<dyn Queue>,
    /// The rows (points × boards) and boards the buffers hold.
    rows: usize,
    batch: usize,
    /// Each program buffer's address.
    ptrs: Vec<u64>,
    /// The products' input: the im2col matrix (single precision), or in
    /// half precision a copy of every product's input.
    col: u64,
    host: Vec<Vec<f32>>,
    /// The first failure of this workspace's device work, said once.
    failed: Option<String>,
}

impl GpuWorkspace {
    /// Grows the buffers to hold `shape`: the host's copies always, the
    /// device's where its memory allows.
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
        self.queue.free();
        self.ptrs.clear();
        self.rows = 0;
        self.batch = 0;
        for extent in &program.buffers {
            self.ptrs.push(self.queue.alloc(len(extent).max(1))?);
        }
        let rows_shape = Shape {
            width: rows,
            height: 1,
            batch: 1,
        };
        self.col = if half {
            let n = program.product_input_len(rows_shape);
            self.queue.alloc_halves(n.max(1))?
        } else {
            self.queue.alloc(program.im2col_len(rows_shape).max(1))?
        };
        self.rows = rows;
        self.batch = batch;
        Ok(())
    }
}

impl Workspace for GpuWorkspace {
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

impl Backend for GpuNetwork {
    fn name(&self) -> String {
        let precision = if self.half { "f16" } else { "f32" };
        format!("{} {precision}", self.device.name())
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
        let any = ws.as_any_mut();
        if any.is::<Broken>() {
            let (spatial, global) = (
                p.buffers[p.spatial_input.0].len(shape),
                p.buffers[p.global_input.0].len(shape),
            );
            let metadata = p.metadata_input.map_or(0, |b| p.buffers[b.0].len(shape));
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
        let ws: &mut GpuWorkspace = any.downcast_mut().expect("a GPU workspace");
        if let Err(why) = ws.fit(p, shape, self.half) {
            // The host's buffers are sized; the pass fails with the reason.
            ws.failed = Some(why);
        }
        p.inputs(&mut ws.host, shape)
    }

    fn forward(&self, shape: Shape, ws: &mut dyn Workspace, out: &mut [RawOutput]) {
        let any = ws.as_any_mut();
        if let Some(Broken { why, .. }) = any.downcast_ref::<Broken>() {
            failed_once(why);
            no_outputs(out);
            return;
        }
        let ws: &mut GpuWorkspace = any.downcast_mut().expect("a GPU workspace");
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

    fn on_processor(&self) -> bool {
        false
    }
}
