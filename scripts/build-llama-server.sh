#!/usr/bin/env bash
# Build llama.cpp's llama-server from the source the npm package node-llama-cpp ships
# (llama/gitRelease.bundle), once per machine, into a per-user cache keyed by the bundle's hash.
# Prints the path of the binary on stdout; everything else goes to stderr.
#
#   scripts/build-llama-server.sh            # build if missing, print the path
#   RCA_ENGINE_CACHE=DIR scripts/...          # another cache folder
#
# Only `npm pack` is used (the tarball, not the package's prebuilt binaries), and Debian's cmake
# and g++ (installed when missing and we are root).
set -euo pipefail

VERSION="${NODE_LLAMA_CPP_VERSION:-3.21.1}"
CACHE="${RCA_ENGINE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rca/engine}"
JOBS="${JOBS:-$(nproc)}"
log() { printf 'build-llama-server: %s\n' "$*" >&2; }

mkdir -p "$CACHE/pack"
# One build per machine: a second caller (parallel CI jobs, two test runs) waits for the first
# and then finds the binary.
exec 9>"$CACHE/build.lock"
flock 9
tgz="$CACHE/pack/node-llama-cpp-$VERSION.tgz"
if [[ ! -s "$tgz" ]]; then
  log "fetching node-llama-cpp@$VERSION with npm pack"
  tmp=$(mktemp -d "$CACHE/pack/tmp.XXXXXX")
  (cd "$tmp" && npm pack --silent "node-llama-cpp@$VERSION" >/dev/null)
  mv "$tmp"/node-llama-cpp-*.tgz "$tgz"
  rm -rf "$tmp"
fi

src_dir="$CACHE/src-$VERSION"
if [[ ! -s "$src_dir/gitRelease.bundle" ]]; then
  rm -rf "$src_dir.tmp"; mkdir -p "$src_dir.tmp"
  tar -xzf "$tgz" -C "$src_dir.tmp" package/llama/gitRelease.bundle
  mv "$src_dir.tmp/package/llama/gitRelease.bundle" "$src_dir.tmp/gitRelease.bundle"
  rm -rf "$src_dir.tmp/package" "$src_dir"; mv "$src_dir.tmp" "$src_dir"
fi

hash=$(sha256sum "$src_dir/gitRelease.bundle" | cut -c1-16)
out="$CACHE/llama-server-$hash"
bin="$out/llama-server"
if [[ -x "$bin" ]]; then
  echo "$bin"
  exit 0
fi

for tool in cmake g++ git; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
      log "installing cmake g++ git from Debian"
      apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cmake g++ git >&2
      break
    fi
    log "$tool is missing: install cmake, g++ and git"; exit 2
  fi
done

work="$out.work"
rm -rf "$work"; mkdir -p "$work"
log "building llama-server (bundle $hash, $JOBS jobs; 10-15 minutes on 2 cores)"
start=$(date +%s)
git clone -q "$src_dir/gitRelease.bundle" "$work/llama.cpp" >&2
cmake -S "$work/llama.cpp" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON \
  -DBUILD_SHARED_LIBS=OFF >&2
cmake --build "$work/build" --target llama-server -j "$JOBS" >&2
mkdir -p "$out.tmp"
cp "$work/build/bin/llama-server" "$out.tmp/llama-server"
# The Python grammar converter, for the test that the exact schemas convert with both converters
# (the server itself is the C++ one).
cp "$work/llama.cpp/examples/json_schema_to_grammar.py" "$out.tmp/"
echo "$(( $(date +%s) - start ))" > "$out.tmp/build-seconds"
git -C "$work/llama.cpp" describe --tags --always > "$out.tmp/llama-cpp-version" 2>/dev/null || true
rm -rf "$out"; mv "$out.tmp" "$out"
rm -rf "$work"
log "built in $(cat "$out/build-seconds") s"
echo "$bin"
