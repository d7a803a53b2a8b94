#!/usr/bin/env bash
# Runs the GTP regression files in gtp-tests/ with gogui-regress (from GoGui,
# on PATH), which starts a fresh kosumi per file in that folder.
#
#   scripts/regress.sh [FILES...]      (default: all gtp-tests/*.tst)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
command -v gogui-regress >/dev/null || { echo "gogui-regress not on PATH (install GoGui)" >&2; exit 2; }
cargo build --release --manifest-path "$here/Cargo.toml" >&2
cd "$here/gtp-tests"
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(*.tst)
mkdir -p "$here/target/regress"
gogui-regress -output "$here/target/regress" "$here/target/release/kosumi" "${files[@]}"
