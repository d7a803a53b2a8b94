//! The host's executor of a [`Program`]: each operation in plain loops, as
//! a device's kernels compute it, so that the tests hold a program (its
//! order, buffers, layouts and heads) to the CPU backend without a GPU, and
//! a device's results to the host's. It is a [`Backend`] like any other,
//! made for the tests alone: the CPU backend is the one that runs fast.

use super::program::{Angles, Buf, Op, Pool, Program};
use crate::go::board::BoardSize;
use crate::nn::backend::{Arithmetic, Backend, Inputs, RawOutput, Shape, Workspace};
use crate::nn::cpu::layers::activate;
use crate::nn::model::ModelDesc;

/// A program run on the host.
pub(crate) struct HostProgram {
    program: Program,
}

impl HostProgram {
    pub(crate) fn new(desc: &ModelDesc) -> HostProgram {
        HostProgram {
            program: Program::compile(desc),
        }
    }
}

/// A thread's buffers: one a program buffer, and the im2col matrix.
#[derive(Default)]
struct Buffers {
    values: Vec<Vec<f32>>,
    col: Vec<f32>,
}

impl Workspace for Buffers {
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

fn own(ws: &mut dyn Workspace) -> &mut Buffers {
    ws.as_any_mut()
        .downcast_mut()
        .expect("the host program's buffers")
}

/// Runs `program` on `values` (each buffer sized for `shape`).
pub(crate) fn run(program: &Program, shape: Shape, values: &mut [Vec<f32>], col: &mut Vec<f32>) {
    let points = shape.points();
    let rows = shape.rows();
    let w = |i: super::program::Weights| &program.weights[i.0][..];
    col.resize(program.product_input_len(shape), 0.0);
    for op in &program.ops {
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
                let input = &values[src.0];
                let k = size * size * cin;
                let col = &mut col[..rows * k];
                col.fill(0.0);
                if size == 1 {
                    col.copy_from_slice(&input[..rows * k]);
                } else {
                    im2col(shape, size, cin, input, col);
                }
                let out = &mut values[dst.0];
                let m = w(weights);
                for r in 0..rows {
                    let a = &col[r * k..(r + 1) * k];
                    let c = &mut out[r * cout..(r + 1) * cout];
                    if !accumulate {
                        c.fill(0.0);
                    }
                    for (kk, &av) in a.iter().enumerate() {
                        for (o, &wv) in c.iter_mut().zip(&m[kk * cout..(kk + 1) * cout]) {
                            *o += av * wv;
                        }
                    }
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
                let input = values[src.0][..rows * channels].to_vec();
                let extra = extra.map(|e| values[e.0][..shape.batch * channels].to_vec());
                let out = &mut values[dst.0];
                for r in 0..rows {
                    let board = r / points;
                    for ch in 0..channels {
                        let e = extra.as_ref().map_or(0.0, |e| e[board * channels + ch]);
                        let x = input[r * channels + ch] + e;
                        out[r * channels + ch] = activate(act, x * w(scale)[ch] + w(bias)[ch]);
                    }
                }
            }
            Op::MatMul {
                src,
                dst,
                weights,
                cin,
                cout,
            } => {
                let input = values[src.0][..shape.batch * cin].to_vec();
                let out = &mut values[dst.0];
                let m = w(weights);
                for b in 0..shape.batch {
                    for o in 0..cout {
                        out[b * cout + o] =
                            (0..cin).map(|i| input[b * cin + i] * m[i * cout + o]).sum();
                    }
                }
            }
            Op::BiasAct {
                dst,
                bias,
                channels,
                act,
            } => {
                let out = &mut values[dst.0];
                for b in 0..shape.batch {
                    for ch in 0..channels {
                        let v = &mut out[b * channels + ch];
                        *v = activate(act, *v + w(bias)[ch]);
                    }
                }
            }
            Op::AddSpatialBias { src, dst, channels } => {
                let bias = values[src.0][..shape.batch * channels].to_vec();
                let out = &mut values[dst.0];
                for r in 0..rows {
                    let board = r / points;
                    for ch in 0..channels {
                        out[r * channels + ch] += bias[board * channels + ch];
                    }
                }
            }
            Op::Pool {
                src,
                dst,
                channels,
                third,
            } => {
                let input = values[src.0][..rows * channels].to_vec();
                let out = &mut values[dst.0];
                pool(shape, channels, &input, out, third);
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
                let input = values[src.0][..rows * channels].to_vec();
                let out = &mut values[dst.0];
                let mean_square = |x: &[f32]| x.iter().map(|v| v * v).sum::<f32>() / x.len() as f32;
                for b in 0..shape.batch {
                    let on_board = &input[b * points * channels..(b + 1) * points * channels];
                    let board_scale = 1.0 / (mean_square(on_board) + epsilon).sqrt();
                    for p in 0..points {
                        let r = b * points + p;
                        let x = &input[r * channels..(r + 1) * channels];
                        let scale = match board {
                            true => board_scale,
                            false => 1.0 / (mean_square(x) + epsilon).sqrt(),
                        };
                        for ch in 0..channels {
                            let shift = beta.map_or(0.0, |b| w(b)[ch]);
                            out[r * channels + ch] =
                                activate(act, x[ch] * scale * w(gamma)[ch] + shift);
                        }
                    }
                }
            }
            Op::Rope {
                values: buf,
                heads,
                dim,
                angles,
            } => {
                let v = &mut values[buf.0];
                let pairs = dim / 2;
                for r in 0..rows {
                    let xy = r % points;
                    let (x, y) = ((xy % shape.width) as f32, (xy / shape.width) as f32);
                    for h in 0..heads {
                        for p in 0..pairs {
                            let angle =
                                rope_angle(angles, &program.weights, heads, dim, h, p, x, y);
                            let (sin, cos) = angle.sin_cos();
                            let i = r * heads * dim + h * dim + 2 * p;
                            let (x0, x1) = (v[i], v[i + 1]);
                            v[i] = x0 * cos - x1 * sin;
                            v[i + 1] = x0 * sin + x1 * cos;
                        }
                    }
                }
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
                let (q, k, v) = (
                    values[q.0].clone(),
                    values[k.0].clone(),
                    values[v.0].clone(),
                );
                let out = &mut values[out.0];
                let group = heads / kv_heads;
                let scale = 1.0 / (dim as f32).sqrt();
                let mut scores = vec![0.0f32; points];
                for b in 0..shape.batch {
                    for h in 0..heads {
                        let kvh = h / group;
                        for i in 0..points {
                            let qi = &q[((b * points + i) * heads + h) * dim..][..dim];
                            for (j, s) in scores.iter_mut().enumerate() {
                                let kj = &k[((b * points + j) * kv_heads + kvh) * dim..][..dim];
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
                                let vj = &v[((b * points + j) * kv_heads + kvh) * v_dim..][..v_dim];
                                for (oe, &ve) in o.iter_mut().zip(vj) {
                                    *oe += s / sum * ve;
                                }
                            }
                        }
                    }
                }
            }
            Op::SwiGlu {
                hidden,
                gate,
                channels,
            } => {
                let gate = values[gate.0][..rows * channels].to_vec();
                let hidden = &mut values[hidden.0];
                for (h, g) in hidden[..rows * channels].iter_mut().zip(gate) {
                    *h = activate(crate::nn::model::Activation::Silu, *h) * g;
                }
            }
        }
    }
}

/// The angle rotary position embedding turns pair `p` of head `h` by at
/// the point `(x, y)`.
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

/// The im2col matrix of `input` for a `size × size` convolution: a row a
/// point, in the order y, x, in channel, zero off the board.
fn im2col(shape: Shape, size: usize, cin: usize, input: &[f32], col: &mut [f32]) {
    let (width, height) = (shape.width as isize, shape.height as isize);
    let r = (size / 2) as isize;
    let k = size * size * cin;
    for b in 0..shape.batch {
        for y in 0..height {
            for x in 0..width {
                let row = b * shape.points() + (y * width + x) as usize;
                for ky in 0..size as isize {
                    for kx in 0..size as isize {
                        let (sy, sx) = (y + ky - r, x + kx - r);
                        let at = row * k + (ky as usize * size + kx as usize) * cin;
                        if sy >= 0 && sx >= 0 && sy < height && sx < width {
                            let p = b * shape.points() + (sy * width + sx) as usize;
                            col[at..at + cin].copy_from_slice(&input[p * cin..(p + 1) * cin]);
                        }
                    }
                }
            }
        }
    }
}

/// KataGo's pooling: per board and channel the mean, the mean ·
/// (√points − 14) / 10, then the max (at least −1) or the quadratic term.
fn pool(shape: Shape, channels: usize, input: &[f32], out: &mut [f32], third: Pool) {
    let points = shape.points();
    let width = (points as f32).sqrt();
    for b in 0..shape.batch {
        for ch in 0..channels {
            let (mut sum, mut max) = (0.0f32, -1.0f32);
            for p in 0..points {
                let x = input[(b * points + p) * channels + ch];
                sum += x;
                max = max.max(x);
            }
            let mean = sum / points as f32;
            let row = &mut out[b * 3 * channels..(b + 1) * 3 * channels];
            row[ch] = mean;
            row[channels + ch] = mean * (width - 14.0) * 0.1;
            row[2 * channels + ch] = match third {
                Pool::Max => max,
                Pool::Quadratic => mean * ((width - 14.0) * (width - 14.0) * 0.01 - 0.1),
            };
        }
    }
}

impl Backend for HostProgram {
    fn name(&self) -> String {
        "host program".into()
    }

    fn max_batch(&self, _size: BoardSize) -> usize {
        8
    }

    fn preferred_batch(&self, _size: BoardSize) -> usize {
        1
    }

    fn arithmetic(&self) -> Arithmetic {
        Arithmetic::F32
    }

    fn workspace(&self) -> Box<dyn Workspace> {
        Box::<Buffers>::default()
    }

    fn inputs<'a>(&self, ws: &'a mut dyn Workspace, shape: Shape) -> Inputs<'a> {
        let b = own(ws);
        b.values = self
            .program
            .buffers
            .iter()
            .map(|e| vec![0.0; e.len(shape)])
            .collect();
        self.program.inputs(&mut b.values, shape)
    }

    fn forward(&self, shape: Shape, ws: &mut dyn Workspace, out: &mut [RawOutput]) {
        let b = own(ws);
        run(&self.program, shape, &mut b.values, &mut b.col);
        let values = &b.values;
        self.program.read_heads(shape, |Buf(i)| &values[i][..], out);
    }

    fn macs(&self, size: BoardSize) -> f64 {
        self.program.macs(size.points())
    }

    fn peak_flops_per_cycle(&self) -> f64 {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::model::ModelDesc;

    /// The same positions through the CPU backend and the host's program
    /// of `desc`: every raw number within `tolerance`.
    fn agrees_with_the_cpu(desc: &ModelDesc, sizes: &[(usize, usize)], tolerance: f32) {
        let host = Box::new(HostProgram::new(desc));
        crate::nn::gpu::tests::holds_to_the_cpu(desc, host, sizes, tolerance);
    }

    #[test]
    fn the_embedded_nets_program_computes_what_the_cpu_backend_does() {
        let desc = ModelDesc::parse(crate::nn::EMBEDDED_MODEL).unwrap();
        agrees_with_the_cpu(&desc, &[(9, 9), (19, 19), (7, 11)], 2e-4);
    }

    #[test]
    fn the_synthetic_nets_programs_compute_what_the_cpu_backend_does() {
        // Version 16's layout: nested bottlenecks, global pooling blocks,
        // the pass's hidden layer, four policy channels, six scores; and a
        // human-like net's metadata encoder.
        let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/models/");
        for file in ["synthetic-v16.txt.gz", "synthetic-v16-human.txt.gz"] {
            let desc = ModelDesc::load(std::path::Path::new(&format!("{data}{file}"))).unwrap();
            agrees_with_the_cpu(&desc, &[(9, 9), (13, 6)], 2e-4);
        }
        let narrow = crate::nn::test_models::narrow(3, 0.0);
        let desc = ModelDesc::parse(narrow.as_bytes()).unwrap();
        agrees_with_the_cpu(&desc, &[(5, 5), (19, 19)], 2e-4);
    }

    #[test]
    fn the_transformer_nets_programs_compute_what_the_cpu_backend_does() {
        // KataGo's two version 17 test nets: attention with learned and
        // fixed rotary embeddings, grouped heads, SwiGLU, the trunk's
        // RMSNorm over points and over the board.
        let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/models/");
        let (mut kinds, mut tips) = (
            std::collections::BTreeSet::new(),
            std::collections::BTreeSet::new(),
        );
        for file in [
            "b7c96h3tfrs-test5-cnorm.bin.gz",
            "b7c96h6kv3qk32v16tflrs-fson-bnh.bin.gz",
        ] {
            let desc = ModelDesc::load(std::path::Path::new(&format!("{data}{file}"))).unwrap();
            agrees_with_the_cpu(&desc, &[(9, 9), (19, 19), (7, 11)], 5e-4);
            for op in &Program::compile(&desc).ops {
                if let Op::Rope { angles, .. } = op {
                    kinds.insert(matches!(angles, Angles::Learned { .. }));
                }
                if let Op::RmsNorm {
                    board,
                    beta: Some(_),
                    ..
                } = op
                {
                    tips.insert(*board);
                }
            }
        }
        assert_eq!(kinds.len(), 2, "learned and fixed rotary embeddings");
        assert!(tips.contains(&false));
        // KaTrain's default net (version 15: nested bottlenecks of
        // transformer blocks), where CI names it.
        if let Some(path) = std::env::var_os("KOSUMI_KATRAIN_NET") {
            let desc = ModelDesc::load(std::path::Path::new(&path)).unwrap();
            agrees_with_the_cpu(&desc, &[(9, 9)], 5e-4);
        }
    }
}
