#!/usr/bin/env python3
"""PyTorch's speed on the network shape kosumi's GPU figures are read
against: a net of the kata1 standard net's shape (b18c384nbt, random
weights), layer for layer the net `scripts/synthetic_model.py --shape
b18c384nbt` writes for kosumi (a 5x5 input convolution and the global
inputs' product; 18 nested bottleneck blocks, each a 1x1 convolution down
to 192 channels, two residual blocks of two 3x3 convolutions and a 1x1 back
up to 384, every convolution after a per-channel norm and mish; the policy
head with its global pooling and pass, the value head with scores and
ownership), evaluated as kosumi's `bench --nn` times it: the inputs made
once, one warm-up pass, then passes until the time is filled, each waited
for, evaluations a second by batch.

Run it where kosumi runs (`scripts/device_check.sh` does, where PyTorch is
installed): on a GPU in fp16, channels-last, cuDNN choosing its algorithms
(`torch.backends.cudnn.benchmark`), as PyTorch users run inference; on the
CPU (no GPU, or --device cpu) in f32. One line a batch:

    pytorch_anchor device=cuda dtype=float16 shape=b18c384nbt board=19 batch=128 evals_per_s=... ms_per_batch=...

Usage: scripts/pytorch_anchor.py [--device cuda|cpu] [--seconds S]
[--batches 1,8,32,128,256] [--size 19] [--compile]
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

TRUNK, MID, BLOCKS = 384, 192, 18
P1, G1, V1, V2 = 48, 32, 32, 64
SPATIAL, GLOBAL = 22, 19


class Norm(nn.Module):
    """A norm folded for inference: a scale and a bias a channel, then mish."""

    def __init__(self, c):
        super().__init__()
        self.scale = nn.Parameter(1.0 + 0.1 * torch.randn(1, c, 1, 1))
        self.bias = nn.Parameter(0.1 * torch.randn(1, c, 1, 1))

    def forward(self, x):
        return F.mish(x * self.scale + self.bias)


def conv(cin, cout, size):
    return nn.Conv2d(cin, cout, size, padding=size // 2, bias=False)


class Ordinary(nn.Module):
    """Norm, mish, 3x3; norm, mish, 3x3; plus the input."""

    def __init__(self, c):
        super().__init__()
        self.n1, self.c1, self.n2, self.c2 = Norm(c), conv(c, c, 3), Norm(c), conv(c, c, 3)

    def forward(self, x):
        return x + self.c2(self.n2(self.c1(self.n1(x))))


class Nested(nn.Module):
    """A nested bottleneck block: down to MID, two ordinary blocks, up."""

    def __init__(self):
        super().__init__()
        self.pre_norm, self.pre = Norm(TRUNK), conv(TRUNK, MID, 1)
        self.inner = nn.Sequential(Ordinary(MID), Ordinary(MID))
        self.post_norm, self.post = Norm(MID), conv(MID, TRUNK, 1)

    def forward(self, x):
        return x + self.post(self.post_norm(self.inner(self.pre(self.pre_norm(x)))))


def pooled(x, size):
    """KataGo's global pooling: the mean, the mean scaled by the board's
    width, and the maximum, a channel each."""
    mean = x.mean((2, 3))
    scale = (size - 14.0) / 10.0
    return torch.cat([mean, mean * scale, x.amax((2, 3))], 1)


class Net(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.size = size
        self.spatial = conv(SPATIAL, TRUNK, 5)
        self.glob = nn.Linear(GLOBAL, TRUNK, bias=False)
        self.trunk = nn.Sequential(*[Nested() for _ in range(BLOCKS)])
        self.final = Norm(TRUNK)
        self.p1, self.g1, self.g1_norm = conv(TRUNK, P1, 1), conv(TRUNK, G1, 1), Norm(G1)
        self.g_to_bias = nn.Linear(3 * G1, P1, bias=False)
        self.p1_norm, self.p2 = Norm(P1), conv(P1, 4, 1)
        self.g_to_pass = nn.Linear(3 * G1, P1)
        self.pass2 = nn.Linear(P1, 4, bias=False)
        self.v1, self.v1_norm = conv(TRUNK, V1, 1), Norm(V1)
        self.v2, self.v3, self.sv3 = nn.Linear(3 * V1, V2), nn.Linear(V2, 3), nn.Linear(V2, 6)
        self.ownership = conv(V1, 1, 1)

    def forward(self, spatial, glob):
        x = self.spatial(spatial) + self.glob(glob)[:, :, None, None]
        x = self.final(self.trunk(x))
        g = pooled(self.g1_norm(self.g1(x)), self.size)
        p = self.p2(self.p1_norm(self.p1(x) + self.g_to_bias(g)[:, :, None, None]))
        passes = self.pass2(F.mish(self.g_to_pass(g)))
        v = self.v1_norm(self.v1(x))
        hidden = F.mish(self.v2(pooled(v, self.size)))
        return p, passes, self.v3(hidden), self.sv3(hidden), self.ownership(v)


def rate(net, device, dtype, batch, size, seconds):
    """Evaluations a second and milliseconds a pass at `batch`."""
    layout = torch.channels_last
    spatial = torch.randn(batch, SPATIAL, size, size, device=device, dtype=dtype)
    spatial = spatial.to(memory_format=layout)
    glob = torch.randn(batch, GLOBAL, device=device, dtype=dtype)
    wait = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    with torch.inference_mode():
        net(spatial, glob)
        wait()
        passes, start = 0, time.perf_counter()
        while passes < 3 or time.perf_counter() - start < seconds:
            net(spatial, glob)
            wait()
            passes += 1
        elapsed = time.perf_counter() - start
    return passes * batch / elapsed, elapsed / passes * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", choices=["cuda", "cpu"],
                    default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--batches", default="1,8,32,128,256")
    ap.add_argument("--size", type=int, default=19)
    ap.add_argument("--compile", action="store_true", help="torch.compile the net first")
    args = ap.parse_args()
    device = args.device
    dtype = torch.float16 if device == "cuda" else torch.float32
    torch.backends.cudnn.benchmark = True
    torch.manual_seed(1)
    net = Net(args.size).to(device=device, dtype=dtype).eval()
    net = net.to(memory_format=torch.channels_last)
    if args.compile:
        net = torch.compile(net)
    where = torch.cuda.get_device_name() if device == "cuda" else f"{torch.get_num_threads()} threads"
    print(f"pytorch_anchor torch={torch.__version__} device={device} ({where}) "
          f"cudnn={torch.backends.cudnn.version()}", flush=True)
    for batch in (int(b) for b in args.batches.split(",")):
        evals, ms = rate(net, device, dtype, batch, args.size, args.seconds)
        print(f"pytorch_anchor device={device} dtype={str(dtype).removeprefix('torch.')} "
              f"shape=b18c384nbt board={args.size} batch={batch} compiled={args.compile} "
              f"evals_per_s={evals:.0f} ms_per_batch={ms:.2f}", flush=True)


if __name__ == "__main__":
    main()
