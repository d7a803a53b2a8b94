#!/usr/bin/env bash
# Prints kosumi's playout speed (one `bench ...` line per figure). If Pachi
# is on PATH (built by hand, DCNN=0), also measures Pachi's tree search on the
# empty 9×9 and 19×19 boards in the same run, one thread, light and full
# (moggy) playouts, and prints it in the same form with engine=pachi.
#
#   scripts/bench.sh [--seconds N]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cargo run --release --quiet --manifest-path "$here/Cargo.toml" -- bench "$@"

if pachi=$(command -v pachi); then
    # By its full path: Pachi finds its data files next to the binary.
    for size in 9 19; do
        for policy in light moggy; do
            games=$((size == 9 ? 40000 : 8000))
            line=$(printf 'boardsize %s\nclear_board\nkomi 7.5\ngenmove b\nquit\n' "$size" |
                "$pachi" --nodcnn --nopassfirst -t "=$games" "threads=1,playout=$policy,pondering=0" 2>&1 |
                grep -o '[0-9]* games/s/thread' | head -1 | cut -d' ' -f1 || true)
            name=$([ "$policy" = moggy ] && echo full || echo light)
            echo "bench board=$size engine=pachi policy=tree-$name threads=1 playouts_per_s=${line:-?}"
        done
    done
fi
