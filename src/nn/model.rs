//! KataGo's model files read into plain layer descriptions: the text header,
//! then per layer its name, shape integers and its weights, either as an
//! `@BIN@` block of little-endian `f32` (`.bin.gz`) or as text numbers
//! (`.txt.gz`), gzipped or not. The grammar is KataGo 1.17.2's `desc.cpp`
//! for model versions 8 to 17 (what changes with each version is the table
//! [`VERSIONS`]): a trunk of residual blocks — ordinary, global pooling,
//! nested bottleneck (any blocks inside, recursively), transformer attention
//! and SwiGLU feed-forward — ending in a batch norm or an RMSNorm, a policy
//! head and a value head.
//!
//! Every count is checked against the bytes the file can still hold before
//! anything is allocated for it, and a decompressed file may not exceed
//! [`MAX_MODEL_BYTES`]. Nothing here computes: the `network` module turns
//! these descriptions into the layers it evaluates.

use super::profile::METADATA_INPUTS;
use flate2::read::GzDecoder;
use std::fmt;
use std::io::Read;

/// The embedded network's file.
pub static EMBEDDED_MODEL: &[u8] = include_bytes!("g170-b6c96-s175395328-d26788732.bin.gz");

/// The model versions this reader understands.
pub const SUPPORTED_VERSIONS: std::ops::RangeInclusive<i32> = 8..=17;

/// The largest decompressed model file read (KataGo's largest public nets
/// are under a gigabyte of weights).
pub const MAX_MODEL_BYTES: u64 = 2 << 30;

/// How much larger than its gzipped file a model may be once
/// decompressed: weights compress little (KaTrain's net: 1.07 times),
/// text weights about four times; a file that claims more is a bomb.
pub const MAX_GZIP_RATIO: u64 = 16;

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
    /// Something the file may hold that kosumi does not evaluate.
    Unsupported { layer: String, what: String },
    /// The backend asked for does not run the net.
    Backend(String),
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
            ModelError::Unsupported { layer, what } => {
                write!(f, "layer {layer}: {what} is not supported by kosumi")
            }
            ModelError::Backend(why) => write!(f, "the GPU backend does not run it: {why}"),
        }
    }
}

impl std::error::Error for ModelError {}

/// How KataGo post-processes the score outputs of a model version: the
/// short-term error outputs' transform (`nneval.cpp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShorttermErrors {
    /// Version 8: no such outputs.
    None,
    /// Version 9: softplus (the score's times 10).
    Softplus,
    /// Versions 10 to 13: the root of softplus times the multiplier.
    SqrtSoftplus,
    /// Version 14 on: the root of softplus(x/2)² times the multiplier.
    SqrtSquaredHalfSoftplus,
}

/// What one model version changes in the file and in its outputs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VersionFacts {
    pub version: i32,
    /// Activation records name their function (before: always ReLU).
    pub named_activations: bool,
    /// The policy head's channels where the file does not write them (one
    /// policy; two with the optimistic policy; four with two Q-value
    /// channels); `None` where it does.
    pub policy_channels: Option<usize>,
    /// The score outputs of the value head: mean, spread, lead, variance
    /// time, then the two short-term errors.
    pub score_outputs: usize,
    pub shortterm: ShorttermErrors,
    /// The header holds the seven post-processing multipliers.
    pub multipliers_in_header: bool,
    /// The header holds the metadata encoder's version and six more
    /// integers, the trunk its norm kind and five more, the pass output is
    /// a two-layer network.
    pub version_15_layout: bool,
    /// The heads open with their own integers (the policy's channel count).
    pub version_17_heads: bool,
}

/// Versions 8 to 17, as KataGo 1.17.2's `desc.cpp`, `modelversion.cpp`
/// and `nneval.cpp` read them. Every version takes input version 7 (22
/// spatial planes, 19 global features).
pub const VERSIONS: [VersionFacts; 10] = {
    const fn facts(version: i32) -> VersionFacts {
        VersionFacts {
            version,
            named_activations: version >= 11,
            policy_channels: match version {
                ..=11 => Some(1),
                12..=15 => Some(2),
                16 => Some(4),
                _ => None,
            },
            score_outputs: if version >= 9 { 6 } else { 4 },
            shortterm: match version {
                ..=8 => ShorttermErrors::None,
                9 => ShorttermErrors::Softplus,
                10..=13 => ShorttermErrors::SqrtSoftplus,
                _ => ShorttermErrors::SqrtSquaredHalfSoftplus,
            },
            multipliers_in_header: version >= 13,
            version_15_layout: version >= 15,
            version_17_heads: version >= 17,
        }
    }
    [
        facts(8),
        facts(9),
        facts(10),
        facts(11),
        facts(12),
        facts(13),
        facts(14),
        facts(15),
        facts(16),
        facts(17),
    ]
};

/// The facts of `version`, if this reader knows it.
pub fn version_facts(version: i32) -> Option<VersionFacts> {
    VERSIONS.iter().copied().find(|f| f.version == version)
}

/// KataGo's output scalings (`ModelPostProcessParams`): written in the
/// header from version 13, fixed before.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PostProcess {
    pub td_score: f32,
    pub score_mean: f32,
    pub score_stdev: f32,
    pub lead: f32,
    pub variance_time: f32,
    pub shortterm_value_error: f32,
    pub shortterm_score_error: f32,
}

impl Default for PostProcess {
    fn default() -> PostProcess {
        PostProcess {
            td_score: 20.0,
            score_mean: 20.0,
            score_stdev: 20.0,
            lead: 20.0,
            variance_time: 40.0,
            shortterm_value_error: 0.25,
            shortterm_score_error: 30.0,
        }
    }
}

/// An activation function as the file names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    Identity,
    Relu,
    Mish,
    Silu,
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

impl MatMulDesc {
    /// Layers of one input as one: their matrices side by side (each row
    /// the rows of all), their outputs side by side, each output as its
    /// own layer gives it.
    pub fn side_by_side(layers: &[&MatMulDesc]) -> MatMulDesc {
        let in_channels = layers[0].in_channels;
        let out_channels = layers.iter().map(|l| l.out_channels).sum();
        let mut weights = Vec::with_capacity(in_channels * out_channels);
        for i in 0..in_channels {
            for l in layers {
                let width = l.out_channels;
                weights.extend_from_slice(&l.weights[i * width..(i + 1) * width]);
            }
        }
        let names: Vec<&str> = layers.iter().map(|l| l.name.as_str()).collect();
        MatMulDesc {
            name: names.join("+"),
            in_channels,
            out_channels,
            weights,
        }
    }
}

/// An RMSNorm with a scale and a bias per channel: over each point's
/// channels, or (`spatial`) over all the points and channels of a board.
#[derive(Clone, Debug)]
pub struct RmsNormDesc {
    pub name: String,
    pub epsilon: f32,
    pub spatial: bool,
    pub gamma: Vec<f32>,
    pub beta: Vec<f32>,
}

/// The RMSNorm that opens a transformer block: over each point's channels,
/// a scale per channel, no bias.
#[derive(Clone, Debug)]
pub struct TransformerNormDesc {
    pub name: String,
    pub epsilon: f32,
    pub weight: Vec<f32>,
}

/// Rotary position embedding of the queries and keys of an attention block.
#[derive(Clone, Debug)]
pub enum Rope {
    None,
    /// Learned frequencies, `[kv head][pair][x, y]`.
    Learned(Vec<f32>),
    /// Fixed frequencies from θ: the first half of the pairs turn with the
    /// row, the second half with the column.
    Fixed(f32),
}

/// A transformer attention block: `x += out(attention(norm(x)))`, with
/// grouped heads (several query heads share one key and value head).
#[derive(Clone, Debug)]
pub struct AttentionDesc {
    pub name: String,
    pub heads: usize,
    pub kv_heads: usize,
    pub q_dim: usize,
    pub v_dim: usize,
    pub norm: TransformerNormDesc,
    pub q: MatMulDesc,
    pub k: MatMulDesc,
    pub v: MatMulDesc,
    pub out: MatMulDesc,
    pub rope: Rope,
}

/// A transformer feed-forward block with SwiGLU:
/// `x += linear2(silu(linear1(n)) ⊙ gate(n))`, `n = norm(x)`.
#[derive(Clone, Debug)]
pub struct FeedForwardDesc {
    pub name: String,
    pub norm: TransformerNormDesc,
    pub linear1: MatMulDesc,
    pub gate: MatMulDesc,
    pub linear2: MatMulDesc,
}

/// A residual block of the trunk (or of a nested bottleneck).
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
    /// Norm, activation and a convolution down to a narrower width, the
    /// inner blocks there, norm, activation and a convolution back up.
    NestedBottleneck {
        pre_bn: BatchNormDesc,
        pre_act: Activation,
        pre_conv: ConvDesc,
        blocks: Vec<BlockDesc>,
        post_bn: BatchNormDesc,
        post_act: Activation,
        post_conv: ConvDesc,
    },
    Attention(AttentionDesc),
    FeedForward(FeedForwardDesc),
}

/// The norm at the trunk's tip.
#[derive(Clone, Debug)]
pub enum TrunkNorm {
    Batch(BatchNormDesc),
    Rms(RmsNormDesc),
}

/// The human-like nets' encoder of game metadata (ranks, dates, time
/// controls) into a bias of the trunk.
#[derive(Clone, Debug)]
pub struct MetadataEncoderDesc {
    pub name: String,
    pub version: i32,
    pub mul1: MatMulDesc,
    pub bias1: Vec<f32>,
    pub act1: Activation,
    pub mul2: MatMulDesc,
    pub bias2: Vec<f32>,
    pub act2: Activation,
    pub mul3: MatMulDesc,
}

#[derive(Clone, Debug)]
pub struct TrunkDesc {
    pub channels: usize,
    pub initial_conv: ConvDesc,
    pub initial_matmul: MatMulDesc,
    pub metadata_encoder: Option<MetadataEncoderDesc>,
    pub blocks: Vec<BlockDesc>,
    pub tip_norm: TrunkNorm,
    pub tip_act: Activation,
}

/// Version 15's pass output: a hidden layer between the pooled values and
/// the pass logits.
#[derive(Clone, Debug)]
pub struct PassHiddenDesc {
    pub bias: Vec<f32>,
    pub act: Activation,
    pub mul2: MatMulDesc,
}

#[derive(Clone, Debug)]
pub struct PolicyHeadDesc {
    /// Policy channels: the policy, then the optimistic policy, then two
    /// Q-value channels kosumi does not read.
    pub channels: usize,
    pub p1_conv: ConvDesc,
    pub g1_conv: ConvDesc,
    pub g1_bn: BatchNormDesc,
    pub g1_act: Activation,
    pub gpool_to_bias: MatMulDesc,
    pub p1_bn: BatchNormDesc,
    pub p1_act: Activation,
    pub p2_conv: ConvDesc,
    pub gpool_to_pass: MatMulDesc,
    pub pass_hidden: Option<PassHiddenDesc>,
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
    pub facts: VersionFacts,
    pub spatial_inputs: usize,
    pub global_inputs: usize,
    pub post_process: PostProcess,
    pub trunk: TrunkDesc,
    pub policy: PolicyHeadDesc,
    pub value: ValueHeadDesc,
}

impl ModelDesc {
    /// Reads a model from the bytes of a file (gzipped or not; binary or
    /// text weights, recognised by the first weight block).
    pub fn parse(bytes: &[u8]) -> Result<ModelDesc, ModelError> {
        let text = if bytes.starts_with(&[0x1f, 0x8b]) {
            let limit = (bytes.len() as u64 * MAX_GZIP_RATIO + (1 << 20)).min(MAX_MODEL_BYTES);
            let mut out = Vec::new();
            GzDecoder::new(bytes)
                .take(limit + 1)
                .read_to_end(&mut out)
                .map_err(|e| ModelError::Io(format!("gzip: {e}")))?;
            if out.len() as u64 > limit {
                return Err(ModelError::Io(format!(
                    "the file decompresses to more than {} MiB ({} times its size at most)",
                    limit >> 20,
                    MAX_GZIP_RATIO
                )));
            }
            out
        } else {
            bytes.to_vec()
        };
        let mut reader = Reader { data: &text, at: 0 };
        let model = reader.model()?;
        reader.end()?;
        Ok(model)
    }

    /// Reads a model file.
    pub fn load(path: &std::path::Path) -> Result<ModelDesc, ModelError> {
        let meta = std::fs::metadata(path)
            .map_err(|e| ModelError::Io(format!("{}: {e}", path.display())))?;
        if !meta.is_file() {
            return Err(ModelError::Io(format!(
                "{}: not a regular file",
                path.display()
            )));
        }
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

fn malformed(layer: &str, what: impl Into<String>) -> ModelError {
    ModelError::Malformed {
        layer: layer.to_string(),
        what: what.into(),
    }
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
        if self.at - start > 1024 {
            return Err(malformed(layer, "a name or number longer than 1024 bytes"));
        }
        std::str::from_utf8(&self.data[start..self.at])
            .map_err(|_| malformed(layer, "a name or number that is not text"))
    }

    /// Nothing but white space may follow the value head.
    fn end(&mut self) -> Result<(), ModelError> {
        let rest = &self.data[self.at..];
        match rest.iter().position(|b| !b.is_ascii_whitespace()) {
            None => Ok(()),
            Some(at) => Err(malformed(
                "value head",
                format!("{} bytes follow the last layer", rest.len() - at),
            )),
        }
    }

    fn name(&mut self, layer: &str) -> Result<String, ModelError> {
        self.token(layer).map(str::to_string)
    }

    fn number<T: std::str::FromStr>(&mut self, layer: &str, what: &str) -> Result<T, ModelError> {
        let t = self.token(layer)?;
        t.parse()
            .map_err(|_| malformed(layer, format!("{what}: '{t}' is not a number")))
    }

    fn count(&mut self, layer: &str, what: &str) -> Result<usize, ModelError> {
        let n: i64 = self.number(layer, what)?;
        if !(1..=1 << 20).contains(&n) {
            return Err(malformed(layer, format!("{what} {n} out of range")));
        }
        Ok(n as usize)
    }

    /// A flag written as 0 or 1.
    fn flag(&mut self, layer: &str, what: &str) -> Result<bool, ModelError> {
        match self.number::<i64>(layer, what)? {
            0 => Ok(false),
            1 => Ok(true),
            n => Err(malformed(layer, format!("{what} is {n}, not 0 or 1"))),
        }
    }

    /// `n` integers the format reserves, each 0.
    fn reserved(&mut self, layer: &str, n: usize) -> Result<(), ModelError> {
        for _ in 0..n {
            let v: i64 = self.number(layer, "a reserved integer")?;
            if v != 0 {
                return Err(ModelError::Unsupported {
                    layer: layer.to_string(),
                    what: format!("the option {v} in a reserved field"),
                });
            }
        }
        Ok(())
    }

    /// A positive finite number.
    fn positive(&mut self, layer: &str, what: &str) -> Result<f32, ModelError> {
        let v: f32 = self.number(layer, what)?;
        if v > 0.0 && v.is_finite() {
            Ok(v)
        } else {
            Err(malformed(layer, format!("{what} {v} is not positive")))
        }
    }

    /// The product of `dims`, if the file can still hold that many weights
    /// (four bytes each in binary, two in text).
    fn elements(&self, layer: &str, dims: &[usize]) -> Result<usize, ModelError> {
        let n = dims
            .iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(d))
            .filter(|&n| {
                n.checked_mul(2)
                    .is_some_and(|b| b <= self.data.len() - self.at)
            });
        n.ok_or_else(|| ModelError::Truncated {
            layer: layer.to_string(),
        })
    }

    /// The weights of `dims` elements: an `@BIN@` block if one follows,
    /// else text numbers.
    fn floats(&mut self, layer: &str, dims: &[usize]) -> Result<Vec<f32>, ModelError> {
        let n = self.elements(layer, dims)?;
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
            return Err(malformed(layer, "a weight that is not finite"));
        }
        Ok(values)
    }

    fn activation(&mut self, facts: VersionFacts) -> Result<Activation, ModelError> {
        let name = self.name("activation")?;
        if !facts.named_activations {
            return Ok(Activation::Relu);
        }
        match self.token(&name)? {
            "ACTIVATION_IDENTITY" => Ok(Activation::Identity),
            "ACTIVATION_RELU" => Ok(Activation::Relu),
            "ACTIVATION_MISH" => Ok(Activation::Mish),
            "ACTIVATION_SILU" => Ok(Activation::Silu),
            other => Err(malformed(&name, format!("unknown activation {other}"))),
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
        if size_y % 2 == 0 || size_x % 2 == 0 || size_y != size_x || size_y > 9 {
            return Err(ModelError::Unsupported {
                layer: name,
                what: format!(
                    "a {size_y}x{size_x} kernel (kosumi takes odd square kernels to 9x9)"
                ),
            });
        }
        if dil_y != 1 || dil_x != 1 {
            return Err(ModelError::Unsupported {
                layer: name,
                what: "a dilated convolution".to_string(),
            });
        }
        let file = self.floats(&name, &[size_y, size_x, in_channels, out_channels])?;
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
        let epsilon = self.positive(&name, "epsilon")?;
        let has_scale = self.flag(&name, "has scale")?;
        let has_bias = self.flag(&name, "has bias")?;
        let mean = self.floats(&name, &[n])?;
        let variance = self.floats(&name, &[n])?;
        let gamma = if has_scale {
            self.floats(&name, &[n])?
        } else {
            vec![1.0; n]
        };
        let beta = if has_bias {
            self.floats(&name, &[n])?
        } else {
            vec![0.0; n]
        };
        let scale: Vec<f32> = (0..n)
            .map(|c| gamma[c] / (variance[c] + epsilon).sqrt())
            .collect();
        if scale.iter().any(|s| !s.is_finite()) {
            return Err(malformed(&name, "a variance below −epsilon"));
        }
        let bias = (0..n).map(|c| beta[c] - scale[c] * mean[c]).collect();
        Ok(BatchNormDesc { name, scale, bias })
    }

    fn rms_norm(&mut self) -> Result<RmsNormDesc, ModelError> {
        let name = self.name("rms norm")?;
        let n = self.count(&name, "channels")?;
        let epsilon = self.positive(&name, "epsilon")?;
        let spatial = self.flag(&name, "spatial")?;
        let group: i64 = self.number(&name, "channel group size")?;
        if group != 0 {
            return Err(ModelError::Unsupported {
                layer: name,
                what: format!("a grouped RMSNorm (groups of {group})"),
            });
        }
        let gamma = self.floats(&name, &[n])?;
        let beta = self.floats(&name, &[n])?;
        Ok(RmsNormDesc {
            name,
            epsilon,
            spatial,
            gamma,
            beta,
        })
    }

    fn transformer_norm(&mut self) -> Result<TransformerNormDesc, ModelError> {
        let name = self.name("transformer norm")?;
        let n = self.count(&name, "channels")?;
        let epsilon = self.positive(&name, "epsilon")?;
        let weight = self.floats(&name, &[n])?;
        Ok(TransformerNormDesc {
            name,
            epsilon,
            weight,
        })
    }

    fn matmul(&mut self) -> Result<MatMulDesc, ModelError> {
        let name = self.name("matmul")?;
        let in_channels = self.count(&name, "input channels")?;
        let out_channels = self.count(&name, "output channels")?;
        let weights = self.floats(&name, &[in_channels, out_channels])?;
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
        self.floats(&name, &[n])
    }

    fn attention(&mut self) -> Result<AttentionDesc, ModelError> {
        let name = self.name("attention block")?;
        let heads = self.count(&name, "heads")?;
        let kv_heads = self.count(&name, "key and value heads")?;
        let q_dim = self.count(&name, "query head size")?;
        let v_dim = self.count(&name, "value head size")?;
        let use_rope = self.flag(&name, "rotary embedding")?;
        let learned = self.flag(&name, "learned rotary embedding")?;
        if heads % kv_heads != 0 {
            return Err(malformed(
                &name,
                format!("{heads} heads do not share {kv_heads} key and value heads evenly"),
            ));
        }
        if use_rope && q_dim % 2 != 0 {
            return Err(malformed(
                &name,
                format!("query head size {q_dim} is odd under a rotary embedding"),
            ));
        }
        let norm = self.transformer_norm()?;
        let (q, k, v, out) = (
            self.matmul()?,
            self.matmul()?,
            self.matmul()?,
            self.matmul()?,
        );
        let rope = match (use_rope, learned) {
            (false, _) => Rope::None,
            (true, true) => {
                let freqs = self.name(&name)?;
                let n_heads = self.count(&freqs, "key and value heads")?;
                let pairs = self.count(&freqs, "pairs")?;
                let two = self.count(&freqs, "coordinates")?;
                if n_heads != kv_heads || pairs != q_dim / 2 || two != 2 {
                    return Err(ModelError::Shape {
                        layer: freqs,
                        what: format!(
                            "frequencies {n_heads}x{pairs}x{two}, not {kv_heads}x{}x2",
                            q_dim / 2
                        ),
                    });
                }
                Rope::Learned(self.floats(&freqs, &[kv_heads, pairs, 2])?)
            }
            (true, false) => {
                let theta = self.name(&name)?;
                Rope::Fixed(self.positive(&theta, "theta")?)
            }
        };
        Ok(AttentionDesc {
            name,
            heads,
            kv_heads,
            q_dim,
            v_dim,
            norm,
            q,
            k,
            v,
            out,
            rope,
        })
    }

    fn feed_forward(&mut self) -> Result<FeedForwardDesc, ModelError> {
        let name = self.name("feed-forward block")?;
        self.count(&name, "channels")?;
        self.count(&name, "hidden channels")?;
        if !self.flag(&name, "SwiGLU")? {
            return Err(ModelError::Unsupported {
                layer: name,
                what: "a feed-forward block without SwiGLU".to_string(),
            });
        }
        Ok(FeedForwardDesc {
            norm: self.transformer_norm()?,
            linear1: self.matmul()?,
            gate: self.matmul()?,
            linear2: self.matmul()?,
            name,
        })
    }

    /// `count` blocks of any kind, each taking and giving `channels`;
    /// nested bottlenecks at most `depth` deep.
    fn blocks(
        &mut self,
        facts: VersionFacts,
        count: usize,
        channels: usize,
        depth: usize,
    ) -> Result<Vec<BlockDesc>, ModelError> {
        let mut blocks = Vec::new();
        for _ in 0..count {
            let kind = self.name("block")?;
            let block = match kind.as_str() {
                "ordinary_block" => {
                    self.name(&kind)?;
                    BlockDesc::Ordinary {
                        pre_bn: self.batch_norm()?,
                        pre_act: self.activation(facts)?,
                        conv1: self.conv()?,
                        mid_bn: self.batch_norm()?,
                        mid_act: self.activation(facts)?,
                        conv2: self.conv()?,
                    }
                }
                "gpool_block" => {
                    self.name(&kind)?;
                    BlockDesc::GlobalPooling {
                        pre_bn: self.batch_norm()?,
                        pre_act: self.activation(facts)?,
                        regular_conv: self.conv()?,
                        gpool_conv: self.conv()?,
                        gpool_bn: self.batch_norm()?,
                        gpool_act: self.activation(facts)?,
                        gpool_to_bias: self.matmul()?,
                        mid_bn: self.batch_norm()?,
                        mid_act: self.activation(facts)?,
                        final_conv: self.conv()?,
                    }
                }
                "nested_bottleneck_block" => {
                    let name = self.name(&kind)?;
                    if depth == 0 {
                        return Err(ModelError::Unsupported {
                            layer: name,
                            what: "nested bottlenecks more than 8 deep".to_string(),
                        });
                    }
                    let inner = self.count(&name, "inner blocks")?;
                    let pre_bn = self.batch_norm()?;
                    let pre_act = self.activation(facts)?;
                    let pre_conv = self.conv()?;
                    let width = pre_conv.out_channels;
                    BlockDesc::NestedBottleneck {
                        pre_bn,
                        pre_act,
                        pre_conv,
                        blocks: self.blocks(facts, inner, width, depth - 1)?,
                        post_bn: self.batch_norm()?,
                        post_act: self.activation(facts)?,
                        post_conv: self.conv()?,
                    }
                }
                "transformer_attention_block" => BlockDesc::Attention(self.attention()?),
                "transformer_ffn_block" => BlockDesc::FeedForward(self.feed_forward()?),
                other => {
                    return Err(ModelError::Unsupported {
                        layer: "trunk".to_string(),
                        what: format!("the block kind {other}"),
                    });
                }
            };
            block.check(channels)?;
            blocks.push(block);
        }
        Ok(blocks)
    }

    fn metadata_encoder(
        &mut self,
        facts: VersionFacts,
        version: i32,
    ) -> Result<MetadataEncoderDesc, ModelError> {
        let name = self.name("metadata encoder")?;
        let inputs = self.count(&name, "metadata inputs")?;
        if inputs != METADATA_INPUTS {
            return Err(ModelError::Unsupported {
                layer: name,
                what: format!(
                    "{inputs} metadata inputs (KataGo's encoder reads {METADATA_INPUTS})"
                ),
            });
        }
        Ok(MetadataEncoderDesc {
            version,
            mul1: self.matmul()?,
            bias1: self.mat_bias()?,
            act1: self.activation(facts)?,
            mul2: self.matmul()?,
            bias2: self.mat_bias()?,
            act2: self.activation(facts)?,
            mul3: self.matmul()?,
            name,
        })
    }

    fn model(&mut self) -> Result<ModelDesc, ModelError> {
        let name = self.name("model")?;
        let version: i32 = self.number(&name, "version")?;
        let facts = version_facts(version).ok_or(ModelError::UnsupportedVersion(version))?;
        let spatial_inputs = self.count(&name, "spatial inputs")?;
        let global_inputs = self.count(&name, "global inputs")?;
        let post_process = if facts.multipliers_in_header {
            PostProcess {
                td_score: self.positive(&name, "tdScoreMultiplier")?,
                score_mean: self.positive(&name, "scoreMeanMultiplier")?,
                score_stdev: self.positive(&name, "scoreStdevMultiplier")?,
                lead: self.positive(&name, "leadMultiplier")?,
                variance_time: self.positive(&name, "varianceTimeMultiplier")?,
                shortterm_value_error: self.positive(&name, "shorttermValueErrorMultiplier")?,
                shortterm_score_error: self.positive(&name, "shorttermScoreErrorMultiplier")?,
            }
        } else {
            PostProcess::default()
        };
        let mut metadata_version = 0;
        if facts.version_15_layout {
            metadata_version = self.number(&name, "metadata encoder version")?;
            if !(0..=1).contains(&metadata_version) {
                return Err(ModelError::Unsupported {
                    layer: name,
                    what: format!("metadata encoder version {metadata_version}"),
                });
            }
            if self.flag(&name, "pass-alive areas under suicide rules")? {
                return Err(ModelError::Unsupported {
                    layer: name,
                    what: "pass-alive input areas computed as if suicide were legal".to_string(),
                });
            }
            self.reserved(&name, 6)?;
        }

        let trunk_name = self.name("trunk")?;
        let num_blocks = self.count(&trunk_name, "blocks")?;
        let channels = self.count(&trunk_name, "trunk channels")?;
        self.count(&trunk_name, "mid channels")?;
        self.count(&trunk_name, "regular channels")?;
        // Dilated channels: unused, KataGo takes any number there.
        self.number::<i64>(&trunk_name, "dilated channels")?;
        self.count(&trunk_name, "gpool channels")?;
        let mut rms_tip = false;
        if facts.version_15_layout {
            rms_tip = match self.number::<i64>(&trunk_name, "trunk norm kind")? {
                0 => false,
                1 => true,
                k => {
                    return Err(ModelError::Unsupported {
                        layer: trunk_name,
                        what: format!("trunk norm kind {k}"),
                    });
                }
            };
            self.reserved(&trunk_name, 5)?;
        }
        let initial_conv = self.conv()?;
        let initial_matmul = self.matmul()?;
        let metadata_encoder = if metadata_version > 0 {
            Some(self.metadata_encoder(facts, metadata_version)?)
        } else {
            None
        };
        let blocks = self.blocks(facts, num_blocks, channels, 8)?;
        let tip_norm = if rms_tip {
            TrunkNorm::Rms(self.rms_norm()?)
        } else {
            TrunkNorm::Batch(self.batch_norm()?)
        };
        let tip_act = self.activation(facts)?;
        let trunk = TrunkDesc {
            channels,
            initial_conv,
            initial_matmul,
            metadata_encoder,
            blocks,
            tip_norm,
            tip_act,
        };

        let policy_name = self.name("policy head")?;
        let channels = match facts.policy_channels {
            Some(n) => n,
            None => {
                let n = self.count(&policy_name, "policy channels")?;
                if n != 2 && n != 4 {
                    return Err(malformed(&policy_name, format!("{n} policy channels")));
                }
                n
            }
        };
        if facts.version_17_heads {
            self.reserved(&policy_name, 3)?;
        }
        let policy = PolicyHeadDesc {
            channels,
            p1_conv: self.conv()?,
            g1_conv: self.conv()?,
            g1_bn: self.batch_norm()?,
            g1_act: self.activation(facts)?,
            gpool_to_bias: self.matmul()?,
            p1_bn: self.batch_norm()?,
            p1_act: self.activation(facts)?,
            p2_conv: self.conv()?,
            gpool_to_pass: self.matmul()?,
            pass_hidden: if facts.version_15_layout {
                Some(PassHiddenDesc {
                    bias: self.mat_bias()?,
                    act: self.activation(facts)?,
                    mul2: self.matmul()?,
                })
            } else {
                None
            },
        };
        let value_name = self.name("value head")?;
        if facts.version_17_heads {
            self.reserved(&value_name, 3)?;
        }
        let value = ValueHeadDesc {
            v1_conv: self.conv()?,
            v1_bn: self.batch_norm()?,
            v1_act: self.activation(facts)?,
            v2_mul: self.matmul()?,
            v2_bias: self.mat_bias()?,
            v2_act: self.activation(facts)?,
            v3_mul: self.matmul()?,
            v3_bias: self.mat_bias()?,
            sv3_mul: self.matmul()?,
            sv3_bias: self.mat_bias()?,
            ownership_conv: self.conv()?,
        };
        let model = ModelDesc {
            name,
            version,
            facts,
            spatial_inputs,
            global_inputs,
            post_process,
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
    /// The block's name, as the file gives it (its first layer's for the
    /// convolutional kinds).
    pub fn name(&self) -> &str {
        match self {
            BlockDesc::Ordinary { conv1, .. } => &conv1.name,
            BlockDesc::GlobalPooling { regular_conv, .. } => &regular_conv.name,
            BlockDesc::NestedBottleneck { pre_conv, .. } => &pre_conv.name,
            BlockDesc::Attention(a) => &a.name,
            BlockDesc::FeedForward(f) => &f.name,
        }
    }

    /// Whether the block's layers fit together and take and give
    /// `channels`.
    fn check(&self, channels: usize) -> Result<(), ModelError> {
        let name = self.name();
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
            BlockDesc::NestedBottleneck {
                pre_bn,
                pre_conv,
                post_bn,
                post_conv,
                ..
            } => shape(
                name,
                pre_bn.scale.len() == channels
                    && pre_conv.in_channels == channels
                    && post_bn.scale.len() == pre_conv.out_channels
                    && post_conv.in_channels == pre_conv.out_channels
                    && post_conv.out_channels == channels,
                || "the bottleneck's channels do not fit the trunk's".into(),
            ),
            BlockDesc::Attention(a) => shape(
                name,
                a.norm.weight.len() == channels
                    && a.q.in_channels == channels
                    && a.k.in_channels == channels
                    && a.v.in_channels == channels
                    && a.q.out_channels == a.heads * a.q_dim
                    && a.k.out_channels == a.kv_heads * a.q_dim
                    && a.v.out_channels == a.kv_heads * a.v_dim
                    && a.out.in_channels == a.heads * a.v_dim
                    && a.out.out_channels == channels,
                || "the projections do not fit the heads and the trunk".into(),
            ),
            BlockDesc::FeedForward(f) => shape(
                name,
                f.norm.weight.len() == channels
                    && f.linear1.in_channels == channels
                    && f.gate.in_channels == channels
                    && f.gate.out_channels == f.linear1.out_channels
                    && f.linear2.in_channels == f.linear1.out_channels
                    && f.linear2.out_channels == channels,
                || "the feed-forward layers do not fit the trunk".into(),
            ),
        }
    }
}

impl ModelDesc {
    fn check(&self) -> Result<(), ModelError> {
        let t = &self.trunk;
        shape(
            &self.name,
            self.spatial_inputs == crate::nn::inputs::SPATIAL
                && self.global_inputs == crate::nn::inputs::GLOBAL,
            || {
                format!(
                    "{} spatial and {} global inputs: kosumi feeds input version 7's {} and {}",
                    self.spatial_inputs,
                    self.global_inputs,
                    crate::nn::inputs::SPATIAL,
                    crate::nn::inputs::GLOBAL
                )
            },
        )?;
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
        if let Some(m) = &t.metadata_encoder {
            shape(
                &m.name,
                m.mul1.in_channels == METADATA_INPUTS
                    && m.bias1.len() == m.mul1.out_channels
                    && m.mul2.in_channels == m.mul1.out_channels
                    && m.bias2.len() == m.mul2.out_channels
                    && m.mul3.in_channels == m.mul2.out_channels
                    && m.mul3.out_channels == t.channels,
                || {
                    format!(
                        "its layers do not chain from the {METADATA_INPUTS} metadata inputs to the trunk's channels"
                    )
                },
            )?;
        }
        let (tip_name, tip_channels) = match &t.tip_norm {
            TrunkNorm::Batch(bn) => (&bn.name, bn.scale.len()),
            TrunkNorm::Rms(rms) => (&rms.name, rms.gamma.len()),
        };
        shape(tip_name, tip_channels == t.channels, || {
            "channels differ from the trunk's".into()
        })?;
        let p = &self.policy;
        let (pass_out, pass_ok) = match &p.pass_hidden {
            None => (p.gpool_to_pass.out_channels, true),
            Some(h) => (
                h.mul2.out_channels,
                h.bias.len() == p.gpool_to_pass.out_channels
                    && h.mul2.in_channels == p.gpool_to_pass.out_channels,
            ),
        };
        shape(
            &p.p1_conv.name,
            p.p1_conv.in_channels == t.channels
                && p.g1_conv.in_channels == t.channels
                && p.p1_bn.scale.len() == p.p1_conv.out_channels
                && p.g1_bn.scale.len() == p.g1_conv.out_channels
                && p.gpool_to_bias.in_channels == 3 * p.g1_conv.out_channels
                && p.gpool_to_bias.out_channels == p.p1_conv.out_channels
                && p.p2_conv.in_channels == p.p1_conv.out_channels
                && p.p2_conv.out_channels == p.channels
                && p.gpool_to_pass.in_channels == 3 * p.g1_conv.out_channels
                && pass_ok
                && pass_out == p.channels,
            || "the policy head's layers do not fit together".into(),
        )?;
        let v = &self.value;
        let scores = self.facts.score_outputs;
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
                && v.sv3_mul.out_channels == scores
                && v.sv3_bias.len() == scores
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
        let err = ModelDesc::parse(b"net 18 22 19 trunk").unwrap_err();
        assert_eq!(err, ModelError::UnsupportedVersion(18));
        assert!(err.to_string().contains("version 18"));
        let err = ModelDesc::parse(b"hello world").unwrap_err();
        assert!(matches!(err, ModelError::Malformed { .. }), "{err}");
        assert!(ModelDesc::parse(&[0x1f, 0x8b, 1, 2, 3]).is_err());
    }

    /// The embedded net's text, decompressed.
    fn embedded_text() -> Vec<u8> {
        let mut bytes = Vec::new();
        GzDecoder::new(crate::nn::EMBEDDED_MODEL)
            .read_to_end(&mut bytes)
            .unwrap();
        bytes
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        use flate2::write::GzEncoder;
        use std::io::Write;
        let mut e = GzEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn hostile_files_are_refused_by_what_they_claim_before_anything_is_allocated() {
        // A layer claiming 2^20 x 2^20 x 9 weights in a tiny file.
        let huge = b"net 8 22 19 trunk 1 96 96 96 96 96 c 3 3 1048576 1048576 1 1 @BIN@";
        let err = ModelDesc::parse(huge).unwrap_err();
        assert!(matches!(err, ModelError::Truncated { .. }), "{err}");
        // A gzip bomb: a gigabyte of spaces in a megabyte.
        let bomb = gzip(&vec![b' '; 1 << 30]);
        let err = ModelDesc::parse(&bomb).unwrap_err();
        assert!(
            err.to_string().contains("decompresses to more than"),
            "{err}"
        );
        // 21 input planes where kosumi feeds 22.
        let text = embedded_text();
        let at = text.windows(7).position(|w| w == b"\n22\n19\n").unwrap();
        let mut changed = text.clone();
        changed[at + 2] = b'1';
        assert!(ModelDesc::parse(&changed).is_err());
        // A byte more, or a byte less, than the layers hold.
        let mut longer = text.clone();
        longer.extend_from_slice(b"x");
        let err = ModelDesc::parse(&longer).unwrap_err();
        assert!(err.to_string().contains("follow the last layer"), "{err}");
        let end = text.iter().rposition(|b| !b.is_ascii_whitespace()).unwrap();
        assert!(ModelDesc::parse(&text[..end]).is_err());
    }
}
