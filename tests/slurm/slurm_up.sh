#!/usr/bin/env bash
# Configure and start a one-node Slurm cluster on this machine (no systemd), for
# the end-to-end tests and for trying the jobs/ scripts. Needs root and the Debian
# packages slurmctld, slurmd, slurm-client and munge.
#
# Idempotent: when munged, slurmctld and slurmd already run and the node is usable,
# it changes nothing. A slurm.conf that this script did not write is never
# overwritten while Slurm runs; when Slurm is down it is kept as slurm.conf.orig.
#
# Environment: SLURM_UP_TIMEOUT (seconds to wait for the node, default 60),
#              SLURM_UP_QUIET=1 (print only errors).
set -euo pipefail
# shellcheck source=tests/slurm/slurm_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/slurm_common.sh"

timeout_s=${SLURM_UP_TIMEOUT:-60}
quiet=${SLURM_UP_QUIET:-0}
conf_dir=/etc/slurm
conf=$conf_dir/slurm.conf
marker="# Written by mutirao tests/slurm/slurm_up.sh"
ctld_pid=/run/slurmctld.pid
slurmd_pid=/run/slurmd.pid
munge_pid=/run/munge/munged.pid
log_dir=/var/log/slurm
state_dir=/var/lib/slurm/slurmctld
spool_dir=/var/lib/slurm/slurmd

die() { echo "slurm_up: error: $*" >&2; exit 1; }
say() { [ "$quiet" = 1 ] || echo "slurm_up: $*"; }

for cmd in munged munge unmunge slurmctld slurmd sinfo scontrol; do
    command -v "$cmd" >/dev/null 2>&1 || [ -x "/usr/sbin/$cmd" ] ||
        die "'$cmd' not found; install: apt-get install slurmctld slurmd slurm-client munge"
done
export PATH=$PATH:/usr/sbin:/sbin

node=$(hostname -s)
[ -n "$node" ] || die "hostname -s is empty"

# True when a process named $1 runs (started by this script or not).
# running NAME: a NAME process of this cluster; daemons started with their own
# configuration (-f FILE: the two-node test cluster) belong to another one. A
# process that has exited and is not yet reaped (the two-node cluster's
# slurmd that multinode_faults kills) has no command line: it runs nowhere.
running() {
    local p args
    for p in /proc/[0-9]*; do
        [ "$(cat "$p/comm" 2>/dev/null)" = "$1" ] || continue
        args=$(tr '\0' ' ' <"$p/cmdline" 2>/dev/null)
        [ -n "$args" ] || continue
        case " $args" in *" -f "*) continue ;; esac
        return 0
    done
    return 1
}
# A healthy node: slurmd runs, slurmctld answers, the node accepts jobs.
healthy() {
    running slurmd || return 1
    scontrol ping 2>/dev/null | grep 'is UP' >/dev/null || return 1
    usable "$(node_state "$node")"
}

if healthy; then
    say "already up: node $node $(node_state "$node"), $(sinfo -h -N -n "$node" -o '%c CPUs, partition %P')"
    exit 0
fi
[ "$(id -u)" = 0 ] || die "Slurm is not up, and starting it needs root (munged, slurmctld, slurmd)"

# ---- munge ---------------------------------------------------------------
if ! munge_ok && ! pid_alive "$munge_pid" munged; then
    munge_start
fi
for _ in $(seq 1 50); do munge_ok && break; sleep 0.1; done
munge_ok ||
    die "munge does not work (munge -n | unmunge fails; see /var/log/munge/munged.log)"

# ---- slurm.conf ----------------------------------------------------------
new_conf=$(
    cat <<CONF
$marker; it is rewritten when it differs.
# One node, no cgroups, no accounting. CPUs=4 on a smaller machine is accepted
# through SlurmdParameters=config_overrides, so 4-rank jobs run on 2 cores.
ClusterName=mutirao
SlurmctldHost=$node(127.0.0.1)
$(slurm_common_conf)
MinJobAge=600
KillWait=10
SlurmctldPidFile=$ctld_pid
SlurmdPidFile=$slurmd_pid
SlurmctldLogFile=$log_dir/slurmctld.log
SlurmdLogFile=$log_dir/slurmd.log
StateSaveLocation=$state_dir
SlurmdSpoolDir=$spool_dir
GresTypes=gpu
NodeName=$node NodeAddr=127.0.0.1 CPUs=4 RealMemory=2000 Gres=gpu:2 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
)

# Running daemons, ours (PID files) or started some other way.
ctld_up=0 slurmd_up=0
running slurmctld && ctld_up=1
running slurmd && slurmd_up=1

conf_changed=0
if [ -f "$conf" ] && ! grep -qF "$marker" "$conf"; then
    if [ $ctld_up = 1 ] || [ $slurmd_up = 1 ]; then
        # Someone else's Slurm runs here: use it as it is.
        say "keeping the running Slurm and its $conf (not written by this script)"
    else
        say "saving the existing $conf as $conf.orig"
        cp -p "$conf" "$conf.orig"
        conf_changed=1
    fi
elif [ ! -f "$conf" ] || [ "$(cat "$conf")" != "$new_conf" ]; then
    conf_changed=1
fi

# A new slurm.conf: daemons of ours that run with the old one are stopped first
# (and started again below).
stop_pid() { # pidfile command
    local pid
    pid=$(tr -dc '0-9' <"$1")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    rm -f "$1"
}
if [ $conf_changed = 1 ]; then
    [ $ctld_up = 0 ] || pid_alive "$ctld_pid" slurmctld ||
        die "slurmctld runs but not from $ctld_pid; stop it, then run this again"
    [ $slurmd_up = 0 ] || pid_alive "$slurmd_pid" slurmd ||
        die "slurmd runs but not from $slurmd_pid; stop it, then run this again"
    [ $slurmd_up = 0 ] || { say "restarting slurmd"; stop_pid "$slurmd_pid" slurmd; slurmd_up=0; }
    [ $ctld_up = 0 ] || { say "restarting slurmctld"; stop_pid "$ctld_pid" slurmctld; ctld_up=0; }
    say "writing $conf (node $node)"
    install -d -m 0755 "$conf_dir"
    printf '%s\n' "$new_conf" >"$conf.tmp.$$"
    mv "$conf.tmp.$$" "$conf"
    printf '%s\nNodeName=%s Name=gpu File=/run/mutirao-gpu[0-1]\n' "$marker" "$node" \
        >"$conf_dir/gres.conf"
fi
# Two stand-in GPUs, so that GPU jobs' #SBATCH headers (--gpus-per-task) are
# accepted and scheduled; the runs see no CUDA device. slurmd drops a GPU
# without a device file, and wants a character device: these are /dev/null's.
for i in 0 1; do
    [ -c /run/mutirao-gpu$i ] || mknod /run/mutirao-gpu$i c 1 3
done
install -d -m 0755 "$log_dir" "$state_dir" "$spool_dir"

# ---- daemons -------------------------------------------------------------
if [ $ctld_up = 0 ]; then
    rm -f "$ctld_pid"
    say "starting slurmctld"
    slurmctld || die "slurmctld did not start (see $log_dir/slurmctld.log)"
fi
for _ in $(seq 1 $((timeout_s * 10))); do
    scontrol ping 2>/dev/null | grep 'is UP' >/dev/null && break
    sleep 0.1
done
scontrol ping 2>/dev/null | grep 'is UP' >/dev/null ||
    die "slurmctld does not answer after ${timeout_s} s (see $log_dir/slurmctld.log)"
if [ $slurmd_up = 0 ]; then
    rm -f "$slurmd_pid"
    say "starting slurmd"
    slurmd || die "slurmd did not start (see $log_dir/slurmd.log)"
fi

# ---- wait for the node ---------------------------------------------------
# A node drained or set down earlier is returned to service only in a cluster
# of ours (its slurm.conf written here).
ours_pid=
grep -qsF "$marker" "$conf" && ours_pid=$slurmd_pid
wait_node "$node" "$ours_pid" $((SECONDS + timeout_s)) "$log_dir/slurmd.log and $log_dir/slurmctld.log"
say "up: node $node $(node_state "$node"), $(sinfo -h -N -n "$node" -o '%c CPUs, partition %P')"
