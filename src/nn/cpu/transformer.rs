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

use super::gemm::{Packed, gemm};
use super::layers::activate;
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

    /// `output = input · W` over `rows` rows.
    pub fn apply(&self, rows: usize, input: &[f32], output: &mut [f32]) {
        gemm(rows, input, &self.weights, output, false);
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
                    *d = activate(self.act, x * scale * g + bias);
                }
            }
        }
    }
}

/// `1 / √(mean(x²) + ε)` over one point's channels.
fn point_scale(x: &[f32], epsilon: f32) -> f32 {
    let sum: f32 = x.iter().map(|v| v * v).sum();
    1.0 / (sum / x.len() as f32 + epsilon).sqrt()
}

/// A transformer block's RMSNorm: `x / rms · weight` at each point.
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

    fn apply(&self, rows: usize, input: &[f32], output: &mut [f32]) {
        let c = self.weight.len();
        for (s, d) in input[..rows * c]
            .chunks_exact(c)
            .zip(output.chunks_exact_mut(c))
        {
            let scale = point_scale(s, self.epsilon);
            for ((d, &x), &w) in d.iter_mut().zip(s).zip(&self.weight) {
                *d = x * scale * w;
            }
        }
    }
}

/// The buffers of the transformer blocks, shared by all of them.
#[derive(Default)]
pub struct Scratch {
    norm: Vec<f32>,
    /// A point's queries, keys and values side by side.
    qkv: Vec<f32>,
    heads_out: Vec<f32>,
    scores: Vec<f32>,
    /// A point's hidden and gate values side by side, and the gated unit's.
    hidden_gate: Vec<f32>,
    gated: Vec<f32>,
    cos: Vec<f32>,
    sin: Vec<f32>,
    /// One head's queries and outputs, gathered contiguous.
    head_q: Vec<f32>,
    head_out: Vec<f32>,
    /// One key-and-value head's keys (transposed) and values, packed.
    keys: Packed,
    values: Packed,
}

/// What a block needs of [`Scratch`] for one shape, in floats.
#[derive(Clone, Copy, Default)]
pub struct Needs {
    norm: usize,
    qkv: usize,
    heads_out: usize,
    scores: usize,
    hidden: usize,
    rope: usize,
    head: usize,
}

impl Needs {
    pub fn max(self, o: Needs) -> Needs {
        Needs {
            norm: self.norm.max(o.norm),
            qkv: self.qkv.max(o.qkv),
            heads_out: self.heads_out.max(o.heads_out),
            scores: self.scores.max(o.scores),
            hidden: self.hidden.max(o.hidden),
            rope: self.rope.max(o.rope),
            head: self.head.max(o.head),
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
        grow(&mut self.norm, needs.norm);
        grow(&mut self.qkv, needs.qkv);
        grow(&mut self.heads_out, needs.heads_out);
        grow(&mut self.scores, needs.scores);
        grow(&mut self.hidden_gate, 2 * needs.hidden);
        grow(&mut self.gated, needs.hidden);
        grow(&mut self.cos, needs.rope);
        grow(&mut self.sin, needs.rope);
        grow(&mut self.head_q, needs.head);
        grow(&mut self.head_out, needs.head);
    }
}

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
}

impl Attention {
    pub fn new(desc: &AttentionDesc) -> Attention {
        Attention {
            heads: desc.heads,
            kv_heads: desc.kv_heads,
            q_dim: desc.q_dim,
            v_dim: desc.v_dim,
            norm: Norm::new(&desc.norm),
            qkv: Dense::new(&MatMulDesc::side_by_side(&[&desc.q, &desc.k, &desc.v])),
            out: Dense::new(&desc.out),
            rope: desc.rope.clone(),
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
            norm: rows * self.qkv.in_channels,
            qkv: rows * self.qkv.out_channels,
            heads_out: rows * self.heads * self.v_dim,
            scores: QUERY_ROWS.min(points) * points,
            hidden: 0,
            rope: self.rope_rows() * (self.q_dim / 2) * points,
            head: points * self.q_dim.max(self.v_dim),
        }
    }

    /// The cosines and sines of the rotation of each pair at each point,
    /// `[table row][pair][point]`, as KataGo's `computeRopeCosSin`.
    fn rope_tables(&self, shape: Shape, cos: &mut [f32], sin: &mut [f32]) {
        let pairs = self.q_dim / 2;
        let (width, points) = (shape.width, shape.points());
        let mut put = |at: usize, angle: f32| {
            cos[at] = angle.cos();
            sin[at] = angle.sin();
        };
        match &self.rope {
            Rope::None => {}
            Rope::Learned(freqs) => {
                for h in 0..self.kv_heads {
                    for p in 0..pairs {
                        let (fx, fy) = (freqs[(h * pairs + p) * 2], freqs[(h * pairs + p) * 2 + 1]);
                        for xy in 0..points {
                            let (x, y) = ((xy % width) as f32, (xy / width) as f32);
                            put((h * pairs + p) * points + xy, x * fx + y * fy);
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
                        put(p * points + xy, coordinate as f32 * freq);
                    }
                }
            }
        }
    }

    /// Rotates each head's pairs of channels `(2p, 2p + 1)` at each point:
    /// `heads` heads from `column` of the rows of `qkv`.
    fn rotate(
        &self,
        qkv: &mut [f32],
        column: usize,
        heads: usize,
        shape: Shape,
        tables: (&[f32], &[f32]),
    ) {
        let (cos, sin) = tables;
        let pairs = self.q_dim / 2;
        let points = shape.points();
        let stride = self.qkv.out_channels;
        for (row, chunk) in qkv[..shape.rows() * stride]
            .chunks_exact_mut(stride)
            .enumerate()
        {
            let chunk = &mut chunk[column..];
            let xy = row % points;
            for h in 0..heads {
                let table = match self.rope {
                    Rope::Learned(_) => h * self.kv_heads / heads,
                    _ => 0,
                };
                for p in 0..pairs {
                    let at = (table * pairs + p) * points + xy;
                    let (c, s) = (cos[at], sin[at]);
                    let i = h * self.q_dim + 2 * p;
                    let (x0, x1) = (chunk[i], chunk[i + 1]);
                    chunk[i] = x0 * c - x1 * s;
                    chunk[i + 1] = x0 * s + x1 * c;
                }
            }
        }
    }

    /// `trunk += block(trunk)`.
    pub fn apply(&self, shape: Shape, trunk: &mut [f32], s: &mut Scratch) {
        let rows = shape.rows();
        let points = shape.points();
        let c = self.qkv.in_channels;
        // A row of qkv: the queries, then the keys, then the values.
        let (qw, kw) = (self.heads * self.q_dim, self.kv_heads * self.q_dim);
        let stride = self.qkv.out_channels;
        let ow = self.heads * self.v_dim;
        self.norm.apply(rows, trunk, &mut s.norm);
        self.qkv.apply(rows, &s.norm, &mut s.qkv);
        if !matches!(self.rope, Rope::None) {
            self.rope_tables(shape, &mut s.cos, &mut s.sin);
            let tables = (&s.cos[..], &s.sin[..]);
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
            head_q,
            head_out,
            keys,
            values,
            ..
        } = s;
        for b in 0..shape.batch {
            let base = b * points;
            for kvh in 0..self.kv_heads {
                // This head's keys as a `d × points` matrix and its values
                // as `points × d`, packed for the products.
                let (k, v) = (qw + kvh * qd, qw + kw + kvh * vd);
                keys.refill(qd, points, |d, j| qkv[(base + j) * stride + k + d]);
                values.refill(points, vd, |j, e| qkv[(base + j) * stride + v + e]);
                for h in kvh * group..(kvh + 1) * group {
                    for i in 0..points {
                        let from = (base + i) * stride + h * qd;
                        head_q[i * qd..(i + 1) * qd].copy_from_slice(&qkv[from..from + qd]);
                    }
                    // A few query points at a time, so that their scores
                    // stay in the core's first cache between the two
                    // products: scores = Q·Kᵀ / √d, a softmax over each
                    // row, out = softmax · V. Each value is the sum it is
                    // with all points at once, in the same order.
                    for first in (0..points).step_by(QUERY_ROWS) {
                        let rows = QUERY_ROWS.min(points - first);
                        let scores = &mut scores[..rows * points];
                        gemm(rows, &head_q[first * qd..], keys, scores, false);
                        for row in scores.chunks_exact_mut(points) {
                            softmax(row, scale);
                        }
                        gemm(rows, scores, values, &mut head_out[first * vd..], false);
                    }
                    for i in 0..points {
                        let to = (base + i) * ow + h * vd;
                        heads_out[to..to + vd].copy_from_slice(&head_out[i * vd..(i + 1) * vd]);
                    }
                }
            }
        }
        // The output projection, added to the trunk.
        self.out.apply(rows, &s.heads_out, &mut s.norm);
        for (t, &x) in trunk[..rows * c].iter_mut().zip(&s.norm[..rows * c]) {
            *t += x;
        }
    }
}

/// `row = softmax(row · scale)`, in place, in the kernel in force: 16
/// values at once in AVX-512, 8 in AVX2, 4 in NEON on ARM64 (the
/// exponential a polynomial of degree 6 scaled by a power of two, within
/// 2·10⁻⁷ of `exp`), one at a time in the portable kernel.
fn softmax(row: &mut [f32], scale: f32) {
    use super::gemm::Kernel;
    #[cfg(target_arch = "x86_64")]
    match Kernel::in_force() {
        // SAFETY: the kernel in force is one the processor runs.
        Kernel::Avx512 => return unsafe { softmax_avx512(row, scale) },
        Kernel::Avx2 => return unsafe { softmax_avx2(row, scale) },
        Kernel::Portable => return softmax_scalar(row, scale),
    }
    #[cfg(target_arch = "aarch64")]
    if Kernel::in_force() == Kernel::Portable {
        return softmax_scalar(row, scale);
    }
    #[cfg(target_arch = "aarch64")]
    {
        softmax_neon(row, scale);
        return;
    }
    #[allow(unreachable_code)]
    softmax_scalar(row, scale);
}

/// [`softmax`] a value at a time.
fn softmax_scalar(row: &mut [f32], scale: f32) {
    let max = row.iter().fold(f32::NEG_INFINITY, |m, &x| m.max(x * scale));
    let mut sum = 0.0;
    for r in row.iter_mut() {
        *r = (*r * scale - max).exp();
        sum += *r;
    }
    let inv = 1.0 / sum;
    for r in row.iter_mut() {
        *r *= inv;
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn softmax_avx512(row: &mut [f32], scale: f32) {
    use std::arch::x86_64::*;
    let n = row.len();
    let p = row.as_mut_ptr();
    // The lanes of the chunk at `i`: all 16, or those left at the end.
    let mask = |i: usize| -> __mmask16 {
        let left = n - i;
        if left >= 16 {
            0xffff
        } else {
            (1u32 << left) as u16 - 1
        }
    };
    let s = _mm512_set1_ps(scale);
    let mut max = _mm512_set1_ps(f32::NEG_INFINITY);
    let mut i = 0;
    // SAFETY (each block): every load and store is masked to the row.
    while i < n {
        let m = mask(i);
        let x = unsafe { _mm512_mask_loadu_ps(max, m, p.add(i)) };
        max = _mm512_mask_max_ps(max, m, max, _mm512_mul_ps(x, s));
        i += 16;
    }
    let top = _mm512_set1_ps(_mm512_reduce_max_ps(max));
    let mut sum = _mm512_setzero_ps();
    i = 0;
    while i < n {
        let m = mask(i);
        let x = unsafe { _mm512_maskz_loadu_ps(m, p.add(i)) };
        let e = unsafe { exp_avx512(_mm512_fmsub_ps(x, s, top)) };
        sum = _mm512_mask_add_ps(sum, m, sum, e);
        unsafe { _mm512_mask_storeu_ps(p.add(i), m, e) };
        i += 16;
    }
    let inv = _mm512_set1_ps(1.0 / _mm512_reduce_add_ps(sum));
    i = 0;
    while i < n {
        let m = mask(i);
        unsafe {
            let e = _mm512_maskz_loadu_ps(m, p.add(i));
            _mm512_mask_storeu_ps(p.add(i), m, _mm512_mul_ps(e, inv));
        }
        i += 16;
    }
}

/// [`softmax`] in AVX2: eight values at once, the row's last few one at a
/// time with the same polynomial.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn softmax_avx2(row: &mut [f32], scale: f32) {
    use std::arch::x86_64::*;
    let max = row.iter().fold(f32::NEG_INFINITY, |m, &x| m.max(x * scale));
    let (chunks, rest) = row.as_chunks_mut::<8>();
    let (s, top) = (_mm256_set1_ps(scale), _mm256_set1_ps(max));
    let mut total = _mm256_setzero_ps();
    for chunk in chunks.iter_mut() {
        // SAFETY: the loads and stores are of eight-value arrays.
        unsafe {
            let x = _mm256_loadu_ps(chunk.as_ptr());
            let e = exp_avx2(_mm256_fmsub_ps(x, s, top));
            total = _mm256_add_ps(total, e);
            _mm256_storeu_ps(chunk.as_mut_ptr(), e);
        }
    }
    let mut lanes = [0.0f32; 8];
    // SAFETY: an eight-value array.
    unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), total) };
    let mut sum: f32 = lanes.iter().sum();
    for r in rest.iter_mut() {
        let e = unsafe { exp_avx2(_mm256_set1_ps(*r * scale - max)) };
        *r = _mm256_cvtss_f32(e);
        sum += *r;
    }
    let inv = 1.0 / sum;
    for r in row.iter_mut() {
        *r *= inv;
    }
}

/// `exp` of 8 values at or below 0 (softmax's), as [`exp_avx512`], the
/// power of two made in the exponent's bits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn exp_avx2(x: std::arch::x86_64::__m256) -> std::arch::x86_64::__m256 {
    use std::arch::x86_64::*;
    let x = _mm256_max_ps(x, _mm256_set1_ps(-87.0));
    let n = _mm256_round_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(_mm256_mul_ps(
        x,
        _mm256_set1_ps(std::f32::consts::LOG2_E),
    ));
    let r = _mm256_fnmadd_ps(n, _mm256_set1_ps(EXP_LN2_HIGH), x);
    let r = _mm256_fnmadd_ps(n, _mm256_set1_ps(EXP_LN2_LOW), r);
    let mut y = _mm256_set1_ps(EXP_POLYNOMIAL[0]);
    for c in &EXP_POLYNOMIAL[1..] {
        y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(*c));
    }
    let y = _mm256_fmadd_ps(
        y,
        _mm256_mul_ps(r, r),
        _mm256_add_ps(r, _mm256_set1_ps(1.0)),
    );
    let power = _mm256_castsi256_ps(_mm256_slli_epi32::<23>(_mm256_add_epi32(
        _mm256_cvtps_epi32(n),
        _mm256_set1_epi32(127),
    )));
    _mm256_mul_ps(y, power)
}

/// ln 2 in two parts, for `r = x − n · ln 2` exact to single precision.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
const EXP_LN2_HIGH: f32 = 0.693_359_4;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
const EXP_LN2_LOW: f32 = -2.121_944_4e-4;
/// Cephes' polynomial of `expf` on `r`, highest power first: `exp(r) ≈
/// 1 + r + r² · p(r)`.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
const EXP_POLYNOMIAL: [f32; 6] = [
    1.987_569_2e-4,
    1.398_199_9e-3,
    8.333_452e-3,
    4.166_579_6e-2,
    1.666_666_5e-1,
    0.5,
];

/// `exp` of 16 values at or below 0 (softmax's): `2^n · p(r)`, `n` the
/// nearest integer to `x / ln 2`, `r = x − n · ln 2` in two parts, `p`
/// Cephes' polynomial of `expf`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn exp_avx512(x: std::arch::x86_64::__m512) -> std::arch::x86_64::__m512 {
    use std::arch::x86_64::*;
    let x = _mm512_max_ps(x, _mm512_set1_ps(-87.0));
    let n = _mm512_roundscale_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(
        _mm512_mul_ps(x, _mm512_set1_ps(std::f32::consts::LOG2_E)),
    );
    let r = _mm512_fnmadd_ps(n, _mm512_set1_ps(EXP_LN2_HIGH), x);
    let r = _mm512_fnmadd_ps(n, _mm512_set1_ps(EXP_LN2_LOW), r);
    let mut y = _mm512_set1_ps(EXP_POLYNOMIAL[0]);
    for c in &EXP_POLYNOMIAL[1..] {
        y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(*c));
    }
    let y = _mm512_fmadd_ps(
        y,
        _mm512_mul_ps(r, r),
        _mm512_add_ps(r, _mm512_set1_ps(1.0)),
    );
    _mm512_scalef_ps(y, n)
}

/// [`softmax`] in NEON: four values at once, the row's last few one at a
/// time with the same polynomial.
#[cfg(target_arch = "aarch64")]
fn softmax_neon(row: &mut [f32], scale: f32) {
    use std::arch::aarch64::*;
    let max = row.iter().fold(f32::NEG_INFINITY, |m, &x| m.max(x * scale));
    let (chunks, rest) = row.as_chunks_mut::<4>();
    let mut sum = 0.0;
    // SAFETY (each block): NEON is part of every ARM64 processor; the
    // loads and stores are of four-value arrays.
    unsafe {
        let (s, top) = (vdupq_n_f32(scale), vdupq_n_f32(max));
        let mut total = vdupq_n_f32(0.0);
        for chunk in chunks.iter_mut() {
            let x = vld1q_f32(chunk.as_ptr());
            let e = exp_neon(vsubq_f32(vmulq_f32(x, s), top));
            total = vaddq_f32(total, e);
            vst1q_f32(chunk.as_mut_ptr(), e);
        }
        sum += vaddvq_f32(total);
        for r in rest.iter_mut() {
            let e = vgetq_lane_f32::<0>(exp_neon(vdupq_n_f32(*r * scale - max)));
            *r = e;
            sum += e;
        }
    }
    let inv = 1.0 / sum;
    for r in row.iter_mut() {
        *r *= inv;
    }
}

/// `exp` of 4 values at or below 0 (softmax's), as [`exp_avx512`]: `2^n ·
/// p(r)`, the power of two made in the exponent's bits.
#[cfg(target_arch = "aarch64")]
#[inline(always)]
unsafe fn exp_neon(x: std::arch::aarch64::float32x4_t) -> std::arch::aarch64::float32x4_t {
    use std::arch::aarch64::*;
    // SAFETY: NEON is part of every ARM64 processor.
    unsafe {
        let x = vmaxq_f32(x, vdupq_n_f32(-87.0));
        let n = vrndnq_f32(vmulq_n_f32(x, std::f32::consts::LOG2_E));
        let r = vfmsq_n_f32(x, n, EXP_LN2_HIGH);
        let r = vfmsq_n_f32(r, n, EXP_LN2_LOW);
        let mut y = vdupq_n_f32(EXP_POLYNOMIAL[0]);
        for c in &EXP_POLYNOMIAL[1..] {
            y = vfmaq_f32(vdupq_n_f32(*c), y, r);
        }
        let y = vfmaq_f32(vaddq_f32(r, vdupq_n_f32(1.0)), y, vmulq_f32(r, r));
        let power = vreinterpretq_f32_s32(vshlq_n_s32::<23>(vaddq_s32(
            vcvtq_s32_f32(n),
            vdupq_n_s32(127),
        )));
        vmulq_f32(y, power)
    }
}

#[cfg(test)]
mod softmax_tests {
    use super::*;

    #[test]
    fn the_softmax_sums_to_one_and_follows_exp() {
        for n in [1, 5, 16, 17, 361] {
            let row: Vec<f32> = (0..n)
                .map(|i| ((i * 37 % 101) as f32 - 50.0) / 7.0)
                .collect();
            let max = row.iter().fold(f32::NEG_INFINITY, |m, &x| m.max(x * 0.5));
            let exact: Vec<f64> = row
                .iter()
                .map(|&x| f64::from(x * 0.5 - max).exp())
                .collect();
            let sum: f64 = exact.iter().sum();
            // Each kernel this processor runs.
            for kernel in crate::nn::cpu::gemm::Kernel::available() {
                let mut fast = row.clone();
                kernel.run_with(|| softmax(&mut fast, 0.5));
                for (f, e) in fast.iter().zip(&exact) {
                    assert!(
                        (f64::from(*f) - e / sum).abs() < 1e-6,
                        "{} {n}: {f} vs {}",
                        kernel.name(),
                        e / sum
                    );
                }
            }
        }
    }
}

/// The SwiGLU feed-forward block:
/// `x += linear2(silu(linear1(n)) ⊙ gate(n))`, `n = norm(x)`.
pub struct FeedForward {
    norm: Norm,
    /// linear1 and gate as one: a point's hidden values, then its gate
    /// values.
    linear1_gate: Dense,
    linear2: Dense,
}

impl FeedForward {
    pub fn new(desc: &FeedForwardDesc) -> FeedForward {
        FeedForward {
            norm: Norm::new(&desc.norm),
            linear1_gate: Dense::new(&MatMulDesc::side_by_side(&[&desc.linear1, &desc.gate])),
            linear2: Dense::new(&desc.linear2),
        }
    }

    pub fn macs(&self, points: usize) -> f64 {
        [&self.linear1_gate, &self.linear2]
            .iter()
            .map(|d| d.macs(points))
            .sum()
    }

    pub fn needs(&self, shape: Shape) -> Needs {
        let rows = shape.rows();
        Needs {
            norm: rows * self.linear1_gate.in_channels,
            hidden: rows * self.linear2.in_channels,
            ..Needs::default()
        }
    }

    /// `trunk += block(trunk)`.
    pub fn apply(&self, shape: Shape, trunk: &mut [f32], s: &mut Scratch) {
        let rows = shape.rows();
        let c = self.linear1_gate.in_channels;
        let f = self.linear2.in_channels;
        self.norm.apply(rows, trunk, &mut s.norm);
        self.linear1_gate.apply(rows, &s.norm, &mut s.hidden_gate);
        for (row, gated) in s.hidden_gate[..rows * 2 * f]
            .chunks_exact(2 * f)
            .zip(s.gated.chunks_exact_mut(f))
        {
            for ((o, &h), &g) in gated.iter_mut().zip(&row[..f]).zip(&row[f..]) {
                *o = activate(Activation::Silu, h) * g;
            }
        }
        self.linear2.apply(rows, &s.gated, &mut s.norm);
        for (t, &x) in trunk[..rows * c].iter_mut().zip(&s.norm[..rows * c]) {
            *t += x;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        dense.apply(rows, &x, &mut y);
        for r in 0..rows {
            for o in 0..n {
                let want: f32 = (0..k).map(|i| x[r * k + i] * w[i * n + o]).sum();
                assert!((y[r * n + o] - want).abs() < 1e-4, "{r} {o}");
            }
        }
    }
}
