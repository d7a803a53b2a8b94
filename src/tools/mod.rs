//! Programs beside the engine, each a `kosumi` subcommand or a test aid:
//! [`bench`](mod@bench) (speed figures), [`phantom_match`] (a phantom match between GTP
//! engines run as child processes through [`client`], each ended as a tree
//! by [`process`]), [`train_patterns`]
//! (fitting the move-prediction table to game records), [`gpu_error`] (the
//! GPU backend held to the CPU's by KataGo's gates), and [`fuzzing`]
//! (the properties the fuzzers and the property tests check). The engine
//! never names them.

pub mod bench;
pub mod bench_gemm;
pub mod client;
pub mod fuzzing;
pub mod gpu_error;
pub mod phantom_match;
pub mod train_patterns;
