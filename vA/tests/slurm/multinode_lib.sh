# Sourced by the multinode tests once they have set `me` and sourced
# e2e_args.sh: brings the two-node cluster up (multinode_up.sh; its exit 77,
# "this machine cannot", skips the test unless MUTIRAO_REQUIRE_SLURM=1), points
# SLURM_CONF at it, makes $work (e2e_lib.sh: kept on failure or with KEEP=1)
# and defines the helpers below.
# shellcheck shell=bash
# shellcheck disable=SC2154 # me, mutirao, mpiexec, preflags: set by the test (e2e_args.sh)
mn_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/slurm/multinode_conf.sh
source "$mn_here/multinode_conf.sh"
up_rc=0
MULTINODE_QUIET=1 "$mn_here/multinode_up.sh" || up_rc=$?
if [ $up_rc = 77 ]; then
    echo "$me: SKIP: this machine cannot hold the two-node cluster (multinode_up.sh says why above)"
    exit 77
elif [ $up_rc != 0 ]; then
    echo "$me: FAIL: multinode_up.sh failed (exit status $up_rc)" >&2
    exit 1
fi
export SLURM_CONF=$MN_CONF
# Both "nodes" share this machine's cores: MPI waits must yield, or each node's
# spinning ranks starve the other's (cg: 11 iterations/s on 2 + 2 ranks over 2
# cores instead of 1500). A knob: it changes how, never what, mutirao computes.
export MUTIRAO_MPI_YIELD=1 MUTIRAO_PROGRESS_SECONDS=1
# shellcheck source=tests/slurm/e2e_lib.sh
source "$mn_here/e2e_lib.sh"
export PATH=$PATH:/usr/sbin:/sbin

# Each rank starts through this wrapper, which records where Slurm put it
# (rank, node, node-local id, hostname, PID; the PID stays the rank's through
# exec) in $work/place/<rank>: the reference for what mutirao reports, and the
# handle the fault tests kill by.
mkdir -p "$work/place"
cat >"$work/rank.sh" <<'SH'
#!/bin/bash
echo "$SLURM_PROCID $SLURMD_NODENAME $SLURM_LOCALID $(hostname) $$" >"$MN_PLACE/$SLURM_PROCID"
exec "$@"
SH
chmod 755 "$work/rank.sh"
export MN_PLACE=$work/place

# mn_srun NP ARGS...: mutirao ARGS on NP ranks over both nodes (block
# distribution: 2 ranks 1+1, 3 ranks 2+1, 4 ranks 2+2), as the jobs launch it.
# MN_TIMEOUT (default 180 s) bounds it.
mn_srun() {
    local np=$1
    shift
    rm -f "$MN_PLACE"/*
    timeout "${MN_TIMEOUT:-180}" srun -N 2 -n "$np" --mpi=pmi2 --kill-on-bad-exit=1 \
        --job-name="mutirao-$me" "$work/rank.sh" "$mutirao" "$@" </dev/null
}

# ref1 ARGS...: mutirao ARGS on 1 CPU rank with mpiexec, outside Slurm (no
# SLURM_* variables, which would steer mpiexec and the launch check).
ref1() { outside_slurm "$@" --device=cpu </dev/null; }

# check_layout WHAT SUMMARY NP: the summary says NP ranks on 2 nodes, and each
# rank's node and node-local rank (and the node's rank count) are those Slurm
# gave it (the wrapper's record): the node names are the namespaces' hostnames.
check_layout() {
    local what=$1 summary=$2 np=$3 out
    if python3 - "$summary" "$MN_PLACE" "$np" >"$work/check.out" 2>&1 <<'PY'; then
import collections, json, os, sys

summary, place, np = sys.argv[1], sys.argv[2], int(sys.argv[3])
s = json.load(open(summary))
slurm = {}
for r in range(np):
    rank, node, local, host, _ = open(os.path.join(place, str(r))).read().split()
    if node != host:
        sys.exit(f"rank {r}: Slurm says node {node}, its hostname is {host}")
    slurm[r] = (node, int(local))
count = collections.Counter(n for n, _ in slurm.values())
bad = []
if s.get("ranks") != np:
    bad.append(f"ranks {s.get('ranks')}, want {np}")
if s.get("nodes") != len(count):
    bad.append(f"nodes {s.get('nodes')}, want {len(count)}")
layout = s.get("layout", [])
if [e.get("rank") for e in layout] != list(range(np)):
    bad.append(f"layout ranks {[e.get('rank') for e in layout]}")
for e in layout:
    node, local = slurm.get(e.get("rank"), (None, None))
    got = (e.get("node"), e.get("local_rank"), e.get("local_size"))
    if got != (node, local, count[node]):
        bad.append(f"rank {e.get('rank')}: (node, local rank, ranks there) {got}, Slurm: {(node, local, count[node])}")
if bad:
    sys.exit("; ".join(bad))
print(" ".join(f"{n}:{c}" for n, c in sorted(count.items())))
PY
        out=$(cat "$work/check.out")
        echo "$me: ok: $what: layout as Slurm placed it ($out)"
    else
        err "$what: layout: $(cat "$work/check.out")"
    fi
}

# same_files WHAT REF GOT: byte for byte.
same_files() {
    if [ ! -f "$3" ]; then
        err "$1: no $3"
    elif ! cmp -s "$2" "$3"; then
        err "$1: differs from 1 rank"
        diff "$2" "$3" | head -n 10 >&2 || true
    else
        echo "$me: ok: $1: identical to 1 rank ($(wc -c <"$3") bytes)"
    fi
}

# The cluster's logs, on failure.
mn_logs() {
    local f
    for f in "$MN_DIR"/log/*.log; do
        [ -f "$f" ] || continue
        echo "----- last lines of $f -----" >&2
        tail -n 15 "$f" >&2
    done
}
