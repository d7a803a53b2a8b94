// The CUDA kernels of kosumi's GPU programs (src/nn/gpu/program.rs), in
// single precision, compiled at run time by NVRTC. Each is the host
// executor's loop of the same operation (src/nn/gpu/host.rs), one thread a
// value. Activations are [board][point][channel]; a per-board buffer is
// [board][value]. The matrix products are cuBLAS's.

// The activations, numbered as cuda.rs passes them.
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

__device__ __forceinline__ long long thread_index() {
    return (long long)blockIdx.x * blockDim.x + threadIdx.x;
}

// col[row][(ky, kx, ci)] = in[board][point moved by (ky, kx)][ci], zero off
// the board: the im2col matrix of a size × size convolution.
extern "C" __global__ void im2col(const float* in, float* col, int batch, int width, int height,
                                  int cin, int size) {
    long long k = (long long)size * size * cin;
    long long total = (long long)batch * width * height * k;
    long long i = thread_index();
    if (i >= total) {
        return;
    }
    int kk = (int)(i % k);
    long long row = i / k;
    int ci = kk % cin;
    int kxy = kk / cin;
    int kx = kxy % size;
    int ky = kxy / size;
    int points = width * height;
    long long b = row / points;
    int p = (int)(row % points);
    int y = p / width;
    int x = p % width;
    int sy = y + ky - size / 2;
    int sx = x + kx - size / 2;
    float v = 0.0f;
    if (sy >= 0 && sx >= 0 && sy < height && sx < width) {
        v = in[(b * points + sy * width + sx) * cin + ci];
    }
    col[i] = v;
}

// out = act((in + extra[board]) * scale + bias), channel by channel; extra
// may be null, in may be out.
extern "C" __global__ void norm_act(const float* in, float* out, const float* scale,
                                    const float* bias, const float* extra, int rows, int points,
                                    int channels, int act) {
    long long i = thread_index();
    if (i >= (long long)rows * channels) {
        return;
    }
    int c = (int)(i % channels);
    long long board = i / channels / points;
    float e = extra ? extra[board * channels + c] : 0.0f;
    out[i] = activate(act, (in[i] + e) * scale[c] + bias[c]);
}

// v[board] = act(v[board] + bias), rows of channels.
extern "C" __global__ void bias_act(float* v, const float* bias, int batch, int channels,
                                    int act) {
    long long i = thread_index();
    if (i >= (long long)batch * channels) {
        return;
    }
    v[i] = activate(act, v[i] + bias[i % channels]);
}

// v[board][point] += bias[board], rows of channels.
extern "C" __global__ void add_spatial_bias(const float* bias, float* v, int rows, int points,
                                            int channels) {
    long long i = thread_index();
    if (i >= (long long)rows * channels) {
        return;
    }
    int c = (int)(i % channels);
    long long board = i / channels / points;
    v[i] += bias[board * channels + c];
}

// KataGo's global pooling, a thread a board and channel: the mean, the mean
// * (sqrt(points) - 14) / 10, then the max (at least -1) or, with quadratic,
// the mean * ((sqrt(points) - 14)^2 / 100 - 0.1). Sums in single precision.
extern "C" __global__ void pool(const float* in, float* out, int batch, int points, int channels,
                                int quadratic) {
    long long i = thread_index();
    if (i >= (long long)batch * channels) {
        return;
    }
    int c = (int)(i % channels);
    long long b = i / channels;
    float sum = 0.0f;
    float max = -1.0f;
    for (int p = 0; p < points; p++) {
        float x = in[(b * points + p) * channels + c];
        sum += x;
        max = fmaxf(max, x);
    }
    float mean = sum / (float)points;
    float width = sqrtf((float)points);
    float* row = out + b * 3 * channels;
    row[c] = mean;
    row[channels + c] = mean * (width - 14.0f) * 0.1f;
    row[2 * channels + c] =
        quadratic ? mean * ((width - 14.0f) * (width - 14.0f) * 0.01f - 0.1f) : max;
}
