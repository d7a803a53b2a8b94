//! Convolutions over activations laid out point by point with the channels
//! innermost (`[board][point][channel]`, KataGo's NHWC). 3×3 and 5×5
//! convolutions are Winograd convolutions with 6×6 input tiles (F(4×4, 3×3)
//! and F(2×2, 5×5), KataGo's CPU choice, with its transforms): each tile is
//! transformed, 36 matrix products (tiles × in channels times in × out)
//! combine the channels, and the products are transformed back; a 3×3
//! convolution then takes about a quarter of the multiplications of a
//! direct one. 1×1 convolutions are one matrix product; other sizes an
//! im2col and a product. The tile transforms run on 16 or 8 channels at
//! once, one vector register (`simd::Lanes`); the products on `gemm`.
//!
//! Every buffer is the caller's: nothing here allocates.

use super::gemm::{Kernel, Packed, gemm};
use super::simd::Lanes;
use crate::go::board::BoardSize;
use crate::nn::backend::Shape;
use crate::nn::model::ConvDesc;

/// Side of a Winograd input tile.
const TILE: usize = 6;
const TILE_POINTS: usize = TILE * TILE;

/// A convolution.
pub struct Conv {
    size: usize,
    pub in_channels: usize,
    pub out_channels: usize,
    /// For 1×1 and im2col: `(k·k·in) × out`, rows in the order y, x, in
    /// channel.
    weights: Packed,
    /// For Winograd: per tile point `t` (36), an `in × out` matrix.
    winograd: Vec<Packed>,
}

/// KataGo's transform of one kernel row of 3 to a tile row of 6 (G·g).
fn kernel_row_3(z: [f32; 3]) -> [f32; 6] {
    let [z0, z1, z2] = z.map(f64::from);
    [
        (0.25 * z0) as f32,
        ((1.0 / 6.0) * (-z0 - z1 - z2)) as f32,
        ((1.0 / 6.0) * (-z0 + z1 - z2)) as f32,
        ((1.0 / 24.0) * (z0 + 2.0 * z1 + 4.0 * z2)) as f32,
        ((1.0 / 24.0) * (z0 - 2.0 * z1 + 4.0 * z2)) as f32,
        z2 as f32,
    ]
}

/// KataGo's transform of one kernel row of 5 to a tile row of 6.
fn kernel_row_5(z: [f32; 5]) -> [f32; 6] {
    let [z0, z1, z2, z3, z4] = z.map(f64::from);
    [
        (0.25 * z0) as f32,
        ((1.0 / 6.0) * (-z0 - z1 - z2 - z3 - z4)) as f32,
        ((1.0 / 6.0) * (-z0 + z1 - z2 + z3 - z4)) as f32,
        ((1.0 / 24.0) * (z0 + 2.0 * z1 + 4.0 * z2 + 8.0 * z3 + 16.0 * z4)) as f32,
        ((1.0 / 24.0) * (z0 - 2.0 * z1 + 4.0 * z2 - 8.0 * z3 + 16.0 * z4)) as f32,
        z4 as f32,
    ]
}

impl Conv {
    pub fn new(desc: &ConvDesc) -> Conv {
        let size = desc.size_x;
        let (ic_n, oc_n) = (desc.in_channels, desc.out_channels);
        let w = |oc: usize, ic: usize, y: usize, x: usize| {
            desc.weights[((oc * ic_n + ic) * size + y) * size + x]
        };
        let mut weights = vec![0.0; size * size * ic_n * oc_n];
        for y in 0..size {
            for x in 0..size {
                for ic in 0..ic_n {
                    for oc in 0..oc_n {
                        weights[((y * size + x) * ic_n + ic) * oc_n + oc] = w(oc, ic, y, x);
                    }
                }
            }
        }
        let mut winograd = Vec::new();
        if size == 3 || size == 5 {
            winograd = vec![0.0; TILE_POINTS * ic_n * oc_n];
            for oc in 0..oc_n {
                for ic in 0..ic_n {
                    // Rows first, then columns, as KataGo does.
                    let mut tmp = [[0.0f32; TILE]; TILE];
                    for (y, row) in tmp.iter_mut().enumerate().take(size) {
                        *row = if size == 3 {
                            kernel_row_3([w(oc, ic, y, 0), w(oc, ic, y, 1), w(oc, ic, y, 2)])
                        } else {
                            kernel_row_5(std::array::from_fn(|x| w(oc, ic, y, x)))
                        };
                    }
                    // Columns read one value from each row.
                    #[allow(clippy::needless_range_loop)]
                    for x in 0..TILE {
                        let col = if size == 3 {
                            kernel_row_3([tmp[0][x], tmp[1][x], tmp[2][x]])
                        } else {
                            kernel_row_5(std::array::from_fn(|y| tmp[y][x]))
                        };
                        for (y, v) in col.into_iter().enumerate() {
                            tmp[y][x] = v;
                        }
                    }
                    for (t, v) in tmp.iter().flatten().enumerate() {
                        winograd[(t * ic_n + ic) * oc_n + oc] = *v;
                    }
                }
            }
        }
        Conv {
            size,
            in_channels: ic_n,
            out_channels: oc_n,
            weights: Packed::new(size * size * ic_n, oc_n, &weights),
            winograd: winograd
                .chunks(ic_n * oc_n)
                .map(|u| Packed::new(ic_n, oc_n, u))
                .collect(),
        }
    }

    fn out_tile(&self) -> usize {
        if self.size == 5 { 2 } else { 4 }
    }

    /// Winograd tiles across the batch.
    fn tiles(&self, shape: Shape) -> usize {
        let (across, down) = self.tile_grid(shape);
        across * down * shape.batch
    }

    /// Winograd tiles across a board and down it.
    fn tile_grid(&self, shape: Shape) -> (usize, usize) {
        let out_tile = self.out_tile();
        (
            shape.width.div_ceil(out_tile),
            shape.height.div_ceil(out_tile),
        )
    }

    /// Multiply-adds the convolution computes on one board of `size`,
    /// as its algorithm does them: the 36 products of each Winograd tile,
    /// or one product per point and kernel position (the rate `bench`
    /// reports is then the processor's, comparable with its peak).
    pub fn macs(&self, size: BoardSize) -> f64 {
        let per_channel_pair = if self.winograd.is_empty() {
            self.size * self.size * size.points()
        } else {
            TILE_POINTS * self.tiles(Shape::of(size, 1))
        };
        (self.in_channels * self.out_channels * per_channel_pair) as f64
    }

    /// Scratch values `apply` needs for `shape`.
    pub fn scratch_len(&self, shape: Shape) -> usize {
        if !self.winograd.is_empty() {
            TILE_POINTS * (self.in_channels + self.out_channels) * self.tiles(shape)
        } else if self.size == 1 {
            0
        } else {
            self.size * self.size * self.in_channels * shape.rows()
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
        let rows = shape.rows();
        let out = &mut output[..rows * self.out_channels];
        if !self.winograd.is_empty() {
            self.apply_winograd(shape, input, out, scratch, accumulate);
        } else if self.size == 1 {
            gemm(rows, input, &self.weights, out, accumulate);
        } else {
            let k = self.size * self.size * self.in_channels;
            let col = &mut scratch[..rows * k];
            self.im2col(shape, input, col);
            gemm(rows, col, &self.weights, out, accumulate);
        }
    }

    fn apply_winograd(
        &self,
        shape: Shape,
        input: &[f32],
        output: &mut [f32],
        scratch: &mut [f32],
        accumulate: bool,
    ) {
        let io = WinogradIo {
            shape,
            input,
            output,
            scratch,
            accumulate,
        };
        self.winograd_with(Kernel::in_force(), io);
    }

    /// The Winograd convolution with the transforms in `kernel`'s
    /// instructions (a kernel the processor runs).
    fn winograd_with(&self, kernel: Kernel, io: WinogradIo) {
        assert!(kernel.runs_here(), "{kernel:?} on this processor");
        match kernel {
            // SAFETY (both): the processor has the features the function
            // is compiled for (asserted above).
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => unsafe { self.winograd_avx512(io) },
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { self.winograd_avx2(io) },
            #[cfg(target_arch = "aarch64")]
            Kernel::Neon => self.winograd_body::<std::arch::aarch64::float32x4_t>(io),
            Kernel::Portable => self.winograd_body::<[f32; 8]>(io),
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    fn winograd_avx512(&self, io: WinogradIo) {
        self.winograd_body::<std::arch::x86_64::__m512>(io);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn winograd_avx2(&self, io: WinogradIo) {
        self.winograd_body::<std::arch::x86_64::__m256>(io);
    }

    /// The Winograd convolution; the transforms run on `V::WIDTH` channels
    /// at a time, the rest one by one.
    #[inline(always)]
    fn winograd_body<V: Lanes>(&self, io: WinogradIo) {
        let WinogradIo {
            shape,
            input,
            output,
            scratch,
            accumulate,
        } = io;
        let (width, height) = (shape.width as isize, shape.height as isize);
        let points = shape.points();
        let out_tile = self.out_tile();
        let offset = self.size / 2;
        let (across, down) = self.tile_grid(shape);
        let tiles = self.tiles(shape);
        let (ic_n, oc_n) = (self.in_channels, self.out_channels);
        let (transformed_in, rest) = scratch.split_at_mut(TILE_POINTS * tiles * ic_n);
        let transformed_out = &mut rest[..TILE_POINTS * tiles * oc_n];
        // The point (x, y) of board b, or None off the board.
        let at = |b: usize, y: isize, x: isize| {
            (y >= 0 && x >= 0 && y < height && x < width)
                .then(|| b * points + (y * width + x) as usize)
        };

        // Input tiles, transformed: transformed_in[t][tile][ic].
        for b in 0..shape.batch {
            for ty in 0..down {
                for tx in 0..across {
                    let tile = (b * down + ty) * across + tx;
                    let y0 = (ty * out_tile) as isize - offset as isize;
                    let x0 = (tx * out_tile) as isize - offset as isize;
                    let src: [[Option<usize>; TILE]; TILE] = std::array::from_fn(|dy| {
                        std::array::from_fn(|dx| at(b, y0 + dy as isize, x0 + dx as isize))
                    });
                    let place = Place {
                        tiles,
                        tile,
                        channels: ic_n,
                    };
                    let mut ic = 0;
                    while ic + V::WIDTH <= ic_n {
                        transform_input::<V>(&src, input, place, ic, transformed_in);
                        ic += V::WIDTH;
                    }
                    while ic < ic_n {
                        transform_input::<f32>(&src, input, place, ic, transformed_in);
                        ic += 1;
                    }
                }
            }
        }
        // One product per tile point: out[t] = in[t] · U[t].
        for (t, u) in self.winograd.iter().enumerate() {
            gemm(
                tiles,
                &transformed_in[t * tiles * ic_n..(t + 1) * tiles * ic_n],
                u,
                &mut transformed_out[t * tiles * oc_n..(t + 1) * tiles * oc_n],
                false,
            );
        }
        // Back to the board.
        for b in 0..shape.batch {
            for ty in 0..down {
                for tx in 0..across {
                    let tile = (b * down + ty) * across + tx;
                    let dst: [[Option<usize>; 4]; 4] = std::array::from_fn(|dy| {
                        std::array::from_fn(|dx| {
                            (dy < out_tile && dx < out_tile)
                                .then(|| {
                                    at(
                                        b,
                                        (ty * out_tile + dy) as isize,
                                        (tx * out_tile + dx) as isize,
                                    )
                                })
                                .flatten()
                        })
                    });
                    let place = Place {
                        tiles,
                        tile,
                        channels: oc_n,
                    };
                    let mut oc = 0;
                    while oc + V::WIDTH <= oc_n {
                        self.transform_output::<V>(
                            &dst,
                            transformed_out,
                            place,
                            oc,
                            output,
                            accumulate,
                        );
                        oc += V::WIDTH;
                    }
                    while oc < oc_n {
                        self.transform_output::<f32>(
                            &dst,
                            transformed_out,
                            place,
                            oc,
                            output,
                            accumulate,
                        );
                        oc += 1;
                    }
                }
            }
        }
    }

    /// One tile's output transform (Aᵀ·m·A) for channels `oc..oc + V::WIDTH`,
    /// written (or added) to the tile's points on the board.
    #[inline(always)]
    fn transform_output<V: Lanes>(
        &self,
        dst: &[[Option<usize>; 4]; 4],
        transformed_out: &[f32],
        place: Place,
        oc: usize,
        output: &mut [f32],
        accumulate: bool,
    ) {
        let oc_n = self.out_channels;
        let out_tile = self.out_tile();
        let rows: [[V; 4]; TILE] = lanes_array(
            #[inline(always)]
            |y| {
                output_lanes(
                    lanes_array(
                        #[inline(always)]
                        |x| V::load(&transformed_out[place.at(y * TILE + x, oc)..]),
                    ),
                    self.size,
                )
            },
        );
        for x in 0..out_tile {
            let col = output_lanes(
                lanes_array(
                    #[inline(always)]
                    |y| rows[y][x],
                ),
                self.size,
            );
            for (y, v) in col.into_iter().enumerate().take(out_tile) {
                if let Some(p) = dst[y][x] {
                    let o = &mut output[p * oc_n + oc..];
                    if accumulate {
                        V::load(o).add(v).store(o);
                    } else {
                        v.store(o);
                    }
                }
            }
        }
    }

    /// Each point's `k·k·in` neighbourhood values (zero beyond the edge), a row each.
    fn im2col(&self, shape: Shape, input: &[f32], col: &mut [f32]) {
        let (width, height) = (shape.width as isize, shape.height as isize);
        let r = (self.size / 2) as isize;
        let ic_n = self.in_channels;
        let k = self.size * self.size * ic_n;
        for b in 0..shape.batch {
            for y in 0..height {
                for x in 0..width {
                    let row = (b * shape.points()) + (y * width + x) as usize;
                    let dst = &mut col[row * k..(row + 1) * k];
                    for ky in 0..self.size as isize {
                        for kx in 0..self.size as isize {
                            let (sy, sx) = (y + ky - r, x + kx - r);
                            let d = &mut dst[((ky * self.size as isize + kx) as usize) * ic_n..]
                                [..ic_n];
                            if sy < 0 || sx < 0 || sy >= height || sx >= width {
                                d.fill(0.0);
                            } else {
                                let p = b * shape.points() + (sy * width + sx) as usize;
                                d.copy_from_slice(&input[p * ic_n..(p + 1) * ic_n]);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// What one Winograd convolution reads and writes: `output = conv(input)`,
/// or `output += conv(input)` with `accumulate`, through `scratch`.
struct WinogradIo<'a> {
    shape: Shape,
    input: &'a [f32],
    output: &'a mut [f32],
    scratch: &'a mut [f32],
    accumulate: bool,
}

/// Where a tile point's channels lie in the transformed tiles:
/// `[tile point][tile][channel]`.
#[derive(Clone, Copy)]
struct Place {
    tiles: usize,
    tile: usize,
    channels: usize,
}

impl Place {
    /// The index of channel `c` of tile point `t`.
    #[inline(always)]
    fn at(self, t: usize, c: usize) -> usize {
        (t * self.tiles + self.tile) * self.channels + c
    }
}

/// One tile's input transform (Bᵀ·d·B) for channels `ic..ic + V::WIDTH`,
/// from the input points `src` (None: off the board, zero) into
/// `transformed_in`.
#[inline(always)]
fn transform_input<V: Lanes>(
    src: &[[Option<usize>; TILE]; TILE],
    input: &[f32],
    place: Place,
    ic: usize,
    transformed_in: &mut [f32],
) {
    let rows: [[V; TILE]; TILE] = lanes_array(
        #[inline(always)]
        |y| {
            input_lanes(lanes_array(
                #[inline(always)]
                |x| match src[y][x] {
                    Some(p) => V::load(&input[p * place.channels + ic..]),
                    None => V::zero(),
                },
            ))
        },
    );
    // Columns read one value from each row.
    for x in 0..TILE {
        let col = input_lanes(lanes_array(
            #[inline(always)]
            |y| rows[y][x],
        ));
        for (y, v) in col.into_iter().enumerate() {
            v.store(&mut transformed_in[place.at(y * TILE + x, ic)..]);
        }
    }
}

/// `[f(0), f(1), …]` of vector registers (or arrays of them), built in the
/// caller, so with the instructions the caller is compiled for: the
/// standard library's `array::from_fn` may be left a function of its own,
/// compiled without them, each register operation in it a call.
#[inline(always)]
fn lanes_array<T: Copy, const N: usize>(mut f: impl FnMut(usize) -> T) -> [T; N] {
    let mut out = [f(0); N];
    for (i, x) in out.iter_mut().enumerate().skip(1) {
        *x = f(i);
    }
    out
}

/// The input transform of six values (Bᵀ·d), on all lanes at once.
#[inline(always)]
fn input_lanes<V: Lanes>(z: [V; 6]) -> [V; 6] {
    let [z0, z1, z2, z3, z4, z5] = z;
    let diff42 = z4.sub(z2);
    [
        z0.mul_add(4.0, z2.mul_add(-5.0, z4)),
        z1.add(z2).mul_add(-4.0, z3.add(z4)),
        z1.sub(z2).mul_add(4.0, z4.sub(z3)),
        z3.sub(z1).mul_add(2.0, diff42),
        z1.sub(z3).mul_add(2.0, diff42),
        z1.mul_add(4.0, z3.mul_add(-5.0, z5)),
    ]
}

/// The output transform of six values (Aᵀ·m), on all lanes at once: four
/// outputs for 3×3, two for 5×5.
#[inline(always)]
fn output_lanes<V: Lanes>(z: [V; 6], size: usize) -> [V; 4] {
    let [z0, z1, z2, z3, z4, z5] = z;
    let (sum12, diff12) = (z1.add(z2), z1.sub(z2));
    let (sum34, diff34) = (z3.add(z4), z3.sub(z4));
    let first = z0.add(sum12).add(sum34);
    if size == 5 {
        [
            first,
            diff34.mul_add(2.0, diff12).add(z5),
            V::zero(),
            V::zero(),
        ]
    } else {
        [
            first,
            diff34.mul_add(2.0, diff12),
            sum34.mul_add(4.0, sum12),
            diff34.mul_add(8.0, diff12).add(z5),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A direct convolution of one board, channels innermost, for comparison.
    fn direct(desc: &ConvDesc, shape: Shape, input: &[f32]) -> Vec<f32> {
        let k = desc.size_x as isize;
        let r = k / 2;
        let (width, height) = (shape.width as isize, shape.height as isize);
        let (ic_n, oc_n) = (desc.in_channels, desc.out_channels);
        let mut out = vec![0.0; oc_n * shape.points()];
        for oc in 0..oc_n {
            for y in 0..height {
                for x in 0..width {
                    let mut s = 0.0;
                    for ic in 0..ic_n {
                        for ky in 0..k {
                            for kx in 0..k {
                                let (sy, sx) = (y + ky - r, x + kx - r);
                                if sy < 0 || sx < 0 || sy >= height || sx >= width {
                                    continue;
                                }
                                let w = desc.weights[((oc * ic_n + ic) * k as usize + ky as usize)
                                    * k as usize
                                    + kx as usize];
                                s += w * input[(sy * width + sx) as usize * ic_n + ic];
                            }
                        }
                    }
                    out[(y * width + x) as usize * oc_n + oc] = s;
                }
            }
        }
        out
    }

    #[test]
    fn each_convolution_path_equals_a_direct_convolution_in_a_batch() {
        // 1×1 (a product), 3×3 and 5×5 (Winograd, with partial edge tiles),
        // 7×7 (im2col); 19 output channels leave a partial block in the
        // kernel, 21 and 19 channels a rest after the transforms' 8 or 16 lanes;
        // the rectangles read rows of their own width.
        for (size, (width, height)) in [
            (1, (5, 5)),
            (3, (7, 7)),
            (3, (19, 19)),
            (5, (9, 9)),
            (3, (2, 2)),
            (7, (6, 6)),
            (3, (13, 9)),
            (3, (5, 11)),
            (5, (10, 7)),
            (7, (4, 6)),
        ] {
            let (ic, oc) = (21, 19);
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
            let shape = Shape::of(BoardSize::new(width, height).unwrap(), 2);
            let points = shape.points();
            let input: Vec<f32> = (0..ic * shape.rows())
                .map(|i| ((i * 13) % 17) as f32 / 9.0 - 0.8)
                .collect();
            let mut out = vec![0.5; oc * shape.rows()];
            let mut scratch = vec![0.0; conv.scratch_len(shape)];
            conv.apply(shape, &input, &mut out, &mut scratch, true);
            // The Winograd transforms in each kernel's instructions this
            // processor runs, beside the path `apply` takes.
            let mut paths: Vec<(Kernel, Vec<f32>)> = Vec::new();
            if !conv.winograd.is_empty() {
                for kernel in Kernel::available() {
                    let mut out = vec![0.5; oc * shape.rows()];
                    let io = WinogradIo {
                        shape,
                        input: &input,
                        output: &mut out,
                        scratch: &mut scratch,
                        accumulate: true,
                    };
                    conv.winograd_with(kernel, io);
                    paths.push((kernel, out));
                }
            }
            for b in 0..2 {
                let want = direct(&desc, shape, &input[b * points * ic..(b + 1) * points * ic]);
                for (i, w) in want.iter().enumerate() {
                    let got = out[b * points * oc + i] - 0.5;
                    assert!(
                        (got - w).abs() < 1e-3 * (1.0 + w.abs()),
                        "size {size} board {width}x{height}: {got} vs {w}"
                    );
                    for (kernel, path) in &paths {
                        let got = path[b * points * oc + i] - 0.5;
                        assert!(
                            (got - w).abs() < 1e-3 * (1.0 + w.abs()),
                            "{kernel:?}: {got} vs {w}"
                        );
                    }
                }
            }
        }
    }
}
