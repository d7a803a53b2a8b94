//! Norms, biases and activations channel by channel: a batch norm folded
//! to a scale and a bias with its activation (`NormAct`, with a per-board
//! bias added first where given), a per-board bias and activation
//! (`BiasAct`), a per-board bias added at every point (`AddSpatialBias`),
//! and the RMSNorm of transformer nets (`RmsNorm`).

cfg_device! {
    use super::launch;
    use super::{BLOCK, DeviceStep, channel_threads, threads};
}
use super::{Buf, Weights};
cfg_device! {
    use crate::nn::gpu::device::{DeviceBuffer, F32s, Launch};
    use crate::nn::gpu::kernels::activation_code as act_code;
}
use crate::nn::model::Activation;

/// `dst = act((src + extra[board]) · scale + bias)` channel by channel at
/// each point (`extra` a per-board bias, where given); `src` may be `dst`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct NormAct {
    pub(crate) src: Buf,
    pub(crate) dst: Buf,
    pub(crate) channels: usize,
    pub(crate) scale: Weights,
    pub(crate) bias: Weights,
    pub(crate) extra: Option<Buf>,
    pub(crate) act: Activation,
}

/// `dst[board] = act(dst[board] + bias)`, per-board rows of `channels`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct BiasAct {
    pub(crate) dst: Buf,
    pub(crate) bias: Weights,
    pub(crate) channels: usize,
    pub(crate) act: Activation,
}

/// `dst[board][point] += src[board]`, rows of `channels`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct AddSpatialBias {
    pub(crate) src: Buf,
    pub(crate) dst: Buf,
    pub(crate) channels: usize,
}

/// An RMSNorm: `dst = act(src / rms · gamma + beta)`, the root mean square
/// over each point's channels, or (`board`) over every value of the board;
/// no `beta` is a transformer block's norm.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RmsNorm {
    pub(crate) src: Buf,
    pub(crate) dst: Buf,
    pub(crate) channels: usize,
    pub(crate) gamma: Weights,
    pub(crate) beta: Option<Weights>,
    pub(crate) epsilon: f32,
    pub(crate) board: bool,
    pub(crate) act: Activation,
}

cfg_device! {
    impl NormAct {
        pub(crate) fn on_device(&self, s: &mut DeviceStep) -> Result<(), String> {
            // A block a row, its threads over the channels' 16-byte runs.
            let rows = Launch {
                grid: (s.shape.rows() as u32, 1, 1),
                block: (channel_threads(self.channels), 1, 1),
                shared_bytes: 0,
            };
            let (scale, bias) = (s.weights(self.scale), s.weights(self.bias));
            let extra = self.extra.map_or(Ok(F32s::NULL), |e| s.buf(e))?;
            let (points, channels, act) = (s.points(), self.channels as i32, act_code(self.act));
            let q = &mut *s.queue;
            // Single precision or halves in, and out.
            match (s.buffers[self.src.0], s.buffers[self.dst.0]) {
                (DeviceBuffer::F32(i), DeviceBuffer::F32(o)) => {
                    launch::norm_act(rows, i, o, scale, bias, extra, points, channels, act, q)
                }
                (DeviceBuffer::F32(i), DeviceBuffer::F16(o)) => launch::norm_act_to_half(
                    rows, i, o, scale, bias, extra, points, channels, act, q,
                ),
                (DeviceBuffer::F16(i), DeviceBuffer::F16(o)) => launch::norm_act_halves(
                    rows, i, o, scale, bias, extra, points, channels, act, q,
                ),
                (DeviceBuffer::F16(i), DeviceBuffer::F32(o)) => launch::norm_act_from_half(
                    rows, i, o, scale, bias, extra, points, channels, act, q,
                ),
            }
        }
    }
}

cfg_device! {
    impl BiasAct {
        pub(crate) fn on_device(&self, s: &mut DeviceStep) -> Result<(), String> {
            let n = s.shape.batch * self.channels;
            launch::bias_act(
                threads(n),
                s.buf(self.dst)?,
                s.weights(self.bias),
                s.boards(),
                self.channels as i32,
                act_code(self.act),
                s.queue,
            )
        }
    }
}

cfg_device! {
    impl AddSpatialBias {
        pub(crate) fn on_device(&self, s: &mut DeviceStep) -> Result<(), String> {
            let n = s.shape.rows() * self.channels;
            let bias = s.buf(self.src)?;
            match s.buffers[self.dst.0] {
                DeviceBuffer::F32(v) => launch::add_spatial_bias(
                    threads(n),
                    bias,
                    v,
                    s.rows(),
                    s.points(),
                    self.channels as i32,
                    s.queue,
                ),
                DeviceBuffer::F16(v) => launch::add_spatial_bias_halves(
                    Launch {
                        grid: (s.shape.rows() as u32, 1, 1),
                        block: (channel_threads(self.channels), 1, 1),
                        shared_bytes: 0,
                    },
                    bias,
                    v,
                    s.points(),
                    self.channels as i32,
                    s.queue,
                ),
            }
        }
    }
}

cfg_device! {
    impl RmsNorm {
        pub(crate) fn on_device(&self, s: &mut DeviceStep) -> Result<(), String> {
            let (gamma, beta) = (s.weights(self.gamma), self.beta.map_or(F32s::NULL, |b| s.weights(b)));
            let (src, dst, channels) = (s.buf(self.src)?, s.buf(self.dst)?, self.channels as i32);
            if !self.board {
                // A warp a point, eight a block.
                let rows = s.shape.rows();
                let warps = Launch {
                    grid: (rows.div_ceil((BLOCK / 32) as usize).max(1) as u32, 1, 1),
                    block: (BLOCK, 1, 1),
                    shared_bytes: 0,
                };
                return launch::rms_norm_points(
                    warps,
                    src,
                    dst,
                    gamma,
                    beta,
                    rows as i32,
                    channels,
                    self.epsilon,
                    act_code(self.act),
                    s.queue,
                );
            }
            // A block a board.
            let one_block_each = Launch {
                grid: (s.shape.batch as u32, 1, 1),
                block: (BLOCK, 1, 1),
                shared_bytes: 0,
            };
            launch::rms_norm_boards(
                one_block_each,
                src,
                dst,
                gamma,
                beta,
                s.points(),
                channels,
                self.epsilon,
                act_code(self.act),
                s.queue,
            )
        }
    }
}

#[cfg(test)]
mod host {
    use super::*;
    use crate::nn::cpu::elementwise::activate;
    use crate::nn::gpu::ops::HostStep;

    impl NormAct {
        pub(crate) fn on_host(&self, s: &mut HostStep) {
            let &NormAct {
                src,
                dst,
                channels,
                scale,
                bias,
                extra,
                act,
            } = self;
            let (shape, weights) = (s.shape, s.weights);
            let (rows, points) = (shape.rows(), shape.points());
            let w = |i: Weights| &weights[i.0][..];
            let input = s.values[src.0][..rows * channels].to_vec();
            let extra = extra.map(|e| s.values[e.0][..shape.batch * channels].to_vec());
            let out = &mut s.values[dst.0];
            for r in 0..rows {
                let board = r / points;
                for ch in 0..channels {
                    let e = extra.as_ref().map_or(0.0, |e| e[board * channels + ch]);
                    let x = input[r * channels + ch] + e;
                    out[r * channels + ch] = activate(act, x * w(scale)[ch] + w(bias)[ch]);
                }
            }
        }
    }

    impl BiasAct {
        pub(crate) fn on_host(&self, s: &mut HostStep) {
            let bias = &s.weights[self.bias.0];
            let out = &mut s.values[self.dst.0];
            for b in 0..s.shape.batch {
                for ch in 0..self.channels {
                    let v = &mut out[b * self.channels + ch];
                    *v = activate(self.act, *v + bias[ch]);
                }
            }
        }
    }

    impl AddSpatialBias {
        pub(crate) fn on_host(&self, s: &mut HostStep) {
            let (rows, points, channels) = (s.shape.rows(), s.shape.points(), self.channels);
            let bias = s.values[self.src.0][..s.shape.batch * channels].to_vec();
            let out = &mut s.values[self.dst.0];
            for r in 0..rows {
                let board = r / points;
                for ch in 0..channels {
                    out[r * channels + ch] += bias[board * channels + ch];
                }
            }
        }
    }

    impl RmsNorm {
        pub(crate) fn on_host(&self, s: &mut HostStep) {
            let &RmsNorm {
                src,
                dst,
                channels,
                gamma,
                beta,
                epsilon,
                board,
                act,
            } = self;
            let (shape, weights) = (s.shape, s.weights);
            let (rows, points) = (shape.rows(), shape.points());
            let w = |i: Weights| &weights[i.0][..];
            let input = s.values[src.0][..rows * channels].to_vec();
            let out = &mut s.values[dst.0];
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
    }
}
