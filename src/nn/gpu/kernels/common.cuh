// What every kernel of kosumi's GPU programs shares: shared memory sized
// at launch, the activations, a thread's index, rounding to half precision
// and a block's sums. The kernels are split by concern, as the operations
// of src/nn/gpu/ops/ are (conv.cu, norm.cu, pool.cu, attention.cu,
// dense.cu), and compiled at run time as one source by NVRTC, after this
// file. Each kernel is the host executor's loop of the same operation,
// one thread a value unless it says otherwise. Activations are
// [board][point][channel] in single precision (with half-precision copies
// of a product's input for the tensor cores); a per-board buffer is
// [board][value]. The matrix products are cuBLAS's.

// A kernel's shared memory sized at launch (the tests' emulator of a GPU
// defines it otherwise).
#ifndef DYNAMIC_SHARED
#define DYNAMIC_SHARED(type, name) extern __shared__ type name[]
#endif

// The activations, by the numbers the prelude defines (ACT_RELU, ...).
__device__ __forceinline__ float activate(int act, float x) {
    switch (act) {
    case ACT_RELU:
        return fmaxf(x, 0.0f);
    case ACT_MISH: {
        // x tanh(log(1 + e^x)) with one exponential: with n = e^x (e^x + 2),
        // tanh(log(1 + e^x)) = n / (n + 2).
        if (x > 20.0f) {
            return x;
        }
        float e = expf(x);
        float n = e * (e + 2.0f);
        return x * n / (n + 2.0f);
    }
    case ACT_SILU:
        return x / (1.0f + expf(-x));
    default:
        return x;
    }
}

// Four values in one 16-byte load or store, and four halves in 8 bytes.
struct alignas(16) Floats4 {
    float a, b, c, d;
};
struct alignas(8) Halves4 {
    unsigned short a, b, c, d;
};

// A thread's index among a launch's. Indices, and the index arithmetic of
// every kernel, are 32-bit: a GPU divides 64-bit integers in software. The
// largest buffer, a 3x3 convolution's im2col matrix of 1024 channels for
// 256 boards of 25x25 (the most a batch holds, the largest board), has
// 1.5e9 values, below 2^32.
__device__ __forceinline__ unsigned thread_index() {
    return blockIdx.x * blockDim.x + threadIdx.x;
}

// x * scale rounded to half precision (to nearest, ties to even), as bits.
__device__ __forceinline__ unsigned short half_bits(float x) {
#ifdef __CUDA_ARCH__
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(x));
    return h;
#else
    return host_half_bits(x);
#endif
}

// The value of half-precision bits (exact: every half is a float).
__device__ __forceinline__ float half_value(unsigned short h) {
#ifdef __CUDA_ARCH__
    float x;
    asm("cvt.f32.f16 %0, %1;" : "=f"(x) : "h"(h));
    return x;
#else
    return host_half_value(h);
#endif
}

// Two values as the two halves of one register, the first in the low
// bits (the order of a tensor-core fragment's elements).
__device__ __forceinline__ unsigned pack_halves(float low, float high) {
    return (unsigned)half_bits(low) | ((unsigned)half_bits(high) << 16);
}

// A warp's product on the tensor cores, d += a b: a 16x16 of halves (four
// registers of two), b 16x8 of halves (two), d 16x8 of floats (four), each
// lane holding the elements PTX's "Matrix Fragments for mma.m16n8k16 with
// floating point type" gives it (with g = lane / 4 and t = lane % 4: a's
// register r holds row g + 8 (r % 2), columns 2t + 8 (r / 2) and the one
// after; b's register r rows 2t + 8 r and the one after of column g; d's
// value i row g + 8 (i / 2), column 2t + i % 2). Every lane of the warp
// takes part. Compute capability 8.0 on; the tests' emulator makes the
// same product from the same layout.
__device__ __forceinline__ void mma_16816(float* d, const unsigned* a, const unsigned* b) {
#ifdef __CUDA_ARCH__
#if __CUDA_ARCH__ >= 800
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    asm volatile("trap;");
#endif
#else
    host_mma_16816(d, a, b);
#endif
}

// A warp's maximum and sum of its lanes' values, every lane reading it
// (the warp's lanes all take part: none returns before).
__device__ __forceinline__ float warp_max(float value) {
    for (int lane = 16; lane > 0; lane >>= 1) {
        value = fmaxf(value, __shfl_xor_sync(0xffffffffu, value, lane));
    }
    return value;
}

__device__ __forceinline__ float warp_sum(float value) {
    for (int lane = 16; lane > 0; lane >>= 1) {
        value += __shfl_xor_sync(0xffffffffu, value, lane);
    }
    return value;
}

// A block's sum of its threads' values (blockDim.x a power of two, at most
// 256), every thread reading it.
__device__ float block_sum(float value, float* scratch) {
    scratch[threadIdx.x] = value;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            scratch[threadIdx.x] += scratch[threadIdx.x + s];
        }
        __syncthreads();
    }
    float sum = scratch[0];
    __syncthreads();
    return sum;
}

// A block's maximum of its threads' values, as block_sum.
__device__ float block_max(float value, float* scratch) {
    scratch[threadIdx.x] = value;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            scratch[threadIdx.x] = fmaxf(scratch[threadIdx.x], scratch[threadIdx.x + s]);
        }
        __syncthreads();
    }
    float top = scratch[0];
    __syncthreads();
    return top;
}
