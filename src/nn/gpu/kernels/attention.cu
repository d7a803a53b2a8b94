// Attention and its rotary position embedding.

// Rotary position embedding, a thread a row, head and pair: the pair
// (2p, 2p + 1) of the head (the row's values from v, rows stride apart)
// turned by the point's angle: learned (freqs
// [table][pair][x, y], table h * tables / heads) or, freqs null, fixed from
// theta (the first half of the pairs with the row, the second with the
// column).
extern "C" __global__ void rope(float* v, int stride, int rows, int points, int width, int heads,
                                int dim, const float* freqs, int tables, float theta) {
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
    unsigned at = r * (unsigned)stride + (unsigned)(h * dim + 2 * p);
    float x0 = v[at];
    float x1 = v[at + 1];
    v[at] = x0 * c - x1 * s;
    v[at + 1] = x0 * s + x1 * c;
}

// Attention, a block a query point (x), head (y) and board (z), the scores
// of the board's points in shared memory: out = softmax(q k^T / sqrt(dim))
// v, key and value head h / (heads / kv_heads); q, k and v are a point's
// columns of rows stride apart (one buffer, side by side).
extern "C" __global__ void attention(const float* q, const float* k, const float* v, int stride,
                                     float* out, int points, int heads, int kv_heads, int dim,
                                     int v_dim) {
    DYNAMIC_SHARED(float, scores);
    __shared__ float scratch[256];
    int i = blockIdx.x;
    int h = blockIdx.y;
    unsigned b = blockIdx.z;
    int kvh = h / (heads / kv_heads);
    const float* qi = q + (b * points + i) * stride + h * dim;
    float scale = 1.0f / sqrtf((float)dim);
    float local_max = -3.0e38f;
    for (int j = threadIdx.x; j < points; j += blockDim.x) {
        const float* kj = k + (b * points + j) * stride + kvh * dim;
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
            acc += scores[j] * v[(b * points + j) * stride + kvh * v_dim + e];
        }
        out[((b * points + i) * heads + h) * v_dim + e] = acc / sum;
    }
}

// The softmax of each row of n values in place, a warp a row: the row's
// maximum and sum by the warp's exchanges, each lane reading every 32nd
// value (consecutive lanes, consecutive addresses). A warp past the last
// row computes nothing but takes part in the exchanges.
extern "C" __global__ void softmax_rows(float* s, int rows, int n) {
    unsigned row = thread_index() >> 5;
    int lane = threadIdx.x & 31;
    bool live = row < (unsigned)rows;
    float* values = s + (live ? row : 0) * (unsigned)n;
    float top = -3.0e38f;
    for (int j = lane; live && j < n; j += 32) {
        top = fmaxf(top, values[j]);
    }
    top = warp_max(top);
    float sum = 0.0f;
    for (int j = lane; live && j < n; j += 32) {
        float e = expf(values[j] - top);
        values[j] = e;
        sum += e;
    }
    float scale = 1.0f / warp_sum(sum);
    for (int j = lane; live && j < n; j += 32) {
        values[j] *= scale;
    }
}
