//! The GPU backend: the network compiled to a [`program`] of device
//! operations on numbered buffers, run by the [`executor`] on a
//! [`device`]: CUDA's (`cuda`, behind the `cuda` feature: the [`kernels`]
//! by NVRTC, cuBLAS, cuDNN's convolutions in `cudnn`), or in the tests an emulator that runs the same
//! kernels compiled for the host (`emulator`). The host's executor of a
//! program ([`host`], plain loops) holds a program to the CPU backend in
//! the tests.

/// Items a device runs or needs: built with the CUDA backend, and in the
/// tests on Unix, where the emulator runs the kernels on the host. The
/// predicate is written here alone, as tokio writes its `cfg_rt!`; the
/// modules below the macro use it.
macro_rules! cfg_device {
    ($($item:item)*) => {
        $(
            #[cfg(any(feature = "cuda", all(test, unix)))]
            $item
        )*
    };
}

#[cfg(feature = "cuda")]
pub(crate) mod cuda;
#[cfg(feature = "cuda")]
mod cudnn;
cfg_device! {
    pub(crate) mod device;
    pub(crate) mod executor;
}
#[cfg(all(test, unix))]
mod emulator;
#[cfg(test)]
pub(crate) mod host;
pub(crate) mod kernels;
pub(crate) mod ops;
// Without a device (a build without the GPU backend, or the tests where
// the emulator does not run) the roofline and the host's executor read a
// program: what the device's executor reads of it goes unused there. (The
// device's predicate, as `cfg_device!` writes it: an attribute cannot be
// made by that macro.)
#[cfg_attr(not(any(feature = "cuda", all(test, unix))), allow(dead_code))]
pub(crate) mod program;
pub(crate) mod roofline;

#[cfg(test)]
pub(crate) mod tests {
    /// Holds `backend` (of `desc`) to the CPU backend: a few positions on each
    /// board size of `sizes`, three symmetries in one batch, every output
    /// within `tolerance` (relative: `tolerance · (1 + |x|)`).
    pub(crate) fn holds_to_the_cpu(
        desc: &crate::nn::model::ModelDesc,
        backend: std::sync::Arc<dyn crate::nn::backend::Backend>,
        sizes: &[(usize, usize)],
        tolerance: f32,
    ) {
        use crate::go::board::{BoardSize, Color};
        use crate::go::game::Game;
        use crate::go::rules::Rules;
        use crate::nn::{Evaluation, Evaluator, Request};
        let cpu = Evaluator::new(desc);
        let other = Evaluator::with_backend(desc, backend);
        if cpu.is_human() {
            let profile = crate::nn::HumanProfile::parse("rank_3d").ok();
            assert!(profile.is_some());
            cpu.set_profile(profile.clone());
            other.set_profile(profile);
        }
        let name = &desc.name;
        for &(width, height) in sizes {
            let mut game = Game::new(BoardSize { width, height }, Rules::default(), 7.5);
            let mut color = Color::Black;
            for i in 0..6 {
                let p = game
                    .board()
                    .point((i * 5 + 1) % width, (i * 3 + 2) % height);
                if game.play(color, Some(p)).is_ok() {
                    color = color.opponent();
                }
            }
            let requests: Vec<Request> = (0..3)
                .map(|symmetry| Request {
                    game: &game,
                    to_move: color,
                    fresh: true,
                    symmetry,
                    white_advantage: 0.0,
                })
                .collect();
            let mut a = vec![Evaluation::default(); 3];
            let mut b = a.clone();
            cpu.evaluate_batch(&requests, &mut a);
            other.evaluate_batch(&requests, &mut b);
            let at = format!("{name} {width}×{height} on {}", other.backend_name());
            for (x, y) in a.iter().zip(&b) {
                let close = |p: f32, q: f32| (p - q).abs() <= tolerance * (1.0 + p.abs());
                let pairs = [
                    (x.white_win, y.white_win),
                    (x.white_lead, y.white_lead),
                    (x.pass, y.pass),
                ];
                for (what, (p, q)) in ["win", "lead", "pass"].iter().zip(pairs) {
                    assert!(close(p, q), "{at}: {what} {p} {q}");
                }
                for (p, q) in x.policy.iter().zip(&y.policy) {
                    assert!(close(*p, *q), "{at}: policy {p} {q}");
                }
                for (p, q) in x.white_ownership().zip(y.white_ownership()) {
                    assert!(close(p, q), "{at}: ownership {p} {q}");
                }
            }
        }
    }

    /// What NVRTC gives every program without a header: the qualifiers,
    /// the thread indices and the math functions the kernels call.
    const NVRTC_PRELUDE: &str = r#"
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __forceinline__ __inline__ __attribute__((always_inline))
#include <__clang_cuda_builtin_vars.h>
extern "C" __device__ float expf(float);
extern "C" __device__ float exp2f(float);
extern "C" __device__ float log1pf(float);
extern "C" __device__ float tanhf(float);
extern "C" __device__ float sqrtf(float);
extern "C" __device__ float rsqrtf(float);
extern "C" __device__ float fmaxf(float, float);
extern "C" __device__ float sinf(float);
extern "C" __device__ float cosf(float);
extern "C" __device__ float powf(float, float);
__device__ inline float __shfl_xor_sync(unsigned mask, float value, int lane) {
    return __nvvm_shfl_sync_bfly_f32(mask, value, lane, 0x1f);
}
"#;

    #[test]
    fn the_kernels_compile_for_a_gpu() {
        // clang's CUDA front end, with NVRTC's built-ins declared, checks
        // the kernels' source to PTX where no CUDA is installed (CI
        // installs clang and sets KOSUMI_REQUIRE_KERNEL_CHECKS; a machine without
        // it says so and skips).
        let dir = std::env::temp_dir().join(format!("kosumi-kernels-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let source = dir.join("kernels.cu");
        std::fs::write(
            &source,
            format!("{NVRTC_PRELUDE}\n{}", super::kernels::source()),
        )
        .unwrap();
        let out = std::process::Command::new("clang")
            .args([
                "-x",
                "cuda",
                "--cuda-device-only",
                "-nocudainc",
                "-nocudalib",
            ])
            // PTX 7.0 (CUDA 11), for the warps' exchanges.
            .args(["-Xclang", "-target-feature", "-Xclang", "+ptx70"])
            .args(["--cuda-gpu-arch=sm_70", "-Wall", "-Werror", "-S", "-o"])
            .arg(dir.join("kernels.ptx"))
            .arg(&source)
            .output();
        let Ok(out) = out else {
            assert!(
                std::env::var_os("KOSUMI_REQUIRE_KERNEL_CHECKS").is_none(),
                "KOSUMI_REQUIRE_KERNEL_CHECKS is set but clang does not run"
            );
            crate::say!("no clang here: skipped");
            return;
        };
        let ptx = std::fs::read_to_string(dir.join("kernels.ptx")).unwrap_or_default();
        let _ = std::fs::remove_dir_all(&dir);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        for kernel in super::kernels::Kernel::ALL.iter().map(|k| k.name()) {
            assert!(
                ptx.contains(&format!(".entry {kernel}(")),
                "{kernel} in the PTX"
            );
        }
    }
}
