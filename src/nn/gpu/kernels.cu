// The CUDA kernels of kosumi's GPU programs (src/nn/gpu/program.rs), in
// single precision (with half-precision copies of a product's input for
// the tensor cores), compiled at run time by NVRTC. Each is the host
// executor's loop of the same operation (src/nn/gpu/host.rs), one thread a
// value. Activations are [board][point][channel]; a per-board buffer is
// [board][value]. The matrix products are cuBLAS's.

// A kernel's shared memory sized at launch (the tests' emulator of a GPU
// defines it otherwise).
#ifndef DYNAMIC_SHARED
#define DYNAMIC_SHARED(type, name) extern __shared__ type name[]
#endif

// The activations, numbered as executor.rs passes them.
__device__ __forceinline__ float activate(int act, float x) {
    switch (act) {
    case 1:
        return fmaxf(x, 0.0f);
    case 2: {
        float sp = x > 20.0f ? x : log1pf(expf(x));
        return x * tanhf(sp);
    }
    case 3:
        return x / (1.0f + expf(-x));
    default:
        return x;
    }
}

// A thread's index among a launch's. Indices, and the index arithmetic of
// every kernel, are 32-bit: a GPU divides 64-bit integers in software. The
// largest buffer, a 3x3 convolution's im2col matrix of 1024 channels for
// 256 boards of 25x25 (the most a batch holds, the largest board), has
// 1.5e9 values, below 2^32.
__device__ __forceinline__ unsigned thread_index() {
    return blockIdx.x * blockDim.x + threadIdx.x;
}

// The value at im2col's index i of a size x size convolution's matrix:
// col[row][(ky, kx, ci)] = in[board][point moved by (ky, kx)][ci], zero off
// the board.
__device__ __forceinline__ float im2col_value(const float* in, unsigned i, int width, int height,
                                              int cin, int size) {
    unsigned k = (unsigned)size * size * cin;
    int kk = (int)(i % k);
    unsigned row = i / k;
    int ci = kk % cin;
    int kxy = kk / cin;
    int kx = kxy % size;
    int ky = kxy / size;
    int points = width * height;
    unsigned b = row / points;
    int p = (int)(row % points);
    int y = p / width;
    int x = p % width;
    int sy = y + ky - size / 2;
    int sx = x + kx - size / 2;
    if (sy >= 0 && sx >= 0 && sy < height && sx < width) {
        return in[(b * points + sy * width + sx) * cin + ci];
    }
    return 0.0f;
}

// The im2col matrix of a size x size convolution.
extern "C" __global__ void im2col(const float* in, float* col, int batch, int width, int height,
                                  int cin, int size) {
    unsigned i = thread_index();
    if (i < (unsigned)batch * width * height * size * size * cin) {
        col[i] = im2col_value(in, i, width, height, cin, size);
    }
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

// The im2col matrix in half precision, each value times scale (1/8: the
// trunk's values then stay well inside half precision's range, as KataGo's
// "Scale8"; the product multiplies the 8 back).
extern "C" __global__ void im2col_half(const float* in, unsigned short* col, int batch, int width,
                                       int height, int cin, int size, float scale) {
    unsigned i = thread_index();
    if (i < (unsigned)batch * width * height * size * size * cin) {
        col[i] = half_bits(im2col_value(in, i, width, height, cin, size) * scale);
    }
}

// out = in * scale in half precision, value by value: a 1x1 convolution's
// input.
extern "C" __global__ void to_half(const float* in, unsigned short* out, long long n, float scale) {
    unsigned i = thread_index();
    if (i < n) {
        out[i] = half_bits(in[i] * scale);
    }
}

// out = act((in + extra[board]) * scale + bias), channel by channel; extra
// may be null, in may be out.
extern "C" __global__ void norm_act(const float* in, float* out, const float* scale,
                                    const float* bias, const float* extra, int rows, int points,
                                    int channels, int act) {
    unsigned i = thread_index();
    if (i >= (unsigned)rows * channels) {
        return;
    }
    int c = (int)(i % channels);
    unsigned board = i / channels / points;
    float e = extra ? extra[board * channels + c] : 0.0f;
    out[i] = activate(act, (in[i] + e) * scale[c] + bias[c]);
}

// v[board] = act(v[board] + bias), rows of channels.
extern "C" __global__ void bias_act(float* v, const float* bias, int batch, int channels,
                                    int act) {
    unsigned i = thread_index();
    if (i >= (unsigned)batch * channels) {
        return;
    }
    v[i] = activate(act, v[i] + bias[i % channels]);
}

// v[board][point] += bias[board], rows of channels.
extern "C" __global__ void add_spatial_bias(const float* bias, float* v, int rows, int points,
                                            int channels) {
    unsigned i = thread_index();
    if (i >= (unsigned)rows * channels) {
        return;
    }
    int c = (int)(i % channels);
    unsigned board = i / channels / points;
    v[i] += bias[board * channels + c];
}

// KataGo's global pooling, a thread a board and channel: the mean, the mean
// * (sqrt(points) - 14) / 10, then the max (at least -1) or, with quadratic,
// the mean * ((sqrt(points) - 14)^2 / 100 - 0.1). Sums in single precision.
extern "C" __global__ void pool(const float* in, float* out, int batch, int points, int channels,
                                int quadratic) {
    unsigned i = thread_index();
    if (i >= (unsigned)batch * channels) {
        return;
    }
    int c = (int)(i % channels);
    unsigned b = i / channels;
    float sum = 0.0f;
    float top = -1.0f;
    for (int p = 0; p < points; p++) {
        float x = in[(b * points + p) * channels + c];
        sum += x;
        top = fmaxf(top, x);
    }
    float mean = sum / (float)points;
    float width = sqrtf((float)points);
    float* row = out + b * 3 * channels;
    row[c] = mean;
    row[channels + c] = mean * (width - 14.0f) * 0.1f;
    row[2 * channels + c] =
        quadratic ? mean * ((width - 14.0f) * (width - 14.0f) * 0.01f - 0.1f) : top;
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

// An RMSNorm, a block a point (or, with board, a block a board): out =
// act(in / rms * gamma + beta), beta null for none; in may be out.
extern "C" __global__ void rms_norm(const float* in, float* out, const float* gamma,
                                    const float* beta, int points, int channels, float epsilon,
                                    int board, int act) {
    __shared__ float scratch[256];
    unsigned span = board ? (unsigned)points * channels : channels;
    const float* x = in + blockIdx.x * span;
    float* y = out + blockIdx.x * span;
    float squares = 0.0f;
    for (unsigned i = threadIdx.x; i < span; i += blockDim.x) {
        squares += x[i] * x[i];
    }
    float scale = 1.0f / sqrtf(block_sum(squares, scratch) / (float)span + epsilon);
    for (unsigned i = threadIdx.x; i < span; i += blockDim.x) {
        int c = (int)(i % channels);
        float shift = beta ? beta[c] : 0.0f;
        y[i] = activate(act, x[i] * scale * gamma[c] + shift);
    }
}

// Rotary position embedding, a thread a row, head and pair: the pair
// (2p, 2p + 1) of the head turned by the point's angle: learned (freqs
// [table][pair][x, y], table h * tables / heads) or, freqs null, fixed from
// theta (the first half of the pairs with the row, the second with the
// column).
extern "C" __global__ void rope(float* v, int rows, int points, int width, int heads, int dim,
                                const float* freqs, int tables, float theta) {
    int pairs = dim / 2;
    unsigned i = thread_index();
    if (i >= (unsigned)rows * heads * pairs) {
        return;
    }
    int p = (int)(i % pairs);
    int h = (int)(i / pairs % heads);
    unsigned r = i / pairs / heads;
    int xy = (int)(r % points);
    float x = (float)(xy % width);
    float y = (float)(xy / width);
    float angle;
    if (freqs) {
        const float* f = freqs + ((h * tables / heads) * pairs + p) * 2;
        angle = x * f[0] + y * f[1];
    } else {
        int per_axis = pairs / 2;
        int index = p < per_axis ? p : p - per_axis;
        float coordinate = p < per_axis ? y : x;
        angle = coordinate / powf(theta, (float)(2 * index) / (float)pairs);
    }
    float c = cosf(angle);
    float s = sinf(angle);
    unsigned at = (r * heads + h) * dim + 2 * p;
    float x0 = v[at];
    float x1 = v[at + 1];
    v[at] = x0 * c - x1 * s;
    v[at + 1] = x0 * s + x1 * c;
}

// Attention, a block a query point (x), head (y) and board (z), the scores
// of the board's points in shared memory: out = softmax(q k^T / sqrt(dim))
// v, key and value head h / (heads / kv_heads).
extern "C" __global__ void attention(const float* q, const float* k, const float* v, float* out,
                                     int points, int heads, int kv_heads, int dim, int v_dim) {
    DYNAMIC_SHARED(float, scores);
    __shared__ float scratch[256];
    int i = blockIdx.x;
    int h = blockIdx.y;
    unsigned b = blockIdx.z;
    int kvh = h / (heads / kv_heads);
    const float* qi = q + ((b * points + i) * heads + h) * dim;
    float scale = 1.0f / sqrtf((float)dim);
    float local_max = -3.0e38f;
    for (int j = threadIdx.x; j < points; j += blockDim.x) {
        const float* kj = k + ((b * points + j) * kv_heads + kvh) * dim;
        float s = 0.0f;
        for (int d = 0; d < dim; d++) {
            s += qi[d] * kj[d];
        }
        s *= scale;
        scores[j] = s;
        local_max = fmaxf(local_max, s);
    }
    float top = block_max(local_max, scratch);
    float local_sum = 0.0f;
    for (int j = threadIdx.x; j < points; j += blockDim.x) {
        float e = expf(scores[j] - top);
        scores[j] = e;
        local_sum += e;
    }
    float sum = block_sum(local_sum, scratch);
    for (int e = threadIdx.x; e < v_dim; e += blockDim.x) {
        float acc = 0.0f;
        for (int j = 0; j < points; j++) {
            acc += scores[j] * v[((b * points + j) * kv_heads + kvh) * v_dim + e];
        }
        out[((b * points + i) * heads + h) * v_dim + e] = acc / sum;
    }
}

// hidden = silu(hidden) * gate, value by value.
extern "C" __global__ void swiglu(float* hidden, const float* gate, long long n) {
    unsigned i = thread_index();
    if (i >= n) {
        return;
    }
    hidden[i] = activate(3, hidden[i]) * gate[i];
}
