//! A GPU program run on a [`Device`]: the weights kept on it once (again
//! as halves for the products in half precision), and each operation one
//! launch of a kernel ([`super::kernels`]) or one product, on the queue of the
//! thread that evaluates. A workspace is a queue with its own buffers, so
//! that the threads that evaluate run their batches side by side. The
//! backend is the same whatever the device: CUDA on a GPU, or the tests'
//! emulator of one.

use super::device::{Device, DeviceBuffer, F32s, Halves, HostBuffer, Queue};
use super::ops::DeviceStep;
use super::program::{Buf, Conv, Crossing, Extent, Op, Program, Storage};
use super::roofline::Peak;
use crate::go::board::BoardSize;
use crate::nn::backend::{
    Attributes, Backend, Batching, Computation, Inputs, PassError, PassProfile, RawOutput, Shape,
    SpatialInputs,
};
use crate::nn::model::ModelDesc;
use crate::nn::gpu::ops::{GpuAttention, GpuConv, GpuTrunk};
use crate::nn::precision::Precision;
use std::sync::{Arc, Mutex};

/// The most boards a batch holds on a GPU unless told otherwise (KataGo's
/// `nnMaxBatchSize`).
pub(crate) const MAX_BATCH: usize = 256;

/// The passes a GPU runs at once unless told (KataGo's server threads a
/// GPU, `numNNServerThreadsPerModel`).
pub(crate) const PASSES_IN_FLIGHT: usize = 2;

/// How a program runs on a device: its products' precision (a GPU's: f32,
/// or f16 factors with sums in single), the most boards a batch holds, how
/// attention and the 3×3 convolutions run and the most attention scores
/// kept at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GpuSettings {
    pub(crate) precision: Precision,
    pub(crate) max_batch: usize,
    pub(crate) attention: GpuAttention,
    pub(crate) conv: GpuConv,
    /// Where the trunk is kept, with half-precision products.
    pub(crate) trunk: GpuTrunk,
    /// The most attention score values a workspace keeps at once (at
    /// least a board's matrix is kept).
    pub(crate) score_values: usize,
    /// Whether a pass replays a CUDA graph of its operations (captured on
    /// a board size and batch bucket's first pass and kept), its batch
    /// padded to the bucket.
    pub(crate) graphs: bool,
    /// The passes run at once, each on its own thread's queue.
    pub(crate) in_flight: usize,
}

/// The batch a pass of `boards` boards runs as where graphs are kept: a
/// power of two up to 16, then a multiple of 16 (at most 15 boards of
/// padding, twenty graphs a board size up to 256), never past `most`.
pub(crate) fn bucket(boards: usize, most: usize) -> usize {
    let bucket = match boards {
        0..=16 => boards.max(1).next_power_of_two(),
        _ => boards.div_ceil(16) * 16,
    };
    bucket.min(most.max(boards))
}

/// The attention score values a workspace keeps at once unless told
/// otherwise (32 MB: a chunk of boards' score matrices that stays in an
/// H100's 50 MB L2 cache, 61 boards of 19×19).
pub(crate) const SCORE_VALUES: usize = 8 << 20;

/// A program ready on a device.
pub(crate) struct GpuNetwork {
    program: Program,
    device: Box<dyn Device>,
    /// The weights' addresses on the device.
    weights: Vec<F32s>,
    /// The products' precision and the paths chosen.
    settings: GpuSettings,
    /// The device's peaks, where known: a profile's floors.
    peak: Option<Peak>,
    /// With half-precision factors, the convolutions' weights again as
    /// halves (none for the weights of other operations).
    halves: Vec<Option<Halves>>,
    attributes: Attributes,
    /// One workspace made at load for the largest batch on 19×19, so that
    /// a device without the memory for it refuses the net at once; the
    /// first thread to evaluate takes it.
    first: Mutex<Option<GpuWorkspace>>,
}

impl GpuNetwork {
    /// `desc` compiled and kept on `device`, run as `settings` say, or why
    /// not.
    pub(crate) fn new(
        desc: &ModelDesc,
        device: Box<dyn Device>,
        settings: GpuSettings,
    ) -> Result<GpuNetwork, String> {
        let precision = settings.precision.check_on_gpu()?;
        let max_batch = settings.max_batch.clamp(1, MAX_BATCH);
        let settings = GpuSettings {
            precision,
            max_batch,
            ..settings
        };
        if settings.conv == GpuConv::Cudnn {
            device.convolutions()?;
        }
        let mut program = Program::compile(desc);
        if settings.attention == GpuAttention::Fused {
            if !precision.half_factors() {
                return Err(
                    "fused attention runs in half precision (--precision f16); in single \
                     precision attention runs batched or simt"
                        .into(),
                );
            }
            device.warp_products()?;
            for op in &program.ops {
                if let Op::Attention(attention) = op {
                    attention.fits_fused()?;
                }
            }
        }
        if settings.trunk == GpuTrunk::F16 && !precision.half_factors() {
            return Err(
                "a trunk in halves (--gpu-trunk f16) needs half-precision products \
                 (--precision f16)"
                    .into(),
            );
        }
        if precision.half_factors() {
            program.store_halves_between_layers(settings.conv, settings.trunk);
        }
        // The weights as the device reads them: a library's 3×3 filters
        // `[out][ky][kx][in]`, the rest as the program lays them out.
        let laid_out = device_layout(&program, settings.conv);
        let weights = laid_out
            .iter()
            .map(|w| device.keep(w))
            .collect::<Result<Vec<_>, String>>()?;
        let mut halves = vec![None; program.weights.len()];
        if precision.half_factors() {
            for op in &program.ops {
                if let Op::Conv(Conv { weights: w, .. }) = *op {
                    let bits: Vec<u16> = laid_out[w.0]
                        .iter()
                        .map(|&x| ::half::f16::from_f32(x).to_bits())
                        .collect();
                    halves[w.0] = Some(device.keep_halves(&bits)?);
                }
            }
        }
        let peak = Peak::of_device(&device.name());
        let attributes = Attributes {
            // The paths that run, where the net has such operations.
            name: {
                let has = |f: fn(&Op) -> bool| program.ops.iter().any(f);
                let mut name = format!("{} {precision}", device.name());
                if has(|op| matches!(op, Op::Conv(c) if c.size > 1)) {
                    name += &format!(", 3×3 by {}", settings.conv);
                }
                if has(|op| matches!(op, Op::Attention(_))) {
                    name += &format!(", attention {}", settings.attention);
                }
                if settings.trunk == GpuTrunk::F16 {
                    name += ", trunk f16";
                }
                name
            },
            precision,
            // Enough boards to fill the GPU: about 128 of 19×19 (PyTorch's
            // anchor reaches its rate there), more of smaller boards; two
            // passes in flight, each on its own thread's stream, so that
            // one's copies and launches run beside the other's kernels.
            batching: Batching {
                max_points: usize::MAX,
                max_boards: max_batch,
                preferred_points: 128 * 361,
                min_preferred: 16,
                in_flight: settings.in_flight.max(1),
            },
            // A GPU's peak is not counted by a core's cycles; `bench` gives
            // a GPU's rate beside its evaluations a second instead.
            peak_flops_per_cycle: 0.0,
            on_processor: false,
        };
        let mut net = GpuNetwork {
            program,
            device,
            weights,
            settings,
            peak,
            halves,
            attributes,
            first: Mutex::new(None),
        };
        let first = net
            .new_workspace(Shape::of(BoardSize::square(19), max_batch))
            .map_err(|why| format!("a batch of {max_batch} boards of 19×19: {why}"))?;
        net.first = Mutex::new(Some(first));
        Ok(net)
    }

    /// The shape a pass of `shape` runs its operations as: padded to its
    /// batch's bucket where graphs are kept.
    fn padded(&self, shape: Shape) -> Shape {
        match self.settings.graphs {
            true => Shape {
                batch: bucket(shape.batch, self.settings.max_batch),
                ..shape
            },
            false => shape,
        }
    }

    /// A queue and buffers for batches up to `shape`.
    fn new_workspace(&self, shape: Shape) -> Result<GpuWorkspace, String> {
        let mut ws = GpuWorkspace {
            queue: self.device.queue()?,
            rows: 0,
            batch: 0,
            ptrs: Vec::new(),
            col: DeviceBuffer::F32(F32s::NULL),
            scores: F32s::NULL,
            score_values: 0,
            host: [HostBuffer::plain(0), HostBuffer::plain(0)],
            blocks: [F32s::NULL; 2],
            packed: Vec::new(),
            pass_ptrs: Vec::new(),
            failed: None,
            graphs: Vec::new(),
            graphs_refused: None,
        };
        ws.fit(&self.program, shape, &self.settings)?;
        Ok(ws)
    }

    /// Runs the program on `ws`'s inputs (uploaded first) and downloads
    /// the heads; with a profile, each operation's device time (CUDA
    /// events between operations, read after the one synchronize) added
    /// to it by the operation's kind, and the copies' as theirs.
    fn run(
        &self,
        shape: Shape,
        ws: &mut GpuWorkspace,
        out: &mut [RawOutput],
        profile: Option<&mut PassProfile>,
    ) -> Result<(), String> {
        let p = &self.program;
        // The crossing buffers packed for the batch's bucket, as the
        // inputs were written.
        let ends = ws.lay_out(p, self.padded(shape));
        let q = &mut *ws.queue;
        let timed = profile.is_some();
        let mark = |q: &mut dyn Queue| if timed { q.mark() } else { Ok(()) };
        mark(q)?;
        q.upload(&ws.host[0][..ends[0]], ws.blocks[0])?;
        mark(q)?;
        // A graph of the operations for the batch's bucket, where graphs are
        // kept and the pass is not timed op by op: captured on first use
        // (capturing runs nothing), then replayed. A device that does not
        // capture says why once and launches each operation from then on.
        let graphed = !timed && self.settings.graphs && ws.graphs_refused.is_none();
        let ops_shape = match graphed {
            true => self.padded(shape),
            false => shape,
        };
        let key = (shape.width, shape.height, ops_shape.batch);
        let known = ws.graphs.iter().find(|(k, _)| *k == key).map(|&(_, g)| g);
        let mut step = DeviceStep {
            queue: q,
            shape: ops_shape,
            buffers: &ws.pass_ptrs,
            weights: &self.weights,
            halves: &self.halves,
            col: ws.col,
            scores: ws.scores,
            score_values: ws.score_values,
            attention: self.settings.attention,
            conv: self.settings.conv,
            tensor_cores: self.settings.precision.half_factors(),
        };
        let mut refused = None;
        let mut captured = None;
        if graphed {
            let graph = match known {
                Some(graph) => Ok(graph),
                None => capture(&mut step, &p.ops),
            };
            match graph.and_then(|g| step.queue.replay(g).map(|()| g)) {
                Ok(graph) => captured = known.is_none().then_some(graph),
                Err(why) => refused = Some(why),
            }
        }
        if !graphed || refused.is_some() {
            for op in &p.ops {
                op.on_device(&mut step)?;
                mark(step.queue)?;
            }
        }
        if let Some(graph) = captured {
            ws.graphs.push((key, graph));
        }
        if let Some(why) = refused {
            crate::say!("kosumi: CUDA graphs do not run here ({why}); each operation is launched");
            ws.graphs_refused = Some(why);
        }
        q.download(ws.blocks[1], &mut ws.host[1][..ends[1]])?;
        mark(q)?;
        q.synchronize()?;
        if let Some(profile) = profile {
            let intervals = q.take_mark_intervals()?;
            let parts = std::iter::once("upload inputs")
                .chain(p.ops.iter().map(Op::kind))
                .chain(["download heads"]);
            for (part, ms) in parts.zip(intervals) {
                profile.add(part, std::time::Duration::from_secs_f64(ms / 1e3));
            }
            if let Some(peak) = &self.peak {
                for op in &p.ops {
                    let floor = op.cost(shape, self.settings.precision, &p.storage).floor(peak);
                    profile.add_floor(op.kind(), std::time::Duration::from_secs_f64(floor));
                }
            }
        }
        let (heads, packed) = (&ws.host[1], &ws.packed);
        let place = |b: Buf| packed.iter().find(|&&(c, _, _)| c == b).map_or(0, |&(_, _, at)| at);
        p.read_heads(shape, |b| &heads[place(b)..], out);
        Ok(())
    }
}

/// The program's weights as a device reads them under `conv`: where a
/// library runs the 3×3 convolutions, their `(ky, kx, in) × out` matrices
/// as filters `[out][ky][kx][in]`; the rest as they are.
fn device_layout(program: &Program, conv: GpuConv) -> Vec<std::borrow::Cow<'_, [f32]>> {
    let mut laid_out: Vec<_> = program.weights.iter().map(|w| w.as_slice().into()).collect();
    if conv == GpuConv::Cudnn {
        for op in &program.ops {
            if let Op::Conv(c) = op
                && c.size > 1
            {
                let (taps, cin, cout) = (c.size * c.size, c.cin, c.cout);
                let matrix = &program.weights[c.weights.0];
                let mut filter = vec![0.0; matrix.len()];
                for tap in 0..taps {
                    for i in 0..cin {
                        for o in 0..cout {
                            filter[(o * taps + tap) * cin + i] = matrix[(tap * cin + i) * cout + o];
                        }
                    }
                }
                laid_out[c.weights.0] = filter.into();
            }
        }
    }
    laid_out
}

/// Captures `ops` run on `step` into a graph: its number, or why not (the
/// capture ended either way). What a library's convolutions need is made
/// ready first, outside the capture.
fn capture(step: &mut DeviceStep, ops: &[Op]) -> Result<usize, String> {
    for op in ops {
        if let Op::Conv(conv) = op
            && let Some(call) = conv.library_call(step)?
        {
            step.queue.plan_convolution(call)?;
        }
    }
    step.queue.begin_capture()?;
    let recorded = ops.iter().try_for_each(|op| op.on_device(step));
    let graph = step.queue.end_capture();
    recorded?;
    graph
}

/// One thread's queue and buffers on the device, and the host's copies of
/// the inputs and heads.
pub(crate) struct GpuWorkspace {
    queue: Box<dyn Queue>,
    /// The rows (points × boards) and boards the buffers hold.
    rows: usize,
    batch: usize,
    /// Each program buffer, of its storage's type.
    ptrs: Vec<DeviceBuffer>,
    /// The products' input: the im2col matrix (single precision), or with
    /// half-precision factors a copy of every product's input.
    col: DeviceBuffer,
    /// Attention's scores, a chunk of boards at a time, and how many
    /// values they hold.
    scores: F32s,
    score_values: usize,
    /// The host's copies of the inputs and of the heads (page-locked where
    /// the device gives it), each a block of its crossing's buffers as
    /// [`Program::pack`] lays them out, and the device's blocks.
    host: [HostBuffer; 2],
    blocks: [F32s; 2],
    /// Each crossing buffer's place in its block for the pass at hand,
    /// and every buffer's address for it (the crossing ones in their
    /// blocks).
    packed: Vec<(Buf, Crossing, usize)>,
    pass_ptrs: Vec<DeviceBuffer>,
    /// The first failure of this workspace's device work: every later
    /// pass fails with it.
    failed: Option<String>,
    /// The graphs captured, by board width, height and batch bucket.
    graphs: Vec<((usize, usize, usize), usize)>,
    /// Why the device captured no graph, where it did not: said once.
    graphs_refused: Option<String>,
}

impl GpuWorkspace {
    /// Grows the buffers to hold `shape`: the host's copies always, the
    /// device's where its memory allows.
    fn fit(&mut self, program: &Program, shape: Shape, settings: &GpuSettings) -> Result<(), String> {
        let half = settings.precision.half_factors();
        // Attention's scores: one board's score matrix at least, a chunk of
        // boards up to the settings' most.
        let matrix = shape.points() * shape.points();
        let scores = match program.has_attention() {
            true => (shape.batch * matrix).min(settings.score_values).max(matrix),
            false => 0,
        };
        if shape.rows() <= self.rows && shape.batch <= self.batch && scores <= self.score_values {
            return Ok(());
        }
        let scores = scores.max(self.score_values);
        // A spatial buffer holds channels × rows, a global one values ×
        // boards: sized for the most rows and boards seen, together.
        let (rows, batch) = (shape.rows().max(self.rows), shape.batch.max(self.batch));
        let len = |extent: &Extent| match *extent {
            Extent::Spatial(c) => c * rows,
            Extent::Global(v) => v * batch,
        };
        let blocks = program.pack(|b| len(&program.buffers[b.0]), &mut self.packed);
        self.host = blocks.map(|n| self.queue.host(n));
        self.queue.free();
        self.ptrs.clear();
        self.rows = 0;
        self.batch = 0;
        self.score_values = 0;
        // The graphs named the buffers freed.
        self.graphs.clear();
        for b in 0..program.buffers.len() {
            // A crossing buffer lies in its block, placed pass by pass.
            let buffer = match program.crosses(Buf(b)) {
                true => DeviceBuffer::F32(F32s::NULL),
                false => self.alloc(program.storage[b], len(&program.buffers[b]))?,
            };
            self.ptrs.push(buffer);
        }
        for (block, n) in self.blocks.iter_mut().zip(blocks) {
            *block = self.queue.alloc(n.max(1))?;
        }
        let rows_shape = Shape {
            width: rows,
            height: 1,
            batch: 1,
        };
        self.col = match half {
            true => self.alloc(Storage::F16, program.product_input_len(rows_shape))?,
            false => self.alloc(Storage::F32, program.im2col_len(rows_shape))?,
        };
        self.scores = self.alloc(Storage::F32, scores)?.f32s()?;
        self.score_values = scores;
        self.rows = rows;
        self.batch = batch;
        Ok(())
    }
}

impl GpuWorkspace {
    /// Places the crossing buffers for `shape` in their blocks, and every
    /// buffer's address for the pass; the blocks' lengths.
    fn lay_out(&mut self, program: &Program, shape: Shape) -> [usize; 2] {
        let ends = program.pack(|b| program.buffers[b.0].len(shape), &mut self.packed);
        self.pass_ptrs.clear();
        self.pass_ptrs.extend_from_slice(&self.ptrs);
        for &(b, crossing, at) in &self.packed {
            self.pass_ptrs[b.0] = DeviceBuffer::F32(self.blocks[crossing as usize].offset(at));
        }
        ends
    }

    /// `n` zeroed values (at least one) of `storage`'s type on this
    /// workspace's queue.
    fn alloc(&mut self, storage: Storage, n: usize) -> Result<DeviceBuffer, String> {
        let n = n.max(1);
        Ok(match storage {
            Storage::F32 => DeviceBuffer::F32(self.queue.alloc(n)?),
            Storage::F16 => DeviceBuffer::F16(self.queue.alloc_halves(n)?),
        })
    }
}

/// One thread's passes on the device: its queue and buffers, or why they
/// could not be made (its inputs then the host's alone, and every pass
/// failing with the reason).
struct GpuComputation {
    net: Arc<GpuNetwork>,
    buffers: Result<GpuWorkspace, (String, [Vec<f32>; 3])>,
}

impl Computation for GpuComputation {
    fn inputs(&mut self, shape: Shape) -> Inputs<'_> {
        let p = &self.net.program;
        match &mut self.buffers {
            Ok(ws) => {
                let padded = self.net.padded(shape);
                if let Err(why) = ws.fit(p, padded, &self.net.settings) {
                    // The host's buffers are sized; the pass fails with
                    // the reason.
                    ws.failed.get_or_insert(why);
                }
                ws.lay_out(p, padded);
                p.inputs(&mut ws.host[0], &ws.packed, shape)
            }
            Err((_, [spatial, global, metadata])) => {
                let len = |b: Buf| p.buffers[b.0].len(shape);
                spatial.resize(len(p.spatial_input), 0.0);
                global.resize(len(p.global_input), 0.0);
                metadata.resize(p.metadata_input.map_or(0, len), 0.0);
                Inputs {
                    spatial: SpatialInputs::Masks(spatial),
                    global,
                    metadata,
                }
            }
        }
    }

    fn forward(&mut self, shape: Shape, out: &mut [RawOutput]) -> Result<(), PassError> {
        self.pass(shape, out, None)
    }

    fn forward_profiled(
        &mut self,
        shape: Shape,
        out: &mut [RawOutput],
        profile: &mut PassProfile,
    ) -> Result<(), PassError> {
        self.pass(shape, out, Some(profile))
    }
}

impl GpuComputation {
    /// A pass on this thread's buffers (timed into `profile` where given);
    /// a failure, the buffers' or the device's, fails every later pass.
    fn pass(
        &mut self,
        shape: Shape,
        out: &mut [RawOutput],
        profile: Option<&mut PassProfile>,
    ) -> Result<(), PassError> {
        let ws = match &mut self.buffers {
            Ok(ws) => ws,
            Err((why, _)) => return Err(PassError::Device(why.clone())),
        };
        if let Some(why) = &ws.failed {
            return Err(PassError::Device(why.clone()));
        }
        self.net.run(shape, ws, out, profile).map_err(|why| {
            ws.failed = Some(why.clone());
            PassError::Device(why)
        })
    }
}

impl Backend for GpuNetwork {
    fn attributes(&self) -> &Attributes {
        &self.attributes
    }

    fn computation(self: Arc<Self>) -> Box<dyn Computation> {
        let first = self.first.lock().unwrap_or_else(|e| e.into_inner()).take();
        let buffers = first
            .map(Ok)
            .unwrap_or_else(|| self.new_workspace(Shape::of(BoardSize::square(19), 1)))
            .map_err(|why| (why, Default::default()));
        Box::new(GpuComputation { net: self, buffers })
    }

    fn macs(&self, size: BoardSize) -> f64 {
        self.program.macs(size.points())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_pad_to_few_buckets_and_never_past_the_largest() {
        let buckets: Vec<usize> = [1, 2, 3, 5, 9, 16, 17, 33, 100, 128, 250]
            .into_iter()
            .map(|b| bucket(b, 256))
            .collect();
        assert_eq!(buckets, [1, 2, 4, 8, 16, 16, 32, 48, 112, 128, 256]);
        // At most 15 boards of padding, and no more than the largest batch.
        for boards in 1..=256 {
            let b = bucket(boards, 256);
            assert!(b >= boards && b - boards <= 15.max(boards - 1));
        }
        assert_eq!(bucket(100, 100), 100);
        assert_eq!(bucket(7, 6), 7);
        let distinct: std::collections::BTreeSet<usize> = (1..=256).map(|b| bucket(b, 256)).collect();
        assert_eq!(distinct.len(), 20);
    }
}
