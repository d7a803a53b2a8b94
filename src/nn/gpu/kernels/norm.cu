// Norms, biases and activations, channel by channel.

// An activation's values as a kernel reads and writes them: floats as
// they are; halves (a buffer between layers in half precision) holding
// each value times HALF_SCALE (1/8, KataGo's "Scale8": a mish net's large
// activations stay inside half precision's range), four at a time.
__device__ __forceinline__ Floats4 load4(const float* p, unsigned i) {
    return ((const Floats4*)p)[i];
}
__device__ __forceinline__ Floats4 load4(const unsigned short* p, unsigned i) {
    Halves4 h = ((const Halves4*)p)[i];
    float k = 1.0f / HALF_SCALE;
    return Floats4{half_value(h.a) * k, half_value(h.b) * k, half_value(h.c) * k,
                   half_value(h.d) * k};
}
__device__ __forceinline__ void store4(float* p, unsigned i, Floats4 v) {
    ((Floats4*)p)[i] = v;
}
__device__ __forceinline__ void store4(unsigned short* p, unsigned i, Floats4 v) {
    ((Halves4*)p)[i] = Halves4{half_bits(v.a * HALF_SCALE), half_bits(v.b * HALF_SCALE),
                               half_bits(v.c * HALF_SCALE), half_bits(v.d * HALF_SCALE)};
}
__device__ __forceinline__ float load1(const float* p, unsigned i) {
    return p[i];
}
__device__ __forceinline__ float load1(const unsigned short* p, unsigned i) {
    return half_value(p[i]) * (1.0f / HALF_SCALE);
}
__device__ __forceinline__ void store1(float* p, unsigned i, float v) {
    p[i] = v;
}
__device__ __forceinline__ void store1(unsigned short* p, unsigned i, float v) {
    p[i] = half_bits(v * HALF_SCALE);
}

// out = act((in + extra[board]) * scale + bias), channel by channel; extra
// may be null, in may be out. A block a row (x), its threads over the
// channels in 16-byte runs where there are a multiple of 4 (the row's board
// found once a block: no division per value). In and out each floats or
// halves (the four kernels below).
template <typename In, typename Out>
__device__ void norm_act_row(const In* in, Out* out, const float* scale, const float* bias,
                             const float* extra, int points, int channels, int act) {
    unsigned row = blockIdx.x;
    unsigned at = row * (unsigned)channels;
    const float* e = extra ? extra + row / (unsigned)points * (unsigned)channels : nullptr;
    if ((channels & 3) == 0) {
        unsigned at4 = at >> 2;
        for (int c = threadIdx.x; c < (channels >> 2); c += blockDim.x) {
            Floats4 v = load4(in, at4 + c);
            Floats4 s = ((const Floats4*)scale)[c];
            Floats4 b = ((const Floats4*)bias)[c];
            Floats4 x = e ? ((const Floats4*)e)[c] : Floats4{0, 0, 0, 0};
            store4(out, at4 + c,
                   Floats4{activate(act, (v.a + x.a) * s.a + b.a),
                           activate(act, (v.b + x.b) * s.b + b.b),
                           activate(act, (v.c + x.c) * s.c + b.c),
                           activate(act, (v.d + x.d) * s.d + b.d)});
        }
    } else {
        for (int c = threadIdx.x; c < channels; c += blockDim.x) {
            float x = e ? e[c] : 0.0f;
            store1(out, at + c, activate(act, (load1(in, at + c) + x) * scale[c] + bias[c]));
        }
    }
}

extern "C" __global__ void norm_act(const float* in, float* out, const float* scale,
                                    const float* bias, const float* extra, int points,
                                    int channels, int act) {
    norm_act_row(in, out, scale, bias, extra, points, channels, act);
}

extern "C" __global__ void norm_act_to_half(const float* in, unsigned short* out,
                                            const float* scale, const float* bias,
                                            const float* extra, int points, int channels,
                                            int act) {
    norm_act_row(in, out, scale, bias, extra, points, channels, act);
}

extern "C" __global__ void norm_act_halves(const unsigned short* in, unsigned short* out,
                                           const float* scale, const float* bias,
                                           const float* extra, int points, int channels,
                                           int act) {
    norm_act_row(in, out, scale, bias, extra, points, channels, act);
}

extern "C" __global__ void norm_act_from_half(const unsigned short* in, float* out,
                                              const float* scale, const float* bias,
                                              const float* extra, int points, int channels,
                                              int act) {
    norm_act_row(in, out, scale, bias, extra, points, channels, act);
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

// The same into halves (the bias times HALF_SCALE, as they hold their
// values), a block a row, its threads over the channels.
extern "C" __global__ void add_spatial_bias_halves(const float* bias, unsigned short* v,
                                                   int points, int channels) {
    unsigned row = blockIdx.x;
    const float* b = bias + row / (unsigned)points * channels;
    unsigned short* at = v + row * (unsigned)channels;
    for (int c = threadIdx.x; c < channels; c += blockDim.x) {
        at[c] = half_bits(half_value(at[c]) + b[c] * HALF_SCALE);
    }
}

// An RMSNorm a point, a warp a point (row), eight a block: out = act(in /
// rms * gamma + beta), beta null for none; in may be out. A warp past the
// last row computes nothing but takes part in the exchanges.
extern "C" __global__ void rms_norm_points(const float* in, float* out, const float* gamma,
                                           const float* beta, int rows, int channels,
                                           float epsilon, int act) {
    unsigned row = thread_index() >> 5;
    int lane = threadIdx.x & 31;
    bool live = row < (unsigned)rows;
    unsigned at = (live ? row : 0) * (unsigned)channels;
    float squares = 0.0f;
    for (int c = lane; live && c < channels; c += 32) {
        squares += in[at + c] * in[at + c];
    }
    float scale = 1.0f / sqrtf(warp_sum(squares) / (float)channels + epsilon);
    for (int c = lane; live && c < channels; c += 32) {
        float shift = beta ? beta[c] : 0.0f;
        out[at + c] = activate(act, in[at + c] * scale * gamma[c] + shift);
    }
}

// An RMSNorm a board, a block a board: out = act(in / rms * gamma + beta),
// beta null for none; in may be out.
extern "C" __global__ void rms_norm_boards(const float* in, float* out, const float* gamma,
                                           const float* beta, int points, int channels,
                                           float epsilon, int act) {
    __shared__ float scratch[256];
    unsigned span = (unsigned)points * channels;
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
