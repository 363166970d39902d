#!/usr/bin/env bash
# How well each form of representative keeps the statistics of what a tree
# stands for: the study's tree (inputs/scenarios/study_6000.ini: 1 -> 30 -> 200,
# M = 1024, seed 2016) on the first 4, 16 and 64 stations of the bundled
# record, under --representative=nearest, centroid and scaled, with the
# statistics report on SERIES series (default 5000: with the command's 500 the
# sample's own error reaches 20 % of a stage mean on 64 stations); one Markdown
# table of the worst differences from each run's summary (mutirao scenarios
# --summary, keys tree_*).
#   perf/tree_stats.sh [stations...]     default: 4 16 64
# Environment: MUTIRAO (default build/mutirao), SERIES, REPS (default "nearest centroid
# scaled"), OUT (default out/tree_stats), EXTRA (more options for every run).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
MUTIRAO=${MUTIRAO:-build/mutirao}
REPS=${REPS:-nearest centroid scaled}
OUT=${OUT:-out/tree_stats}
SERIES=${SERIES:-5000}
read -r -a extra <<<"${EXTRA:-}"
[ $# -gt 0 ] || set -- 4 16 64
mkdir -p "$OUT"
for n in "$@"; do
    for r in $REPS; do
        p="$OUT/st$n-$r"
        t0=$(date +%s.%N)
        "$MUTIRAO" scenarios --config=inputs/scenarios/study_6000.ini --device=cpu \
            --nstations="$n" --representative="$r" --stats="$p-stats.csv" --stats-series="$SERIES" \
            --stats-years=1 \
            --summary="$p.json" ${extra[@]+"${extra[@]}"} >"$p.log" 2>&1 ||
            { tail -n 5 "$p.log" >&2; exit 1; }
        t1=$(date +%s.%N)
        awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }' >"$p.time"
    done
done
python3 - "$OUT" "$REPS" "$@" <<'PY'
import json, sys
out, reps, stations = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
cols = [("tree_node_mean_rel", "mean vs parents' scenarios"),
        ("tree_sample_mean_rel", "mean vs sample"), ("tree_sample_std_rel", "std vs sample"),
        ("tree_sample_lag1_abs", "lag-1 vs sample"), ("tree_sample_corr_abs", "cross-corr vs sample"),
        ("tree_hist_mean_rel", "mean vs record"), ("tree_hist_std_rel", "std vs record")]
print("| stations | representative | " + " | ".join(c[1] for c in cols) + " | wall s |")
print("|---|---|" + "---|" * (len(cols) + 1))
for n in stations:
    for r in reps:
        p = f"{out}/st{n}-{r}"
        res = json.load(open(p + ".json"))["result"]
        cells = ["%.2e" % res[k] if k == "tree_node_mean_rel" else "%.4f" % res[k] for k, _ in cols]
        print(f"| {n} | {r} | " + " | ".join(cells) + f" | {open(p + '.time').read().strip()} |")
PY
