//! What the GPU backends share: the network compiled to a [`program`] of
//! device operations on numbered buffers, and the host's executor of a
//! program ([`host`]), which holds a program to the CPU backend in the
//! tests. CUDA's executor (`cuda`, behind the `cuda` feature) runs the same
//! program with kernels and cuBLAS.

#[cfg(test)]
pub(crate) mod host;
pub(crate) mod program;
