//! Dense products and the gated unit: a per-board product with a weight
//! matrix (`MatMul`, the global layers and heads), and SwiGLU's
//! `silu(hidden) · gate` value by value (`SwiGlu`), of the hidden and gate
//! values side by side in one buffer (one product makes them).

cfg_device! {
    use super::launch;
}
use super::{Buf, Weights};
cfg_device! {
    use super::{DeviceStep, channel_threads};
    use crate::nn::gpu::device::{Factors, Gemm, Launch};
}

/// `dst[board] = src[board] · W`, per-board rows of `cin` and `cout`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct MatMul {
    pub(crate) src: Buf,
    pub(crate) dst: Buf,
    pub(crate) weights: Weights,
    pub(crate) cin: usize,
    pub(crate) cout: usize,
}

/// `out = silu(hidden) · gate`, value by value: `both`'s rows are
/// `channels` hidden values then `channels` gate values, `out`'s rows of
/// `channels`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SwiGlu {
    pub(crate) both: Buf,
    pub(crate) out: Buf,
    pub(crate) channels: usize,
}

cfg_device! {
    impl MatMul {
        pub(crate) fn on_device(&self, s: &mut DeviceStep) -> Result<(), String> {
            let factors = Factors::F32 {
                a: s.buf(self.src)?,
                b: s.weights(self.weights),
            };
            let shape = (s.shape.batch, self.cin, self.cout);
            let gemm = Gemm::packed(shape, factors, s.buf(self.dst)?.into(), 1.0, 0.0);
            s.product(gemm)
        }
    }
}

cfg_device! {
    impl SwiGlu {
        pub(crate) fn on_device(&self, s: &mut DeviceStep) -> Result<(), String> {
            // A block a row, its threads over the channels.
            let rows = Launch {
                grid: (s.shape.rows() as u32, 1, 1),
                block: (channel_threads(self.channels), 1, 1),
                shared_bytes: 0,
            };
            let (both, out) = (s.buf(self.both)?, s.buf(self.out)?);
            launch::swiglu(rows, both, out, self.channels as i32, s.queue)
        }
    }
}

#[cfg(test)]
mod host {
    use super::*;
    use crate::nn::cpu::elementwise::activate;
    use crate::nn::gpu::ops::HostStep;

    impl MatMul {
        pub(crate) fn on_host(&self, s: &mut HostStep) {
            let (cin, cout) = (self.cin, self.cout);
            let input = s.values[self.src.0][..s.shape.batch * cin].to_vec();
            let m = &s.weights[self.weights.0];
            let out = &mut s.values[self.dst.0];
            for b in 0..s.shape.batch {
                for o in 0..cout {
                    out[b * cout + o] =
                        (0..cin).map(|i| input[b * cin + i] * m[i * cout + o]).sum();
                }
            }
        }
    }

    impl SwiGlu {
        pub(crate) fn on_host(&self, s: &mut HostStep) {
            let c = self.channels;
            let both = s.values[self.both.0][..s.shape.rows() * 2 * c].to_vec();
            let out = &mut s.values[self.out.0];
            for (row, o) in both.chunks_exact(2 * c).zip(out.chunks_exact_mut(c)) {
                for ((o, &h), &g) in o.iter_mut().zip(&row[..c]).zip(&row[c..]) {
                    *o = activate(crate::nn::model::Activation::Silu, h) * g;
                }
            }
        }
    }
}
