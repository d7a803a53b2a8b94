//! A network ready to evaluate: KataGo's trunk of residual blocks, its
//! policy head and its value head, built from a [`ModelDesc`], run on a
//! batch of boards of one size. It returns the raw outputs, the heads'
//! numbers before any softmax or scaling, for the side to move, in the
//! orientation the inputs were given; the `output` module turns them into
//! probabilities and scores.
//!
//! A [`Workspace`] holds every buffer a forward pass uses; it grows to the
//! largest batch and board it has seen and is then reused, so an evaluation
//! allocates nothing.

use super::layers::{self, Conv, MatMul, NormAct, Pooling, Shape};
use super::model::{BlockDesc, ModelDesc};

enum Block {
    Ordinary {
        pre: NormAct,
        conv1: Conv,
        mid: NormAct,
        conv2: Conv,
    },
    GlobalPooling {
        pre: NormAct,
        regular: Conv,
        gpool: Conv,
        gpool_norm: NormAct,
        to_bias: MatMul,
        mid: NormAct,
        final_conv: Conv,
    },
}

impl Block {
    fn new(desc: &BlockDesc) -> Block {
        match desc {
            BlockDesc::Ordinary {
                pre_bn,
                pre_act,
                conv1,
                mid_bn,
                mid_act,
                conv2,
            } => Block::Ordinary {
                pre: NormAct::new(pre_bn, *pre_act),
                conv1: Conv::new(conv1),
                mid: NormAct::new(mid_bn, *mid_act),
                conv2: Conv::new(conv2),
            },
            BlockDesc::GlobalPooling {
                pre_bn,
                pre_act,
                regular_conv,
                gpool_conv,
                gpool_bn,
                gpool_act,
                gpool_to_bias,
                mid_bn,
                mid_act,
                final_conv,
            } => Block::GlobalPooling {
                pre: NormAct::new(pre_bn, *pre_act),
                regular: Conv::new(regular_conv),
                gpool: Conv::new(gpool_conv),
                gpool_norm: NormAct::new(gpool_bn, *gpool_act),
                to_bias: MatMul::new(gpool_to_bias),
                mid: NormAct::new(mid_bn, *mid_act),
                final_conv: Conv::new(final_conv),
            },
        }
    }

    /// The widest activation inside the block, in channels, and the
    /// largest convolution scratch it needs.
    fn needs(&self, shape: Shape) -> (usize, usize) {
        match self {
            Block::Ordinary { conv1, conv2, .. } => (
                conv1.out_channels.max(conv1.in_channels),
                conv1.scratch_len(shape).max(conv2.scratch_len(shape)),
            ),
            Block::GlobalPooling {
                regular,
                gpool,
                final_conv,
                ..
            } => (
                regular
                    .out_channels
                    .max(regular.in_channels)
                    .max(gpool.out_channels),
                regular
                    .scratch_len(shape)
                    .max(gpool.scratch_len(shape))
                    .max(final_conv.scratch_len(shape)),
            ),
        }
    }

    /// `trunk += block(trunk)`, with the three buffers `a`, `b`, `c`.
    fn apply(
        &self,
        shape: Shape,
        trunk: &mut [f32],
        [a, b, c]: &mut [Vec<f32>; 3],
        shared: &mut Shared,
    ) {
        match self {
            Block::Ordinary {
                pre,
                conv1,
                mid,
                conv2,
            } => {
                pre.apply(shape, trunk, a);
                conv1.apply(shape, a, b, &mut shared.scratch, false);
                mid.apply(shape, b, a);
                conv2.apply(shape, a, trunk, &mut shared.scratch, true);
            }
            Block::GlobalPooling {
                pre,
                regular,
                gpool,
                gpool_norm,
                to_bias,
                mid,
                final_conv,
            } => {
                pre.apply(shape, trunk, a);
                regular.apply(shape, a, b, &mut shared.scratch, false);
                gpool.apply(shape, a, c, &mut shared.scratch, false);
                gpool_norm.apply_in_place(shape, c);
                layers::pool(
                    shape,
                    gpool.out_channels,
                    c,
                    &mut shared.pooled,
                    Pooling::Max,
                );
                to_bias.apply(shape.batch, &shared.pooled, &mut shared.pool_bias);
                mid.apply_with_bias(shape, b, &shared.pool_bias, a);
                final_conv.apply(shape, a, trunk, &mut shared.scratch, true);
            }
        }
    }
}

/// The network's layers, ready to run.
pub struct Network {
    pub name: String,
    pub version: i32,
    pub spatial_inputs: usize,
    pub global_inputs: usize,
    trunk_channels: usize,
    initial_conv: Conv,
    initial_matmul: MatMul,
    blocks: Vec<Block>,
    tip: NormAct,
    p1_conv: Conv,
    g1_conv: Conv,
    g1_norm: NormAct,
    p_gpool_to_bias: MatMul,
    p1_norm: NormAct,
    p2_conv: Conv,
    p_gpool_to_pass: MatMul,
    v1_conv: Conv,
    v1_norm: NormAct,
    v2_mul: MatMul,
    v2_bias: Vec<f32>,
    v2_act: super::model::Activation,
    v3_mul: MatMul,
    v3_bias: Vec<f32>,
    sv3_mul: MatMul,
    sv3_bias: Vec<f32>,
    ownership_conv: Conv,
}

/// What the heads computed for one board, before postprocessing, from the
/// point of view of the side to move, in the inputs' orientation.
#[derive(Clone, Debug, Default)]
pub struct RawOutput {
    /// One logit per point, row by row.
    pub policy: Vec<f32>,
    pub pass: f32,
    /// Win, loss and no-result logits.
    pub value: [f32; 3],
    /// Score mean, score spread (before softplus), lead, variance time.
    pub score: [f32; 4],
    /// One ownership value per point (before tanh).
    pub ownership: Vec<f32>,
}

/// The buffers every layer shares: the im2col matrix and the pooled values.
#[derive(Default)]
struct Shared {
    scratch: Vec<f32>,
    pooled: Vec<f32>,
    pool_bias: Vec<f32>,
}

/// Every buffer of a forward pass, reused from one evaluation to the next.
#[derive(Default)]
pub struct Workspace {
    shape: Option<Shape>,
    input: Vec<f32>,
    global: Vec<f32>,
    trunk: Vec<f32>,
    trunk_out: Vec<f32>,
    head_a: Vec<f32>,
    head_b: Vec<f32>,
    head_pooled: Vec<f32>,
    head_bias: Vec<f32>,
    v2: Vec<f32>,
    /// A block's three buffers.
    block: [Vec<f32>; 3],
    shared: Shared,
}

impl Network {
    pub fn new(desc: &ModelDesc) -> Network {
        let p = &desc.policy;
        let v = &desc.value;
        Network {
            name: desc.name.clone(),
            version: desc.version,
            spatial_inputs: desc.spatial_inputs,
            global_inputs: desc.global_inputs,
            trunk_channels: desc.trunk.channels,
            initial_conv: Conv::new(&desc.trunk.initial_conv),
            initial_matmul: MatMul::new(&desc.trunk.initial_matmul),
            blocks: desc.trunk.blocks.iter().map(Block::new).collect(),
            tip: NormAct::new(&desc.trunk.tip_bn, desc.trunk.tip_act),
            p1_conv: Conv::new(&p.p1_conv),
            g1_conv: Conv::new(&p.g1_conv),
            g1_norm: NormAct::new(&p.g1_bn, p.g1_act),
            p_gpool_to_bias: MatMul::new(&p.gpool_to_bias),
            p1_norm: NormAct::new(&p.p1_bn, p.p1_act),
            p2_conv: Conv::new(&p.p2_conv),
            p_gpool_to_pass: MatMul::new(&p.gpool_to_pass),
            v1_conv: Conv::new(&v.v1_conv),
            v1_norm: NormAct::new(&v.v1_bn, v.v1_act),
            v2_mul: MatMul::new(&v.v2_mul),
            v2_bias: v.v2_bias.clone(),
            v2_act: v.v2_act,
            v3_mul: MatMul::new(&v.v3_mul),
            v3_bias: v.v3_bias.clone(),
            sv3_mul: MatMul::new(&v.sv3_mul),
            sv3_bias: v.sv3_bias.clone(),
            ownership_conv: Conv::new(&v.ownership_conv),
        }
    }

    /// Sizes `ws` for `shape`; only a larger shape than any before allocates.
    fn prepare(&self, shape: Shape, ws: &mut Workspace) {
        if ws.shape == Some(shape) {
            return;
        }
        ws.shape = Some(shape);
        let rows = shape.rows();
        let grow = |v: &mut Vec<f32>, n: usize| {
            if v.len() < n {
                v.resize(n, 0.0);
            }
        };
        let (mut widest, mut scratch) = (self.trunk_channels, self.initial_conv.scratch_len(shape));
        for b in &self.blocks {
            let (c, s) = b.needs(shape);
            widest = widest.max(c);
            scratch = scratch.max(s);
        }
        for conv in [
            &self.p1_conv,
            &self.g1_conv,
            &self.p2_conv,
            &self.v1_conv,
            &self.ownership_conv,
        ] {
            widest = widest.max(conv.out_channels);
            scratch = scratch.max(conv.scratch_len(shape));
        }
        grow(&mut ws.input, self.spatial_inputs * rows);
        grow(&mut ws.global, self.global_inputs * shape.batch);
        grow(&mut ws.trunk, self.trunk_channels * rows);
        grow(&mut ws.trunk_out, self.trunk_channels * rows);
        grow(&mut ws.head_a, widest * rows);
        grow(&mut ws.head_b, widest * rows);
        grow(&mut ws.head_pooled, 3 * widest * shape.batch);
        grow(&mut ws.head_bias, widest * shape.batch);
        grow(&mut ws.v2, self.v2_mul.out_channels * shape.batch);
        for v in ws.block.iter_mut() {
            grow(v, widest * rows);
        }
        grow(&mut ws.shared.scratch, scratch);
        grow(&mut ws.shared.pooled, 3 * widest * shape.batch);
        grow(&mut ws.shared.pool_bias, widest * shape.batch);
    }

    /// The input buffers, to be filled before [`Network::forward`]: the
    /// spatial inputs point by point (`[board][point][plane]`) and the
    /// global inputs board by board.
    pub fn input_planes<'a>(
        &self,
        ws: &'a mut Workspace,
        shape: Shape,
    ) -> (&'a mut [f32], &'a mut [f32]) {
        self.prepare(shape, ws);
        (
            &mut ws.input[..self.spatial_inputs * shape.rows()],
            &mut ws.global[..self.global_inputs * shape.batch],
        )
    }

    /// Runs the network on the inputs in `ws` (filled through
    /// [`Network::input_planes`]) and writes each board's raw outputs.
    pub fn forward(&self, shape: Shape, ws: &mut Workspace, outputs: &mut [RawOutput]) {
        self.prepare(shape, ws);
        let rows = shape.rows();
        let points = shape.points();
        let c = self.trunk_channels;
        let Workspace {
            input,
            global,
            trunk,
            trunk_out,
            head_a,
            head_b,
            head_pooled,
            head_bias,
            v2,
            block: block_buffers,
            shared,
            ..
        } = ws;

        let scratch = &mut shared.scratch;
        self.initial_conv.apply(shape, input, trunk, scratch, false);
        self.initial_matmul.apply(shape.batch, global, head_bias);
        layers::add_spatial_bias(shape, c, head_bias, trunk);
        for block in &self.blocks {
            block.apply(shape, trunk, block_buffers, shared);
        }
        let scratch = &mut shared.scratch;
        self.tip.apply(shape, trunk, trunk_out);

        // Policy head.
        let g = self.g1_conv.out_channels;
        self.p1_conv.apply(shape, trunk_out, head_a, scratch, false);
        self.g1_conv.apply(shape, trunk_out, head_b, scratch, false);
        self.g1_norm.apply_in_place(shape, head_b);
        layers::pool(shape, g, head_b, head_pooled, Pooling::Max);
        self.p_gpool_to_bias
            .apply(shape.batch, head_pooled, head_bias);
        self.p1_norm
            .apply_with_bias_in_place(shape, head_bias, head_a);
        self.p2_conv.apply(shape, head_a, head_b, scratch, false);
        for (b, out) in outputs.iter_mut().enumerate().take(shape.batch) {
            out.policy.clear();
            out.policy
                .extend_from_slice(&head_b[b * points..(b + 1) * points]);
        }
        self.p_gpool_to_pass
            .apply(shape.batch, head_pooled, head_bias);
        for (b, out) in outputs.iter_mut().enumerate().take(shape.batch) {
            out.pass = head_bias[b];
        }

        // Value head.
        let v = self.v1_conv.out_channels;
        self.v1_conv.apply(shape, trunk_out, head_b, scratch, false);
        self.v1_norm.apply(shape, &head_b[..v * rows], head_a);
        layers::pool(shape, v, head_a, head_pooled, Pooling::Quadratic);
        self.v2_mul.apply(shape.batch, head_pooled, v2);
        layers::add_bias(shape.batch, &self.v2_bias, v2);
        for x in v2.iter_mut().take(self.v2_mul.out_channels * shape.batch) {
            *x = layers::activate(self.v2_act, *x);
        }
        self.v3_mul.apply(shape.batch, v2, head_bias);
        layers::add_bias(shape.batch, &self.v3_bias, head_bias);
        for (b, out) in outputs.iter_mut().enumerate().take(shape.batch) {
            out.value.copy_from_slice(&head_bias[b * 3..b * 3 + 3]);
        }
        self.sv3_mul.apply(shape.batch, v2, head_bias);
        layers::add_bias(shape.batch, &self.sv3_bias, head_bias);
        for (b, out) in outputs.iter_mut().enumerate().take(shape.batch) {
            out.score.copy_from_slice(&head_bias[b * 4..b * 4 + 4]);
        }
        self.ownership_conv
            .apply(shape, head_a, head_b, scratch, false);
        for (b, out) in outputs.iter_mut().enumerate().take(shape.batch) {
            out.ownership.clear();
            out.ownership
                .extend_from_slice(&head_b[b * points..(b + 1) * points]);
        }
    }
}
