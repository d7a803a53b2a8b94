// Global pooling.

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
