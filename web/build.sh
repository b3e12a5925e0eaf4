#!/usr/bin/env bash
# Builds the vkmm playground (docs/playground.md) into target/playground/:
#
#   web/build.sh            # the page; open target/playground/index.html
#                           # or serve that folder with any static server
#
# Needs: the rustup target wasm32-unknown-unknown, wasm-bindgen-cli of the
# exact version web/Cargo.toml pins (installed here when missing: a few
# minutes, once), node and npm (Viz.js, from the npm registry).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
target=${CARGO_TARGET_DIR:-$root/target}
out=${PLAYGROUND_OUT:-$root/target/playground}

# The wasm-bindgen version the crate pins (`=X.Y.Z`): the CLI must match it.
version=$(sed -n 's/^wasm-bindgen = "=\([0-9.]*\)"/\1/p' web/Cargo.toml)
if [ -z "$version" ]; then
  echo "web/build.sh: cannot read the pinned wasm-bindgen version from web/Cargo.toml" >&2
  exit 2
fi
if ! command -v rustup >/dev/null 2>&1 || ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  echo "== rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$version" ]; then
  echo "== cargo install wasm-bindgen-cli --version $version (once; a few minutes)"
  cargo install wasm-bindgen-cli --version "$version"
fi

echo "== cargo build -p vkmm-web --profile web --target wasm32-unknown-unknown"
cargo build -p vkmm-web --profile web --target wasm32-unknown-unknown

echo "== wasm-bindgen --target no-modules"
pkg=$target/playground-pkg
rm -rf "$pkg"
wasm-bindgen --target no-modules --no-typescript --out-dir "$pkg" \
  "$target/wasm32-unknown-unknown/web/vkmm_web.wasm"

echo "== npm ci (Viz.js; web/package-lock.json)"
if [ ! -d web/node_modules/@viz-js/viz ]; then
  (cd web && npm ci --no-audit --no-fund)
fi

echo "== assembling $out"
rm -rf "$out"
node web/tools/assemble.mjs "$pkg" "$out"
echo "open $out/index.html, or serve it: python3 -m http.server -d $out"
