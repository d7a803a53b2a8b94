//! The kernels of the GPU programs: their CUDA source, split by concern as
//! the operations are (`kernels/common.cuh`, then `inputs.cu`, `conv.cu`, `norm.cu`,
//! `pool.cu`, `attention.cu`, `dense.cu`, compiled as one source), and one
//! declaration a kernel: its name and parameters as the source has them,
//! and whether its threads wait for each other at `__syncthreads`. From
//! the declarations come the [`Kernel`] names the devices load, a typed
//! launcher a kernel (`ops/launch.rs`: an operation passes its kernel's
//! parameters, in their order and types, or does not compile), and the
//! emulator's table; a test holds every declaration to the source's
//! signature.

use crate::nn::model::Activation;

/// The activations the kernels apply, each by its number: its place here.
/// The kernels read them by name (`ACT_RELU`), defined from this table in
/// the source's prelude ([`source`]), so that each is numbered once.
#[cfg_attr(not(any(test, feature = "cuda")), allow(dead_code))]
pub(crate) const ACTIVATIONS: [(Activation, &str); 4] = [
    (Activation::Identity, "ACT_IDENTITY"),
    (Activation::Relu, "ACT_RELU"),
    (Activation::Mish, "ACT_MISH"),
    (Activation::Silu, "ACT_SILU"),
];

/// The rows of threads of a pooling block, each summing a slice of a
/// board's points (`POOL_SLICES` in the source's prelude).
pub(crate) const POOL_SLICES: u32 = 8;

/// What a value is multiplied by on its way into half precision between
/// layers, and by whose inverse on its way out (KataGo's "Scale8": a mish
/// net's large activations stay inside half precision's range);
/// `HALF_SCALE` in the source's prelude.
pub(crate) const HALF_SCALE: f32 = 0.125;

/// The warps a block of the fused attention kernel, each taking 16 query
/// points (`FUSED_WARPS` in the source's prelude).
pub(crate) const FUSED_WARPS: u32 = 4;

/// The most channels a head's queries, keys or values have where the
/// fused attention kernel takes it (`FUSED_DIM` in the source's prelude).
pub(crate) const FUSED_DIM: usize = 64;

/// An activation's number, as the kernels read it.
#[cfg_attr(not(any(test, feature = "cuda")), allow(dead_code))]
pub(crate) fn activation_code(act: Activation) -> i32 {
    ACTIVATIONS
        .iter()
        .position(|&(a, _)| a == act)
        .expect("every activation is in the table") as i32
}

/// The kernels' whole source: the activations' numbers, then [`SOURCE`];
/// compiled at run time by NVRTC (and for the tests by g++ and clang).
#[cfg_attr(not(any(test, feature = "cuda")), allow(dead_code))]
pub(crate) fn source() -> String {
    let mut text = String::from("// The activations' numbers (src/nn/gpu/kernels.rs).\n");
    for (code, (_, name)) in ACTIVATIONS.iter().enumerate() {
        text += &format!("#define {name} {code}\n");
    }
    text += &format!("#define POOL_SLICES {POOL_SLICES}\n");
    text += &format!("#define HALF_SCALE {HALF_SCALE:?}f\n");
    text += &format!("#define FUSED_WARPS {FUSED_WARPS}\n");
    text += &format!("#define FUSED_DIM {FUSED_DIM}\n");
    text + SOURCE
}

/// The kernels' own source, after the prelude [`source`] writes.
#[cfg_attr(not(any(test, feature = "cuda")), allow(dead_code))]
pub(crate) const SOURCE: &str = concat!(
    include_str!("kernels/common.cuh"),
    "\n",
    include_str!("kernels/inputs.cu"),
    "\n",
    include_str!("kernels/conv.cu"),
    "\n",
    include_str!("kernels/norm.cu"),
    "\n",
    include_str!("kernels/pool.cu"),
    "\n",
    include_str!("kernels/attention.cu"),
    "\n",
    include_str!("kernels/dense.cu"),
);

/// The kind of a kernel's parameter, as the source declares it: an
/// address of floats or of halves (`unsigned short`), written to or only
/// read (`const`), an `int`, a `long long` or a `float`.
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Param {
    F32s,
    ConstF32s,
    Halves,
    ConstHalves,
    I32,
    I64,
    F32,
}

/// The [`Kernel`] enum and its facts, from the declarations.
macro_rules! declare {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident $name:ident($($param:ident: $kind:ident),* $(,)?) $syncs:literal;
    )*) => {
        /// A kernel of the source.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) enum Kernel {
            $($variant),*
        }

        #[cfg_attr(not(any(test, feature = "cuda")), allow(dead_code))]
        impl Kernel {
            /// Every kernel, in the order of their numbers.
            pub(crate) const ALL: &'static [Kernel] = &[$(Kernel::$variant),*];

            /// Its name in the source.
            pub(crate) fn name(self) -> &'static str {
                match self {
                    $(Kernel::$variant => stringify!($name)),*
                }
            }

            /// Its parameters' names and kinds, in order.
            #[cfg(test)]
            pub(crate) fn params(self) -> &'static [(&'static str, Param)] {
                match self {
                    $(Kernel::$variant => &[$((stringify!($param), Param::$kind)),*]),*
                }
            }

            /// Whether its threads wait for each other at `__syncthreads`
            /// (the emulator then runs a block's threads side by side).
            #[cfg(test)]
            pub(crate) fn syncs(self) -> bool {
                match self {
                    $(Kernel::$variant => $syncs),*
                }
            }
        }

    };
}

/// Hands the kernels' declarations to `$then`, a macro that makes
/// something of each: `Variant name(parameter: Kind, …) syncs;`.
macro_rules! with_kernels {
    ($then:ident) => {
        $then! {
        /// The im2col matrix of a `size × size` convolution.
        Im2col im2col(
            r#in: ConstF32s, col: F32s, width: I32, height: I32, cin: I32, size: I32,
        ) false;
        /// The im2col matrix in half precision, each value times `scale`.
        Im2colHalf im2col_half(
            r#in: ConstF32s, col: Halves, width: I32, height: I32, cin: I32, size: I32,
            scale: F32,
        ) false;
        /// `out = in · scale` in half precision.
        ToHalf to_half(r#in: ConstF32s, out: Halves, n: I64, scale: F32) false;
        /// `out = in · scale` (or `+=`) in single precision.
        FromHalf from_half(
            r#in: ConstHalves, out: F32s, n: I64, scale: F32, accumulate: I32,
        ) false;
        /// `out = act((in + extra[board]) · scale + bias)` channel by channel.
        NormAct norm_act(
            r#in: ConstF32s, out: F32s, scale: ConstF32s, bias: ConstF32s, extra: ConstF32s,
            points: I32, channels: I32, act: I32,
        ) false;
        /// The same, from floats into halves.
        NormActToHalf norm_act_to_half(
            r#in: ConstF32s, out: Halves, scale: ConstF32s, bias: ConstF32s, extra: ConstF32s,
            points: I32, channels: I32, act: I32,
        ) false;
        /// The same, from halves into halves.
        NormActHalves norm_act_halves(
            r#in: ConstHalves, out: Halves, scale: ConstF32s, bias: ConstF32s, extra: ConstF32s,
            points: I32, channels: I32, act: I32,
        ) false;
        /// The same, from halves into floats.
        NormActFromHalf norm_act_from_half(
            r#in: ConstHalves, out: F32s, scale: ConstF32s, bias: ConstF32s, extra: ConstF32s,
            points: I32, channels: I32, act: I32,
        ) false;
        /// `v[board] = act(v[board] + bias)`.
        BiasAct bias_act(v: F32s, bias: ConstF32s, batch: I32, channels: I32, act: I32) false;
        /// Each point's planes from its mask: `out[row][c]` = bit `c` of
        /// `masks[row]`.
        SpreadPlanes spread_planes(masks: ConstF32s, out: F32s, rows: I32, channels: I32) false;
        /// `v[board][point] += bias[board]`.
        AddSpatialBias add_spatial_bias(
            bias: ConstF32s, v: F32s, rows: I32, points: I32, channels: I32,
        ) false;
        /// The same into halves, a block a row.
        AddSpatialBiasHalves add_spatial_bias_halves(
            bias: ConstF32s, v: Halves, points: I32, channels: I32,
        ) false;
        /// KataGo's global pooling, a thread a board and channel.
        Pool pool(r#in: ConstF32s, out: F32s, points: I32, channels: I32, quadratic: I32) true;
        /// An RMSNorm a point, a warp a point.
        RmsNormPoints rms_norm_points(
            r#in: ConstF32s, out: F32s, gamma: ConstF32s, beta: ConstF32s, rows: I32,
            channels: I32, epsilon: F32, act: I32,
        ) true;
        /// An RMSNorm a board, a block a board.
        RmsNormBoards rms_norm_boards(
            r#in: ConstF32s, out: F32s, gamma: ConstF32s, beta: ConstF32s, points: I32,
            channels: I32, epsilon: F32, act: I32,
        ) true;
        /// Rotary position embedding, a thread a row, head and pair.
        Rope rope(
            v: F32s, stride: I32, rows: I32, points: I32, width: I32, heads: I32, dim: I32,
            freqs: ConstF32s, tables: I32, theta: F32,
        ) false;
        /// Attention, a block a query point, head and board.
        Attention attention(
            q: ConstF32s, k: ConstF32s, v: ConstF32s, stride: I32, out: F32s, points: I32,
            heads: I32, kv_heads: I32, dim: I32, v_dim: I32,
        ) true;
        /// Attention on the tensor cores, a block 64 query points, a head
        /// and a board, the scores kept in registers.
        AttentionFused attention_fused(
            q: ConstF32s, k: ConstF32s, v: ConstF32s, stride: I32, out: F32s, points: I32,
            heads: I32, kv_heads: I32, dim: I32, v_dim: I32,
        ) true;
        /// The softmax of each row in place, a warp a row.
        SoftmaxRows softmax_rows(s: F32s, rows: I32, n: I32) true;
        /// `out = silu(hidden) · gate`, a block a row of hidden and gate
        /// values side by side.
        SwiGlu swiglu(both: ConstF32s, out: F32s, channels: I32) false;
            }
    };
}
cfg_device! {
    pub(crate) use with_kernels;
}

with_kernels!(declare);

#[cfg(test)]
mod tests {
    use super::*;

    /// Each `extern "C" __global__` kernel of the source: its name and its
    /// parameters' names and kinds.
    fn declared_in_source() -> Vec<(String, Vec<(String, Param)>)> {
        let mut kernels = Vec::new();
        for piece in SOURCE.split("extern \"C\" __global__ void ").skip(1) {
            let open = piece.find('(').expect("a parameter list");
            let close = piece.find(')').expect("a parameter list's end");
            let params = piece[open + 1..close]
                .split(',')
                .map(|p| {
                    let p = p.split_whitespace().collect::<Vec<_>>().join(" ");
                    let (ty, name) = p.rsplit_once(' ').expect("a type and a name");
                    let kind = match ty {
                        "float*" => Param::F32s,
                        "const float*" => Param::ConstF32s,
                        "unsigned short*" => Param::Halves,
                        "const unsigned short*" => Param::ConstHalves,
                        "int" => Param::I32,
                        "long long" => Param::I64,
                        "float" => Param::F32,
                        _ => panic!("a parameter of an unknown type: {p}"),
                    };
                    (name.to_string(), kind)
                })
                .collect();
            kernels.push((piece[..open].to_string(), params));
        }
        kernels
    }

    #[test]
    fn every_kernel_is_declared_as_the_source_has_it() {
        let source = declared_in_source();
        assert_eq!(
            source.len(),
            Kernel::ALL.len(),
            "every kernel declared once"
        );
        for &kernel in Kernel::ALL {
            let ours: Vec<(String, Param)> = kernel
                .params()
                .iter()
                .map(|&(n, k)| (n.trim_start_matches("r#").to_string(), k))
                .collect();
            let theirs = source.iter().find(|(name, _)| name == kernel.name());
            let theirs = theirs.unwrap_or_else(|| panic!("{} is not in the source", kernel.name()));
            assert_eq!(ours, theirs.1, "{}'s parameters", kernel.name());
        }
    }

    #[test]
    fn each_activation_is_numbered_once_and_the_source_reads_it_by_name() {
        let source = source();
        for (code, &(act, name)) in ACTIVATIONS.iter().enumerate() {
            assert_eq!(activation_code(act), code as i32);
            assert!(source.contains(&format!("#define {name} {code}\n")));
            assert!(
                SOURCE.contains(name) || act == Activation::Identity,
                "{name}"
            );
        }
        let mut acts: Vec<String> = ACTIVATIONS.iter().map(|(a, _)| format!("{a:?}")).collect();
        acts.dedup();
        assert_eq!(acts.len(), ACTIVATIONS.len());
        // No number is written into the source itself.
        assert!(!SOURCE.contains("case 1:") && !SOURCE.contains("case 2:"));
    }

    #[test]
    fn the_kernels_that_wait_at_a_barrier_are_those_that_say_so() {
        for &kernel in Kernel::ALL {
            let at = SOURCE
                .find(&format!("__global__ void {}(", kernel.name()))
                .unwrap();
            let rest = &SOURCE[at..];
            let end = rest.find("\n}\n").unwrap();
            let body = &rest[..end];
            let waits = [
                "__syncthreads",
                "block_sum",
                "block_max",
                "warp_sum",
                "warp_max",
            ]
            .iter()
            .any(|w| body.contains(w));
            assert_eq!(waits, kernel.syncs(), "{}", kernel.name());
        }
    }
}
