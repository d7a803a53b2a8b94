//! The element-wise functions of a forward pass, a row at a time, in the
//! kernel in force: attention's softmax and the norms' activations (Mish,
//! SiLU, ReLU); the feed-forward block's SiLU times its gate is a store of
//! its product (`gemm::Store::SiluGate`). In AVX-512, AVX2
//! and NEON they run 16, 8 and 4 values at once on a polynomial scaled by
//! a power of two (`simd::Math`), always of a value at or below zero: the
//! activations on Cephes' `e^x`, the softmax on `2^x`, its exponents made
//! by one fused multiply-add; the portable kernel calls the standard
//! library a value at a time ([`activate`]).

use super::gemm::Kernel;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
use super::simd::{Math, silu};
use crate::nn::model::Activation;

/// `pub fn $name(args)`: `$generic::<register type>` in the kernel in
/// force, inside a function compiled for its instructions, or `$portable`
/// with the portable kernel.
macro_rules! by_kernel {
    ($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),*) => $generic:ident, $portable:ident) => {
        $(#[$doc])*
        pub fn $name($($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx512f")]
            unsafe fn avx512($($arg: $ty),*) {
                $generic::<std::arch::x86_64::__m512>($($arg),*)
            }
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn avx2($($arg: $ty),*) {
                $generic::<std::arch::x86_64::__m256>($($arg),*)
            }
            match Kernel::in_force() {
                // SAFETY (both): the kernel in force is one the processor
                // runs, so it has the instructions each is compiled for.
                #[cfg(target_arch = "x86_64")]
                Kernel::Avx512 => unsafe { avx512($($arg),*) },
                #[cfg(target_arch = "x86_64")]
                Kernel::Avx2 => unsafe { avx2($($arg),*) },
                #[cfg(target_arch = "aarch64")]
                Kernel::Neon => $generic::<std::arch::aarch64::float32x4_t>($($arg),*),
                Kernel::Portable => $portable($($arg),*),
            }
        }
    };
}

by_kernel! {
    /// `row = act(row)`, in place.
    fn activate_row(act: Activation, row: &mut [f32]) => activate_lanes, activate_portable
}

by_kernel! {
    /// Rotates each pair of channels `(x[2p], x[2p + 1])` of the heads
    /// of `rows` rows of `x` (`stride` apart), in place: in each head (the
    /// first `heads.width` values from `h · heads.pitch`, for `h` below
    /// `heads.count`) channel `j` of row r becomes `x[j] · cos[j] + x[j ^
    /// 1] · sin[j]`, the tables' row r (`heads.width` values) (the rotary
    /// embedding, its tables given for both channels of a pair, the sine
    /// negated for the first), a multiplication and an addition each, as
    /// a value at a time. A row's heads are turned one after another, so
    /// that the row and its tables' row are read once.
    fn rotate_pairs(x: &mut [f32], stride: usize, rows: usize, heads: RotatedHeads, cos: &[f32], sin: &[f32]) => rotate_rows_lanes, rotate_rows_portable
}

/// Where the heads [`rotate_pairs`] turns lie in a row: `count` heads
/// `pitch` values apart, the first `width` values of each turned.
#[derive(Clone, Copy, Debug)]
pub struct RotatedHeads {
    pub width: usize,
    pub count: usize,
    pub pitch: usize,
}

fn rotate_rows_portable(
    x: &mut [f32],
    stride: usize,
    rows: usize,
    heads: RotatedHeads,
    cos: &[f32],
    sin: &[f32],
) {
    each_rotated_row(x, stride, rows, heads, cos, sin, rotate_portable);
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
fn rotate_rows_lanes<V: Math>(
    x: &mut [f32],
    stride: usize,
    rows: usize,
    heads: RotatedHeads,
    cos: &[f32],
    sin: &[f32],
) {
    each_rotated_row(x, stride, rows, heads, cos, sin, rotate_lanes::<V>);
}

/// `rotate(head, cos, sin)` on each head of each of `rows` rows of `x`
/// (`stride` apart), with the tables' row of the same number.
#[inline(always)]
fn each_rotated_row(
    x: &mut [f32],
    stride: usize,
    rows: usize,
    heads: RotatedHeads,
    cos: &[f32],
    sin: &[f32],
    rotate: impl Fn(&mut [f32], &[f32], &[f32]),
) {
    let width = heads.width;
    for r in 0..rows {
        let at = r * width;
        let (cos, sin) = (&cos[at..at + width], &sin[at..at + width]);
        for h in 0..heads.count {
            rotate(&mut x[r * stride + h * heads.pitch..][..width], cos, sin);
        }
    }
}

fn rotate_portable(x: &mut [f32], cos: &[f32], sin: &[f32]) {
    for ((pair, cos), sin) in x
        .chunks_exact_mut(2)
        .zip(cos.chunks_exact(2))
        .zip(sin.chunks_exact(2))
    {
        let (x0, x1) = (pair[0], pair[1]);
        pair[0] = x0 * cos[0] + x1 * sin[0];
        pair[1] = x1 * cos[1] + x0 * sin[1];
    }
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
fn rotate_lanes<V: Math>(x: &mut [f32], cos: &[f32], sin: &[f32]) {
    let whole = x.len() - x.len() % V::WIDTH;
    let (cos, sin) = (&cos[..x.len()], &sin[..x.len()]);
    for at in (0..whole).step_by(V::WIDTH) {
        let v = V::load(&x[at..]);
        let turned = v
            .mul(V::load(&cos[at..]))
            .add(v.swap_pairs().mul(V::load(&sin[at..])));
        turned.store(&mut x[at..]);
    }
    rotate_portable(&mut x[whole..], &cos[whole..], &sin[whole..]);
}

fn activate_portable(act: Activation, row: &mut [f32]) {
    for x in row.iter_mut() {
        *x = activate(act, *x);
    }
}

/// A function of one value, for [`map_in_place`] (a type, not a closure,
/// so that it is compiled inside the caller's instructions).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
trait Unary {
    fn apply<V: Math>(x: V) -> V;
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
struct Relu;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
struct Silu;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
struct Mish;

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
impl Unary for Relu {
    #[inline(always)]
    fn apply<V: Math>(x: V) -> V {
        x.max(V::zero())
    }
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
impl Unary for Silu {
    #[inline(always)]
    fn apply<V: Math>(x: V) -> V {
        silu(x)
    }
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
impl Unary for Mish {
    #[inline(always)]
    fn apply<V: Math>(x: V) -> V {
        mish(x)
    }
}

/// `row = F(row)`, `V::WIDTH` values at a time, the last few through a
/// buffer padded with zeros.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
fn map_in_place<V: Math, F: Unary>(row: &mut [f32]) {
    let (chunks, rest) = row.split_at_mut(row.len() - row.len() % V::WIDTH);
    for chunk in chunks.chunks_exact_mut(V::WIDTH) {
        F::apply(V::load(chunk)).store(chunk);
    }
    if !rest.is_empty() {
        let mut lanes = [0.0f32; 16];
        lanes[..rest.len()].copy_from_slice(rest);
        F::apply(V::load(&lanes)).store(&mut lanes);
        rest.copy_from_slice(&lanes[..rest.len()]);
    }
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
fn activate_lanes<V: Math>(act: Activation, row: &mut [f32]) {
    match act {
        Activation::Identity => {}
        Activation::Relu => map_in_place::<V, Relu>(row),
        Activation::Silu => map_in_place::<V, Silu>(row),
        Activation::Mish => map_in_place::<V, Mish>(row),
    }
}

/// `x · tanh(ln(1 + eˣ))`, from `t = e^−|x|` (at most 1). With `e = eˣ`,
/// `tanh(ln(1 + e)) = n / (n + 2)`, `n = e (e + 2)`: below zero `e = t`;
/// at or above it, dividing through by `e²`, `(1 + 2t) / (1 + 2t + 2t²)`.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
fn mish<V: Math>(x: V) -> V {
    let t = V::zero().sub(x.abs()).exp_nonpositive();
    let two = V::splat(2.0);
    let n = t.mul(t.add(two));
    let above = V::splat(1.0).add(two.mul(t));
    let numerator = x.where_negative(n, above);
    let denominator = x.where_negative(n.add(two), above.add(two.mul(t).mul(t)));
    x.mul(numerator).div(denominator)
}

/// A softmax's weights before their division by the sum: `row =
/// exp(row · scale − max(row · scale))`, in place; returns their sum (the
/// caller divides what it makes of them: attention, its 32 outputs a
/// point rather than the 361 weights). In the kernel in force: 16
/// values at once in AVX-512, 8 in AVX2, 4 in NEON on ARM64 (as powers of
/// two, `simd::Math::exp2_nonpositive`, within 2.2·10⁻⁷ of `exp2`), one
/// at a time in the portable kernel.
pub fn softmax_weights(row: &mut [f32], scale: f32) -> f32 {
    match Kernel::in_force() {
        // SAFETY (both): the kernel in force is one the processor runs.
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 => unsafe { softmax_avx512(row, scale) },
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 => unsafe { softmax_avx2(row, scale) },
        #[cfg(target_arch = "aarch64")]
        Kernel::Neon => softmax_neon(row, scale),
        Kernel::Portable => softmax_scalar(row, scale),
    }
}

/// [`softmax_weights`] a value at a time.
fn softmax_scalar(row: &mut [f32], scale: f32) -> f32 {
    let max = row.iter().fold(f32::NEG_INFINITY, |m, &x| m.max(x * scale));
    let mut sum = 0.0;
    for r in row.iter_mut() {
        *r = (*r * scale - max).exp();
        sum += *r;
    }
    sum
}

/// [`softmax_weights`] in AVX-512: sixteen values at once, the row's last
/// few through masked loads and stores.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn softmax_avx512(row: &mut [f32], scale: f32) -> f32 {
    use std::arch::x86_64::*;
    let n = row.len();
    let p = row.as_mut_ptr();
    // The lanes of the chunk at `i`: all 16, or those left at the end.
    let mask = |i: usize| -> __mmask16 {
        let left = n - i;
        if left >= 16 {
            0xffff
        } else {
            (1u32 << left) as u16 - 1
        }
    };
    let (s, top) = exponent_of(row_max::<__m512>(row), scale);
    let (s, top) = (_mm512_set1_ps(s), _mm512_set1_ps(top));
    let mut sum = _mm512_setzero_ps();
    let mut i = 0;
    // SAFETY (each block): every load and store is masked to the row.
    while i < n {
        let m = mask(i);
        let x = unsafe { _mm512_maskz_loadu_ps(m, p.add(i)) };
        let e = _mm512_fmsub_ps(x, s, top).exp2_nonpositive();
        sum = _mm512_mask_add_ps(sum, m, sum, e);
        unsafe { _mm512_mask_storeu_ps(p.add(i), m, e) };
        i += 16;
    }
    _mm512_reduce_add_ps(sum)
}

/// The largest of `row`'s values, `V::WIDTH` at a time in four running
/// maxima (one would wait on each comparison's result).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
fn row_max<V: Math>(row: &[f32]) -> f32 {
    let mut tops = [V::splat(f32::NEG_INFINITY); 4];
    let fours = row.chunks_exact(4 * V::WIDTH);
    let rest = fours.remainder();
    for four in fours {
        for (i, top) in tops.iter_mut().enumerate() {
            *top = top.max(V::load(&four[i * V::WIDTH..]));
        }
    }
    let ones = rest.chunks_exact(V::WIDTH);
    let last = ones.remainder();
    for one in ones {
        tops[0] = tops[0].max(V::load(one));
    }
    let top = tops[0].max(tops[1]).max(tops[2].max(tops[3]));
    last.iter().fold(top.max_lane(), |m, &x| m.max(x))
}

/// The vector kernels' weights as powers of two: `e^((x − max) · scale) =
/// 2^(x · s − top)` with `s = scale · log₂ e`, `top = max · s` (`scale`
/// above zero, as attention's `1 / √d`), so that one fused multiply-add
/// makes each exponent.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
fn exponent_of(max: f32, scale: f32) -> (f32, f32) {
    debug_assert!(scale > 0.0, "a softmax's scale {scale}");
    let s = scale * std::f32::consts::LOG2_E;
    (s, max * s)
}

/// [`softmax_weights`] in AVX2: eight values at once, the row's last few one at a
/// time with the same polynomial.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn softmax_avx2(row: &mut [f32], scale: f32) -> f32 {
    use std::arch::x86_64::*;
    let (scale, top) = exponent_of(row_max::<__m256>(row), scale);
    let (chunks, rest) = row.as_chunks_mut::<8>();
    let (s, top_lanes) = (_mm256_set1_ps(scale), _mm256_set1_ps(top));
    // Two running sums, alternate chunks each, so that no addition waits
    // on the one before.
    let mut totals = [_mm256_setzero_ps(); 2];
    let weigh = |chunk: &mut [f32; 8], total: &mut __m256| {
        // SAFETY: the loads and stores are of eight-value arrays.
        unsafe {
            let x = _mm256_loadu_ps(chunk.as_ptr());
            let e = _mm256_fmsub_ps(x, s, top_lanes).exp2_nonpositive();
            *total = _mm256_add_ps(*total, e);
            _mm256_storeu_ps(chunk.as_mut_ptr(), e);
        }
    };
    let mut pairs = chunks.chunks_exact_mut(2);
    for pair in &mut pairs {
        let [first, second] = pair else {
            unreachable!()
        };
        let [t0, t1] = &mut totals;
        weigh(first, t0);
        weigh(second, t1);
    }
    for chunk in pairs.into_remainder() {
        weigh(chunk, &mut totals[0]);
    }
    let mut lanes = [0.0f32; 8];
    // SAFETY: an eight-value array.
    unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), _mm256_add_ps(totals[0], totals[1])) };
    let mut sum: f32 = lanes.iter().sum();
    for r in rest.iter_mut() {
        let e = _mm256_set1_ps(r.mul_add(scale, -top)).exp2_nonpositive();
        *r = _mm256_cvtss_f32(e);
        sum += *r;
    }
    sum
}

/// [`softmax_weights`] in NEON: four values at once, the row's last few one at a
/// time with the same polynomial.
#[cfg(target_arch = "aarch64")]
fn softmax_neon(row: &mut [f32], scale: f32) -> f32 {
    use std::arch::aarch64::*;
    let (scale, top) = exponent_of(row_max::<float32x4_t>(row), scale);
    let (chunks, rest) = row.as_chunks_mut::<4>();
    let mut sum = 0.0;
    // SAFETY (each block): NEON is part of every ARM64 processor; the
    // loads and stores are of four-value arrays.
    unsafe {
        let (s, minus_top) = (vdupq_n_f32(scale), vdupq_n_f32(-top));
        let mut total = vdupq_n_f32(0.0);
        for chunk in chunks.iter_mut() {
            let x = vld1q_f32(chunk.as_ptr());
            let e = vfmaq_f32(minus_top, x, s).exp2_nonpositive();
            total = vaddq_f32(total, e);
            vst1q_f32(chunk.as_mut_ptr(), e);
        }
        sum += vaddvq_f32(total);
        for r in rest.iter_mut() {
            let e = vgetq_lane_f32::<0>(vdupq_n_f32(r.mul_add(scale, -top)).exp2_nonpositive());
            *r = e;
            sum += e;
        }
    }
    sum
}

/// An activation of one value, through the standard library: the
/// reference the vector kernels are held to, and the portable kernel.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_softmax_weights_follow_exp_and_their_sum_is_theirs() {
        for n in [1, 5, 16, 17, 361] {
            let row: Vec<f32> = (0..n)
                .map(|i| ((i * 37 % 101) as f32 - 50.0) / 7.0)
                .collect();
            let max = row.iter().fold(f32::NEG_INFINITY, |m, &x| m.max(x * 0.5));
            let exact: Vec<f64> = row
                .iter()
                .map(|&x| f64::from(x * 0.5 - max).exp())
                .collect();
            let sum: f64 = exact.iter().sum();
            // Each kernel this processor runs.
            for kernel in crate::nn::cpu::gemm::Kernel::available() {
                let mut fast = row.clone();
                let total = kernel.run_with(|| softmax_weights(&mut fast, 0.5));
                let added: f64 = fast.iter().map(|&f| f64::from(f)).sum();
                assert!((f64::from(total) - added).abs() < 1e-6 * added);
                for (f, e) in fast.iter().zip(&exact) {
                    assert!(
                        (f64::from(*f / total) - e / sum).abs() < 1e-6,
                        "{} {n}: {f} vs {}",
                        kernel.name(),
                        e / sum
                    );
                }
            }
        }
    }

    /// Values from −100 to 100, zeros of both signs, and lengths that
    /// leave every count of last few values.
    fn values(n: usize) -> Vec<f32> {
        (0..n)
            .map(|i| match i % 23 {
                0 => 0.0,
                1 => -0.0,
                _ => {
                    ((i * 7919 % 2001) as f32 - 1000.0) / 10.0 * if i % 3 == 0 { 0.05 } else { 1.0 }
                }
            })
            .collect()
    }

    fn close(fast: f32, exact: f32) -> bool {
        (fast - exact).abs() <= 2e-6 * exact.abs() + 1e-30
    }

    #[test]
    fn the_activations_follow_the_library_in_every_kernel() {
        let mish = |x: f64| x * (x.exp().ln_1p()).tanh();
        let silu = |x: f64| x / (1.0 + (-x).exp());
        let relu = |x: f64| x.max(0.0);
        let exact: [(Activation, &dyn Fn(f64) -> f64); 4] = [
            (Activation::Mish, &mish),
            (Activation::Silu, &silu),
            (Activation::Relu, &relu),
            (Activation::Identity, &|x| x),
        ];
        for n in [1, 7, 9, 16, 31, 384] {
            let row = values(n);
            for kernel in Kernel::available() {
                for (act, f) in exact {
                    let mut fast = row.clone();
                    kernel.run_with(|| activate_row(act, &mut fast));
                    for (&y, &x) in fast.iter().zip(&row) {
                        let e = f(f64::from(x)) as f32;
                        assert!(close(y, e), "{} {act:?}({x}): {y} vs {e}", kernel.name());
                    }
                }
            }
        }
    }
}
