//! KataGo's model files read into plain layer descriptions: the text header,
//! then per layer its name, shape integers and its weights, either as an
//! `@BIN@` block of little-endian `f32` (`.bin.gz`) or as text numbers
//! (`.txt.gz`), gzipped or not. The layer kinds and their order follow
//! KataGo's `desc.cpp` for model version 8 (its 2020 nets): a trunk of
//! ordinary and global-pooling residual blocks, a policy head and a value
//! head. Later versions (nested bottleneck blocks, mish activations, extra
//! outputs, transformers) are refused with the version in the message.
//!
//! Nothing here computes: the `network` module turns these descriptions
//! into the fused layers it evaluates.

use flate2::read::GzDecoder;
use std::fmt;
use std::io::Read;

/// The model versions this reader understands.
pub const SUPPORTED_VERSIONS: std::ops::RangeInclusive<i32> = 8..=8;

/// Why a model could not be read.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelError {
    /// The file could not be opened or decompressed.
    Io(String),
    /// The text ended before the layer was complete.
    Truncated { layer: String },
    /// A number or name was not what the format puts there.
    Malformed { layer: String, what: String },
    /// A version KataGo has but this reader does not.
    UnsupportedVersion(i32),
    /// Two layers whose shapes do not fit together.
    Shape { layer: String, what: String },
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            ModelError::Io(e) => write!(f, "cannot read the model: {e}"),
            ModelError::Truncated { layer } => write!(f, "the model ends inside layer {layer}"),
            ModelError::Malformed { layer, what } => write!(f, "layer {layer}: {what}"),
            ModelError::UnsupportedVersion(v) => write!(
                f,
                "model version {v} is not supported (kosumi reads versions {}..={})",
                SUPPORTED_VERSIONS.start(),
                SUPPORTED_VERSIONS.end()
            ),
            ModelError::Shape { layer, what } => write!(f, "layer {layer}: {what}"),
        }
    }
}

impl std::error::Error for ModelError {}

/// An activation function as the file names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    Identity,
    Relu,
    Mish,
}

/// A convolution; weights in the order out channel, in channel, y, x.
#[derive(Clone, Debug)]
pub struct ConvDesc {
    pub name: String,
    pub size_y: usize,
    pub size_x: usize,
    pub in_channels: usize,
    pub out_channels: usize,
    pub weights: Vec<f32>,
}

/// A batch normalisation, merged into one scale and one bias per channel.
#[derive(Clone, Debug)]
pub struct BatchNormDesc {
    pub name: String,
    pub scale: Vec<f32>,
    pub bias: Vec<f32>,
}

/// A dense layer; weights in the order in channel, out channel.
#[derive(Clone, Debug)]
pub struct MatMulDesc {
    pub name: String,
    pub in_channels: usize,
    pub out_channels: usize,
    pub weights: Vec<f32>,
}

/// A residual block of the trunk.
#[derive(Clone, Debug)]
// Read once per model: the size of a variant does not matter.
#[allow(clippy::large_enum_variant)]
pub enum BlockDesc {
    Ordinary {
        pre_bn: BatchNormDesc,
        pre_act: Activation,
        conv1: ConvDesc,
        mid_bn: BatchNormDesc,
        mid_act: Activation,
        conv2: ConvDesc,
    },
    GlobalPooling {
        pre_bn: BatchNormDesc,
        pre_act: Activation,
        regular_conv: ConvDesc,
        gpool_conv: ConvDesc,
        gpool_bn: BatchNormDesc,
        gpool_act: Activation,
        gpool_to_bias: MatMulDesc,
        mid_bn: BatchNormDesc,
        mid_act: Activation,
        final_conv: ConvDesc,
    },
}

#[derive(Clone, Debug)]
pub struct TrunkDesc {
    pub channels: usize,
    pub initial_conv: ConvDesc,
    pub initial_matmul: MatMulDesc,
    pub blocks: Vec<BlockDesc>,
    pub tip_bn: BatchNormDesc,
    pub tip_act: Activation,
}

#[derive(Clone, Debug)]
pub struct PolicyHeadDesc {
    pub p1_conv: ConvDesc,
    pub g1_conv: ConvDesc,
    pub g1_bn: BatchNormDesc,
    pub g1_act: Activation,
    pub gpool_to_bias: MatMulDesc,
    pub p1_bn: BatchNormDesc,
    pub p1_act: Activation,
    pub p2_conv: ConvDesc,
    pub gpool_to_pass: MatMulDesc,
}

#[derive(Clone, Debug)]
pub struct ValueHeadDesc {
    pub v1_conv: ConvDesc,
    pub v1_bn: BatchNormDesc,
    pub v1_act: Activation,
    pub v2_mul: MatMulDesc,
    pub v2_bias: Vec<f32>,
    pub v2_act: Activation,
    pub v3_mul: MatMulDesc,
    pub v3_bias: Vec<f32>,
    pub sv3_mul: MatMulDesc,
    pub sv3_bias: Vec<f32>,
    pub ownership_conv: ConvDesc,
}

/// A whole model as the file describes it.
#[derive(Clone, Debug)]
pub struct ModelDesc {
    pub name: String,
    pub version: i32,
    pub spatial_inputs: usize,
    pub global_inputs: usize,
    pub trunk: TrunkDesc,
    pub policy: PolicyHeadDesc,
    pub value: ValueHeadDesc,
}

impl ModelDesc {
    /// Reads a model from the bytes of a file (gzipped or not; binary or
    /// text weights, recognised by the first weight block).
    pub fn parse(bytes: &[u8]) -> Result<ModelDesc, ModelError> {
        let text = if bytes.starts_with(&[0x1f, 0x8b]) {
            let mut out = Vec::new();
            GzDecoder::new(bytes)
                .read_to_end(&mut out)
                .map_err(|e| ModelError::Io(format!("gzip: {e}")))?;
            out
        } else {
            bytes.to_vec()
        };
        Reader { data: &text, at: 0 }.model()
    }

    /// Reads a model file.
    pub fn load(path: &std::path::Path) -> Result<ModelDesc, ModelError> {
        let bytes =
            std::fs::read(path).map_err(|e| ModelError::Io(format!("{}: {e}", path.display())))?;
        ModelDesc::parse(&bytes)
    }
}

/// A cursor over the decompressed file.
struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn token(&mut self, layer: &str) -> Result<&str, ModelError> {
        while self.at < self.data.len() && self.data[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
        let start = self.at;
        while self.at < self.data.len() && !self.data[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
        if start == self.at {
            return Err(ModelError::Truncated {
                layer: layer.to_string(),
            });
        }
        std::str::from_utf8(&self.data[start..self.at]).map_err(|_| ModelError::Malformed {
            layer: layer.to_string(),
            what: "a name or number that is not text".to_string(),
        })
    }

    fn name(&mut self, layer: &str) -> Result<String, ModelError> {
        self.token(layer).map(str::to_string)
    }

    fn number<T: std::str::FromStr>(&mut self, layer: &str, what: &str) -> Result<T, ModelError> {
        let t = self.token(layer)?;
        t.parse().map_err(|_| ModelError::Malformed {
            layer: layer.to_string(),
            what: format!("{what}: '{t}' is not a number"),
        })
    }

    fn count(&mut self, layer: &str, what: &str) -> Result<usize, ModelError> {
        let n: i64 = self.number(layer, what)?;
        if !(1..=1 << 20).contains(&n) {
            return Err(ModelError::Malformed {
                layer: layer.to_string(),
                what: format!("{what} {n} out of range"),
            });
        }
        Ok(n as usize)
    }

    /// `n` weights: an `@BIN@` block if one follows, else text numbers.
    fn floats(&mut self, layer: &str, n: usize) -> Result<Vec<f32>, ModelError> {
        let mut skip = self.at;
        while skip < self.data.len()
            && self.data[skip].is_ascii_whitespace()
            && skip - self.at <= 100
        {
            skip += 1;
        }
        let values = if self.data[skip..].starts_with(b"@BIN@") {
            let start = skip + 5;
            let end = start + 4 * n;
            if end > self.data.len() {
                return Err(ModelError::Truncated {
                    layer: layer.to_string(),
                });
            }
            self.at = end;
            self.data[start..end]
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect::<Vec<f32>>()
        } else {
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                v.push(self.number::<f32>(layer, "weight")?);
            }
            v
        };
        if values.iter().any(|x| !x.is_finite()) {
            return Err(ModelError::Malformed {
                layer: layer.to_string(),
                what: "a weight that is not finite".to_string(),
            });
        }
        Ok(values)
    }

    fn activation(&mut self, version: i32) -> Result<Activation, ModelError> {
        let name = self.name("activation")?;
        if version < 11 {
            return Ok(Activation::Relu);
        }
        match self.token(&name)? {
            "ACTIVATION_IDENTITY" => Ok(Activation::Identity),
            "ACTIVATION_RELU" => Ok(Activation::Relu),
            "ACTIVATION_MISH" => Ok(Activation::Mish),
            other => Err(ModelError::Malformed {
                layer: name.clone(),
                what: format!("unknown activation {other}"),
            }),
        }
    }

    fn conv(&mut self) -> Result<ConvDesc, ModelError> {
        let name = self.name("conv")?;
        let size_y = self.count(&name, "kernel height")?;
        let size_x = self.count(&name, "kernel width")?;
        let in_channels = self.count(&name, "input channels")?;
        let out_channels = self.count(&name, "output channels")?;
        let dil_y = self.count(&name, "dilation")?;
        let dil_x = self.count(&name, "dilation")?;
        if size_y % 2 == 0 || size_x % 2 == 0 || size_y != size_x {
            return Err(ModelError::Malformed {
                layer: name,
                what: format!("kernel {size_y}x{size_x}: kosumi takes odd square kernels"),
            });
        }
        if dil_y != 1 || dil_x != 1 {
            return Err(ModelError::Malformed {
                layer: name,
                what: "dilated convolutions are not supported".to_string(),
            });
        }
        let file = self.floats(&name, size_y * size_x * in_channels * out_channels)?;
        // The file orders the weights y, x, in, out; keep them out, in, y, x.
        let mut weights = vec![0.0; file.len()];
        let mut i = 0;
        for y in 0..size_y {
            for x in 0..size_x {
                for ic in 0..in_channels {
                    for oc in 0..out_channels {
                        weights[((oc * in_channels + ic) * size_y + y) * size_x + x] = file[i];
                        i += 1;
                    }
                }
            }
        }
        Ok(ConvDesc {
            name,
            size_y,
            size_x,
            in_channels,
            out_channels,
            weights,
        })
    }

    fn batch_norm(&mut self) -> Result<BatchNormDesc, ModelError> {
        let name = self.name("batch norm")?;
        let n = self.count(&name, "channels")?;
        let epsilon: f32 = self.number(&name, "epsilon")?;
        let has_scale: i32 = self.number(&name, "has scale")?;
        let has_bias: i32 = self.number(&name, "has bias")?;
        if !(epsilon > 0.0 && epsilon.is_finite()) {
            return Err(ModelError::Malformed {
                layer: name,
                what: "epsilon must be positive".to_string(),
            });
        }
        let mean = self.floats(&name, n)?;
        let variance = self.floats(&name, n)?;
        let gamma = if has_scale != 0 {
            self.floats(&name, n)?
        } else {
            vec![1.0; n]
        };
        let beta = if has_bias != 0 {
            self.floats(&name, n)?
        } else {
            vec![0.0; n]
        };
        let scale: Vec<f32> = (0..n)
            .map(|c| gamma[c] / (variance[c] + epsilon).sqrt())
            .collect();
        let bias = (0..n).map(|c| beta[c] - scale[c] * mean[c]).collect();
        Ok(BatchNormDesc { name, scale, bias })
    }

    fn matmul(&mut self) -> Result<MatMulDesc, ModelError> {
        let name = self.name("matmul")?;
        let in_channels = self.count(&name, "input channels")?;
        let out_channels = self.count(&name, "output channels")?;
        let weights = self.floats(&name, in_channels * out_channels)?;
        Ok(MatMulDesc {
            name,
            in_channels,
            out_channels,
            weights,
        })
    }

    fn mat_bias(&mut self) -> Result<Vec<f32>, ModelError> {
        let name = self.name("bias")?;
        let n = self.count(&name, "channels")?;
        self.floats(&name, n)
    }

    fn block(&mut self, version: i32, trunk_channels: usize) -> Result<BlockDesc, ModelError> {
        let kind = self.name("block")?;
        let name = self.name(&kind)?;
        let block = match kind.as_str() {
            "ordinary_block" => BlockDesc::Ordinary {
                pre_bn: self.batch_norm()?,
                pre_act: self.activation(version)?,
                conv1: self.conv()?,
                mid_bn: self.batch_norm()?,
                mid_act: self.activation(version)?,
                conv2: self.conv()?,
            },
            "gpool_block" => BlockDesc::GlobalPooling {
                pre_bn: self.batch_norm()?,
                pre_act: self.activation(version)?,
                regular_conv: self.conv()?,
                gpool_conv: self.conv()?,
                gpool_bn: self.batch_norm()?,
                gpool_act: self.activation(version)?,
                gpool_to_bias: self.matmul()?,
                mid_bn: self.batch_norm()?,
                mid_act: self.activation(version)?,
                final_conv: self.conv()?,
            },
            other => {
                return Err(ModelError::Malformed {
                    layer: name,
                    what: format!("unknown block kind {other}"),
                });
            }
        };
        block.check(&name, trunk_channels)?;
        Ok(block)
    }

    fn model(&mut self) -> Result<ModelDesc, ModelError> {
        let name = self.name("model")?;
        let version: i32 = self.number(&name, "version")?;
        if !SUPPORTED_VERSIONS.contains(&version) {
            return Err(ModelError::UnsupportedVersion(version));
        }
        let spatial_inputs = self.count(&name, "spatial inputs")?;
        let global_inputs = self.count(&name, "global inputs")?;

        let trunk_name = self.name("trunk")?;
        let num_blocks = self.count(&trunk_name, "blocks")?;
        let channels = self.count(&trunk_name, "trunk channels")?;
        for what in [
            "mid channels",
            "regular channels",
            "dilated channels",
            "gpool channels",
        ] {
            self.count(&trunk_name, what)?;
        }
        let initial_conv = self.conv()?;
        let initial_matmul = self.matmul()?;
        let blocks = (0..num_blocks)
            .map(|_| self.block(version, channels))
            .collect::<Result<Vec<_>, _>>()?;
        let tip_bn = self.batch_norm()?;
        let tip_act = self.activation(version)?;
        let trunk = TrunkDesc {
            channels,
            initial_conv,
            initial_matmul,
            blocks,
            tip_bn,
            tip_act,
        };

        let _policy_name = self.name("policy head")?;
        let policy = PolicyHeadDesc {
            p1_conv: self.conv()?,
            g1_conv: self.conv()?,
            g1_bn: self.batch_norm()?,
            g1_act: self.activation(version)?,
            gpool_to_bias: self.matmul()?,
            p1_bn: self.batch_norm()?,
            p1_act: self.activation(version)?,
            p2_conv: self.conv()?,
            gpool_to_pass: self.matmul()?,
        };
        let _value_name = self.name("value head")?;
        let value = ValueHeadDesc {
            v1_conv: self.conv()?,
            v1_bn: self.batch_norm()?,
            v1_act: self.activation(version)?,
            v2_mul: self.matmul()?,
            v2_bias: self.mat_bias()?,
            v2_act: self.activation(version)?,
            v3_mul: self.matmul()?,
            v3_bias: self.mat_bias()?,
            sv3_mul: self.matmul()?,
            sv3_bias: self.mat_bias()?,
            ownership_conv: self.conv()?,
        };
        let model = ModelDesc {
            name,
            version,
            spatial_inputs,
            global_inputs,
            trunk,
            policy,
            value,
        };
        model.check()?;
        Ok(model)
    }
}

fn shape(layer: &str, ok: bool, what: impl FnOnce() -> String) -> Result<(), ModelError> {
    if ok {
        Ok(())
    } else {
        Err(ModelError::Shape {
            layer: layer.to_string(),
            what: what(),
        })
    }
}

impl BlockDesc {
    fn check(&self, name: &str, channels: usize) -> Result<(), ModelError> {
        match self {
            BlockDesc::Ordinary {
                pre_bn,
                conv1,
                mid_bn,
                conv2,
                ..
            } => {
                shape(
                    name,
                    pre_bn.scale.len() == channels && conv1.in_channels == channels,
                    || "input channels differ from the trunk's".into(),
                )?;
                shape(
                    name,
                    mid_bn.scale.len() == conv1.out_channels
                        && conv2.in_channels == conv1.out_channels,
                    || "middle channels differ".into(),
                )?;
                shape(name, conv2.out_channels == channels, || {
                    "output channels differ from the trunk's".into()
                })
            }
            BlockDesc::GlobalPooling {
                pre_bn,
                regular_conv,
                gpool_conv,
                gpool_bn,
                gpool_to_bias,
                mid_bn,
                final_conv,
                ..
            } => {
                shape(
                    name,
                    pre_bn.scale.len() == channels
                        && regular_conv.in_channels == channels
                        && gpool_conv.in_channels == channels,
                    || "input channels differ from the trunk's".into(),
                )?;
                shape(
                    name,
                    gpool_bn.scale.len() == gpool_conv.out_channels
                        && gpool_to_bias.in_channels == 3 * gpool_conv.out_channels
                        && gpool_to_bias.out_channels == regular_conv.out_channels,
                    || "pooling channels differ".into(),
                )?;
                shape(
                    name,
                    mid_bn.scale.len() == regular_conv.out_channels
                        && final_conv.in_channels == regular_conv.out_channels
                        && final_conv.out_channels == channels,
                    || "middle or output channels differ".into(),
                )
            }
        }
    }
}

impl ModelDesc {
    fn check(&self) -> Result<(), ModelError> {
        let t = &self.trunk;
        shape(
            &t.initial_conv.name,
            t.initial_conv.in_channels == self.spatial_inputs,
            || "input planes differ from the header's".into(),
        )?;
        shape(
            &t.initial_conv.name,
            t.initial_conv.out_channels == t.channels,
            || "output channels differ from the trunk's".into(),
        )?;
        shape(
            &t.initial_matmul.name,
            t.initial_matmul.in_channels == self.global_inputs
                && t.initial_matmul.out_channels == t.channels,
            || "global inputs or trunk channels differ".into(),
        )?;
        shape(&t.tip_bn.name, t.tip_bn.scale.len() == t.channels, || {
            "channels differ from the trunk's".into()
        })?;
        let p = &self.policy;
        shape(
            &p.p1_conv.name,
            p.p1_conv.in_channels == t.channels
                && p.g1_conv.in_channels == t.channels
                && p.p1_bn.scale.len() == p.p1_conv.out_channels
                && p.g1_bn.scale.len() == p.g1_conv.out_channels
                && p.gpool_to_bias.in_channels == 3 * p.g1_conv.out_channels
                && p.gpool_to_bias.out_channels == p.p1_conv.out_channels
                && p.p2_conv.in_channels == p.p1_conv.out_channels
                && p.p2_conv.out_channels == 1
                && p.gpool_to_pass.in_channels == 3 * p.g1_conv.out_channels
                && p.gpool_to_pass.out_channels == 1,
            || "the policy head's layers do not fit together".into(),
        )?;
        let v = &self.value;
        shape(
            &v.v1_conv.name,
            v.v1_conv.in_channels == t.channels
                && v.v1_bn.scale.len() == v.v1_conv.out_channels
                && v.v2_mul.in_channels == 3 * v.v1_conv.out_channels
                && v.v2_bias.len() == v.v2_mul.out_channels
                && v.v3_mul.in_channels == v.v2_mul.out_channels
                && v.v3_mul.out_channels == 3
                && v.v3_bias.len() == 3
                && v.sv3_mul.in_channels == v.v2_mul.out_channels
                && v.sv3_mul.out_channels == 4
                && v.sv3_bias.len() == 4
                && v.ownership_conv.in_channels == v.v1_conv.out_channels
                && v.ownership_conv.out_channels == 1,
            || "the value head's layers do not fit together".into(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_net_reads_as_the_six_block_version_8_net() {
        let m = ModelDesc::parse(crate::nn::EMBEDDED_MODEL).unwrap();
        assert_eq!(m.version, 8);
        assert_eq!((m.spatial_inputs, m.global_inputs), (22, 19));
        assert_eq!(m.trunk.channels, 96);
        assert_eq!(m.trunk.blocks.len(), 6);
        let gpool = m
            .trunk
            .blocks
            .iter()
            .filter(|b| matches!(b, BlockDesc::GlobalPooling { .. }))
            .count();
        assert_eq!(gpool, 2);
        assert_eq!(m.trunk.initial_conv.size_x, 5);
    }

    #[test]
    fn a_cut_file_is_an_error_that_names_where_it_ends() {
        let mut bytes = Vec::new();
        GzDecoder::new(crate::nn::EMBEDDED_MODEL)
            .read_to_end(&mut bytes)
            .unwrap();
        bytes.truncate(bytes.len() / 2);
        let err = ModelDesc::parse(&bytes).unwrap_err();
        assert!(matches!(err, ModelError::Truncated { .. }), "{err}");
    }

    #[test]
    fn other_versions_and_garbage_are_refused_with_a_reason() {
        let err = ModelDesc::parse(b"net 17 22 19 trunk").unwrap_err();
        assert_eq!(err, ModelError::UnsupportedVersion(17));
        assert!(err.to_string().contains("version 17"));
        let err = ModelDesc::parse(b"hello world").unwrap_err();
        assert!(matches!(err, ModelError::Malformed { .. }), "{err}");
        assert!(ModelDesc::parse(&[0x1f, 0x8b, 1, 2, 3]).is_err());
    }
}
