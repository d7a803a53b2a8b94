//! The computing layers of a network, over activations laid out point by
//! point with the channels innermost (`[board][point][channel]`, KataGo's
//! NHWC), so that every layer's inner loop runs along contiguous channels.
//!
//! 3×3 and 5×5 convolutions are Winograd convolutions with 6×6 input tiles
//! (F(4×4, 3×3) and F(2×2, 5×5), KataGo's CPU choice, with its transforms):
//! each tile is transformed, 36 matrix products (tiles × in channels times
//! in × out) combine the channels, and the products are transformed back; a
//! 3×3 convolution then takes about a quarter of the multiplications of a
//! direct one. 1×1 convolutions are one matrix product; other sizes an
//! im2col and a product. The products run on [`gemm`], a register-blocked
//! kernel over weights packed once at load time, in AVX-512, or AVX2 and
//! FMA, where the processor has them ([`Kernel`], chosen at run time); the
//! tile transforms run on 16 or 8 channels at once, one vector register
//! (`Lanes`). Batch norms are a scale and a bias per channel, applied with
//! the activation in one pass; pooling is KataGo's.
//!
//! Every buffer is the caller's: nothing here allocates.

use super::model::{Activation, BatchNormDesc, ConvDesc, MatMulDesc};

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
    /// Points across the batch: the rows of an activation.
    pub fn rows(self) -> usize {
        self.points() * self.batch
    }
}

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
        let per_side = shape.side.div_ceil(self.out_tile());
        per_side * per_side * shape.batch
    }

    /// Scratch values `apply` needs for `shape`.
    /// Multiply-adds of a direct convolution over `points` points (the
    /// arithmetic the layer stands for, whatever algorithm computes it).
    pub fn macs(&self, points: usize) -> f64 {
        (self.in_channels * self.out_channels * self.size * self.size * points) as f64
    }

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
        self.winograd_with(Kernel::detected(), io);
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
        let n = shape.side;
        let points = shape.points();
        let out_tile = self.out_tile();
        let offset = self.size / 2;
        let per_side = n.div_ceil(out_tile);
        let tiles = self.tiles(shape);
        let (ic_n, oc_n) = (self.in_channels, self.out_channels);
        let (transformed_in, rest) = scratch.split_at_mut(TILE_POINTS * tiles * ic_n);
        let transformed_out = &mut rest[..TILE_POINTS * tiles * oc_n];
        // The point (x, y) of board b, or None off the board.
        let at = |b: usize, y: isize, x: isize| {
            (y >= 0 && x >= 0 && y < n as isize && x < n as isize)
                .then(|| b * points + y as usize * n + x as usize)
        };

        // Input tiles, transformed: transformed_in[t][tile][ic].
        for b in 0..shape.batch {
            for ty in 0..per_side {
                for tx in 0..per_side {
                    let tile = (b * per_side + ty) * per_side + tx;
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
            for ty in 0..per_side {
                for tx in 0..per_side {
                    let tile = (b * per_side + ty) * per_side + tx;
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
        let rows: [[V; 4]; TILE] = std::array::from_fn(|y| {
            output_lanes(
                std::array::from_fn(|x| V::load(&transformed_out[place.at(y * TILE + x, oc)..])),
                self.size,
            )
        });
        for x in 0..out_tile {
            let col = output_lanes(std::array::from_fn(|y| rows[y][x]), self.size);
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
        let n = shape.side as isize;
        let r = (self.size / 2) as isize;
        let ic_n = self.in_channels;
        let k = self.size * self.size * ic_n;
        for b in 0..shape.batch {
            for y in 0..n {
                for x in 0..n {
                    let row = (b * shape.points()) + (y * n + x) as usize;
                    let dst = &mut col[row * k..(row + 1) * k];
                    for ky in 0..self.size as isize {
                        for kx in 0..self.size as isize {
                            let (sy, sx) = (y + ky - r, x + kx - r);
                            let d = &mut dst[((ky * self.size as isize + kx) as usize) * ic_n..]
                                [..ic_n];
                            if sy < 0 || sx < 0 || sy >= n || sx >= n {
                                d.fill(0.0);
                            } else {
                                let p = b * shape.points() + (sy * n + sx) as usize;
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
    let rows: [[V; TILE]; TILE] = std::array::from_fn(|y| {
        input_lanes(std::array::from_fn(|x| match src[y][x] {
            Some(p) => V::load(&input[p * place.channels + ic..]),
            None => V::zero(),
        }))
    });
    // Columns read one value from each row.
    for x in 0..TILE {
        let col = input_lanes(std::array::from_fn(|y| rows[y][x]));
        for (y, v) in col.into_iter().enumerate() {
            v.store(&mut transformed_in[place.at(y * TILE + x, ic)..]);
        }
    }
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

/// Channel values the Winograd transforms work on at once: one value, eight
/// in an array (any processor), or eight in an AVX register.
trait Lanes: Copy {
    const WIDTH: usize;
    fn zero() -> Self;
    /// The first `WIDTH` values of `from`.
    fn load(from: &[f32]) -> Self;
    /// Into the first `WIDTH` values of `to`.
    fn store(self, to: &mut [f32]);
    fn add(self, other: Self) -> Self;
    fn sub(self, other: Self) -> Self;
    /// `self · k + other`.
    fn mul_add(self, k: f32, other: Self) -> Self;
}

impl Lanes for f32 {
    const WIDTH: usize = 1;
    fn zero() -> f32 {
        0.0
    }
    fn load(from: &[f32]) -> f32 {
        from[0]
    }
    fn store(self, to: &mut [f32]) {
        to[0] = self;
    }
    fn add(self, other: f32) -> f32 {
        self + other
    }
    fn sub(self, other: f32) -> f32 {
        self - other
    }
    fn mul_add(self, k: f32, other: f32) -> f32 {
        self * k + other
    }
}

impl Lanes for [f32; 8] {
    const WIDTH: usize = 8;
    fn zero() -> [f32; 8] {
        [0.0; 8]
    }
    fn load(from: &[f32]) -> [f32; 8] {
        from[..8].try_into().expect("eight values")
    }
    fn store(self, to: &mut [f32]) {
        to[..8].copy_from_slice(&self);
    }
    fn add(self, other: [f32; 8]) -> [f32; 8] {
        std::array::from_fn(|l| self[l] + other[l])
    }
    fn sub(self, other: [f32; 8]) -> [f32; 8] {
        std::array::from_fn(|l| self[l] - other[l])
    }
    fn mul_add(self, k: f32, other: [f32; 8]) -> [f32; 8] {
        std::array::from_fn(|l| self[l] * k + other[l])
    }
}

/// `Lanes` for a vector register type, from its intrinsics.
#[cfg(target_arch = "x86_64")]
macro_rules! register_lanes {
    ($ty:ident, $width:literal, $zero:ident, $load:ident, $store:ident, $add:ident, $sub:ident, $fmadd:ident, $set1:ident) => {
        // SAFETY (every block below): a register of this type exists only
        // where the Winograd path or the product's kernel for it was chosen
        // after the processor's features were checked (`winograd_with`,
        // `gemm_with`), so the instructions are there; the loads and stores go through slices checked to hold
        // `$width` values.
        impl Lanes for std::arch::x86_64::$ty {
            const WIDTH: usize = $width;
            #[inline(always)]
            fn zero() -> Self {
                unsafe { std::arch::x86_64::$zero() }
            }
            #[inline(always)]
            fn load(from: &[f32]) -> Self {
                let from = &from[..$width];
                unsafe { std::arch::x86_64::$load(from.as_ptr()) }
            }
            #[inline(always)]
            fn store(self, to: &mut [f32]) {
                let to = &mut to[..$width];
                unsafe { std::arch::x86_64::$store(to.as_mut_ptr(), self) }
            }
            #[inline(always)]
            fn add(self, other: Self) -> Self {
                unsafe { std::arch::x86_64::$add(self, other) }
            }
            #[inline(always)]
            fn sub(self, other: Self) -> Self {
                unsafe { std::arch::x86_64::$sub(self, other) }
            }
            #[inline(always)]
            fn mul_add(self, k: f32, other: Self) -> Self {
                unsafe { std::arch::x86_64::$fmadd(self, std::arch::x86_64::$set1(k), other) }
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
register_lanes!(
    __m256,
    8,
    _mm256_setzero_ps,
    _mm256_loadu_ps,
    _mm256_storeu_ps,
    _mm256_add_ps,
    _mm256_sub_ps,
    _mm256_fmadd_ps,
    _mm256_set1_ps
);
#[cfg(target_arch = "x86_64")]
register_lanes!(
    __m512,
    16,
    _mm512_setzero_ps,
    _mm512_loadu_ps,
    _mm512_storeu_ps,
    _mm512_add_ps,
    _mm512_sub_ps,
    _mm512_fmadd_ps,
    _mm512_set1_ps
);

/// Columns of a kernel block (the packed panels' width).
const NR: usize = 16;
/// The most rows a kernel block has (AVX-512's).
const MR_MAX: usize = 14;

/// The product kernels, each for the instructions it is compiled with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// Plain Rust (any processor): blocks of 6×16.
    Portable,
    /// AVX2 and FMA: 6×16 blocks in 12 of its 16 registers.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// AVX-512: 14×16 blocks, a 16-float register a row, 14 of its 32.
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl Kernel {
    /// From the slowest to the fastest.
    const ALL: &[Kernel] = &[
        Kernel::Portable,
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2,
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512,
    ];

    /// Whether this processor has the instructions the kernel is compiled
    /// for (detected once, then cached by the standard library).
    fn runs_here(self) -> bool {
        match self {
            Kernel::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => {
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
            }
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => std::arch::is_x86_feature_detected!("avx512f"),
        }
    }

    /// The fastest kernel this processor runs.
    pub fn detected() -> Kernel {
        Self::available()
            .last()
            .expect("the portable kernel runs anywhere")
    }

    /// Every kernel this processor runs, from the slowest to the fastest.
    pub fn available() -> impl DoubleEndedIterator<Item = Kernel> {
        Self::ALL.iter().copied().filter(|k| k.runs_here())
    }

    /// Its name, as `bench` prints it.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Portable => "portable",
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => "avx2",
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => "avx512",
        }
    }

    /// Single-precision operations a core issues a cycle at most with this
    /// kernel's instructions: two fused multiply-adds a cycle over 16
    /// lanes (AVX-512) or 8 (AVX2), the two counted as two operations;
    /// the portable kernel's code as the compiler vectorizes it, taken as
    /// SSE's 4 lanes.
    pub fn peak_flops_per_cycle(self) -> f64 {
        match self {
            Kernel::Portable => 16.0,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => 32.0,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => 64.0,
        }
    }

    /// Rows of its blocks.
    fn rows(self) -> usize {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => MR_MAX,
            _ => 6,
        }
    }
}

/// A constant right-hand matrix (`k × n`, the weights) packed for [`gemm`]:
/// panels of 16 columns, each stored row after row (zero past column `n`),
/// so that the kernel reads it straight through.
#[derive(Default)]
pub struct Packed {
    k: usize,
    n: usize,
    panels: Vec<f32>,
}

impl Packed {
    /// Packs the row-major `k × n` matrix `b`.
    pub fn new(k: usize, n: usize, b: &[f32]) -> Packed {
        let count = n.div_ceil(NR);
        let mut panels = vec![0.0; count * k * NR];
        for p in 0..count {
            for kk in 0..k {
                for j in 0..NR.min(n - p * NR) {
                    panels[(p * k + kk) * NR + j] = b[kk * n + p * NR + j];
                }
            }
        }
        Packed { k, n, panels }
    }

    /// Packs the `k × n` matrix whose element `(row, column)` is
    /// `value(row, column)` into this one, reusing its memory (a product
    /// with a matrix known only while evaluating: attention's keys and
    /// values).
    pub fn refill(&mut self, k: usize, n: usize, value: impl Fn(usize, usize) -> f32) {
        let count = n.div_ceil(NR);
        self.k = k;
        self.n = n;
        self.panels.clear();
        self.panels.resize(count * k * NR, 0.0);
        for p in 0..count {
            for kk in 0..k {
                let row = &mut self.panels[(p * k + kk) * NR..][..NR];
                for (j, slot) in row.iter_mut().enumerate().take(NR.min(n - p * NR)) {
                    *slot = value(kk, p * NR + j);
                }
            }
        }
    }

    fn panel(&self, p: usize) -> &[f32] {
        &self.panels[p * self.k * NR..(p + 1) * self.k * NR]
    }
}

/// `c = a · b` (or `c += a · b`) for a row-major `m × k` matrix `a` and a
/// packed `k × n` matrix `b`, into the row-major `m × n` matrix `c`: blocks
/// of `c` (up to 14×16) kept in registers while `k` runs, with the fastest
/// kernel the processor has.
pub fn gemm(m: usize, a: &[f32], b: &Packed, c: &mut [f32], accumulate: bool) {
    gemm_with(Kernel::detected(), m, a, b, c, accumulate);
}

/// [`gemm`] with the kernel given (one the processor runs).
pub fn gemm_with(kernel: Kernel, m: usize, a: &[f32], b: &Packed, c: &mut [f32], accumulate: bool) {
    let (k, n) = (b.k, b.n);
    assert!(kernel.runs_here(), "{kernel:?} on this processor");
    assert!(a.len() >= m * k && c.len() >= m * n);
    // The products of a block of a panel cut short by `n`; whole panels'
    // go straight into `c`.
    let mut acc = [[0.0f32; NR]; MR_MAX];
    // The rows in as few blocks as the kernel allows, shared out evenly
    // (25 rows as five blocks of five with 6-row blocks, not four of six
    // and one of one, which would leave the kernel waiting on its loads).
    let blocks = m.div_ceil(kernel.rows());
    for p in 0..n.div_ceil(NR) {
        let panel = b.panel(p);
        let j0 = p * NR;
        let cols = NR.min(n - j0);
        for nth in 0..blocks {
            let i0 = nth * m / blocks;
            let rows = (nth + 1) * m / blocks - i0;
            let a_rows = &a[i0 * k..(i0 + rows) * k];
            if cols == NR {
                let out = Out::Rows {
                    c: &mut c[i0 * n + j0..(i0 + rows - 1) * n + j0 + NR],
                    stride: n,
                    accumulate,
                };
                block(kernel, a_rows, k, rows, panel, out);
                continue;
            }
            block(kernel, a_rows, k, rows, panel, Out::Buffer(&mut acc));
            for (r, acc_row) in acc.iter().enumerate().take(rows) {
                let dst = &mut c[(i0 + r) * n + j0..(i0 + r) * n + j0 + cols];
                store_row(dst, &acc_row[..cols], accumulate);
            }
        }
    }
}

/// Where a block's products go.
enum Out<'a> {
    /// A buffer, row by row.
    Buffer(&'a mut [[f32; NR]; MR_MAX]),
    /// The output matrix: the block's row r at `c[r · stride..][..NR]`,
    /// written, or added to with `accumulate`.
    Rows {
        c: &'a mut [f32],
        stride: usize,
        accumulate: bool,
    },
}

impl Out<'_> {
    /// Puts the block's first `rows` rows of `products` where they go.
    fn put(self, products: &[[f32; NR]; MR_MAX], rows: usize) {
        match self {
            Out::Buffer(buffer) => buffer[..rows].copy_from_slice(&products[..rows]),
            Out::Rows {
                c,
                stride,
                accumulate,
            } => {
                for (r, row) in products.iter().enumerate().take(rows) {
                    store_row(&mut c[r * stride..r * stride + NR], row, accumulate);
                }
            }
        }
    }
}

/// Puts a kernel's rows of products, each in `W` registers of `L` (16
/// values), where they go.
#[inline(always)]
fn put_registers<L: Lanes, const W: usize>(rows: &[[L; W]], out: Out) {
    match out {
        Out::Buffer(buffer) => {
            for (registers, row) in rows.iter().zip(buffer.iter_mut()) {
                for (i, &v) in registers.iter().enumerate() {
                    v.store(&mut row[i * L::WIDTH..]);
                }
            }
        }
        Out::Rows {
            c,
            stride,
            accumulate,
        } => {
            for (r, registers) in rows.iter().enumerate() {
                let row = &mut c[r * stride..r * stride + NR];
                for (i, &v) in registers.iter().enumerate() {
                    let at = &mut row[i * L::WIDTH..];
                    let v = if accumulate { v.add(L::load(at)) } else { v };
                    v.store(at);
                }
            }
        }
    }
}

/// `dst = row`, or `dst += row` with `accumulate`.
#[inline(always)]
fn store_row(dst: &mut [f32], row: &[f32], accumulate: bool) {
    if accumulate {
        for (d, &v) in dst.iter_mut().zip(row) {
            *d += v;
        }
    } else {
        dst.copy_from_slice(row);
    }
}

/// Calls `$kernel::<R>` for the block's `$rows` rows, R from 1 to the arms given.
macro_rules! by_rows {
    ($rows:expr, $kernel:ident, $args:tt, [$($r:literal)*]) => {
        match $rows {
            $($r => $kernel::<$r> $args,)*
            _ => unreachable!("a block has at most the kernel's rows"),
        }
    };
}

/// One block: row r of the products, `Σ_kk a[r][kk] · panel[kk]`, to
/// `out` for the `rows` rows of `a` (at most the kernel's rows).
fn block(kernel: Kernel, a: &[f32], k: usize, rows: usize, panel: &[f32], out: Out) {
    match kernel {
        // SAFETY (both): the processor runs the kernel (asserted by
        // `gemm_with`, the only caller); the lengths of `a` and `panel` are
        // checked inside.
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 => unsafe {
            by_rows!(rows, block_avx2_fma, (a, k, panel, out), [1 2 3 4 5 6])
        },
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 => unsafe {
            by_rows!(rows, block_avx512, (a, k, panel, out), [1 2 3 4 5 6 7 8 9 10 11 12 13 14])
        },
        Kernel::Portable => block_portable(a, k, rows, panel, out),
    }
}

fn block_portable(a: &[f32], k: usize, rows: usize, panel: &[f32], out: Out) {
    let mut acc = [[0.0; NR]; MR_MAX];
    for kk in 0..k {
        let b = &panel[kk * NR..(kk + 1) * NR];
        for (r, acc_row) in acc.iter_mut().enumerate().take(rows) {
            let av = a[r * k + kk];
            for (x, &bv) in acc_row.iter_mut().zip(b) {
                *x += av * bv;
            }
        }
    }
    out.put(&acc, rows);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn block_avx2_fma<const R: usize>(a: &[f32], k: usize, panel: &[f32], out: Out) {
    use std::arch::x86_64::*;
    assert!(a.len() >= R * k && panel.len() >= NR * k);
    let zero = _mm256_setzero_ps();
    let mut c = [[zero; 2]; R];
    let ap = a.as_ptr();
    let bp = panel.as_ptr();
    for kk in 0..k {
        // SAFETY: kk < k, so every offset is within the lengths asserted above.
        unsafe {
            let b0 = _mm256_loadu_ps(bp.add(kk * NR));
            let b1 = _mm256_loadu_ps(bp.add(kk * NR + 8));
            for (r, cr) in c.iter_mut().enumerate() {
                let av = _mm256_broadcast_ss(&*ap.add(r * k + kk));
                cr[0] = _mm256_fmadd_ps(av, b0, cr[0]);
                cr[1] = _mm256_fmadd_ps(av, b1, cr[1]);
            }
        }
    }
    put_registers(&c, out);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn block_avx512<const R: usize>(a: &[f32], k: usize, panel: &[f32], out: Out) {
    use std::arch::x86_64::*;
    assert!(a.len() >= R * k && panel.len() >= NR * k);
    let mut c = [[_mm512_setzero_ps()]; R];
    let ap = a.as_ptr();
    let bp = panel.as_ptr();
    for kk in 0..k {
        // SAFETY: kk < k, so every offset is within the lengths asserted above.
        unsafe {
            let b = _mm512_loadu_ps(bp.add(kk * NR));
            for (r, [cr]) in c.iter_mut().enumerate() {
                *cr = _mm512_fmadd_ps(_mm512_set1_ps(*ap.add(r * k + kk)), b, *cr);
            }
        }
    }
    put_registers(&c, out);
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
                *d = activate(self.act, x * s + b);
            }
        }
    }

    /// `apply` on `values` in place.
    pub fn apply_in_place(&self, shape: Shape, values: &mut [f32]) {
        let c = self.channels();
        for row in values[..shape.rows() * c].chunks_exact_mut(c) {
            for ((v, &s), &b) in row.iter_mut().zip(&self.scale).zip(&self.bias) {
                *v = activate(self.act, *v * s + b);
            }
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
                    *d = activate(self.act, (x + e) * s + bias);
                }
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
                    *v = activate(self.act, (*v + e) * s + bias);
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
        Activation::Silu => x / (1.0 + (-x).exp()),
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

    /// A direct convolution of one board, channels innermost, for comparison.
    fn direct(desc: &ConvDesc, side: usize, input: &[f32]) -> Vec<f32> {
        let k = desc.size_x as isize;
        let r = k / 2;
        let n = side as isize;
        let (ic_n, oc_n) = (desc.in_channels, desc.out_channels);
        let mut out = vec![0.0; oc_n * side * side];
        for oc in 0..oc_n {
            for y in 0..n {
                for x in 0..n {
                    let mut s = 0.0;
                    for ic in 0..ic_n {
                        for ky in 0..k {
                            for kx in 0..k {
                                let (sy, sx) = (y + ky - r, x + kx - r);
                                if sy < 0 || sx < 0 || sy >= n || sx >= n {
                                    continue;
                                }
                                let w = desc.weights[((oc * ic_n + ic) * k as usize + ky as usize)
                                    * k as usize
                                    + kx as usize];
                                s += w * input[(sy * n + sx) as usize * ic_n + ic];
                            }
                        }
                    }
                    out[(y * n + x) as usize * oc_n + oc] = s;
                }
            }
        }
        out
    }

    #[test]
    fn each_convolution_path_equals_a_direct_convolution_in_a_batch() {
        // 1×1 (a product), 3×3 and 5×5 (Winograd, with partial edge tiles),
        // 7×7 (im2col); 19 output channels leave a partial block in the
        // kernel, 21 and 19 channels a rest after the transforms' 8 or 16 lanes.
        for (size, side) in [(1, 5), (3, 7), (3, 19), (5, 9), (3, 2), (7, 6)] {
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
            let points = side * side;
            let shape = Shape { side, batch: 2 };
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
                let want = direct(&desc, side, &input[b * points * ic..(b + 1) * points * ic]);
                for (i, w) in want.iter().enumerate() {
                    let got = out[b * points * oc + i] - 0.5;
                    assert!(
                        (got - w).abs() < 1e-3 * (1.0 + w.abs()),
                        "size {size} side {side}: {got} vs {w}"
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

    #[test]
    fn every_kernel_multiplies_matrices_of_any_shape() {
        // Row counts from one block to several uneven ones for each kernel
        // (6 and 14 rows a block), column counts with partial panels.
        let shapes = [
            (1, 1, 1),
            (4, 3, 16),
            (7, 5, 33),
            (15, 4, 17),
            (25, 96, 96),
            (29, 7, 8),
        ];
        for kernel in Kernel::available() {
            for ((m, k, n), accumulate) in shapes.into_iter().flat_map(|s| [(s, false), (s, true)])
            {
                let a: Vec<f32> = (0..m * k).map(|i| (i % 7) as f32 - 3.0).collect();
                let b: Vec<f32> = (0..k * n).map(|i| (i % 5) as f32 - 2.0).collect();
                let mut c = vec![1.0; m * n];
                gemm_with(kernel, m, &a, &Packed::new(k, n, &b), &mut c, accumulate);
                let before = if accumulate { 1.0 } else { 0.0 };
                for i in 0..m {
                    for j in 0..n {
                        let want: f32 =
                            before + (0..k).map(|x| a[i * k + x] * b[x * n + j]).sum::<f32>();
                        assert_eq!(c[i * n + j], want, "{kernel:?} {m}×{k}×{n} {accumulate}");
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
        pool(shape, 1, &input, &mut out, Pooling::Max);
        assert_eq!(out, [3.0, 3.0 * (2.0 - 14.0) * 0.1, 6.0]);
        pool(shape, 1, &input, &mut out, Pooling::Quadratic);
        assert!((out[2] - 3.0 * (1.44 - 0.1)).abs() < 1e-5);
    }
}
