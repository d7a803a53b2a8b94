//! The input planes laid down on the device: the host sends each point's
//! planes as one value, their bits (plane `c` at bit `c`, an exact integer
//! in single precision), and `SpreadPlanes` spreads them into the rows of
//! zeros and ones the first convolution reads — a position's upload 1.4 KB
//! on 19×19 where its rows are 32 KB, and no spreading on the host.

cfg_device! {
    use super::DeviceStep;
    use super::launch;
    use crate::nn::gpu::device::Launch;

    /// The rows a block of [`SpreadPlanes`]'s kernel, a warp each.
    const ROWS_A_BLOCK: u32 = 8;
}
use super::Buf;

/// `dst[row][c] = bit c of src[row]`: a value a point in, `channels` (at
/// most 32) values a point out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SpreadPlanes {
    pub(crate) src: Buf,
    pub(crate) dst: Buf,
    pub(crate) channels: usize,
}

cfg_device! {
    impl SpreadPlanes {
        pub(crate) fn on_device(&self, s: &mut DeviceStep) -> Result<(), String> {
            let rows = Launch {
                grid: ((s.shape.rows() as u32).div_ceil(ROWS_A_BLOCK), 1, 1),
                block: (32, ROWS_A_BLOCK, 1),
                shared_bytes: 0,
            };
            let (masks, out) = (s.buf(self.src)?, s.buf(self.dst)?);
            launch::spread_planes(rows, masks, out, s.rows(), self.channels as i32, s.queue)
        }
    }
}

#[cfg(test)]
mod host {
    use super::SpreadPlanes;
    use crate::nn::gpu::ops::HostStep;

    impl SpreadPlanes {
        pub(crate) fn on_host(&self, s: &mut HostStep) {
            let (rows, channels) = (s.shape.rows(), self.channels);
            let masks = s.values[self.src.0][..rows].to_vec();
            let out = &mut s.values[self.dst.0];
            for (r, &mask) in masks.iter().enumerate() {
                for c in 0..channels {
                    out[r * channels + c] = ((mask as u32) >> c & 1) as f32;
                }
            }
        }
    }
}
