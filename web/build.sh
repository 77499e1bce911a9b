#!/usr/bin/env bash
# Build the playground: the host (writ-web) for wasm32-unknown-unknown in
# release mode, its JavaScript bindings by wasm-bindgen, the page's
# static files, and the menu of labs and examples (tools/gather.py), all
# into one folder that any static server can serve:
#
#   web/build.sh [OUT]        # OUT defaults to web/dist
#   python3 -m http.server -d web/dist 8000
#
# Needs the Rust toolchain and Python 3.11 or later; adds the wasm32
# target with rustup, and installs the wasm-bindgen command at the
# version of the wasm-bindgen crate in Cargo.lock (the two must match)
# with cargo, if they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-web/dist}"
target="${CARGO_TARGET_DIR:-target}"
version="$(grep -A1 '^name = "wasm-bindgen"$' Cargo.lock | sed -n 's/^version = "\(.*\)"$/\1/p')"

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi
if [ "$(wasm-bindgen --version 2>/dev/null | cut -d' ' -f2)" != "$version" ]; then
  # Not --locked: the command's own lock file names a crate version the
  # registry here does not hold; the newest compatible ones build it.
  cargo install wasm-bindgen-cli --version "$version"
fi

cargo build -p writ-web --target wasm32-unknown-unknown --release --locked
rm -rf "$out"
mkdir -p "$out/pkg"
wasm-bindgen --target web --no-typescript --out-dir "$out/pkg" \
  "$target/wasm32-unknown-unknown/release/writ_web.wasm"
cp web/static/*.html web/static/*.js web/static/*.css "$out/"
python3 web/tools/gather.py "$out/examples.json"
echo "built the playground in $out ($(du -sh "$out" | cut -f1))"
