//! Dense products and the gated unit: a per-board product with a weight
//! matrix (`MatMul`, the global layers and heads), and SwiGLU's
//! `silu(hidden) · gate` value by value (`SwiGlu`).

cfg_device! {
    use super::launch;
}
use super::{Buf, Weights};
cfg_device! {
    use super::{DeviceStep, threads};
    use crate::nn::gpu::device::{Factors, Gemm};
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

/// `hidden = silu(hidden) · gate`, value by value, rows of `channels`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SwiGlu {
    pub(crate) hidden: Buf,
    pub(crate) gate: Buf,
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
            let gemm = Gemm::packed(shape, factors, s.buf(self.dst)?, 1.0, 0.0);
            s.product(gemm)
        }
    }
}

cfg_device! {
    impl SwiGlu {
        pub(crate) fn on_device(&self, s: &mut DeviceStep) -> Result<(), String> {
            let n = s.shape.rows() * self.channels;
            let (hidden, gate) = (s.buf(self.hidden)?, s.buf(self.gate)?);
            launch::swiglu(threads(n), hidden, gate, n as i64, s.queue)
        }
    }
}

#[cfg(test)]
mod host {
    use super::*;
    use crate::nn::cpu::layers::activate;
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
            let n = s.shape.rows() * self.channels;
            let gate = s.values[self.gate.0][..n].to_vec();
            let hidden = &mut s.values[self.hidden.0];
            for (h, g) in hidden[..n].iter_mut().zip(gate) {
                *h = activate(crate::nn::model::Activation::Silu, *h) * g;
            }
        }
    }
}
