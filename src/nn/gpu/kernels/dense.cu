// The gated unit of a transformer's feed-forward layer.

// hidden = silu(hidden) * gate, value by value.
extern "C" __global__ void swiglu(float* hidden, const float* gate, long long n) {
    unsigned i = thread_index();
    if (i >= n) {
        return;
    }
    hidden[i] = activate(3, hidden[i]) * gate[i];
}
