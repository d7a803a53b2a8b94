//! How the networks run, as one value given when a network is loaded
//! ([`Options`], as KataGo passes its settings to `createComputeContext`
//! and lc0 its options to the backend's factory): the backend asked for
//! (`--backend auto|cpu|cuda`), the GPU (`--gpu N`, KataGo's
//! `cudaDeviceToUse`), a GPU's largest batch (`--nn-max-batch`), the
//! precision ([`Precision`]: `--precision`, or a KataGo config's
//! `cudaUseFP16` wish) and the CPU's kernel (`bench --kernel`).
//! [`Options::check`] holds them to the machine once, at start, into
//! [`Backends`]: `cuda` without a GPU is refused with the reason; `auto`
//! takes the GPU where there is one and otherwise the CPU, saying why once
//! (a build without a GPU backend says nothing unless a GPU was named); a
//! precision is held to what runs it. Each refusal names the option it
//! came from. A net the GPU does not take (its memory, or a failure of the
//! driver) is refused where `cuda` was asked for, and runs on the CPU,
//! said, under `auto`. Nothing of it is kept by the process: each network
//! holds what it was loaded with.

use super::backend::Backend;
use super::cpu::gemm::{Arithmetic, Kernel};
use super::gpu::ops::{GpuAttention, GpuConv, GpuTrunk};
use super::model::ModelDesc;
use super::precision::Precision;
use std::sync::Arc;

/// What was asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum BackendKind {
    /// A GPU where this build has a GPU backend and the machine a GPU,
    /// else the CPU.
    #[default]
    Auto,
    /// The processor.
    Cpu,
    /// An NVIDIA GPU (builds with --features cuda), refused with the
    /// reason where there is none.
    Cuda,
}

impl BackendKind {
    fn name(self) -> &'static str {
        match self {
            BackendKind::Auto => "auto",
            BackendKind::Cpu => "cpu",
            BackendKind::Cuda => "cuda",
        }
    }
}

/// How the networks are to run, as asked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    pub backend: BackendKind,
    /// The GPU (CUDA's device number); 0 where not named.
    pub gpu: Option<usize>,
    /// The most boards a GPU's batch holds (KataGo's `nnMaxBatchSize`;
    /// 256 where not given).
    pub max_batch: Option<usize>,
    /// The products' precision; `None`: the best of whatever runs the
    /// networks ([`Precision::best_on_cpu`], a GPU's by its tensor cores).
    pub precision: Option<Precision>,
    /// A KataGo config's wish for a GPU's precision (`cudaUseFP16`): taken
    /// where a GPU runs the networks and `precision` is `None`, said once
    /// and set aside where none does.
    pub config_precision: Option<Precision>,
    /// The CPU's kernel where not the fastest the processor runs.
    pub kernel: Option<Kernel>,
    /// How a GPU runs attention.
    pub attention: GpuAttention,
    /// How a GPU runs its 3×3 convolutions; `None`: cuDNN where it is
    /// here, else im2col.
    pub gpu_conv: Option<GpuConv>,
    /// Where a GPU whose products are f16 keeps the trunk.
    pub gpu_trunk: GpuTrunk,
    /// A GPU's passes launch each operation instead of replaying a CUDA
    /// graph of them (`--no-graphs`).
    pub no_graphs: bool,
    /// The passes a GPU runs at once, each on its own thread's stream
    /// (`--gpu-passes`; 2 where not given).
    pub gpu_passes: Option<usize>,
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

/// Why options were refused; each says the option it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionsError {
    /// A GPU's number with the CPU backend.
    GpuNumberOnCpu,
    /// A kernel the processor does not run.
    Kernel(Kernel, String),
    /// A precision that what runs the networks does not run.
    Precision(Precision, String),
    /// A GPU was needed (`cuda`, or a GPU's precision) and none answered.
    NoGpu {
        backend: BackendKind,
        gpu: Option<usize>,
        why: String,
    },
}

impl std::fmt::Display for OptionsError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            OptionsError::GpuNumberOnCpu => {
                f.write_str("--gpu: a GPU number goes with a GPU backend (--backend cuda or auto)")
            }
            OptionsError::Kernel(kernel, why) => {
                write!(f, "bench --kernel {}: {why}", kernel.name())
            }
            OptionsError::Precision(precision, why) => write!(f, "--precision {precision}: {why}"),
            OptionsError::NoGpu { backend, gpu, why } => match gpu {
                Some(n) => write!(f, "--backend {} --gpu {n}: {why}", backend.name()),
                None => write!(f, "--backend {}: {why}", backend.name()),
            },
        }
    }
}

impl std::error::Error for OptionsError {}

/// Whether this build has a GPU backend.
pub const GPU_BUILT: bool = cfg!(feature = "cuda");

impl Options {
    /// Holds the options to the machine: a GPU asked for (`cuda`, or a
    /// GPU's precision) where the build or the machine has none is refused
    /// with the reason, as are a GPU's number on the CPU, a precision that
    /// what runs the networks lacks, and a kernel the processor does not
    /// run; `auto` without a GPU falls back to the CPU, the reason said
    /// once on stderr (a build without a GPU backend says nothing unless a
    /// GPU was named), and a config's wish for a GPU's precision is then
    /// said and set aside.
    pub fn check(self) -> Result<Backends, OptionsError> {
        if self.backend == BackendKind::Cpu && self.gpu.is_some() {
            return Err(OptionsError::GpuNumberOnCpu);
        }
        if let Some(kernel) = self.kernel {
            kernel
                .check()
                .map_err(|why| OptionsError::Kernel(kernel, why))?;
        }
        let refused = |precision: Precision, why: String| OptionsError::Precision(precision, why);
        // A GPU's precision needs a GPU: under auto, one must answer.
        let needs_gpu = self.precision.is_some_and(Precision::needs_gpu);
        let probed = match self.backend {
            BackendKind::Cpu => Ok(false),
            BackendKind::Cuda | BackendKind::Auto => {
                gpu_answers(self.gpu.unwrap_or(0)).map(|()| true)
            }
        };
        let gpu_ready = match probed {
            Ok(ready) => ready,
            Err(why) if needs_gpu => {
                let precision = self.precision.unwrap_or_default();
                let what = precision.check_on_cpu().err().unwrap_or_default();
                return Err(refused(precision, format!("{what}: {why}")));
            }
            Err(why) if self.backend == BackendKind::Cuda => {
                return Err(OptionsError::NoGpu {
                    backend: self.backend,
                    gpu: self.gpu,
                    why,
                });
            }
            Err(_) if !GPU_BUILT && self.gpu.is_none() => false,
            // Auto never refuses: a GPU named (KataGo's `cudaDeviceToUse`
            // in a config made for a GPU machine) that does not answer is
            // said.
            Err(why) => {
                crate::say!("kosumi: no GPU ({why}); the networks run on the CPU");
                false
            }
        };
        let mut options = self;
        if let Some(precision) = self.precision {
            match gpu_ready {
                true => precision.check_on_gpu(),
                false => precision.check_on_cpu(),
            }
            .map_err(|why| refused(precision, why))?;
        }
        match self.config_precision {
            // A config's wish a GPU does not run is a wish: set aside.
            Some(wish) if gpu_ready && wish.check_on_gpu().is_err() => {
                options.config_precision = None;
            }
            Some(_) if gpu_ready => {}
            Some(wish) => {
                // Said where it was the precision's only word.
                if wish.needs_gpu() && self.precision.is_none() {
                    crate::say!(
                        "kosumi: cudaUseFP16 = true is a GPU's setting and no GPU runs the networks here: set aside (the CPU multiplies in f32)"
                    );
                }
                options.config_precision = None;
            }
            None => {}
        }
        Ok(Backends { options, gpu_ready })
    }
}

impl Backends {
    /// Whether the networks loaded with these run on a GPU.
    pub fn on_gpu(&self) -> bool {
        self.gpu_ready
    }

    /// The precision a GPU runs the networks in: as asked, else as a
    /// config wished, else (`None`) the GPU's best.
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    fn gpu_precision(&self) -> Option<Precision> {
        self.options.precision.or(self.options.config_precision)
    }

    /// The kernel of the CPU's products: as asked, else the fastest.
    pub fn cpu_kernel(&self) -> Kernel {
        self.arithmetic().kernel
    }

    /// The CPU's arithmetic.
    fn arithmetic(&self) -> Arithmetic {
        Arithmetic {
            kernel: self.options.kernel.unwrap_or_else(Kernel::detected),
            precision: self
                .options
                .precision
                .unwrap_or_else(Precision::best_on_cpu),
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
                crate::say!("kosumi: {} runs on the CPU: {why}", desc.name);
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
            let settings = cuda::Settings {
                precision: self.gpu_precision(),
                max_batch,
                attention: o.attention,
                conv: o.gpu_conv,
                trunk: o.gpu_trunk,
                graphs: !o.no_graphs,
                in_flight: o.gpu_passes.unwrap_or(cuda::PASSES_IN_FLIGHT),
            };
            let network = cuda::network(desc, o.gpu.unwrap_or(0), settings)?;
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
            crate::say!("a GPU answers here: skipped");
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
            precision: Some(Precision::F16),
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
        let request = super::super::Request::of(&game);
        let (a, b) = (slow.evaluate(request), fast.evaluate(request));
        assert!((a.white_win - b.white_win).abs() < 1e-4);
    }

    #[test]
    fn each_refusal_names_the_option_it_came_from() {
        let cpu = Options {
            backend: BackendKind::Cpu,
            ..Options::default()
        };
        let numbered = Options {
            gpu: Some(1),
            ..cpu
        };
        assert!(
            numbered
                .check()
                .unwrap_err()
                .to_string()
                .starts_with("--gpu: ")
        );
        let f16 = Options {
            precision: Some(Precision::F16),
            ..cpu
        };
        let err = f16.check().unwrap_err().to_string();
        assert!(err.starts_with("--precision f16: "), "{err}");
        if !crate::nn::precision::bf16_available() {
            let bf16 = Options {
                precision: Some(Precision::Bf16),
                ..cpu
            };
            let err = bf16.check().unwrap_err().to_string();
            assert!(err.starts_with("--precision bf16: "), "{err}");
        }
        if let Some(missing) = Kernel::ALL.iter().find(|k| k.check().is_err()) {
            let kernel = Options {
                kernel: Some(*missing),
                ..cpu
            };
            let err = kernel.check().unwrap_err().to_string();
            assert!(err.starts_with("bench --kernel "), "{err}");
        }
        if !GPU_BUILT {
            let half = Options {
                precision: Some(Precision::F16),
                ..Options::default()
            };
            let err = half.check().unwrap_err().to_string();
            assert!(err.starts_with("--precision f16: "), "{err}");
            let cuda = Options {
                backend: BackendKind::Cuda,
                gpu: Some(3),
                ..Options::default()
            };
            let err = cuda.check().unwrap_err().to_string();
            assert!(err.starts_with("--backend cuda --gpu 3: "), "{err}");
        }
    }

    #[test]
    fn a_configs_gpu_precision_is_a_wish_set_aside_where_no_gpu_runs_the_nets() {
        let wish = Options {
            backend: BackendKind::Cpu,
            config_precision: Some(Precision::F16),
            ..Options::default()
        };
        let backends = wish.check().unwrap();
        assert!(!backends.on_gpu());
        assert_eq!(backends.gpu_precision(), None);
        assert_eq!(backends.arithmetic().precision, Precision::F32);
        // Asked for, a precision wins over a config's wish.
        let asked = Options {
            precision: Some(Precision::F32),
            config_precision: Some(Precision::F16),
            ..Options::default()
        };
        if !GPU_BUILT {
            assert_eq!(asked.check().unwrap().gpu_precision(), Some(Precision::F32));
        }
    }
}
