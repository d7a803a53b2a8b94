//! The small layers between the convolutions: batch norms (a scale and a
//! bias per channel) applied with the activation in one pass, the dense
//! layers of the heads, biases, and KataGo's global pooling.
//!
//! Every buffer is the caller's: nothing here allocates.

use super::elementwise::activate_row;
use crate::nn::backend::Shape;
use crate::nn::model::{Activation, BatchNormDesc, MatMulDesc};

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

    fn channels(&self) -> usize {
        self.scale.len()
    }

    /// `output = act(input · scale + bias)`, point by point.
    pub fn apply(&self, shape: Shape, input: &[f32], output: &mut [f32]) {
        let c = self.channels();
        for (src, dst) in input[..shape.rows() * c]
            .chunks_exact(c)
            .zip(output.chunks_exact_mut(c))
        {
            for (((d, &x), &s), &b) in dst.iter_mut().zip(src).zip(&self.scale).zip(&self.bias) {
                *d = x * s + b;
            }
            activate_row(self.act, dst);
        }
    }

    /// `apply` on `values` in place.
    pub fn apply_in_place(&self, shape: Shape, values: &mut [f32]) {
        let c = self.channels();
        for row in values[..shape.rows() * c].chunks_exact_mut(c) {
            for ((v, &s), &b) in row.iter_mut().zip(&self.scale).zip(&self.bias) {
                *v = *v * s + b;
            }
            activate_row(self.act, row);
        }
    }

    /// Like `apply`, with a per-board bias added before the norm
    /// (`extra[board · channels + channel]`): a global-pooling bias.
    pub fn apply_with_bias(&self, shape: Shape, input: &[f32], extra: &[f32], output: &mut [f32]) {
        let c = self.channels();
        let points = shape.points();
        for b in 0..shape.batch {
            let e = &extra[b * c..(b + 1) * c];
            let range = b * points * c..(b + 1) * points * c;
            for (src, dst) in input[range.clone()]
                .chunks_exact(c)
                .zip(output[range].chunks_exact_mut(c))
            {
                for ((((d, &x), &s), &bias), &e) in dst
                    .iter_mut()
                    .zip(src)
                    .zip(&self.scale)
                    .zip(&self.bias)
                    .zip(e)
                {
                    *d = (x + e) * s + bias;
                }
                activate_row(self.act, dst);
            }
        }
    }

    /// `apply_with_bias` on `values` in place.
    pub fn apply_with_bias_in_place(&self, shape: Shape, extra: &[f32], values: &mut [f32]) {
        let c = self.channels();
        let points = shape.points();
        for b in 0..shape.batch {
            let e = &extra[b * c..(b + 1) * c];
            for row in values[b * points * c..(b + 1) * points * c].chunks_exact_mut(c) {
                for (((v, &s), &bias), &e) in row.iter_mut().zip(&self.scale).zip(&self.bias).zip(e)
                {
                    *v = (*v + e) * s + bias;
                }
                activate_row(self.act, row);
            }
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
    for row in values[..batch * bias.len()].chunks_exact_mut(bias.len()) {
        for (v, &x) in row.iter_mut().zip(bias) {
            *v += x;
        }
    }
}

/// Adds a per-board, per-channel bias (`bias[board · channels + c]`) to
/// every point of the spatial `values`.
pub fn add_spatial_bias(shape: Shape, channels: usize, bias: &[f32], values: &mut [f32]) {
    let points = shape.points();
    for b in 0..shape.batch {
        let e = &bias[b * channels..(b + 1) * channels];
        for row in
            values[b * points * channels..(b + 1) * points * channels].chunks_exact_mut(channels)
        {
            for (v, &x) in row.iter_mut().zip(e) {
                *v += x;
            }
        }
    }
}

/// Per board, each channel's sum and maximum (never below −1, as KataGo's
/// masked max) into `sum` and `max`.
fn channel_sums(points: usize, channels: usize, board: &[f32], sum: &mut [f32], max: &mut [f32]) {
    sum[..channels].fill(0.0);
    max[..channels].fill(-1.0);
    for row in board[..points * channels].chunks_exact(channels) {
        for ((s, m), &x) in sum.iter_mut().zip(max.iter_mut()).zip(row) {
            *s += x;
            *m = m.max(x);
        }
    }
}

/// What the third third of a pooled row holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pooling {
    /// Each channel's max: KataGo's global pooling in the blocks and the
    /// policy head.
    Max,
    /// mean · ((√points − 14)² / 100 − 0.1): the value head's.
    Quadratic,
}

/// KataGo's pooling of `channels` spatial channels into
/// `out[board · 3C + …]`: each channel's mean, mean · (√points − 14) / 10,
/// then the max or the quadratic term.
pub fn pool(shape: Shape, channels: usize, input: &[f32], out: &mut [f32], third: Pooling) {
    let points = shape.points();
    let div = points as f32;
    let width = div.sqrt();
    for b in 0..shape.batch {
        let row = &mut out[b * 3 * channels..(b + 1) * 3 * channels];
        let (sum, rest) = row.split_at_mut(channels);
        let (scaled, last) = rest.split_at_mut(channels);
        channel_sums(points, channels, &input[b * points * channels..], sum, last);
        for ((s, sc), l) in sum.iter_mut().zip(scaled.iter_mut()).zip(last.iter_mut()) {
            *s /= div;
            *sc = *s * (width - 14.0) * 0.1;
            if third == Pooling::Quadratic {
                *l = *s * ((width - 14.0) * (width - 14.0) * 0.01 - 0.1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pooling_takes_mean_scaled_mean_and_max() {
        let shape = Shape {
            width: 2,
            height: 2,
            batch: 1,
        };
        let input = [1.0, 2.0, 3.0, 6.0];
        let mut out = [0.0; 3];
        pool(shape, 1, &input, &mut out, Pooling::Max);
        assert_eq!(out, [3.0, 3.0 * (2.0 - 14.0) * 0.1, 6.0]);
        pool(shape, 1, &input, &mut out, Pooling::Quadratic);
        assert!((out[2] - 3.0 * (1.44 - 0.1)).abs() < 1e-5);
    }
}
