// Global pooling (POOL_SLICES from the prelude).

// KataGo's global pooling, a block a board (y) and 32 channels (x): the
// block's rows of threads sum a slice of the points each, coalesced along
// the channels, then the first row adds up the slices: the mean, the mean *
// (sqrt(points) - 14) / 10, then the max (at least -1) or, with quadratic,
// the mean * ((sqrt(points) - 14)^2 / 100 - 0.1). Sums in single precision.
extern "C" __global__ void pool(const float* in, float* out, int points, int channels,
                                int quadratic) {
    __shared__ float sums[POOL_SLICES][32];
    __shared__ float tops[POOL_SLICES][32];
    int c = (int)(blockIdx.x * 32 + threadIdx.x);
    unsigned b = blockIdx.y;
    bool live = c < channels;
    float sum = 0.0f;
    float top = -1.0f;
    for (int p = (int)threadIdx.y; live && p < points; p += POOL_SLICES) {
        float x = in[(b * (unsigned)points + (unsigned)p) * (unsigned)channels + (unsigned)c];
        sum += x;
        top = fmaxf(top, x);
    }
    sums[threadIdx.y][threadIdx.x] = sum;
    tops[threadIdx.y][threadIdx.x] = top;
    __syncthreads();
    if (threadIdx.y != 0 || !live) {
        return;
    }
    for (int s = 1; s < POOL_SLICES; s++) {
        sum += sums[s][threadIdx.x];
        top = fmaxf(top, tops[s][threadIdx.x]);
    }
    float mean = sum / (float)points;
    float width = sqrtf((float)points);
    float* row = out + b * 3 * (unsigned)channels;
    row[c] = mean;
    row[channels + c] = mean * (width - 14.0f) * 0.1f;
    row[2 * channels + c] =
        quadratic ? mean * ((width - 14.0f) * (width - 14.0f) * 0.01f - 0.1f) : top;
}
