//! cuDNN's convolutions on a CUDA queue's stream, as KataGo's CUDA backend
//! runs its 3×3 ones: NHWC tensors, a KRSC filter, in half precision on the
//! tensor cores (sums in single) or in single precision on CUDA's cores
//! (FMA only, no TF32). Each shape's descriptors and algorithm (cuDNN's
//! heuristics' first that runs) are made once and kept; the workspace
//! grows to the largest asked. cuDNN is loaded at run time like the other
//! libraries; [`library`] says whether it is here and which.

use super::device::{ConvTensors, Convolution};
use cudarc::cudnn::result as dnn;
use cudarc::cudnn::sys;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr};
use std::sync::Arc;

/// cuDNN's version, as `major.minor.patch`, where a cuDNN of version 9 on
/// (the API these bindings are of) is on the machine; else why not.
pub(crate) fn library() -> Result<String, String> {
    // SAFETY: only tries to open the library by its names.
    if !unsafe { sys::is_culib_present() } {
        return Err("cuDNN (libcudnn) is not on this machine".into());
    }
    let v = dnn::get_version();
    let version = format!("{}.{}.{}", v / 10000, v / 100 % 100, v % 100);
    if v < 90000 {
        return Err(format!(
            "cuDNN {version} is older than 9, which kosumi reads"
        ));
    }
    // cuDNN 9 loads its parts (the operations', the convolutions') when
    // first asked: each found, and of the same version, or said here
    // rather than at the first pass.
    // SAFETY: version 9's checks, which only read the libraries.
    let parts = unsafe {
        sys::cudnnOpsVersionCheck()
            .result()
            .and_then(|()| sys::cudnnCnnVersionCheck().result())
    };
    match parts {
        Ok(()) => Ok(format!("cuDNN {version}")),
        Err(e) => Err(format!("cuDNN {version} is incomplete here: {e:?}")),
    }
}

/// The most workspace an algorithm may ask (cuDNN's heuristics rank some
/// that want gigabytes, FFTs, which a net's 3×3 convolutions do not need).
const MOST_WORKSPACE: usize = 256 << 20;

/// What cuDNN says of a failure, as the user reads it.
fn said(what: &str) -> impl Fn(cudarc::cudnn::CudnnError) -> String + '_ {
    move |e| format!("cuDNN: {what}: {e:?}")
}

/// What the choice of algorithm for a convolution depends on: the shapes
/// and the precision, not the addresses or the scalars.
type Key = (usize, usize, usize, usize, usize, usize, bool);

fn key(c: &Convolution) -> Key {
    let half = matches!(c.tensors, ConvTensors::F16 { .. });
    (c.batch, c.height, c.width, c.cin, c.cout, c.size, half)
}

/// One shape's descriptors and algorithm.
struct Plan {
    key: Key,
    x: sys::cudnnTensorDescriptor_t,
    w: sys::cudnnFilterDescriptor_t,
    conv: sys::cudnnConvolutionDescriptor_t,
    y: sys::cudnnTensorDescriptor_t,
    algo: sys::cudnnConvolutionFwdAlgo_t,
    workspace: usize,
}

impl Drop for Plan {
    fn drop(&mut self) {
        // SAFETY: made by this plan, freed once here.
        unsafe {
            let _ = dnn::destroy_tensor_descriptor(self.x);
            let _ = dnn::destroy_filter_descriptor(self.w);
            let _ = dnn::destroy_convolution_descriptor(self.conv);
            let _ = dnn::destroy_tensor_descriptor(self.y);
        }
    }
}

/// A cuDNN handle on one stream, its plans and workspaces.
pub(crate) struct Convolver {
    handle: sys::cudnnHandle_t,
    stream: Arc<CudaStream>,
    plans: Vec<Plan>,
    /// The workspaces made, the last the largest and in use: a graph
    /// captured with an earlier one still names it, so none is freed
    /// before the graphs are ([`Convolver::forget_graphs`]).
    workspaces: Vec<(CudaSlice<u8>, usize)>,
}

// SAFETY: a convolver is used by one thread at a time, with its queue;
// its handle and descriptors are its own.
unsafe impl Send for Convolver {}

impl Drop for Convolver {
    fn drop(&mut self) {
        self.plans.clear();
        // SAFETY: made by this convolver, freed once here.
        unsafe {
            let _ = dnn::destroy_handle(self.handle);
        }
    }
}

impl Convolver {
    /// A handle whose work goes on `stream`.
    pub(crate) fn on(stream: Arc<CudaStream>) -> Result<Convolver, String> {
        let handle = dnn::create_handle().map_err(said("a handle"))?;
        // SAFETY: a handle just made and a live stream of the same context.
        unsafe { dnn::set_stream(handle, stream.cu_stream() as sys::cudaStream_t) }
            .map_err(said("the stream"))?;
        Ok(Convolver {
            handle,
            stream,
            plans: Vec::new(),
            workspaces: Vec::new(),
        })
    }

    /// The graphs that named the earlier workspaces are gone: only the
    /// one in use is kept.
    pub(crate) fn forget_graphs(&mut self) {
        let keep = self.workspaces.len().saturating_sub(1);
        self.workspaces.drain(..keep);
    }

    /// `c`'s plan, made where it is new, and a workspace for it.
    pub(crate) fn plan(&mut self, c: &Convolution) -> Result<usize, String> {
        let at = match self.plans.iter().position(|p| p.key == key(c)) {
            Some(at) => at,
            None => {
                let plan = self.make_plan(c)?;
                self.plans.push(plan);
                self.plans.len() - 1
            }
        };
        let need = self.plans[at].workspace;
        if self
            .workspaces
            .last()
            .is_none_or(|&(_, bytes)| bytes < need)
        {
            let bytes = need.max(1);
            let memory = self
                .stream
                .alloc_zeros::<u8>(bytes)
                .map_err(|e| format!("cuDNN's workspace of {} MiB: {e}", bytes >> 20))?;
            self.workspaces.push((memory, bytes));
        }
        Ok(at)
    }

    /// The descriptors of `c`'s shape and the first algorithm cuDNN's
    /// heuristics offer that runs it.
    fn make_plan(&self, c: &Convolution) -> Result<Plan, String> {
        let (data, math) = match c.tensors {
            ConvTensors::F16 { .. } => (
                sys::cudnnDataType_t::CUDNN_DATA_HALF,
                sys::cudnnMathType_t::CUDNN_TENSOR_OP_MATH,
            ),
            ConvTensors::F32 { .. } => (
                sys::cudnnDataType_t::CUDNN_DATA_FLOAT,
                sys::cudnnMathType_t::CUDNN_FMA_MATH,
            ),
        };
        let int = |v: usize| i32::try_from(v).map_err(|_| format!("cuDNN: {v} is too large"));
        let (n, h, w) = (int(c.batch)?, int(c.height)?, int(c.width)?);
        let (cin, cout, size) = (int(c.cin)?, int(c.cout)?, int(c.size)?);
        let nhwc = sys::cudnnTensorFormat_t::CUDNN_TENSOR_NHWC;
        let mut plan = Plan {
            key: key(c),
            x: dnn::create_tensor_descriptor().map_err(said("a descriptor"))?,
            w: dnn::create_filter_descriptor().map_err(said("a descriptor"))?,
            conv: dnn::create_convolution_descriptor().map_err(said("a descriptor"))?,
            y: dnn::create_tensor_descriptor().map_err(said("a descriptor"))?,
            algo: sys::cudnnConvolutionFwdAlgo_t::CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
            workspace: 0,
        };
        let shape = format!("{n} boards of {w}×{h}, {cin} to {cout} channels");
        // SAFETY: descriptors just made, set with sizes that fit `int`;
        // the heuristics write at most the 8 results asked for.
        unsafe {
            dnn::set_tensor4d_descriptor(plan.x, nhwc, data, [n, cin, h, w])
                .map_err(said(&shape))?;
            dnn::set_filter4d_descriptor(plan.w, data, nhwc, [cout, cin, size, size])
                .map_err(said(&shape))?;
            let pad = size / 2;
            let mode = sys::cudnnConvolutionMode_t::CUDNN_CROSS_CORRELATION;
            let compute = sys::cudnnDataType_t::CUDNN_DATA_FLOAT;
            dnn::set_convolution2d_descriptor(plan.conv, pad, pad, 1, 1, 1, 1, mode, compute)
                .map_err(said(&shape))?;
            dnn::set_convolution_math_type(plan.conv, math).map_err(said(&shape))?;
            dnn::set_tensor4d_descriptor(plan.y, nhwc, data, [n, cout, h, w])
                .map_err(said(&shape))?;
            let mut found = [std::mem::zeroed::<sys::cudnnConvolutionFwdAlgoPerf_t>(); 8];
            let mut count = 0;
            dnn::get_convolution_forward_algorithm(
                self.handle,
                plan.x,
                plan.w,
                plan.conv,
                plan.y,
                found.len() as i32,
                &mut count,
                found.as_mut_ptr(),
            )
            .map_err(said(&shape))?;
            let usable = found[..count.clamp(0, 8) as usize]
                .iter()
                .find(|p| {
                    p.status == sys::cudnnStatus_t::CUDNN_STATUS_SUCCESS
                        && p.memory <= MOST_WORKSPACE
                })
                .ok_or_else(|| format!("cuDNN: no algorithm convolves {shape}"))?;
            plan.algo = usable.algo;
            plan.workspace = dnn::get_convolution_forward_workspace_size(
                self.handle,
                plan.x,
                plan.w,
                plan.conv,
                plan.y,
                plan.algo,
            )
            .map_err(said(&shape))?;
        }
        Ok(plan)
    }

    /// Queues `c` on the stream.
    pub(crate) fn convolve(&mut self, c: Convolution) -> Result<(), String> {
        let at = self.plan(&c)?;
        let plan = &self.plans[at];
        let (workspace, bytes) = self.workspaces.last().expect("planned");
        let at = workspace.device_ptr(&self.stream).0;
        let (x, w, y) = match c.tensors {
            ConvTensors::F16 { x, w, y } => (x.addr(), w.addr(), y.addr()),
            ConvTensors::F32 { x, w, y } => (x.addr(), w.addr(), y.addr()),
        };
        // SAFETY: the addresses hold tensors of the plan's shapes and type
        // (the executor's buffers and kept filters); alpha and beta are
        // single precision, as a float compute type reads them; the
        // workspace is at least the plan's.
        unsafe {
            dnn::convolution_forward(
                self.handle,
                (&c.alpha as *const f32).cast(),
                plan.x,
                x as *const std::ffi::c_void,
                plan.w,
                w as *const std::ffi::c_void,
                plan.conv,
                plan.algo,
                at as *mut std::ffi::c_void,
                *bytes,
                (&c.beta as *const f32).cast(),
                plan.y,
                y as *mut std::ffi::c_void,
            )
        }
        .map_err(|e| {
            let shape = format!(
                "{} boards of {}×{}, {} to {} channels",
                c.batch, c.width, c.height, c.cin, c.cout
            );
            said(&shape)(e)
        })
    }
}
