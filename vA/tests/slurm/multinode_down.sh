#!/usr/bin/env bash
# Stop the two-node cluster of multinode_up.sh and remove everything it made:
# the slurmds and every process left in their namespaces (job steps), the
# slurmctld, the namespaces, veths and bridge, its /etc/hosts lines and
# /var/lib/mutirao-multinode. munged is stopped only when multinode_up.sh
# started it and no other Slurm daemon runs (the one-node cluster shares it).
# The one-node cluster of slurm_up.sh is never touched. Idempotent.
#   --keep-logs DIR   copy the cluster's logs to DIR first
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/slurm/multinode_conf.sh
source "$here/multinode_conf.sh"
export PATH=$PATH:/usr/sbin:/sbin

if [ "${1:-}" = --keep-logs ] && [ -n "${2:-}" ] && [ -d "$MN_DIR/log" ]; then
    mkdir -p "$2"
    cp -p "$MN_DIR"/log/*.log "$2"/ 2>/dev/null || true
fi
if [ "$(id -u)" != 0 ]; then
    echo "multinode_down: error: needs root" >&2
    exit 1
fi
say() { echo "multinode_down: $*"; }

stop() { # pidfile command
    local pid
    [ -s "$1" ] || return 0
    pid=$(tr -dc '0-9' <"$1")
    if [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ]; then
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
        say "stopped $2 (pid $pid)"
    fi
    rm -f "$1"
}

for i in "${!MN_NODES[@]}"; do
    n=${MN_NODES[$i]}
    stop "$MN_DIR/slurmd-$n.pid" slurmd
    # What is left in the namespace was started there by its slurmd (slurmstepd,
    # job tasks): nothing else enters it.
    if [ -e "/var/run/netns/$n" ]; then
        for _ in 1 2 3; do
            pids=$(ip netns pids "$n" 2>/dev/null || true)
            [ -n "$pids" ] || break
            say "killing what is left in $n: ${pids//$'\n'/ }"
            # shellcheck disable=SC2086
            kill -KILL $pids 2>/dev/null || true
            sleep 0.2
        done
        ip netns del "$n" && say "removed namespace $n"
    fi
    if ip link show "${MN_VETHS[$i]}" >/dev/null 2>&1; then ip link del "${MN_VETHS[$i]}" || true; fi
done
stop "$MN_DIR/slurmctld.pid" slurmctld
if ip link show "$MN_BRIDGE" >/dev/null 2>&1; then
    ip link del "$MN_BRIDGE" && say "removed bridge $MN_BRIDGE"
fi

if grep -F -- "$MN_HOSTS_TAG" /etc/hosts >/dev/null 2>&1; then
    tmp=$(mktemp)
    grep -vF -- "$MN_HOSTS_TAG" /etc/hosts >"$tmp" || true
    cat "$tmp" >/etc/hosts # in place: /etc/hosts may be a mount point
    rm -f "$tmp"
    say "removed the cluster's names from /etc/hosts"
fi

if [ -e "$MN_DIR/munged.ours" ]; then
    if grep -qsxE 'slurmctld|slurmd|slurmstepd' /proc/[0-9]*/comm; then
        say "leaving munged running (another Slurm uses it)"
    elif [ -s /run/munge/munged.pid ]; then
        pid=$(tr -dc '0-9' </run/munge/munged.pid)
        if [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = munged ]; then
            kill "$pid" 2>/dev/null || true
            say "stopped munged (pid $pid)"
        fi
    fi
fi
rm -rf "$MN_DIR"
say "down"
