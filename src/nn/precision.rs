//! The precision a network's products run in: one value from the command
//! line (`--precision`, its values and their help written here, on the
//! variants) and a KataGo config's `cudaUseFP16` to the kernels, the CPU's
//! and a GPU's alike, as KataGo carries its fp16 wish from the config to
//! `createComputeContext`. Where none is asked for, the machine chooses
//! ([`Precision::best_on_cpu`], a GPU's by its tensor cores). Which
//! precisions a processor or a GPU runs is said here too, so that a new
//! precision is a variant and its checks in this file, and the backends'
//! own arithmetic.

/// Whether this processor multiplies bfloat16 pairs (AVX-512 BF16 on x86,
/// BF16 on ARM64: Neoverse V1 and N2 on, Apple M2 on).
pub fn bf16_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512bf16")
            && std::arch::is_x86_feature_detected!("avx512f")
    }
    #[cfg(target_arch = "aarch64")]
    {
        std::arch::is_aarch64_feature_detected!("bf16")
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        false
    }
}

/// The bfloat16 dot products' name, as the backend's name gives it.
pub fn bf16_name() -> &'static str {
    if cfg!(target_arch = "aarch64") {
        "neon-bf16"
    } else {
        "avx512-bf16"
    }
}

/// The precision of a network's products.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Precision {
    /// Single precision throughout.
    #[default]
    F32,
    /// The CPU's: both factors rounded to bfloat16, sums in single
    /// precision (processors with AVX-512 BF16, or ARM's BF16).
    Bf16,
    /// A GPU's: factors in half precision on the tensor cores, sums in
    /// single precision.
    F16,
}

impl Precision {
    /// Its name, as `--precision` takes it and the backends' names give it.
    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::Bf16 => "bf16",
            Precision::F16 => "f16",
        }
    }

    /// What the CPU multiplies in where nothing is asked for.
    pub fn best_on_cpu() -> Precision {
        Precision::F32
    }

    /// What a GPU multiplies in where nothing is asked for: half-precision
    /// factors where it has tensor cores.
    pub fn best_on_gpu(tensor_cores: bool) -> Precision {
        if tensor_cores {
            Precision::F16
        } else {
            Precision::F32
        }
    }

    /// Whether this processor runs it, or why not (naming what it lacks).
    pub fn check_on_cpu(self) -> Result<Precision, String> {
        match self {
            Precision::F32 => Ok(self),
            Precision::Bf16 if bf16_available() => Ok(self),
            Precision::Bf16 => Err(format!(
                "this processor has no {}",
                if cfg!(target_arch = "aarch64") {
                    "BF16 dot products (ARM's FEAT_BF16)"
                } else {
                    "AVX-512 BF16 instructions"
                }
            )),
            Precision::F16 => Err("half-precision products are a GPU's".into()),
        }
    }

    /// Whether a GPU runs it, or why not.
    pub fn check_on_gpu(self) -> Result<Precision, String> {
        match self {
            Precision::F32 | Precision::F16 => Ok(self),
            Precision::Bf16 => Err("bfloat16 is the CPU's; a GPU multiplies in f16 or f32".into()),
        }
    }

    /// Whether it needs a GPU (no processor runs it).
    pub fn needs_gpu(self) -> bool {
        self == Precision::F16
    }

    /// Whether a GPU's products take half-precision factors.
    pub fn half_factors(self) -> bool {
        self == Precision::F16
    }

    /// The CPU's products' name in it, beside the kernel's (`avx512`), and
    /// how many multiply-adds a lane its instructions do where an FMA does
    /// one (`vdpbf16ps` and `bfdot` do two).
    pub fn on_cpu(self, kernel: &'static str) -> (&'static str, f64) {
        match self {
            Precision::Bf16 => (bf16_name(), 2.0),
            Precision::F32 | Precision::F16 => (kernel, 1.0),
        }
    }
}

impl std::fmt::Display for Precision {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    #[test]
    fn each_precision_is_named_as_the_command_line_takes_it() {
        for &p in Precision::value_variants() {
            let value = p.to_possible_value().unwrap();
            assert_eq!(value.get_name(), p.name());
            assert_eq!(Precision::from_str(p.name(), false), Ok(p));
        }
    }

    #[test]
    fn the_cpu_and_a_gpu_each_refuse_the_others_precision() {
        assert!(Precision::F16.check_on_cpu().is_err());
        assert!(Precision::Bf16.check_on_gpu().is_err());
        assert_eq!(Precision::F32.check_on_cpu(), Ok(Precision::F32));
        assert_eq!(Precision::F32.check_on_gpu(), Ok(Precision::F32));
        assert_eq!(Precision::best_on_gpu(true), Precision::F16);
        assert_eq!(Precision::best_on_gpu(false), Precision::F32);
        assert_eq!(
            Precision::Bf16.check_on_cpu().is_ok(),
            bf16_available(),
            "bfloat16 where the processor has its products"
        );
    }
}
