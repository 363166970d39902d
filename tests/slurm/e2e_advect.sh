#!/usr/bin/env bash
# End-to-end: jobs/advect.sbatch through the local Slurm on 4 ranks, on the
# bundled rotation deck (the job's default deck is the study's 336 x 336 x 38
# case, too large for a test), with HDF5 fields at two steps when the build
# has parallel HDF5.
#
#   e2e_advect.sh <mutirao binary> <source dir> [mpiexec]
#
# 1. The final fields under Slurm (4 ranks, srun --mpi=pmi2) are bitwise those
#    of a 1-rank run made here with mpiexec, outside Slurm.
# 2. The summary says 4 ranks and the steps; the job log has one result line
#    per field; the PNG slices were drawn when gnuplot is installed.
# Exit 77 (ctest: skipped) when Slurm is not installed, unless
# MUTIRAO_REQUIRE_SLURM=1 (CI) makes that a failure. KEEP=1 keeps the workdir.
set -euo pipefail

# shellcheck source=tests/slurm/e2e_args.sh
source "$(dirname "${BASH_SOURCE[0]}")/e2e_args.sh"

# shellcheck source=tests/slurm/e2e_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

job_env
export DECK=$src/inputs/advect/rotation.ini
export STEPS=40
export DEVICE=auto
export PLOT=auto
export ADVECT_ARGS="--nx=48 --ny=48"
unset SCHEDULE CHECKPOINT_EVERY RESTART LAUNCH NP OUTPUT_STEPS

submit advect --time=5 --ntasks=4

outside_slurm advect --device=cpu --config="$DECK" --steps=$STEPS $ADVECT_ARGS --schedule=lines \
    --dump="$work/ref.bin" >"$work/ref.log" 2>&1 || {
    cat "$work/ref.log" >&2
    err "the 1-rank reference run failed"
}
if cmp -s "$work/ref.bin" "$OUTDIR/advect.bin"; then
    echo "e2e_advect: ok: final fields on 4 ranks under Slurm (dataflow) = 1 rank (lines), bitwise"
else
    err "final fields under Slurm differ from the 1-rank run"
fi
summary_shows "$OUTDIR/advect.json" steps "$STEPS"
job_log_count '^advect: field ' 2 "'advect: field' lines in the job log"
for tag in start end; do
    png_drawn "$OUTDIR/advect-$tag.png" "no advect-$tag.png"
done
e2e_end
