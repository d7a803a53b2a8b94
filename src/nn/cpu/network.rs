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

use super::conv::Conv;
use super::elementwise;
use super::gemm::Arithmetic;
use super::layers::{self, MatMul, NormAct, Pooling};
use super::transformer::{self, Attention, FeedForward, Needs, RmsNorm};
use crate::go::board::BoardSize;
use crate::nn::backend::{self, Inputs, RawOutput, Shape};
use crate::nn::model::{Activation, BlockDesc, MetadataEncoderDesc, ModelDesc, TrunkNorm};
use crate::nn::profile::METADATA_INPUTS;

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
    NestedBottleneck {
        pre: NormAct,
        pre_conv: Conv,
        blocks: Vec<Block>,
        post: NormAct,
        post_conv: Conv,
    },
    Attention(Attention),
    FeedForward(FeedForward),
}

/// What a block needs of the workspace for one shape: the widest
/// activation in channels, the largest convolution scratch, the
/// transformer buffers, and how many levels of bottleneck it nests.
#[derive(Clone, Copy, Default)]
struct BlockNeeds {
    widest: usize,
    scratch: usize,
    transformer: Needs,
    depth: usize,
}

impl BlockNeeds {
    fn max(self, o: BlockNeeds) -> BlockNeeds {
        BlockNeeds {
            widest: self.widest.max(o.widest),
            scratch: self.scratch.max(o.scratch),
            transformer: self.transformer.max(o.transformer),
            depth: self.depth.max(o.depth),
        }
    }
}

/// The buffers of the blocks at one level of nesting: three for a block's
/// own work and, for a bottleneck, its narrow trunk.
#[derive(Default)]
struct Level {
    work: [Vec<f32>; 3],
    inner_trunk: Vec<f32>,
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
            BlockDesc::NestedBottleneck {
                pre_bn,
                pre_act,
                pre_conv,
                blocks,
                post_bn,
                post_act,
                post_conv,
            } => Block::NestedBottleneck {
                pre: NormAct::new(pre_bn, *pre_act),
                pre_conv: Conv::new(pre_conv),
                blocks: blocks.iter().map(Block::new).collect(),
                post: NormAct::new(post_bn, *post_act),
                post_conv: Conv::new(post_conv),
            },
            BlockDesc::Attention(a) => Block::Attention(Attention::new(a)),
            BlockDesc::FeedForward(f) => Block::FeedForward(FeedForward::new(f)),
        }
    }

    /// The block's kind, as a profile names it.
    fn kind(&self) -> &'static str {
        match self {
            Block::Ordinary { .. } => "residual block",
            Block::GlobalPooling { .. } => "global pooling block",
            Block::NestedBottleneck { .. } => "nested bottleneck block",
            Block::Attention(_) => "attention block",
            Block::FeedForward(_) => "feed-forward block",
        }
    }

    /// Multiply-adds on a board of `size`.
    fn macs(&self, size: BoardSize) -> f64 {
        let points = size.points();
        match self {
            Block::Ordinary { conv1, conv2, .. } => conv1.macs(size) + conv2.macs(size),
            Block::GlobalPooling {
                regular,
                gpool,
                final_conv,
                ..
            } => regular.macs(size) + gpool.macs(size) + final_conv.macs(size),
            Block::NestedBottleneck {
                pre_conv,
                blocks,
                post_conv,
                ..
            } => {
                pre_conv.macs(size)
                    + post_conv.macs(size)
                    + blocks.iter().map(|b| b.macs(size)).sum::<f64>()
            }
            Block::Attention(a) => a.macs(points),
            Block::FeedForward(f) => f.macs(points),
        }
    }

    fn needs(&self, shape: Shape) -> BlockNeeds {
        match self {
            Block::Ordinary { conv1, conv2, .. } => BlockNeeds {
                widest: conv1.out_channels.max(conv1.in_channels),
                scratch: conv1.scratch_len(shape).max(conv2.scratch_len(shape)),
                ..BlockNeeds::default()
            },
            Block::GlobalPooling {
                regular,
                gpool,
                final_conv,
                ..
            } => BlockNeeds {
                widest: regular
                    .out_channels
                    .max(regular.in_channels)
                    .max(gpool.out_channels),
                scratch: regular
                    .scratch_len(shape)
                    .max(gpool.scratch_len(shape))
                    .max(final_conv.scratch_len(shape)),
                ..BlockNeeds::default()
            },
            Block::NestedBottleneck {
                pre_conv,
                blocks,
                post_conv,
                ..
            } => {
                let inner = blocks
                    .iter()
                    .fold(BlockNeeds::default(), |n, b| n.max(b.needs(shape)));
                BlockNeeds {
                    widest: inner
                        .widest
                        .max(pre_conv.in_channels)
                        .max(pre_conv.out_channels),
                    scratch: inner
                        .scratch
                        .max(pre_conv.scratch_len(shape))
                        .max(post_conv.scratch_len(shape)),
                    transformer: inner.transformer,
                    depth: inner.depth + 1,
                }
            }
            Block::Attention(a) => BlockNeeds {
                transformer: a.needs(shape),
                ..BlockNeeds::default()
            },
            Block::FeedForward(f) => BlockNeeds {
                transformer: f.needs(shape),
                ..BlockNeeds::default()
            },
        }
    }

    /// `trunk += block(trunk)`, with the buffers of this level and those
    /// below it (for a bottleneck's inner blocks).
    /// Runs the block on `trunk`, its time lapped as its kind (a nested
    /// bottleneck's inner blocks each as theirs, its own convolutions as
    /// one part).
    fn apply(
        &self,
        shape: Shape,
        trunk: &mut [f32],
        levels: &mut [Level],
        shared: &mut Shared,
        laps: &mut backend::Laps,
    ) {
        let (level, deeper) = levels.split_first_mut().expect("a level per nesting");
        let [a, b, c] = &mut level.work;
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
            Block::NestedBottleneck {
                pre,
                pre_conv,
                blocks,
                post,
                post_conv,
            } => {
                let inner = &mut level.inner_trunk;
                pre.apply(shape, trunk, a);
                pre_conv.apply(shape, a, inner, &mut shared.scratch, false);
                laps.lap("nested bottleneck 1x1 convs");
                for block in blocks {
                    block.apply(shape, inner, deeper, shared, laps);
                }
                post.apply(shape, inner, a);
                post_conv.apply(shape, a, trunk, &mut shared.scratch, true);
                laps.lap("nested bottleneck 1x1 convs");
                return;
            }
            Block::Attention(att) => att.apply(shape, trunk, &mut shared.transformer),
            Block::FeedForward(ffn) => ffn.apply(shape, trunk, &mut shared.transformer),
        }
        laps.lap(self.kind());
    }
}

/// The norm and activation at the trunk's tip.
enum Tip {
    Batch(NormAct),
    Rms(RmsNorm),
}

impl Tip {
    fn apply(&self, shape: Shape, input: &[f32], output: &mut [f32]) {
        match self {
            Tip::Batch(n) => n.apply(shape, input, output),
            Tip::Rms(n) => n.apply(shape, input, output),
        }
    }
}

/// Version 15's hidden layer between the pooled values and the pass.
struct PassHidden {
    bias: Vec<f32>,
    act: Activation,
    mul2: MatMul,
}

/// The human-like nets' metadata encoder: the metadata inputs through two
/// hidden layers into a bias of each trunk channel.
struct MetadataEncoder {
    mul1: MatMul,
    bias1: Vec<f32>,
    act1: Activation,
    mul2: MatMul,
    bias2: Vec<f32>,
    act2: Activation,
    mul3: MatMul,
}

impl MetadataEncoder {
    fn new(desc: &MetadataEncoderDesc) -> MetadataEncoder {
        MetadataEncoder {
            mul1: MatMul::new(&desc.mul1),
            bias1: desc.bias1.clone(),
            act1: desc.act1,
            mul2: MatMul::new(&desc.mul2),
            bias2: desc.bias2.clone(),
            act2: desc.act2,
            mul3: MatMul::new(&desc.mul3),
        }
    }

    /// The widest hidden layer.
    fn hidden(&self) -> usize {
        self.mul1.out_channels.max(self.mul2.out_channels)
    }

    /// Encodes `batch` rows of metadata into `out`, one trunk bias a row,
    /// through the two hidden buffers.
    fn apply(&self, batch: usize, metadata: &[f32], hidden: [&mut [f32]; 2], out: &mut [f32]) {
        let [h1, h2] = hidden;
        let layer = |mul: &MatMul, bias: &[f32], act, input: &[f32], output: &mut [f32]| {
            mul.apply(batch, input, output);
            layers::add_bias(batch, bias, output);
            for x in output.iter_mut().take(bias.len() * batch) {
                *x = elementwise::activate(act, *x);
            }
        };
        layer(&self.mul1, &self.bias1, self.act1, metadata, h1);
        layer(&self.mul2, &self.bias2, self.act2, h1, h2);
        self.mul3.apply(batch, h2, out);
    }
}

/// The network's layers, ready to run.
pub struct Network {
    pub spatial_inputs: usize,
    pub global_inputs: usize,
    trunk_channels: usize,
    initial_conv: Conv,
    initial_matmul: MatMul,
    metadata_encoder: Option<MetadataEncoder>,
    blocks: Vec<Block>,
    tip: Tip,
    p1_conv: Conv,
    g1_conv: Conv,
    g1_norm: NormAct,
    p_gpool_to_bias: MatMul,
    p1_norm: NormAct,
    p2_conv: Conv,
    p_gpool_to_pass: MatMul,
    pass_hidden: Option<PassHidden>,
    v1_conv: Conv,
    v1_norm: NormAct,
    v2_mul: MatMul,
    v2_bias: Vec<f32>,
    v2_act: Activation,
    v3_mul: MatMul,
    v3_bias: Vec<f32>,
    sv3_mul: MatMul,
    sv3_bias: Vec<f32>,
    ownership_conv: Conv,
    /// The products' kernel and precision: its weights were packed for
    /// them, and its forward passes run in them.
    arithmetic: Arithmetic,
}

/// The buffers every layer shares: the im2col matrix, the pooled values
/// and the transformer blocks' buffers.
#[derive(Default)]
struct Shared {
    scratch: Vec<f32>,
    pooled: Vec<f32>,
    pool_bias: Vec<f32>,
    transformer: transformer::Scratch,
}

/// Every buffer of a forward pass, reused from one evaluation to the next.
#[derive(Default)]
pub struct Workspace {
    shape: Option<Shape>,
    input: Vec<f32>,
    global: Vec<f32>,
    metadata: Vec<f32>,
    metadata_hidden: [Vec<f32>; 2],
    trunk: Vec<f32>,
    trunk_out: Vec<f32>,
    head_a: Vec<f32>,
    head_b: Vec<f32>,
    head_pooled: Vec<f32>,
    head_bias: Vec<f32>,
    v2: Vec<f32>,
    pass_hidden: Vec<f32>,
    /// The blocks' buffers, a level per depth of nested bottlenecks.
    levels: Vec<Level>,
    shared: Shared,
}

impl Network {
    /// `desc` in the fastest kernel this processor runs, in single
    /// precision.
    pub fn new(desc: &ModelDesc) -> Network {
        Network::with_arithmetic(desc, Arithmetic::default())
    }

    /// `desc` in `arithmetic` (a kernel and a precision the processor
    /// runs), its weights packed for it.
    pub fn with_arithmetic(desc: &ModelDesc, arithmetic: Arithmetic) -> Network {
        arithmetic.run(|| Network::build(desc, arithmetic))
    }

    fn build(desc: &ModelDesc, arithmetic: Arithmetic) -> Network {
        let p = &desc.policy;
        let v = &desc.value;
        Network {
            spatial_inputs: desc.spatial_inputs,
            global_inputs: desc.global_inputs,
            trunk_channels: desc.trunk.channels,
            initial_conv: Conv::new(&desc.trunk.initial_conv),
            initial_matmul: MatMul::new(&desc.trunk.initial_matmul),
            metadata_encoder: desc
                .trunk
                .metadata_encoder
                .as_ref()
                .map(MetadataEncoder::new),
            blocks: desc.trunk.blocks.iter().map(Block::new).collect(),
            tip: match &desc.trunk.tip_norm {
                TrunkNorm::Batch(bn) => Tip::Batch(NormAct::new(bn, desc.trunk.tip_act)),
                TrunkNorm::Rms(rms) => Tip::Rms(RmsNorm::new(rms, desc.trunk.tip_act)),
            },
            p1_conv: Conv::new(&p.p1_conv),
            g1_conv: Conv::new(&p.g1_conv),
            g1_norm: NormAct::new(&p.g1_bn, p.g1_act),
            p_gpool_to_bias: MatMul::new(&p.gpool_to_bias),
            p1_norm: NormAct::new(&p.p1_bn, p.p1_act),
            p2_conv: Conv::new(&p.p2_conv),
            p_gpool_to_pass: MatMul::new(&p.gpool_to_pass),
            pass_hidden: p.pass_hidden.as_ref().map(|h| PassHidden {
                bias: h.bias.clone(),
                act: h.act,
                mul2: MatMul::new(&h.mul2),
            }),
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
            arithmetic,
        }
    }

    /// Multiply-adds of one evaluation on a board of `size`: the
    /// convolutions, dense layers and attention products (the small
    /// global layers of the heads left out).
    pub fn macs(&self, size: BoardSize) -> f64 {
        self.initial_conv.macs(size)
            + self.blocks.iter().map(|b| b.macs(size)).sum::<f64>()
            + [
                &self.p1_conv,
                &self.g1_conv,
                &self.p2_conv,
                &self.v1_conv,
                &self.ownership_conv,
            ]
            .iter()
            .map(|c| c.macs(size))
            .sum::<f64>()
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
        let blocks = self
            .blocks
            .iter()
            .fold(BlockNeeds::default(), |n, b| n.max(b.needs(shape)));
        let mut widest = self.trunk_channels.max(blocks.widest);
        let mut scratch = self.initial_conv.scratch_len(shape).max(blocks.scratch);
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
        if let Some(m) = &self.metadata_encoder {
            grow(&mut ws.metadata, METADATA_INPUTS * shape.batch);
            for h in &mut ws.metadata_hidden {
                grow(h, m.hidden() * shape.batch);
            }
        }
        grow(&mut ws.trunk, self.trunk_channels * rows);
        grow(&mut ws.trunk_out, self.trunk_channels * rows);
        grow(&mut ws.head_a, widest * rows);
        grow(&mut ws.head_b, widest * rows);
        grow(&mut ws.head_pooled, 3 * widest * shape.batch);
        // The heads' small outputs all pass through `head_bias`: the policy
        // bias, the pass, the value's three and the scores' six, however
        // narrow the net's layers.
        let head_values = [
            widest,
            self.p_gpool_to_bias.out_channels,
            self.p_gpool_to_pass.out_channels,
            self.pass_hidden.as_ref().map_or(0, |h| h.mul2.out_channels),
            self.v3_mul.out_channels,
            self.sv3_mul.out_channels,
        ]
        .into_iter()
        .max()
        .unwrap_or(widest);
        grow(&mut ws.head_bias, head_values * shape.batch);
        grow(&mut ws.v2, self.v2_mul.out_channels * shape.batch);
        grow(
            &mut ws.pass_hidden,
            self.p_gpool_to_pass.out_channels * shape.batch,
        );
        ws.levels.resize_with(blocks.depth + 1, Level::default);
        for level in &mut ws.levels {
            for v in level.work.iter_mut() {
                grow(v, widest * rows);
            }
            grow(&mut level.inner_trunk, widest * rows);
        }
        ws.shared.transformer.fit(blocks.transformer);
        grow(&mut ws.shared.scratch, scratch);
        grow(&mut ws.shared.pooled, 3 * widest * shape.batch);
        grow(&mut ws.shared.pool_bias, widest * shape.batch);
    }

    /// The input buffers, to be filled before [`Network::forward`].
    pub fn input_planes<'a>(&self, ws: &'a mut Workspace, shape: Shape) -> Inputs<'a> {
        self.prepare(shape, ws);
        let metadata = match self.metadata_encoder {
            Some(_) => METADATA_INPUTS * shape.batch,
            None => 0,
        };
        Inputs {
            spatial: backend::SpatialInputs::Rows(
                &mut ws.input[..self.spatial_inputs * shape.rows()],
            ),
            global: &mut ws.global[..self.global_inputs * shape.batch],
            metadata: &mut ws.metadata[..metadata],
        }
    }

    /// Runs the network on the inputs in `ws` (filled through
    /// [`Network::input_planes`]) and writes each board's raw outputs.
    pub fn forward(&self, shape: Shape, ws: &mut Workspace, outputs: &mut [RawOutput]) {
        self.forward_timed(shape, ws, outputs, None);
    }

    /// [`Network::forward`], each part's wall-clock time added to
    /// `profile` where given.
    pub fn forward_timed(
        &self,
        shape: Shape,
        ws: &mut Workspace,
        outputs: &mut [RawOutput],
        profile: Option<&mut backend::PassProfile>,
    ) {
        // A profile counts each part's products' operations too.
        let _count = profile.is_some().then(super::gemm::FlopCount::start);
        let mut laps = backend::Laps::counting(profile, super::gemm::counted_flops);
        // Subnormal activations cost an Intel core about a hundred cycles
        // an operation: flushed for this pass, the thread's mode put back.
        let _flush = super::denormals::FlushDenormals::new();
        #[cfg(test)]
        FORWARD_FLUSHED.set(Some(super::denormals::flushing()));
        self.prepare(shape, ws);
        let rows = shape.rows();
        let points = shape.points();
        let c = self.trunk_channels;
        let Workspace {
            input,
            global,
            metadata,
            metadata_hidden,
            trunk,
            trunk_out,
            head_a,
            head_b,
            head_pooled,
            head_bias,
            v2,
            pass_hidden,
            levels,
            shared,
            ..
        } = ws;

        let scratch = &mut shared.scratch;
        self.initial_conv.apply(shape, input, trunk, scratch, false);
        self.initial_matmul.apply(shape.batch, global, head_bias);
        layers::add_spatial_bias(shape, c, head_bias, trunk);
        if let Some(m) = &self.metadata_encoder {
            let [h1, h2] = metadata_hidden;
            m.apply(shape.batch, metadata, [h1, h2], head_bias);
            layers::add_spatial_bias(shape, c, head_bias, trunk);
        }
        laps.lap("inputs layer");
        for block in &self.blocks {
            block.apply(shape, trunk, levels, shared, &mut laps);
        }
        let scratch = &mut shared.scratch;
        self.tip.apply(shape, trunk, trunk_out);
        laps.lap("trunk tip");

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
        let channels = self.p2_conv.out_channels;
        for (b, out) in outputs.iter_mut().enumerate().take(shape.batch) {
            let logits = &head_b[b * points * channels..(b + 1) * points * channels];
            out.policy.clear();
            out.policy.extend(logits.iter().step_by(channels));
            out.policy_optimistic.clear();
            if channels >= 2 {
                out.policy_optimistic
                    .extend(logits.iter().skip(1).step_by(channels));
            }
        }
        let pass = match &self.pass_hidden {
            None => {
                self.p_gpool_to_pass
                    .apply(shape.batch, head_pooled, head_bias);
                &head_bias[..]
            }
            Some(h) => {
                self.p_gpool_to_pass
                    .apply(shape.batch, head_pooled, pass_hidden);
                layers::add_bias(shape.batch, &h.bias, pass_hidden);
                for x in pass_hidden.iter_mut().take(h.bias.len() * shape.batch) {
                    *x = elementwise::activate(h.act, *x);
                }
                h.mul2.apply(shape.batch, pass_hidden, head_bias);
                &head_bias[..]
            }
        };
        for (b, out) in outputs.iter_mut().enumerate().take(shape.batch) {
            out.pass = pass[b * channels];
            out.pass_optimistic = if channels >= 2 {
                pass[b * channels + 1]
            } else {
                out.pass
            };
        }

        laps.lap("policy head");

        // Value head.
        let v = self.v1_conv.out_channels;
        self.v1_conv.apply(shape, trunk_out, head_b, scratch, false);
        self.v1_norm.apply(shape, &head_b[..v * rows], head_a);
        layers::pool(shape, v, head_a, head_pooled, Pooling::Quadratic);
        self.v2_mul.apply(shape.batch, head_pooled, v2);
        layers::add_bias(shape.batch, &self.v2_bias, v2);
        for x in v2.iter_mut().take(self.v2_mul.out_channels * shape.batch) {
            *x = elementwise::activate(self.v2_act, *x);
        }
        self.v3_mul.apply(shape.batch, v2, head_bias);
        layers::add_bias(shape.batch, &self.v3_bias, head_bias);
        for (b, out) in outputs.iter_mut().enumerate().take(shape.batch) {
            out.value.copy_from_slice(&head_bias[b * 3..b * 3 + 3]);
        }
        self.sv3_mul.apply(shape.batch, v2, head_bias);
        layers::add_bias(shape.batch, &self.sv3_bias, head_bias);
        let scores = self.sv3_bias.len();
        for (b, out) in outputs.iter_mut().enumerate().take(shape.batch) {
            out.score = [0.0; 6];
            out.score[..scores].copy_from_slice(&head_bias[b * scores..(b + 1) * scores]);
        }
        laps.lap("value head");
        self.ownership_conv
            .apply(shape, head_a, head_b, scratch, false);
        for (b, out) in outputs.iter_mut().enumerate().take(shape.batch) {
            out.ownership.clear();
            out.ownership
                .extend_from_slice(&head_b[b * points..(b + 1) * points]);
        }
        laps.lap("ownership head");
    }
}

#[cfg(test)]
thread_local! {
    /// Whether this thread's last forward pass ran flushing subnormals.
    pub static FORWARD_FLUSHED: std::cell::Cell<Option<bool>> = const { std::cell::Cell::new(None) };
}

/// Most points a batch runs through the CPU's layers together: boards go
/// together only while their activations stay in cache (measured: 8
/// boards of 19×19 at once cost 20% more a board than one at a time).
const BATCH_POINTS: usize = 400;

impl Network {
    /// The facts the evaluator and `bench` read.
    fn facts(&self) -> backend::Attributes {
        let precision = self.arithmetic.precision;
        let (products, per_fma) = precision.on_cpu(self.arithmetic.kernel.name());
        backend::Attributes {
            name: format!("cpu {products}"),
            precision,
            // One board preferred: the kernels reach their rate on one
            // board (9×9 with the embedded net on AMD: 0.64 ms an
            // evaluation alone, 0.69 in batches of 8), and a search's
            // threads each evaluate their own leaves.
            batching: backend::Batching {
                max_points: BATCH_POINTS,
                max_boards: usize::MAX,
                preferred_points: 0,
                min_preferred: 1,
                in_flight: 1,
            },
            peak_flops_per_cycle: self.arithmetic.kernel.peak_flops_per_cycle() * per_fma,
            on_processor: true,
        }
    }
}

/// The CPU network as a backend: the network and its facts.
pub struct CpuBackend {
    net: Network,
    attributes: backend::Attributes,
}

impl CpuBackend {
    pub fn new(net: Network) -> CpuBackend {
        CpuBackend {
            attributes: net.facts(),
            net,
        }
    }
}

/// One thread's passes through the CPU network: its workspace.
struct CpuComputation {
    backend: std::sync::Arc<CpuBackend>,
    ws: Workspace,
}

impl backend::Computation for CpuComputation {
    fn inputs(&mut self, shape: Shape) -> Inputs<'_> {
        self.backend.net.input_planes(&mut self.ws, shape)
    }

    fn forward(&mut self, shape: Shape, out: &mut [RawOutput]) -> Result<(), backend::PassError> {
        let net = &self.backend.net;
        let ws = &mut self.ws;
        net.arithmetic.run(|| net.forward(shape, ws, out));
        Ok(())
    }

    fn forward_profiled(
        &mut self,
        shape: Shape,
        out: &mut [RawOutput],
        profile: &mut backend::PassProfile,
    ) -> Result<(), backend::PassError> {
        let net = &self.backend.net;
        let ws = &mut self.ws;
        net.arithmetic
            .run(|| net.forward_timed(shape, ws, out, Some(profile)));
        Ok(())
    }
}

impl backend::Backend for CpuBackend {
    fn attributes(&self) -> &backend::Attributes {
        &self.attributes
    }

    fn computation(self: std::sync::Arc<Self>) -> Box<dyn backend::Computation> {
        Box::new(CpuComputation {
            backend: self,
            ws: Workspace::default(),
        })
    }

    fn macs(&self, size: BoardSize) -> f64 {
        self.net.macs(size)
    }
}
