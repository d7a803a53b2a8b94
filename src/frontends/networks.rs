//! The networks a command line asks for, set up before any front end
//! starts: the backends held to the machine (`--backend`, `--gpu`,
//! `--nn-max-batch`, `--precision`, a KataGo config's `cudaUseFP16`, and
//! `bench --kernel`), then the network (`--nn`, `--model`, or the embedded
//! one) and a human-like net (`--human-model`) on them. What the machine
//! or the files refuse comes back as the message to print, naming the
//! option it came from; a wish that cannot be met where it was only a
//! wish (a config's) is set aside with a line on stderr.

use crate::nn::{BackendKind, Backends, Evaluator, Kernel, Options, OptionsError, Precision};
use std::path::Path;

/// The precision asked for with `--precision` (or a config's wish).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrecisionChoice {
    /// Single precision on the CPU, half-precision factors on a GPU with
    /// tensor cores.
    Auto,
    F32,
    Bf16,
    F16,
}

/// How the networks are asked to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackendChoice {
    pub backend: BackendKind,
    pub gpu: Option<usize>,
    pub max_batch: Option<usize>,
    pub precision: PrecisionChoice,
    /// A KataGo config's `cudaUseFP16`: a GPU's precision where a GPU runs
    /// the networks and `--precision` was not given.
    pub config_precision: Option<PrecisionChoice>,
    /// `bench --kernel`: the CPU's kernel by name.
    pub kernel: Option<String>,
}

impl BackendChoice {
    /// The backends, held to the machine before any network is loaded: a
    /// GPU asked for where there is none (or the build has no GPU
    /// backend), a precision or kernel the processor lacks, are refused
    /// with the reason rather than quietly run otherwise.
    pub fn backends(&self) -> Result<Backends, String> {
        let name = format!("{:?}", self.backend).to_lowercase();
        // A GPU's products in half precision unless f32 is asked for (f16
        // where the GPU has tensor cores, under auto).
        let half = match self.precision {
            PrecisionChoice::Auto => None,
            PrecisionChoice::F16 => Some(true),
            PrecisionChoice::F32 | PrecisionChoice::Bf16 => Some(false),
        };
        let kernel = match &self.kernel {
            Some(k) => Some(Kernel::named(k).map_err(|e| format!("bench --kernel {k}: {e}"))?),
            None => None,
        };
        let options = Options {
            backend: self.backend,
            gpu: self.gpu,
            half,
            max_batch: self.max_batch,
            precision: match self.precision {
                PrecisionChoice::Bf16 => Precision::Bf16,
                _ => Precision::F32,
            },
            kernel,
        };
        // The kernel was checked above: what the processor lacks is
        // bfloat16.
        let backends = options.check().map_err(|e| match e {
            OptionsError::Processor(why) => format!("--precision bf16: {why}"),
            OptionsError::Bf16OnGpu => {
                "--precision bf16 is the CPU's; a GPU multiplies in f16 or f32 (or --backend cpu)"
                    .into()
            }
            e if self.precision == PrecisionChoice::F16 => {
                format!("--precision f16: half-precision products are a GPU's: {e}")
            }
            e => match self.gpu {
                Some(n) => format!("--backend {name} --gpu {n}: {e}"),
                None => format!("--backend {name}: {e}"),
            },
        })?;
        let auto = self.precision == PrecisionChoice::Auto;
        Ok(match self.config_precision {
            Some(wish) if auto && backends.on_gpu() => {
                backends.with_half(wish == PrecisionChoice::F16)
            }
            Some(PrecisionChoice::F16) if auto => {
                eprintln!(
                    "kosumi: cudaUseFP16 = true is a GPU's setting and no GPU runs the networks here: set aside (the CPU multiplies in f32)"
                );
                backends
            }
            _ => backends,
        })
    }
}

/// The network `--nn` (`on`) and `--model` ask for on `backends`: none
/// with `--nn off`, the embedded one without a model; the reason where
/// the file does not load or the two contradict each other.
pub fn network(
    nn: bool,
    model: Option<&Path>,
    backends: &Backends,
) -> Result<Option<Evaluator>, String> {
    match (nn, model) {
        (false, Some(_)) => Err("--model names a network and --nn off asks for none".into()),
        (false, None) => Ok(None),
        (true, Some(path)) => Evaluator::load_on(path, backends)
            .map(Some)
            .map_err(|e| format!("--model {}: {e}", path.display())),
        (true, None) => Ok(Some(Evaluator::embedded_on(backends))),
    }
}

/// The human-like net `--human-model` names, beside a network
/// (`with_network`); the reason where it does not load. A net that reads
/// no profile is taken with a warning.
pub fn human_network(
    path: &Path,
    with_network: bool,
    backends: &Backends,
) -> Result<Evaluator, String> {
    if !with_network {
        return Err("--human-model goes beside a network (--nn off asks for none)".into());
    }
    let net = Evaluator::load_on(path, backends)
        .map_err(|e| format!("--human-model {}: {e}", path.display()))?;
    if !net.is_human() {
        log::warn!(
            "--human-model {}: this net reads no profile (no metadata encoder)",
            path.display()
        );
    }
    Ok(net)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choice() -> BackendChoice {
        BackendChoice {
            backend: BackendKind::Cpu,
            gpu: None,
            max_batch: None,
            precision: PrecisionChoice::Auto,
            config_precision: None,
            kernel: None,
        }
    }

    #[test]
    fn each_refusal_names_the_option_it_came_from() {
        let kernel = BackendChoice {
            kernel: Some("sse9".into()),
            ..choice()
        };
        assert!(
            kernel
                .backends()
                .unwrap_err()
                .starts_with("bench --kernel sse9: ")
        );
        if !crate::nn::GPU_BUILT {
            let half = BackendChoice {
                backend: BackendKind::Auto,
                precision: PrecisionChoice::F16,
                ..choice()
            };
            let err = half.backends().unwrap_err();
            assert!(err.starts_with("--precision f16: "), "{err}");
            let cuda = BackendChoice {
                backend: BackendKind::Cuda,
                gpu: Some(3),
                ..choice()
            };
            let err = cuda.backends().unwrap_err();
            assert!(err.starts_with("--backend cuda --gpu 3: "), "{err}");
        }
    }

    #[test]
    fn a_configs_half_precision_wish_is_set_aside_without_a_gpu() {
        let wish = BackendChoice {
            backend: BackendKind::Auto,
            config_precision: Some(PrecisionChoice::F16),
            ..choice()
        };
        if !crate::nn::GPU_BUILT {
            let backends = wish.backends().unwrap();
            assert!(!backends.on_gpu());
        }
    }

    #[test]
    fn a_model_with_no_network_asked_for_is_refused_and_none_is_none() {
        let backends = choice().backends().unwrap();
        let err = network(false, Some(Path::new("x.bin.gz")), &backends).unwrap_err();
        assert!(err.contains("--nn off"), "{err}");
        assert!(network(false, None, &backends).unwrap().is_none());
        let err = network(true, Some(Path::new("/no/such/net.bin.gz")), &backends).unwrap_err();
        assert!(err.starts_with("--model /no/such/net.bin.gz: "), "{err}");
        let err = human_network(Path::new("h.bin.gz"), false, &backends).unwrap_err();
        assert!(err.contains("beside a network"), "{err}");
    }
}
