//! An emulated GPU for the tests: the kernels' source compiled for the host by
//! g++ (a shim gives CUDA's thread indices, shared memory and
//! `__syncthreads`: a block's threads run as fibers on one host thread,
//! each passing to the next at the barrier), loaded as a shared library,
//! and a [`Device`] whose memory is the host's and whose products and
//! convolutions are plain loops taking cuBLAS's and cuDNN's arguments
//! (half precision read and written through the `half` crate). The
//! executor runs on it exactly as on CUDA: the same launches, arguments and
//! products, so that the kernels' indices and the executor's arguments are
//! held to the CPU backend without a GPU.

use super::device::{
    Arg, ConvTensors, Convolution, Device, F32s, Factors, Gemm, Halves, Launch, Output, Queue,
};
use super::kernels::Kernel;
use std::ffi::{CString, c_char, c_void};
use std::sync::OnceLock;

/// CUDA's names for the host: indices, shared memory, the barrier.
///
/// A kernel that waits at `__syncthreads` runs its block's threads as
/// fibers on the launching thread: a thread that reaches the barrier
/// passes to the next, and the last to the first, so that none goes past
/// the barrier before all have reached it, with no thread of the system
/// made or woken. On x86-64 and ARM64 (ELF) a fiber passes by saving the
/// registers a call keeps and changing stacks (no system call); elsewhere
/// through `ucontext`.
const SHIM: &str = r#"
#ifdef __APPLE__
#define _XOPEN_SOURCE 700
#endif
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <functional>
#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>
struct Dim3 { unsigned x, y, z; };
static Dim3 threadIdx, blockIdx, blockDim, gridDim;
static float* emu_dynamic_shared;
static float* emu_lanes;
static unsigned emu_running, emu_threads;
static void emu_fiber(long t);
#if defined(__ELF__) && (defined(__x86_64__) || defined(__aarch64__))
// A fiber is its saved stack pointer; the registers a call keeps are on
// its stack. `emu_switch(&from, to)` saves the caller's and resumes `to`'s;
// a fresh fiber starts at `emu_start`, which calls emu_fiber(t).
extern "C" void emu_switch(void** from, void* to);
extern "C" void emu_start();
#if defined(__x86_64__)
asm(R"(
    .text
    .globl emu_switch
    .hidden emu_switch
    .type emu_switch, @function
emu_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .globl emu_start
    .hidden emu_start
    .type emu_start, @function
emu_start:
    movq %r12, %rdi
    callq *%r13
    ud2
)");
// The six registers emu_switch pops (r15 first; r12 the thread, r13 the
// function), then the address it returns to: a fresh fiber's stack then
// stands at its top, aligned for emu_start's call.
static constexpr int emu_frame_words = 7, emu_thread_word = 3, emu_function_word = 2,
                     emu_return_word = 6;
#else
asm(R"(
    .text
    .globl emu_switch
    .hidden emu_switch
    .type emu_switch, %function
emu_switch:
    sub sp, sp, #160
    stp x19, x20, [sp, #0]
    stp x21, x22, [sp, #16]
    stp x23, x24, [sp, #32]
    stp x25, x26, [sp, #48]
    stp x27, x28, [sp, #64]
    stp x29, x30, [sp, #80]
    stp d8, d9, [sp, #96]
    stp d10, d11, [sp, #112]
    stp d12, d13, [sp, #128]
    stp d14, d15, [sp, #144]
    mov x9, sp
    str x9, [x0]
    mov sp, x1
    ldp x19, x20, [sp, #0]
    ldp x21, x22, [sp, #16]
    ldp x23, x24, [sp, #32]
    ldp x25, x26, [sp, #48]
    ldp x27, x28, [sp, #64]
    ldp x29, x30, [sp, #80]
    ldp d8, d9, [sp, #96]
    ldp d10, d11, [sp, #112]
    ldp d12, d13, [sp, #128]
    ldp d14, d15, [sp, #144]
    add sp, sp, #160
    ret
    .globl emu_start
    .hidden emu_start
    .type emu_start, %function
emu_start:
    mov x0, x19
    blr x20
    brk #0
)");
// The twenty words emu_switch loads (x19 the thread, x20 the function,
// x30 the address it returns to), the stack at its aligned top after.
static constexpr int emu_frame_words = 20, emu_thread_word = 0, emu_function_word = 1,
                     emu_return_word = 11;
#endif
typedef void* EmuFiber;
static EmuFiber* emu_fibers;
static EmuFiber emu_launcher;
// Fiber `t` made on `size` bytes of `stack`, to start at emu_fiber(t).
static bool emu_make(EmuFiber* fiber, char* stack, size_t size, unsigned t) {
    void** top = (void**)(((uintptr_t)(stack + size)) & ~(uintptr_t)15);
    void** frame = top - emu_frame_words;
    memset(frame, 0, sizeof(void*) * emu_frame_words);
    frame[emu_thread_word] = (void*)(uintptr_t)t;
    frame[emu_function_word] = (void*)emu_fiber;
    frame[emu_return_word] = (void*)emu_start;
    *fiber = frame;
    return true;
}
static inline void emu_pass(EmuFiber* from, EmuFiber* to) { emu_switch(from, *to); }
#else
#include <ucontext.h>
typedef ucontext_t EmuFiber;
static EmuFiber* emu_fibers;
static EmuFiber emu_launcher;
static bool emu_make(EmuFiber* fiber, char* stack, size_t size, unsigned t) {
    if (getcontext(fiber) != 0) return false;
    fiber->uc_stack.ss_sp = stack;
    fiber->uc_stack.ss_size = size;
    // A fiber never returns: it passes on at its end (emu_fiber).
    fiber->uc_link = nullptr;
    makecontext(fiber, (void (*)())emu_fiber, 1, (long)t);
    return true;
}
static inline void emu_pass(EmuFiber* from, EmuFiber* to) { swapcontext(from, to); }
#endif
#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static
#define DYNAMIC_SHARED(type, name) type* name = (type*)emu_dynamic_shared
static inline void emu_become(unsigned t) {
    emu_running = t;
    threadIdx = {t % blockDim.x, t / blockDim.x % blockDim.y, t / (blockDim.x * blockDim.y)};
}
static inline void __syncthreads() {
    unsigned t = emu_running;
    Dim3 block = blockIdx;
    if (emu_threads > 1) emu_pass(&emu_fibers[t], &emu_fibers[(t + 1) % emu_threads]);
    emu_become(t);
    blockIdx = block;
}
// A warp's exchange, through the block: every thread posts its value, and
// reads its partner's (a block's threads all take part, as a warp's do).
static inline float __shfl_xor_sync(unsigned, float value, int lane) {
    unsigned t = emu_running;
    emu_lanes[t] = value;
    __syncthreads();
    float other = emu_lanes[t ^ (unsigned)lane];
    __syncthreads();
    return other;
}
static unsigned* emu_fragments;
static inline float host_half_value(unsigned short bits);
// A warp's m16n8k16 product on the tensor cores, d += a b: every lane posts
// its registers of a (four) and b (two), and makes its four values of d
// from the warp's, each element where PTX's "Matrix Fragments for
// mma.m16n8k16 with floating point type" puts it (g = lane / 4, t = lane
// % 4): a's element (row, col) in lane (row % 8) 4 + (col % 8) / 2, as
// element (col % 2) + 2 (row >= 8) + 4 (col >= 8), two to a register, the
// first in the low bits; b's (row, col) in lane 4 col + (row % 8) / 2, as
// element (row % 2) + 2 (row >= 8); d's value i at row g + 8 (i / 2),
// column 2t + i % 2.
static inline void host_mma_16816(float* d, const unsigned* a, const unsigned* b) {
    unsigned t = emu_running;
    for (int r = 0; r < 4; r++) emu_fragments[t * 6 + r] = a[r];
    for (int r = 0; r < 2; r++) emu_fragments[t * 6 + 4 + r] = b[r];
    __syncthreads();
    const unsigned* warp = emu_fragments + (t & ~31u) * 6;
    auto element = [&](unsigned lane, unsigned e) {
        unsigned bits = warp[lane * 6 + e / 2] >> (16 * (e % 2));
        return host_half_value((unsigned short)(bits & 0xffff));
    };
    unsigned lane = t & 31, g = lane / 4, tg = lane % 4;
    float sums[4];
    for (int i = 0; i < 4; i++) {
        unsigned row = g + 8 * (i / 2), col = 2 * tg + i % 2;
        float sum = 0.0f;
        for (unsigned k = 0; k < 16; k++) {
            float x = element((row % 8) * 4 + (k % 8) / 2, (k % 2) + 2 * (row >= 8) + 4 * (k >= 8));
            float y = element(col * 4 + (k % 8) / 2, 8 + (k % 2) + 2 * (k >= 8));
            sum += x * y;
        }
        sums[i] = sum;
    }
    __syncthreads();
    for (int i = 0; i < 4; i++) d[i] += sums[i];
}
static inline unsigned short host_half_bits(float x) {
    _Float16 h = (_Float16)x;
    unsigned short bits;
    memcpy(&bits, &h, 2);
    return bits;
}
static inline float host_half_value(unsigned short bits) {
    _Float16 h;
    memcpy(&h, &bits, 2);
    return (float)h;
}
"#;

/// The launcher's first half: a kernel called with its arguments from
/// CUDA's `kernelParams`, and a table's row.
const LAUNCHER: &str = r#"
template <typename... A, std::size_t... I>
static void emu_call(void (*f)(A...), void** args, std::index_sequence<I...>) {
    f(*static_cast<std::remove_cv_t<A>*>(args[I])...);
}
template <typename... A>
static std::function<void(void**)> emu_entry(void (*f)(A...)) {
    return [f](void** args) { emu_call(f, args, std::index_sequence_for<A...>{}); };
}
struct EmuKernel { const char* name; std::function<void(void**)> run; bool syncs; };
"#;

/// The launcher's second half: one kernel by name, its arguments as CUDA's
/// `kernelParams` (an address per argument), each block's threads in turn
/// or, for a kernel that waits at `__syncthreads`, as fibers that take
/// every block in turn, passing the barrier at each block's end.
const LAUNCH: &str = r#"
static EmuKernel* emu_kernel;
static void** emu_args;
// A fiber: thread `t` of every block, in order. At its end it resumes the
// next fiber (waiting at the last block's barrier), the last one the
// launcher.
static void emu_fiber(long t) {
    emu_become((unsigned)t);
    for (unsigned z = 0; z < gridDim.z; z++)
        for (unsigned y = 0; y < gridDim.y; y++)
            for (unsigned x = 0; x < gridDim.x; x++) {
                blockIdx = {x, y, z};
                emu_kernel->run(emu_args);
                __syncthreads();
            }
    EmuFiber done;
    emu_pass(&done, t + 1 < emu_threads ? &emu_fibers[t + 1] : &emu_launcher);
}
extern "C" int emu_launch(const char* name, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                          unsigned by, unsigned bz, unsigned shared, void** args) {
    // One launch at a time: the indices' sizes, the fibers and shared
    // memory are the process's.
    static std::mutex one_at_a_time;
    std::lock_guard<std::mutex> lock(one_at_a_time);
    EmuKernel* k = nullptr;
    for (auto& e : emu_kernels) {
        if (strcmp(e.name, name) == 0) k = &e;
    }
    if (!k) return 1;
    gridDim = {gx, gy, gz};
    blockDim = {bx, by, bz};
    std::vector<float> dynamic(shared / 4 + 1);
    emu_dynamic_shared = dynamic.data();
    unsigned threads = bx * by * bz;
    std::vector<float> lanes(threads);
    emu_lanes = lanes.data();
    std::vector<unsigned> fragments(threads * 6);
    emu_fragments = fragments.data();
    if (!k->syncs) {
        for (unsigned z = 0; z < gz; z++)
            for (unsigned y = 0; y < gy; y++)
                for (unsigned x = 0; x < gx; x++)
                    for (unsigned t = 0; t < threads; t++) {
                        blockIdx = {x, y, z};
                        emu_become(t);
                        k->run(args);
                    }
        return 0;
    }
    // The fibers' stacks, kept for the next launch.
    constexpr size_t stack = 64 << 10;
    static std::vector<std::unique_ptr<char[]>> stacks;
    while (stacks.size() < threads) stacks.emplace_back(new char[stack]);
    std::vector<EmuFiber> fibers(threads);
    for (unsigned t = 0; t < threads; t++) {
        if (!emu_make(&fibers[t], stacks[t].get(), stack, t)) return 2;
    }
    emu_fibers = fibers.data();
    emu_threads = threads;
    emu_kernel = k;
    emu_args = args;
    emu_pass(&emu_launcher, &fibers[0]);
    return 0;
}
"#;

type LaunchFn =
    unsafe extern "C" fn(*const c_char, u32, u32, u32, u32, u32, u32, u32, *mut *mut c_void) -> i32;

/// The launcher's table of the kernels, from their declarations.
fn table() -> String {
    let rows: String = Kernel::ALL
        .iter()
        .map(|k| {
            format!(
                "    {{\"{0}\", emu_entry({0}), {1}}},\n",
                k.name(),
                k.syncs()
            )
        })
        .collect();
    format!("static EmuKernel emu_kernels[] = {{\n{rows}}};")
}

/// The kernels built for the host and loaded, or why not (no g++).
fn launcher() -> Result<LaunchFn, String> {
    static LOADED: OnceLock<Result<usize, String>> = OnceLock::new();
    let loaded = LOADED.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("kosumi-emulator-{}", std::process::id()));
        let loaded = build_and_load(&dir);
        // A loaded library stays mapped once its file is gone: the build
        // leaves nothing in the temporary folder, whatever its outcome.
        let _ = std::fs::remove_dir_all(&dir);
        loaded
    });
    // SAFETY: the address of `emu_launch`, whose signature is LaunchFn's.
    loaded
        .clone()
        .map(|at| unsafe { std::mem::transmute::<usize, LaunchFn>(at) })
}

/// The kernels built for the host in `dir` and loaded: `emu_launch`'s
/// address, or why not (no g++).
fn build_and_load(dir: &std::path::Path) -> Result<usize, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let source = dir.join("kernels.cpp");
    let library = dir.join("libkernels.so");
    let text = format!(
        "{SHIM}\n{}\n{LAUNCHER}\n{}\n{LAUNCH}",
        super::kernels::source(),
        table()
    );
    std::fs::write(&source, text).map_err(|e| e.to_string())?;
    let out = std::process::Command::new("g++")
        .args([
            "-std=c++20",
            "-O2",
            "-shared",
            "-fPIC",
            "-pthread",
            "-w",
            "-o",
        ])
        .arg(&library)
        .arg(&source)
        .output()
        .map_err(|e| format!("g++ does not run: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "g++ refuses the kernels: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let path = CString::new(library.to_string_lossy().as_bytes()).expect("a path");
    // SAFETY: a library just built from the kernels and the launcher; it
    // stays loaded for the process.
    let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW) };
    if handle.is_null() {
        return Err("the emulated kernels do not load".into());
    }
    let name = CString::new("emu_launch").expect("a name");
    // SAFETY: the handle is loaded; the symbol is the launcher's.
    let symbol = unsafe { libc::dlsym(handle, name.as_ptr()) };
    if symbol.is_null() {
        return Err("emu_launch is not in the emulated kernels".into());
    }
    Ok(symbol as usize)
}

/// How a product's factors are stored and multiplied.
#[derive(Clone, Copy)]
enum Element {
    F32,
    /// f32 storage, rounded to TF32 (10 bits of mantissa, to nearest, ties
    /// to even) as the tensor cores read it.
    Tf32,
    F16,
}

impl Element {
    /// The address of the `n`th element from `at`.
    fn at(self, at: u64, n: usize) -> u64 {
        let size = match self {
            Element::F16 => 2,
            Element::F32 | Element::Tf32 => 4,
        };
        at + (n * size) as u64
    }

    /// The `i`th element from `at`, as the device multiplies it.
    fn read(self, at: u64, i: usize) -> f32 {
        // SAFETY: the executor's matrices, of the sizes the product gives.
        unsafe {
            match self {
                Element::F32 => *(at as *const f32).add(i),
                Element::Tf32 => {
                    let bits = (*(at as *const f32).add(i)).to_bits();
                    let rounded = bits + 0xfff + ((bits >> 13) & 1);
                    f32::from_bits(rounded & !0x1fff)
                }
                Element::F16 => ::half::f16::from_bits(*(at as *const u16).add(i)).to_f32(),
            }
        }
    }
}

impl Element {
    /// Writes `value` as the `i`th element from `at`, rounded to halves
    /// where they are stored.
    fn write(self, at: u64, i: usize, value: f32) {
        // SAFETY: the executor's outputs, of the sizes the product or
        // convolution gives.
        unsafe {
            match self {
                Element::F16 => *(at as *mut u16).add(i) = ::half::f16::from_f32(value).to_bits(),
                Element::F32 | Element::Tf32 => *(at as *mut f32).add(i) = value,
            }
        }
    }
}

/// The emulated GPU: its kept weights live as long as it.
pub(crate) struct Emulator {
    launch: LaunchFn,
    kept: std::sync::Mutex<Vec<Box<[Chunk]>>>,
    /// Whether its queues refuse to capture graphs (as a driver might).
    refuses_graphs: bool,
}

impl Emulator {
    pub(crate) fn new() -> Result<Emulator, String> {
        Ok(Emulator {
            launch: launcher()?,
            kept: std::sync::Mutex::new(Vec::new()),
            refuses_graphs: false,
        })
    }

    /// The same, its queues refusing to capture graphs.
    #[cfg(test)]
    fn refusing_graphs(self) -> Emulator {
        Emulator {
            refuses_graphs: true,
            ..self
        }
    }
}

/// A product in plain loops, taking the very arguments cuBLAS does.
fn run_gemm(g: Gemm) {
    // Each factor read as it is stored and multiplied as the device
    // multiplies it: real halves widened, TF32 rounded from f32.
    let (a, b, kind) = match g.factors {
        Factors::F32 { a, b } => (a.addr(), b.addr(), Element::F32),
        Factors::Tf32 { a, b } => (a.addr(), b.addr(), Element::Tf32),
        Factors::F16 { a, b } => (a.addr(), b.addr(), Element::F16),
    };
    let (c, c_kind) = match g.c {
        Output::F32(c) => (c.addr(), Element::F32),
        Output::F16(c) => (c.addr(), Element::F16),
    };
    for batch in 0..g.batches {
        let (a, b) = (kind.at(a, batch * g.step_a), kind.at(b, batch * g.step_b));
        let c = c_kind.at(c, batch * g.step_c);
        for row in 0..g.m {
            for col in 0..g.n {
                let sum: f32 = (0..g.k)
                    .map(|x| {
                        let b_at = match g.b_transposed {
                            true => col * g.ld_b + x,
                            false => x * g.ld_b + col,
                        };
                        kind.read(a, row * g.ld_a + x) * kind.read(b, b_at)
                    })
                    .sum();
                let at = row * g.ld_c + col;
                c_kind.write(c, at, g.alpha * sum + g.beta * c_kind.read(c, at));
            }
        }
    }
}

/// A convolution in plain loops, taking the very arguments cuDNN's
/// `cudnnConvolutionForward` does (NHWC tensors, a KRSC filter, padding
/// `size / 2`, alpha and beta): halves read as stored, the sums in single
/// precision, the output rounded to halves where it is stored so.
fn run_convolution(c: Convolution) {
    let (x, w, y, kind) = match c.tensors {
        ConvTensors::F32 { x, w, y } => (x.addr(), w.addr(), y.addr(), Element::F32),
        ConvTensors::F16 { x, w, y } => (x.addr(), w.addr(), y.addr(), Element::F16),
    };
    let (height, width, pad) = (c.height as isize, c.width as isize, (c.size / 2) as isize);
    for board in 0..c.batch {
        for py in 0..height {
            for px in 0..width {
                let row = (board * c.height + py as usize) * c.width + px as usize;
                for out in 0..c.cout {
                    let mut sum = 0.0f32;
                    for ky in 0..c.size as isize {
                        for kx in 0..c.size as isize {
                            let (sy, sx) = (py + ky - pad, px + kx - pad);
                            if sy < 0 || sx < 0 || sy >= height || sx >= width {
                                continue;
                            }
                            let from = (board * c.height + sy as usize) * c.width + sx as usize;
                            let tap = (out * c.size + ky as usize) * c.size + kx as usize;
                            for i in 0..c.cin {
                                sum +=
                                    kind.read(x, from * c.cin + i) * kind.read(w, tap * c.cin + i);
                            }
                        }
                    }
                    let at = row * c.cout + out;
                    kind.write(y, at, c.alpha * sum + c.beta * kind.read(y, at));
                }
            }
        }
    }
}

/// Sixteen bytes, aligned as a GPU's allocations are at least (the
/// kernels' 16-byte loads need it).
#[derive(Clone, Copy, Default)]
#[repr(C, align(16))]
struct Chunk([u64; 2]);

/// `bytes` of zeroed host memory, 16-byte aligned, and its address.
fn zeroed(bytes: usize) -> (Box<[Chunk]>, u64) {
    let memory = vec![Chunk::default(); bytes.div_ceil(16).max(1)].into_boxed_slice();
    let at = memory.as_ptr() as u64;
    (memory, at)
}

impl Device for Emulator {
    fn name(&self) -> String {
        "emulated gpu".into()
    }

    fn keep(&self, values: &[f32]) -> Result<F32s, String> {
        let (memory, at) = zeroed(values.len() * 4);
        // SAFETY: `memory` holds `values.len()` floats.
        unsafe { std::ptr::copy_nonoverlapping(values.as_ptr(), at as *mut f32, values.len()) };
        self.kept.lock().unwrap().push(memory);
        Ok(F32s::at(at))
    }

    fn keep_halves(&self, bits: &[u16]) -> Result<Halves, String> {
        let (memory, at) = zeroed(bits.len() * 2);
        // SAFETY: `memory` holds `bits.len()` halves.
        unsafe { std::ptr::copy_nonoverlapping(bits.as_ptr(), at as *mut u16, bits.len()) };
        self.kept.lock().unwrap().push(memory);
        Ok(Halves::at(at))
    }

    fn queue(&self) -> Result<Box<dyn Queue>, String> {
        Ok(Box::new(EmulatedQueue {
            launch: self.launch,
            memory: Vec::new(),
            marks: Vec::new(),
            recording: None,
            graphs: Vec::new(),
            refuses_graphs: self.refuses_graphs,
        }))
    }

    fn convolutions(&self) -> Result<String, String> {
        Ok("the emulator's loops".into())
    }

    fn warp_products(&self) -> Result<(), String> {
        Ok(())
    }
}

/// A queue of the emulated GPU: what it allocated, and its graphs: the
/// work recorded while capturing, run only when replayed, as CUDA's.
struct EmulatedQueue {
    launch: LaunchFn,
    memory: Vec<Box<[Chunk]>>,
    marks: Vec<std::time::Instant>,
    recording: Option<Vec<Work>>,
    graphs: Vec<Vec<Work>>,
    refuses_graphs: bool,
}

/// A launch or a product, as a graph records it.
#[derive(Clone)]
enum Work {
    Launch(Kernel, Launch, Vec<Arg>),
    Gemm(Gemm),
    Convolution(Convolution),
}

impl EmulatedQueue {
    /// Runs one piece of work now.
    fn run(&mut self, work: &Work) -> Result<(), String> {
        match work {
            Work::Launch(kernel, launch, args) => self.run_kernel(*kernel, *launch, args),
            Work::Gemm(g) => {
                run_gemm(*g);
                Ok(())
            }
            Work::Convolution(c) => {
                run_convolution(*c);
                Ok(())
            }
        }
    }

    /// Runs `kernel` now.
    fn run_kernel(&mut self, kernel: Kernel, launch: Launch, args: &[Arg]) -> Result<(), String> {
        // Each argument in an 8-byte slot, little-endian: the kernel reads
        // its own width from the slot's start.
        let mut slots: Vec<u64> = args
            .iter()
            .map(|a| match *a {
                Arg::Ptr(p) => p,
                Arg::I32(v) => u64::from(v as u32),
                Arg::I64(v) => v as u64,
                Arg::F32(v) => u64::from(v.to_bits()),
            })
            .collect();
        let mut params: Vec<*mut c_void> = slots
            .iter_mut()
            .map(|s| s as *mut u64 as *mut c_void)
            .collect();
        let name = CString::new(kernel.name()).expect("a kernel's name");
        let (g, b) = (launch.grid, launch.block);
        // SAFETY: the launcher reads each argument as the kernel declares
        // it from its slot; the addresses are this emulator's memory.
        let status = unsafe {
            (self.launch)(
                name.as_ptr(),
                g.0,
                g.1,
                g.2,
                b.0,
                b.1,
                b.2,
                launch.shared_bytes,
                params.as_mut_ptr(),
            )
        };
        match status {
            0 => Ok(()),
            _ => Err(format!("no emulated kernel {}", kernel.name())),
        }
    }

    /// Records `work` where a graph is being captured; runs it otherwise.
    fn queue(&mut self, work: Work) -> Result<(), String> {
        match &mut self.recording {
            Some(recorded) => {
                recorded.push(work);
                Ok(())
            }
            None => self.run(&work),
        }
    }
}

impl Queue for EmulatedQueue {
    fn free(&mut self) {
        self.graphs.clear();
        self.memory.clear();
    }

    fn alloc(&mut self, n: usize) -> Result<F32s, String> {
        let (memory, at) = zeroed(n * 4);
        self.memory.push(memory);
        Ok(F32s::at(at))
    }

    fn alloc_halves(&mut self, n: usize) -> Result<Halves, String> {
        let (memory, at) = zeroed(n * 2);
        self.memory.push(memory);
        Ok(Halves::at(at))
    }

    fn upload(&mut self, src: &[f32], dst: F32s) -> Result<(), String> {
        let dst = dst.addr() as *mut f32;
        // SAFETY: `dst` is an allocation of this queue of at least
        // `src.len()` floats (the executor sizes its buffers so).
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), dst, src.len()) };
        Ok(())
    }

    fn download(&mut self, src: F32s, dst: &mut [f32]) -> Result<(), String> {
        let src = src.addr() as *const f32;
        // SAFETY: as `upload`.
        unsafe { std::ptr::copy_nonoverlapping(src, dst.as_mut_ptr(), dst.len()) };
        Ok(())
    }

    fn launch(&mut self, kernel: Kernel, launch: Launch, args: &[Arg]) -> Result<(), String> {
        self.queue(Work::Launch(kernel, launch, args.to_vec()))
    }

    fn gemm(&mut self, g: Gemm) -> Result<(), String> {
        self.queue(Work::Gemm(g))
    }

    fn convolve(&mut self, c: Convolution) -> Result<(), String> {
        self.queue(Work::Convolution(c))
    }

    fn begin_capture(&mut self) -> Result<(), String> {
        match self.recording {
            _ if self.refuses_graphs => Err("this emulated device captures no graph".into()),
            Some(_) => Err("a capture is under way".into()),
            None => {
                self.recording = Some(Vec::new());
                Ok(())
            }
        }
    }

    fn end_capture(&mut self) -> Result<usize, String> {
        let recorded = self.recording.take().ok_or("no capture is under way")?;
        self.graphs.push(recorded);
        Ok(self.graphs.len() - 1)
    }

    fn replay(&mut self, graph: usize) -> Result<(), String> {
        let work = self.graphs.get(graph).ok_or("no such graph")?.clone();
        work.iter().try_for_each(|w| self.run(w))
    }
    fn mark(&mut self) -> Result<(), String> {
        // The emulator's work is done when it is queued.
        self.marks.push(std::time::Instant::now());
        Ok(())
    }

    fn take_mark_intervals(&mut self) -> Result<Vec<f64>, String> {
        let marks = std::mem::take(&mut self.marks);
        Ok(marks
            .windows(2)
            .map(|w| (w[1] - w[0]).as_secs_f64() * 1e3)
            .collect())
    }

    fn synchronize(&mut self) -> Result<(), String> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::gpu::executor::{GpuNetwork, GpuSettings};
    use crate::nn::gpu::ops::{GpuAttention, GpuConv, GpuTrunk};
    use crate::nn::model::ModelDesc;
    use crate::nn::precision::Precision;

    /// The emulator, or `None` (said) where g++ is missing and CI does
    /// not require the kernels' checks.
    fn emulator() -> Option<Emulator> {
        match Emulator::new() {
            Ok(e) => Some(e),
            Err(why) => {
                assert!(
                    std::env::var_os("KOSUMI_REQUIRE_KERNEL_CHECKS").is_none(),
                    "{why}"
                );
                crate::say!("{why}: skipped");
                None
            }
        }
    }

    /// The settings of the tests: batches of 4, attention batched, the
    /// 3×3 convolutions by the library's (the emulator's loops, taking
    /// cuDNN's arguments).
    fn settings(precision: Precision) -> GpuSettings {
        GpuSettings {
            precision,
            max_batch: 4,
            attention: GpuAttention::Batched,
            conv: GpuConv::Cudnn,
            trunk: GpuTrunk::F32,
            score_values: crate::nn::gpu::executor::SCORE_VALUES,
            graphs: true,
            in_flight: crate::nn::gpu::executor::PASSES_IN_FLIGHT,
        }
    }

    /// `desc` on the emulated GPU (products in `precision`) held to the
    /// CPU backend within `tolerance`.
    fn agrees(desc: &ModelDesc, precision: Precision, tolerance: f32, sizes: &[(usize, usize)]) {
        agrees_as(desc, settings(precision), tolerance, sizes);
    }

    /// `desc` on the emulated GPU as `settings` say, held to the CPU
    /// backend within `tolerance`.
    fn agrees_as(
        desc: &ModelDesc,
        settings: GpuSettings,
        tolerance: f32,
        sizes: &[(usize, usize)],
    ) {
        let Some(device) = emulator() else { return };
        let gpu = GpuNetwork::new(desc, Box::new(device), settings).unwrap();
        crate::nn::gpu::tests::holds_to_the_cpu(desc, std::sync::Arc::new(gpu), sizes, tolerance);
    }

    fn model(file: &str) -> ModelDesc {
        let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/models/");
        ModelDesc::load(std::path::Path::new(&format!("{data}{file}"))).unwrap()
    }

    #[test]
    fn the_emulated_gpu_computes_what_the_cpu_backend_does_in_f32() {
        // Every kernel but the halves' and every operation of the
        // executor, through the same launches as on CUDA; the transformer
        // nets on a small rectangle only (a block's threads at a barrier
        // are slow to emulate).
        let embedded = ModelDesc::parse(crate::nn::EMBEDDED_MODEL).unwrap();
        agrees(&embedded, Precision::F32, 1e-4, &[(9, 9), (7, 11)]);
        for file in ["synthetic-v16.txt.gz", "synthetic-v16-human.txt.gz"] {
            agrees(&model(file), Precision::F32, 1e-4, &[(9, 9), (7, 11)]);
        }
        for file in [
            "b7c96h3tfrs-test5-cnorm.bin.gz",
            "b7c96h6kv3qk32v16tflrs-fson-bnh.bin.gz",
        ] {
            agrees(&model(file), Precision::F32, 1e-4, &[(5, 4)]);
        }
    }

    #[test]
    fn convolutions_by_im2col_compute_what_the_library_and_the_cpu_do() {
        // The im2col kernels and their products in place of the library's
        // convolutions: the six-block net and nested bottlenecks, in
        // single and half precision.
        let embedded = ModelDesc::parse(crate::nn::EMBEDDED_MODEL).unwrap();
        let im2col = |precision| GpuSettings {
            conv: GpuConv::Im2col,
            ..settings(precision)
        };
        agrees_as(&embedded, im2col(Precision::F32), 1e-4, &[(9, 9), (7, 11)]);
        agrees_as(
            &model("synthetic-v16.txt.gz"),
            im2col(Precision::F32),
            1e-4,
            &[(7, 11)],
        );
        agrees_as(&embedded, im2col(Precision::F16), 0.03, &[(9, 9)]);
    }

    #[test]
    fn the_library_convolution_takes_cudnns_layouts_padding_and_scalars() {
        // One 3×3 convolution of 2 boards of 3×4, 5 channels to 3, by the
        // emulator's cuDNN against sums written out here: NHWC input,
        // KRSC filter, zeros off the board, y = alpha · conv + beta · y;
        // then in halves, the output rounded to halves.
        let (batch, height, width, cin, cout) = (2, 3, 4, 5, 3);
        let x: Vec<f32> = (0..batch * height * width * cin)
            .map(|i| ((i * 7) % 11) as f32 - 5.0)
            .collect();
        let w: Vec<f32> = (0..cout * 9 * cin)
            .map(|i| ((i * 5) % 13) as f32 / 8.0 - 0.75)
            .collect();
        let y0: Vec<f32> = (0..batch * height * width * cout)
            .map(|i| i as f32)
            .collect();
        let (alpha, beta) = (0.5, 2.0);
        let mut want = y0.clone();
        for b in 0..batch {
            for py in 0..height as isize {
                for px in 0..width as isize {
                    for o in 0..cout {
                        let mut sum = 0.0;
                        for ky in 0..3isize {
                            for kx in 0..3isize {
                                let (sy, sx) = (py + ky - 1, px + kx - 1);
                                if (0..height as isize).contains(&sy)
                                    && (0..width as isize).contains(&sx)
                                {
                                    let from = (b * height + sy as usize) * width + sx as usize;
                                    for i in 0..cin {
                                        let tap = (o * 3 + ky as usize) * 3 + kx as usize;
                                        sum += x[from * cin + i] * w[tap * cin + i];
                                    }
                                }
                            }
                        }
                        let at = ((b * height + py as usize) * width + px as usize) * cout + o;
                        want[at] = alpha * sum + beta * y0[at];
                    }
                }
            }
        }
        let call = |tensors| Convolution {
            batch,
            height,
            width,
            cin,
            cout,
            size: 3,
            tensors,
            alpha,
            beta,
        };
        let mut y = y0.clone();
        run_convolution(call(ConvTensors::F32 {
            x: F32s::at(x.as_ptr() as u64),
            w: F32s::at(w.as_ptr() as u64),
            y: F32s::at(y.as_mut_ptr() as u64),
        }));
        assert_eq!(y, want);
        let halves = |v: &[f32]| -> Vec<u16> {
            v.iter()
                .map(|&x| ::half::f16::from_f32(x).to_bits())
                .collect()
        };
        let (xh, wh, mut got) = (halves(&x), halves(&w), halves(&y0));
        run_convolution(call(ConvTensors::F16 {
            x: Halves::at(xh.as_ptr() as u64),
            w: Halves::at(wh.as_ptr() as u64),
            y: Halves::at(got.as_mut_ptr() as u64),
        }));
        assert_eq!(got, halves(&want));
    }

    #[test]
    fn attention_batched_and_in_one_kernel_both_compute_what_the_cpu_does() {
        // Grouped key and value heads (6 heads, 3 kv heads) and plain
        // ones; batched in chunks of one board (the scores' room cut to a
        // board) and of all; one kernel.
        for file in [
            "b7c96h3tfrs-test5-cnorm.bin.gz",
            "b7c96h6kv3qk32v16tflrs-fson-bnh.bin.gz",
        ] {
            for (attention, score_values) in [
                (GpuAttention::Batched, 1),
                (GpuAttention::Batched, 1 << 20),
                (GpuAttention::Simt, 0),
            ] {
                let settings = GpuSettings {
                    attention,
                    score_values,
                    ..settings(Precision::F32)
                };
                agrees_as(&model(file), settings, 1e-4, &[(5, 4), (3, 3)]);
            }
        }
    }

    #[test]
    fn attention_fused_on_the_tensor_cores_computes_what_the_cpu_does() {
        // Half precision (the fused kernel's): grouped heads with values
        // narrower than the keys, and plain heads; boards of fewer points
        // than a warp's rows, of more than a step's keys and a block's
        // query points (9×9: 81), and a rectangle.
        for file in [
            "b7c96h3tfrs-test5-cnorm.bin.gz",
            "b7c96h6kv3qk32v16tflrs-fson-bnh.bin.gz",
        ] {
            let settings = GpuSettings {
                attention: GpuAttention::Fused,
                ..settings(Precision::F16)
            };
            agrees_as(&model(file), settings, 0.03, &[(9, 9), (5, 4), (3, 3)]);
        }
    }

    #[test]
    fn a_trunk_in_halves_keeps_near_the_cpu_backend() {
        // The residuals added into halves (cuDNN's beta = 1 and the
        // products' for the 1×1 convolutions; by im2col too), the global
        // inputs' bias added into halves: plain blocks with global
        // pooling, nested bottlenecks, and a transformer whose trunk the
        // products add to (which stays single).
        let embedded = ModelDesc::parse(crate::nn::EMBEDDED_MODEL).unwrap();
        for conv in [GpuConv::Cudnn, GpuConv::Im2col] {
            let settings = GpuSettings {
                trunk: GpuTrunk::F16,
                conv,
                ..settings(Precision::F16)
            };
            agrees_as(&embedded, settings, 0.03, &[(9, 9), (7, 11)]);
            agrees_as(&model("synthetic-v16.txt.gz"), settings, 0.03, &[(7, 11)]);
        }
        let transformer = GpuSettings {
            trunk: GpuTrunk::F16,
            ..settings(Precision::F16)
        };
        agrees_as(
            &model("b7c96h3tfrs-test5-cnorm.bin.gz"),
            transformer,
            0.03,
            &[(5, 4)],
        );
        // Single-precision products keep a single-precision trunk.
        let Some(device) = emulator() else { return };
        let single = GpuSettings {
            trunk: GpuTrunk::F16,
            ..settings(Precision::F32)
        };
        let why = GpuNetwork::new(&embedded, Box::new(device), single).err();
        assert!(why.unwrap().contains("--gpu-trunk f16"));
    }

    #[test]
    fn attention_fused_is_refused_where_it_cannot_run() {
        let Some(device) = emulator() else { return };
        let desc = model("b7c96h3tfrs-test5-cnorm.bin.gz");
        let settings = GpuSettings {
            attention: GpuAttention::Fused,
            ..settings(Precision::F32)
        };
        let why = GpuNetwork::new(&desc, Box::new(device), settings).err();
        assert!(why.unwrap().contains("half precision"));
    }

    #[test]
    fn a_graph_replayed_gives_what_each_operation_launched_gives() {
        // Passes of 3, 3 and 2 boards (buckets 4, 4 and 2) of different
        // positions: a bucket's graph captured on its first pass, then
        // replayed on new inputs, the padding's rows ignored; every output
        // as the passes that launch each operation give it, bit for bit.
        // A device that refuses to capture launches each operation.
        let Some(device) = emulator() else { return };
        let desc = model("b7c96h3tfrs-test5-cnorm.bin.gz");
        let on = |graphs, device: Emulator| {
            let settings = GpuSettings {
                graphs,
                ..settings(Precision::F32)
            };
            let gpu = GpuNetwork::new(&desc, Box::new(device), settings);
            crate::nn::Evaluator::with_backend(&desc, std::sync::Arc::new(gpu.unwrap()))
        };
        let (graphed, launched) = (on(true, device), on(false, Emulator::new().unwrap()));
        let refusing = on(true, Emulator::new().unwrap().refusing_graphs());
        let rules = crate::go::rules::Rules::default();
        let mut game = crate::go::game::Game::new(5, rules, 7.5);
        for (round, boards) in [3, 3, 2].into_iter().enumerate() {
            let point = game.board().point(round % 5, (round * 2) % 5);
            let _ = game.play(game.to_move(), Some(point));
            let requests: Vec<crate::nn::Request> = (0..boards)
                .map(|symmetry| crate::nn::Request {
                    game: &game,
                    to_move: game.to_move(),
                    fresh: false,
                    symmetry,
                    white_advantage: 0.0,
                })
                .collect();
            let mut a = vec![crate::nn::Evaluation::default(); boards];
            let mut b = vec![crate::nn::Evaluation::default(); boards];
            let mut c = vec![crate::nn::Evaluation::default(); boards];
            graphed.evaluate_batch(&requests, &mut a);
            launched.evaluate_batch(&requests, &mut b);
            refusing.evaluate_batch(&requests, &mut c);
            for ((a, b), c) in a.iter().zip(&b).zip(&c) {
                let numbers = |e: &crate::nn::Evaluation| {
                    let mut all = vec![e.white_win, e.white_lead, e.pass];
                    all.extend(&e.policy);
                    all.extend(e.white_ownership());
                    all.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
                };
                assert!(!a.failed && numbers(a) == numbers(b), "round {round}");
                assert!(!c.failed && numbers(c) == numbers(b), "round {round}");
            }
        }
    }

    #[test]
    fn a_profiled_pass_times_each_operation_kind_and_the_copies() {
        let Some(device) = emulator() else { return };
        let desc = ModelDesc::parse(crate::nn::EMBEDDED_MODEL).unwrap();
        let gpu = GpuNetwork::new(&desc, Box::new(device), settings(Precision::F32)).unwrap();
        let net = crate::nn::Evaluator::with_backend(&desc, std::sync::Arc::new(gpu));
        let game = crate::go::game::Game::new(9, crate::go::rules::Rules::default(), 7.5);
        let profile = net
            .profile_passes(&game, 2, std::time::Duration::ZERO)
            .unwrap();
        assert_eq!(profile.passes, crate::nn::PROFILED_PASSES);
        let parts: Vec<&str> = profile.parts.iter().map(|&(p, _)| p).collect();
        // The host's inputs, the upload, the operations in the order they
        // first run (the planes spread from their masks first), the
        // download.
        assert_eq!(
            parts[..4],
            ["inputs (host)", "upload inputs", "input planes", "conv 3x3"]
        );
        assert_eq!(parts.last(), Some(&"download heads"));
        for kind in [
            "conv 1x1",
            "norm and activation",
            "global pooling",
            "dense product",
        ] {
            assert!(parts.contains(&kind), "{kind} in {parts:?}");
        }
        assert!(
            profile
                .parts
                .iter()
                .all(|&(_, d)| d > std::time::Duration::ZERO)
        );
    }

    #[test]
    fn the_emulated_gpu_in_half_precision_keeps_near_the_cpu_backend() {
        // The halves' kernels, the buffers between layers in halves and
        // the scaled products: within the f16 gate's worst win rate (5%),
        // lead and policy on these positions. Ordinary and global pooling
        // blocks, nested bottlenecks, a transformer.
        let embedded = ModelDesc::parse(crate::nn::EMBEDDED_MODEL).unwrap();
        agrees(&embedded, Precision::F16, 0.03, &[(9, 9), (7, 11)]);
        agrees(
            &model("synthetic-v16.txt.gz"),
            Precision::F16,
            0.03,
            &[(7, 11)],
        );
        agrees(
            &model("b7c96h3tfrs-test5-cnorm.bin.gz"),
            Precision::F16,
            0.03,
            &[(5, 4)],
        );
    }
}
