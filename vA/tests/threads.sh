#!/bin/bash
# The host-thread rule (mu_threads_per_rank) on 1-4 ranks, with and without
# binding: the threads a rank uses are the CPUs of its affinity mask (counted
# here by nproc, not by the code) over the node's ranks that share the mask;
# OMP_NUM_THREADS and --threads win; SLURM_CPUS_PER_TASK is taken up to the
# rank's share. Read from the summary of a small scenarios tree and checked
# against the logged reason.
source "$(dirname "$0")/lib.sh"
IN=$SRCDIR/inputs/scenarios/ons_inflows_64.csv
CPUS=$(nproc)

# threads NP [ENV=V ...] -- [MPIEXEC FLAGS] -- [ARGS]: rank 0's threads_per_rank.
threads() {
    local np=$1 envs=() flags=() args=()
    shift
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    while [ "$1" != "--" ]; do flags+=("$1"); shift; done
    shift
    args=("$@")
    env "${envs[@]}" "$MPIEXEC" -n "$np" "${PREFLAGS[@]}" "${flags[@]}" "$MUTIRAO" scenarios \
        --input="$IN" --nstations=2 --tree=1,3,2 --m=16 --stats-series=0 "${args[@]}" \
        --summary="$WORK/t.json" >/dev/null 2>"$WORK/err" || { cat "$WORK/err" >&2; echo -1; return; }
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["threads_per_rank"])' "$WORK/t.json"
}

expect() { # NAME GOT WANT REASON-FRAGMENT
    if [ "$2" != "$3" ]; then
        fail "$1: $2 thread(s), want $3"
    elif ! grep -q -e "$4" "$WORK/err"; then
        fail "$1: the log does not give the reason '$4'"; grep "thread" "$WORK/err" >&2
    else
        echo "ok: $1: $2 thread(s)"
    fi
}

share() { local n=$((CPUS / $1)); echo $((n > 0 ? n : 1)); }

for np in 1 2 3 4; do
    expect "$np rank(s), unbound" "$(threads "$np" -- -- )" "$(share "$np")" \
        "shared by $np rank(s) of the node"
done
# Bound one rank a core: each mask is its own CPU (ranks beyond the cores share one).
expect "2 ranks bound to cores" "$(threads 2 -- -bind-to core -- )" 1 "1 CPU(s) in the rank's affinity mask"
expect "OMP_NUM_THREADS=3" "$(threads 2 OMP_NUM_THREADS=3 -- -- )" 3 "OMP_NUM_THREADS=3"
expect "--threads=5" "$(threads 1 OMP_NUM_THREADS=3 -- -- --threads=5)" 5 "--threads=5"
expect "SLURM_CPUS_PER_TASK=1" "$(threads 1 SLURM_CPUS_PER_TASK=1 -- -- )" 1 "SLURM_CPUS_PER_TASK=1"
expect "SLURM_CPUS_PER_TASK=64, 1 rank" "$(threads 1 SLURM_CPUS_PER_TASK=64 -- -- )" "$CPUS" \
    "SLURM_CPUS_PER_TASK=64"
expect "OMP_NUM_THREADS=junk ignored" "$(threads 1 OMP_NUM_THREADS=2x -- -- )" "$CPUS" \
    "shared by 1 rank(s)"
finish
