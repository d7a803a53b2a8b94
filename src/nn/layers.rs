//! The computing layers of a network, over activations laid out channel by
//! channel, each channel holding the batch's boards one after another
//! (`[channel][board][point]`), so that one matrix product serves a whole
//! batch. Convolutions are an im2col followed by an `sgemm` (the
//! `matrixmultiply` crate, which picks AVX2/FMA kernels at run time);
//! batch norms are one scale and bias per channel, applied with the
//! activation in one pass; pooling is KataGo's (mean, mean scaled by board
//! width, max; and the value head's variant).
//!
//! Every buffer is the caller's: nothing here allocates.

use super::model::{Activation, BatchNormDesc, ConvDesc, MatMulDesc};

/// A convolution, weights as a row-major `out × (in·k·k)` matrix.
pub struct Conv {
    size: usize,
    pub in_channels: usize,
    pub out_channels: usize,
    weights: Vec<f32>,
}

/// The shape of the activations a layer works on: `batch` boards of side `side`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub side: usize,
    pub batch: usize,
}

impl Shape {
    pub fn points(self) -> usize {
        self.side * self.side
    }
    /// Values of one channel across the batch.
    pub fn plane(self) -> usize {
        self.points() * self.batch
    }
}

impl Conv {
    pub fn new(desc: &ConvDesc) -> Conv {
        Conv {
            size: desc.size_x,
            in_channels: desc.in_channels,
            out_channels: desc.out_channels,
            weights: desc.weights.clone(),
        }
    }

    /// Scratch values `apply` needs for `shape` (the im2col matrix).
    pub fn scratch_len(&self, shape: Shape) -> usize {
        if self.size == 1 {
            0
        } else {
            self.in_channels * self.size * self.size * shape.plane()
        }
    }

    /// `output = conv(input)`, or `output += conv(input)` with `accumulate`.
    pub fn apply(
        &self,
        shape: Shape,
        input: &[f32],
        output: &mut [f32],
        scratch: &mut [f32],
        accumulate: bool,
    ) {
        let plane = shape.plane();
        let k = self.in_channels * self.size * self.size;
        let b = if self.size == 1 {
            &input[..self.in_channels * plane]
        } else {
            let col = &mut scratch[..k * plane];
            self.im2col(shape, input, col);
            &*col
        };
        let out = &mut output[..self.out_channels * plane];
        // SAFETY: the slices hold exactly the m×k, k×n and m×n row-major
        // matrices described by the dimensions and strides passed.
        unsafe {
            matrixmultiply::sgemm(
                self.out_channels,
                k,
                plane,
                1.0,
                self.weights.as_ptr(),
                k as isize,
                1,
                b.as_ptr(),
                plane as isize,
                1,
                if accumulate { 1.0 } else { 0.0 },
                out.as_mut_ptr(),
                plane as isize,
                1,
            );
        }
    }

    /// Rows of the input shifted by each kernel offset, zero beyond the edge.
    fn im2col(&self, shape: Shape, input: &[f32], col: &mut [f32]) {
        let n = shape.side;
        let points = shape.points();
        let plane = shape.plane();
        let r = (self.size / 2) as isize;
        let mut row = 0;
        for ic in 0..self.in_channels {
            for ky in 0..self.size {
                let dy = ky as isize - r;
                for kx in 0..self.size {
                    let dx = kx as isize - r;
                    let dst = &mut col[row * plane..(row + 1) * plane];
                    row += 1;
                    for b in 0..shape.batch {
                        let src = &input[ic * plane + b * points..ic * plane + (b + 1) * points];
                        let dst = &mut dst[b * points..(b + 1) * points];
                        for y in 0..n {
                            let sy = y as isize + dy;
                            let line = &mut dst[y * n..(y + 1) * n];
                            if sy < 0 || sy >= n as isize {
                                line.fill(0.0);
                                continue;
                            }
                            let srow = &src[sy as usize * n..(sy as usize + 1) * n];
                            let lo = (-dx).max(0) as usize;
                            let hi = (n as isize - dx).min(n as isize) as usize;
                            line[..lo.min(n)].fill(0.0);
                            if lo < hi {
                                let s0 = (lo as isize + dx) as usize;
                                line[lo..hi].copy_from_slice(&srow[s0..s0 + (hi - lo)]);
                            }
                            line[hi.max(lo).min(n)..].fill(0.0);
                        }
                    }
                }
            }
        }
    }
}

/// A batch norm (merged scale and bias) followed by an activation.
pub struct NormAct {
    scale: Vec<f32>,
    bias: Vec<f32>,
    act: Activation,
}

impl NormAct {
    pub fn new(bn: &BatchNormDesc, act: Activation) -> NormAct {
        NormAct {
            scale: bn.scale.clone(),
            bias: bn.bias.clone(),
            act,
        }
    }

    /// `output = act(input · scale + bias)`, channel by channel.
    pub fn apply(&self, shape: Shape, input: &[f32], output: &mut [f32]) {
        let plane = shape.plane();
        for (c, (&s, &b)) in self.scale.iter().zip(&self.bias).enumerate() {
            let src = &input[c * plane..(c + 1) * plane];
            let dst = &mut output[c * plane..(c + 1) * plane];
            for (d, &x) in dst.iter_mut().zip(src) {
                *d = activate(self.act, x * s + b);
            }
        }
    }

    /// `apply` on `values` in place.
    pub fn apply_in_place(&self, shape: Shape, values: &mut [f32]) {
        let plane = shape.plane();
        for (c, (&s, &b)) in self.scale.iter().zip(&self.bias).enumerate() {
            for v in &mut values[c * plane..(c + 1) * plane] {
                *v = activate(self.act, *v * s + b);
            }
        }
    }

    /// `apply_with_bias` on `values` in place.
    pub fn apply_with_bias_in_place(&self, shape: Shape, extra: &[f32], values: &mut [f32]) {
        let plane = shape.plane();
        let points = shape.points();
        let channels = self.scale.len();
        for (c, (&s, &b)) in self.scale.iter().zip(&self.bias).enumerate() {
            for board in 0..shape.batch {
                let e = extra[board * channels + c];
                let at = c * plane + board * points;
                for v in &mut values[at..at + points] {
                    *v = activate(self.act, (*v + e) * s + b);
                }
            }
        }
    }

    /// Like `apply`, with a per-board bias added before the norm
    /// (`extra[board · channels + channel]`): a global-pooling bias.
    pub fn apply_with_bias(&self, shape: Shape, input: &[f32], extra: &[f32], output: &mut [f32]) {
        let plane = shape.plane();
        let points = shape.points();
        let channels = self.scale.len();
        for (c, (&s, &b)) in self.scale.iter().zip(&self.bias).enumerate() {
            for board in 0..shape.batch {
                let e = extra[board * channels + c];
                let at = c * plane + board * points;
                let src = &input[at..at + points];
                let dst = &mut output[at..at + points];
                for (d, &x) in dst.iter_mut().zip(src) {
                    *d = activate(self.act, (x + e) * s + b);
                }
            }
        }
    }
}

#[inline]
pub fn activate(act: Activation, x: f32) -> f32 {
    match act {
        Activation::Identity => x,
        Activation::Relu => x.max(0.0),
        Activation::Mish => {
            let sp = if x > 20.0 { x } else { x.exp().ln_1p() };
            x * sp.tanh()
        }
    }
}

/// A dense layer, weights `in × out`.
pub struct MatMul {
    pub in_channels: usize,
    pub out_channels: usize,
    weights: Vec<f32>,
}

impl MatMul {
    pub fn new(desc: &MatMulDesc) -> MatMul {
        MatMul {
            in_channels: desc.in_channels,
            out_channels: desc.out_channels,
            weights: desc.weights.clone(),
        }
    }

    /// `output[b] = input[b] · W` for each board `b` (rows of `in` and `out` values).
    pub fn apply(&self, batch: usize, input: &[f32], output: &mut [f32]) {
        for b in 0..batch {
            let x = &input[b * self.in_channels..(b + 1) * self.in_channels];
            let y = &mut output[b * self.out_channels..(b + 1) * self.out_channels];
            y.fill(0.0);
            for (i, &xi) in x.iter().enumerate() {
                let w = &self.weights[i * self.out_channels..(i + 1) * self.out_channels];
                for (yo, &wo) in y.iter_mut().zip(w) {
                    *yo += xi * wo;
                }
            }
        }
    }
}

/// Adds a per-channel bias to each board's values (`[channel]` per board).
pub fn add_bias(batch: usize, bias: &[f32], values: &mut [f32]) {
    for b in 0..batch {
        for (v, &x) in values[b * bias.len()..(b + 1) * bias.len()]
            .iter_mut()
            .zip(bias)
        {
            *v += x;
        }
    }
}

/// Adds a per-board, per-channel bias (`bias[board · channels + c]`) to
/// every point of the spatial `values`.
pub fn add_spatial_bias(shape: Shape, channels: usize, bias: &[f32], values: &mut [f32]) {
    let plane = shape.plane();
    let points = shape.points();
    for c in 0..channels {
        for b in 0..shape.batch {
            let e = bias[b * channels + c];
            let at = c * plane + b * points;
            for v in &mut values[at..at + points] {
                *v += e;
            }
        }
    }
}

/// KataGo's global pooling of `channels` spatial channels into
/// `out[board · 3C + …]`: each channel's mean, mean · (√points − 14) / 10,
/// and max (never below −1, as KataGo's masked max).
pub fn pool_global(shape: Shape, channels: usize, input: &[f32], out: &mut [f32]) {
    let plane = shape.plane();
    let points = shape.points();
    let div = points as f32;
    let width = div.sqrt();
    for b in 0..shape.batch {
        let row = &mut out[b * 3 * channels..(b + 1) * 3 * channels];
        for c in 0..channels {
            let v = &input[c * plane + b * points..c * plane + (b + 1) * points];
            let mut sum = 0.0f32;
            let mut max = -1.0f32;
            for &x in v {
                sum += x;
                max = max.max(x);
            }
            let mean = sum / div;
            row[c] = mean;
            row[c + channels] = mean * (width - 14.0) * 0.1;
            row[c + 2 * channels] = max;
        }
    }
}

/// The value head's pooling: mean, mean · (√points − 14) / 10 and
/// mean · ((√points − 14)² / 100 − 0.1).
pub fn pool_value(shape: Shape, channels: usize, input: &[f32], out: &mut [f32]) {
    let plane = shape.plane();
    let points = shape.points();
    let div = points as f32;
    let width = div.sqrt();
    for b in 0..shape.batch {
        let row = &mut out[b * 3 * channels..(b + 1) * 3 * channels];
        for c in 0..channels {
            let v = &input[c * plane + b * points..c * plane + (b + 1) * points];
            let mean = v.iter().sum::<f32>() / div;
            row[c] = mean;
            row[c + channels] = mean * (width - 14.0) * 0.1;
            row[c + 2 * channels] = mean * ((width - 14.0) * (width - 14.0) * 0.01 - 0.1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A direct convolution, for comparison.
    fn direct(desc: &ConvDesc, side: usize, input: &[f32]) -> Vec<f32> {
        let k = desc.size_x as isize;
        let r = k / 2;
        let n = side as isize;
        let mut out = vec![0.0; desc.out_channels * side * side];
        for oc in 0..desc.out_channels {
            for y in 0..n {
                for x in 0..n {
                    let mut s = 0.0;
                    for ic in 0..desc.in_channels {
                        for ky in 0..k {
                            for kx in 0..k {
                                let (sy, sx) = (y + ky - r, x + kx - r);
                                if sy < 0 || sx < 0 || sy >= n || sx >= n {
                                    continue;
                                }
                                let w = desc.weights[((oc * desc.in_channels + ic) * k as usize
                                    + ky as usize)
                                    * k as usize
                                    + kx as usize];
                                s += w * input[ic * side * side + (sy * n + sx) as usize];
                            }
                        }
                    }
                    out[oc * side * side + (y * n + x) as usize] = s;
                }
            }
        }
        out
    }

    #[test]
    fn im2col_and_sgemm_equal_a_direct_convolution_at_each_kernel_size_and_in_a_batch() {
        for (size, side) in [(1, 5), (3, 7), (5, 9), (3, 2)] {
            let (ic, oc) = (3, 4);
            let weights: Vec<f32> = (0..oc * ic * size * size)
                .map(|i| ((i * 37 % 11) as f32 - 5.0) / 7.0)
                .collect();
            let desc = ConvDesc {
                name: "t".into(),
                size_y: size,
                size_x: size,
                in_channels: ic,
                out_channels: oc,
                weights,
            };
            let conv = Conv::new(&desc);
            let points = side * side;
            let boards: Vec<Vec<f32>> = (0..2)
                .map(|b| {
                    (0..ic * points)
                        .map(|i| ((i * 13 + b * 5) % 17) as f32 / 9.0 - 0.8)
                        .collect()
                })
                .collect();
            // Lay the two boards out channel by channel.
            let shape = Shape { side, batch: 2 };
            let mut input = vec![0.0; ic * shape.plane()];
            for (b, board) in boards.iter().enumerate() {
                for c in 0..ic {
                    input[c * shape.plane() + b * points..][..points]
                        .copy_from_slice(&board[c * points..][..points]);
                }
            }
            let mut out = vec![0.0; oc * shape.plane()];
            let mut scratch = vec![0.0; conv.scratch_len(shape)];
            conv.apply(shape, &input, &mut out, &mut scratch, false);
            for (b, board) in boards.iter().enumerate() {
                let want = direct(&desc, side, board);
                for c in 0..oc {
                    for p in 0..points {
                        let got = out[c * shape.plane() + b * points + p];
                        assert!(
                            (got - want[c * points + p]).abs() < 1e-4,
                            "size {size} side {side}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn pooling_takes_mean_scaled_mean_and_max() {
        let shape = Shape { side: 2, batch: 1 };
        let input = [1.0, 2.0, 3.0, 6.0];
        let mut out = [0.0; 3];
        pool_global(shape, 1, &input, &mut out);
        assert_eq!(out, [3.0, 3.0 * (2.0 - 14.0) * 0.1, 6.0]);
        pool_value(shape, 1, &input, &mut out);
        assert!((out[2] - 3.0 * (1.44 - 0.1)).abs() < 1e-5);
    }
}
