#!/usr/bin/env bash
# What kosumi's networks do on a machine with an NVIDIA GPU, in one run:
# the processor as Linux names it and the CPU backend's speed there (so
# that every figure names its processor), then, where `nvidia-smi` finds a
# GPU:
#   1. `kosumi gpu-error`: the GPU in f32 and f16 against the CPU backend
#      by KataGo's gates (99th percentile and worst of the win rate, lead,
#      top policy and ownership), at batch 1 and in batches, on square and
#      rectangular boards, for every net in tests/data/models and the
#      embedded one;
#   2. `kosumi bench --nn --backend cuda` with a net of the kata1 standard
#      net's shape (b18c384nbt, random weights, written on the spot by
#      scripts/synthetic_model.py): evaluations a second at batches 1 to 256
#      and the search's visits a second, and the same for the embedded net
#      and each NET on 19×19; then `bench --nn --profile` for the
#      b18-shaped net and each NET: each operation kind's device time (CUDA
#      events) at batches 1, 8 and 128, and the host's input planes;
#   3. with each NET (KaTrain's b10c384h6nbttflrs.bin.gz is the one to
#      give), a KaTrain-like JSON query on the GPU (33 turns of a 19×19
#      game, 500 visits each, 12 positions at once × 8 threads), with two
#      passes in flight (the default) and with one (`--gpu-passes 1`);
#   4. the paths side by side at batch 128: the b18-shaped net's profile
#      again with `--gpu-conv im2col` beside cuDNN's convolutions, its
#      evaluations a second with `--no-graphs` beside the graphs and
#      its profile and evaluations with the trunk in halves (`--gpu-trunk
#      f16`, with `gpu-error` on every net in f16 for it), and
#      each NET's with `--attention simt` (one kernel on CUDA's cores)
#      and `--attention fused` (one kernel on the tensor cores, its
#      evaluations a second too) beside the default (batched products on
#      the tensor cores), `gpu-error` again on every net with `--gpu-conv
#      im2col`, and in f16 on the nets with attention with `--attention
#      fused`; every profile line on a GPU whose
#      peaks kosumi knows carries its floor and `eff = floor / measured`;
#   5. where PyTorch is installed, scripts/pytorch_anchor.py: PyTorch fp16
#      on the same b18c384nbt shape, timed the same way, so that kosumi's
#      evaluations a second have their peer from the same GPU and run.
# Prints one line per figure and gate, then a summary of the lines that
# matter most (the gates, batch 128, the JSON query, PyTorch); exits 1
# where a gate fails or a step does not finish. Each step has its own timeout, and the CPU's
# figures take the NETs on 19×19 only, so that the whole stays near five
# minutes.
#
# Usage: scripts/device_check.sh [KOSUMI] [NET ...]
# KOSUMI is a kosumi built with `--features cuda` (or it packed by xz);
# without it, target/device/kosumi(.xz), then target/release/kosumi.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
kosumi=${1:-}
if [[ -z $kosumi ]]; then
  kosumi=$here/target/device/kosumi
  [[ -x $kosumi || ! -f $kosumi.xz ]] || kosumi=$kosumi.xz
  [[ -e $kosumi ]] || kosumi=$here/target/release/kosumi
fi
shift || true
if [[ $kosumi == *.xz ]]; then
  xz -dc "$kosumi" > "$scratch/kosumi" && chmod +x "$scratch/kosumi"
  kosumi=$scratch/kosumi
fi
echo "cpu: $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), $(nproc) cores"
echo "flags: $(grep -m1 -o -w -E 'avx2|avx512f|avx512_bf16|amx_tile|asimd|bf16' /proc/cpuinfo | sort -u | tr '\n' ' ')"
"$kosumi" --backend cpu bench --nn --size 9 --size 19 --seconds 1
for net in "$@"; do
  "$kosumi" --backend cpu --model "$net" bench --nn --size 19 --seconds 1
done
command -v nvidia-smi >/dev/null || { echo "gpu: none (no nvidia-smi)"; exit 0; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -1)"
# cuDNN: the system's, or a Python wheel's (PyTorch's nvidia-cudnn), put
# where the loader finds it.
cudnn_dir=
if ! ldconfig -p 2>/dev/null | grep -q 'libcudnn\.so'; then
  cudnn_dir=$(python3 -c 'import nvidia.cudnn, os; print(os.path.join(list(nvidia.cudnn.__path__)[0], "lib"))' 2>/dev/null || true)
  if [[ -z $cudnn_dir || ! -d $cudnn_dir ]]; then
    found=$(find / -xdev -name 'libcudnn.so.9*' -print -quit 2>/dev/null || true)
    cudnn_dir=${found%/*}
  fi
  if [[ -n $cudnn_dir && -d $cudnn_dir ]]; then
    export LD_LIBRARY_PATH=$cudnn_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  fi
fi
echo "cudnn: ${cudnn_dir:-as the loader finds it}"
echo "kosumi: $("$kosumi" --version) (attention batched, 3×3 by cuDNN where found, unless said; products f16 unless said)"
# Everything below is also kept for the summary at the end.
log=$scratch/log
exec > >(tee "$log") 2>&1
models=$here/tests/data/models
status=0
timeout 120 "$kosumi" --backend cuda gpu-error --positions 100 \
  "$models"/*.bin.gz "$models"/*.txt.gz || status=1
timeout 30 "$kosumi" --backend cuda gpu-error --positions 60 || status=1
timeout 90 "$kosumi" --backend cuda --gpu-conv im2col gpu-error --positions 60 \
  "$models"/*.bin.gz "$models"/*.txt.gz | sed 's/^gpu-error /gpu-error gpu_conv=im2col /' || status=1
# The trunk in halves (half precision only), whose gates decide whether
# it becomes the default: every net.
timeout 90 "$kosumi" --backend cuda --gpu-trunk f16 --precision f16 gpu-error --positions 40 \
  "$models"/*.bin.gz "$models"/*.txt.gz "$@" | sed 's/^gpu-error /gpu-error gpu_trunk=f16 /' || status=1
# Fused attention (half precision only): the nets with attention.
timeout 60 "$kosumi" --backend cuda --attention fused --precision f16 gpu-error --positions 40 \
  "$models"/b7c96h*.bin.gz "$@" | sed 's/^gpu-error /gpu-error attention=fused /' || status=1
python3 "$here/scripts/synthetic_model.py" --shape b18c384nbt > "$scratch/b18c384nbt.txt"
timeout 100 "$kosumi" --backend cuda --model "$scratch/b18c384nbt.txt" bench --nn --size 19 --seconds 1 || status=1
timeout 30 "$kosumi" --backend cuda --model "$scratch/b18c384nbt.txt" bench --nn --profile --size 19 --seconds 0.5 || status=1
timeout 30 "$kosumi" --backend cuda --gpu-conv im2col --model "$scratch/b18c384nbt.txt" bench --nn --profile --size 19 --seconds 0.5 \
  | sed 's/^profile /profile gpu_conv=im2col /' || status=1
timeout 30 "$kosumi" --backend cuda --gpu-trunk f16 --model "$scratch/b18c384nbt.txt" bench --nn --profile --size 19 --seconds 0.5 \
  | sed 's/^profile /profile gpu_trunk=f16 /' || status=1
timeout 60 "$kosumi" --backend cuda --gpu-trunk f16 --model "$scratch/b18c384nbt.txt" bench --nn --size 19 --seconds 0.5 \
  | sed 's/^bench /bench gpu_trunk=f16 /' || status=1
timeout 40 "$kosumi" --backend cuda bench --nn --size 19 --seconds 1 || status=1
# CUDA graphs off, for their share: evaluations a second at each batch.
timeout 60 "$kosumi" --backend cuda --no-graphs --model "$scratch/b18c384nbt.txt" bench --nn --size 19 --seconds 0.5 \
  | sed 's/^bench /bench graphs=off /' || status=1
rm -f "$scratch/b18c384nbt.txt"
for net in "$@"; do
  timeout 90 "$kosumi" --backend cuda --model "$net" bench --nn --size 19 --seconds 1 || status=1
  timeout 30 "$kosumi" --backend cuda --model "$net" bench --nn --profile --size 19 --seconds 0.5 || status=1
  timeout 30 "$kosumi" --backend cuda --attention simt --model "$net" bench --nn --profile --size 19 --seconds 0.5 \
    | sed 's/^profile /profile attention=simt /' || status=1
  timeout 30 "$kosumi" --backend cuda --attention fused --model "$net" bench --nn --profile --size 19 --seconds 0.5 \
    | sed 's/^profile /profile attention=fused /' || status=1
  timeout 40 "$kosumi" --backend cuda --attention fused --model "$net" bench --nn --size 19 --seconds 0.5 \
    | sed 's/^bench /bench attention=fused /' || status=1
  # A KaTrain-like JSON query: 33 turns of a 19×19 game, 500 visits each,
  # ownership and policy, as KaTrain's config asks (12 positions at once,
  # 8 search threads each); its visits a second.
  python3 - > "$scratch/query.json" <<'QUERY'
import json
moves = "Q16 D4 Q4 D16 C14 R6 O3 F17 C6 E3 C3 D3 C4 D5 C7 J4 R14 P17 O16 O17 N16 N17 M16 C10 L3 M4 L4 L5 K5 K4 J5 H5".split()
print(json.dumps({"id": "kt", "moves": [["BW"[i % 2], m] for i, m in enumerate(moves)],
                  "rules": "japanese", "komi": 6.5, "boardXSize": 19, "boardYSize": 19,
                  "maxVisits": 500, "includeOwnership": True, "includePolicy": True,
                  "analyzeTurns": list(range(33))}))
QUERY
  for passes in 2 1; do
    start=$(date +%s.%N)
    answers=$(timeout 60 "$kosumi" --backend cuda --gpu-passes "$passes" --model "$net" --threads 8 \
      analysis --positions 12 < "$scratch/query.json" 2>/dev/null | grep -c '"id":"kt"' || true)
    awk -v a="$start" -v b="$(date +%s.%N)" -v n="$answers" -v net="$(basename "$net")" -v p="$passes" \
      'BEGIN { printf "json_query net=%s gpu_passes=%d turns=33 answered=%d visits=500 seconds=%.1f visits_per_s=%.0f\n", net, p, n, b - a, n * 500 / (b - a) }'
  done
done
if python3 -c 'import torch' 2>/dev/null; then
  timeout 120 python3 "$here/scripts/pytorch_anchor.py" --seconds 1 || status=1
else
  echo "pytorch_anchor: no PyTorch here"
fi
echo "=== summary"
cp "$log" "$log.done"
grep -E '^gpu-error|batch=128 |json_query|pytorch_anchor device=.* batch=(1|128) ' "$log.done" \
  | grep -v '^profile .*part=' || true
exit $status
