//! CUDA as a [`Device`]: the [`kernels`](super::kernels) compiled by NVRTC for the GPU at
//! hand, cuBLAS for the products (single precision, or half-precision
//! factors with single-precision sums on the tensor cores), cuDNN for the
//! convolutions where it is here ([`super::cudnn`]), a CUDA stream with
//! its own cuBLAS and cuDNN handles for each queue. The libraries are loaded at
//! run time (cudarc's dynamic loading): a build with the `cuda` feature
//! runs on a machine without CUDA, where [`probe`] says why there is no GPU
//! rather than failing inside the loader.

use super::cudnn::Convolver;
use super::device::{
    Arg, Convolution, Device, F32s, Factors, Gemm, Halves, HostBuffer, HostMemory, Launch, Output,
    Queue,
};
use super::executor::{GpuNetwork, GpuSettings, SCORE_VALUES};
use super::kernels::Kernel;
use crate::nn::gpu::ops::{GpuAttention, GpuConv, GpuTrunk};
use crate::nn::model::ModelDesc;
use crate::nn::precision::Precision;
use cudarc::cublas::CudaBlas;
use cudarc::cublas::sys::{cublasComputeType_t, cublasGemmAlgo_t, cublasOperation_t, cudaDataType};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, DeviceRepr, LaunchConfig,
    PinnedHostSlice, PushKernelArg, ValidAsZeroBits,
};
use std::sync::{Arc, Mutex};

pub(crate) use super::executor::{MAX_BATCH, PASSES_IN_FLIGHT};

/// Why there is no GPU to run on: a library missing, no device, or a
/// device that failed to start.
pub(crate) fn probe(gpu: usize) -> Result<Arc<CudaContext>, String> {
    // SAFETY: each only tries to open the library by its names.
    let present = unsafe {
        [
            (
                "the CUDA driver (libcuda)",
                cudarc::driver::sys::is_culib_present(),
            ),
            ("NVRTC (libnvrtc)", cudarc::nvrtc::sys::is_culib_present()),
            (
                "cuBLAS (libcublas)",
                cudarc::cublas::sys::is_culib_present(),
            ),
        ]
    };
    if let Some((name, _)) = present.iter().find(|(_, here)| !here) {
        return Err(format!("{name} is not on this machine"));
    }
    let count = CudaContext::device_count().map_err(|e| format!("CUDA: {e}"))?;
    if gpu >= count.max(0) as usize {
        return Err(match count {
            0 => "the CUDA driver finds no GPU".to_string(),
            n => format!(
                "there is no GPU {gpu}: the CUDA driver finds {n} (0 to {})",
                n - 1
            ),
        });
    }
    CudaContext::new(gpu).map_err(|e| format!("GPU {gpu} does not start: {e}"))
}

/// How a net is to run on a GPU, as the options say.
pub(crate) struct Settings {
    /// The products' precision, or with `None` the GPU's best:
    /// half-precision factors where it has tensor cores (compute
    /// capability 7 on).
    pub(crate) precision: Option<Precision>,
    pub(crate) max_batch: usize,
    pub(crate) attention: GpuAttention,
    /// How the 3×3 convolutions run, or with `None` through cuDNN where it
    /// is on the machine, else by im2col.
    pub(crate) conv: Option<GpuConv>,
    pub(crate) trunk: GpuTrunk,
    pub(crate) graphs: bool,
    /// The passes run at once.
    pub(crate) in_flight: usize,
}

/// `desc` on GPU `gpu` as `settings` say, or why not.
pub(crate) fn network(
    desc: &ModelDesc,
    gpu: usize,
    settings: Settings,
) -> Result<GpuNetwork, String> {
    let device = CudaDevice::open(gpu)?;
    let precision = (settings.precision).unwrap_or(Precision::best_on_gpu(device.tensor_cores));
    let conv = settings.conv.unwrap_or(match device.convolutions() {
        Ok(_) => GpuConv::Cudnn,
        Err(_) => GpuConv::Im2col,
    });
    let settings = GpuSettings {
        precision,
        max_batch: settings.max_batch,
        attention: settings.attention,
        conv,
        trunk: settings.trunk,
        score_values: SCORE_VALUES,
        graphs: settings.graphs,
        in_flight: settings.in_flight,
    };
    GpuNetwork::new(desc, Box::new(device), settings).map_err(|why| format!("CUDA: {why}"))
}

/// The kernels compiled by NVRTC for compute capability `major.minor`.
fn compile(major: i32, minor: i32) -> Result<cudarc::nvrtc::Ptx, String> {
    let arch: &'static str = Box::leak(format!("compute_{major}{minor}").into_boxed_str());
    let options = cudarc::nvrtc::CompileOptions {
        arch: Some(arch),
        ..Default::default()
    };
    cudarc::nvrtc::compile_ptx_with_opts(super::kernels::source(), options)
        .map_err(|e| format!("NVRTC: the kernels do not compile for {arch}: {e:?}"))
}

/// A failure of the device, as the user reads it.
fn said(what: &str) -> impl Fn(cudarc::driver::DriverError) -> String + '_ {
    move |e| format!("CUDA: {what}: {e}")
}

/// A GPU with the kernels loaded and the weights kept.
struct CudaDevice {
    ctx: Arc<CudaContext>,
    name: String,
    /// Whether it has tensor cores (compute capability 7 on), where
    /// half-precision products pay.
    tensor_cores: bool,
    compute_capability: (i32, i32),
    /// The kernels, in [`Kernel::ALL`]'s order.
    kernels: Vec<CudaFunction>,
    kept: Mutex<Vec<CudaSlice<f32>>>,
    kept_halves: Mutex<Vec<CudaSlice<u16>>>,
    /// cuDNN's version where it is here, else why not.
    cudnn: Result<String, String>,
}

impl CudaDevice {
    /// GPU `gpu` with the kernels compiled for its architecture.
    fn open(gpu: usize) -> Result<CudaDevice, String> {
        let ctx = probe(gpu)?;
        let name = ctx.name().map_err(said("the device's name"))?;
        let (major, minor) = ctx
            .compute_capability()
            .map_err(said("the compute capability"))?;
        let ptx = compile(major, minor)?;
        let module = ctx.load_module(ptx).map_err(said("the kernels' module"))?;
        let kernels = Kernel::ALL
            .iter()
            .map(|k| module.load_function(k.name()).map_err(said(k.name())))
            .collect::<Result<Vec<_>, String>>()?;
        Ok(CudaDevice {
            ctx,
            name: format!("cuda {name}"),
            tensor_cores: major >= 7,
            compute_capability: (major, minor),
            kernels,
            kept: Mutex::new(Vec::new()),
            kept_halves: Mutex::new(Vec::new()),
            cudnn: super::cudnn::library(),
        })
    }
}

impl CudaDevice {
    /// `values` copied to the GPU, waited for; the copy and its address.
    fn upload<T: DeviceRepr>(&self, values: &[T]) -> Result<(CudaSlice<T>, u64), String> {
        let stream = self.ctx.default_stream();
        let slice = stream
            .clone_htod(values)
            .map_err(said("the weights (out of GPU memory?)"))?;
        stream.synchronize().map_err(said("the weights' upload"))?;
        let at = slice.device_ptr(&stream).0;
        Ok((slice, at))
    }
}

impl Device for CudaDevice {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn keep(&self, values: &[f32]) -> Result<F32s, String> {
        let (slice, at) = self.upload(values)?;
        self.kept
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(slice);
        Ok(F32s::at(at))
    }

    fn keep_halves(&self, bits: &[u16]) -> Result<Halves, String> {
        let (slice, at) = self.upload(bits)?;
        let mut kept = self.kept_halves.lock().unwrap_or_else(|e| e.into_inner());
        kept.push(slice);
        Ok(Halves::at(at))
    }

    fn queue(&self) -> Result<Box<dyn Queue>, String> {
        let stream = self.ctx.new_stream().map_err(said("a stream"))?;
        let blas = CudaBlas::new(stream.clone()).map_err(|e| format!("cuBLAS: {e:?}"))?;
        Ok(Box::new(CudaQueue {
            stream,
            blas,
            kernels: self.kernels.clone(),
            f32s: Vec::new(),
            halves: Vec::new(),
            marks: Vec::new(),
            graphs: Vec::new(),
            convolver: None,
            cudnn: self.cudnn.is_ok(),
        }))
    }

    fn convolutions(&self) -> Result<String, String> {
        self.cudnn.clone()
    }

    fn warp_products(&self) -> Result<(), String> {
        let (major, minor) = self.compute_capability;
        match major >= 8 {
            true => Ok(()),
            false => Err(format!(
                "the tensor cores' warp products (mma.sync m16n8k16) need compute capability \
                 8.0 or later; {} has {major}.{minor}",
                self.name
            )),
        }
    }
}

/// A stream, its cuBLAS handle and what it allocated.
struct CudaQueue {
    stream: Arc<CudaStream>,
    blas: CudaBlas,
    kernels: Vec<CudaFunction>,
    f32s: Vec<CudaSlice<f32>>,
    halves: Vec<CudaSlice<u16>>,
    /// The events of a profiled pass.
    marks: Vec<cudarc::driver::CudaEvent>,
    /// The graphs captured on this stream, by number.
    graphs: Vec<cudarc::driver::CudaGraph>,
    /// cuDNN on this stream, made on the first convolution.
    convolver: Option<Convolver>,
    /// Whether cuDNN is here.
    cudnn: bool,
}

// SAFETY: a queue is used by one thread at a time (the evaluator's pool
// hands its workspace out); its stream and handle are its own.
unsafe impl Send for CudaQueue {}

/// Page-locked host memory, and its values' address and count.
struct Pinned {
    /// Frees the memory when dropped.
    _memory: PinnedHostSlice<f32>,
    at: *mut f32,
    len: usize,
}

// SAFETY: the memory is owned by one workspace, used by one thread at a
// time; the device's copies into and out of it are waited for (the
// queue's `synchronize`) before the host reads or writes it again.
unsafe impl Send for Pinned {}

impl HostMemory for Pinned {
    fn values(&self) -> &[f32] {
        // SAFETY: `len` values at `at`, zeroed when made, no copy in
        // flight (as above).
        unsafe { std::slice::from_raw_parts(self.at, self.len) }
    }

    fn values_mut(&mut self) -> &mut [f32] {
        // SAFETY: as `values`, through `&mut self`.
        unsafe { std::slice::from_raw_parts_mut(self.at, self.len) }
    }
}

impl CudaQueue {
    /// `n` zeroed values on this queue's stream, and their address.
    fn zeroed<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        n: usize,
    ) -> Result<(CudaSlice<T>, u64), String> {
        let slice = self.stream.alloc_zeros::<T>(n).map_err(|e| {
            let mib = (n * std::mem::size_of::<T>()) >> 20;
            format!("{mib} MiB on the GPU: {e}")
        })?;
        let at = slice.device_ptr(&self.stream).0;
        Ok((slice, at))
    }

    /// cuDNN on this stream, made where it is not yet.
    fn convolver(&mut self) -> Result<&mut Convolver, String> {
        if !self.cudnn {
            return Err("cuDNN is not on this machine".into());
        }
        self.bind()?;
        if self.convolver.is_none() {
            self.convolver = Some(Convolver::on(self.stream.clone())?);
        }
        Ok(self.convolver.as_mut().expect("made"))
    }

    /// Makes the GPU's context this thread's: a workspace may come to
    /// another thread than the one that made it, and the driver's calls
    /// below cudarc's own (copies, cuBLAS) act on the thread's context.
    fn bind(&self) -> Result<(), String> {
        self.stream
            .context()
            .bind_to_thread()
            .map_err(said("the context"))
    }
}

impl Queue for CudaQueue {
    fn free(&mut self) {
        // The graphs name the buffers: they go first.
        self.graphs.clear();
        if let Some(convolver) = &mut self.convolver {
            convolver.forget_graphs();
        }
        self.f32s.clear();
        self.halves.clear();
    }

    fn alloc(&mut self, n: usize) -> Result<F32s, String> {
        let (slice, at) = self.zeroed(n)?;
        self.f32s.push(slice);
        Ok(F32s::at(at))
    }

    fn alloc_halves(&mut self, n: usize) -> Result<Halves, String> {
        let (slice, at) = self.zeroed(n)?;
        self.halves.push(slice);
        Ok(Halves::at(at))
    }

    fn host(&mut self, n: usize) -> HostBuffer {
        let n = n.max(1);
        // Cached, not write-combined: the host reads the heads back.
        // SAFETY: the values are zeroed before anything reads them.
        let pinned = unsafe { self.stream.context().alloc_pinned_with_flags::<f32>(n, 0) };
        match pinned.and_then(|mut memory| Ok((memory.as_mut_ptr()?, memory))) {
            Ok((at, memory)) => {
                // SAFETY: `n` values of page-locked memory just made.
                unsafe { std::ptr::write_bytes(at, 0, n) };
                HostBuffer::new(Box::new(Pinned {
                    _memory: memory,
                    at,
                    len: n,
                }))
            }
            // Plain memory copies all the same, the host waiting.
            Err(_) => HostBuffer::plain(n),
        }
    }

    fn upload(&mut self, src: &[f32], dst: F32s) -> Result<(), String> {
        self.bind()?;
        // SAFETY: `dst` is an allocation of this queue of at least
        // `src.len()` values (the executor sizes its buffers so).
        unsafe {
            cudarc::driver::result::memcpy_htod_async(dst.addr(), src, self.stream.cu_stream())
        }
        .map_err(said("the inputs' upload"))
    }

    fn download(&mut self, src: F32s, dst: &mut [f32]) -> Result<(), String> {
        self.bind()?;
        // SAFETY: as `upload`; the copy is waited for before `dst` is read
        // (`synchronize`).
        unsafe {
            cudarc::driver::result::memcpy_dtoh_async(dst, src.addr(), self.stream.cu_stream())
        }
        .map_err(said("the heads' download"))
    }

    fn launch(&mut self, kernel: Kernel, launch: Launch, args: &[Arg]) -> Result<(), String> {
        let f = &self.kernels[kernel as usize];
        let mut builder = self.stream.launch_builder(f);
        for arg in args {
            match arg {
                Arg::Ptr(p) => builder.arg(p),
                Arg::I32(v) => builder.arg(v),
                Arg::I64(v) => builder.arg(v),
                Arg::F32(v) => builder.arg(v),
            };
        }
        let config = LaunchConfig {
            grid_dim: launch.grid,
            block_dim: launch.block,
            shared_mem_bytes: launch.shared_bytes,
        };
        // SAFETY: the arguments are those the source declares for the
        // kernel, in its order, each address an allocation sized by the
        // executor for the launch's shape.
        unsafe { builder.launch(config) }
            .map(|_| ())
            .map_err(said(kernel.name()))
    }

    fn gemm(&mut self, g: Gemm) -> Result<(), String> {
        self.bind()?;
        let (a, b, kind, compute) = match g.factors {
            Factors::F16 { a, b } => (
                a.addr(),
                b.addr(),
                cudaDataType::CUDA_R_16F,
                cublasComputeType_t::CUBLAS_COMPUTE_32F,
            ),
            Factors::Tf32 { a, b } => (
                a.addr(),
                b.addr(),
                cudaDataType::CUDA_R_32F,
                cublasComputeType_t::CUBLAS_COMPUTE_32F_FAST_TF32,
            ),
            Factors::F32 { a, b } => (
                a.addr(),
                b.addr(),
                cudaDataType::CUDA_R_32F,
                cublasComputeType_t::CUBLAS_COMPUTE_32F_PEDANTIC,
            ),
        };
        // Row-major `c = a · op(b)` is column-major `cᵀ = op(b)ᵀ · aᵀ`: the
        // memory of row-major `b` is column-major `bᵀ`, transposed again
        // where `b` is to be read transposed.
        let op_b = match g.b_transposed {
            true => cublasOperation_t::CUBLAS_OP_T,
            false => cublasOperation_t::CUBLAS_OP_N,
        };
        let (c, c_kind) = match g.c {
            Output::F32(c) => (c.addr(), cudaDataType::CUDA_R_32F),
            Output::F16(c) => (c.addr(), cudaDataType::CUDA_R_16F),
        };
        let int = |v: usize| i32::try_from(v).map_err(|_| format!("cuBLAS: {v} is too large"));
        let (m, k, n) = (int(g.m)?, int(g.k)?, int(g.n)?);
        let (ld_a, ld_b, ld_c, batches) =
            (int(g.ld_a)?, int(g.ld_b)?, int(g.ld_c)?, int(g.batches)?);
        // SAFETY: the addresses hold the matrices of those sizes, strides
        // and types (the executor's buffers and kept weights); alpha and
        // beta are single precision, as a 32-bit compute type reads them.
        unsafe {
            cudarc::cublas::result::gemm_strided_batched_ex(
                *self.blas.handle(),
                op_b,
                cublasOperation_t::CUBLAS_OP_N,
                n,
                m,
                k,
                (&g.alpha as *const f32).cast(),
                b as *const std::ffi::c_void,
                kind,
                ld_b,
                g.step_b as i64,
                a as *const std::ffi::c_void,
                kind,
                ld_a,
                g.step_a as i64,
                (&g.beta as *const f32).cast(),
                c as *mut std::ffi::c_void,
                c_kind,
                ld_c,
                g.step_c as i64,
                batches,
                compute,
                cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
            )
        }
        .map_err(|e| format!("cuBLAS: {batches} products of {m}×{k} by {k}×{n}: {e:?}"))
    }

    fn convolve(&mut self, c: Convolution) -> Result<(), String> {
        self.convolver()?.convolve(c)
    }

    fn plan_convolution(&mut self, c: Convolution) -> Result<(), String> {
        self.convolver()?.plan(&c).map(|_| ())
    }

    fn mark(&mut self) -> Result<(), String> {
        let flags = cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT;
        let event = self
            .stream
            .record_event(Some(flags))
            .map_err(said("an event"))?;
        self.marks.push(event);
        Ok(())
    }

    fn take_mark_intervals(&mut self) -> Result<Vec<f64>, String> {
        let marks = std::mem::take(&mut self.marks);
        marks
            .windows(2)
            .map(|w| {
                w[0].elapsed_ms(&w[1])
                    .map(f64::from)
                    .map_err(said("an event's time"))
            })
            .collect()
    }

    fn begin_capture(&mut self) -> Result<(), String> {
        let mode = cudarc::driver::sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL;
        self.stream
            .begin_capture(mode)
            .map_err(said("a graph's capture"))
    }

    fn end_capture(&mut self) -> Result<usize, String> {
        let flags = cudarc::driver::sys::CUgraphInstantiate_flags(0);
        let graph = self
            .stream
            .end_capture(flags)
            .map_err(said("a graph's capture"))?
            .ok_or("CUDA: a graph's capture recorded nothing")?;
        self.graphs.push(graph);
        Ok(self.graphs.len() - 1)
    }

    fn replay(&mut self, graph: usize) -> Result<(), String> {
        let graph = self.graphs.get(graph).ok_or("CUDA: no such graph")?;
        graph.launch().map_err(said("a graph"))
    }

    fn synchronize(&mut self) -> Result<(), String> {
        self.stream.synchronize().map_err(said("the forward pass"))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_kernels_compile_with_nvrtc_and_assemble_for_each_architecture() {
        // NVIDIA's own compiler where it is here (CI installs NVRTC and
        // ptxas from NVIDIA's Python wheels and sets KOSUMI_REQUIRE_NVRTC):
        // the source as a GPU's driver takes it, then the PTX through
        // ptxas (`KOSUMI_PTXAS`) for Volta, Ampere and Hopper, so that an
        // inline assembly's mistake is found without a GPU.
        // SAFETY: only tries to open the library by its names.
        if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
            assert!(
                std::env::var_os("KOSUMI_REQUIRE_NVRTC").is_none(),
                "KOSUMI_REQUIRE_NVRTC is set but NVRTC (libnvrtc) is not found"
            );
            crate::say!("no NVRTC here: skipped");
            return;
        }
        let ptxas = std::env::var_os("KOSUMI_PTXAS");
        assert!(
            ptxas.is_some() || std::env::var_os("KOSUMI_REQUIRE_NVRTC").is_none(),
            "KOSUMI_REQUIRE_NVRTC is set but KOSUMI_PTXAS is not"
        );
        let dir = std::env::temp_dir().join(format!("kosumi-ptx-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (major, minor) in [(7, 0), (8, 0), (9, 0)] {
            let ptx = super::compile(major, minor).unwrap().to_src();
            for kernel in super::Kernel::ALL {
                assert!(ptx.contains(&format!(".entry {}(", kernel.name())));
            }
            // The warps' products are written only from compute 8.0 on.
            assert_eq!(ptx.contains("mma.sync.aligned.m16n8k16"), major >= 8);
            let Some(ptxas) = &ptxas else { continue };
            let file = dir.join(format!("kernels-{major}{minor}.ptx"));
            std::fs::write(&file, &ptx).unwrap();
            let out = std::process::Command::new(ptxas)
                .arg(format!("-arch=sm_{major}{minor}"))
                .arg(&file)
                .arg("-o")
                .arg(dir.join(format!("kernels-{major}{minor}.cubin")))
                .output()
                .expect("ptxas runs");
            assert!(
                out.status.success(),
                "ptxas for sm_{major}{minor}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
