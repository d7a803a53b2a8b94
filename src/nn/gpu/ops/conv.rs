//! Convolutions: `dst = conv(src)` (or `+=`), a `size × size` convolution
//! zero-padded to keep the board's size. On a device, a 1×1 convolution is
//! one product; a 3×3 one is a library's convolution (cuDNN's, the
//! filter laid out `[out][ky][kx][in]`), or im2col and one product. In
//! half precision the input and output are halves holding each value
//! times [`HALF_SCALE`] (1/8: KataGo's "Scale8", which keeps a mish net's
//! large activations inside half precision's range): the buffers
//! themselves where they are stored so, else a copy in halves made on the
//! way in (in the products' scratch) and the output scaled back on its way
//! into single precision (by the product's alpha, or a kernel after the
//! library's convolution, adding to the trunk where the convolution adds).

cfg_device! {
    use super::launch;
}
use super::{Buf, Weights};
cfg_device! {
    use super::{DeviceStep, GpuConv, channel_threads, threads};
    use crate::nn::gpu::device::{
        ConvTensors, Convolution, DeviceBuffer, Factors, Gemm, Halves, Launch, Output,
    };
    use crate::nn::gpu::kernels::HALF_SCALE;
}

/// Where in the products' scratch a library convolution's output in halves
/// goes, after an input of `input` halves: the next 16-byte boundary, as a
/// library's fast kernels want their tensors aligned.
pub(crate) fn library_output_at(input: usize) -> usize {
    input.next_multiple_of(8)
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
        /// The library's convolution this runs as, where the settings run
        /// it so (a 3×3 one under `--gpu-conv cudnn`): single precision
        /// from `src` into `dst` itself; in halves from `src` where it
        /// holds halves, else from the scratch's first `rows × cin`
        /// values, into `dst` where it holds halves, else into `rows ×
        /// cout` values after them ([`library_output_at`]).
        pub(crate) fn library_call(&self, s: &DeviceStep) -> Result<Option<Convolution>, String> {
            if s.conv != GpuConv::Cudnn || self.size == 1 {
                return Ok(None);
            }
            let shape = s.shape;
            let (src, dst) = (s.buffers[self.src.0], s.buffers[self.dst.0]);
            let (tensors, beta) = match s.col {
                DeviceBuffer::F16(col) => {
                    let x = match src {
                        DeviceBuffer::F16(x) => x,
                        DeviceBuffer::F32(_) => col,
                    };
                    // Halves out (added to where the trunk is halves), or
                    // halves in the scratch for single precision after.
                    let (y, beta) = match dst {
                        DeviceBuffer::F16(y) => (y, f32::from(u8::from(self.accumulate))),
                        DeviceBuffer::F32(_) => {
                            (col.offset(library_output_at(shape.rows() * self.cin)), 0.0)
                        }
                    };
                    let w = s.halves(self.weights)?;
                    (ConvTensors::F16 { x, w, y }, beta)
                }
                DeviceBuffer::F32(_) => {
                    let (x, y) = (src.f32s()?, dst.f32s()?);
                    let w = s.weights(self.weights);
                    (ConvTensors::F32 { x, w, y }, f32::from(u8::from(self.accumulate)))
                }
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
        /// an input in single precision to halves first, and an output in
        /// single precision back after.
        fn by_library(&self, s: &mut DeviceStep, call: Convolution) -> Result<(), String> {
            let ConvTensors::F16 { x, y, .. } = call.tensors else {
                return s.queue.convolve(call);
            };
            if let DeviceBuffer::F32(input) = s.buffers[self.src.0] {
                let n = s.shape.rows() * self.cin;
                launch::to_half(threads(n), input, x, n as i64, HALF_SCALE, s.queue)?;
            }
            s.queue.convolve(call)?;
            match s.buffers[self.dst.0] {
                DeviceBuffer::F32(dst) => {
                    let n = s.shape.rows() * self.cout;
                    let accumulate = i32::from(self.accumulate);
                    let back = 1.0 / HALF_SCALE;
                    launch::from_half(threads(n), y, dst, n as i64, back, accumulate, s.queue)
                }
                DeviceBuffer::F16(_) => Ok(()),
            }
        }

        pub(crate) fn on_device(&self, s: &mut DeviceStep) -> Result<(), String> {
            if let Some(call) = self.library_call(s)? {
                return self.by_library(s, call);
            }
            let shape = s.shape;
            let k = self.size * self.size * self.cin;
            let beta = f32::from(u8::from(self.accumulate));
            let gemm = |factors, c, alpha| {
                Gemm::packed((shape.rows(), k, self.cout), factors, c, alpha, beta)
            };
            match s.col {
                DeviceBuffer::F16(col) => {
                    let a = self.halves_in(s, col)?;
                    let b = s.halves(self.weights)?;
                    // Halves stay scaled; single precision is scaled back.
                    let (c, alpha) = match s.buffers[self.dst.0] {
                        DeviceBuffer::F16(c) => (Output::F16(c), 1.0),
                        DeviceBuffer::F32(c) => (Output::F32(c), 1.0 / HALF_SCALE),
                    };
                    s.product(gemm(Factors::F16 { a, b }, c, alpha))
                }
                DeviceBuffer::F32(col) => {
                    let input = s.buf(self.src)?;
                    let a = match self.size {
                        1 => input,
                        _ => {
                            launch::im2col(
                                self.taps(s),
                                input,
                                col,
                                shape.width as i32,
                                shape.height as i32,
                                self.cin as i32,
                                self.size as i32,
                                s.queue,
                            )?;
                            col
                        }
                    };
                    let b = s.weights(self.weights);
                    let c = s.buf(self.dst)?.into();
                    s.product(gemm(Factors::F32 { a, b }, c, 1.0))
                }
            }
        }

        /// The product's input in halves: the input itself where it is
        /// stored so (a 1×1 convolution's), else its halves (or for a 3×3
        /// one its im2col matrix in halves) made in the scratch `col`.
        fn halves_in(&self, s: &mut DeviceStep, col: Halves) -> Result<Halves, String> {
            let input = match s.buffers[self.src.0] {
                DeviceBuffer::F16(input) if self.size == 1 => return Ok(input),
                DeviceBuffer::F16(_) => {
                    return Err("a 3×3 convolution's input in halves, with no library".into());
                }
                DeviceBuffer::F32(input) => input,
            };
            let shape = s.shape;
            if self.size == 1 {
                let n = shape.rows() * self.cin;
                launch::to_half(threads(n), input, col, n as i64, HALF_SCALE, s.queue)?;
            } else {
                launch::im2col_half(
                    self.taps(s),
                    input,
                    col,
                    shape.width as i32,
                    shape.height as i32,
                    self.cin as i32,
                    self.size as i32,
                    HALF_SCALE,
                    s.queue,
                )?;
            }
            Ok(col)
        }

        /// An im2col's launch: a block a row and tap, its threads over the
        /// channels' 16-byte runs.
        fn taps(&self, s: &DeviceStep) -> Launch {
            Launch {
                grid: (s.shape.rows() as u32, (self.size * self.size) as u32, 1),
                block: (channel_threads(self.cin), 1, 1),
                shared_bytes: 0,
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
