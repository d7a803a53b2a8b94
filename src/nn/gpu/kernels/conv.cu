// Convolutions: the products' inputs laid out for cuBLAS.

// Where block (row, tap) of an im2col launch reads and writes: the tap's
// point's channels of the input (*src, read only where it is on the board:
// the return) and the row's tap in the matrix (*dst).
template <typename T>
__device__ __forceinline__ bool im2col_place(const float* in, T* col, int width, int height,
                                             int cin, int size, const float** src, T** dst) {
    unsigned row = blockIdx.x;
    int tap = (int)blockIdx.y;
    unsigned points = (unsigned)(width * height);
    int point = (int)(row % points);
    int x = point % width + tap % size - size / 2;
    int y = point / width + tap / size - size / 2;
    bool inside = x >= 0 && y >= 0 && x < width && y < height;
    *src = in + (row - (unsigned)point + (unsigned)(inside ? y * width + x : 0)) * (unsigned)cin;
    *dst = col + (row * (unsigned)(size * size) + (unsigned)tap) * (unsigned)cin;
    return inside;
}

// The im2col matrix of a size x size convolution, a block a row (x) and tap
// (y): the tap's point's channels, col[row][tap][ci] = in[board][point moved
// by the tap][ci], zeros off the board. The row's point is found once a
// block; the threads copy the channels in 16-byte runs where cin is a
// multiple of 4 (no division per value).
extern "C" __global__ void im2col(const float* in, float* col, int width, int height, int cin,
                                  int size) {
    const float* src;
    float* dst;
    bool inside = im2col_place(in, col, width, height, cin, size, &src, &dst);
    if ((cin & 3) == 0) {
        for (int c = threadIdx.x; c < (cin >> 2); c += blockDim.x) {
            ((Floats4*)dst)[c] = inside ? ((const Floats4*)src)[c] : Floats4{0, 0, 0, 0};
        }
    } else {
        for (int c = threadIdx.x; c < cin; c += blockDim.x) {
            dst[c] = inside ? src[c] : 0.0f;
        }
    }
}

// The im2col matrix in half precision, each value times scale (1/8: the
// trunk's values then stay well inside half precision's range, as KataGo's
// "Scale8"; the product multiplies the 8 back), as im2col lays it out.
extern "C" __global__ void im2col_half(const float* in, unsigned short* col, int width, int height,
                                       int cin, int size, float scale) {
    const float* src;
    unsigned short* dst;
    bool inside = im2col_place(in, col, width, height, cin, size, &src, &dst);
    if ((cin & 3) == 0) {
        for (int c = threadIdx.x; c < (cin >> 2); c += blockDim.x) {
            Floats4 v = inside ? ((const Floats4*)src)[c] : Floats4{0, 0, 0, 0};
            ((Halves4*)dst)[c] = Halves4{half_bits(v.a * scale), half_bits(v.b * scale),
                                         half_bits(v.c * scale), half_bits(v.d * scale)};
        }
    } else {
        for (int c = threadIdx.x; c < cin; c += blockDim.x) {
            dst[c] = half_bits(inside ? src[c] * scale : 0.0f);
        }
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

// out = in * scale in single precision (or out += it where accumulate is
// set), value by value: a library convolution's half-precision output,
// which the input's scale left scaled by 1/8, back in the trunk.
extern "C" __global__ void from_half(const unsigned short* in, float* out, long long n, float scale,
                                     int accumulate) {
    unsigned i = thread_index();
    if (i < n) {
        float v = half_value(in[i]) * scale;
        out[i] = accumulate ? out[i] + v : v;
    }
}
