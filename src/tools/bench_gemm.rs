//! `kosumi bench --nn --gemm`: the matrix products a net's forward pass
//! runs on the CPU, each shape timed alone with the kernel in force, so
//! that a kernel's rate is read product by product against the core's
//! nominal peak, and against another library's on the same shapes
//! (`scripts/gemm_reference.py` times numpy's OpenBLAS beside it).

use crate::go::game::Game;
use crate::nn::{Evaluation, Evaluator, Kernel, ProductShape, Request};

/// The processor's model and the vector extensions the kernels use, as
/// `/proc/cpuinfo` names them (Linux), for the head of the figures.
pub fn processor() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        info.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
    };
    let model = field("model name").unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let flags = field("flags")
        .or_else(|| field("Features"))
        .unwrap_or_default();
    let wanted = ["avx2", "fma", "avx512f", "avx512_bf16", "asimd", "bf16"];
    let has: Vec<&str> = wanted
        .into_iter()
        .filter(|w| flags.split_whitespace().any(|f| f == *w))
        .collect();
    format!("processor=\"{model}\" flags={}", has.join(","))
}

/// How the products are timed: the net, its kernel, the core's clock
/// (MHz, where known) and the position of each board size.
pub struct Setup<'a> {
    pub net: &'a Evaluator,
    pub kernel: Kernel,
    pub mhz: Option<f64>,
    pub position: fn(usize) -> Game,
}

/// A line for each product of the net's pass at batch 1 on each size (its
/// shape, calls, share of the pass's product operations, GFLOP/s alone
/// and share of the nominal peak), then the pass's products at those
/// rates; the processor first.
pub fn products(sizes: &[usize], seconds: f64, setup: Setup) -> Result<(), String> {
    let Setup {
        net,
        kernel,
        mhz,
        position,
    } = setup;
    if !net.on_processor() {
        return Err("bench --gemm times the CPU's products: add --backend cpu".into());
    }
    let peak = mhz
        .map(|mhz| mhz * 1e-3 * kernel.peak_flops_per_cycle())
        .filter(|&p| p > 0.0);
    println!("bench gemm {} kernel={}", processor(), kernel.name());
    for &size in sizes {
        let game = position(size);
        let request = Request::of(&game);
        let mut out = [Evaluation::default()];
        let shapes = crate::nn::shapes_of(|| net.evaluate_batch(&[request], &mut out));
        let total: f64 = shapes.iter().map(|s| s.flops() * s.calls as f64).sum();
        let mut seconds_a_pass = 0.0;
        for shape in &shapes {
            let ProductShape { m, k, n, calls } = *shape;
            let gflops = crate::nn::product_gflops(kernel, *shape, seconds);
            let work = shape.flops() * calls as f64;
            seconds_a_pass += work / (gflops * 1e9);
            let mut line = format!(
                "bench gemm board={size} nn={} m={m} k={k} n={n} calls={calls} share_of_pass={:.3} gflops={gflops:.1}",
                net.name(),
                work / total
            );
            if let Some(peak) = peak {
                line += &format!(" share_of_peak={:.2}", gflops / peak);
            }
            println!("{line}");
        }
        let mut line = format!(
            "bench gemm board={size} nn={} products={} gflop_a_pass={:.3} ms_a_pass={:.2} gflops={:.1}",
            net.name(),
            shapes.len(),
            total / 1e9,
            seconds_a_pass * 1e3,
            total / seconds_a_pass / 1e9
        );
        if let Some(peak) = peak {
            line += &format!(
                " peak_gflops={peak:.1} share_of_peak={:.2}",
                total / seconds_a_pass / 1e9 / peak
            );
        }
        println!("{line}");
    }
    Ok(())
}
