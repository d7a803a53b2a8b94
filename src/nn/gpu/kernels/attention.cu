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

// Keys a step of the fused attention (its warps a block, FUSED_WARPS, and
// the most channels a head has, FUSED_DIM, are the prelude's).
#define FUSED_KEYS 64

// Attention in one kernel on the tensor cores (flash attention): a block
// FUSED_WARPS warps of 16 query points each (x), a head (y) and a board
// (z). The block takes the board's keys and values FUSED_KEYS at a time
// into shared memory as halves (the keys a row a key, the values a row a
// channel, pairs of values in a register as the products read them); each
// warp makes its points' scores against them with mma_16816 (the queries,
// times log2(e) / sqrt(dim), in registers as halves), keeps each row's
// running maximum and sum (the scores never leave the registers: each
// step's output is scaled by 2^(old maximum - new)) and adds the step's
// probabilities, as halves, times the values. Channels past dim (and
// v_dim) are zeros up to a multiple of 16 (8); keys past the board's
// points count for nothing; at most FUSED_DIM channels.
extern "C" __global__ void attention_fused(const float* q, const float* k, const float* v,
                                           int stride, float* out, int points, int heads,
                                           int kv_heads, int dim, int v_dim) {
    // Pairs of halves: keys[key][channel pair], values[channel][key pair],
    // each row 4 registers longer than its values (the lanes' reads in
    // distinct banks).
    __shared__ unsigned keys[FUSED_KEYS][FUSED_DIM / 2 + 4];
    __shared__ unsigned values[FUSED_DIM][FUSED_KEYS / 2 + 4];
    int h = blockIdx.y;
    unsigned b = blockIdx.z;
    int kvh = h / (heads / kv_heads);
    int lane = threadIdx.x & 31;
    int g = lane >> 2;
    int t = lane & 3;
    int first = blockIdx.x * (FUSED_WARPS * 16) + (threadIdx.x >> 5) * 16;
    // Tiles of 16 channels of the queries and keys, of 8 of the values.
    int q_tiles = (dim + 15) / 16;
    int v_tiles = (v_dim + 7) / 8;
    float scale = 1.4426950408889634f / sqrtf((float)dim);
    // The queries as a's fragments: rows g and g + 8, columns 2t, 2t + 1
    // and 8 on.
    unsigned qa[FUSED_DIM / 16][4];
#pragma unroll
    for (int kt = 0; kt < FUSED_DIM / 16; kt++) {
#pragma unroll
        for (int r = 0; r < 4; r++) {
            int row = first + g + 8 * (r & 1);
            int col = kt * 16 + 2 * t + 8 * (r >> 1);
            const float* at = q + (b * points + row) * stride + h * dim + col;
            bool live = kt < q_tiles && row < points;
            float x0 = live && col < dim ? at[0] * scale : 0.0f;
            float x1 = live && col + 1 < dim ? at[1] * scale : 0.0f;
            qa[kt][r] = pack_halves(x0, x1);
        }
    }
    // Each row's running maximum (base 2) and this lane's share of its
    // sum, rows g and g + 8; the output, d's fragments of 8 channels.
    float top[2] = {-1.0e30f, -1.0e30f};
    float sum[2] = {0.0f, 0.0f};
    float o[FUSED_DIM / 8][4];
#pragma unroll
    for (int nt = 0; nt < FUSED_DIM / 8; nt++) {
#pragma unroll
        for (int i = 0; i < 4; i++) {
            o[nt][i] = 0.0f;
        }
    }
    int key_pairs = q_tiles * 8;
    int value_rows = v_tiles * 8;
    for (int step = 0; step < points; step += FUSED_KEYS) {
        __syncthreads();
        for (int i = threadIdx.x; i < FUSED_KEYS * key_pairs; i += blockDim.x) {
            int j = i / key_pairs;
            int c = 2 * (i % key_pairs);
            int key = step + j;
            const float* at = k + (b * points + key) * stride + kvh * dim + c;
            bool live = key < points;
            keys[j][c / 2] = pack_halves(live && c < dim ? at[0] : 0.0f,
                                         live && c + 1 < dim ? at[1] : 0.0f);
        }
        for (int i = threadIdx.x; i < FUSED_KEYS / 2 * value_rows; i += blockDim.x) {
            int c = i % value_rows;
            int j = 2 * (i / value_rows);
            int key = step + j;
            const float* at = v + (b * points + key) * stride + kvh * v_dim + c;
            bool live = c < v_dim;
            values[c][j / 2] = pack_halves(live && key < points ? at[0] : 0.0f,
                                           live && key + 1 < points ? at[stride] : 0.0f);
        }
        __syncthreads();
        // The scores, d's fragments of 8 keys: rows g and g + 8, keys 2t
        // and 2t + 1 of each.
        float s[FUSED_KEYS / 8][4];
#pragma unroll
        for (int nt = 0; nt < FUSED_KEYS / 8; nt++) {
#pragma unroll
            for (int i = 0; i < 4; i++) {
                s[nt][i] = 0.0f;
            }
#pragma unroll
            for (int kt = 0; kt < FUSED_DIM / 16; kt++) {
                if (kt < q_tiles) {
                    unsigned kb[2] = {keys[nt * 8 + g][kt * 8 + t], keys[nt * 8 + g][kt * 8 + 4 + t]};
                    mma_16816(s[nt], qa[kt], kb);
                }
            }
        }
        float step_top[2] = {-1.0e30f, -1.0e30f};
#pragma unroll
        for (int nt = 0; nt < FUSED_KEYS / 8; nt++) {
#pragma unroll
            for (int i = 0; i < 4; i++) {
                if (step + nt * 8 + 2 * t + (i & 1) >= points) {
                    s[nt][i] = -1.0e30f;
                }
                step_top[i >> 1] = fmaxf(step_top[i >> 1], s[nt][i]);
            }
        }
        float shrink[2];
#pragma unroll
        for (int r = 0; r < 2; r++) {
            // The row's four lanes: g's.
            step_top[r] = fmaxf(step_top[r], __shfl_xor_sync(0xffffffffu, step_top[r], 1));
            step_top[r] = fmaxf(step_top[r], __shfl_xor_sync(0xffffffffu, step_top[r], 2));
            float now = fmaxf(top[r], step_top[r]);
            shrink[r] = exp2f(top[r] - now);
            top[r] = now;
            sum[r] *= shrink[r];
        }
#pragma unroll
        for (int nt = 0; nt < FUSED_DIM / 8; nt++) {
#pragma unroll
            for (int i = 0; i < 4; i++) {
                o[nt][i] *= shrink[i >> 1];
            }
        }
        // The probabilities as a's fragments of 16 keys: d's fragments of
        // keys 16 kt on and 16 kt + 8 on, side by side.
#pragma unroll
        for (int kt = 0; kt < FUSED_KEYS / 16; kt++) {
            float p[2][4];
#pragma unroll
            for (int half = 0; half < 2; half++) {
#pragma unroll
                for (int i = 0; i < 4; i++) {
                    p[half][i] = exp2f(s[2 * kt + half][i] - top[i >> 1]);
                    sum[i >> 1] += p[half][i];
                }
            }
            unsigned pa[4] = {pack_halves(p[0][0], p[0][1]), pack_halves(p[0][2], p[0][3]),
                              pack_halves(p[1][0], p[1][1]), pack_halves(p[1][2], p[1][3])};
#pragma unroll
            for (int nt = 0; nt < FUSED_DIM / 8; nt++) {
                if (nt < v_tiles) {
                    unsigned vb[2] = {values[nt * 8 + g][kt * 8 + t],
                                      values[nt * 8 + g][kt * 8 + 4 + t]};
                    mma_16816(o[nt], pa, vb);
                }
            }
        }
    }
#pragma unroll
    for (int r = 0; r < 2; r++) {
        sum[r] += __shfl_xor_sync(0xffffffffu, sum[r], 1);
        sum[r] += __shfl_xor_sync(0xffffffffu, sum[r], 2);
    }
#pragma unroll
    for (int nt = 0; nt < FUSED_DIM / 8; nt++) {
#pragma unroll
        for (int i = 0; i < 4; i++) {
            int row = first + g + 8 * (i >> 1);
            int c = nt * 8 + 2 * t + (i & 1);
            if (nt < v_tiles && row < points && c < v_dim) {
                out[((b * points + row) * heads + h) * v_dim + c] = o[nt][i] / sum[i >> 1];
            }
        }
    }
}
