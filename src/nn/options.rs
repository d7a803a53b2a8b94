//! How the networks run, as one value given when a network is loaded
//! ([`Options`], as KataGo passes its settings to `createComputeContext`
//! and lc0 its options to the backend's factory): the backend asked for
//! (`--backend auto|cpu|cuda`), the GPU (`--gpu N`, KataGo's
//! `cudaDeviceToUse`), a GPU's largest batch (`--nn-max-batch`) and half
//! precision, and the CPU's precision and kernel. [`Options::check`]
//! holds them to the machine once, at start, into [`Backends`]: `cuda`
//! without a GPU is refused with the reason; `auto` takes the GPU where
//! there is one and otherwise the CPU, saying why once (a build without a
//! GPU backend says nothing unless a GPU was named); bfloat16 needs the
//! processor's dot products, half precision a GPU. A net the GPU does not
//! take (its memory, or a failure of the driver) is refused where `cuda`
//! was asked for, and runs on the CPU, said, under `auto`. Nothing of it is
//! kept by the process: each network holds what it was loaded with.

use super::backend::Backend;
use super::cpu::gemm::{Arithmetic, Kernel, Precision};
use super::model::ModelDesc;
use std::sync::Arc;

/// What was asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BackendKind {
    /// A GPU where the build and the machine have one, else the CPU.
    #[default]
    Auto,
    Cpu,
    /// An NVIDIA GPU through CUDA.
    Cuda,
}

/// How the networks are to run, as asked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    pub backend: BackendKind,
    /// The GPU (CUDA's device number); 0 where not named.
    pub gpu: Option<usize>,
    /// A GPU's products in half precision: asked for, or (`None`) where
    /// the GPU has tensor cores (compute capability 7 on).
    pub half: Option<bool>,
    /// The most boards a GPU's batch holds (KataGo's `nnMaxBatchSize`;
    /// 256 where not given).
    pub max_batch: Option<usize>,
    /// The CPU's products.
    pub precision: Precision,
    /// The CPU's kernel where not the fastest the processor runs.
    pub kernel: Option<Kernel>,
}

/// [`Options`] held to the machine: what each network loaded with them
/// runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backends {
    options: Options,
    /// Whether the GPU answered (and is to be used).
    gpu_ready: bool,
}

impl Default for Backends {
    /// The CPU, its fastest kernel, single precision.
    fn default() -> Backends {
        Backends {
            options: Options {
                backend: BackendKind::Cpu,
                ..Options::default()
            },
            gpu_ready: false,
        }
    }
}

/// Why options were refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionsError {
    /// A GPU's number with the CPU backend.
    GpuNumberOnCpu,
    /// The processor lacks the precision's or the kernel's instructions.
    Processor(String),
    /// A GPU was needed (`cuda`, or half precision) and none answered.
    NoGpu(String),
    /// bfloat16 asked for where a GPU runs the networks.
    Bf16OnGpu,
}

impl std::fmt::Display for OptionsError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            OptionsError::GpuNumberOnCpu => {
                f.write_str("a GPU number goes with a GPU backend (--backend cuda or auto)")
            }
            OptionsError::Processor(why) | OptionsError::NoGpu(why) => f.write_str(why),
            OptionsError::Bf16OnGpu => {
                f.write_str("bfloat16 is the CPU's; a GPU multiplies in f16 or f32")
            }
        }
    }
}

impl std::error::Error for OptionsError {}

/// Whether this build has a GPU backend.
pub const GPU_BUILT: bool = cfg!(feature = "cuda");

impl Options {
    /// Holds the options to the machine: a GPU asked for (`cuda`, or half
    /// precision) where the build or the machine has none is refused with
    /// the reason, as are a GPU's number on the CPU, bfloat16 where the
    /// processor lacks its products or a GPU runs the nets, and a kernel
    /// the processor does not run; `auto` without a GPU falls back to the
    /// CPU, the reason said once on stderr (a build without a GPU backend
    /// says nothing unless a GPU was named).
    pub fn check(self) -> Result<Backends, OptionsError> {
        if self.backend == BackendKind::Cpu && self.gpu.is_some() {
            return Err(OptionsError::GpuNumberOnCpu);
        }
        self.precision.check().map_err(OptionsError::Processor)?;
        if let Some(kernel) = self.kernel {
            Kernel::named(kernel.name()).map_err(OptionsError::Processor)?;
        }
        // Half-precision products need a GPU: under auto, one must answer.
        let kind = match self.backend {
            BackendKind::Auto if self.half == Some(true) => BackendKind::Cuda,
            kind => kind,
        };
        let probed = match kind {
            BackendKind::Cpu => Ok(false),
            BackendKind::Cuda | BackendKind::Auto => {
                gpu_answers(self.gpu.unwrap_or(0)).map(|()| true)
            }
        };
        let gpu_ready = match (kind, probed) {
            (_, Ok(ready)) => ready,
            (BackendKind::Cuda, Err(why)) => return Err(OptionsError::NoGpu(why)),
            (_, Err(_)) if !GPU_BUILT && self.gpu.is_none() => false,
            // Auto never refuses: a GPU named (KataGo's `cudaDeviceToUse`
            // in a config made for a GPU machine) that does not answer is
            // said.
            (_, Err(why)) => {
                eprintln!("kosumi: no GPU ({why}); the networks run on the CPU");
                false
            }
        };
        if gpu_ready && self.precision == Precision::Bf16 {
            return Err(OptionsError::Bf16OnGpu);
        }
        Ok(Backends {
            options: self,
            gpu_ready,
        })
    }
}

impl Backends {
    /// Whether the networks loaded with these run on a GPU.
    pub fn on_gpu(&self) -> bool {
        self.gpu_ready
    }

    /// With a GPU's products in half precision or not (KataGo's
    /// `cudaUseFP16`, a config's wish): the GPU already answered, so
    /// nothing is probed again.
    pub fn with_half(mut self, half: bool) -> Backends {
        self.options.half = Some(half);
        self
    }

    /// The CPU's arithmetic.
    fn arithmetic(&self) -> Arithmetic {
        Arithmetic {
            kernel: self.options.kernel.unwrap_or_else(Kernel::detected),
            precision: self.options.precision,
        }
    }

    /// The backend for `desc`: the GPU's where one was chosen and runs the
    /// net, the CPU's otherwise (said once under `auto`); an error where
    /// `cuda` was asked for and the GPU does not run the net.
    pub(crate) fn backend_for(&self, desc: &ModelDesc) -> Result<Arc<dyn Backend>, String> {
        use super::cpu::network::{CpuBackend, Network};
        let cpu = || -> Arc<dyn Backend> {
            Arc::new(CpuBackend::new(Network::with_arithmetic(
                desc,
                self.arithmetic(),
            )))
        };
        if !self.gpu_ready {
            return Ok(cpu());
        }
        match self.gpu_backend(desc) {
            Ok(backend) => Ok(backend),
            Err(why) if self.options.backend == BackendKind::Cuda => Err(why),
            Err(why) => {
                eprintln!("kosumi: {} runs on the CPU: {why}", desc.name);
                Ok(cpu())
            }
        }
    }

    /// `desc` on the GPU chosen, as the options say.
    fn gpu_backend(&self, desc: &ModelDesc) -> Result<Arc<dyn Backend>, String> {
        #[cfg(feature = "cuda")]
        {
            use super::gpu::cuda;
            let o = &self.options;
            let max_batch = o.max_batch.unwrap_or(cuda::MAX_BATCH);
            let network = cuda::network(desc, o.gpu.unwrap_or(0), o.half, max_batch)?;
            Ok(Arc::new(network))
        }
        #[cfg(not(feature = "cuda"))]
        {
            let _ = desc;
            Err("this kosumi was built without a GPU backend".into())
        }
    }
}

/// Whether GPU `gpu` starts, or why not.
fn gpu_answers(gpu: usize) -> Result<(), String> {
    #[cfg(feature = "cuda")]
    {
        super::gpu::cuda::probe(gpu).map(|_| ())
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = gpu;
        Err(
            "this kosumi was built without a GPU backend (cargo build --release --features cuda)"
                .into(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gpu_asked_for_where_there_is_none_is_refused_with_the_reason() {
        // This test is for the machines without a GPU.
        if gpu_answers(0).is_ok() {
            eprintln!("a GPU answers here: skipped");
            return;
        }
        let cuda = Options {
            backend: BackendKind::Cuda,
            ..Options::default()
        };
        let why = cuda.check().unwrap_err().to_string();
        if GPU_BUILT {
            assert!(
                why.contains("not on this machine") || why.contains("GPU"),
                "{why}"
            );
        } else {
            assert!(why.contains("built without a GPU backend"), "{why}");
        }
        // Half precision asks for a GPU; a GPU's number needs a GPU
        // backend; auto and the CPU run the nets on the CPU.
        let half = Options {
            half: Some(true),
            ..Options::default()
        };
        assert!(half.check().is_err());
        let numbered_cpu = Options {
            backend: BackendKind::Cpu,
            gpu: Some(1),
            ..Options::default()
        };
        assert!(numbered_cpu.check().is_err());
        for backend in [BackendKind::Cpu, BackendKind::Auto] {
            let backends = Options {
                backend,
                ..Options::default()
            }
            .check()
            .unwrap();
            assert!(!backends.on_gpu());
            let desc = ModelDesc::parse(super::super::EMBEDDED_MODEL).unwrap();
            assert!(
                backends
                    .backend_for(&desc)
                    .unwrap()
                    .attributes()
                    .name
                    .clone()
                    .starts_with("cpu")
            );
        }
    }

    #[test]
    fn each_network_keeps_the_arithmetic_it_was_loaded_with() {
        // Two nets at once, one in the portable kernel: each names its
        // own, and their evaluations agree closely.
        let portable = Options {
            backend: BackendKind::Cpu,
            kernel: Some(Kernel::Portable),
            ..Options::default()
        }
        .check()
        .unwrap();
        let desc = ModelDesc::parse(super::super::EMBEDDED_MODEL).unwrap();
        let slow = super::super::Evaluator::on(&desc, &portable).unwrap();
        let fast = super::super::Evaluator::on(&desc, &Backends::default()).unwrap();
        assert_eq!(slow.backend_name(), "cpu portable");
        assert_eq!(
            fast.backend_name(),
            format!("cpu {}", Kernel::detected().name())
        );
        let game = crate::go::game::Game::new(9, crate::go::rules::Rules::default(), 7.5);
        let request = super::super::Request {
            game: &game,
            to_move: game.to_move(),
            fresh: false,
            symmetry: 0,
            white_advantage: 0.0,
        };
        let (a, b) = (slow.evaluate(request), fast.evaluate(request));
        assert!((a.white_win - b.white_win).abs() < 1e-4);
    }
}
