#!/usr/bin/env bash
# End-to-end: jobs/fuzzy.sbatch through the local Slurm on 4 ranks.
#
#   e2e_fuzzy.sh <mutirao binary> <source dir> [mpiexec]
# MPIEXEC_PREFLAGS (;-separated) go to the 1-rank reference runs.
#
# 1. The bundled Ruspini set in exact mode: 4 prototypes, and the prototypes,
#    memberships and labels identical to a 1-rank CPU run made here with
#    mpiexec, outside Slurm.
# 2. Generated blobs (Philox, fixed seed) in partitioned mode with p = 3 (not a
#    multiple of the 4 ranks): 3 prototypes, identical to the 1-rank run.
# 3. The summaries say 4 ranks, the job log has one result line per run, and the
#    PNG scatter was drawn when gnuplot is installed.
# Exit 77 (ctest: skipped) when Slurm is not installed, unless
# MUTIRAO_REQUIRE_SLURM=1 (CI) makes that a failure. KEEP=1 keeps the workdir.
set -euo pipefail

# shellcheck source=tests/slurm/e2e_args.sh
source "$(dirname "${BASH_SOURCE[0]}")/e2e_args.sh"

# shellcheck source=tests/slurm/e2e_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

job_env
job_input fuzzy/ruspini.csv ruspini.csv
export GEN_N=${E2E_GEN_N:-2001}
export SEED=${E2E_SEED:-2017}
export MODE=exact
export GEN_MODE=partitioned
export PARTITIONS=3
export DEVICE=auto
export PLOT=auto
unset LABEL_COLUMN R_NORM ZSCORE EPS1 EPS2 MAX_IT MERGE K THRESHOLD FUZZY_ARGS LAUNCH NP

submit fuzzy --time=5

# The 1-rank references, outside Slurm.
ref() { # name, fuzzy options...
    local name=$1
    shift
    outside_slurm fuzzy --device=cpu --output-prefix="$work/ref_$name-" "$@" \
        >"$work/ref_$name.log" 2>&1 || {
        cat "$work/ref_$name.log" >&2
        err "$name: the 1-rank reference run failed"
    }
}
ref fuzzy_input --input="$INPUT" --mode=exact
ref fuzzy_gen --gen=blobs --n="$GEN_N" --seed="$SEED" --mode=partitioned --partitions=3

for pair in fuzzy_input:4 fuzzy_gen:3; do
    name=${pair%%:*}
    want=${pair#*:}
    if [ ! -f "$OUTDIR/$name.csv" ]; then
        err "$name: no $OUTDIR/$name.csv"
        continue
    fi
    got=$(($(wc -l <"$OUTDIR/$name.csv") - 1))
    [ "$got" = "$want" ] || err "$name: $got prototypes, expected $want"
    cmp -s "$OUTDIR/$name.csv" "$OUTDIR/$name-prototypes.csv" ||
        err "$name: --output and --output-prefix prototypes differ"
    same=1
    for f in prototypes memberships labels raw dendrogram; do
        if ! cmp -s "$work/ref_$name-$f.csv" "$OUTDIR/$name-$f.csv"; then
            err "$name: $f.csv on 4 ranks under Slurm differs from 1 CPU rank"
            same=0
        fi
    done
    [ $same = 0 ] || echo "e2e_fuzzy: ok: $name: $got prototypes, identical on 4 ranks and 1"
    summary_shows "$OUTDIR/$name.json" prototypes "$want" "$name"
    png_drawn "$OUTDIR/$name.png" "$name: no PNG scatter"
done

# Rank 0's one-line result for each run must be in the job log.
job_log_count '^fuzzy: ' 2 "'fuzzy: ' lines in the job log (one per run)"

e2e_end
