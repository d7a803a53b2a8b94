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
