//! One launcher a kernel, made from the kernels' declarations
//! ([`crate::nn::gpu::kernels`]): the launch, the kernel's parameters in
//! the source's order and types, then the queue it goes on. An operation
//! that passes another kernel's arguments does not compile.

use crate::nn::gpu::device::{Arg, F32s, Halves, Launch, Queue};
use crate::nn::gpu::kernels::{Kernel, with_kernels};

/// A parameter's Rust type in a launcher: an address typed by its
/// elements (whether the kernel writes it is the source's, held to the
/// declarations by their test).
macro_rules! param_type {
    (F32s) => {
        F32s
    };
    (ConstF32s) => {
        F32s
    };
    (Halves) => {
        Halves
    };
    (ConstHalves) => {
        Halves
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

/// A parameter as the queue passes it.
macro_rules! arg {
    (F32s, $v:ident) => {
        Arg::Ptr($v.addr())
    };
    (ConstF32s, $v:ident) => {
        Arg::Ptr($v.addr())
    };
    (Halves, $v:ident) => {
        Arg::Ptr($v.addr())
    };
    (ConstHalves, $v:ident) => {
        Arg::Ptr($v.addr())
    };
    ($kind:ident, $v:ident) => {
        Arg::$kind($v)
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
                queue.launch(Kernel::$variant, launch, &[$(arg!($kind, $param)),*])
            }
        )*
    };
}

with_kernels!(launchers);
