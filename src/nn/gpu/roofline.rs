//! The floor under every operation of a GPU program: what each operation
//! must compute (its flops) and must move to and from the device's memory
//! (its bytes: each input read once, each output written once, the
//! weights read once a pass), and the least time a GPU takes for them by
//! its peaks ([`Peak`]: single precision on CUDA's cores, TF32 and f16 on
//! the tensor cores, memory bandwidth), as a roofline reads them. `bench
//! --nn --profile` sets the floor beside each measured time on a GPU whose
//! peaks are known (`eff = floor / measured`), and `bench --nn --roofline
//! GPU` prints the floors for a net on any machine, so that a design is
//! checked before a GPU runs it. Launches are not in the floor.

use super::ops::Buf;
use super::ops::attention::Attention;
use super::ops::conv::Conv;
use super::ops::dense::{MatMul, SwiGlu};
use super::ops::inputs::SpreadPlanes;
use super::ops::norm::{AddSpatialBias, BiasAct, NormAct, RmsNorm};
use super::ops::pool::Pool;
use super::program::{Op, Program, Storage};
use crate::nn::backend::Shape;
use crate::nn::precision::Precision;

/// A GPU's peaks, dense (no sparsity), as its maker gives them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Peak {
    /// Its name as `--roofline` takes it, and the words a device's name
    /// holds for it (all of them).
    pub(crate) name: &'static str,
    pub(crate) words: &'static [&'static str],
    /// Operations a second: single precision on CUDA's cores; TF32 and
    /// f16 (f32 sums) on the tensor cores.
    pub(crate) f32: f64,
    pub(crate) tf32: f64,
    pub(crate) f16: f64,
    /// Bytes a second to and from the device's memory.
    pub(crate) bandwidth: f64,
}

/// The GPUs whose peaks are known, the more particular names first.
pub(crate) const PEAKS: &[Peak] = &[
    Peak {
        name: "h100-pcie",
        words: &["H100", "PCIe"],
        f32: 51.2e12,
        tf32: 378e12,
        f16: 756e12,
        bandwidth: 2.0e12,
    },
    Peak {
        name: "h100",
        words: &["H100"],
        f32: 67e12,
        tf32: 494.7e12,
        f16: 989.4e12,
        bandwidth: 3.35e12,
    },
    Peak {
        name: "h200",
        words: &["H200"],
        f32: 67e12,
        tf32: 494.7e12,
        f16: 989.4e12,
        bandwidth: 4.8e12,
    },
    Peak {
        name: "a100",
        words: &["A100"],
        f32: 19.5e12,
        tf32: 156e12,
        f16: 312e12,
        bandwidth: 2.039e12,
    },
    Peak {
        name: "l4",
        words: &["L4"],
        f32: 30.3e12,
        tf32: 60e12,
        f16: 121e12,
        bandwidth: 0.3e12,
    },
    Peak {
        name: "rtx4090",
        words: &["4090"],
        f32: 82.6e12,
        tf32: 82.6e12,
        f16: 165.2e12,
        bandwidth: 1.008e12,
    },
    Peak {
        name: "rtx3090",
        words: &["3090"],
        f32: 35.6e12,
        tf32: 35.6e12,
        f16: 71e12,
        bandwidth: 0.936e12,
    },
];

impl Peak {
    /// The GPU `--roofline` names (`h100`), or why none.
    pub(crate) fn named(name: &str) -> Result<Peak, String> {
        let known = || PEAKS.iter().map(|p| p.name).collect::<Vec<_>>().join(", ");
        PEAKS
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(name))
            .copied()
            .ok_or_else(|| format!("no peaks known for '{name}' (known: {})", known()))
    }

    /// The peaks of the device a driver names so ("NVIDIA H100 80GB
    /// HBM3"), where known.
    #[cfg_attr(not(any(test, feature = "cuda")), allow(dead_code))]
    pub(crate) fn of_device(device: &str) -> Option<Peak> {
        PEAKS
            .iter()
            .find(|p| p.words.iter().all(|w| device.contains(w)))
            .copied()
    }
}

/// How an operation's products run, for its peak.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unit {
    /// CUDA's cores in single precision (and every element-wise kernel).
    Cores,
    /// The tensor cores, TF32.
    Tf32,
    /// The tensor cores, f16 factors.
    F16,
}

/// What an operation must do: its floating-point operations and the
/// bytes it must move, and where its products run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Cost {
    pub(crate) flops: f64,
    pub(crate) bytes: f64,
    pub(crate) unit: Unit,
}

impl Cost {
    /// An element-wise operation: `flops` and `values` read or written,
    /// single precision.
    fn elementwise(flops: usize, values: usize) -> Cost {
        Cost {
            flops: flops as f64,
            bytes: 4.0 * values as f64,
            unit: Unit::Cores,
        }
    }

    /// The least time `peak` takes for it, in seconds: its products at
    /// their unit's peak or its bytes at the bandwidth, whichever is the
    /// longer.
    pub(crate) fn floor(&self, peak: &Peak) -> f64 {
        let rate = match self.unit {
            Unit::Cores => peak.f32,
            Unit::Tf32 => peak.tf32,
            Unit::F16 => peak.f16,
        };
        (self.flops / rate).max(self.bytes / peak.bandwidth)
    }
}

impl Op {
    /// What the operation must do on `shape`, its products in `precision`
    /// as the executor runs them (the convolutions' factors f16 and
    /// attention's TF32 under f16; the dense products f32), each buffer
    /// stored as `storage` says (two bytes a value in halves, four in
    /// single precision).
    pub(crate) fn cost(&self, shape: Shape, precision: Precision, storage: &[Storage]) -> Cost {
        let (rows, boards, points) = (shape.rows(), shape.batch, shape.points());
        let half = precision.half_factors();
        let bytes = |b: Buf| match storage[b.0] {
            Storage::F16 => 2.0,
            Storage::F32 => 4.0,
        };
        match *self {
            Op::SpreadPlanes(SpreadPlanes { channels, .. }) => {
                Cost::elementwise(0, rows + rows * channels)
            }
            Op::Conv(Conv {
                src,
                dst,
                size,
                cin,
                cout,
                accumulate,
                ..
            }) => {
                let weight_bytes = if half { 2.0 } else { 4.0 };
                let weights = (size * size * cin * cout) as f64;
                let outputs = (rows * cout * (1 + usize::from(accumulate))) as f64;
                Cost {
                    flops: 2.0 * rows as f64 * weights,
                    bytes: bytes(src) * (rows * cin) as f64
                        + weight_bytes * weights
                        + bytes(dst) * outputs,
                    unit: if half { Unit::F16 } else { Unit::Cores },
                }
            }
            Op::MatMul(MatMul { cin, cout, .. }) => Cost {
                flops: 2.0 * (boards * cin * cout) as f64,
                bytes: 4.0 * (boards * cin + cin * cout + boards * cout) as f64,
                unit: Unit::Cores,
            },
            Op::NormAct(NormAct {
                src,
                dst,
                channels,
                extra,
                ..
            }) => {
                let extra = extra.map_or(0, |_| boards * channels);
                let values = (rows * channels) as f64;
                Cost {
                    flops: (3 * rows * channels) as f64,
                    bytes: (bytes(src) + bytes(dst)) * values + 4.0 * (2 * channels + extra) as f64,
                    unit: Unit::Cores,
                }
            }
            Op::BiasAct(BiasAct { channels, .. }) => {
                Cost::elementwise(2 * boards * channels, 2 * boards * channels + channels)
            }
            Op::AddSpatialBias(AddSpatialBias { dst, channels, .. }) => Cost {
                flops: (rows * channels) as f64,
                bytes: bytes(dst) * (2 * rows * channels) as f64 + 4.0 * (boards * channels) as f64,
                unit: Unit::Cores,
            },
            Op::Pool(Pool { channels, .. }) => {
                Cost::elementwise(2 * rows * channels, rows * channels + 3 * boards * channels)
            }
            Op::RmsNorm(RmsNorm { channels, .. }) => {
                Cost::elementwise(4 * rows * channels, 2 * rows * channels + 2 * channels)
            }
            Op::Rope(rope) => {
                let values = rows * rope.heads * rope.dim;
                Cost::elementwise(3 * values, 2 * values)
            }
            Op::Attention(Attention {
                heads,
                kv_heads,
                dim,
                v_dim,
                ..
            }) => {
                let pairs = (boards * heads * points * points) as f64;
                let values =
                    rows * (heads * dim + kv_heads * dim + kv_heads * v_dim + heads * v_dim);
                Cost {
                    flops: 2.0 * pairs * (dim + v_dim) as f64,
                    bytes: 4.0 * values as f64,
                    unit: if half { Unit::Tf32 } else { Unit::Cores },
                }
            }
            Op::SwiGlu(SwiGlu { channels, .. }) => {
                Cost::elementwise(4 * rows * channels, 3 * rows * channels)
            }
        }
    }
}

/// One kind of operation's floor in a pass: how many there are, what they
/// must do together, and the least time a GPU takes for them.
#[derive(Clone, Debug, PartialEq)]
pub struct KindFloor {
    pub kind: &'static str,
    pub ops: usize,
    pub flops: f64,
    pub bytes: f64,
    /// Seconds.
    pub floor: f64,
}

/// The floors of a net (`model`, or the embedded one) compiled for a GPU,
/// on the GPU `gpu` names (`h100`), for `batch` boards of `size`, its
/// products in `precision`: kind by kind, in the order the kinds first
/// run; why not where the GPU is not known or the file does not read.
pub fn roofline(
    model: Option<&std::path::Path>,
    gpu: &str,
    size: crate::go::board::BoardSize,
    batch: usize,
    precision: Precision,
    trunk: super::ops::GpuTrunk,
) -> Result<Vec<KindFloor>, String> {
    use crate::nn::model::{EMBEDDED_MODEL, ModelDesc};
    let peak = Peak::named(gpu)?;
    let desc = match model {
        Some(path) => ModelDesc::load(path).map_err(|e| format!("{}: {e}", path.display()))?,
        None => ModelDesc::parse(EMBEDDED_MODEL).map_err(|e| e.to_string())?,
    };
    let mut program = Program::compile(&desc);
    if precision.half_factors() {
        program.store_halves_between_layers(super::ops::GpuConv::Cudnn, trunk);
    }
    Ok(floors(
        &program,
        Shape::of(size, batch.max(1)),
        precision,
        &peak,
    ))
}

/// `program`'s floors on `peak` for `shape`, kind by kind in the order the
/// kinds first run.
pub(crate) fn floors(
    program: &Program,
    shape: Shape,
    precision: Precision,
    peak: &Peak,
) -> Vec<KindFloor> {
    let mut kinds: Vec<KindFloor> = Vec::new();
    for op in &program.ops {
        let cost = op.cost(shape, precision, &program.storage);
        let kind = op.kind();
        let at = match kinds.iter().position(|k| k.kind == kind) {
            Some(at) => at,
            None => {
                kinds.push(KindFloor {
                    kind,
                    ops: 0,
                    flops: 0.0,
                    bytes: 0.0,
                    floor: 0.0,
                });
                kinds.len() - 1
            }
        };
        let k = &mut kinds[at];
        k.ops += 1;
        k.flops += cost.flops;
        k.bytes += cost.bytes;
        k.floor += cost.floor(peak);
    }
    kinds
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::board::BoardSize;
    use crate::nn::model::ModelDesc;

    #[test]
    fn a_convolutions_floor_is_its_products_or_its_bytes_counted_by_hand() {
        let conv = Op::Conv(Conv {
            src: super::super::ops::Buf(0),
            dst: super::super::ops::Buf(1),
            weights: super::super::ops::Weights(0),
            size: 3,
            cin: 192,
            cout: 192,
            accumulate: true,
        });
        let shape = Shape::of(BoardSize::square(19), 128);
        let rows = 128.0 * 361.0;
        let singles = [Storage::F32; 2];
        let cost = conv.cost(shape, Precision::F16, &singles);
        // 2 · rows · 9 · 192 · 192 flops; the input read, the weights in
        // halves, the output read and written.
        assert_eq!(cost.flops, 2.0 * rows * 9.0 * 192.0 * 192.0);
        let bytes = 4.0 * rows * 192.0 + 2.0 * 9.0 * 192.0 * 192.0 + 4.0 * rows * 192.0 * 2.0;
        assert_eq!(cost.bytes, bytes);
        // Its input in halves: two bytes a value read.
        let half_input = conv.cost(shape, Precision::F16, &[Storage::F16, Storage::F32]);
        assert_eq!(cost.bytes - half_input.bytes, 2.0 * rows * 192.0);
        assert_eq!(cost.unit, Unit::F16);
        let h100 = Peak::named("h100").unwrap();
        // On the tensor cores it is memory-bound: 35.6 MB at 3.35 TB/s.
        assert!((cost.floor(&h100) - bytes / 3.35e12).abs() < 1e-12);
        // In f32 on CUDA's cores it is bound by its products.
        let f32 = conv.cost(shape, Precision::F32, &singles);
        assert!((f32.floor(&h100) - f32.flops / 67e12).abs() < 1e-12);
    }

    #[test]
    fn attention_is_its_two_products_and_its_four_matrices() {
        let attention = Op::Attention(Attention {
            qkv: super::super::ops::Buf(0),
            out: super::super::ops::Buf(3),
            heads: 6,
            kv_heads: 3,
            dim: 64,
            v_dim: 32,
        });
        let shape = Shape::of(BoardSize::square(9), 2);
        let cost = attention.cost(shape, Precision::F16, &[Storage::F32; 4]);
        assert_eq!(cost.flops, 2.0 * (2 * 6 * 81 * 81) as f64 * 96.0);
        assert_eq!(
            cost.bytes,
            4.0 * (162 * (6 * 64 + 3 * 64 + 3 * 32 + 6 * 32)) as f64
        );
        assert_eq!(cost.unit, Unit::Tf32);
    }

    #[test]
    fn a_devices_name_finds_its_peaks_and_a_name_not_known_is_said() {
        assert_eq!(
            Peak::of_device("cuda NVIDIA H100 80GB HBM3").unwrap().name,
            "h100"
        );
        assert_eq!(
            Peak::of_device("cuda NVIDIA H100 PCIe").unwrap().name,
            "h100-pcie"
        );
        assert_eq!(Peak::of_device("cuda NVIDIA H200").unwrap().name, "h200");
        assert!(Peak::of_device("emulated gpu").is_none());
        let err = Peak::named("v100").unwrap_err();
        assert!(err.contains("h100") && err.contains("v100"), "{err}");
    }

    #[test]
    fn a_programs_floors_add_up_kind_by_kind() {
        let desc = ModelDesc::parse(crate::nn::EMBEDDED_MODEL).unwrap();
        let program = Program::compile(&desc);
        let shape = Shape::of(BoardSize::square(19), 128);
        let h100 = Peak::named("h100").unwrap();
        let kinds = floors(&program, shape, Precision::F16, &h100);
        assert_eq!(
            kinds.iter().map(|k| k.ops).sum::<usize>(),
            program.ops.len()
        );
        let total: f64 = program
            .ops
            .iter()
            .map(|op| {
                op.cost(shape, Precision::F16, &program.storage)
                    .floor(&h100)
            })
            .sum();
        let summed: f64 = kinds.iter().map(|k| k.floor).sum();
        assert!((total - summed).abs() < 1e-12 * total.max(1.0));
        // The planes spread from a mask a point: nothing computed, the
        // masks read and 22 values a point written, four bytes each.
        assert_eq!(kinds[0].kind, "input planes");
        assert_eq!(kinds[0].flops, 0.0);
        assert_eq!(kinds[0].bytes, 4.0 * (shape.rows() * (1 + 22)) as f64);
        assert_eq!(kinds[1].kind, "conv 3x3");
        // The six-block net's products: 2 · its multiply-adds a board.
        let flops: f64 = kinds
            .iter()
            .filter(|k| k.kind.starts_with("conv"))
            .map(|k| k.flops)
            .sum();
        assert!(flops > 0.0 && flops < 2.0 * program.macs(361) * 128.0 * 1.01);
    }
}
