# The two-node test cluster's names, addresses, ports and paths, sourced by
# multinode_up.sh, multinode_down.sh and the multinode tests. Nothing here is
# shared with the one-node cluster of slurm_up.sh (ports 6817/6818, /etc/slurm,
# /run/slurm*.pid, /var/lib/slurm): the two can run side by side.
# shellcheck shell=bash
# shellcheck disable=SC2034 # used by the scripts that source this file
MN_DIR=/var/lib/mutirao-multinode # conf, state, spools, logs and PID files
MN_CONF=$MN_DIR/slurm.conf
MN_BRIDGE=mtbr0
MN_NET=10.77.0 # a /24 on the bridge; nothing else here may use it
MN_CTL=mtctl
MN_CTL_ADDR=$MN_NET.1
MN_NODES=(mtn1 mtn2) # network + UTS namespaces, each with its slurmd
MN_ADDRS=("$MN_NET.11" "$MN_NET.12")
MN_VETHS=(mtv1 mtv2) # the host ends of the namespaces' eth0
MN_CTLD_PORT=7817
MN_SLURMD_PORT=7818
MN_HOSTS_TAG="# mutirao-multinode" # marks our /etc/hosts lines
MN_PARTITION=mt
