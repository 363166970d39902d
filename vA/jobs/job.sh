# Shared by the batch scripts in jobs/ (sourced; the script sets JOB, its name in
# messages): a run launched so that the time-limit signal reaches it, the exit
# status its ranks gave, and the job requeued after a checkpoint.
#
# Sets SUBMIT_DIR, MUTIRAO (build/mutirao of the submit folder, else PATH's), NP
# and LAUNCH (srun inside a job, mpiexec.mpich -n NP outside) unless given.
# The documented exit statuses: 0 done, 1 error, 2 not converged, 3 stopped
# after a checkpoint. With REQUEUE=1 (the default inside Slurm), a run stopped
# by the signal requeues the job (`scontrol requeue`, at most MAX_REQUEUE times)
# and the new instance resumes from the checkpoint; runs that ended before the
# stop are not run again.

SUBMIT_DIR=${SLURM_SUBMIT_DIR:-$PWD}
if [ -z "${MUTIRAO:-}" ]; then # the source tree's build, else the one on PATH
    if [ -x "$SUBMIT_DIR/build/mutirao" ]; then MUTIRAO=$SUBMIT_DIR/build/mutirao; else MUTIRAO=mutirao; fi
fi
NP=${NP:-${SLURM_NTASKS:-4}}
if [ -z "${LAUNCH:-}" ]; then # srun with Slurm's pmi2 plugin (MPICH); mpiexec outside a job
    if [ -n "${SLURM_JOB_ID:-}" ]; then
        LAUNCH="srun --mpi=pmi2 --kill-on-bad-exit=1"
    else
        LAUNCH="mpiexec.mpich -n $NP"
    fi
fi
if ! command -v "$MUTIRAO" >/dev/null 2>&1; then
    echo "$JOB: mutirao binary '$MUTIRAO' not found; set MUTIRAO=/path/to/mutirao" \
        "or build it in $SUBMIT_DIR/build" >&2
    exit 2
fi
REQUEUE=${REQUEUE:-1}        # 1: requeue the job after a checkpoint stop (inside Slurm)
MAX_REQUEUE=${MAX_REQUEUE:-5} # requeues at most, counted by SLURM_RESTART_COUNT
job_near_limit=0
job_pid=
job_skipped=0

# Slurm's --signal=B:USR1@T (or `scancel --batch --signal=USR1`) reaches this
# shell only: pass it to the run in progress (srun and mpiexec forward it to
# every rank), which writes its checkpoint and stops with status 3.
# JOB_FORWARD=0 (maxsub: no checkpoint) lets the run in progress go on.
JOB_FORWARD=${JOB_FORWARD:-1}
trap 'job_near_limit=1
      echo "$JOB: SIGUSR1: time limit near; no new runs" >&2
      [ "$JOB_FORWARD" = 0 ] || [ -z "$job_pid" ] || kill -USR1 "$job_pid" 2>/dev/null || true' USR1

# job_summary_status FILE: the exit_status a run wrote into its summary (empty if none).
job_summary_status() {
    [ -f "$1" ] || return 0
    sed -n 's/.*"exit_status":[[:space:]]*\([0-9][0-9]*\).*/\1/p' "$1" | head -n 1
}

# job_resumed NAME SUMMARY: true when this is a requeued instance and NAME ended
# (status 0) before the stop; it is then not run again.
job_resumed() {
    [ "${SLURM_RESTART_COUNT:-0}" -gt 0 ] && [ "$(job_summary_status "$2")" = 0 ] || return 1
    echo "$JOB: $1 ended before the requeue ($2); not run again"
}

# job_restart ASKED FILE: true when the checkpoint FILE exists and the user
# asked to resume (ASKED=1) or this instance is a requeue.
job_restart() {
    [ -f "$2" ] && { [ "$1" = 1 ] || [ "${SLURM_RESTART_COUNT:-0}" -gt 0 ]; }
}

# job_launch SUMMARY COMMAND...: runs COMMAND in the background (bash defers traps
# during a foreground command) and returns the run's exit status. MPICH's Hydra
# mpiexec exits 0 after it forwarded a signal even when the ranks exited 3, so a
# 0 from the launcher is checked against the summary the run wrote.
job_launch() {
    local summary=$1 rc ranks
    shift
    [ -z "$summary" ] || rm -f "$summary"
    "$@" &
    job_pid=$!
    while :; do
        rc=0
        wait "$job_pid" || rc=$?
        # Above 128 may be the trap interrupting wait: wait again while the
        # launcher lives (wait returns the remembered status once it is gone).
        if [ $rc -gt 128 ] && kill -0 "$job_pid" 2>/dev/null; then continue; fi
        break
    done
    job_pid=
    ranks=$(job_summary_status "$summary")
    if [ $rc -eq 0 ] && [ -n "$ranks" ] && [ "$ranks" != 0 ]; then
        echo "$JOB: the launcher exited 0 but the run's summary says $ranks; kept $ranks" >&2
        rc=$ranks
    fi
    return $rc
}

# job_skip NAME: true (and counted) when the time limit is near: NAME is not started.
job_skip() {
    [ "$job_near_limit" = 1 ] || return 1
    echo "$JOB: $1 skipped (time limit near)" >&2
    job_skipped=$((job_skipped + 1))
}

# job_stopped WHAT: a run stopped after its checkpoint: requeue the job (it
# resumes from the checkpoint) or exit 3 for the user to submit it again.
job_stopped() {
    echo "$JOB: $1 stopped after its checkpoint" >&2
    if [ -n "${SLURM_JOB_ID:-}" ] && [ "$REQUEUE" = 1 ]; then
        local count=${SLURM_RESTART_COUNT:-0}
        if [ "$count" -lt "$MAX_REQUEUE" ]; then
            echo "$JOB: requeueing job $SLURM_JOB_ID (requeue $((count + 1)) of at most" \
                "$MAX_REQUEUE); it resumes from the checkpoint" >&2
            # The requeue ends this instance; the exit below is for its failure.
            scontrol requeue "$SLURM_JOB_ID" && sleep 60
            echo "$JOB: scontrol requeue $SLURM_JOB_ID failed" >&2
        else
            echo "$JOB: requeued $count times already (MAX_REQUEUE=$MAX_REQUEUE)" >&2
        fi
    fi
    echo "$JOB: submit it again with the same OUTDIR to resume" >&2
    exit 3
}

# job_finish: the job's status once every run has been started or skipped.
job_finish() {
    if [ "$job_skipped" -gt 0 ]; then
        echo "$JOB: $job_skipped run(s) skipped near the time limit" >&2
        job_stopped "the job"
    fi
    exit 0
}
