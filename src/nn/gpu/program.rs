//! A network as a device runs it: a [`Program`] of operations on numbered
//! buffers, compiled once from a [`ModelDesc`], with the weights laid out
//! as the operations read them. A device executes the operations in order
//! (each a kernel or a library call on a GPU); what the program says of
//! the network (the order of the layers, which buffer feeds which, the
//! layouts, the heads of each model version) is written once here and held
//! to the CPU backend by the tests, through the host's executor.
//!
//! Activations are laid out as the CPU's: point by point with the channels
//! innermost (`[board][point][channel]`); a buffer of per-board values
//! holds `[board][value]`. A convolution's weights are one `(k·k·in) ×
//! out` matrix, rows in the order y, x, in channel, so that a convolution
//! is an im2col and a matrix product (a 1×1 one the product alone).

pub(crate) use super::ops::attention::{Attention, Rope};
pub(crate) use super::ops::conv::Conv;
pub(crate) use super::ops::dense::{MatMul, SwiGlu};
pub(crate) use super::ops::inputs::SpreadPlanes;
pub(crate) use super::ops::norm::{AddSpatialBias, BiasAct, NormAct, RmsNorm};
pub(crate) use super::ops::pool::{Pool, Third};
pub(crate) use super::ops::{Angles, Buf, Weights};
use super::ops::{GpuConv, GpuTrunk};

use crate::nn::backend::{Inputs, RawOutput, Shape, SpatialInputs};
use crate::nn::model::{
    Activation, AttentionDesc, BatchNormDesc, BlockDesc, ConvDesc, FeedForwardDesc, MatMulDesc,
    ModelDesc, Rope as RopeDesc, TrunkNorm,
};
use crate::nn::profile::METADATA_INPUTS;

/// How many values a buffer holds for one board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Extent {
    /// `channels` at each point.
    Spatial(usize),
    /// `values` for the board.
    Global(usize),
}

impl Extent {
    /// Values for `shape`'s boards.
    pub(crate) fn len(self, shape: Shape) -> usize {
        match self {
            Extent::Spatial(c) => c * shape.rows(),
            Extent::Global(n) => n * shape.batch,
        }
    }
}

/// One operation: its arguments' type, in the module of its family
/// (`ops`), holds how a device and the host run it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Op {
    SpreadPlanes(SpreadPlanes),
    Conv(Conv),
    NormAct(NormAct),
    MatMul(MatMul),
    BiasAct(BiasAct),
    AddSpatialBias(AddSpatialBias),
    Pool(Pool),
    RmsNorm(RmsNorm),
    Rope(Rope),
    Attention(Attention),
    SwiGlu(SwiGlu),
}

impl Op {
    /// The operation's kind, as a profile names it.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Op::SpreadPlanes(_) => "input planes",
            Op::Conv(c) if c.size == 1 => "conv 1x1",
            Op::Conv(_) => "conv 3x3",
            Op::NormAct(_) => "norm and activation",
            Op::MatMul(_) => "dense product",
            Op::BiasAct(_) => "bias and activation",
            Op::AddSpatialBias(_) => "spatial bias",
            Op::Pool(_) => "global pooling",
            Op::RmsNorm(_) => "rms norm",
            Op::Rope(_) => "rotary embedding",
            Op::Attention(_) => "attention",
            Op::SwiGlu(_) => "swiglu",
        }
    }
}

impl Op {
    /// The buffers the operation reads or writes, each with whether it
    /// takes them as halves (where the products are f16, the 3×3
    /// convolutions run as `conv` says).
    fn operands(&self, conv: GpuConv, trunk: GpuTrunk) -> Vec<(Buf, bool)> {
        let plain = |bufs: &[Buf]| bufs.iter().map(|&b| (b, false)).collect();
        let trunk_halves = trunk == GpuTrunk::F16;
        match *self {
            Op::SpreadPlanes(s) => plain(&[s.src, s.dst]),
            Op::Conv(c) => vec![
                (c.src, c.size == 1 || conv == GpuConv::Cudnn),
                (c.dst, !c.accumulate || trunk_halves),
            ],
            Op::NormAct(n) => {
                let mut v = vec![(n.src, true), (n.dst, true)];
                v.extend(n.extra.map(|e| (e, false)));
                v
            }
            Op::MatMul(m) => plain(&[m.src, m.dst]),
            Op::BiasAct(b) => plain(&[b.dst]),
            Op::AddSpatialBias(a) => vec![(a.src, false), (a.dst, trunk_halves)],
            Op::Pool(p) => plain(&[p.src, p.dst]),
            Op::RmsNorm(r) => plain(&[r.src, r.dst]),
            Op::Rope(r) => plain(&[r.values]),
            Op::Attention(a) => plain(&[a.qkv, a.out]),
            Op::SwiGlu(g) => plain(&[g.both, g.out]),
        }
    }
}

cfg_device! {
    impl Op {
        /// Runs the operation on a device.
        pub(crate) fn on_device(&self, s: &mut super::ops::DeviceStep) -> Result<(), String> {
            match self {
                Op::SpreadPlanes(op) => op.on_device(s),
                Op::Conv(op) => op.on_device(s),
                Op::NormAct(op) => op.on_device(s),
                Op::MatMul(op) => op.on_device(s),
                Op::BiasAct(op) => op.on_device(s),
                Op::AddSpatialBias(op) => op.on_device(s),
                Op::Pool(op) => op.on_device(s),
                Op::RmsNorm(op) => op.on_device(s),
                Op::Rope(op) => op.on_device(s),
                Op::Attention(op) => op.on_device(s),
                Op::SwiGlu(op) => op.on_device(s),
            }
        }
    }
}

#[cfg(test)]
impl Op {
    /// Runs the operation in the host's loops.
    pub(crate) fn on_host(&self, s: &mut super::ops::HostStep) {
        match self {
            Op::SpreadPlanes(op) => op.on_host(s),
            Op::Conv(op) => op.on_host(s),
            Op::NormAct(op) => op.on_host(s),
            Op::MatMul(op) => op.on_host(s),
            Op::BiasAct(op) => op.on_host(s),
            Op::AddSpatialBias(op) => op.on_host(s),
            Op::Pool(op) => op.on_host(s),
            Op::RmsNorm(op) => op.on_host(s),
            Op::Rope(op) => op.on_host(s),
            Op::Attention(op) => op.on_host(s),
            Op::SwiGlu(op) => op.on_host(s),
        }
    }
}

/// Where the heads' numbers are when the program has run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Heads {
    /// The policy's logits: spatial, `policy_channels` a point (the
    /// optimistic policy second, version 12 on).
    pub policy: Buf,
    pub policy_channels: usize,
    /// The pass logits, `policy_channels` a board.
    pub pass: Buf,
    /// Win, loss, no result.
    pub value: Buf,
    /// The score outputs, `scores` a board.
    pub score: Buf,
    pub scores: usize,
    /// One value a point.
    pub ownership: Buf,
}

impl Heads {
    /// The heads' buffers, as the host reads them back.
    pub(crate) fn buffers(&self) -> [Buf; 5] {
        [
            self.policy,
            self.pass,
            self.value,
            self.score,
            self.ownership,
        ]
    }
}

/// How a buffer of a program stores its values on a device: its element
/// type, as data the program carries (every activation is single
/// precision today; a product's halves are the executor's scratch).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Storage {
    F32,
    F16,
}

/// Which way a buffer crosses between host and device in a pass: up (the
/// inputs, uploaded) or down (the heads, downloaded); each way is one
/// block, one copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Crossing {
    Up = 0,
    Down = 1,
}

/// A network compiled for a device.
pub(crate) struct Program {
    pub ops: Vec<Op>,
    pub buffers: Vec<Extent>,
    /// Each buffer's element type.
    pub storage: Vec<Storage>,
    pub weights: Vec<Vec<f32>>,
    /// Each point's input planes as one value, their bits (plane `c` at
    /// bit `c`), which [`SpreadPlanes`] spreads on the device.
    pub spatial_input: Buf,
    pub global_input: Buf,
    /// A human-like net's metadata inputs.
    pub metadata_input: Option<Buf>,
    pub heads: Heads,
}

/// The heads' scratch: two spatial buffers and the pooled values.
#[derive(Clone, Copy)]
struct HeadBuffers {
    a: Buf,
    b: Buf,
    pooled: Buf,
}

/// The buffers of one level of nested bottlenecks: three for a block's own
/// work and the narrower trunk of the blocks inside.
#[derive(Clone, Copy)]
struct Level {
    a: Buf,
    b: Buf,
    c: Buf,
    inner: Buf,
}

/// The buffers every transformer block shares, as wide as the widest
/// block's: the norm, the queries, keys and values side by side, the
/// heads' outputs, the hidden and gate values side by side, the gated
/// unit's output.
#[derive(Clone, Copy)]
struct TransformerBuffers {
    norm: Buf,
    qkv: Buf,
    heads_out: Buf,
    hidden_gate: Buf,
    gated: Buf,
}

/// The compiler's state: the program so far and the buffers by level.
struct Compiler {
    program: Program,
    levels: Vec<Level>,
    widest: usize,
    pooled: Buf,
    pool_bias: Buf,
    transformer: Option<TransformerBuffers>,
}

impl Compiler {
    /// A compiler for `desc`: an empty program, the scratch of pooled
    /// values and biases, a transformer's buffers where it has blocks.
    fn new(desc: &ModelDesc) -> Compiler {
        let p = &desc.policy;
        let v = &desc.value;
        let c = desc.trunk.channels;
        let widest = [
            c,
            widest(&desc.trunk.blocks),
            p.p1_conv.out_channels,
            p.g1_conv.out_channels,
            p.p2_conv.out_channels,
            v.v1_conv.out_channels,
            v.ownership_conv.out_channels,
        ]
        .into_iter()
        .max()
        .unwrap_or(c);
        let empty = Program {
            ops: Vec::new(),
            buffers: Vec::new(),
            storage: Vec::new(),
            weights: Vec::new(),
            spatial_input: Buf(0),
            global_input: Buf(0),
            metadata_input: None,
            heads: Heads {
                policy: Buf(0),
                policy_channels: p.p2_conv.out_channels,
                pass: Buf(0),
                value: Buf(0),
                score: Buf(0),
                scores: v.sv3_bias.len(),
                ownership: Buf(0),
            },
        };
        let mut k = Compiler {
            program: empty,
            levels: Vec::new(),
            widest,
            pooled: Buf(0),
            pool_bias: Buf(0),
            transformer: None,
        };
        k.pooled = k.buffer(Extent::Global(3 * widest));
        k.pool_bias = k.buffer(Extent::Global(widest));
        if let Some([norm, qkv, heads_out, hidden]) = transformer_widths(&desc.trunk.blocks) {
            let mut spatial = |c: usize| k.buffer(Extent::Spatial(c));
            let t = TransformerBuffers {
                norm: spatial(norm),
                qkv: spatial(qkv),
                heads_out: spatial(heads_out),
                hidden_gate: spatial(2 * hidden),
                gated: spatial(hidden),
            };
            k.transformer = Some(t);
        }
        k
    }

    /// The trunk: the inputs' convolution, the global inputs' bias, the
    /// metadata's bias, the blocks, the tip (into `trunk_out`).
    fn trunk(&mut self, desc: &ModelDesc, spatial: Buf, global: Buf, trunk: Buf, trunk_out: Buf) {
        let k = self;
        let c = desc.trunk.channels;
        let trunk_bias = k.buffer(Extent::Global(c));
        k.conv(&desc.trunk.initial_conv, spatial, trunk, false);
        k.matmul(&desc.trunk.initial_matmul, global, trunk_bias);
        k.program.ops.push(Op::AddSpatialBias(AddSpatialBias {
            src: trunk_bias,
            dst: trunk,
            channels: c,
        }));
        if let Some(m) = &desc.trunk.metadata_encoder {
            let input = k.buffer(Extent::Global(METADATA_INPUTS));
            let h1 = k.buffer(Extent::Global(m.mul1.out_channels));
            let h2 = k.buffer(Extent::Global(m.mul2.out_channels));
            k.program.metadata_input = Some(input);
            k.matmul(&m.mul1, input, h1);
            k.bias_act(&m.bias1, m.act1, h1);
            k.matmul(&m.mul2, h1, h2);
            k.bias_act(&m.bias2, m.act2, h2);
            k.matmul(&m.mul3, h2, trunk_bias);
            k.program.ops.push(Op::AddSpatialBias(AddSpatialBias {
                src: trunk_bias,
                dst: trunk,
                channels: c,
            }));
        }
        for block in &desc.trunk.blocks {
            k.block(block, trunk, 0);
        }
        match &desc.trunk.tip_norm {
            TrunkNorm::Batch(bn) => k.norm_act(bn, desc.trunk.tip_act, trunk, trunk_out, None),
            TrunkNorm::Rms(rms) => {
                let gamma = k.weights(rms.gamma.clone());
                let beta = k.weights(rms.beta.clone());
                k.program.ops.push(Op::RmsNorm(RmsNorm {
                    src: trunk,
                    dst: trunk_out,
                    channels: rms.gamma.len(),
                    gamma,
                    beta: Some(beta),
                    epsilon: rms.epsilon,
                    board: rms.spatial,
                    act: desc.trunk.tip_act,
                }));
            }
        }
    }

    /// The policy head: the pooled values of g1 bias p1; the pass from the
    /// same pooled values, through a hidden layer from version 15. Its
    /// policy and pass buffers.
    fn policy_head(&mut self, desc: &ModelDesc, trunk_out: Buf, h: HeadBuffers) -> (Buf, Buf) {
        let (k, p) = (self, &desc.policy);
        let (head_a, head_b, head_pooled) = (h.a, h.b, h.pooled);
        let g = p.g1_conv.out_channels;
        let policy_bias = k.buffer(Extent::Global(p.gpool_to_bias.out_channels));
        let policy = k.buffer(Extent::Spatial(p.p2_conv.out_channels));
        let pass_outputs = match &p.pass_hidden {
            None => p.gpool_to_pass.out_channels,
            Some(h) => h.mul2.out_channels,
        };
        let pass = k.buffer(Extent::Global(pass_outputs.max(p.p2_conv.out_channels)));
        k.conv(&p.p1_conv, trunk_out, head_a, false);
        k.conv(&p.g1_conv, trunk_out, head_b, false);
        k.norm_act(&p.g1_bn, p.g1_act, head_b, head_b, None);
        k.pool(head_b, head_pooled, g, Third::Max);
        k.matmul(&p.gpool_to_bias, head_pooled, policy_bias);
        k.norm_act(&p.p1_bn, p.p1_act, head_a, head_a, Some(policy_bias));
        k.conv(&p.p2_conv, head_a, policy, false);
        match &p.pass_hidden {
            None => k.matmul(&p.gpool_to_pass, head_pooled, pass),
            Some(h) => {
                let hidden = k.buffer(Extent::Global(p.gpool_to_pass.out_channels));
                k.matmul(&p.gpool_to_pass, head_pooled, hidden);
                k.bias_act(&h.bias, h.act, hidden);
                k.matmul(&h.mul2, hidden, pass);
            }
        }
        (policy, pass)
    }

    /// The value head: v1 pooled, two dense layers to the value and the
    /// scores; the ownership from v1. Its value, score and ownership
    /// buffers.
    fn value_head(&mut self, desc: &ModelDesc, trunk_out: Buf, h: HeadBuffers) -> (Buf, Buf, Buf) {
        let (k, v) = (self, &desc.value);
        let (head_a, head_b, head_pooled) = (h.a, h.b, h.pooled);
        let v1 = v.v1_conv.out_channels;
        let v2 = k.buffer(Extent::Global(v.v2_mul.out_channels));
        let value = k.buffer(Extent::Global(v.v3_mul.out_channels));
        let score = k.buffer(Extent::Global(v.sv3_mul.out_channels));
        let ownership = k.buffer(Extent::Spatial(v.ownership_conv.out_channels));
        k.conv(&v.v1_conv, trunk_out, head_b, false);
        k.norm_act(&v.v1_bn, v.v1_act, head_b, head_a, None);
        k.pool(head_a, head_pooled, v1, Third::Quadratic);
        k.matmul(&v.v2_mul, head_pooled, v2);
        k.bias_act(&v.v2_bias, v.v2_act, v2);
        k.matmul(&v.v3_mul, v2, value);
        k.bias_act(&v.v3_bias, Activation::Identity, value);
        k.matmul(&v.sv3_mul, v2, score);
        k.bias_act(&v.sv3_bias, Activation::Identity, score);
        k.conv(&v.ownership_conv, head_a, ownership, false);
        (value, score, ownership)
    }
    fn buffer(&mut self, extent: Extent) -> Buf {
        self.program.buffers.push(extent);
        self.program.storage.push(Storage::F32);
        Buf(self.program.buffers.len() - 1)
    }

    fn weights(&mut self, values: Vec<f32>) -> Weights {
        self.program.weights.push(values);
        Weights(self.program.weights.len() - 1)
    }

    fn level(&mut self, depth: usize) -> Level {
        while self.levels.len() <= depth {
            let w = Extent::Spatial(self.widest);
            let level = Level {
                a: self.buffer(w),
                b: self.buffer(w),
                c: self.buffer(w),
                inner: self.buffer(w),
            };
            self.levels.push(level);
        }
        self.levels[depth]
    }

    fn conv(&mut self, desc: &ConvDesc, src: Buf, dst: Buf, accumulate: bool) {
        let weights = self.weights(conv_matrix(desc));
        self.program.ops.push(Op::Conv(Conv {
            src,
            dst,
            weights,
            size: desc.size_x,
            cin: desc.in_channels,
            cout: desc.out_channels,
            accumulate,
        }));
    }

    fn norm_act(
        &mut self,
        bn: &BatchNormDesc,
        act: Activation,
        src: Buf,
        dst: Buf,
        extra: Option<Buf>,
    ) {
        let scale = self.weights(bn.scale.clone());
        let bias = self.weights(bn.bias.clone());
        self.program.ops.push(Op::NormAct(NormAct {
            src,
            dst,
            channels: bn.scale.len(),
            scale,
            bias,
            extra,
            act,
        }));
    }

    fn matmul(&mut self, desc: &MatMulDesc, src: Buf, dst: Buf) {
        let weights = self.weights(desc.weights.clone());
        self.program.ops.push(Op::MatMul(MatMul {
            src,
            dst,
            weights,
            cin: desc.in_channels,
            cout: desc.out_channels,
        }));
    }

    fn bias_act(&mut self, bias: &[f32], act: Activation, dst: Buf) {
        let w = self.weights(bias.to_vec());
        self.program.ops.push(Op::BiasAct(BiasAct {
            dst,
            bias: w,
            channels: bias.len(),
            act,
        }));
    }

    fn pool(&mut self, src: Buf, dst: Buf, channels: usize, third: Third) {
        self.program.ops.push(Op::Pool(Pool {
            src,
            dst,
            channels,
            third,
        }));
    }

    /// `trunk += block(trunk)` at nesting `depth`.
    fn block(&mut self, desc: &BlockDesc, trunk: Buf, depth: usize) {
        let Level { a, b, c, inner } = self.level(depth);
        match desc {
            BlockDesc::Ordinary {
                pre_bn,
                pre_act,
                conv1,
                mid_bn,
                mid_act,
                conv2,
            } => {
                self.norm_act(pre_bn, *pre_act, trunk, a, None);
                self.conv(conv1, a, b, false);
                self.norm_act(mid_bn, *mid_act, b, a, None);
                self.conv(conv2, a, trunk, true);
            }
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
            } => {
                let (pooled, pool_bias) = (self.pooled, self.pool_bias);
                self.norm_act(pre_bn, *pre_act, trunk, a, None);
                self.conv(regular_conv, a, b, false);
                self.conv(gpool_conv, a, c, false);
                self.norm_act(gpool_bn, *gpool_act, c, c, None);
                self.pool(c, pooled, gpool_conv.out_channels, Third::Max);
                self.matmul(gpool_to_bias, pooled, pool_bias);
                self.norm_act(mid_bn, *mid_act, b, a, Some(pool_bias));
                self.conv(final_conv, a, trunk, true);
            }
            BlockDesc::NestedBottleneck {
                pre_bn,
                pre_act,
                pre_conv,
                blocks,
                post_bn,
                post_act,
                post_conv,
            } => {
                self.norm_act(pre_bn, *pre_act, trunk, a, None);
                self.conv(pre_conv, a, inner, false);
                for block in blocks {
                    self.block(block, inner, depth + 1);
                }
                self.norm_act(post_bn, *post_act, inner, a, None);
                self.conv(post_conv, a, trunk, true);
            }
            BlockDesc::Attention(att) => self.attention(att, trunk),
            BlockDesc::FeedForward(ff) => self.feed_forward(ff, trunk),
        }
    }

    /// A dense layer at every point: a 1×1 convolution, whose matrix is
    /// the layer's own (`in × out`).
    fn dense(&mut self, desc: &MatMulDesc, src: Buf, dst: Buf, accumulate: bool) {
        let weights = self.weights(desc.weights.clone());
        self.program.ops.push(Op::Conv(Conv {
            src,
            dst,
            weights,
            size: 1,
            cin: desc.in_channels,
            cout: desc.out_channels,
            accumulate,
        }));
    }

    /// A transformer block's RMSNorm of `trunk` into the shared norm
    /// buffer.
    fn block_norm(&mut self, desc: &crate::nn::model::TransformerNormDesc, trunk: Buf) -> Buf {
        let t = self.transformer.expect("the transformer buffers");
        let gamma = self.weights(desc.weight.clone());
        self.program.ops.push(Op::RmsNorm(RmsNorm {
            src: trunk,
            dst: t.norm,
            channels: desc.weight.len(),
            gamma,
            beta: None,
            epsilon: desc.epsilon,
            board: false,
            act: Activation::Identity,
        }));
        t.norm
    }

    /// `trunk += out(attention(norm(trunk)))`.
    fn attention(&mut self, att: &AttentionDesc, trunk: Buf) {
        let t = self.transformer.expect("the transformer buffers");
        let norm = self.block_norm(&att.norm, trunk);
        self.dense(
            &MatMulDesc::side_by_side(&[&att.q, &att.k, &att.v]),
            norm,
            t.qkv,
            false,
        );
        let attention = Attention {
            qkv: t.qkv,
            out: t.heads_out,
            heads: att.heads,
            kv_heads: att.kv_heads,
            dim: att.q_dim,
            v_dim: att.v_dim,
        };
        let angles = match &att.rope {
            RopeDesc::None => None,
            RopeDesc::Learned(freqs) => Some(Angles::Learned {
                freqs: self.weights(freqs.clone()),
                tables: att.kv_heads,
            }),
            &RopeDesc::Fixed(theta) => Some(Angles::Fixed { theta }),
        };
        if let Some(angles) = angles {
            // The queries' heads, then the keys'.
            for (column, heads) in [(0, att.heads), (attention.k_column(), att.kv_heads)] {
                self.program.ops.push(Op::Rope(Rope {
                    values: t.qkv,
                    column,
                    stride: attention.stride(),
                    heads,
                    dim: att.q_dim,
                    angles,
                }));
            }
        }
        self.program.ops.push(Op::Attention(attention));
        self.dense(&att.out, t.heads_out, trunk, true);
    }

    /// `trunk += linear2(silu(linear1(n)) · gate(n))`, `n = norm(trunk)`.
    fn feed_forward(&mut self, ff: &FeedForwardDesc, trunk: Buf) {
        let t = self.transformer.expect("the transformer buffers");
        let norm = self.block_norm(&ff.norm, trunk);
        self.dense(
            &MatMulDesc::side_by_side(&[&ff.linear1, &ff.gate]),
            norm,
            t.hidden_gate,
            false,
        );
        self.program.ops.push(Op::SwiGlu(SwiGlu {
            both: t.hidden_gate,
            out: t.gated,
            channels: ff.linear1.out_channels,
        }));
        self.dense(&ff.linear2, t.gated, trunk, true);
    }
}

/// The widest buffers of the transformer blocks (at any depth): norm,
/// queries, keys and values together, heads' outputs, hidden; `None`
/// without such blocks.
fn transformer_widths(blocks: &[BlockDesc]) -> Option<[usize; 4]> {
    let mut widths: Option<[usize; 4]> = None;
    let mut take = |w: [usize; 4]| {
        let max = widths.get_or_insert([0; 4]);
        for (m, x) in max.iter_mut().zip(w) {
            *m = (*m).max(x);
        }
    };
    for block in blocks {
        match block {
            BlockDesc::Attention(a) => take([
                a.q.in_channels,
                a.heads * a.q_dim + a.kv_heads * (a.q_dim + a.v_dim),
                a.heads * a.v_dim,
                0,
            ]),
            BlockDesc::FeedForward(f) => {
                take([f.linear1.in_channels, 0, 0, f.linear1.out_channels])
            }
            BlockDesc::NestedBottleneck { blocks, .. } => {
                if let Some(w) = transformer_widths(blocks) {
                    take(w);
                }
            }
            _ => {}
        }
    }
    widths
}

/// A convolution's weights (out, in, y, x) as the `(y, x, in) × out`
/// matrix an im2col multiplies.
fn conv_matrix(desc: &ConvDesc) -> Vec<f32> {
    let (size, cin, cout) = (desc.size_x, desc.in_channels, desc.out_channels);
    let mut m = vec![0.0; size * size * cin * cout];
    for y in 0..size {
        for x in 0..size {
            for i in 0..cin {
                for o in 0..cout {
                    m[((y * size + x) * cin + i) * cout + o] =
                        desc.weights[((o * cin + i) * size + y) * size + x];
                }
            }
        }
    }
    m
}

/// The widest spatial activation of the blocks.
fn widest(blocks: &[BlockDesc]) -> usize {
    blocks
        .iter()
        .map(|b| match b {
            BlockDesc::Ordinary { conv1, .. } => conv1.in_channels.max(conv1.out_channels),
            BlockDesc::GlobalPooling {
                regular_conv,
                gpool_conv,
                ..
            } => regular_conv
                .in_channels
                .max(regular_conv.out_channels)
                .max(gpool_conv.out_channels),
            BlockDesc::NestedBottleneck {
                pre_conv, blocks, ..
            } => widest(blocks)
                .max(pre_conv.in_channels)
                .max(pre_conv.out_channels),
            BlockDesc::Attention(_) | BlockDesc::FeedForward(_) => 0,
        })
        .max()
        .unwrap_or(0)
}

impl Program {
    /// Compiles `desc`: every model version, block kind and head kosumi
    /// reads.
    pub(crate) fn compile(desc: &ModelDesc) -> Program {
        let (p, v) = (&desc.policy, &desc.value);
        let mut k = Compiler::new(desc);
        let c = desc.trunk.channels;
        let widest = k.widest;
        // The host sends each point's planes as one value, their bits;
        // the device spreads them into the rows the first convolution
        // reads (exact integers in single precision up to 2^24).
        const { assert!(crate::nn::inputs::SPATIAL <= 24) };
        let masks = k.buffer(Extent::Spatial(1));
        let spatial = k.buffer(Extent::Spatial(desc.spatial_inputs));
        let global = k.buffer(Extent::Global(desc.global_inputs));
        k.program.spatial_input = masks;
        k.program.global_input = global;
        k.program.ops.push(Op::SpreadPlanes(SpreadPlanes {
            src: masks,
            dst: spatial,
            channels: desc.spatial_inputs,
        }));
        let trunk = k.buffer(Extent::Spatial(c));
        let trunk_out = k.buffer(Extent::Spatial(c));
        let heads = HeadBuffers {
            a: k.buffer(Extent::Spatial(widest)),
            b: k.buffer(Extent::Spatial(widest)),
            pooled: k.buffer(Extent::Global(3 * widest)),
        };
        k.trunk(desc, spatial, global, trunk, trunk_out);
        let (policy, pass) = k.policy_head(desc, trunk_out, heads);
        let (value, score, ownership) = k.value_head(desc, trunk_out, heads);
        k.program.heads = Heads {
            policy,
            policy_channels: p.p2_conv.out_channels,
            pass,
            value,
            score,
            scores: v.sv3_bias.len(),
            ownership,
        };
        k.program
    }

    /// Multiply-adds of one evaluation on a board of `points` points: the
    /// convolutions (the dense layers of the heads left out, as the CPU
    /// backend counts).
    pub(crate) fn macs(&self, points: usize) -> f64 {
        self.ops
            .iter()
            .map(|op| match op {
                Op::Conv(Conv {
                    size, cin, cout, ..
                }) => (size * size * cin * cout * points) as f64,
                Op::Attention(Attention {
                    heads, dim, v_dim, ..
                }) => (heads * points * points * (dim + v_dim)) as f64,
                _ => 0.0,
            })
            .sum()
    }

    /// The largest im2col matrix a convolution of the program needs for
    /// `shape` (none for 1×1).
    pub(crate) fn im2col_len(&self, shape: Shape) -> usize {
        self.ops
            .iter()
            .map(|op| match op {
                Op::Conv(Conv { size, cin, .. }) if *size > 1 => size * size * cin * shape.rows(),
                _ => 0,
            })
            .max()
            .unwrap_or(0)
    }

    /// The most a convolution by a library needs of the products' input
    /// scratch in halves: its input and its output.
    fn library_len(&self, shape: Shape) -> usize {
        self.ops
            .iter()
            .map(|op| match op {
                Op::Conv(Conv {
                    size, cin, cout, ..
                }) if *size > 1 => {
                    super::ops::conv::library_output_at(cin * shape.rows()) + cout * shape.rows()
                }
                _ => 0,
            })
            .max()
            .unwrap_or(0)
    }

    /// Whether an operation is attention (a workspace then keeps scores).
    pub(crate) fn has_attention(&self) -> bool {
        self.ops.iter().any(|op| matches!(op, Op::Attention(_)))
    }

    /// The largest input of a product for `shape`: an im2col matrix, or a
    /// 1×1 convolution's input (where a copy of every product's input is
    /// made: in half precision, and by the host's executor), or a library
    /// convolution's input and output in halves.
    pub(crate) fn product_input_len(&self, shape: Shape) -> usize {
        let widest = self.ops.iter().map(|op| match op {
            Op::Conv(Conv { cin, .. }) => cin * shape.rows(),
            _ => 0,
        });
        let most = self.im2col_len(shape).max(self.library_len(shape));
        most.max(widest.max().unwrap_or(0))
    }

    /// The input buffers, cut to `shape`, in `host`: the inputs' block as
    /// [`Program::pack`] laid it out in `packed`, to be filled.
    pub(crate) fn inputs<'a>(
        &self,
        host: &'a mut [f32],
        packed: &[(Buf, Crossing, usize)],
        shape: Shape,
    ) -> Inputs<'a> {
        let mut slots: [&mut [f32]; 3] = [&mut [], &mut [], &mut []];
        let mut rest = host;
        let mut taken = 0;
        for &(b, crossing, at) in packed {
            if crossing != Crossing::Up {
                continue;
            }
            // The block's buffers in order, each at its place.
            let (_, from) = std::mem::take(&mut rest).split_at_mut(at - taken);
            let n = self.buffers[b.0].len(shape);
            let (mine, after) = from.split_at_mut(n);
            if let Some(i) = self.input_slot(b) {
                slots[i] = mine;
            }
            taken = at + n;
            rest = after;
        }
        Program::inputs_of(slots)
    }

    /// Which input buffer `b` is, as [`Program::inputs_of`] takes them:
    /// the planes' masks, the global inputs, the metadata.
    pub(crate) fn input_slot(&self, b: Buf) -> Option<usize> {
        [
            Some(self.spatial_input),
            Some(self.global_input),
            self.metadata_input,
        ]
        .iter()
        .position(|&i| i == Some(b))
    }

    /// The inputs from their buffers' values, in [`Program::input_slot`]'s
    /// order.
    pub(crate) fn inputs_of([masks, global, metadata]: [&mut [f32]; 3]) -> Inputs<'_> {
        Inputs {
            spatial: SpatialInputs::Masks(masks),
            global,
            metadata,
        }
    }

    /// The buffers that cross between host and device, each with its
    /// crossing, in their order there: the inputs up, the heads down.
    pub(crate) fn crossings(&self) -> impl Iterator<Item = (Buf, Crossing)> + '_ {
        let inputs = [
            Some(self.spatial_input),
            Some(self.global_input),
            self.metadata_input,
        ];
        let up = inputs.into_iter().flatten().map(|b| (b, Crossing::Up));
        up.chain(
            self.heads
                .buffers()
                .into_iter()
                .map(|b| (b, Crossing::Down)),
        )
    }

    /// Packs the crossing buffers of `len(b)` values each into two
    /// blocks, so that each crossing is one copy: into `packed` (cleared)
    /// each buffer's crossing and place in its block, one after another at
    /// 64-value (256-byte, a device allocation's alignment) boundaries;
    /// the blocks' lengths, the inputs' first.
    pub(crate) fn pack(
        &self,
        len: impl Fn(Buf) -> usize,
        packed: &mut Vec<(Buf, Crossing, usize)>,
    ) -> [usize; 2] {
        packed.clear();
        let mut ends = [0; 2];
        for (b, crossing) in self.crossings() {
            let end = &mut ends[crossing as usize];
            packed.push((b, crossing, *end));
            *end += len(b).next_multiple_of(64);
        }
        ends
    }

    /// Stores between layers in halves on a device whose products are
    /// f16, its 3×3 convolutions run as `conv` says and the trunk kept as
    /// `trunk` says: each buffer that every operation touching it takes as
    /// halves (a convolution's input where its product or cuDNN reads it
    /// so, its output where it does not add to it or the trunk is halves;
    /// a norm's input and output; with the trunk in halves, what the
    /// global inputs' bias is added to), each value times
    /// [`HALF_SCALE`](super::kernels::HALF_SCALE); single precision for
    /// the rest (the inputs and heads, what the other operations read or
    /// write, the trunks that convolutions add to unless `trunk` is f16).
    pub(crate) fn store_halves_between_layers(&mut self, conv: GpuConv, trunk: GpuTrunk) {
        let mut halves = vec![true; self.buffers.len()];
        for (b, half) in halves.iter_mut().enumerate() {
            *half &= !self.crosses(Buf(b));
        }
        for op in &self.ops {
            for (b, takes_halves) in op.operands(conv, trunk) {
                halves[b.0] &= takes_halves;
            }
        }
        self.storage = halves
            .into_iter()
            .map(|h| if h { Storage::F16 } else { Storage::F32 })
            .collect();
    }

    /// Whether buffer `b` crosses between host and device: an input or a
    /// head.
    pub(crate) fn crosses(&self, b: Buf) -> bool {
        self.crossings().any(|(c, _)| c == b)
    }

    /// Each board's raw heads from the head buffers' values (`read` gives
    /// a buffer's values for `shape`), as the CPU backend writes them.
    pub(crate) fn read_heads<'a>(
        &self,
        shape: Shape,
        read: impl Fn(Buf) -> &'a [f32],
        outputs: &mut [RawOutput],
    ) {
        let h = &self.heads;
        let points = shape.points();
        let channels = h.policy_channels;
        let (policy, pass, value, score, ownership) = (
            read(h.policy),
            read(h.pass),
            read(h.value),
            read(h.score),
            read(h.ownership),
        );
        for (b, out) in outputs.iter_mut().enumerate().take(shape.batch) {
            let logits = &policy[b * points * channels..(b + 1) * points * channels];
            out.policy.clear();
            out.policy.extend(logits.iter().step_by(channels));
            out.policy_optimistic.clear();
            if channels >= 2 {
                out.policy_optimistic
                    .extend(logits.iter().skip(1).step_by(channels));
            }
            out.pass = pass[b * channels];
            out.pass_optimistic = if channels >= 2 {
                pass[b * channels + 1]
            } else {
                out.pass
            };
            out.value.copy_from_slice(&value[b * 3..b * 3 + 3]);
            out.score = [0.0; 6];
            out.score[..h.scores].copy_from_slice(&score[b * h.scores..(b + 1) * h.scores]);
            out.ownership.clear();
            out.ownership
                .extend_from_slice(&ownership[b * points..(b + 1) * points]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_between_layers_hold_halves_where_every_operation_takes_them() {
        let desc = ModelDesc::parse(crate::nn::EMBEDDED_MODEL).unwrap();
        for conv in [GpuConv::Cudnn, GpuConv::Im2col] {
            let mut program = Program::compile(&desc);
            assert!(program.storage.iter().all(|&s| s == Storage::F32));
            program.store_halves_between_layers(conv, GpuTrunk::F32);
            let halves = |b: Buf| program.storage[b.0] == Storage::F16;
            // The inputs and heads cross to the host in single precision.
            assert!(!halves(program.spatial_input) && !halves(program.global_input));
            assert!(program.heads.buffers().iter().all(|&b| !halves(b)));
            let (mut into_norms, mut into_3x3) = (0, 0);
            for op in &program.ops {
                match *op {
                    // A convolution that adds to its output adds to single
                    // precision; a 3×3 one reads halves only from cuDNN.
                    Op::Conv(c) => {
                        assert!(!(c.accumulate && halves(c.dst)));
                        if c.size > 1 && halves(c.src) {
                            assert_eq!(conv, GpuConv::Cudnn);
                            into_3x3 += 1;
                        }
                    }
                    Op::NormAct(n) => into_norms += usize::from(halves(n.dst)),
                    Op::Pool(p) => assert!(!halves(p.src) && !halves(p.dst)),
                    Op::MatMul(m) => assert!(!halves(m.src) && !halves(m.dst)),
                    _ => {}
                }
            }
            // Under cuDNN every block's norms write halves for its
            // convolutions; by im2col only the tip's, for the heads' 1×1
            // ones.
            match conv {
                GpuConv::Cudnn => assert!(into_norms >= 12 && into_3x3 >= 12),
                GpuConv::Im2col => assert!(into_norms == 1 && into_3x3 == 0),
            }
        }
    }

    #[test]
    fn a_trunk_in_halves_takes_the_residuals_and_the_global_bias() {
        // The embedded net (plain residual blocks and global pooling) and
        // nested bottlenecks: with the trunk in halves every convolution
        // that adds a residual adds to halves, and so does the global
        // inputs' bias; pooling, the products of the global inputs and
        // the heads stay single.
        for model in [
            ModelDesc::parse(crate::nn::EMBEDDED_MODEL).unwrap(),
            ModelDesc::load(std::path::Path::new(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/data/models/synthetic-v16.txt.gz"
            )))
            .unwrap(),
        ] {
            let mut program = Program::compile(&model);
            program.store_halves_between_layers(GpuConv::Cudnn, GpuTrunk::F16);
            let halves = |b: Buf| program.storage[b.0] == Storage::F16;
            let (mut residuals, mut biases) = (0, 0);
            for op in &program.ops {
                match *op {
                    Op::Conv(c) if c.accumulate => {
                        assert!(halves(c.dst));
                        residuals += 1;
                    }
                    Op::AddSpatialBias(a) => {
                        assert!(halves(a.dst) && !halves(a.src));
                        biases += 1;
                    }
                    Op::Pool(p) => assert!(!halves(p.src) && !halves(p.dst)),
                    Op::MatMul(m) => assert!(!halves(m.src) && !halves(m.dst)),
                    _ => {}
                }
            }
            assert!(residuals >= 4 && biases >= 1, "{residuals} {biases}");
            assert!(program.heads.buffers().iter().all(|&b| !halves(b)));
        }
    }

    #[test]
    fn the_crossing_buffers_pack_into_one_block_each_way() {
        let desc = ModelDesc::parse(crate::nn::EMBEDDED_MODEL).unwrap();
        let program = Program::compile(&desc);
        let shape = Shape::of(crate::go::board::BoardSize::square(9), 3);
        let len = |b: Buf| program.buffers[b.0].len(shape);
        let mut packed = Vec::new();
        let ends = program.pack(len, &mut packed);
        // Two inputs up, five heads down, each at a 256-byte boundary
        // after the one before, none overlapping.
        assert_eq!(packed.iter().filter(|p| p.1 == Crossing::Up).count(), 2);
        assert_eq!(packed.iter().filter(|p| p.1 == Crossing::Down).count(), 5);
        for way in [Crossing::Up, Crossing::Down] {
            let mut end = 0;
            for &(b, _, at) in packed.iter().filter(|p| p.1 == way) {
                assert!(at % 64 == 0 && at >= end);
                end = at + len(b);
            }
            assert!(end <= ends[way as usize]);
        }
        // The inputs handed out are the block's places, cut to the shape.
        let mut block = vec![0.0; ends[0]];
        let inputs = program.inputs(&mut block, &packed, shape);
        // The spatial inputs a mask a point.
        let SpatialInputs::Masks(masks) = &inputs.spatial else {
            panic!("a device takes the planes as masks")
        };
        assert_eq!(masks.len(), shape.rows());
        assert_eq!(masks.len(), len(program.spatial_input));
        assert_eq!(inputs.global.len(), len(program.global_input));
        inputs.global.fill(1.0);
        let at = packed
            .iter()
            .find(|p| p.0 == program.global_input)
            .unwrap()
            .2;
        assert!(
            block[at..at + len(program.global_input)]
                .iter()
                .all(|&v| v == 1.0)
        );
        assert_eq!(
            block.iter().filter(|&&v| v == 1.0).count(),
            len(program.global_input)
        );
    }
}
