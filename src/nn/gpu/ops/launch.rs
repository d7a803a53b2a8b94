//! One launcher a kernel, made from the kernels' declarations
//! ([`crate::nn::gpu::kernels`]): the launch, the kernel's parameters in
//! the source's order and types, then the queue it goes on. An operation
//! that passes another kernel's arguments does not compile.

use crate::nn::gpu::device::{Arg, Launch, Queue};
use crate::nn::gpu::kernels::{Kernel, with_kernels};

/// A parameter's Rust type in a launcher.
macro_rules! param_type {
    (Ptr) => {
        u64
    };
    (I32) => {
        i32
    };
    (I64) => {
        i64
    };
    (F32) => {
        f32
    };
}

/// A launcher a declaration.
macro_rules! launchers {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident $name:ident($($param:ident: $kind:ident),* $(,)?) $syncs:literal;
    )*) => {
        $(
            $(#[doc = $doc])*
            #[allow(clippy::too_many_arguments)]
            pub(crate) fn $name(
                launch: Launch,
                $($param: param_type!($kind),)*
                queue: &mut dyn Queue,
            ) -> Result<(), String> {
                queue.launch(Kernel::$variant, launch, &[$(Arg::$kind($param)),*])
            }
        )*
    };
}

with_kernels!(launchers);
