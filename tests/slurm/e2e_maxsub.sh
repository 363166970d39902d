#!/usr/bin/env bash
# End-to-end: jobs/maxsub.sbatch through the local Slurm on 4 ranks.
#
#   e2e_maxsub.sh <mutirao binary> <source dir> [mpiexec]
# MPIEXEC_PREFLAGS (;-separated) go to the 1-rank reference run.
#
# 1. The study's 1-D example and 5x5 matrix, from text files: the CSVs must hold
#    exactly the known answers, and the summaries must say 4 ranks.
# 2. Generated data (Philox, fixed seed): the 4-rank answers under Slurm must be
#    identical to a 1-rank CPU run made here with mpiexec, outside Slurm.
# Exit 77 (ctest: skipped) when Slurm is not installed, unless
# MUTIRAO_REQUIRE_SLURM=1 (CI) makes that a failure. KEEP=1 keeps the workdir.
set -euo pipefail

# shellcheck source=tests/slurm/e2e_args.sh
source "$(dirname "${BASH_SOURCE[0]}")/e2e_args.sh"

# shellcheck source=tests/slurm/e2e_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

# The study's examples (da Luz 2013, sections 1.2 and 1.3).
echo "3 5 10 -5 -30 5 7 2 -3 10 -7 5" >"$work/in1d.txt"
cat >"$work/in2d.txt" <<'M'
-10 -10 20 -20 -30
5 -20 10 40 10
30 -40 20 -10 -15
-20 4 -5 50 10
10 -20 10 -40 10
M

job_env
export INPUT1D=$work/in1d.txt
export INPUT2D=$work/in2d.txt
export N1=${E2E_N1:-100003} # not a multiple of 4: uneven shards
export N2=${E2E_N2:-61}
export SEED=${E2E_SEED:-20130}
export GEN=philox
export DEVICE=auto
unset EMPTY MAXSUB_ARGS LAUNCH NP

submit maxsub --time=5

# expect <csv> <header> <row>: the file holds exactly these two lines.
expect() {
    local f=$OUTDIR/$1.csv got
    if [ ! -f "$f" ]; then
        err "$1: no $f"
        return
    fi
    got=$(tr -d '\r' <"$f")
    if [ "$got" != "$2"$'\n'"$3" ]; then
        err "$1: expected '$2 / $3', got: $(printf '%s' "$got" | tr '\n' '/')"
    else
        echo "e2e_maxsub: ok: $1 = $3"
    fi
}
expect maxsub1d_input "sum,start,end" "21,5,9"
expect maxsub2d_input "sum,row0,row1,col0,col1" "110,1,3,2,4"

# Each summary must say the run had 4 ranks (a "ranks" key anywhere in the JSON).
for name in maxsub1d_input maxsub2d_input maxsub1d_gen maxsub2d_gen; do
    if python3 - "$OUTDIR/$name.json" <<'PY'; then
import json, sys

def find(d):
    if isinstance(d, dict):
        if "ranks" in d:
            return d["ranks"]
        for v in d.values():
            r = find(v)
            if r is not None:
                return r
    elif isinstance(d, list):
        for v in d:
            r = find(v)
            if r is not None:
                return r
    return None

try:
    with open(sys.argv[1]) as f:
        ranks = find(json.load(f))
except (OSError, ValueError) as e:
    sys.exit(f"{sys.argv[1]}: {e}")
if ranks != 4:
    sys.exit(f"{sys.argv[1]}: \"ranks\" is {ranks!r}, expected 4")
PY
        echo "e2e_maxsub: ok: $name ran on 4 ranks"
    else
        err "$name: summary does not show 4 ranks"
    fi
done

# Generated data: 4 ranks under Slurm == 1 rank on the CPU outside Slurm.
for dim in 1 2; do
    name=maxsub${dim}d_gen
    n=$N1
    [ $dim = 1 ] || n=$N2
    ref=$work/ref${dim}d.csv
    if ! outside_slurm maxsub --dim=$dim --n="$n" --seed="$SEED" --gen="$GEN" \
        --device=cpu --output="$ref" >"$work/ref${dim}d.log" 2>&1; then
        cat "$work/ref${dim}d.log" >&2
        err "$name: the 1-rank reference run failed"
        continue
    fi
    if [ ! -f "$OUTDIR/$name.csv" ]; then
        err "$name: no $OUTDIR/$name.csv"
    elif ! cmp -s "$ref" "$OUTDIR/$name.csv"; then
        err "$name: 4 ranks under Slurm and 1 CPU rank differ:"
        diff "$ref" "$OUTDIR/$name.csv" >&2 || true
    else
        echo "e2e_maxsub: ok: $name identical on 4 ranks and 1 ($(sed -n 2p "$ref"))"
    fi
done

# Rank 0's one-line result for each run must be in the job log.
job_log_count '^maxsub: ' 4 "'maxsub: ' lines in the job log (one per run)"

e2e_end
