# Sourced by slurm_up.sh and multinode_up.sh (which define say, die and
# timeout_s): what the two test clusters share, the slurm.conf lines (root,
# munge, no cgroups or accounting, cores as the unit), checking a daemon's PID
# file, starting munged and waiting for a node.
# shellcheck shell=bash
slurm_common_conf() {
    cat <<'CONF'
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
SchedulerType=sched/backfill
CONF
}

# True when the PID file names a live process whose command is $2.
pid_alive() {
    local pid
    [ -s "$1" ] || return 1
    pid=$(tr -dc '0-9' <"$1")
    [ -n "$pid" ] && [ -d "/proc/$pid" ] || return 1
    [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ] || return 1
    # exited and not yet reaped (state Z): gone
    [ "$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -c1)" != Z ]
}

munge_ok() { munge -n 2>/dev/null | unmunge >/dev/null 2>&1; }

# munge_start: makes munge's folders and key when missing and starts munged.
munge_start() {
    install -d -o munge -g munge -m 0700 /etc/munge /var/lib/munge /var/log/munge
    install -d -o munge -g munge -m 0755 /run/munge
    if [ ! -s /etc/munge/munge.key ]; then
        say "creating /etc/munge/munge.key"
        if command -v mungekey >/dev/null 2>&1; then
            mungekey --create --keyfile=/etc/munge/munge.key --force
        else
            dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
        fi
    fi
    chown munge:munge /etc/munge/munge.key
    chmod 0400 /etc/munge/munge.key
    rm -f /run/munge/munged.pid
    say "starting munged"
    runuser -u munge -- /usr/sbin/munged </dev/null >/dev/null 2>&1 ||
        die "munged did not start (see /var/log/munge/munged.log)"
}

# node_state NODE: the node's state as sinfo abbreviates it (idle, down*, ...);
# empty when Slurm does not know it. usable STATE: a state that accepts jobs.
node_state() { sinfo -h -N -n "$1" -o '%t' 2>/dev/null | sed -n 1p; }
usable() { case "$1" in idle | mix | alloc | comp) return 0 ;; *) return 1 ;; esac }

# wait_node NODE SLURMD_PID DEADLINE LOGS: waits until NODE is usable; dies
# (naming LOGS) once $SECONDS reaches DEADLINE. Both clusters' nodes can be left
# drained or down (a slurmd that died or that a test killed): one whose slurmd
# runs again (SLURMD_PID, its PID file; empty: not ours to touch) is returned to
# service once.
# shellcheck disable=SC2154 # timeout_s: set by the script that sources this
wait_node() {
    local node=$1 pid_file=$2 deadline=$3 logs=$4 state resumed=0
    while :; do
        state=$(node_state "$node")
        usable "$state" && return 0
        case "$state" in
        drain* | drng | down* | fail*)
            if [ $resumed = 0 ] && [ -n "$pid_file" ] && pid_alive "$pid_file" slurmd; then
                scontrol update NodeName="$node" State=RESUME >/dev/null 2>&1 || true
                resumed=1
            fi
            ;;
        esac
        if [ $SECONDS -ge "$deadline" ]; then
            sinfo -N -l >&2 || true
            die "node $node is '${state:-missing}', not idle, after ${timeout_s} s (see $logs)"
        fi
        sleep 0.2
    done
}
