#!/usr/bin/env bash
# Stop the one-node Slurm that slurm_up.sh started: slurmd, slurmctld, then munged,
# by their PID files. --keep-munge leaves munged running.
set -euo pipefail

keep_munge=0
[ "${1:-}" = --keep-munge ] && keep_munge=1

stop() { # pidfile command
    local pid
    if [ ! -s "$1" ]; then
        echo "slurm_down: $2 not running (no $1)"
        return 0
    fi
    pid=$(tr -dc '0-9' <"$1")
    if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null ||
        [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != "$2" ]; then
        echo "slurm_down: $2 not running (stale $1 removed)"
        rm -f "$1"
        return 0
    fi
    kill "$pid"
    for _ in $(seq 1 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        echo "slurm_down: $2 (pid $pid) ignored SIGTERM for 10 s; sending SIGKILL" >&2
        kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$1"
    echo "slurm_down: stopped $2 (pid $pid)"
}

stop /run/slurmd.pid slurmd
stop /run/slurmctld.pid slurmctld
[ $keep_munge = 1 ] || stop /run/munge/munged.pid munged
