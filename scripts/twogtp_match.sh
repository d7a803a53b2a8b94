#!/usr/bin/env bash
# Runs a match between kosumi and another GTP engine with gogui-twogtp (from
# GoGui, on PATH), GNU Go as referee, alternating colours, then prints the
# result table with gogui-twogtp -analyze.
#
#   scripts/twogtp_match.sh [-n GAMES] [-s SIZE] [-k KOMI] [-o OUTDIR] [-d DICE]
#                    [-e "kosumi args"] [-p "opponent command"]
#
# Defaults: 20 games on 9x9, komi 7.5, kosumi at 1 s per move, GNU Go level 10.
# -d 1d6 plays Aléago: kosumi gets --dice 1d6 and rolls for its own moves; the
# opponent must roll for its own too (another kosumi: -p "target/release/kosumi
# --dice 1d6 --seed 2 ..."). GNU Go stays the referee: every dice move is a
# legal Go move, and it counts the end.
set -euo pipefail
games=20 size=9 komi=7.5 out=match-out dice=""
kosumi_args="--time 1"
opponent="gnugo --mode gtp --level 10 --chinese-rules"
while getopts "n:s:k:o:e:p:d:" opt; do
  case $opt in
    n) games=$OPTARG ;; s) size=$OPTARG ;; k) komi=$OPTARG ;; o) out=$OPTARG ;;
    e) kosumi_args=$OPTARG ;; p) opponent=$OPTARG ;; d) dice=$OPTARG ;;
    *) sed -n '2,13p' "$0"; exit 2 ;;
  esac
done
command -v gogui-twogtp >/dev/null || { echo "gogui-twogtp not on PATH (install GoGui)" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release --manifest-path "$here/Cargo.toml" >&2
kosumi="$here/target/release/kosumi --size $size $kosumi_args${dice:+ --dice $dice}"
mkdir -p "$out"
gogui-twogtp -black "$kosumi" -white "$opponent" \
  -referee "gnugo --mode gtp --chinese-rules" \
  -size "$size" -komi "$komi" -games "$games" -alternate -auto \
  -sgffile "$out/match"
gogui-twogtp -analyze "$out/match.dat"
echo "Summary: $out/match.html"
