#!/usr/bin/env bash
# Configure (the first time, or whenever arguments are given) and build mutirao.
#   scripts/build.sh [cmake options...]      e.g. -DMUTIRAO_CUDA=OFF
# MUTIRAO_BUILD_DIR picks the build folder (default: build).
# CUDA is built when a CUDA compiler is found (MUTIRAO_CUDA=AUTO): nvcc on PATH,
# $CUDACXX, or /usr/local/cuda/bin/nvcc, so the result does not hang on PATH.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=${MUTIRAO_BUILD_DIR:-build}

if [ ! -f "$build/CMakeCache.txt" ] || [ $# -gt 0 ]; then
    if [ -z "${CUDACXX:-}" ] && ! command -v nvcc >/dev/null 2>&1 &&
        [ -x /usr/local/cuda/bin/nvcc ]; then
        export CUDACXX=/usr/local/cuda/bin/nvcc
    fi
    cmake -S . -B "$build" -DMPI_EXECUTABLE_SUFFIX=.mpich "$@"
fi
cmake --build "$build" -j "$(nproc)"
