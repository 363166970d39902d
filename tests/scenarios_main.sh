#!/usr/bin/env bash
# The main job's scenarios entry (scripts/run_main.sh scenarios-6000): the
# study's 6000-leaf tree on the bundled record runs, and its answer row says
# 6031 nodes, 6000 leaves and leaf probabilities summing to 1.
source "$(dirname "$0")/lib.sh"
if ! out=$(cd "$SRCDIR" && MUTIRAO=$MUTIRAO MPIEXEC=$MPIEXEC NP=2 DEVICE=cpu OUT="$WORK/main" \
    bash scripts/run_main.sh scenarios-6000 2>&1); then
    echo "$out" >&2
    fail "run_main.sh scenarios-6000 failed"
fi
row=$(echo "$out" | grep '^scenarios-6000 ' || true)
case "$row" in
*"nodes=6031 leaves=6000 "*"leaf_probability_sum=1 "*) echo "ok: $row" ;; # 1 to 10 digits
*) fail "main job row: '$row'" ;;
esac
finish
