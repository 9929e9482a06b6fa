#!/usr/bin/env bash
# Builds bench/wasm-probe/ner-probe.wasm from ner-probe.as with AssemblyScript 0.28.20 (from npm,
# not a dependency of rca: the probe is a measurement, not part of the product).
# --check: build to a scratch file and compare it with the committed one.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# asc takes .ts entry files only; the source keeps another name so tsc never reads it.
cp "$here/ner-probe.as" "$tmp/ner-probe.ts"
out="$here/ner-probe.wasm"
[ "${1:-}" = "--check" ] && out="$tmp/ner-probe.wasm"
(cd "$tmp" && npx --yes -p assemblyscript@0.28.20 asc ner-probe.ts -O3 --runtime stub --noAssert --initialMemory 2 -o "$out")
if [ "${1:-}" = "--check" ]; then
  cmp "$out" "$here/ner-probe.wasm" && echo "ner-probe.wasm is what ner-probe.as builds to"
fi
