// The input planes.

// Each point's planes from its mask (the planes' bits, plane c at bit c, as
// an exact integer in a float): out[row][c] = bit c of masks[row]. A thread
// a value, a warp a row's channels (at most 32), blockDim.y rows a block.
extern "C" __global__ void spread_planes(const float* masks, float* out, int rows, int channels) {
    unsigned row = blockIdx.x * blockDim.y + threadIdx.y;
    unsigned c = threadIdx.x;
    if (row >= (unsigned)rows || c >= (unsigned)channels) {
        return;
    }
    unsigned mask = (unsigned)masks[row];
    out[row * (unsigned)channels + c] = (float)((mask >> c) & 1u);
}
