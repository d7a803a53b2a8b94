//! KataGo's global pooling: per board and channel the mean, the mean ·
//! (√points − 14) / 10, then the max (at least −1) or the quadratic term
//! of the value head.

use super::Buf;
cfg_device! {
    use super::launch;
    use super::DeviceStep;
    use crate::nn::gpu::device::Launch;
    use crate::nn::gpu::kernels::POOL_SLICES;
}

/// The third term of a pooling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Third {
    /// The max over the board (at least −1): the trunk's and policy's.
    Max,
    /// The mean · ((√points − 14)² / 100 − 0.1): the value head's.
    Quadratic,
}

/// `dst[board]` is each channel's mean, the mean · (√points − 14) / 10,
/// then the third term.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Pool {
    pub(crate) src: Buf,
    pub(crate) dst: Buf,
    pub(crate) channels: usize,
    pub(crate) third: Third,
}

cfg_device! {
    impl Pool {
        pub(crate) fn on_device(&self, s: &mut DeviceStep) -> Result<(), String> {
            // A block a board and 32 channels, its eight rows of threads
            // each summing a slice of the points.
            let groups = Launch {
                grid: (self.channels.div_ceil(32) as u32, s.shape.batch as u32, 1),
                block: (32, POOL_SLICES, 1),
                shared_bytes: 0,
            };
            launch::pool(
                groups,
                s.buf(self.src)?,
                s.buf(self.dst)?,
                s.points(),
                self.channels as i32,
                i32::from(self.third == Third::Quadratic),
                s.queue,
            )
        }
    }
}

#[cfg(test)]
impl Pool {
    pub(crate) fn on_host(&self, s: &mut super::HostStep) {
        let (channels, points) = (self.channels, s.shape.points());
        let input = s.values[self.src.0][..s.shape.rows() * channels].to_vec();
        let out = &mut s.values[self.dst.0];
        let width = (points as f32).sqrt();
        for b in 0..s.shape.batch {
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
                row[2 * channels + ch] = match self.third {
                    Third::Max => max,
                    Third::Quadratic => mean * ((width - 14.0) * (width - 14.0) * 0.01 - 0.1),
                };
            }
        }
    }
}
