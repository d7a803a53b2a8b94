//! The layers of KataGo's transformer nets, over the same point-by-point
//! activations as the convolutions (`[board][point][channel]`): the
//! RMSNorms (the trunk tip's, with a scale, a bias and an activation, over
//! each point or over the whole board; the transformer blocks' own, a scale
//! only, over each point), dense layers applied at every point, the
//! attention block (grouped heads, rotary position embedding learned or
//! fixed) and the SwiGLU feed-forward block, as KataGo 1.17.2's
//! `eigenbackend.cpp` computes them. The board is evaluated at its own size,
//! so no point is masked.
//!
//! Every buffer is the caller's ([`Scratch`], grown by [`Scratch::fit`]):
//! nothing here allocates while evaluating.

use super::elementwise::{RotatedHeads, activate_row, rotate_pairs, softmax_weights};
use super::gemm::{Packed, RowStrides, Store, gemm_stored, gemm_strided};
use crate::nn::backend::Shape;
use crate::nn::model::{
    Activation, AttentionDesc, FeedForwardDesc, MatMulDesc, RmsNormDesc, Rope, TransformerNormDesc,
};

/// A dense layer applied at every point: `out[p] = in[p] · W`.
pub struct Dense {
    pub in_channels: usize,
    pub out_channels: usize,
    weights: Packed,
}

impl Dense {
    pub fn new(desc: &MatMulDesc) -> Dense {
        Dense {
            in_channels: desc.in_channels,
            out_channels: desc.out_channels,
            weights: Packed::new(desc.in_channels, desc.out_channels, &desc.weights),
        }
    }

    pub fn macs(&self, rows: usize) -> f64 {
        (self.in_channels * self.out_channels * rows) as f64
    }

    /// `input · W` over `rows` rows, stored by `store` (`Store::Add` adds
    /// it to `output`).
    fn apply(&self, rows: usize, input: &[f32], output: &mut [f32], store: Store) {
        let strides = RowStrides {
            a: self.in_channels,
            c: store.columns(self.out_channels),
        };
        gemm_stored(rows, input, &self.weights, output, strides, store);
    }
}

/// The trunk tip's RMSNorm: `act(x / rms · gamma + beta)`, the root mean
/// square taken over each point's channels, or (`spatial`) over every
/// channel of every point of a board.
pub struct RmsNorm {
    gamma: Vec<f32>,
    beta: Vec<f32>,
    epsilon: f32,
    spatial: bool,
    act: Activation,
}

impl RmsNorm {
    pub fn new(desc: &RmsNormDesc, act: Activation) -> RmsNorm {
        RmsNorm {
            gamma: desc.gamma.clone(),
            beta: desc.beta.clone(),
            epsilon: desc.epsilon,
            spatial: desc.spatial,
            act,
        }
    }

    pub fn apply(&self, shape: Shape, input: &[f32], output: &mut [f32]) {
        let c = self.gamma.len();
        let points = shape.points();
        for b in 0..shape.batch {
            let range = b * points * c..(b + 1) * points * c;
            let (src, dst) = (&input[range.clone()], &mut output[range]);
            let board_scale = self.spatial.then(|| {
                let sum: f32 = src.iter().map(|v| v * v).sum();
                1.0 / (sum / (points * c) as f32 + self.epsilon).sqrt()
            });
            for (s, d) in src.chunks_exact(c).zip(dst.chunks_exact_mut(c)) {
                let scale = board_scale.unwrap_or_else(|| point_scale(s, self.epsilon));
                for (((d, &x), &g), &bias) in d.iter_mut().zip(s).zip(&self.gamma).zip(&self.beta) {
                    *d = x * scale * g + bias;
                }
                activate_row(self.act, d);
            }
        }
    }
}

/// `1 / √(mean(x²) + ε)` over one point's channels, the squares summed in
/// eight running sums (which the compiler keeps in vector registers).
fn point_scale(x: &[f32], epsilon: f32) -> f32 {
    let mut sums = [0.0f32; 8];
    let chunks = x.chunks_exact(8);
    let rest: f32 = chunks.remainder().iter().map(|v| v * v).sum();
    for chunk in chunks {
        for (sum, v) in sums.iter_mut().zip(chunk) {
            *sum += v * v;
        }
    }
    let sum = sums.iter().sum::<f32>() + rest;
    1.0 / (sum / x.len() as f32 + epsilon).sqrt()
}

/// A transformer block's RMSNorm, `x / rms(x) · weight` at each point,
/// folded into the product it feeds: `(x / rms(x) · weight) · W = (x ·
/// (weight ⊙ W)) / rms(x)`, the weight in that product's rows
/// ([`Norm::fold`]), each point's `1 / rms(x)` applied to its sums as they
/// are stored ([`Store::ScaleRows`]).
struct Norm {
    weight: Vec<f32>,
    epsilon: f32,
}

impl Norm {
    fn new(desc: &TransformerNormDesc) -> Norm {
        Norm {
            weight: desc.weight.clone(),
            epsilon: desc.epsilon,
        }
    }

    /// `layer` with its input's channel i scaled by the norm's weight i.
    fn fold(&self, layer: &MatMulDesc) -> MatMulDesc {
        let n = layer.out_channels;
        let mut folded = layer.clone();
        for (row, &w) in folded.weights.chunks_exact_mut(n).zip(&self.weight) {
            row.iter_mut().for_each(|x| *x *= w);
        }
        folded
    }

    /// Each of `rows` points' `1 / rms(x)` into `scales`.
    fn scales(&self, rows: usize, input: &[f32], scales: &mut [f32]) {
        let c = self.weight.len();
        for (x, scale) in input[..rows * c].chunks_exact(c).zip(scales) {
            *scale = point_scale(x, self.epsilon);
        }
    }
}

/// The buffers of the transformer blocks, shared by all of them.
#[derive(Default)]
pub struct Scratch {
    /// Each point's `1 / rms` of the block's norm.
    scales: Vec<f32>,
    /// A point's queries, keys and values side by side.
    qkv: Vec<f32>,
    heads_out: Vec<f32>,
    scores: Vec<f32>,
    /// The feed-forward block's gated units.
    gated: Vec<f32>,
    /// Each attention block's rotation tables for the board it last
    /// evaluated.
    rope: Vec<RopeTables>,
    /// One key-and-value head's keys (transposed) and values, packed.
    keys: Packed,
    values: Packed,
}

/// What a block needs of [`Scratch`] for one shape, in floats.
#[derive(Clone, Copy, Default)]
pub struct Needs {
    scales: usize,
    qkv: usize,
    heads_out: usize,
    scores: usize,
    hidden: usize,
}

impl Needs {
    pub fn max(self, o: Needs) -> Needs {
        Needs {
            scales: self.scales.max(o.scales),
            qkv: self.qkv.max(o.qkv),
            heads_out: self.heads_out.max(o.heads_out),
            scores: self.scores.max(o.scores),
            hidden: self.hidden.max(o.hidden),
        }
    }
}

impl Scratch {
    /// Grows the buffers to `needs`; only a larger need allocates.
    pub fn fit(&mut self, needs: Needs) {
        let grow = |v: &mut Vec<f32>, n: usize| {
            if v.len() < n {
                v.resize(n, 0.0);
            }
        };
        grow(&mut self.scales, needs.scales);
        grow(&mut self.qkv, needs.qkv);
        grow(&mut self.heads_out, needs.heads_out);
        grow(&mut self.scores, needs.scores);
        grow(&mut self.gated, needs.hidden);
    }
}

/// An attention block's rotation tables for one board's width and points
/// (`Attention::rope_tables`), made once and kept.
#[derive(Default)]
struct RopeTables {
    /// The block's [`Attention::id`].
    block: usize,
    width: usize,
    points: usize,
    cos: Vec<f32>,
    sin: Vec<f32>,
}

/// The next attention block's [`Attention::id`].
static NEXT_ATTENTION: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The query points whose scores attention keeps at once: 24 rows of a
/// 19×19 board's scores are 35 KB, about a core's first-level data cache.
const QUERY_ROWS: usize = 24;

/// The attention block: `x += out(attention(norm(x)))`.
pub struct Attention {
    heads: usize,
    kv_heads: usize,
    q_dim: usize,
    v_dim: usize,
    norm: Norm,
    /// The queries', keys' and values' projections as one.
    qkv: Dense,
    out: Dense,
    rope: Rope,
    /// This block's own number in the process, by which a [`Scratch`]
    /// finds its rotation tables.
    id: usize,
}

impl Attention {
    pub fn new(desc: &AttentionDesc) -> Attention {
        let norm = Norm::new(&desc.norm);
        Attention {
            heads: desc.heads,
            kv_heads: desc.kv_heads,
            q_dim: desc.q_dim,
            v_dim: desc.v_dim,
            qkv: Dense::new(&norm.fold(&MatMulDesc::side_by_side(&[&desc.q, &desc.k, &desc.v]))),
            norm,
            out: Dense::new(&desc.out),
            rope: desc.rope.clone(),
            id: NEXT_ATTENTION.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        }
    }

    /// The tables' rows: one per key-and-value head for learned
    /// frequencies, one for all heads for fixed ones.
    fn rope_rows(&self) -> usize {
        match self.rope {
            Rope::Learned(_) => self.kv_heads,
            _ => 1,
        }
    }

    /// Multiply-adds on a board of `points` points: the projections and
    /// each head's two products.
    pub fn macs(&self, points: usize) -> f64 {
        [&self.qkv, &self.out]
            .iter()
            .map(|d| d.macs(points))
            .sum::<f64>()
            + (self.heads * points * points * (self.q_dim + self.v_dim)) as f64
    }

    pub fn needs(&self, shape: Shape) -> Needs {
        let rows = shape.rows();
        let points = shape.points();
        Needs {
            scales: rows,
            qkv: rows * self.qkv.out_channels,
            heads_out: rows * self.heads * self.v_dim,
            scores: QUERY_ROWS.min(points) * points,
            hidden: 0,
        }
    }

    /// This block's rotation tables for `shape`'s board among `kept`: made
    /// (and kept) where the block has none for a board of that width and
    /// points, else those made before.
    fn tables_in<'a>(&self, kept: &'a mut Vec<RopeTables>, shape: Shape) -> &'a RopeTables {
        let at = match kept.iter().position(|t| t.block == self.id) {
            Some(at) => at,
            None => {
                kept.push(RopeTables {
                    block: self.id,
                    ..RopeTables::default()
                });
                kept.len() - 1
            }
        };
        let t = &mut kept[at];
        if (t.width, t.points) != (shape.width, shape.points()) {
            let len = self.rope_rows() * self.q_dim * shape.points();
            t.cos.resize(len, 0.0);
            t.sin.resize(len, 0.0);
            self.rope_tables(shape, &mut t.cos, &mut t.sin);
            (t.width, t.points) = (shape.width, shape.points());
        }
        &kept[at]
    }

    /// The cosines and sines of the rotation of each pair at each point,
    /// `[table row][point][channel]` (a point's pairs side by side), the values of
    /// KataGo's `computeRopeCosSin`, each given for both channels of its
    /// pair, the sine negated for the first: channel `j` of a rotated pair
    /// is `x[j] · cos[j] + x[j ^ 1] · sin[j]`.
    fn rope_tables(&self, shape: Shape, cos: &mut [f32], sin: &mut [f32]) {
        let pairs = self.q_dim / 2;
        let (width, points) = (shape.width, shape.points());
        let mut put = |at: usize, angle: f32| {
            let (s, c) = angle.sin_cos();
            cos[2 * at..2 * at + 2].copy_from_slice(&[c, c]);
            sin[2 * at..2 * at + 2].copy_from_slice(&[-s, s]);
        };
        match &self.rope {
            Rope::None => {}
            Rope::Learned(freqs) => {
                for h in 0..self.kv_heads {
                    for p in 0..pairs {
                        let (fx, fy) = (freqs[(h * pairs + p) * 2], freqs[(h * pairs + p) * 2 + 1]);
                        for xy in 0..points {
                            let (x, y) = ((xy % width) as f32, (xy / width) as f32);
                            put((h * points + xy) * pairs + p, x * fx + y * fy);
                        }
                    }
                }
            }
            &Rope::Fixed(theta) => {
                let per_axis = pairs / 2;
                let half = (self.q_dim / 2) as f32;
                for p in 0..pairs {
                    let (index, along_rows) = if p < per_axis {
                        (p, true)
                    } else {
                        (p - per_axis, false)
                    };
                    let freq = 1.0 / theta.powf((2 * index) as f32 / half);
                    for xy in 0..points {
                        let coordinate = if along_rows { xy / width } else { xy % width };
                        put(xy * pairs + p, coordinate as f32 * freq);
                    }
                }
            }
        }
    }

    /// Rotates each head's pairs of channels `(2p, 2p + 1)` at each point:
    /// `heads` heads from `column` of the rows of `qkv` ([`rotate_pairs`]),
    /// the heads that share a table over a board's points at a time.
    fn rotate(
        &self,
        qkv: &mut [f32],
        column: usize,
        heads: usize,
        shape: Shape,
        tables: (&[f32], &[f32]),
    ) {
        let (cos, sin) = tables;
        let width = 2 * (self.q_dim / 2);
        let points = shape.points();
        let stride = self.qkv.out_channels;
        for b in 0..shape.batch {
            let board = &mut qkv[b * points * stride..(b + 1) * points * stride];
            // Learned tables are a key head's, shared by its query heads;
            // the others are one for all.
            let tables = match self.rope {
                Rope::Learned(_) => self.kv_heads,
                _ => 1,
            };
            let sharing = heads / tables;
            for table in 0..tables {
                let at = table * points * width..(table + 1) * points * width;
                let first = &mut board[column + table * sharing * self.q_dim..];
                let rotated = RotatedHeads {
                    width,
                    count: sharing,
                    pitch: self.q_dim,
                };
                rotate_pairs(first, stride, points, rotated, &cos[at.clone()], &sin[at]);
            }
        }
    }

    /// `trunk += block(trunk)`.
    pub fn apply(&self, shape: Shape, trunk: &mut [f32], s: &mut Scratch) {
        let rows = shape.rows();
        let points = shape.points();
        // A row of qkv: the queries, then the keys, then the values.
        let (qw, kw) = (self.heads * self.q_dim, self.kv_heads * self.q_dim);
        let stride = self.qkv.out_channels;
        let ow = self.heads * self.v_dim;
        self.norm.scales(rows, trunk, &mut s.scales);
        let store = Store::ScaleRows(&s.scales);
        self.qkv.apply(rows, trunk, &mut s.qkv, store);
        if !matches!(self.rope, Rope::None) {
            let t = self.tables_in(&mut s.rope, shape);
            let tables = (&t.cos[..], &t.sin[..]);
            self.rotate(&mut s.qkv, 0, self.heads, shape, tables);
            self.rotate(&mut s.qkv, qw, self.kv_heads, shape, tables);
        }
        let scale = 1.0 / (self.q_dim as f32).sqrt();
        let group = self.heads / self.kv_heads;
        let (qd, vd) = (self.q_dim, self.v_dim);
        let Scratch {
            qkv,
            heads_out,
            scores,
            keys,
            values,
            ..
        } = s;
        for b in 0..shape.batch {
            let base = b * points;
            let board = &qkv[base * stride..(base + points) * stride];
            for kvh in 0..self.kv_heads {
                // This head's keys as a `d × points` matrix and its values
                // as `points × d`, packed for the products.
                let (k, v) = (qw + kvh * qd, qw + kw + kvh * vd);
                keys.refill_columns(qd, points, &board[k..], stride);
                values.refill_rows(points, vd, &board[v..], stride);
                for h in kvh * group..(kvh + 1) * group {
                    // A few query points at a time, so that their scores
                    // stay in the core's first cache between the two
                    // products: scores = Q·Kᵀ / √d, a softmax's weights
                    // over each row, out = weights · V divided by the
                    // weights' sum.
                    for first in (0..points).step_by(QUERY_ROWS) {
                        let rows = QUERY_ROWS.min(points - first);
                        let scores = &mut scores[..rows * points];
                        let queries = &board[first * stride + h * qd..];
                        let strides = RowStrides {
                            a: stride,
                            c: points,
                        };
                        gemm_strided(rows, queries, keys, scores, strides, false);
                        let mut sums = [0.0; QUERY_ROWS];
                        for (row, sum) in scores.chunks_exact_mut(points).zip(&mut sums) {
                            *sum = softmax_weights(row, scale);
                        }
                        let out = &mut heads_out[(base + first) * ow + h * vd..];
                        let strides = RowStrides { a: points, c: ow };
                        gemm_strided(rows, scores, values, out, strides, false);
                        for (row, sum) in out.chunks_mut(ow).zip(&sums[..rows]) {
                            let inverse = 1.0 / sum;
                            for x in &mut row[..vd] {
                                *x *= inverse;
                            }
                        }
                    }
                }
            }
        }
        // The output projection, added to the trunk.
        self.out.apply(rows, &s.heads_out, trunk, Store::Add);
    }
}

/// The SwiGLU feed-forward block:
/// `x += linear2(silu(linear1(n)) ⊙ gate(n))`, `n = norm(x)`.
pub struct FeedForward {
    norm: Norm,
    /// linear1 and gate as one ([`Packed::gated`]), the norm's weight
    /// folded in: its products stored as the gated units.
    linear1_gate: Dense,
    linear2: Dense,
}

impl FeedForward {
    pub fn new(desc: &FeedForwardDesc) -> FeedForward {
        let norm = Norm::new(&desc.norm);
        let (linear1, gate) = (norm.fold(&desc.linear1), norm.fold(&desc.gate));
        let (k, f) = (linear1.in_channels, linear1.out_channels);
        let packed = Packed::gated(k, f, &linear1.weights, &gate.weights);
        FeedForward {
            norm,
            linear1_gate: Dense {
                in_channels: k,
                out_channels: packed.columns(),
                weights: packed,
            },
            linear2: Dense::new(&desc.linear2),
        }
    }

    /// Multiply-adds on a board of `points` points: linear1's, the
    /// gate's and linear2's.
    pub fn macs(&self, points: usize) -> f64 {
        3.0 * self.linear2.macs(points)
    }

    pub fn needs(&self, shape: Shape) -> Needs {
        let rows = shape.rows();
        Needs {
            scales: rows,
            hidden: rows * self.linear2.in_channels,
            ..Needs::default()
        }
    }

    /// `trunk += block(trunk)`.
    pub fn apply(&self, shape: Shape, trunk: &mut [f32], s: &mut Scratch) {
        let rows = shape.rows();
        self.norm.scales(rows, trunk, &mut s.scales);
        let store = Store::SiluGate {
            outputs: self.linear2.in_channels,
            scales: &s.scales,
        };
        self.linear1_gate.apply(rows, trunk, &mut s.gated, store);
        self.linear2.apply(rows, &s.gated, trunk, Store::Add);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::model::AttentionDesc;

    #[test]
    fn a_dense_layer_is_a_product_at_every_point() {
        let (rows, k, n) = (7, 33, 20);
        let w: Vec<f32> = (0..k * n)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 50.0)
            .collect();
        let x: Vec<f32> = (0..rows * k)
            .map(|i| ((i * 53 % 97) as f32 - 48.0) / 40.0)
            .collect();
        let dense = Dense::new(&MatMulDesc {
            name: "w".into(),
            in_channels: k,
            out_channels: n,
            weights: w.clone(),
        });
        let mut y = vec![0.0; rows * n];
        dense.apply(rows, &x, &mut y, Store::Write);
        for r in 0..rows {
            for o in 0..n {
                let want: f32 = (0..k).map(|i| x[r * k + i] * w[i * n + o]).sum();
                assert!((y[r * n + o] - want).abs() < 1e-4, "{r} {o}");
            }
        }
    }

    #[test]
    fn rotary_embedding_turns_each_pair_by_its_angle() {
        // Ten channels a head: four pairs at once, then one alone. Four
        // query heads, two to each key head, whose learned tables they share.
        let (heads, kv_heads, q_dim, width) = (4, 2, 10, 3);
        let layer = |n: usize| MatMulDesc {
            name: "w".into(),
            in_channels: 4,
            out_channels: n,
            weights: vec![0.0; 4 * n],
        };
        let pairs = q_dim / 2;
        let freqs: Vec<f32> = (0..kv_heads * pairs * 2)
            .map(|i| 0.1 + i as f32 * 0.07)
            .collect();
        let att = Attention::new(&AttentionDesc {
            name: "a".into(),
            heads,
            kv_heads,
            q_dim,
            v_dim: 4,
            norm: TransformerNormDesc {
                name: "n".into(),
                epsilon: 1e-6,
                weight: vec![1.0; 4],
            },
            q: layer(heads * q_dim),
            k: layer(kv_heads * q_dim),
            v: layer(kv_heads * 4),
            out: MatMulDesc {
                name: "o".into(),
                in_channels: heads * 4,
                out_channels: 4,
                weights: vec![0.0; heads * 16],
            },
            rope: Rope::Learned(freqs.clone()),
        });
        let shape = Shape {
            batch: 1,
            width,
            height: 2,
        };
        let points = shape.points();
        let stride = att.qkv.out_channels;
        let before: Vec<f32> = (0..points * stride)
            .map(|i| (i % 13) as f32 - 6.0)
            .collect();
        let mut kept = Vec::new();
        let t = att.tables_in(&mut kept, shape);
        // The heads `column..` of `count`, each `sharing` to a table.
        let check = |qkv: &[f32], column: usize, count: usize, sharing: usize| {
            for xy in 0..points {
                let (x, y) = ((xy % width) as f32, (xy / width) as f32);
                for h in 0..count {
                    for p in 0..pairs {
                        let at = xy * stride + column + h * q_dim + 2 * p;
                        let f = ((h / sharing) * pairs + p) * 2;
                        let angle = x * freqs[f] + y * freqs[f + 1];
                        let (s, c) = angle.sin_cos();
                        let (x0, x1) = (before[at], before[at + 1]);
                        assert_eq!(qkv[at], x0 * c - x1 * s, "{xy} {h} {p}");
                        assert_eq!(qkv[at + 1], x0 * s + x1 * c, "{xy} {h} {p}");
                    }
                }
                // The channels beyond those heads are left as they were.
                let rest = xy * stride + column + count * q_dim..(xy + 1) * stride;
                assert_eq!(qkv[rest.clone()], before[rest]);
            }
        };
        let tables = (&t.cos[..], &t.sin[..]);
        for kernel in crate::nn::cpu::gemm::Kernel::available() {
            let mut qkv = before.clone();
            kernel.run_with(|| att.rotate(&mut qkv, 0, heads, shape, tables));
            check(&qkv, 0, heads, heads / kv_heads);
            let (keys, mut qkv) = (heads * q_dim, before.clone());
            kernel.run_with(|| att.rotate(&mut qkv, keys, kv_heads, shape, tables));
            check(&qkv, keys, kv_heads, 1);
        }
    }
}
