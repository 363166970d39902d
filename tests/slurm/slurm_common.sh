# Sourced by slurm_up.sh and multinode_up.sh (which define say and die): what
# the two test clusters share, the slurm.conf lines (root, munge, no cgroups or
# accounting, cores as the unit), checking a daemon's PID file and starting
# munged.
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
    [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ]
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
