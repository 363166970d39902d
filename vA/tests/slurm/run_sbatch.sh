#!/usr/bin/env bash
# Submit a batch script to the local one-node Slurm and wait for it.
#
#   run_sbatch.sh <script.sbatch> <workdir> [extra sbatch args...]
#
# Starts Slurm if needed (slurm_up.sh, or RUN_SBATCH_UP), submits with --chdir=<workdir> and the
# job's output in <workdir>/slurm-<jobid>.out (extra args come last, so they may
# override both), polls the job every 0.5 s, prints its output file, and exits 0
# only when the job ends COMPLETED with exit code 0:0.
# RUN_SBATCH_TIMEOUT (seconds, default 300): the job is cancelled after that.
set -euo pipefail

if [ $# -lt 2 ]; then
    echo "usage: $0 <script.sbatch> <workdir> [extra sbatch args...]" >&2
    exit 2
fi
script=$1
workdir=$2
shift 2
timeout_s=${RUN_SBATCH_TIMEOUT:-300}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

[ -f "$script" ] || { echo "run_sbatch: no such batch script: $script" >&2; exit 2; }
mkdir -p "$workdir"
workdir=$(cd "$workdir" && pwd)

# RUN_SBATCH_UP: the script that brings the cluster up (default: the one-node
# slurm_up.sh; the multinode tests name multinode_up.sh, with SLURM_CONF set).
SLURM_UP_QUIET=1 MULTINODE_QUIET=1 "${RUN_SBATCH_UP:-$here/slurm_up.sh}"

submitted=$(sbatch --parsable --chdir="$workdir" --output="$workdir/slurm-%j.out" "$@" "$script")
jobid=${submitted%%;*}
case "$jobid" in '' | *[!0-9]*)
    echo "run_sbatch: sbatch did not return a job id: $submitted" >&2
    exit 1
    ;;
esac
echo "run_sbatch: submitted job $jobid ($script, workdir $workdir)"

field() { # name, from the one-line scontrol record in $info
    local f=" $info "
    f=${f#* "$1"=}
    [ "$f" != " $info " ] || return 0
    printf '%s' "${f%% *}"
}

start=$SECONDS
state=""
info=""
while :; do
    if info=$(scontrol show job -o "$jobid" 2>/dev/null); then
        state=$(field JobState)
        case "$state" in
        PENDING | CONFIGURING | RUNNING | COMPLETING | SUSPENDED | REQUEUED | RESIZING | SIGNALING | STAGE_OUT) ;;
        *) [ -z "$state" ] || break ;;
        esac
    fi
    if [ $((SECONDS - start)) -ge "$timeout_s" ]; then
        echo "run_sbatch: job $jobid still ${state:-unknown} after ${timeout_s} s; cancelling it" >&2
        scancel "$jobid" 2>/dev/null || true
        [ -z "$info" ] || printf '%s\n' "$info" | tr ' ' '\n' | grep -E '^(JobState|Reason|RunTime|NodeList)=' >&2 || true
        out=$workdir/slurm-$jobid.out
        [ -z "$info" ] || out=$(field StdOut)
        [ ! -f "$out" ] || { echo "----- $out -----"; cat "$out"; echo "-----"; }
        exit 1
    fi
    sleep 0.5
done

exit_code=$(field ExitCode)
out=$(field StdOut)
err=$(field StdErr)
elapsed=$((SECONDS - start))
echo "run_sbatch: job $jobid $state, exit code $exit_code, ${elapsed} s (run time $(field RunTime))"
if [ -n "$out" ] && [ -f "$out" ]; then
    echo "----- $out -----"
    cat "$out"
    echo "-----"
else
    echo "run_sbatch: no output file ${out:-(none named)}" >&2
fi
if [ -n "$err" ] && [ "$err" != "$out" ] && [ -s "$err" ]; then
    echo "----- $err -----"
    cat "$err"
    echo "-----"
fi
if [ "$state" != COMPLETED ] || [ "$exit_code" != 0:0 ]; then
    echo "run_sbatch: job $jobid failed: state $state, exit code $exit_code" \
        "(reason $(field Reason))" >&2
    exit 1
fi
