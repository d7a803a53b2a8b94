// Convolutions: the products' inputs laid out for cuBLAS.

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
