// The gated unit of a transformer's feed-forward layer.

// out = silu(hidden) * gate, a block a row, its threads over the channels:
// both's rows are the channels' hidden values then their gate values (one
// product made them), out's rows the channels'.
extern "C" __global__ void swiglu(const float* both, float* out, int channels) {
    unsigned row = blockIdx.x;
    const float* hidden = both + row * (unsigned)(2 * channels);
    const float* gate = hidden + channels;
    float* o = out + row * (unsigned)channels;
    for (int c = threadIdx.x; c < channels; c += blockDim.x) {
        o[c] = activate(ACT_SILU, hidden[c]) * gate[c];
    }
}
