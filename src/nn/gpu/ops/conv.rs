//! Convolutions: `dst = conv(src)` (or `+=`), a `size × size` convolution
//! zero-padded to keep the board's size. On a device, a 1×1 convolution is
//! one product; a 3×3 one is a library's convolution (cuDNN's, the
//! filter laid out `[out][ky][kx][in]`), or im2col and one product. In
//! half precision the input goes to halves scaled by 1/8 on its way
//! (KataGo's "Scale8", which keeps a mish net's large activations inside
//! half precision's range) and the product, or the library's halves on
//! their way back to single precision, scales back.

cfg_device! {
    use super::launch;
}
use super::{Buf, Weights};
cfg_device! {
    use super::{DeviceStep, GpuConv, channel_threads, threads};
    use crate::nn::gpu::device::{ConvTensors, Convolution, DeviceBuffer, Factors, Gemm, Launch};
}

cfg_device! {
    /// What a product's input is multiplied by on its way to half precision
    /// (and the product by its inverse).
    const INPUT_SCALE: f32 = 0.125;
}

/// A convolution's arguments.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Conv {
    pub(crate) src: Buf,
    pub(crate) dst: Buf,
    pub(crate) weights: Weights,
    pub(crate) size: usize,
    pub(crate) cin: usize,
    pub(crate) cout: usize,
    pub(crate) accumulate: bool,
}

cfg_device! {
    impl Conv {
        /// The library's convolution this runs as, where the settings
        /// run it so (a 3×3 one under `--gpu-conv cudnn`): single
        /// precision from `src` into `dst` itself; halves from the
        /// scratch's first `rows × cin` values into the `rows × cout`
        /// after them, the output left scaled by 1/8.
        pub(crate) fn library_call(&self, s: &DeviceStep) -> Result<Option<Convolution>, String> {
            if s.conv != GpuConv::Cudnn || self.size == 1 {
                return Ok(None);
            }
            let shape = s.shape;
            let tensors = match s.col {
                DeviceBuffer::F16(col) => ConvTensors::F16 {
                    x: col,
                    w: s.halves(self.weights)?,
                    y: col.offset(shape.rows() * self.cin),
                },
                DeviceBuffer::F32(_) => ConvTensors::F32 {
                    x: s.buf(self.src)?,
                    w: s.weights(self.weights),
                    y: s.buf(self.dst)?,
                },
            };
            let beta = match tensors {
                ConvTensors::F32 { .. } if self.accumulate => 1.0,
                _ => 0.0,
            };
            Ok(Some(Convolution {
                batch: shape.batch,
                height: shape.height,
                width: shape.width,
                cin: self.cin,
                cout: self.cout,
                size: self.size,
                tensors,
                alpha: 1.0,
                beta,
            }))
        }

        /// Runs it as the library's convolution `call`: in half precision
        /// the input to halves first and the output back after.
        fn by_library(&self, s: &mut DeviceStep, call: Convolution) -> Result<(), String> {
            let ConvTensors::F16 { x, y, .. } = call.tensors else {
                return s.queue.convolve(call);
            };
            let n = s.shape.rows() * self.cin;
            let input = s.buf(self.src)?;
            launch::to_half(threads(n), input, x, n as i64, INPUT_SCALE, s.queue)?;
            s.queue.convolve(call)?;
            let n = s.shape.rows() * self.cout;
            let accumulate = i32::from(self.accumulate);
            let dst = s.buf(self.dst)?;
            launch::from_half(threads(n), y, dst, n as i64, 1.0 / INPUT_SCALE, accumulate, s.queue)
        }

        pub(crate) fn on_device(&self, s: &mut DeviceStep) -> Result<(), String> {
            if let Some(call) = self.library_call(s)? {
                return self.by_library(s, call);
            }
            let &Conv {
                src,
                dst,
                weights,
                size,
                cin,
                cout,
                accumulate,
            } = self;
            let shape = s.shape;
            let k = size * size * cin;
            let n = shape.rows() * k;
            let c = s.buf(dst)?;
            let beta = if accumulate { 1.0 } else { 0.0 };
            let gemm =
                |factors: Factors, alpha| Gemm::packed((shape.rows(), k, cout), factors, c, alpha, beta);
            let input = s.buf(src)?;
            let (width, height) = (shape.width as i32, shape.height as i32);
            let (cin, size) = (cin as i32, size as i32);
            // A block a row and tap, its threads over the channels' 16-byte
            // runs.
            let taps = Launch {
                grid: (shape.rows() as u32, (size * size) as u32, 1),
                block: (channel_threads(cin as usize), 1, 1),
                shared_bytes: 0,
            };
            match s.col {
                DeviceBuffer::F16(col) => {
                    // The input in halves, scaled down by 8; the product
                    // scales back up.
                    if size == 1 {
                        launch::to_half(threads(n), input, col, n as i64, INPUT_SCALE, s.queue)?;
                    } else {
                        launch::im2col_half(
                            taps,
                            input,
                            col,
                            width,
                            height,
                            cin,
                            size,
                            INPUT_SCALE,
                            s.queue,
                        )?;
                    }
                    let b = s.halves(weights)?;
                    s.product(gemm(Factors::F16 { a: col, b }, 1.0 / INPUT_SCALE))
                }
            DeviceBuffer::F32(_) if size == 1 => {
                    let b = s.weights(weights);
                    s.product(gemm(Factors::F32 { a: input, b }, 1.0))
                }
                DeviceBuffer::F32(col) => {
                    launch::im2col(taps, input, col, width, height, cin, size, s.queue)?;
                    let b = s.weights(weights);
                    s.product(gemm(Factors::F32 { a: col, b }, 1.0))
                }
            }
        }
    }
}

#[cfg(test)]
impl Conv {
    pub(crate) fn on_host(&self, s: &mut super::HostStep) {
        let &Conv {
            src,
            dst,
            weights,
            size,
            cin,
            cout,
            accumulate,
        } = self;
        let (shape, all_weights) = (s.shape, s.weights);
        let rows = shape.rows();
        let input = &s.values[src.0];
        let k = size * size * cin;
        let col = &mut s.col[..rows * k];
        col.fill(0.0);
        if size == 1 {
            col.copy_from_slice(&input[..rows * k]);
        } else {
            im2col(shape, size, cin, input, col);
        }
        let out = &mut s.values[dst.0];
        let m = &all_weights[weights.0];
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
}

/// The im2col matrix of `input` for a `size × size` convolution: a row a
/// point, in the order y, x, in channel, zero off the board.
#[cfg(test)]
fn im2col(
    shape: crate::nn::backend::Shape,
    size: usize,
    cin: usize,
    input: &[f32],
    col: &mut [f32],
) {
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
