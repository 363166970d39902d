#!/usr/bin/env bash
# The test command: builds build/ when needed (scripts/build.sh), then runs every
# ctest test. Arguments go to ctest, e.g. scripts/test.sh -L slurm, -LE slurm.
# MUTIRAO_BUILD_DIR picks the build folder (default: build).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/build.sh
exec ctest --test-dir "${MUTIRAO_BUILD_DIR:-build}" --output-on-failure -j "${CTEST_JOBS:-2}" "$@"
