#!/usr/bin/env bash
# Builds the release binaries a GUI user can take, each with the embedded
# net, into target/dist/ with their SHA-256 sums (target/dist/SHA256SUMS):
#   kosumi-linux-x86_64, kosumi-linux-arm64, kosumi-windows-x86_64.exe
# Needs the Rust targets (rustup target add aarch64-unknown-linux-gnu
# x86_64-pc-windows-gnu) and Debian's gcc-aarch64-linux-gnu and
# gcc-mingw-w64-x86-64 as linkers.
#
#   scripts/dist.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
dist=target/dist
mkdir -p "$dist"
build() { # TARGET FILE NAME
  cargo build --release --target "$1" >&2
  cp "target/$1/release/$2" "$dist/$3.tmp" && mv "$dist/$3.tmp" "$dist/$3"
}
build x86_64-unknown-linux-gnu kosumi kosumi-linux-x86_64
build aarch64-unknown-linux-gnu kosumi kosumi-linux-arm64
build x86_64-pc-windows-gnu kosumi.exe kosumi-windows-x86_64.exe
(cd "$dist" && sha256sum kosumi-linux-x86_64 kosumi-linux-arm64 kosumi-windows-x86_64.exe > SHA256SUMS.tmp && mv SHA256SUMS.tmp SHA256SUMS)
cat "$dist/SHA256SUMS"
