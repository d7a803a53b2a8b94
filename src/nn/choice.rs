//! Which backend runs the networks loaded from now on: the CPU's, or CUDA's
//! where the build has it (`--features cuda`) and the machine a GPU that
//! starts. Chosen once at start (`--backend auto|cpu|cuda`, `--gpu N`, or
//! KataGo's `cudaDeviceToUse`/`gpuToUse`): `cuda` without a GPU is refused
//! with the reason; `auto` takes the GPU where there is one and otherwise
//! the CPU, saying why once (a build without a GPU backend says nothing
//! unless a GPU was named). A net the GPU does not take (its memory, or a
//! failure of the driver) is refused where `cuda` was asked for, and runs
//! on the CPU, said, under `auto`.

use super::backend::Backend;
use super::model::ModelDesc;
use std::sync::Mutex;

/// What was asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendKind {
    /// A GPU where the build and the machine have one, else the CPU.
    Auto,
    Cpu,
    /// An NVIDIA GPU through CUDA.
    Cuda,
}

/// What is in force: the kind asked for, the GPU, and whether the GPU
/// answered.
#[derive(Clone, Copy, Debug)]
// A build without a GPU backend reads the kind and whether a GPU answered.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
struct Choice {
    kind: BackendKind,
    gpu: usize,
    gpu_ready: bool,
    /// A GPU's products in half precision: asked for, or (`None`) where
    /// the GPU has tensor cores (compute capability 7 on).
    half: Option<bool>,
    /// The most boards a GPU's batch holds (KataGo's `nnMaxBatchSize`).
    max_batch: Option<usize>,
}

static CHOICE: Mutex<Choice> = Mutex::new(Choice {
    kind: BackendKind::Auto,
    gpu: 0,
    gpu_ready: false,
    half: None,
    max_batch: None,
});

/// Caps the boards a GPU's batch holds (KataGo's `nnMaxBatchSize`; 256
/// where nothing says).
pub fn set_gpu_max_batch(boards: usize) {
    CHOICE.lock().unwrap_or_else(|e| e.into_inner()).max_batch = Some(boards.max(1));
}

/// Whether the networks loaded from now on run on a GPU.
pub fn gpu_in_force() -> bool {
    CHOICE.lock().unwrap_or_else(|e| e.into_inner()).gpu_ready
}

/// Whether this build has a GPU backend.
pub const GPU_BUILT: bool = cfg!(feature = "cuda");

/// Sets the backend of the networks loaded from now on, after checking
/// that it runs here: `Cuda` where the build or the machine has no GPU is
/// refused with the reason; `Auto` falls back to the CPU, the reason said
/// once on stderr (a build without a GPU backend says nothing). `half`: a
/// GPU's products in half precision (`None`: where it has tensor cores).
pub fn choose_backend(
    kind: BackendKind,
    gpu: Option<usize>,
    half: Option<bool>,
) -> Result<(), String> {
    if kind == BackendKind::Cpu && gpu.is_some() {
        return Err("a GPU number goes with a GPU backend (--backend cuda or auto)".into());
    }
    let gpu_number = gpu.unwrap_or(0);
    let probed = match kind {
        BackendKind::Cpu => Ok(false),
        BackendKind::Cuda | BackendKind::Auto => gpu_answers(gpu_number).map(|()| true),
    };
    let gpu_ready = match (kind, probed) {
        (_, Ok(ready)) => ready,
        (BackendKind::Cuda, Err(why)) => return Err(why),
        (_, Err(_)) if !GPU_BUILT && gpu.is_none() => false,
        // Auto never refuses: a GPU named (KataGo's `cudaDeviceToUse` in
        // a config made for a GPU machine) that does not answer is said.
        (_, Err(why)) => {
            eprintln!("kosumi: no GPU ({why}); the networks run on the CPU");
            false
        }
    };
    let mut choice = CHOICE.lock().unwrap_or_else(|e| e.into_inner());
    *choice = Choice {
        kind,
        gpu: gpu_number,
        gpu_ready,
        half,
        max_batch: choice.max_batch,
    };
    Ok(())
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

/// The backend in force for `desc`: the GPU's where it was chosen and runs
/// the net, the CPU's otherwise (said once under `auto`); an error where
/// `cuda` was asked for and the GPU does not run the net.
pub(crate) fn backend_for(desc: &ModelDesc) -> Result<Box<dyn Backend>, String> {
    let choice = *CHOICE.lock().unwrap_or_else(|e| e.into_inner());
    let cpu = || -> Box<dyn Backend> { Box::new(super::cpu::network::Network::new(desc)) };
    if !choice.gpu_ready {
        return Ok(cpu());
    }
    match gpu_backend(desc, &choice) {
        Ok(backend) => Ok(backend),
        Err(why) if choice.kind == BackendKind::Cuda => Err(why),
        Err(why) => {
            eprintln!("kosumi: {} runs on the CPU: {why}", desc.name);
            Ok(cpu())
        }
    }
}

/// `desc` on the GPU `choice` names, as it says.
fn gpu_backend(desc: &ModelDesc, choice: &Choice) -> Result<Box<dyn Backend>, String> {
    #[cfg(feature = "cuda")]
    {
        use super::gpu::cuda;
        let max_batch = choice.max_batch.unwrap_or(cuda::MAX_BATCH);
        let network = cuda::network(desc, choice.gpu, choice.half, max_batch)?;
        Ok(Box::new(network))
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (desc, choice);
        Err("this kosumi was built without a GPU backend".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gpu_asked_for_where_there_is_none_is_refused_with_the_reason() {
        // Where a GPU answers (the device check) the choice would stand
        // and move the other tests' nets to it: this test is for the
        // machines without one.
        if gpu_answers(0).is_ok() {
            eprintln!("a GPU answers here: skipped");
            return;
        }
        let why = choose_backend(BackendKind::Cuda, None, None).unwrap_err();
        if GPU_BUILT {
            assert!(
                why.contains("not on this machine") || why.contains("GPU"),
                "{why}"
            );
        } else {
            assert!(why.contains("built without a GPU backend"), "{why}");
        }
        // The refusal leaves what was in force; a GPU's number needs a GPU
        // backend; the CPU runs the nets.
        assert!(!CHOICE.lock().unwrap().gpu_ready);
        assert!(choose_backend(BackendKind::Cpu, Some(1), None).is_err());
        assert!(choose_backend(BackendKind::Cuda, Some(3), None).is_err());
        choose_backend(BackendKind::Cpu, None, None).unwrap();
        let desc = ModelDesc::parse(super::super::EMBEDDED_MODEL).unwrap();
        assert!(backend_for(&desc).unwrap().name().starts_with("cpu"));
        choose_backend(BackendKind::Auto, None, None).unwrap();
        assert!(!CHOICE.lock().unwrap().gpu_ready);
    }
}
