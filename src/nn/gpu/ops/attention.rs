//! Attention: rotary position embedding (`Rope`: each head's pairs of
//! channels turned by the point's angle, learned or fixed) and attention
//! at every point of each board (`Attention`: `softmax(q · kᵀ / √dim) · v`
//! over the board's points, grouped key and value heads), its queries,
//! keys and values side by side in one buffer (one product makes them). On a device
//! (`--attention`), each head's two products as strided-batched products
//! (on the tensor cores where the products are f16) with a warp-per-row
//! softmax between, a chunk of boards' scores at a time; or one kernel, a
//! block a query point, head and board keeping the board's scores in
//! shared memory.

cfg_device! {
    use super::launch;
}
use super::{Angles, Buf};
cfg_device! {
    use crate::nn::gpu::kernels::FUSED_DIM;
}
cfg_device! {
    use super::GpuAttention;
}
cfg_device! {
    use super::{BLOCK, DeviceStep, threads};
    use crate::nn::gpu::device::{F32s, Factors, Gemm, Launch, Queue};
    use crate::nn::gpu::kernels::FUSED_WARPS;
}

cfg_device! {
    /// Threads a block of the attention kernel (a power of two, at most 256).
    const ATTENTION_THREADS: u32 = 128;

    /// Query points a block of the fused kernel, 16 a warp.
    const FUSED_POINTS: usize = FUSED_WARPS as usize * 16;

    /// The launcher of an attention kernel that does it all
    /// (`launch::attention`, `launch::attention_fused`).
    type OneKernel = fn(
        Launch, F32s, F32s, F32s, i32, F32s, i32, i32, i32, i32, i32, &mut dyn Queue,
    ) -> Result<(), String>;
}

/// Rotates each head's pairs of channels `(2p, 2p + 1)` of `values` (the
/// `heads · dim` values from `column` of rows `stride` values apart) by
/// the angle of the point, as [`Angles`] says.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Rope {
    pub(crate) values: Buf,
    pub(crate) column: usize,
    pub(crate) stride: usize,
    pub(crate) heads: usize,
    pub(crate) dim: usize,
    pub(crate) angles: Angles,
}

/// For each query head `h` (key and value head `h / (heads / kv_heads)`),
/// `out = softmax(q · kᵀ / √dim) · v` over the board's points: `qkv`'s
/// rows are a point's `heads · dim` queries, `kv_heads · dim` keys and
/// `kv_heads · v_dim` values side by side, `out`'s its `heads · v_dim`
/// values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Attention {
    pub(crate) qkv: Buf,
    pub(crate) out: Buf,
    pub(crate) heads: usize,
    pub(crate) kv_heads: usize,
    pub(crate) dim: usize,
    pub(crate) v_dim: usize,
}

cfg_device! {
    impl Attention {
        /// Whether the fused kernel takes its heads, or why not.
        pub(crate) fn fits_fused(&self) -> Result<(), String> {
            match self.dim.max(self.v_dim) <= FUSED_DIM {
                true => Ok(()),
                false => Err(format!(
                    "fused attention takes heads of at most {FUSED_DIM} channels; this net's have \
                     {} (queries and keys) and {} (values)",
                    self.dim, self.v_dim
                )),
            }
        }
    }
}

impl Attention {
    /// A row of `qkv`: the queries', keys' and values' widths together.
    pub(crate) fn stride(&self) -> usize {
        self.heads * self.dim + self.kv_heads * (self.dim + self.v_dim)
    }

    /// Where a row's keys and values start.
    pub(crate) fn k_column(&self) -> usize {
        self.heads * self.dim
    }

    #[cfg(any(test, feature = "cuda"))]
    pub(crate) fn v_column(&self) -> usize {
        self.k_column() + self.kv_heads * self.dim
    }
}

cfg_device! {
    impl Rope {
        pub(crate) fn on_device(&self, s: &mut DeviceStep) -> Result<(), String> {
            let (freqs, tables, theta) = match self.angles {
                Angles::Learned { freqs, tables } => (s.weights(freqs), tables as i32, 0.0),
                Angles::Fixed { theta } => (F32s::NULL, 0, theta),
            };
            let n = s.shape.rows() * self.heads * (self.dim / 2);
            launch::rope(
                threads(n),
                s.buf(self.values)?.offset(self.column),
                self.stride as i32,
                s.rows(),
                s.points(),
                s.shape.width as i32,
                self.heads as i32,
                self.dim as i32,
                freqs,
                tables,
                theta,
                s.queue,
            )
        }
    }
}

cfg_device! {
    impl Attention {
        pub(crate) fn on_device(&self, s: &mut DeviceStep) -> Result<(), String> {
            match s.attention {
                GpuAttention::Batched => self.batched(s),
                GpuAttention::Simt => self.simt(s),
                GpuAttention::Fused => self.fused(s),
            }
        }

        /// One kernel on the tensor cores: a block [`FUSED_POINTS`] query
        /// points of a head and board.
        fn fused(&self, s: &mut DeviceStep) -> Result<(), String> {
            let blocks = Launch {
                grid: (
                    s.shape.points().div_ceil(FUSED_POINTS) as u32,
                    self.heads as u32,
                    s.shape.batch as u32,
                ),
                block: (FUSED_POINTS as u32 / 16 * 32, 1, 1),
                shared_bytes: 0,
            };
            self.one_kernel(s, launch::attention_fused, blocks)
        }

        /// Each head's `q · kᵀ / √dim` for a chunk of boards as one
        /// strided-batched product into the scores (a board's `points ×
        /// points` matrix after another), their softmax a warp a row, and
        /// `p · v` as another batched product into the head's columns of
        /// `out`; the chunk as many boards as the scores hold.
        fn batched(&self, s: &mut DeviceStep) -> Result<(), String> {
            let &Attention {
                heads,
                kv_heads,
                dim,
                v_dim,
                ..
            } = self;
            let points = s.shape.points();
            let matrix = points * points;
            let chunk = (s.score_values / matrix.max(1)).clamp(1, s.shape.batch);
            let qkv = s.buf(self.qkv)?;
            let stride = self.stride();
            let (q, k, v) = (qkv, qkv.offset(self.k_column()), qkv.offset(self.v_column()));
            let out = s.buf(self.out)?;
            let scores = s.scores;
            let tensor_cores = s.tensor_cores;
            let factors = |a, b| match tensor_cores {
                true => Factors::Tf32 { a, b },
                false => Factors::F32 { a, b },
            };
            let group = heads / kv_heads.max(1);
            for first in (0..s.shape.batch).step_by(chunk) {
                let boards = chunk.min(s.shape.batch - first);
                for h in 0..heads {
                    let kvh = h / group.max(1);
                    // The rows of this chunk's boards, this head's columns.
                    let row = first * points;
                    let q_h = q.offset(row * stride + h * dim);
                    let k_h = k.offset(row * stride + kvh * dim);
                    let v_h = v.offset(row * stride + kvh * v_dim);
                    let out_h = out.offset(row * heads * v_dim + h * v_dim);
                    s.product(Gemm {
                        m: points,
                        k: dim,
                        n: points,
                        factors: factors(q_h, k_h),
                        c: scores.into(),
                        alpha: 1.0 / (dim as f32).sqrt(),
                        beta: 0.0,
                        b_transposed: true,
                        ld_a: stride,
                        ld_b: stride,
                        ld_c: points,
                        batches: boards,
                        step_a: points * stride,
                        step_b: points * stride,
                        step_c: matrix,
                    })?;
                    let rows = boards * points;
                    launch::softmax_rows(warps(rows), scores, rows as i32, points as i32, s.queue)?;
                    s.product(Gemm {
                        m: points,
                        k: points,
                        n: v_dim,
                        factors: factors(scores, v_h),
                        c: out_h.into(),
                        alpha: 1.0,
                        beta: 0.0,
                        b_transposed: false,
                        ld_a: points,
                        ld_b: stride,
                        ld_c: heads * v_dim,
                        batches: boards,
                        step_a: matrix,
                        step_b: points * stride,
                        step_c: points * heads * v_dim,
                    })?;
                }
            }
            Ok(())
        }

        /// One kernel: a block a query point, head and board, the board's
        /// scores in shared memory.
        fn simt(&self, s: &mut DeviceStep) -> Result<(), String> {
            let blocks = Launch {
                grid: (
                    s.shape.points() as u32,
                    self.heads as u32,
                    s.shape.batch as u32,
                ),
                block: (ATTENTION_THREADS, 1, 1),
                shared_bytes: (s.shape.points() * 4) as u32,
            };
            self.one_kernel(s, launch::attention, blocks)
        }

        /// Attention as one kernel, `kernel` (the two take the same
        /// arguments: q, k and v in their buffer, its stride, the output
        /// and the heads' shapes), launched as `blocks`.
        fn one_kernel(
            &self,
            s: &mut DeviceStep,
            kernel: OneKernel,
            blocks: Launch,
        ) -> Result<(), String> {
            let qkv = s.buf(self.qkv)?;
            kernel(
                blocks,
                qkv,
                qkv.offset(self.k_column()),
                qkv.offset(self.v_column()),
                self.stride() as i32,
                s.buf(self.out)?,
                s.points(),
                self.heads as i32,
                self.kv_heads as i32,
                self.dim as i32,
                self.v_dim as i32,
                s.queue,
            )
        }
    }

    /// The launch of a warp (32 threads) a row for `rows` rows, eight rows
    /// a block.
    fn warps(rows: usize) -> Launch {
        let per_block = (BLOCK / 32) as usize;
        Launch {
            grid: (rows.div_ceil(per_block).max(1) as u32, 1, 1),
            block: (BLOCK, 1, 1),
            shared_bytes: 0,
        }
    }
}

#[cfg(test)]
mod host {
    use super::*;
    use crate::nn::gpu::ops::HostStep;

    impl Rope {
        pub(crate) fn on_host(&self, s: &mut HostStep) {
            let &Rope {
                values,
                column,
                stride,
                heads,
                dim,
                angles,
            } = self;
            let (shape, weights) = (s.shape, s.weights);
            let points = shape.points();
            let v = &mut s.values[values.0];
            let pairs = dim / 2;
            for r in 0..shape.rows() {
                let xy = r % points;
                let (x, y) = ((xy % shape.width) as f32, (xy / shape.width) as f32);
                for h in 0..heads {
                    for p in 0..pairs {
                        let angle = rope_angle(angles, weights, heads, dim, h, p, x, y);
                        let (sin, cos) = angle.sin_cos();
                        let i = r * stride + column + h * dim + 2 * p;
                        let (x0, x1) = (v[i], v[i + 1]);
                        v[i] = x0 * cos - x1 * sin;
                        v[i + 1] = x0 * sin + x1 * cos;
                    }
                }
            }
        }
    }

    impl Attention {
        pub(crate) fn on_host(&self, s: &mut HostStep) {
            let &Attention {
                qkv,
                out,
                heads,
                kv_heads,
                dim,
                v_dim,
            } = self;
            let (shape, points) = (s.shape, s.shape.points());
            let (stride, k_column, v_column) = (self.stride(), self.k_column(), self.v_column());
            let qkv = s.values[qkv.0].clone();
            let out = &mut s.values[out.0];
            let group = heads / kv_heads;
            let scale = 1.0 / (dim as f32).sqrt();
            let mut scores = vec![0.0f32; points];
            for b in 0..shape.batch {
                for h in 0..heads {
                    let kvh = h / group;
                    for i in 0..points {
                        let qi = &qkv[(b * points + i) * stride + h * dim..][..dim];
                        for (j, s) in scores.iter_mut().enumerate() {
                            let kj =
                                &qkv[(b * points + j) * stride + k_column + kvh * dim..][..dim];
                            *s = qi.iter().zip(kj).map(|(a, b)| a * b).sum::<f32>() * scale;
                        }
                        let max = scores.iter().fold(f32::MIN, |m, &s| m.max(s));
                        let mut sum = 0.0;
                        for s in scores.iter_mut() {
                            *s = (*s - max).exp();
                            sum += *s;
                        }
                        let o = &mut out[((b * points + i) * heads + h) * v_dim..][..v_dim];
                        o.fill(0.0);
                        for (j, &s) in scores.iter().enumerate() {
                            let vj =
                                &qkv[(b * points + j) * stride + v_column + kvh * v_dim..][..v_dim];
                            for (oe, &ve) in o.iter_mut().zip(vj) {
                                *oe += s / sum * ve;
                            }
                        }
                    }
                }
            }
        }
    }

    /// The angle rotary position embedding turns pair `p` of head `h` by
    /// at the point `(x, y)`.
    #[allow(clippy::too_many_arguments)]
    fn rope_angle(
        angles: Angles,
        weights: &[Vec<f32>],
        heads: usize,
        dim: usize,
        h: usize,
        p: usize,
        x: f32,
        y: f32,
    ) -> f32 {
        let pairs = dim / 2;
        match angles {
            Angles::Learned { freqs, tables } => {
                let table = h * tables / heads;
                let f = &weights[freqs.0][(table * pairs + p) * 2..];
                x * f[0] + y * f[1]
            }
            Angles::Fixed { theta } => {
                let per_axis = pairs / 2;
                let (index, coordinate) = if p < per_axis {
                    (p, y)
                } else {
                    (p - per_axis, x)
                };
                coordinate / theta.powf((2 * index) as f32 / pairs as f32)
            }
        }
    }
}
