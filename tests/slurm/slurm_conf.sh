# Sourced by slurm_up.sh and multinode_up.sh: the slurm.conf lines both test
# clusters share (root, munge, no cgroups or accounting, cores as the unit).
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
