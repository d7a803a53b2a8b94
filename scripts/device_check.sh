#!/usr/bin/env bash
# The check to run on a lent machine (the `device` tool's: a 16-core Intel
# Xeon with AVX-512, BF16 and AMX beside its GPU): the processor as Linux
# names it, then kosumi's network speed there, so that a figure names the
# processor it came from. Build here (`cargo build --release`), carry the
# binary and, optionally, a net, and run:
#
#   scripts/device_check.sh [KOSUMI] [NET ...]
#
# KOSUMI defaults to target/release/kosumi; each NET (KaTrain's
# b10c384h6nbttflrs.bin.gz, for the subnormal flush's effect on Intel) is
# timed beside the embedded six-block net. Prints one `bench` line per
# figure; about two minutes on 16 cores.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
kosumi=${1:-$here/target/release/kosumi}
shift || true
echo "cpu: $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), $(nproc) cores"
echo "flags: $(grep -m1 -o -w -E 'avx2|avx512f|avx512_bf16|amx_tile|asimd|bf16' /proc/cpuinfo | sort -u | tr '\n' ' ')"
"$kosumi" bench --nn --size 9 --size 19 --seconds 2
for net in "$@"; do
  "$kosumi" --model "$net" bench --nn --size 9 --size 19 --seconds 2
done
