#!/usr/bin/env bash
# Prints kosumi's playout speed (one `bench ...` line per figure).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cargo run --release --quiet --manifest-path "$here/Cargo.toml" -- bench "$@"
