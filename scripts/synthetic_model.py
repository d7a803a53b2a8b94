#!/usr/bin/env python3
"""Writes a small KataGo model file with random weights in the real grammar
(KataGo 1.17.2's desc.cpp), for the record kinds no real file at hand uses:
model version 16 with the seven output multipliers, version 15's header and
pass layer, four policy channels, six score outputs, mish and SiLU
activations, and a nested bottleneck block holding an ordinary block and a
global-pooling block; with --human, also the human-like nets' metadata
encoder (192 inputs of ranks, dates, time controls and source, through
two hidden layers into a bias of the trunk). KataGo evaluates it too
(scripts/katago_reference.py), and tests/katago_equal.rs holds kosumi to
KataGo's numbers.

    scripts/synthetic_model.py --seed 1 | gzip > tests/data/models/synthetic-v16.txt.gz
    scripts/synthetic_model.py --seed 2 --human | gzip > tests/data/models/synthetic-v16-human.txt.gz

With --shape b18c384nbt it writes instead a net of the kata1 standard
net's shape (eighteen nested bottleneck blocks of 384 channels, each two
ordinary blocks of 192 inside; the trunk of the PyTorch anchor the GPU's figures stand beside),
random weights, for timing a GPU (about 300 MB of text, 30 s):

    scripts/synthetic_model.py --shape b18c384nbt > b18c384nbt.txt

Text weights (`.txt.gz`: KataGo reads the weights as text by the name).
"""
import argparse
import math
import random


class Writer:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.out = []

    def line(self, *items):
        self.out.append(" ".join(str(i) for i in items))

    def floats(self, values):
        self.out.append(" ".join(f"{v:.6g}" for v in values))

    def normal(self, n, scale):
        return [self.rng.gauss(0.0, scale) for _ in range(n)]

    def conv(self, name, size, cin, cout):
        self.line(name, size, size, cin, cout, 1, 1)
        self.floats(self.normal(size * size * cin * cout, 1.0 / math.sqrt(size * size * cin)))

    def bn(self, name, c):
        self.line(name, c, 1e-5, 1, 1)
        self.floats(self.normal(c, 0.1))  # mean
        self.floats([0.5 + self.rng.random() for _ in range(c)])  # variance
        self.floats([0.5 + self.rng.random() for _ in range(c)])  # scale
        self.floats(self.normal(c, 0.1))  # bias

    def act(self, name, kind):
        self.line(name, kind)

    def matmul(self, name, cin, cout, gain=1.0):
        self.line(name, cin, cout)
        self.floats(self.normal(cin * cout, gain / math.sqrt(cin)))

    def ordinary(self, name, c, second_act):
        """An ordinary block of width `c`: norm, mish, 3x3; norm, `second_act`, 3x3."""
        self.line("ordinary_block", name)
        self.bn(f"{name}.norm1", c)
        self.act(f"{name}.act1", "ACTIVATION_MISH")
        self.conv(f"{name}.conv1", 3, c, c)
        self.bn(f"{name}.norm2", c)
        self.act(f"{name}.act2", second_act)
        self.conv(f"{name}.conv2", 3, c, c)

    def bias(self, name, c):
        self.line(name, c)
        self.floats(self.normal(c, 0.1))


def heads(w, c, p1, g1, v1, v2):
    """The policy head (four channels: policy, optimistic, two Q-values;
    the pass through a hidden layer) and the value head (six score
    outputs) on a trunk of `c` channels."""
    w.line("policy_head")
    w.conv("p1", 1, c, p1)
    w.conv("g1", 1, c, g1)
    w.bn("g1.norm", g1)
    w.act("g1.act", "ACTIVATION_MISH")
    w.matmul("gpool_to_bias", 3 * g1, p1)
    w.bn("p1.norm", p1)
    w.act("p1.act", "ACTIVATION_MISH")
    w.conv("p2", 1, p1, 4)
    w.matmul("gpool_to_pass", 3 * g1, p1)
    w.bias("pass_bias", p1)
    w.act("pass_act", "ACTIVATION_MISH")
    w.matmul("gpool_to_pass2", p1, 4)
    w.line("value_head")
    w.conv("v1", 1, c, v1)
    w.bn("v1.norm", v1)
    w.act("v1.act", "ACTIVATION_MISH")
    w.matmul("v2", 3 * v1, v2)
    w.bias("v2.bias", v2)
    w.act("v2.act", "ACTIVATION_MISH")
    w.matmul("v3", v2, 3)
    w.bias("v3.bias", 3)
    w.matmul("sv3", v2, 6)
    w.bias("sv3.bias", 6)
    w.conv("ownership", 1, v1, 1)


def model(seed, human):
    w = Writer(seed)
    trunk, mid, regular, gpool = 32, 16, 16, 8
    p1, g1, v1, v2 = 16, 8, 8, 16
    w.line("synthetic-v16-human" if human else "synthetic-v16-nbt-mish", 16, 22, 19)
    w.line(20.0, 20.0, 20.0, 20.0, 40.0, 0.25, 150.0)  # output multipliers (v13)
    # The metadata encoder's version (0: none), pass-alive as the rules
    # say, reserved.
    w.line(1 if human else 0, 0, 0, 0, 0, 0, 0, 0)
    w.line("trunk", 2, trunk, mid, regular, 0, gpool)
    w.line(0, 0, 0, 0, 0, 0)  # batch-norm trunk tip, reserved
    w.conv("conv_spatial", 3, 22, trunk)
    w.matmul("linear_global", 19, trunk)
    if human:
        # KataGo's SGFMetadataEncoder: 192 inputs, two hidden layers.
        w.line("metadata_encoder", 192)
        w.matmul("meta.mul1", 192, 24)
        w.bias("meta.bias1", 24)
        w.act("meta.act1", "ACTIVATION_MISH")
        w.matmul("meta.mul2", 24, 16)
        w.bias("meta.bias2", 16)
        w.act("meta.act2", "ACTIVATION_SILU")
        # Large enough that each profile moves every output well past
        # the tests' tolerance.
        w.matmul("meta.mul3", 16, trunk, gain=4.0)
    # A nested bottleneck: down to `mid`, an ordinary and a gpool block, up.
    w.line("nested_bottleneck_block", "nbt", 2)
    w.bn("nbt.pre.norm", trunk)
    w.act("nbt.pre.act", "ACTIVATION_MISH")
    w.conv("nbt.pre.conv", 1, trunk, mid)
    w.ordinary("nbt.0", mid, "ACTIVATION_SILU")
    w.line("gpool_block", "nbt.1")
    w.bn("nbt.1.norm1", mid)
    w.act("nbt.1.act1", "ACTIVATION_MISH")
    w.conv("nbt.1.conv1r", 3, mid, regular)
    w.conv("nbt.1.conv1g", 3, mid, gpool)
    w.bn("nbt.1.normg", gpool)
    w.act("nbt.1.actg", "ACTIVATION_MISH")
    w.matmul("nbt.1.linear_g", 3 * gpool, regular)
    w.bn("nbt.1.norm2", regular)
    w.act("nbt.1.act2", "ACTIVATION_MISH")
    w.conv("nbt.1.conv2", 3, regular, mid)
    w.bn("nbt.post.norm", mid)
    w.act("nbt.post.act", "ACTIVATION_MISH")
    w.conv("nbt.post.conv", 1, mid, trunk)
    # An ordinary block at the trunk's width.
    w.ordinary("b1", trunk, "ACTIVATION_MISH")
    w.bn("norm_trunkfinal", trunk)
    w.act("act_trunkfinal", "ACTIVATION_MISH")
    heads(w, trunk, p1, g1, v1, v2)
    return "\n".join(w.out) + "\n"


def b18c384nbt(seed, out):
    """The kata1 standard net's shape, written to `out` block by block."""
    w = Writer(seed)
    c, mid, blocks = 384, 192, 18
    p1, g1, v1, v2 = 48, 32, 32, 64
    w.line("synthetic-b18c384nbt", 16, 22, 19)
    w.line(20.0, 20.0, 20.0, 20.0, 40.0, 0.25, 150.0)
    w.line(0, 0, 0, 0, 0, 0, 0, 0)
    w.line("trunk", blocks, c, mid, mid, 0, 32)
    w.line(0, 0, 0, 0, 0, 0)
    w.conv("conv_spatial", 5, 22, c)
    w.matmul("linear_global", 19, c)
    for b in range(blocks):
        w.line("nested_bottleneck_block", f"nbt{b}", 2)
        w.bn(f"nbt{b}.pre.norm", c)
        w.act(f"nbt{b}.pre.act", "ACTIVATION_MISH")
        w.conv(f"nbt{b}.pre.conv", 1, c, mid)
        w.ordinary(f"nbt{b}.0", mid, "ACTIVATION_MISH")
        w.ordinary(f"nbt{b}.1", mid, "ACTIVATION_MISH")
        w.bn(f"nbt{b}.post.norm", mid)
        w.act(f"nbt{b}.post.act", "ACTIVATION_MISH")
        w.conv(f"nbt{b}.post.conv", 1, mid, c)
        out.write("\n".join(w.out) + "\n")
        w.out.clear()
    w.bn("norm_trunkfinal", c)
    w.act("act_trunkfinal", "ACTIVATION_MISH")
    heads(w, c, p1, g1, v1, v2)
    out.write("\n".join(w.out) + "\n")


if __name__ == "__main__":
    import sys

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--human", action="store_true", help="with the metadata encoder")
    ap.add_argument("--shape", choices=["small", "b18c384nbt"], default="small",
                    help="small (the test nets) or the kata1 standard net's shape")
    args = ap.parse_args()
    if args.shape == "b18c384nbt":
        b18c384nbt(args.seed, sys.stdout)
    else:
        print(model(args.seed, args.human), end="")
