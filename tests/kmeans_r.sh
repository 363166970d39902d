#!/bin/bash
# Hartigan-Wong (workloads/scenarios/kmeans_hw.c) against R's
# kmeans(x, centers = <matrix>, algorithm = "Hartigan-Wong") from the same
# starting centres: tests/kmeans_r.R writes the data sets and R's results,
# test_kmeans --r compares assignments (exactly), centres and within sums of
# squares (1e-12 relative), iteration counts and ifault. Usage: kmeans_r.sh
# TEST_KMEANS. Exit 77 (skipped) without Rscript.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v Rscript > /dev/null; then
    echo "Rscript not found (apt-get install r-base-core): skipped"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kmeans_r.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
Rscript "$here/kmeans_r.R" "$tmp"
"$1" --r "$tmp"
