//! The vector registers the convolutions' tile transforms and the product
//! kernels' stores work on: channel values taken a lane at a time, eight at
//! once in an array (any processor), 8 and 16 at once in AVX and AVX-512
//! registers where the processor has them, or 4 in a NEON register (every
//! ARM64 processor).

/// Channel values the Winograd transforms work on at once: one value, eight
/// in an array (any processor), or eight in an AVX register.
pub(super) trait Lanes: Copy {
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

// SAFETY (every block below): NEON is part of every ARM64 processor (the
// target enables it); the loads and stores go through slices checked to
// hold four values.
#[cfg(target_arch = "aarch64")]
impl Lanes for std::arch::aarch64::float32x4_t {
    const WIDTH: usize = 4;
    #[inline(always)]
    fn zero() -> Self {
        unsafe { std::arch::aarch64::vdupq_n_f32(0.0) }
    }
    #[inline(always)]
    fn load(from: &[f32]) -> Self {
        let from = &from[..4];
        unsafe { std::arch::aarch64::vld1q_f32(from.as_ptr()) }
    }
    #[inline(always)]
    fn store(self, to: &mut [f32]) {
        let to = &mut to[..4];
        unsafe { std::arch::aarch64::vst1q_f32(to.as_mut_ptr(), self) }
    }
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        unsafe { std::arch::aarch64::vaddq_f32(self, other) }
    }
    #[inline(always)]
    fn sub(self, other: Self) -> Self {
        unsafe { std::arch::aarch64::vsubq_f32(self, other) }
    }
    #[inline(always)]
    fn mul_add(self, k: f32, other: Self) -> Self {
        unsafe { std::arch::aarch64::vfmaq_n_f32(other, self, k) }
    }
}

/// What the element-wise functions (`elementwise`) need of a vector
/// register beyond [`Lanes`]: in the registers only, the portable kernel
/// calling the standard library a value at a time.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(super) trait Math: Lanes {
    /// `x` in every lane.
    fn splat(x: f32) -> Self;
    fn mul(self, other: Self) -> Self;
    fn div(self, other: Self) -> Self;
    fn max(self, other: Self) -> Self;
    fn abs(self) -> Self;
    /// Per lane: `negative` where this lane is below zero, else `other`.
    fn where_negative(self, negative: Self, other: Self) -> Self;
    /// The lanes of each pair swapped: `(x1, x0, x3, x2, …)`.
    fn swap_pairs(self) -> Self;
    /// `e^x` of lanes at or below 0 (above −87, where it is clamped):
    /// `2^n · p(r)`, `n` the nearest integer to `x / ln 2`, `r = x − n ·
    /// ln 2` in two parts, `p` Cephes' polynomial of `expf` (within
    /// 2·10⁻⁷ of `exp`).
    fn exp_nonpositive(self) -> Self;
    /// `2^x` of lanes at or below 0 (above −125, where it is clamped):
    /// `2^n · q(r)`, `n` the nearest integer to `x` (adding and taking
    /// away [`EXP2_ROUNDING`], which leaves `n` in the sum's low bits),
    /// `r = x − n` in [−½, ½], `q` a polynomial of `2^r` (within 2.2·10⁻⁷),
    /// `n` added to `q`'s exponent: fewer steps than `exp_nonpositive`,
    /// for an exponent already multiplied by `log₂ e` (the softmax's).
    fn exp2_nonpositive(self) -> Self;
    /// The largest lane.
    fn max_lane(self) -> f32;
    /// Of a row of 16 values (`row`, in as many registers as they take),
    /// each times `scale`, `SiLU(first eight) · last eight` into `to[..8]`:
    /// a SwiGLU's hidden and gate values as a product's block holds them.
    fn store_silu_gate(row: &[Self], scale: f32, to: &mut [f32]);
}

/// `x · σ(x)`, from `t = e^−|x|` (at most 1): `x / (1 + t)` where `x ≥ 0`,
/// `x · t / (1 + t)` below.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
pub(super) fn silu<V: Math>(x: V) -> V {
    let t = V::zero().sub(x.abs()).exp_nonpositive();
    let over = V::splat(1.0).add(t);
    x.where_negative(x.mul(t), x).div(over)
}

/// ln 2 in two parts, for `r = x − n · ln 2` exact to single precision.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
const EXP_LN2_HIGH: f32 = 0.693_359_4;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
const EXP_LN2_LOW: f32 = -2.121_944_4e-4;
/// Cephes' polynomial of `expf` on `r`, highest power first: `exp(r) ≈
/// 1 + r + r² · p(r)`.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
const EXP_POLYNOMIAL: [f32; 6] = [
    1.987_569_2e-4,
    1.398_199_9e-3,
    8.333_452e-3,
    4.166_579_6e-2,
    1.666_666_5e-1,
    0.5,
];

/// `1.5 · 2²³`: a float in [2²³, 2²⁴), where floats are the integers, so
/// that adding it to `x` (|x| < 2²²) rounds `x` to the nearest one and
/// leaves it in the sum's low bits.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
const EXP2_ROUNDING: f32 = 12_582_912.0;
/// `2^r ≈ q(r)` on [−½, ½], lowest power first: a least-relative-error
/// fit of degree 5 (its error in single precision at most 2.2·10⁻⁷).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
const EXP2_POLYNOMIAL: [f32; 6] = [
    1.000_000_1,
    0.693_146_94,
    0.240_221_2,
    0.055_507_13,
    0.009_675_541,
    0.001_327_647_1,
];

// SAFETY (every block below): an AVX register is worked on only inside a
// function compiled for AVX2 and FMA and called where the kernel in force
// is AVX2 or AVX-512, which the processor was checked to run.
#[cfg(target_arch = "x86_64")]
impl Math for std::arch::x86_64::__m256 {
    #[inline(always)]
    fn splat(x: f32) -> Self {
        unsafe { std::arch::x86_64::_mm256_set1_ps(x) }
    }
    #[inline(always)]
    fn mul(self, other: Self) -> Self {
        unsafe { std::arch::x86_64::_mm256_mul_ps(self, other) }
    }
    #[inline(always)]
    fn div(self, other: Self) -> Self {
        unsafe { std::arch::x86_64::_mm256_div_ps(self, other) }
    }
    #[inline(always)]
    fn max(self, other: Self) -> Self {
        unsafe { std::arch::x86_64::_mm256_max_ps(self, other) }
    }
    #[inline(always)]
    fn abs(self) -> Self {
        use std::arch::x86_64::*;
        unsafe { _mm256_andnot_ps(_mm256_set1_ps(-0.0), self) }
    }
    #[inline(always)]
    fn swap_pairs(self) -> Self {
        unsafe { std::arch::x86_64::_mm256_permute_ps::<0b10_11_00_01>(self) }
    }
    #[inline(always)]
    fn where_negative(self, negative: Self, other: Self) -> Self {
        use std::arch::x86_64::*;
        unsafe {
            _mm256_blendv_ps(
                other,
                negative,
                _mm256_cmp_ps::<_CMP_LT_OQ>(self, _mm256_setzero_ps()),
            )
        }
    }
    #[inline(always)]
    fn exp_nonpositive(self) -> Self {
        use std::arch::x86_64::*;
        unsafe {
            let x = _mm256_max_ps(self, _mm256_set1_ps(-87.0));
            let n = _mm256_round_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(
                _mm256_mul_ps(x, _mm256_set1_ps(std::f32::consts::LOG2_E)),
            );
            let r = _mm256_fnmadd_ps(n, _mm256_set1_ps(EXP_LN2_HIGH), x);
            let r = _mm256_fnmadd_ps(n, _mm256_set1_ps(EXP_LN2_LOW), r);
            let mut y = _mm256_set1_ps(EXP_POLYNOMIAL[0]);
            for c in &EXP_POLYNOMIAL[1..] {
                y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(*c));
            }
            let y = _mm256_fmadd_ps(
                y,
                _mm256_mul_ps(r, r),
                _mm256_add_ps(r, _mm256_set1_ps(1.0)),
            );
            let power = _mm256_castsi256_ps(_mm256_slli_epi32::<23>(_mm256_add_epi32(
                _mm256_cvtps_epi32(n),
                _mm256_set1_epi32(127),
            )));
            _mm256_mul_ps(y, power)
        }
    }
    #[inline(always)]
    fn exp2_nonpositive(self) -> Self {
        use std::arch::x86_64::*;
        unsafe {
            let x = _mm256_max_ps(self, _mm256_set1_ps(-125.0));
            let shifted = _mm256_add_ps(x, _mm256_set1_ps(EXP2_ROUNDING));
            let r = _mm256_sub_ps(x, _mm256_sub_ps(shifted, _mm256_set1_ps(EXP2_ROUNDING)));
            let mut y = _mm256_set1_ps(EXP2_POLYNOMIAL[5]);
            for c in EXP2_POLYNOMIAL[..5].iter().rev() {
                y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(*c));
            }
            let power = _mm256_slli_epi32::<23>(_mm256_castps_si256(shifted));
            _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(y), power))
        }
    }
    #[inline(always)]
    fn max_lane(self) -> f32 {
        use std::arch::x86_64::*;
        unsafe {
            let m = _mm_max_ps(
                _mm256_castps256_ps128(self),
                _mm256_extractf128_ps::<1>(self),
            );
            let m = _mm_max_ps(m, _mm_movehl_ps(m, m));
            _mm_cvtss_f32(_mm_max_ss(m, _mm_movehdup_ps(m)))
        }
    }
    #[inline(always)]
    fn store_silu_gate(row: &[Self], scale: f32, to: &mut [f32]) {
        let scale = Self::splat(scale);
        silu(row[0].mul(scale)).mul(row[1].mul(scale)).store(to);
    }
}

// SAFETY (every block below): an AVX-512 register is worked on only inside
// a function compiled for AVX-512 and called where the kernel in force is
// AVX-512, which the processor was checked to run.
#[cfg(target_arch = "x86_64")]
impl Math for std::arch::x86_64::__m512 {
    #[inline(always)]
    fn splat(x: f32) -> Self {
        unsafe { std::arch::x86_64::_mm512_set1_ps(x) }
    }
    #[inline(always)]
    fn mul(self, other: Self) -> Self {
        unsafe { std::arch::x86_64::_mm512_mul_ps(self, other) }
    }
    #[inline(always)]
    fn div(self, other: Self) -> Self {
        unsafe { std::arch::x86_64::_mm512_div_ps(self, other) }
    }
    #[inline(always)]
    fn max(self, other: Self) -> Self {
        unsafe { std::arch::x86_64::_mm512_max_ps(self, other) }
    }
    #[inline(always)]
    fn abs(self) -> Self {
        unsafe { std::arch::x86_64::_mm512_abs_ps(self) }
    }
    #[inline(always)]
    fn swap_pairs(self) -> Self {
        unsafe { std::arch::x86_64::_mm512_permute_ps::<0b10_11_00_01>(self) }
    }
    #[inline(always)]
    fn where_negative(self, negative: Self, other: Self) -> Self {
        use std::arch::x86_64::*;
        unsafe {
            let below = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(self, _mm512_setzero_ps());
            _mm512_mask_blend_ps(below, other, negative)
        }
    }
    #[inline(always)]
    fn exp_nonpositive(self) -> Self {
        use std::arch::x86_64::*;
        unsafe {
            let x = _mm512_max_ps(self, _mm512_set1_ps(-87.0));
            let n = _mm512_roundscale_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(
                _mm512_mul_ps(x, _mm512_set1_ps(std::f32::consts::LOG2_E)),
            );
            let r = _mm512_fnmadd_ps(n, _mm512_set1_ps(EXP_LN2_HIGH), x);
            let r = _mm512_fnmadd_ps(n, _mm512_set1_ps(EXP_LN2_LOW), r);
            let mut y = _mm512_set1_ps(EXP_POLYNOMIAL[0]);
            for c in &EXP_POLYNOMIAL[1..] {
                y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(*c));
            }
            let y = _mm512_fmadd_ps(
                y,
                _mm512_mul_ps(r, r),
                _mm512_add_ps(r, _mm512_set1_ps(1.0)),
            );
            _mm512_scalef_ps(y, n)
        }
    }
    #[inline(always)]
    fn max_lane(self) -> f32 {
        unsafe { std::arch::x86_64::_mm512_reduce_max_ps(self) }
    }
    #[inline(always)]
    fn exp2_nonpositive(self) -> Self {
        use std::arch::x86_64::*;
        unsafe {
            let x = _mm512_max_ps(self, _mm512_set1_ps(-125.0));
            let shifted = _mm512_add_ps(x, _mm512_set1_ps(EXP2_ROUNDING));
            let r = _mm512_sub_ps(x, _mm512_sub_ps(shifted, _mm512_set1_ps(EXP2_ROUNDING)));
            let mut y = _mm512_set1_ps(EXP2_POLYNOMIAL[5]);
            for c in EXP2_POLYNOMIAL[..5].iter().rev() {
                y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(*c));
            }
            let power = _mm512_slli_epi32::<23>(_mm512_castps_si512(shifted));
            _mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(y), power))
        }
    }
    #[inline(always)]
    fn store_silu_gate(row: &[Self], scale: f32, to: &mut [f32]) {
        use std::arch::x86_64::*;
        let to = &mut to[..8];
        let values = row[0].mul(Self::splat(scale));
        unsafe {
            // The gate's eight values brought down to the hidden values' lanes.
            let gate = _mm512_shuffle_f32x4::<0b11_10_11_10>(values, values);
            let gated = silu(values).mul(gate);
            _mm256_storeu_ps(to.as_mut_ptr(), _mm512_castps512_ps256(gated));
        }
    }
}

// SAFETY (every block below): NEON is part of every ARM64 processor.
#[cfg(target_arch = "aarch64")]
impl Math for std::arch::aarch64::float32x4_t {
    #[inline(always)]
    fn splat(x: f32) -> Self {
        unsafe { std::arch::aarch64::vdupq_n_f32(x) }
    }
    #[inline(always)]
    fn mul(self, other: Self) -> Self {
        unsafe { std::arch::aarch64::vmulq_f32(self, other) }
    }
    #[inline(always)]
    fn div(self, other: Self) -> Self {
        unsafe { std::arch::aarch64::vdivq_f32(self, other) }
    }
    #[inline(always)]
    fn max(self, other: Self) -> Self {
        unsafe { std::arch::aarch64::vmaxq_f32(self, other) }
    }
    #[inline(always)]
    fn abs(self) -> Self {
        unsafe { std::arch::aarch64::vabsq_f32(self) }
    }
    #[inline(always)]
    fn swap_pairs(self) -> Self {
        unsafe { std::arch::aarch64::vrev64q_f32(self) }
    }
    #[inline(always)]
    fn where_negative(self, negative: Self, other: Self) -> Self {
        use std::arch::aarch64::*;
        unsafe { vbslq_f32(vcltzq_f32(self), negative, other) }
    }
    #[inline(always)]
    fn exp_nonpositive(self) -> Self {
        use std::arch::aarch64::*;
        unsafe {
            let x = vmaxq_f32(self, vdupq_n_f32(-87.0));
            let n = vrndnq_f32(vmulq_n_f32(x, std::f32::consts::LOG2_E));
            let r = vfmsq_n_f32(x, n, EXP_LN2_HIGH);
            let r = vfmsq_n_f32(r, n, EXP_LN2_LOW);
            let mut y = vdupq_n_f32(EXP_POLYNOMIAL[0]);
            for c in &EXP_POLYNOMIAL[1..] {
                y = vfmaq_f32(vdupq_n_f32(*c), y, r);
            }
            let y = vfmaq_f32(vaddq_f32(r, vdupq_n_f32(1.0)), y, vmulq_f32(r, r));
            let power = vreinterpretq_f32_s32(vshlq_n_s32::<23>(vaddq_s32(
                vcvtq_s32_f32(n),
                vdupq_n_s32(127),
            )));
            vmulq_f32(y, power)
        }
    }
    #[inline(always)]
    fn max_lane(self) -> f32 {
        unsafe { std::arch::aarch64::vmaxvq_f32(self) }
    }
    #[inline(always)]
    fn exp2_nonpositive(self) -> Self {
        use std::arch::aarch64::*;
        unsafe {
            let x = vmaxq_f32(self, vdupq_n_f32(-125.0));
            let shifted = vaddq_f32(x, vdupq_n_f32(EXP2_ROUNDING));
            let r = vsubq_f32(x, vsubq_f32(shifted, vdupq_n_f32(EXP2_ROUNDING)));
            let mut y = vdupq_n_f32(EXP2_POLYNOMIAL[5]);
            for c in EXP2_POLYNOMIAL[..5].iter().rev() {
                y = vfmaq_f32(vdupq_n_f32(*c), y, r);
            }
            let power = vshlq_n_s32::<23>(vreinterpretq_s32_f32(shifted));
            vreinterpretq_f32_s32(vaddq_s32(vreinterpretq_s32_f32(y), power))
        }
    }
    #[inline(always)]
    fn store_silu_gate(row: &[Self], scale: f32, to: &mut [f32]) {
        let scale = Self::splat(scale);
        let value = |i: usize| row[i].mul(scale);
        silu(value(0)).mul(value(2)).store(&mut to[..4]);
        silu(value(1)).mul(value(3)).store(&mut to[4..8]);
    }
}
