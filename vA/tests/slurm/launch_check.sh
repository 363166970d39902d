#!/usr/bin/env bash
# The launch check under a real Slurm: `srun --mpi=none` starts an MPICH program
# as N separate one-rank jobs and no error; mutirao must stop every one of them
# with the hint `srun --mpi=pmi2`. The same command with --mpi=pmi2 must run as
# one job of N ranks.
#   launch_check.sh <mutirao binary> <source dir>
set -euo pipefail
mutirao=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
me=slurm_launch_check
# shellcheck source=tests/slurm/e2e_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"
SLURM_UP_QUIET=1 "$(dirname "${BASH_SOURCE[0]}")/slurm_up.sh"

set +e
timeout 120 srun --mpi=none -n 2 --overcommit "$mutirao" maxsub --n=100 --device=cpu \
    >"$work/none.out" 2>"$work/none.err"
rc=$?
set -e
[ $rc -ne 0 ] || err "srun --mpi=none: exit status 0"
hints=$(grep -c "srun --mpi=pmi2" "$work/none.err" || true)
[ "$hints" -eq 2 ] || err "srun --mpi=none: $hints of 2 tasks named the fix"
grep -q "^maxsub:" "$work/none.out" && err "srun --mpi=none: a task ran anyway"

timeout 120 srun --mpi=pmi2 -n 2 --overcommit "$mutirao" maxsub --n=100 --device=cpu \
    --summary="$work/s.json" >"$work/pmi2.out" 2>"$work/pmi2.err" || err "srun --mpi=pmi2 failed"
grep -q '"ranks":[[:space:]]*2' "$work/s.json" || err "srun --mpi=pmi2: not one job of 2 ranks"
[ "$fail" = 0 ] && echo "$me: ok"
exit "$fail"
