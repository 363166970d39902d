#!/usr/bin/env bash
# Start a two-node Slurm cluster on this one machine, for the multinode tests:
# a bridge (mtbr0, 10.77.0.1/24), two network + UTS namespaces mtn1 and mtn2
# (10.77.0.11 and .12, each with its own hostname and a slurmd), and a slurmctld
# (named mtctl, on the bridge's address), on ports 7817/7818 beside the one-node
# cluster of slurm_up.sh. Its slurm.conf is /var/lib/mutirao-multinode/slurm.conf:
#
#   tests/slurm/multinode_up.sh
#   SLURM_CONF=/var/lib/mutirao-multinode/slurm.conf srun -N 2 -n 4 --mpi=pmi2 build/mutirao info
#   tests/slurm/multinode_down.sh
#
# MPICH then sees two hosts and talks TCP between them. Needs root, munge (shared
# with the one-node cluster), iproute2, nsenter and unshare.
#
# Idempotent: what is up is kept, what is missing is made (a slurmd killed by a
# test is started again and its node returned to service). Exit status 0 when
# both nodes accept jobs, 77 when this machine cannot hold the cluster (not
# root, no network namespaces or bridges, a tool missing) unless
# MUTIRAO_REQUIRE_SLURM=1 (CI) makes that 1, and 1 on any other failure.
# Environment: MULTINODE_TIMEOUT (seconds to wait for the nodes, default 60),
#              MULTINODE_QUIET=1 (print only errors).
set -euo pipefail
# shellcheck source=tests/slurm/slurm_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/slurm_common.sh"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/slurm/multinode_conf.sh
source "$here/multinode_conf.sh"
export PATH=$PATH:/usr/sbin:/sbin
export SLURM_CONF=$MN_CONF
timeout_s=${MULTINODE_TIMEOUT:-60}
quiet=${MULTINODE_QUIET:-0}

say() { [ "$quiet" = 1 ] || echo "multinode_up: $*"; }
die() { echo "multinode_up: error: $*" >&2; exit 1; }
# The machine cannot do it: a skip for the tests, a failure where Slurm is required.
cannot() {
    if [ "${MUTIRAO_REQUIRE_SLURM:-0}" = 1 ]; then
        echo "multinode_up: error: $* (MUTIRAO_REQUIRE_SLURM=1)" >&2
        exit 1
    fi
    echo "multinode_up: cannot run here: $*" >&2
    exit 77
}

ctld_up() {
    local out
    out=$(scontrol ping 2>/dev/null) || return 1
    [[ "$out" == *"is UP"* ]]
}
has_addr() { # dev address [netns]
    local out
    if [ -n "${3:-}" ]; then out=$(ip -n "$3" -o -4 addr show dev "$1" 2>/dev/null) || return 1
    else out=$(ip -o -4 addr show dev "$1" 2>/dev/null) || return 1; fi
    [[ "$out" == *" $2/24 "* ]]
}
# The network as made below: the bridge's address, each veth, each node's.
net_ok() {
    has_addr "$MN_BRIDGE" "$MN_CTL_ADDR" || return 1
    for i in "${!MN_NODES[@]}"; do
        ip link show "${MN_VETHS[$i]}" >/dev/null 2>&1 || return 1
        has_addr eth0 "${MN_ADDRS[$i]}" "${MN_NODES[$i]}" || return 1
    done
}
healthy() {
    local n
    net_ok || return 1
    ctld_up || return 1
    for i in "${!MN_NODES[@]}"; do
        n=${MN_NODES[$i]}
        pid_alive "$MN_DIR/slurmd-$n.pid" slurmd || return 1
        usable "$(node_state "$n")" || return 1
    done
}

# ---- slurm.conf ---------------------------------------------------------------
nodes_conf=""
for i in "${!MN_NODES[@]}"; do
    nodes_conf+="NodeName=${MN_NODES[$i]} NodeAddr=${MN_ADDRS[$i]} CPUs=2 RealMemory=1000 State=UNKNOWN"$'\n'
done
new_conf=$(
    cat <<CONF
# Written by mutirao tests/slurm/multinode_up.sh: a two-node cluster in network
# namespaces, beside the one-node test cluster (its own ports, state and spools).
ClusterName=mutirao-mn
SlurmctldHost=$MN_CTL($MN_CTL_ADDR)
SlurmctldPort=$MN_CTLD_PORT
SlurmdPort=$MN_SLURMD_PORT
$(slurm_common_conf)
MinJobAge=300
KillWait=5
# A node whose slurmd is gone is set DOWN (and its jobs ended) within about 20-30 s.
SlurmdTimeout=20
SlurmctldPidFile=$MN_DIR/slurmctld.pid
SlurmdPidFile=$MN_DIR/slurmd-%n.pid
SlurmctldLogFile=$MN_DIR/log/slurmctld.log
SlurmdLogFile=$MN_DIR/log/slurmd-%n.log
StateSaveLocation=$MN_DIR/state
SlurmdSpoolDir=$MN_DIR/spool/%n
${nodes_conf}PartitionName=$MN_PARTITION Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
)
# Up with this very conf: nothing to do.
if [ -f "$MN_CONF" ] && [ "$(cat "$MN_CONF")" = "$new_conf" ] && healthy; then
    say "already up: $(sinfo -h -N -o '%N %t' | tr '\n' ' ')(SLURM_CONF=$MN_CONF)"
    exit 0
fi

# ---- can this machine do it? ------------------------------------------------
for cmd in ip nsenter unshare hostname munged munge unmunge slurmctld slurmd sinfo scontrol srun; do
    command -v "$cmd" >/dev/null 2>&1 ||
        cannot "'$cmd' not found (apt-get install iproute2 util-linux slurmctld slurmd slurm-client munge)"
done
[ "$(id -u)" = 0 ] || cannot "the cluster is not up, and starting it needs root (namespaces, daemons)"
unshare --uts true 2>/dev/null || cannot "'unshare --uts' fails: no UTS namespaces here"

# ---- network: a bridge and two namespaces -----------------------------------
# Our /24 must be free: an address in it on any interface but ours is a clash.
addrs=$(ip -o -4 addr show 2>/dev/null) || cannot "'ip addr' fails"
while read -r _ dev _ cidr _; do
    case "$cidr" in "$MN_NET".*) [ "$dev" = "$MN_BRIDGE" ] || die "$cidr on $dev is in $MN_NET.0/24, the cluster's network" ;; esac
done <<<"$addrs"

if ! ip link show "$MN_BRIDGE" >/dev/null 2>&1; then
    say "creating bridge $MN_BRIDGE ($MN_CTL_ADDR/24)"
    ip link add "$MN_BRIDGE" type bridge 2>/dev/null ||
        cannot "'ip link add $MN_BRIDGE type bridge' fails (no CAP_NET_ADMIN, or no bridge support)"
fi
has_addr "$MN_BRIDGE" "$MN_CTL_ADDR" || ip addr add "$MN_CTL_ADDR/24" dev "$MN_BRIDGE"
ip link set "$MN_BRIDGE" up
for i in "${!MN_NODES[@]}"; do
    n=${MN_NODES[$i]} a=${MN_ADDRS[$i]} v=${MN_VETHS[$i]}
    if [ ! -e "/var/run/netns/$n" ]; then
        say "creating network namespace $n ($a)"
        ip netns add "$n" 2>/dev/null || cannot "'ip netns add $n' fails: no network namespaces here"
    fi
    if ! ip link show "$v" >/dev/null 2>&1; then
        ip -n "$n" link del eth0 2>/dev/null || true
        ip link add "$v" type veth peer name eth0 netns "$n" ||
            cannot "'ip link add $v type veth' fails: no veth pairs here"
    fi
    ip link set "$v" master "$MN_BRIDGE" up
    has_addr eth0 "$a" "$n" || ip -n "$n" addr add "$a/24" dev eth0
    ip -n "$n" link set eth0 up
    ip -n "$n" link set lo up
done

# Names for the controller and nodes (Slurm and MPICH resolve them).
want_hosts="$MN_CTL_ADDR $MN_CTL $MN_HOSTS_TAG"
for i in "${!MN_NODES[@]}"; do want_hosts+=$'\n'"${MN_ADDRS[$i]} ${MN_NODES[$i]} $MN_HOSTS_TAG"; done
have_hosts=$(grep -F -- "$MN_HOSTS_TAG" /etc/hosts || true)
if [ "$have_hosts" != "$want_hosts" ]; then
    say "adding $MN_CTL ${MN_NODES[*]} to /etc/hosts"
    tmp=$(mktemp)
    { grep -vF -- "$MN_HOSTS_TAG" /etc/hosts || true; printf '%s\n' "$want_hosts"; } >"$tmp"
    cat "$tmp" >/etc/hosts # rewritten in place: /etc/hosts may be a mount point
    rm -f "$tmp"
fi

# ---- munge (shared with the one-node cluster) -------------------------------
install -d -m 0755 "$MN_DIR" "$MN_DIR/log" "$MN_DIR/state"
for n in "${MN_NODES[@]}"; do install -d -m 0755 "$MN_DIR/spool/$n"; done
if ! munge_ok; then
    munge_start
    touch "$MN_DIR/munged.ours" # multinode_down.sh stops it when nothing else uses it
fi
for _ in $(seq 1 50); do munge_ok && break; sleep 0.1; done
munge_ok || die "munge does not work (munge -n | unmunge fails; see /var/log/munge/munged.log)"

stop_pid() { # pidfile command
    local pid
    pid=$(tr -dc '0-9' <"$1")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$1"
}
if [ ! -f "$MN_CONF" ] || [ "$(cat "$MN_CONF")" != "$new_conf" ]; then
    # Daemons running with another conf are restarted with this one.
    for n in "${MN_NODES[@]}"; do
        if pid_alive "$MN_DIR/slurmd-$n.pid" slurmd; then stop_pid "$MN_DIR/slurmd-$n.pid"; fi
    done
    if pid_alive "$MN_DIR/slurmctld.pid" slurmctld; then stop_pid "$MN_DIR/slurmctld.pid"; fi
    say "writing $MN_CONF"
    printf '%s\n' "$new_conf" >"$MN_CONF.tmp.$$"
    mv "$MN_CONF.tmp.$$" "$MN_CONF"
fi

# ---- daemons --------------------------------------------------------------------
# slurmctld must find its own name (mtctl), so it gets a UTS namespace; each
# slurmd gets its node's network namespace and hostname. nsenter + unshare, not
# 'ip netns exec': that remounts /sys, and slurmd then finds no cgroup filesystem.
# shellcheck disable=SC2016 # $1, $2: the inner shell's arguments
if ! pid_alive "$MN_DIR/slurmctld.pid" slurmctld; then
    rm -f "$MN_DIR/slurmctld.pid"
    say "starting slurmctld ($MN_CTL, $MN_CTL_ADDR:$MN_CTLD_PORT)"
    unshare --uts sh -c 'hostname "$1" && exec slurmctld -f "$2"' sh "$MN_CTL" "$MN_CONF" \
        </dev/null >>"$MN_DIR/log/start.log" 2>&1 ||
        die "slurmctld did not start (see $MN_DIR/log/slurmctld.log, $MN_DIR/log/start.log)"
fi
for _ in $(seq 1 $((timeout_s * 10))); do ctld_up && break; sleep 0.1; done
ctld_up || die "slurmctld does not answer after ${timeout_s} s (see $MN_DIR/log/slurmctld.log)"
for n in "${MN_NODES[@]}"; do
    pid_alive "$MN_DIR/slurmd-$n.pid" slurmd && continue
    rm -f "$MN_DIR/slurmd-$n.pid"
    say "starting slurmd on $n"
    # shellcheck disable=SC2016 # $1, $2: the inner shell's arguments
    nsenter --net="/var/run/netns/$n" unshare --uts \
        sh -c 'hostname "$1" && exec slurmd -f "$2"' sh "$n" "$MN_CONF" \
        </dev/null >>"$MN_DIR/log/start.log" 2>&1 ||
        die "slurmd on $n did not start (see $MN_DIR/log/slurmd-$n.log, $MN_DIR/log/start.log)"
done

# ---- wait for the nodes ---------------------------------------------------------
deadline=$((SECONDS + timeout_s))
for n in "${MN_NODES[@]}"; do
    wait_node "$n" "$MN_DIR/slurmd-$n.pid" $deadline \
        "$MN_DIR/log/slurmd-$n.log and $MN_DIR/log/slurmctld.log"
done
say "up: $(sinfo -h -N -o '%N %t' | tr '\n' ' ')(SLURM_CONF=$MN_CONF)"
