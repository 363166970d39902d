#!/usr/bin/env bash
# End-to-end: jobs/scenarios.sbatch through the local Slurm on 4 ranks.
#
#   e2e_scenarios.sh <mutirao binary> <source dir> [mpiexec]
# MPIEXEC_PREFLAGS (;-separated) go to the 1-rank reference run.
#
# 1. The bundled 64-station record, a reduced tree 1 -> 10 -> 8 with M = 512
#    (the job's default is the study's 1 -> 30 -> 200, M = 1024) and a comb of
#    300 series: tree.csv, tree.json, model.json, stats.csv and comb.csv exist.
# 2. The tree and the comb are byte-identical to a 1-rank CPU run made here with
#    mpiexec, outside Slurm; the tree passes tests/scenarios_check.py.
# 3. The summary says 4 ranks, the job log has the result line, and the PNG fan
#    was drawn when gnuplot is installed.
# Exit 77 (ctest: skipped) when Slurm is not installed, unless
# MUTIRAO_REQUIRE_SLURM=1 (CI) makes that a failure. KEEP=1 keeps the workdir.
set -euo pipefail

# shellcheck source=tests/slurm/e2e_args.sh
source "$(dirname "${BASH_SOURCE[0]}")/e2e_args.sh"

# shellcheck source=tests/slurm/e2e_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

job_env
job_input scenarios/ons_inflows_64.csv record.csv
export TREE=1,10,8 M=512 SEED=99 METHOD=v2 NSTATIONS=64 SKIP_ZERO=1 STATIONS=all
export COMB_SERIES=300 HORIZON=6 DEVICE=auto PLOT=auto
unset START PMAX SCEN_ARGS LAUNCH NP

submit scenarios --time=5

common=(--input="$INPUT" --nstations=64 --skip-zero --m=512 --seed=99 --method=v2 --device=cpu)
outside_slurm scenarios "${common[@]}" --tree=1,10,8 --output="$work/ref_tree.csv" \
    >"$work/ref_tree.log" 2>&1 || { cat "$work/ref_tree.log" >&2; err "1-rank reference tree failed"; }
outside_slurm scenarios "${common[@]}" --mode=comb --series=300 --horizon=6 --stats-series=0 \
    --output="$work/ref_comb.csv" >"$work/ref_comb.log" 2>&1 ||
    { cat "$work/ref_comb.log" >&2; err "1-rank reference comb failed"; }

for f in tree.csv tree.json model.json stats.csv comb.csv; do
    [ -s "$OUTDIR/$f" ] || err "no $OUTDIR/$f"
done
for what in tree comb; do
    if cmp -s "$work/ref_$what.csv" "$OUTDIR/$what.csv"; then
        echo "e2e_scenarios: ok: $what on 4 ranks under Slurm identical to 1 CPU rank"
    else
        err "$what.csv on 4 ranks under Slurm differs from 1 CPU rank"
    fi
done
if out=$(python3 "$src/tests/scenarios_check.py" "$OUTDIR/tree.csv"); then
    echo "e2e_scenarios: ok: $out"
else
    err "tree check: $out"
fi
[ "$(($(wc -l <"$OUTDIR/tree.csv") - 1))" = 91 ] || err "tree.csv: expected 91 nodes (1 + 10 + 80)"
summary_shows "$OUTDIR/tree-summary.json" leaves 80
png_drawn "$OUTDIR/tree.png" "no PNG fan"
grep -q '^scenarios: tree 1,10,8: 91 nodes, 80 leaves' "$(job_log)" 2>/dev/null ||
    err "the job log lacks the tree's result line"

e2e_end
