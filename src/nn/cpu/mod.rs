//! The CPU backend: a model's layers run on this processor's cores, the
//! activations in single precision and the products in the net's
//! precision (f32, or bfloat16 factors where the processor has their dot
//! products: `Precision`). [`network`] holds a model's layers and runs a batch
//! through them; the layers are [`conv`] (Winograd and im2col
//! convolutions), [`layers`] (norms, dense layers, pooling) and
//! [`transformer`] (RMSNorms, attention, feed-forward); all of them
//! multiply on [`gemm`], whose kernels and the transforms' vector code
//! (`simd`) are chosen at run time for the instructions the processor has;
//! every forward pass flushes subnormal numbers ([`denormals`]). The
//! packed weights lie together in regions of huge pages (`weight_memory`).

pub mod conv;
pub mod denormals;
pub mod elementwise;
pub mod gemm;
pub mod layers;
pub mod network;
mod simd;
pub mod transformer;
mod weight_memory;
