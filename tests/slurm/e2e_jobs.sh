#!/usr/bin/env bash
# End-to-end: what jobs/job.sh gives every batch script, through the local Slurm.
#
#   e2e_jobs.sh <mutirao binary> <source dir> [mpiexec]
#
# 1. Requeue by signal: jobs/advect.sbatch on 2 tasks is sent SIGUSR1 twice, once
#    to the batch shell (`scancel --batch`, as --signal=B:USR1@T does) and once to
#    the job step only (the ranks get it from srun, srun exits 3). Each time the
#    ranks checkpoint, the job requeues itself and the next instance resumes; the
#    third ends COMPLETED 0:0 with Restarts=2 and the final fields of an
#    uninterrupted 1-rank run outside Slurm, byte for byte.
# 2. The signal through MPICH's mpiexec, outside Slurm: the script run by bash,
#    SIGUSR1 to it; it exits 3 (Hydra itself exits 0 after forwarding a signal),
#    and run again it resumes to the same bytes.
# 3. GPU headers: `sbatch jobs/gpu.sbatch maxsub` is accepted and gets one GPU a
#    task of the test cluster's two stand-in GPUs; with DEVICE=auto it answers as
#    the CPU does, with its default DEVICE=gpu it fails and says why.
# 4. A job array: jobs/sweep.sbatch over NX = 8 12 16 of cg's Poisson run; each
#    task's iteration count is that of a 1-rank run outside Slurm.
# Requeued jobs wait 2 minutes (Slurm's begin time); the test releases them.
set -euo pipefail
# shellcheck source=tests/slurm/e2e_args.sh
source "$(dirname "${BASH_SOURCE[0]}")/e2e_args.sh"
# shellcheck source=tests/slurm/e2e_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"
SLURM_UP_QUIET=1 "$src/tests/slurm/slurm_up.sh"

export MUTIRAO=$mutirao MUTIRAO_PROGRESS_SECONDS=1 PLOT=0
unset LAUNCH NP OUTDIR REQUEUE MAX_REQUEUE DEVICE
deck=$src/inputs/advect/rotation.ini
grid=(--nx=96 --ny=96)

# wait_for FILE PATTERN COUNT [AFTER]: until FILE has COUNT lines matching
# PATTERN (after the last line matching AFTER, when given); 120 s at most.
wait_for() {
    local t=0 n
    while :; do
        if [ -n "${4:-}" ]; then
            n=$(P=$2 A=$4 awk '$0 ~ ENVIRON["A"] { n = 0; on = 1 }
                on && $0 ~ ENVIRON["P"] { n++ } END { print n + 0 }' "$1" 2>/dev/null || true)
        else
            n=$(grep -c -e "$2" "$1" 2>/dev/null || true)
        fi
        [ "${n:-0}" -lt "$3" ] || return 0
        [ $t -lt 1200 ] || return 1
        sleep 0.1
        t=$((t + 1))
    done
}
job_field() { scontrol show job -o "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1; }
# wait_state JOB STATE...: until the job is in one of the states (120 s at most).
wait_state() {
    local id=$1 st t=0
    shift
    while [ $t -lt 1200 ]; do
        st=$(job_field "$id" JobState)
        for want in "$@"; do [ "$st" != "$want" ] || return 0; done
        sleep 0.1
        t=$((t + 1))
    done
    err "job $id: state $st after 120 s, expected $*"
    return 1
}
# release JOB: a requeued job waits for its begin time; start it now, once the
# last instance's step daemons are gone (the new instance's step has the same
# id, and srun's PMI-2 set-up fails if it meets the old step's daemon).
release() {
    local t=0
    wait_state "$1" PENDING || return 1
    while pgrep -f "slurmstepd: \[$1\." >/dev/null && [ $t -lt 300 ]; do
        sleep 0.1
        t=$((t + 1))
    done
    sleep 1
    scontrol update JobId="$1" StartTime=now
}

"$mpiexec" -n 1 ${preflags[@]+"${preflags[@]}"} "$mutirao" advect --config="$deck" "${grid[@]}" \
    --dump="$work/ref.bin" --log=error >/dev/null

# ---- 1. requeue by signal ------------------------------------------------------------
out=$work/rq.out
id=$(OUTDIR=$work/rq DECK=$deck ADVECT_ARGS="${grid[*]}" sbatch --parsable --export=ALL -n 2 \
    --time=10 --chdir="$work" --output="$out" "$src/jobs/advect.sbatch")
if wait_for "$out" '\] step [1-9]' 1; then
    scancel --batch --signal=USR1 "$id"
    if release "$id" && wait_for "$out" '\] step [1-9]' 1 'resuming from'; then
        # The second time the steps only: srun passes it to the ranks.
        while [ "$(grep -c 'requeueing job' "$out")" -lt 2 ] &&
            [ "$(job_field "$id" JobState)" = RUNNING ]; do
            scancel --signal=USR1 "$id" 2>/dev/null || true
            sleep 0.5
        done
        release "$id" && wait_state "$id" COMPLETED FAILED CANCELLED TIMEOUT || true
    fi
else
    err "requeue: the job never reached its steps"
fi
st=$(job_field "$id" JobState) restarts=$(job_field "$id" Restarts) code=$(job_field "$id" ExitCode)
echo "$me: requeue: job $id $st, exit code $code, $restarts restart(s)"
[ "$st" = COMPLETED ] && [ "$code" = 0:0 ] || err "requeue: job ended $st $code"
[ "$restarts" = 2 ] || err "requeue: $restarts restarts, expected 2"
[ "$(grep -c 'requeueing job' "$out")" = 2 ] || err "requeue: not requeued twice by the job"
grep -e 'Exited with exit code 3' "$out" >/dev/null || err "requeue: srun did not pass the ranks' 3"
if cmp -s "$work/ref.bin" "$work/rq/advect.bin"; then
    echo "$me: ok: stopped twice, requeued twice, the same bytes as one uninterrupted rank"
else
    err "requeue: the final fields differ from the uninterrupted run"
fi
[ $fail = 0 ] || cat "$out"

# ---- 2. the signal through mpiexec.mpich, outside Slurm --------------------------------
hy=$work/hydra
(
    unset SLURM_JOB_ID
    OUTDIR=$hy DECK=$deck ADVECT_ARGS="${grid[*]}" NP=2 exec bash "$src/jobs/advect.sbatch"
) >"$work/hy1.out" 2>&1 &
pid=$!
rc=0
if wait_for "$work/hy1.out" '\] step [1-9]' 1; then kill -USR1 $pid; fi
wait $pid || rc=$?
if [ $rc = 3 ] && [ -s "$hy/advect.ckpt" ]; then
    echo "$me: ok: SIGUSR1 to the script around mpiexec.mpich: exit status 3, a checkpoint"
else
    err "mpiexec: exit status $rc (expected 3) or no checkpoint"
    cat "$work/hy1.out"
fi
rc=0
(
    unset SLURM_JOB_ID
    OUTDIR=$hy DECK=$deck ADVECT_ARGS="${grid[*]}" NP=2 exec bash "$src/jobs/advect.sbatch"
) >"$work/hy2.out" 2>&1 || rc=$?
if [ $rc = 0 ] && grep -e 'resuming from' "$work/hy2.out" >/dev/null &&
    cmp -s "$work/ref.bin" "$hy/advect.bin"; then
    echo "$me: ok: run again, it resumed to the same bytes"
else
    err "mpiexec: the second run (exit status $rc) did not resume to the same bytes"
fi

# ---- 3. GPU headers ------------------------------------------------------------------
maxsub_env=(N1=100000 N2=0 SEED=5)
ref=$("$mpiexec" -n 1 ${preflags[@]+"${preflags[@]}"} "$mutirao" maxsub --n=100000 --seed=5 \
    --log=error --output="$work/ms.csv" >/dev/null && sed -n 2p "$work/ms.csv")
for device in auto gpu; do
    o=$work/gpu-$device
    jid=$(env "${maxsub_env[@]}" DEVICE=$device OUTDIR="$o" sbatch --parsable --export=ALL -n 2 \
        --time=5 --chdir="$work" --output="$o.out" "$src/jobs/gpu.sbatch" maxsub)
    wait_state "$jid" COMPLETED FAILED CANCELLED TIMEOUT || true
    code=$(job_field "$jid" ExitCode)
    tres=$(job_field "$jid" TresPerTask)
    [ "$tres" = gres:gpu:1 ] || err "gpu.sbatch ($device): TresPerTask '$tres', expected gres:gpu:1"
    if [ $device = auto ]; then
        got=$(sed -n 2p "$o/maxsub1d_gen.csv" 2>/dev/null || true)
        [ "$code" = 0:0 ] && [ -n "$ref" ] && [ "$got" = "$ref" ] ||
            err "gpu.sbatch with DEVICE=auto: exit code $code, answer '$got', CPU '$ref'"
    elif [ "$code" = 0:0 ] || ! grep -e "CUDA" "$o.out" >/dev/null; then
        err "gpu.sbatch with DEVICE=gpu on no CUDA device: exit code $code, no message naming CUDA"
    fi
    [ $fail = 0 ] || cat "$o.out"
done
[ $fail = 0 ] && echo "$me: ok: gpu.sbatch accepted, one GPU a task; auto = CPU answer; gpu refused"

# ---- 4. a job array ------------------------------------------------------------------
sw=$work/sweep
aid=$(WORKLOAD=cg PARAM=NX VALUES="8 12 16" MATRIX= PETSC=0 POISSON=3d7 OUTDIR=$sw \
    sbatch --parsable --export=ALL --array=0-2 -n 2 --time=5 --chdir="$work" \
    --output="$work/sweep-%a.out" "$src/jobs/sweep.sbatch")
for t in $(seq 1 1200); do
    squeue -h -j "$aid" 2>/dev/null | grep -e . >/dev/null || break
    sleep 0.1
done
for nx in 8 12 16; do
    want=$("$mpiexec" -n 1 ${preflags[@]+"${preflags[@]}"} "$mutirao" cg --poisson=3d7 --nx=$nx \
        --rhs=Aones --pc=jacobi --rtol=1e-8 --device=cpu --log=error --summary="$work/s$nx.json" \
        >/dev/null && sed -n 's/.*"iterations":[[:space:]]*\([0-9]*\).*/\1/p' "$work/s$nx.json")
    got=$(sed -n 's/.*"iterations":[[:space:]]*\([0-9]*\).*/\1/p' "$sw/NX-$nx/cg_poisson.json" \
        2>/dev/null || true)
    if [ -n "$want" ] && [ "$got" = "$want" ]; then
        echo "$me: ok: array task NX=$nx: $got iterations, as one rank outside Slurm"
    else
        err "array task NX=$nx: '$got' iterations, expected '$want'"
        cat "$work"/sweep-*.out
    fi
done
exit $fail
