//! The host's executor of a [`Program`]: each operation in plain loops, as
//! a device's kernels compute it, so that the tests hold a program (its
//! order, buffers, layouts and heads) to the CPU backend without a GPU, and
//! a device's results to the host's. It is a [`Backend`] like any other,
//! made for the tests alone: the CPU backend is the one that runs fast.

use super::ops::HostStep;
use super::program::{Buf, Program};
use crate::go::board::BoardSize;
use crate::nn::backend::{
    Attributes, Backend, Batching, Computation, Inputs, PassError, RawOutput, Shape,
};
use crate::nn::model::ModelDesc;
use std::sync::Arc;

/// A program run on the host.
pub(crate) struct HostProgram {
    program: Program,
    attributes: Attributes,
}

impl HostProgram {
    pub(crate) fn new(desc: &ModelDesc) -> HostProgram {
        HostProgram {
            program: Program::compile(desc),
            attributes: Attributes {
                name: "host program".into(),
                precision: crate::nn::precision::Precision::F32,
                batching: Batching::boards(8, 1),
                peak_flops_per_cycle: 1.0,
                on_processor: true,
            },
        }
    }
}

/// A thread's passes: one buffer a program buffer, and the product's
/// input matrix.
struct HostComputation {
    host: Arc<HostProgram>,
    values: Vec<Vec<f32>>,
    col: Vec<f32>,
}

/// Runs `program` on `values` (each buffer sized for `shape`), each
/// operation by its own host loops ([`super::ops`]).
pub(crate) fn run(program: &Program, shape: Shape, values: &mut [Vec<f32>], col: &mut Vec<f32>) {
    col.resize(program.product_input_len(shape), 0.0);
    let mut step = HostStep {
        weights: &program.weights,
        shape,
        values,
        col,
    };
    for op in &program.ops {
        op.on_host(&mut step);
    }
}

impl Computation for HostComputation {
    fn inputs(&mut self, shape: Shape) -> Inputs<'_> {
        let program = &self.host.program;
        self.values = program
            .buffers
            .iter()
            .map(|e| vec![0.0; e.len(shape)])
            .collect();
        let mut slots: [&mut [f32]; 3] = [&mut [], &mut [], &mut []];
        for (i, values) in self.values.iter_mut().enumerate() {
            if let Some(slot) = program.input_slot(Buf(i)) {
                slots[slot] = values;
            }
        }
        Program::inputs_of(slots)
    }

    fn forward(&mut self, shape: Shape, out: &mut [RawOutput]) -> Result<(), PassError> {
        let program = &self.host.program;
        run(program, shape, &mut self.values, &mut self.col);
        let values = &self.values;
        program.read_heads(shape, |Buf(i)| &values[i][..], out);
        Ok(())
    }
}

impl Backend for HostProgram {
    fn attributes(&self) -> &Attributes {
        &self.attributes
    }

    fn computation(self: Arc<Self>) -> Box<dyn Computation> {
        Box::new(HostComputation {
            host: self,
            values: Vec::new(),
            col: Vec::new(),
        })
    }

    fn macs(&self, size: BoardSize) -> f64 {
        self.program.macs(size.points())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::gpu::program::{Angles, Op, RmsNorm, Rope};
    use crate::nn::model::ModelDesc;

    /// The same positions through the CPU backend and the host's program
    /// of `desc`: every raw number within `tolerance`.
    fn agrees_with_the_cpu(desc: &ModelDesc, sizes: &[(usize, usize)], tolerance: f32) {
        let host = std::sync::Arc::new(HostProgram::new(desc));
        crate::nn::gpu::tests::holds_to_the_cpu(desc, host, sizes, tolerance);
    }

    #[test]
    fn the_embedded_nets_program_computes_what_the_cpu_backend_does() {
        let desc = ModelDesc::parse(crate::nn::EMBEDDED_MODEL).unwrap();
        agrees_with_the_cpu(&desc, &[(9, 9), (19, 19), (7, 11)], 2e-4);
    }

    #[test]
    fn the_synthetic_nets_programs_compute_what_the_cpu_backend_does() {
        // Version 16's layout: nested bottlenecks, global pooling blocks,
        // the pass's hidden layer, four policy channels, six scores; and a
        // human-like net's metadata encoder.
        let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/models/");
        for file in ["synthetic-v16.txt.gz", "synthetic-v16-human.txt.gz"] {
            let desc = ModelDesc::load(std::path::Path::new(&format!("{data}{file}"))).unwrap();
            agrees_with_the_cpu(&desc, &[(9, 9), (13, 6)], 2e-4);
        }
        let narrow = crate::nn::test_models::narrow(3, 0.0);
        let desc = ModelDesc::parse(narrow.as_bytes()).unwrap();
        agrees_with_the_cpu(&desc, &[(5, 5), (19, 19)], 2e-4);
    }

    #[test]
    fn the_transformer_nets_programs_compute_what_the_cpu_backend_does() {
        // KataGo's two version 17 test nets: attention with learned and
        // fixed rotary embeddings, grouped heads, SwiGLU, the trunk's
        // RMSNorm over points and over the board.
        let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/models/");
        let (mut kinds, mut tips) = (
            std::collections::BTreeSet::new(),
            std::collections::BTreeSet::new(),
        );
        for file in [
            "b7c96h3tfrs-test5-cnorm.bin.gz",
            "b7c96h6kv3qk32v16tflrs-fson-bnh.bin.gz",
        ] {
            let desc = ModelDesc::load(std::path::Path::new(&format!("{data}{file}"))).unwrap();
            agrees_with_the_cpu(&desc, &[(9, 9), (19, 19), (7, 11)], 5e-4);
            for op in &Program::compile(&desc).ops {
                if let Op::Rope(Rope { angles, .. }) = op {
                    kinds.insert(matches!(angles, Angles::Learned { .. }));
                }
                if let Op::RmsNorm(RmsNorm {
                    board,
                    beta: Some(_),
                    ..
                }) = op
                {
                    tips.insert(*board);
                }
            }
        }
        assert_eq!(kinds.len(), 2, "learned and fixed rotary embeddings");
        assert!(tips.contains(&false));
        // KaTrain's default net (version 15: nested bottlenecks of
        // transformer blocks), where CI names it.
        if let Some(path) = std::env::var_os("KOSUMI_KATRAIN_NET") {
            let desc = ModelDesc::load(std::path::Path::new(&path)).unwrap();
            agrees_with_the_cpu(&desc, &[(9, 9)], 5e-4);
        }
    }
}
