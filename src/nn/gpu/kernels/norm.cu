// Norms, biases and activations, channel by channel.

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
