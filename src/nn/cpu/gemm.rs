//! The matrix products every layer runs on: a register-blocked kernel over a
//! right-hand matrix packed once (the weights at load time, attention's
//! keys and values as they come), in AVX-512, or AVX2 and FMA, where the
//! processor has them ([`Kernel`], chosen at run time), in NEON on ARM64,
//! plain Rust elsewhere. In reduced precision ([`Precision::Bf16`], asked for by
//! `--precision bf16` on a processor with bfloat16 dot products: AVX-512
//! BF16, or ARM's BF16) both factors are rounded to bfloat16 and multiplied
//! in pairs by `vdpbf16ps` or `bfdot`, summing in single precision: twice
//! the multiplications a cycle. The kernel and the precision are a
//! network's own values ([`Arithmetic`]), in force on a thread while the
//! network packs its weights or runs a forward pass ([`Arithmetic::run`]),
//! so that the products deep inside the layers follow them with no
//! setting shared by the process.

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
use super::simd::Math;
use super::weight_memory::WeightMemory;
use crate::nn::precision::Precision;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
use crate::nn::precision::{bf16_available, bf16_name};

/// How a network's products run: the kernel and the precision, a value
/// each network holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arithmetic {
    pub kernel: Kernel,
    pub precision: Precision,
}

impl Default for Arithmetic {
    /// The fastest kernel this processor runs, in single precision.
    fn default() -> Arithmetic {
        Arithmetic {
            kernel: Kernel::detected(),
            precision: Precision::F32,
        }
    }
}

thread_local! {
    /// The arithmetic of the network packing or running on this thread.
    static IN_FORCE: std::cell::Cell<Option<Arithmetic>> = const { std::cell::Cell::new(None) };
}

impl Arithmetic {
    /// The arithmetic in force on this thread: its network's, or the
    /// default outside one.
    pub fn in_force() -> Arithmetic {
        IN_FORCE.with(|a| a.get()).unwrap_or_default()
    }

    /// Runs `f` (a network's packing or forward pass) with this arithmetic
    /// in force on this thread, the one before put back however `f` ends.
    pub fn run<T>(self, f: impl FnOnce() -> T) -> T {
        struct Restore(Option<Arithmetic>);
        impl Drop for Restore {
            fn drop(&mut self) {
                IN_FORCE.with(|a| a.set(self.0));
            }
        }
        let _restore = Restore(IN_FORCE.with(|a| a.replace(Some(self))));
        f()
    }
}

/// The precision in force on this thread.
pub fn precision() -> Precision {
    Arithmetic::in_force().precision
}

/// `x` rounded to the nearest bfloat16 (ties to even), as its 16 bits.
#[inline(always)]
fn bf16_bits(x: f32) -> u32 {
    let bits = x.to_bits();
    (bits + 0x7fff + ((bits >> 16) & 1)) >> 16
}

/// Two values as one bfloat16 pair: `lo` in the low half.
#[inline(always)]
fn bf16_pair(lo: f32, hi: f32) -> u32 {
    bf16_bits(lo) | (bf16_bits(hi) << 16)
}

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
    /// AVX-512: blocks of 14 rows by two panels of 16 columns side by side
    /// (one where only one is left), a 16-float register a row and panel,
    /// 28 of its 32.
    #[cfg(target_arch = "x86_64")]
    Avx512,
    /// NEON (every ARM64 processor): 6×16 blocks, four 4-float registers a
    /// row, 24 of its 32.
    #[cfg(target_arch = "aarch64")]
    Neon,
}

impl Kernel {
    /// From the slowest to the fastest.
    pub(crate) const ALL: &[Kernel] = &[
        Kernel::Portable,
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2,
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512,
        #[cfg(target_arch = "aarch64")]
        Kernel::Neon,
    ];

    /// Whether this processor has the instructions the kernel is compiled
    /// for (detected once, then cached by the standard library).
    pub(super) fn runs_here(self) -> bool {
        match self {
            Kernel::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => {
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
            }
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => std::arch::is_x86_feature_detected!("avx512f"),
            #[cfg(target_arch = "aarch64")]
            Kernel::Neon => std::arch::is_aarch64_feature_detected!("neon"),
        }
    }

    /// The fastest kernel this processor runs.
    pub fn detected() -> Kernel {
        Self::available()
            .last()
            .expect("the portable kernel runs anywhere")
    }

    /// The kernel in force on this thread ([`Arithmetic::in_force`]).
    pub fn in_force() -> Kernel {
        Arithmetic::in_force().kernel
    }

    /// Runs `f` with this kernel in force on this thread, in the precision
    /// in force.
    pub fn run_with<T>(self, f: impl FnOnce() -> T) -> T {
        Arithmetic {
            kernel: self,
            ..Arithmetic::in_force()
        }
        .run(f)
    }

    /// Itself where this processor runs it; otherwise why not, naming
    /// those it runs.
    pub fn check(self) -> Result<Kernel, String> {
        if self.runs_here() {
            return Ok(self);
        }
        let runs: Vec<&str> = Self::available().map(Kernel::name).collect();
        Err(format!(
            "this processor has no {} instructions (it runs {})",
            self.name(),
            runs.join(", ")
        ))
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
            #[cfg(target_arch = "aarch64")]
            Kernel::Neon => "neon",
        }
    }

    /// Single-precision operations a core issues a cycle at most with this
    /// kernel's instructions: two fused multiply-adds a cycle over 16
    /// lanes (AVX-512) or 8 (AVX2), the two counted as two operations;
    /// NEON's two 4-lane FMA pipes (Cortex-A76 and Neoverse N1 and later;
    /// Apple's cores have four, twice this); the portable kernel's code as
    /// the compiler vectorizes it, taken as 4 lanes.
    pub fn peak_flops_per_cycle(self) -> f64 {
        match self {
            Kernel::Portable => 16.0,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => 32.0,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => 64.0,
            #[cfg(target_arch = "aarch64")]
            Kernel::Neon => 16.0,
        }
    }
}

impl std::str::FromStr for Kernel {
    type Err = String;

    /// The kernel of this name (as `bench` prints it), of those this build
    /// has; whether the processor runs it is [`Kernel::check`]'s.
    fn from_str(name: &str) -> Result<Kernel, String> {
        Kernel::ALL
            .iter()
            .copied()
            .find(|k| k.name() == name)
            .ok_or_else(|| {
                let known: Vec<&str> = Kernel::ALL.iter().map(|k| k.name()).collect();
                format!("no kernel '{name}' (known: {})", known.join(", "))
            })
    }
}

/// A constant right-hand matrix (`k × n`, the weights) packed for [`gemm`]:
/// panels of 16 columns, each stored row after row (zero past column `n`),
/// so that the kernel reads it straight through.
#[derive(Default)]
pub struct Packed {
    k: usize,
    n: usize,
    panels: WeightMemory<f32>,
    /// In bfloat16, the same panels with the rows taken in pairs: a
    /// panel's pair `q` is 16 values, column `j`'s rows `2q` and `2q + 1`
    /// (empty in single precision).
    pairs: WeightMemory<u32>,
}

impl Packed {
    /// Packs the row-major `k × n` matrix `b` for the precision in force.
    pub fn new(k: usize, n: usize, b: &[f32]) -> Packed {
        Packed::with_precision(k, n, b, precision())
    }

    /// Packs `b` for `precision`, the panels then settled among the net's
    /// other weights (`weight_memory`).
    fn with_precision(k: usize, n: usize, b: &[f32], precision: Precision) -> Packed {
        let count = n.div_ceil(NR);
        let mut panels = vec![0.0; count * k * NR];
        for p in 0..count {
            for kk in 0..k {
                for j in 0..NR.min(n - p * NR) {
                    panels[(p * k + kk) * NR + j] = b[kk * n + p * NR + j];
                }
            }
        }
        let mut packed = Packed {
            k,
            n,
            panels: WeightMemory::Own(panels),
            pairs: WeightMemory::default(),
        };
        packed.pair_up(precision);
        packed.panels.settle();
        packed.pairs.settle();
        packed
    }

    /// Packs the row-major `k × outputs` matrices `hidden` and `gate` of a
    /// SwiGLU side by side for [`Store::SiluGate`]: each panel eight of
    /// `hidden`'s columns, then the same eight of `gate`'s (zeros past
    /// `outputs`).
    pub fn gated(k: usize, outputs: usize, hidden: &[f32], gate: &[f32]) -> Packed {
        let n = outputs.div_ceil(GATED) * NR;
        let mut b = vec![0.0; k * n];
        for (kk, row) in b.chunks_exact_mut(n).enumerate() {
            for (j, pair) in row.chunks_exact_mut(NR).enumerate() {
                let from = j * GATED..outputs.min((j + 1) * GATED);
                let width = from.len();
                pair[..width].copy_from_slice(&hidden[kk * outputs..][from.clone()]);
                pair[GATED..GATED + width].copy_from_slice(&gate[kk * outputs..][from]);
            }
        }
        Packed::new(k, n, &b)
    }

    /// Its columns (a [`Packed::gated`] matrix's, padded, twice its
    /// outputs).
    pub fn columns(&self) -> usize {
        self.n
    }

    /// Rows in pairs, per panel.
    fn row_pairs(&self) -> usize {
        self.k.div_ceil(2)
    }

    /// In bfloat16, the panels' rows paired (a last odd row with zero).
    fn pair_up(&mut self, precision: Precision) {
        let (k, q) = (self.k, self.row_pairs());
        let pairs = self.pairs.own();
        pairs.clear();
        if precision != Precision::Bf16 {
            return;
        }
        for p in 0..self.n.div_ceil(NR) {
            let panel = &self.panels[p * k * NR..(p + 1) * k * NR];
            for pair in 0..q {
                for j in 0..NR {
                    let lo = panel[2 * pair * NR + j];
                    let hi = if 2 * pair + 1 < k {
                        panel[(2 * pair + 1) * NR + j]
                    } else {
                        0.0
                    };
                    pairs.push(bf16_pair(lo, hi));
                }
            }
        }
    }

    /// Packs into this one, reusing its memory, the `k × n` matrix whose
    /// row `r` is `rows[r · stride..][..n]` (a product with a matrix known
    /// only while evaluating: attention's values, a head's share of each
    /// point's).
    pub fn refill_rows(&mut self, k: usize, n: usize, rows: &[f32], stride: usize) {
        let panels = self.resize_to(k, n);
        for (p, panel) in panels.chunks_exact_mut((k * NR).max(1)).enumerate() {
            let cols = NR.min(n - p * NR);
            for (r, to) in panel.chunks_exact_mut(NR).enumerate() {
                to[..cols].copy_from_slice(&rows[r * stride + p * NR..][..cols]);
                to[cols..].fill(0.0);
            }
        }
        self.pair_up(precision());
    }

    /// Packs into this one the `k × n` matrix whose column `j` is
    /// `columns[j · stride..][..k]` (attention's keys, transposed).
    /// A panel's rows are written whole, one after another (its 16
    /// columns read side by side), so that the writes run on.
    pub fn refill_columns(&mut self, k: usize, n: usize, columns: &[f32], stride: usize) {
        let panels = self.resize_to(k, n);
        for (p, panel) in panels.chunks_exact_mut((k * NR).max(1)).enumerate() {
            let cols = NR.min(n - p * NR);
            let sources: [&[f32]; NR] = std::array::from_fn(|j| match j < cols {
                true => &columns[(p * NR + j) * stride..][..k],
                false => &[],
            });
            for (kk, to) in panel.chunks_exact_mut(NR).enumerate() {
                for (x, source) in to.iter_mut().zip(&sources) {
                    *x = source.get(kk).copied().unwrap_or(0.0);
                }
            }
        }
        self.pair_up(precision());
    }

    /// Room for a packed `k × n` matrix in this one's memory: its
    /// panels, each value to be written by the caller.
    fn resize_to(&mut self, k: usize, n: usize) -> &mut [f32] {
        self.k = k;
        self.n = n;
        let panels = self.panels.own();
        panels.resize(n.div_ceil(NR) * k * NR, 0.0);
        panels
    }

    /// The `count` panels from `p`, and the next one after them where
    /// there is one (for a kernel to ask the caches for while it works).
    fn panels_and_next(&self, p: usize, count: usize) -> &[f32] {
        let len = self.k * NR;
        &self.panels[p * len..((p + count + 1) * len).min(self.panels.len())]
    }
}

/// `c = a · b` (or `c += a · b`) for a row-major `m × k` matrix `a` and a
/// packed `k × n` matrix `b`, into the row-major `m × n` matrix `c`: blocks
/// of `c` (up to 14×32) kept in registers while `k` runs, with the fastest
/// kernel the processor has.
pub fn gemm(m: usize, a: &[f32], b: &Packed, c: &mut [f32], accumulate: bool) {
    let strides = RowStrides { a: b.k, c: b.n };
    gemm_stored(m, a, b, c, strides, Store::written(accumulate));
}

/// Where a product's rows lie: row r of `a` at `a[r · a..][..k]`, row r of
/// `c` at `c[r · c..][..n]` (a product over some of the columns of larger
/// matrices, such as one attention head's share of each point's values).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowStrides {
    pub a: usize,
    pub c: usize,
}

impl RowStrides {
    /// Asserts that `a` and `c` hold `m` rows of a product by `b` stored
    /// by `store`.
    fn check(self, m: usize, a: &[f32], b: &Packed, c: &[f32], store: Store) {
        let columns = store.columns(b.n);
        assert!(
            self.a >= b.k && self.c >= columns,
            "{self:?} for {}×{}",
            b.k,
            columns
        );
        if m > 0 {
            assert!(a.len() >= (m - 1) * self.a + b.k && c.len() >= (m - 1) * self.c + columns);
        }
        match store {
            Store::ScaleRows(scales) | Store::SiluGate { scales, .. } => {
                assert!(scales.len() >= m, "{m} rows, {} scales", scales.len())
            }
            Store::Write | Store::Add => {}
        }
        if let Store::SiluGate { outputs, .. } = store {
            assert!(
                outputs <= b.n.div_ceil(NR) * GATED,
                "{outputs} gated outputs of {} columns",
                b.n
            );
        }
    }
}

/// How a product's sums reach `c`, a block of them at a time as they
/// leave the registers: the layer's next step done in the same pass.
#[derive(Clone, Copy, Debug)]
pub enum Store<'a> {
    /// `c = a · b`.
    Write,
    /// `c += a · b` (a residual added as it is stored).
    Add,
    /// `c = a · b`, row r times `scales[r]`: a norm of each of `a`'s rows
    /// (`x / rms(x) · w`) whose weights `w` are folded into `b`.
    ScaleRows(&'a [f32]),
    /// SwiGLU over a [`Packed::gated`] matrix after a norm, as
    /// `ScaleRows`: `c`'s `outputs` columns are `SiLU(hidden) · gate`, half
    /// as many as `b`'s, of the sums of row r times `scales[r]`.
    SiluGate { outputs: usize, scales: &'a [f32] },
}

impl Store<'_> {
    /// `Add` where `accumulate`, else `Write`.
    pub fn written(accumulate: bool) -> Store<'static> {
        if accumulate { Store::Add } else { Store::Write }
    }

    /// The columns of `c` a product with `n` columns stores.
    pub fn columns(self, n: usize) -> usize {
        match self {
            Store::SiluGate { outputs, .. } => outputs,
            _ => n,
        }
    }

    /// The columns of `c` a panel's block stores.
    fn panel_columns(self) -> usize {
        match self {
            Store::SiluGate { .. } => GATED,
            _ => NR,
        }
    }

    /// This store for a block whose first row is `i0`.
    fn at_row(self, i0: usize) -> Self {
        match self {
            Store::ScaleRows(scales) => Store::ScaleRows(&scales[i0..]),
            Store::SiluGate { outputs, scales } => Store::SiluGate {
                outputs,
                scales: &scales[i0..],
            },
            other => other,
        }
    }

    /// Stores one row `r` of a block's sums (`NR` of them) into the
    /// `dst.len()` columns it has, a value at a time.
    fn row_by_values(self, dst: &mut [f32], sums: &[f32; NR], r: usize) {
        let pairs = dst.iter_mut().zip(sums);
        match self {
            Store::Write => pairs.for_each(|(d, &v)| *d = v),
            Store::Add => pairs.for_each(|(d, &v)| *d += v),
            Store::ScaleRows(scales) => pairs.for_each(|(d, &v)| *d = v * scales[r]),
            Store::SiluGate { scales, .. } => {
                for (j, d) in dst.iter_mut().enumerate() {
                    let (hidden, gate) = (sums[j] * scales[r], sums[GATED + j] * scales[r]);
                    *d = hidden / (1.0 + (-hidden).exp()) * gate;
                }
            }
        }
    }
}

/// The hidden (and the gate) values a panel of a [`Packed::gated`]
/// matrix holds: half its columns.
const GATED: usize = NR / 2;

/// [`gemm`] on rows `strides` apart.
pub fn gemm_strided(
    m: usize,
    a: &[f32],
    b: &Packed,
    c: &mut [f32],
    strides: RowStrides,
    accumulate: bool,
) {
    gemm_stored(m, a, b, c, strides, Store::written(accumulate));
}

/// [`gemm`] on rows `strides` apart, the sums stored by `store`.
pub fn gemm_stored(
    m: usize,
    a: &[f32],
    b: &Packed,
    c: &mut [f32],
    strides: RowStrides,
    store: Store,
) {
    RECORDED.with_borrow_mut(|shapes| {
        if let Some(shapes) = shapes {
            record(shapes, m, b.k, b.n);
        }
    });
    COUNTED.with(|counted| {
        if let Some(flops) = counted.get() {
            counted.set(Some(flops + 2.0 * (m * b.k * b.n) as f64));
        }
    });
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    if !b.pairs.is_empty() {
        gemm_bf16(m, a, b, c, strides, store);
        return;
    }
    gemm_with(Kernel::in_force(), m, a, b, c, strides, store);
}

/// A product's shape as a layer runs it (`m × k` by `k × n`), and how
/// many times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProductShape {
    pub m: usize,
    pub k: usize,
    pub n: usize,
    pub calls: usize,
}

impl ProductShape {
    /// Its operations a call, a multiply-add counted as two.
    pub fn flops(&self) -> f64 {
        2.0 * (self.m * self.k * self.n) as f64
    }
}

thread_local! {
    /// The shapes of the products [`gemm`] runs on this thread, while
    /// [`shapes_of`] asks.
    static RECORDED: std::cell::RefCell<Option<Vec<ProductShape>>> =
        const { std::cell::RefCell::new(None) };
}

thread_local! {
    /// The operations of the products [`gemm`] ran on this thread (a
    /// multiply-add two) while a [`FlopCount`] counts them.
    static COUNTED: std::cell::Cell<Option<f64>> = const { std::cell::Cell::new(None) };
}

/// Counts this thread's products' operations while it lives
/// ([`counted_flops`]).
pub struct FlopCount(());

impl FlopCount {
    pub fn start() -> FlopCount {
        COUNTED.set(Some(0.0));
        FlopCount(())
    }
}

impl Drop for FlopCount {
    fn drop(&mut self) {
        COUNTED.set(None);
    }
}

/// The operations this thread's products have run since its
/// [`FlopCount`] started (0 where none counts).
pub fn counted_flops() -> f64 {
    COUNTED.get().unwrap_or(0.0)
}

fn record(shapes: &mut Vec<ProductShape>, m: usize, k: usize, n: usize) {
    match shapes.iter_mut().find(|s| (s.m, s.k, s.n) == (m, k, n)) {
        Some(shape) => shape.calls += 1,
        None => shapes.push(ProductShape { m, k, n, calls: 1 }),
    }
}

/// The products `f` runs on this thread through [`gemm`], a shape each in
/// the order first run, with its calls.
pub fn shapes_of(f: impl FnOnce()) -> Vec<ProductShape> {
    RECORDED.with_borrow_mut(|r| *r = Some(Vec::new()));
    f();
    RECORDED.with_borrow_mut(Option::take).unwrap_or_default()
}

/// `kernel`'s rate on one product of `shape` (GFLOP/s), random factors,
/// the right-hand one packed once as a layer's weights are, products
/// repeated for about `seconds` after a warm-up of the same.
pub fn product_gflops(kernel: Kernel, shape: ProductShape, seconds: f64) -> f64 {
    let ProductShape { m, k, n, .. } = shape;
    let mut bits = crate::core::random::splitmix_sequence(1);
    let mut value = || ((bits() >> 40) as f32 / (1u64 << 24) as f32) - 0.5;
    let a: Vec<f32> = (0..m * k).map(|_| value()).collect();
    let b: Vec<f32> = (0..k * n).map(|_| value()).collect();
    let packed = Packed::with_precision(k, n, &b, Precision::F32);
    let mut c = vec![0.0; m * n];
    let window = std::time::Duration::from_secs_f64(seconds.max(0.01));
    let mut rate = 0.0;
    for timed in [false, true] {
        let start = std::time::Instant::now();
        let mut calls = 0u64;
        while calls < 3 || start.elapsed() < window {
            gemm_with(
                kernel,
                m,
                &a,
                &packed,
                &mut c,
                RowStrides { a: k, c: n },
                Store::Write,
            );
            calls += 1;
        }
        if timed {
            rate = shape.flops() * calls as f64 / start.elapsed().as_secs_f64() / 1e9;
        }
    }
    std::hint::black_box(&c);
    rate
}

/// Calls `$kernel::<R>` for the block's `$rows` rows, R from 1 to the arms given.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
macro_rules! by_rows {
    ($rows:expr, $kernel:ident, $args:tt, [$($r:literal)*]) => {
        match $rows {
            $($r => $kernel::<$r> $args,)*
            _ => unreachable!("a block has at most the kernel's rows"),
        }
    };
}

/// [`gemm`] with the kernel given (one the processor runs).
pub fn gemm_with(
    kernel: Kernel,
    m: usize,
    a: &[f32],
    b: &Packed,
    c: &mut [f32],
    strides: RowStrides,
    store: Store,
) {
    assert!(kernel.runs_here(), "{kernel:?} on this processor");
    strides.check(m, a, b, c, store);
    match kernel {
        // SAFETY (both): the processor runs the kernel (asserted above);
        // the lengths are checked above and inside each block.
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 => unsafe { gemm_avx2_fma(m, a, b, c, strides, store) },
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 => unsafe { gemm_avx512(m, a, b, c, strides, store) },
        #[cfg(target_arch = "aarch64")]
        Kernel::Neon => gemm_blocks::<6, 1>(
            m,
            a,
            b,
            c,
            strides,
            store,
            |a, lda, k, rows, panel, out| by_rows!(rows, block_neon, (a, lda, k, panel, out), [1 2 3 4 5 6]),
        ),
        Kernel::Portable => gemm_blocks::<6, 1>(m, a, b, c, strides, store, block_portable),
    }
}

/// Defines `$name`, [`gemm_with`] for one x86 kernel: the blocks' loop
/// compiled with the kernel's instructions (`$features`), so that each
/// block (`$block::<R>` for R of the `$r` given, at most `$rows`, over at
/// most `$panels` panels side by side) is inlined into it.
#[cfg(target_arch = "x86_64")]
macro_rules! blocks_compiled_with {
    ($name:ident, $features:literal, $rows:expr, $panels:expr, $block:ident, [$($r:literal)*]) => {
        #[target_feature(enable = $features)]
        unsafe fn $name(
            m: usize,
            a: &[f32],
            b: &Packed,
            c: &mut [f32],
            strides: RowStrides,
            store: Store,
        ) {
            gemm_blocks::<$rows, $panels>(m, a, b, c, strides, store, |a, lda, k, rows, panel, out| {
                // SAFETY: this function runs only where the kernel's
                // instructions do; the lengths are checked inside.
                unsafe { by_rows!(rows, $block, (a, lda, k, panel, out), [$($r)*]) }
            });
        }
    };
}

#[cfg(target_arch = "x86_64")]
blocks_compiled_with!(gemm_avx2_fma, "avx2,fma", 6, 1, block_avx2_fma, [1 2 3 4 5 6]);
#[cfg(target_arch = "x86_64")]
blocks_compiled_with!(gemm_avx512, "avx512f", MR_MAX, AVX512_PANELS, block_avx512, [1 2 3 4 5 6 7 8 9 10 11 12 13 14]);

/// The single-precision product by blocks of up to `ROWS` rows:
/// `block(a_rows, a_stride, k, rows, panel, out)` computes those of a run
/// ([`Out::each_block`]).
#[inline(always)]
fn gemm_blocks<const ROWS: usize, const PANELS: usize>(
    m: usize,
    a: &[f32],
    b: &Packed,
    c: &mut [f32],
    strides: RowStrides,
    store: Store,
    mut block: impl FnMut(&[f32], usize, usize, usize, &[f32], Out),
) {
    let (k, lda) = (b.k, strides.a);
    by_blocks::<ROWS, PANELS>(m, b.n, k * 4, c, strides.c, store, |p, i0, rows, out| {
        let a_rows = &a[i0 * lda..(i0 + rows * out.blocks() - 1) * lda + k];
        block(
            a_rows,
            lda,
            k,
            rows,
            b.panels_and_next(p, out.panels()),
            out,
        );
    });
}

/// How many bytes of the left-hand matrix's rows a pass over every panel
/// works through at once: a share of the second-level cache (512 KB a core
/// on Zen 3, 1.25–2 MB on Intel's recent cores; 256 KB on older ones), so
/// that the rows stay there while each panel meets them.
const ROWS_BYTES: usize = 160 * 1024;

/// Runs `product(p, i0, rows, out)` for every block of the `m × n` matrix
/// `c` (row r at `c[r · c_stride..]`): panel `p` (16 columns) by the rows
/// `i0..i0 + rows`, `out` where the block's products go. The rows are cut
/// into as few blocks of at most `ROWS` as there can be, shared out evenly (25 rows as
/// five blocks of five with 6-row blocks, not four of six and one of one,
/// which would leave the kernel waiting on its loads): the first blocks a
/// row more than the rest where they do not divide evenly. The blocks are
/// taken a stretch of rows at a time, every panel over the stretch before
/// the next, the stretch's left-hand rows (`row_bytes` each) within
/// [`ROWS_BYTES`]. A whole panel's blocks of one size in a stretch go
/// straight into `c` as one run, one call of `product` (`out` holding
/// them all, [`Out::each_block`]); those of a panel cut short, a block at
/// a time through a buffer. A panel's block stores 16 columns of `c`, or 8
/// with [`Store::SiluGate`]. Whole panels go `PANELS` at a time where
/// there are that many left (`p` the first, [`Out::panels`] how many), so
/// that a kernel with the registers for it reads each value of `a` once
/// for all of them.
#[inline(always)]
fn by_blocks<const ROWS: usize, const PANELS: usize>(
    m: usize,
    n: usize,
    row_bytes: usize,
    c: &mut [f32],
    c_stride: usize,
    store: Store,
    mut product: impl FnMut(usize, usize, usize, Out),
) {
    let mut acc = [[0.0f32; NR]; MR_MAX];
    let blocks = m.div_ceil(ROWS);
    if blocks == 0 {
        return;
    }
    // `longer` blocks of `rows + 1` rows, then the rest of `rows`.
    let (rows, longer) = (m / blocks, m % blocks);
    let start = |nth: usize| nth * rows + nth.min(longer);
    let stretch = (ROWS_BYTES / (row_bytes.max(1) * ROWS)).clamp(1, blocks);
    let (width, columns) = (store.panel_columns(), store.columns(n));
    let (panel_count, whole) = (columns.div_ceil(width), columns / width);
    for first in (0..blocks).step_by(stretch) {
        let last = blocks.min(first + stretch);
        // The stretch's blocks as runs of one size: (first block, end, rows).
        let runs = [
            (first, last.min(longer), rows + 1),
            (first.max(longer), last, rows),
        ];
        let mut p = 0;
        while p < panel_count {
            let panels = if p + PANELS <= whole { PANELS } else { 1 };
            let j0 = p * width;
            let cols = width.min(columns - j0);
            for (from, to, rows) in runs {
                if from >= to {
                    continue;
                }
                if cols == width {
                    let i0 = start(from);
                    let end = start(to);
                    let out = Out::Rows {
                        c: &mut c[i0 * c_stride + j0..(end - 1) * c_stride + j0 + width * panels],
                        stride: c_stride,
                        store: store.at_row(i0),
                        blocks: to - from,
                        panels,
                    };
                    product(p, i0, rows, out);
                    continue;
                }
                for nth in from..to {
                    let i0 = start(nth);
                    product(p, i0, rows, Out::Buffer(&mut acc));
                    let store = store.at_row(i0);
                    for (r, sums) in acc.iter().enumerate().take(rows) {
                        let dst = &mut c[(i0 + r) * c_stride + j0..][..cols];
                        store.row_by_values(dst, sums, r);
                    }
                }
            }
            p += panels;
        }
    }
}

/// Where a block's products go.
enum Out<'a> {
    /// A buffer, row by row.
    Buffer(&'a mut [[f32; NR]; MR_MAX]),
    /// The output matrix: `blocks` blocks' rows one after another, row r
    /// at `c[r · stride..]`, the columns there of `panels` panels side by
    /// side ([`Store::panel_columns`] each) stored by `store`.
    Rows {
        c: &'a mut [f32],
        stride: usize,
        store: Store<'a>,
        blocks: usize,
        panels: usize,
    },
}

impl Out<'_> {
    /// The blocks it holds.
    fn blocks(&self) -> usize {
        match self {
            Out::Buffer(_) => 1,
            Out::Rows { blocks, .. } => *blocks,
        }
    }

    /// The panels side by side its blocks cover.
    fn panels(&self) -> usize {
        match self {
            Out::Buffer(_) => 1,
            Out::Rows { panels, .. } => *panels,
        }
    }

    /// Runs `block(a_rows, out, first)` for each of the blocks of `rows`
    /// rows it holds, `a_rows` that block's rows of `a` (`lda` apart),
    /// `first` for the run's first: a kernel's loop over a run of blocks,
    /// so that each block costs no call.
    #[inline(always)]
    fn each_block<T>(
        self,
        rows: usize,
        a: &[T],
        lda: usize,
        mut block: impl FnMut(&[T], Out, bool),
    ) {
        match self {
            Out::Buffer(buffer) => block(a, Out::Buffer(buffer), true),
            Out::Rows {
                c,
                stride,
                store,
                blocks,
                panels,
            } => {
                let width = store.panel_columns() * panels;
                for first in (0..blocks).map(|b| b * rows) {
                    let out = Out::Rows {
                        c: &mut c[first * stride..(first + rows - 1) * stride + width],
                        stride,
                        store: store.at_row(first),
                        blocks: 1,
                        panels,
                    };
                    block(&a[first * lda..], out, first == 0);
                }
            }
        }
    }

    /// Puts the block's first `rows` rows of `products` where they go.
    fn put(self, products: &[[f32; NR]; MR_MAX], rows: usize) {
        match self {
            Out::Buffer(buffer) => buffer[..rows].copy_from_slice(&products[..rows]),
            Out::Rows {
                c,
                stride,
                store,
                panels,
                ..
            } => {
                debug_assert_eq!(panels, 1, "a buffer of sums holds one panel's");
                let width = store.panel_columns();
                for (r, row) in products.iter().enumerate().take(rows) {
                    store.row_by_values(&mut c[r * stride..r * stride + width], row, r);
                }
            }
        }
    }
}

/// Puts a kernel's rows of products, each in `W` registers of `L` (16
/// values), where they go.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
fn put_registers<L: Math, const W: usize>(rows: &[[L; W]], out: Out) {
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
            store,
            panels,
            ..
        } => {
            // A row's registers are its panels' one after another, as
            // their columns are in `c`.
            let width = store.panel_columns();
            let per_panel = NR / L::WIDTH;
            debug_assert_eq!(
                W,
                per_panel * panels,
                "a register for each of the panels' columns"
            );
            for (r, registers) in rows.iter().enumerate() {
                let row = &mut c[r * stride..r * stride + width * panels];
                if let Store::SiluGate { scales, .. } = store {
                    let gated = registers
                        .chunks_exact(per_panel)
                        .zip(row.chunks_exact_mut(width));
                    for (registers, to) in gated {
                        L::store_silu_gate(registers, scales[r], to);
                    }
                    continue;
                }
                for (i, &v) in registers.iter().enumerate() {
                    let at = &mut row[i * L::WIDTH..];
                    match store {
                        Store::Add => v.add(L::load(at)).store(at),
                        Store::ScaleRows(scales) => v.mul(L::splat(scales[r])).store(at),
                        _ => v.store(at),
                    }
                }
            }
        }
    }
}

/// The blocks of a run ([`Out::each_block`]) a value at a time.
fn block_portable(a: &[f32], lda: usize, k: usize, rows: usize, panel: &[f32], out: Out) {
    out.each_block(rows, a, lda, |a, out, _first| {
        let mut acc = [[0.0; NR]; MR_MAX];
        for kk in 0..k {
            let b = &panel[kk * NR..(kk + 1) * NR];
            for (r, acc_row) in acc.iter_mut().enumerate().take(rows) {
                let av = a[r * lda + kk];
                for (x, &bv) in acc_row.iter_mut().zip(b) {
                    *x += av * bv;
                }
            }
        }
        out.put(&acc, rows);
    });
}

/// Where the x86 kernels' first block of a run finds the panel after its
/// own (`panel` as [`Packed::panel_and_next`] gives it), if there is one:
/// it asks for that panel a row (a cache line) a step, so that the next
/// panel's run finds it in the second-level cache rather than waiting on
/// memory.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn next_panel(first: bool, panel: &[f32], k: usize) -> Option<*const f32> {
    (first && panel.len() >= 2 * NR * k).then(|| panel[NR * k..].as_ptr())
}

/// The blocks of a run ([`Out::each_block`]) in AVX2: R rows of 16 columns
/// in 2R registers, each step of `k` two loads of the panel, R broadcasts
/// of `a` and 2R fused multiply-adds.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn block_avx2_fma<const R: usize>(a: &[f32], lda: usize, k: usize, panel: &[f32], out: Out) {
    use std::arch::x86_64::*;
    out.each_block(
        R,
        a,
        lda,
        #[inline(always)]
        |a, out, first| {
            assert!(a.len() >= (R - 1) * lda + k && panel.len() >= NR * k);
            let zero = _mm256_setzero_ps();
            let mut c = [[zero; 2]; R];
            let ap = a.as_ptr();
            let bp = panel.as_ptr();
            // A step of `k`: two loads of the panel, a broadcast of each
            // row's value, two fused multiply-adds a row (a macro, so that
            // it is compiled with the kernel's instructions).
            macro_rules! step {
                ($kk:expr) => {{
                    let kk = $kk;
                    // SAFETY: kk < k, so every offset is within the lengths asserted above.
                    unsafe {
                        let b0 = _mm256_loadu_ps(bp.add(kk * NR));
                        let b1 = _mm256_loadu_ps(bp.add(kk * NR + 8));
                        for (r, cr) in c.iter_mut().enumerate() {
                            let av = _mm256_broadcast_ss(&*ap.add(r * lda + kk));
                            cr[0] = _mm256_fmadd_ps(av, b0, cr[0]);
                            cr[1] = _mm256_fmadd_ps(av, b1, cr[1]);
                        }
                    }
                }};
            }
            // The first block of a run asks for the next panel a row a
            // step; the others run the steps alone, four at a time.
            match next_panel(first, panel, k) {
                Some(next) => {
                    for kk in 0..k {
                        // SAFETY: the next panel holds NR · k values.
                        unsafe { _mm_prefetch::<_MM_HINT_T1>(next.add(kk * NR).cast()) };
                        step!(kk);
                    }
                }
                None => {
                    let whole = k - k % 4;
                    for kk in (0..whole).step_by(4) {
                        step!(kk);
                        step!(kk + 1);
                        step!(kk + 2);
                        step!(kk + 3);
                    }
                    for kk in whole..k {
                        step!(kk);
                    }
                }
            }
            put_registers(&c, out);
        },
    );
}

/// The panels side by side an AVX-512 block covers where there are that
/// many: two, so that a block of 14 rows holds 28 registers of sums and
/// each step of `k` is 2 loads of the panels and 14 broadcasts of `a` for
/// 28 fused multiply-adds. With one panel a step would be 15 loads for 14
/// multiply-adds, more than the two loads a cycle an Intel core makes
/// beside its two 512-bit multiply-adds.
#[cfg(target_arch = "x86_64")]
const AVX512_PANELS: usize = 2;

/// The blocks of a run in AVX-512: R rows of 16 columns a panel, in a
/// register a row and panel, over the run's panels (one or
/// [`AVX512_PANELS`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn block_avx512<const R: usize>(a: &[f32], lda: usize, k: usize, panels: &[f32], out: Out) {
    // SAFETY (both): as this function's own.
    match out.panels() {
        AVX512_PANELS => unsafe { block_avx512_over::<R, AVX512_PANELS>(a, lda, k, panels, out) },
        _ => unsafe { block_avx512_over::<R, 1>(a, lda, k, panels, out) },
    }
}

/// [`block_avx512`] over `P` panels side by side (`panels` one after
/// another, `NR · k` values each), each step of `k` a load of each panel
/// and R broadcasts of `a` for R · P fused multiply-adds.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn block_avx512_over<const R: usize, const P: usize>(
    a: &[f32],
    lda: usize,
    k: usize,
    panels: &[f32],
    out: Out,
) {
    use std::arch::x86_64::*;
    out.each_block(
        R,
        a,
        lda,
        #[inline(always)]
        |a, out, first| {
            assert!(a.len() >= (R - 1) * lda + k && panels.len() >= P * NR * k);
            let mut c = [[_mm512_setzero_ps(); P]; R];
            let ap = a.as_ptr();
            let bp = panels.as_ptr();
            let next = next_panel(first, &panels[(P - 1) * NR * k..], k);
            for kk in 0..k {
                // SAFETY: kk < k, so every offset is within the lengths asserted above.
                unsafe {
                    if let Some(next) = next {
                        _mm_prefetch::<_MM_HINT_T1>(next.add(kk * NR).cast());
                    }
                    let b: [__m512; P] =
                        std::array::from_fn(|q| _mm512_loadu_ps(bp.add(q * NR * k + kk * NR)));
                    for (r, cr) in c.iter_mut().enumerate() {
                        let av = _mm512_set1_ps(*ap.add(r * lda + kk));
                        for (x, &bq) in cr.iter_mut().zip(&b) {
                            *x = _mm512_fmadd_ps(av, bq, *x);
                        }
                    }
                }
            }
            put_registers(&c, out);
        },
    );
}

/// The blocks of a run ([`Out::each_block`]) in NEON, each R rows of 16 columns in 4R registers, each step of
/// `k` one broadcast of `a` and four fused multiply-adds a row.
#[cfg(target_arch = "aarch64")]
fn block_neon<const R: usize>(a: &[f32], lda: usize, k: usize, panel: &[f32], out: Out) {
    use std::arch::aarch64::*;
    out.each_block(
        R,
        a,
        lda,
        #[inline(always)]
        |a, out, _first| {
            assert!(a.len() >= (R - 1) * lda + k && panel.len() >= NR * k);
            // SAFETY (each block): NEON is part of every ARM64 processor; every
            // offset is below the lengths asserted above (kk < k).
            let zero = unsafe { vdupq_n_f32(0.0) };
            let mut c = [[zero; 4]; R];
            let ap = a.as_ptr();
            let bp = panel.as_ptr();
            for kk in 0..k {
                unsafe {
                    let b = [
                        vld1q_f32(bp.add(kk * NR)),
                        vld1q_f32(bp.add(kk * NR + 4)),
                        vld1q_f32(bp.add(kk * NR + 8)),
                        vld1q_f32(bp.add(kk * NR + 12)),
                    ];
                    for (r, cr) in c.iter_mut().enumerate() {
                        let av = *ap.add(r * lda + kk);
                        for (x, &bv) in cr.iter_mut().zip(&b) {
                            *x = vfmaq_n_f32(*x, bv, av);
                        }
                    }
                }
            }
            put_registers(&c, out);
        },
    );
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
thread_local! {
    /// This thread's left-hand rows in bfloat16 pairs.
    static A_PAIRS: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// [`gemm`] in bfloat16: `a`'s rows rounded and paired once, then blocks
/// of up to [`BF16_ROWS`] rows by 16 columns summed in registers by the
/// processor's bfloat16 dot products.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn gemm_bf16(m: usize, a: &[f32], b: &Packed, c: &mut [f32], strides: RowStrides, store: Store) {
    let (k, n, q) = (b.k, b.n, b.row_pairs());
    strides.check(m, a, b, c, store);
    // `b` holds pairs only where bfloat16 products were asked for, which
    // `Precision::check_on_cpu` allows only where the processor has them.
    assert!(bf16_available(), "bfloat16 products on {}", bf16_name());
    A_PAIRS.with_borrow_mut(|pairs| {
        pairs.clear();
        pairs.resize(m * q, 0);
        for (r, to) in pairs.chunks_exact_mut(q).enumerate() {
            pair_row(&a[r * strides.a..r * strides.a + k], to);
        }
        by_blocks::<BF16_ROWS, BF16_PANELS>(m, n, q * 4, c, strides.c, store, |p, i0, rows, out| {
            let panels = &b.pairs[p * q * NR..(p + out.panels()) * q * NR];
            let a_rows = &pairs[i0 * q..(i0 + rows * out.blocks()) * q];
            // SAFETY (each arm): the processor has the dot products
            // (asserted above); the lengths are checked inside.
            #[cfg(target_arch = "x86_64")]
            unsafe {
                by_rows!(rows, block_avx512_bf16, (a_rows, q, panels, out), [1 2 3 4 5 6 7 8 9 10 11 12 13 14])
            };
            #[cfg(target_arch = "aarch64")]
            unsafe {
                by_rows!(rows, block_neon_bf16, (a_rows, q, panels, out), [1 2 3 4 5 6])
            };
        });
    });
}

/// A row of `a` as bfloat16 pairs into `to` (its length rounded up to
/// pairs, a last odd value paired with zero): in AVX-512 BF16 32 values an
/// instruction (`vcvtne2ps2bf16`, rounding to even as [`bf16_bits`] does;
/// it reads subnormal values as zero, which the products would too), the
/// rest a value at a time.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn pair_row(row: &[f32], to: &mut [u32]) {
    // SAFETY: the processor has AVX-512 BF16 (asserted by the caller,
    // `gemm_bf16`, before any row); the lengths are checked inside.
    #[cfg(target_arch = "x86_64")]
    let done = unsafe { pair_row_avx512_bf16(row, to) };
    #[cfg(target_arch = "aarch64")]
    let done = 0;
    for (pair, to) in to.iter_mut().enumerate().skip(done) {
        let hi = row.get(2 * pair + 1).copied().unwrap_or(0.0);
        *to = bf16_pair(row[2 * pair], hi);
    }
}

/// The first pairs of [`pair_row`], 16 at a time: how many it made.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bf16")]
unsafe fn pair_row_avx512_bf16(row: &[f32], to: &mut [u32]) -> usize {
    use std::arch::x86_64::*;
    let chunks = (row.len() / 32).min(to.len() / 16);
    for (values, to) in row
        .chunks_exact(32)
        .zip(to.chunks_exact_mut(16))
        .take(chunks)
    {
        // SAFETY: each chunk holds the 32 values read and the 16 pairs
        // written; a bfloat16 vector is 512 bits, as the integer vector
        // stored.
        unsafe {
            let lo = _mm512_loadu_ps(values.as_ptr());
            let hi = _mm512_loadu_ps(values.as_ptr().add(16));
            let pairs: __m512i = std::mem::transmute(_mm512_cvtne2ps_pbh(hi, lo));
            _mm512_storeu_si512(to.as_mut_ptr().cast(), pairs);
        }
    }
    chunks * 16
}

/// Rows of a bfloat16 block: AVX-512's 14 (a register of 16 sums a row
/// and panel, over two panels 28 of its 32), or NEON's six rows of four
/// 4-sum registers (24 of its 32, with four for the panel's step).
#[cfg(target_arch = "x86_64")]
const BF16_ROWS: usize = MR_MAX;
#[cfg(target_arch = "aarch64")]
const BF16_ROWS: usize = 6;
/// The panels side by side a bfloat16 block covers where there are that
/// many: AVX-512's two, as in single precision ([`AVX512_PANELS`]).
#[cfg(target_arch = "x86_64")]
const BF16_PANELS: usize = AVX512_PANELS;
#[cfg(target_arch = "aarch64")]
const BF16_PANELS: usize = 1;

/// The blocks of a run in bfloat16, each: row r of the products, `Σ_q a[r][q] · panel[q]`
/// over the pairs of rows `q`, `vdpbf16ps` adding both products of a pair.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bf16")]
unsafe fn block_avx512_bf16<const R: usize>(a: &[u32], q: usize, panels: &[u32], out: Out) {
    // SAFETY (both): as this function's own.
    match out.panels() {
        BF16_PANELS => unsafe { block_avx512_bf16_over::<R, BF16_PANELS>(a, q, panels, out) },
        _ => unsafe { block_avx512_bf16_over::<R, 1>(a, q, panels, out) },
    }
}

/// [`block_avx512_bf16`] over `P` panels side by side (`panels` one after
/// another, `NR · q` pairs each): a load of each panel and R broadcasts of
/// `a` a pair of rows.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bf16")]
unsafe fn block_avx512_bf16_over<const R: usize, const P: usize>(
    a: &[u32],
    q: usize,
    panels: &[u32],
    out: Out,
) {
    use std::arch::x86_64::*;
    out.each_block(R, a, q, |a, out, _first| {
        assert!(a.len() >= R * q && panels.len() >= P * NR * q);
        let mut c = [[_mm512_setzero_ps(); P]; R];
        let ap = a.as_ptr();
        let bp = panels.as_ptr();
        for pair in 0..q {
            // SAFETY: pair < q, so every offset is within the lengths asserted
            // above; a bfloat16 vector is 512 bits, as the integer vector it is
            // read from.
            unsafe {
                let b: [__m512bh; P] = std::array::from_fn(|p| {
                    std::mem::transmute(_mm512_loadu_si512(bp.add(p * NR * q + pair * NR).cast()))
                });
                for (r, cr) in c.iter_mut().enumerate() {
                    let av: __m512bh =
                        std::mem::transmute(_mm512_set1_epi32(*ap.add(r * q + pair) as i32));
                    for (x, &bq) in cr.iter_mut().zip(&b) {
                        *x = _mm512_dpbf16_ps(*x, av, bq);
                    }
                }
            }
        }
        put_registers(&c, out);
    });
}

/// The blocks of a run in bfloat16 on ARM: as [`block_avx512_bf16`], with `bfdot`
/// (four lanes, each adding both products of a pair). A step of a pair of
/// rows is 4 loads of the panel, R load-and-broadcasts of `a` (`ld1r`) and
/// 4R `bfdot`: at six rows 24 dot products to 10 loads, so the dot
/// products' pipes, not the loads, set the pace. Rust's bfloat16
/// intrinsics are not stable, so the instruction is written out.
#[cfg(target_arch = "aarch64")]
#[target_feature(enable = "neon,bf16")]
unsafe fn block_neon_bf16<const R: usize>(a: &[u32], q: usize, panel: &[u32], out: Out) {
    use std::arch::aarch64::*;
    out.each_block(R, a, q, |a, out, _first| {
        assert!(a.len() >= R * q && panel.len() >= NR * q);
        let mut c = [[vdupq_n_f32(0.0); 4]; R];
        let ap = a.as_ptr();
        let bp = panel.as_ptr();
        for pair in 0..q {
            // SAFETY: pair < q, so every offset is within the lengths asserted
            // above; `bfdot` reads and writes registers only, and the
            // processor has it (this function's target feature).
            unsafe {
                let b = [
                    vld1q_u32(bp.add(pair * NR)),
                    vld1q_u32(bp.add(pair * NR + 4)),
                    vld1q_u32(bp.add(pair * NR + 8)),
                    vld1q_u32(bp.add(pair * NR + 12)),
                ];
                for (r, cr) in c.iter_mut().enumerate() {
                    let av = vld1q_dup_u32(ap.add(r * q + pair));
                    for (sum, &bv) in cr.iter_mut().zip(&b) {
                        std::arch::asm!(
                            "bfdot {sum:v}.4s, {b:v}.8h, {a:v}.8h",
                            sum = inout(vreg) *sum,
                            a = in(vreg) av,
                            b = in(vreg) bv,
                            options(pure, nomem, nostack, preserves_flags),
                        );
                    }
                }
            }
        }
        put_registers(&c, out);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_products_run_inside_shapes_of_are_counted_by_shape() {
        let b = Packed::with_precision(3, 20, &[1.0; 60], Precision::F32);
        let (a, mut c) = ([1.0; 15], [0.0; 100]);
        let shapes = shapes_of(|| {
            gemm(5, &a, &b, &mut c, false);
            gemm(5, &a, &b, &mut c, true);
            gemm(2, &a, &b, &mut c, false);
        });
        let shape = |m, calls| ProductShape {
            m,
            k: 3,
            n: 20,
            calls,
        };
        assert_eq!(shapes, [shape(5, 2), shape(2, 1)]);
        assert_eq!(shape(5, 2).flops(), 600.0);
        // The products ran as ever; none is counted after.
        assert_eq!((c[0], c[99]), (3.0, 6.0));
        gemm(1, &a, &b, &mut c, false);
        assert!(RECORDED.with_borrow(Option::is_none));
        assert!(product_gflops(Kernel::Portable, shape(6, 1), 0.01) > 0.0);
    }

    #[test]
    fn bfloat16_products_are_single_precision_ones_to_bfloat16_rounding() {
        if !bf16_available() {
            crate::say!("no bfloat16 dot products ({}) here: skipped", bf16_name());
            return;
        }
        assert_eq!(bf16_bits(1.0), 0x3f80);
        assert_eq!(bf16_bits(1.0 + 1.0 / 256.0), 0x3f80, "a tie rounds to even");
        for (m, k, n) in [(1, 1, 1), (7, 5, 33), (29, 96, 40), (3, 8, 16), (13, 9, 53)] {
            let a: Vec<f32> = (0..m * k)
                .map(|i| ((i * 37 % 101) as f32 - 50.0) / 50.0)
                .collect();
            let b: Vec<f32> = (0..k * n)
                .map(|i| ((i * 53 % 97) as f32 - 48.0) / 40.0)
                .collect();
            let packed = Packed::with_precision(k, n, &b, Precision::Bf16);
            assert!(!packed.pairs.is_empty());
            let mut c = vec![0.5; m * n];
            gemm(m, &a, &packed, &mut c, true);
            for i in 0..m {
                for j in 0..n {
                    let want: f32 = (0..k).map(|kk| a[i * k + kk] * b[kk * n + j]).sum();
                    let scale: f32 = (0..k).map(|kk| (a[i * k + kk] * b[kk * n + j]).abs()).sum();
                    let got = c[i * n + j] - 0.5;
                    assert!(
                        (got - want).abs() <= 1e-2 * scale + 1e-6,
                        "{m}x{k}x{n} [{i}][{j}]: {got} vs {want}"
                    );
                }
            }
        }
    }

    #[test]
    fn matrices_refilled_from_rows_or_columns_pack_as_new_ones() {
        let mut packed = Packed::new(1, 1, &[0.0]);
        for (k, n, pad) in [
            (32, 361, 0),
            (361, 32, 5),
            (3, 17, 2),
            (17, 3, 1),
            (1, 1, 0),
        ] {
            let b: Vec<f32> = (0..k * n).map(|i| i as f32 * 0.25 - 3.0).collect();
            let want = Packed::new(k, n, &b);
            let stride = n + pad;
            let rows: Vec<f32> = (0..k * stride)
                .map(|i| {
                    if i % stride < n {
                        b[i / stride * n + i % stride]
                    } else {
                        f32::NAN
                    }
                })
                .collect();
            packed.refill_rows(k, n, &rows, stride);
            assert_eq!((packed.k, packed.n), (k, n));
            assert_eq!(packed.panels[..], want.panels[..], "rows {k}×{n}");
            let stride = k + pad;
            let columns: Vec<f32> = (0..n * stride)
                .map(|i| {
                    if i % stride < k {
                        b[i % stride * n + i / stride]
                    } else {
                        f32::NAN
                    }
                })
                .collect();
            packed.refill_columns(k, n, &columns, stride);
            assert_eq!(packed.panels[..], want.panels[..], "columns {k}×{n}");
        }
    }

    #[test]
    fn every_kernel_multiplies_matrices_of_any_shape() {
        // Row counts from one block to several uneven ones for each kernel
        // (6 and 14 rows a block), column counts with partial panels and
        // with odd numbers of whole ones (AVX-512 takes two side by side),
        // and rows long enough to be taken a stretch at a time.
        let shapes = [
            (1, 1, 1),
            (4, 3, 16),
            (7, 5, 33),
            (13, 9, 53),
            (15, 4, 17),
            (25, 96, 96),
            (29, 7, 8),
            (40, 2000, 20),
        ];
        // Rows packed, and rows inside wider matrices whose other columns
        // (`pad` a row) are not read in `a` and are left as they are in `c`.
        let cases = shapes
            .into_iter()
            .flat_map(|s| [(s, 0, false), (s, 0, true), (s, 3, false), (s, 3, true)]);
        for kernel in Kernel::available() {
            for ((m, k, n), pad, accumulate) in cases.clone() {
                let strides = RowStrides {
                    a: k + pad,
                    c: n + pad,
                };
                let a: Vec<f32> = (0..m * strides.a)
                    .map(|i| match i % strides.a < k {
                        true => (i % 7) as f32 - 3.0,
                        false => f32::NAN,
                    })
                    .collect();
                let b: Vec<f32> = (0..k * n).map(|i| (i % 5) as f32 - 2.0).collect();
                let mut c = vec![1.0; m * strides.c];
                let packed = Packed::new(k, n, &b);
                gemm_with(
                    kernel,
                    m,
                    &a,
                    &packed,
                    &mut c,
                    strides,
                    Store::written(accumulate),
                );
                let before = if accumulate { 1.0 } else { 0.0 };
                for i in 0..m {
                    for j in 0..n {
                        let want: f32 = before
                            + (0..k)
                                .map(|x| a[i * strides.a + x] * b[x * n + j])
                                .sum::<f32>();
                        let got = c[i * strides.c + j];
                        assert_eq!(got, want, "{kernel:?} {m}×{k}×{n} {pad} {accumulate}");
                    }
                    let rest = &c[i * strides.c + n..(i + 1) * strides.c];
                    assert!(
                        rest.iter().all(|&x| x == 1.0),
                        "{kernel:?} wrote past a row"
                    );
                }
            }
        }
    }

    #[test]
    fn every_kernel_stores_scaled_rows_and_gated_units() {
        // Gated outputs that fill whole panels, an even and an odd number
        // of them, and that leave one short (13 = 8 + 5), rows in uneven
        // blocks, rows inside wider matrices.
        for (m, k, outputs, pad) in [
            (7, 5, 16, 0),
            (9, 20, 40, 1),
            (25, 33, 13, 3),
            (1, 4, 3, 1),
            (40, 96, 24, 2),
        ] {
            let value = |i: usize, p: usize| ((i * p % 23) as f32 - 11.0) / 9.0;
            let a: Vec<f32> = (0..m * (k + pad)).map(|i| value(i, 7)).collect();
            let hidden: Vec<f32> = (0..k * outputs).map(|i| value(i, 5)).collect();
            let gate: Vec<f32> = (0..k * outputs).map(|i| value(i, 11)).collect();
            let scales: Vec<f32> = (0..m).map(|r| 0.5 + r as f32 / 8.0).collect();
            let dot = |w: &[f32], i: usize, j: usize| -> f64 {
                (0..k)
                    .map(|x| f64::from(a[i * (k + pad) + x]) * f64::from(w[x * outputs + j]))
                    .sum()
            };
            let gated = Packed::gated(k, outputs, &hidden, &gate);
            let plain = Packed::new(k, outputs, &hidden);
            for kernel in Kernel::available() {
                let strides = RowStrides {
                    a: k + pad,
                    c: outputs + pad,
                };
                let mut c = vec![1.0; m * strides.c];
                let store = Store::SiluGate {
                    outputs,
                    scales: &scales,
                };
                gemm_with(kernel, m, &a, &gated, &mut c, strides, store);
                let mut scaled = vec![1.0; m * strides.c];
                let store = Store::ScaleRows(&scales);
                gemm_with(kernel, m, &a, &plain, &mut scaled, strides, store);
                for i in 0..m {
                    let s = f64::from(scales[i]);
                    for j in 0..outputs {
                        let (h, g) = (dot(&hidden, i, j) * s, dot(&gate, i, j) * s);
                        let want = h / (1.0 + (-h).exp()) * g;
                        let got = f64::from(c[i * strides.c + j]);
                        assert!(
                            (got - want).abs() <= 1e-5 * (1.0 + want.abs()),
                            "{kernel:?} {m}×{k}×{outputs} gated [{i}][{j}]: {got} vs {want}"
                        );
                        let got = f64::from(scaled[i * strides.c + j]);
                        assert!(
                            (got - h).abs() <= 1e-5 * (1.0 + h.abs()),
                            "{kernel:?} scaled [{i}][{j}]: {got} vs {h}"
                        );
                    }
                    for row in [&c, &scaled] {
                        let rest = &row[i * strides.c + outputs..(i + 1) * strides.c];
                        assert!(
                            rest.iter().all(|&x| x == 1.0),
                            "{kernel:?} wrote past a row"
                        );
                    }
                }
            }
        }
    }
}
