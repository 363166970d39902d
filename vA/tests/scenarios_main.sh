#!/usr/bin/env bash
# The main job's scenarios entry (scripts/run_main.sh scenarios-6000): the
# study's 6000-leaf tree on the bundled record runs, and its answer row says
# 6031 nodes, 6000 leaves, leaf probabilities summing to 1 and, with the
# default centroid representatives, stage means equal to those of the
# scenarios the nodes generated (tree_node_mean_rel below 1e-12; the study's
# nearest representatives gave 0.44 there).
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
d=$(echo "$row" | sed -n 's/.*tree_node_mean_rel=\([^ ]*\).*/\1/p')
if [ -n "$d" ] && awk -v d="$d" 'BEGIN { exit !(d < 1e-12) }'; then
    echo "ok: the tree keeps its nodes' generated means (tree_node_mean_rel=$d)"
else
    fail "main job row: tree_node_mean_rel '$d', want < 1e-12"
fi
finish
