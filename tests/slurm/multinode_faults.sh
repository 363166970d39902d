#!/usr/bin/env bash
# Faults across the two nodes of multinode_up.sh, on cg runs of 4 ranks (2 a
# node) that write a checkpoint every 100 iterations:
# A. One rank on the second node is killed (SIGKILL): srun ends within
#    BOUND seconds with a failure, every other rank exits, no output file is
#    left; the last checkpoint restarts on the first node alone (2 ranks) to
#    bitwise the solution of one rank run straight to the same iteration.
# B. The second node's slurmd is killed mid-run (the steps it started go on):
#    Slurm declares the node failed and the ranks on the first node exit within
#    BOUND seconds; once the slurmd is back, the second node's ranks and srun
#    end within BOUND seconds too; no output file; the checkpoint restarts as
#    in A.
# C. The second node dies: its slurmd and every process in its namespace
#    (slurmstepd, ranks) are killed. As A, Slurm's node timeout included;
#    the restart runs on the surviving node.
# The cluster is then brought back (multinode_up.sh restarts the slurmd and
# returns the node to service) and must run a 2-node step again.
#
#   multinode_faults.sh <mutirao binary> <source dir> [mpiexec]
# Exit 77 (skipped) where the cluster cannot run, unless MUTIRAO_REQUIRE_SLURM=1.
set -euo pipefail
# shellcheck source=tests/slurm/e2e_args.sh
source "$(dirname "${BASH_SOURCE[0]}")/e2e_args.sh"
# shellcheck source=tests/slurm/multinode_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/multinode_lib.sh"
if [ "$(id -u)" != 0 ]; then
    if [ "${MUTIRAO_REQUIRE_SLURM:-0}" = 1 ]; then
        echo "$me: FAIL: killing a node's daemons needs root (MUTIRAO_REQUIRE_SLURM=1)" >&2
        exit 1
    fi
    echo "$me: SKIP: killing a node's daemons needs root"
    exit 77
fi
BOUND=${MN_FAULT_BOUND:-90} # seconds; Slurm sets a silent node DOWN after SlurmdTimeout=20
node2=${MN_NODES[1]}
node1=${MN_NODES[0]}

# A problem that never converges (rtol 0, a random b, residual replacement
# keeps ||r|| at round-off) runs until the fault.
cg_args=(cg --poisson=3d7 --nx=24 --rtol=0 --rhs=random --replace-every=50 --device=cpu)

# rank_pid R: the PID of rank R of the current run (0 when not yet known).
rank_pid() { if [ -s "$MN_PLACE/$1" ]; then awk '{ print $5 }' "$MN_PLACE/$1"; else echo 0; fi; }
# rank_on NODE: a rank Slurm put on NODE.
rank_on() {
    local f r n
    for f in "$MN_PLACE"/*; do
        read -r r n _ <"$f"
        if [ "$n" = "$1" ]; then echo "$r"; return; fi
    done
}

# start NAME MAXIT: the run in the background ($run_pid), on 4 ranks; waits
# (60 s at most) for its first checkpoint. Returns 1 when it never came.
start() {
    local name=$1 maxit=$2
    rm -f "$work/$name".*
    MN_TIMEOUT=$((BOUND + 120)) mn_srun 4 "${cg_args[@]}" --max-it="$maxit" \
        --checkpoint="$work/$name.ckpt" --checkpoint-every=100 --output="$work/$name.txt" \
        --summary="$work/$name.json" >"$work/$name.out" 2>"$work/$name.err" &
    run_pid=$!
    for _ in $(seq 1 600); do
        [ -s "$work/$name.ckpt" ] && [ -s "$MN_PLACE/3" ] && return 0
        kill -0 $run_pid 2>/dev/null || break
        sleep 0.1
    done
    tail -n 20 "$work/$name.err" >&2
    err "$name: no checkpoint from the 4-rank run"
    kill $run_pid 2>/dev/null || true
    wait $run_pid || true
    return 1
}

# finish_run NAME: waits for the run, at most BOUND seconds after the fault
# (t_fault); sets run_rc and says how long it took. Then every rank must be
# gone (10 s of grace for the processes to be reaped).
finish_run() {
    local name=$1 pids="" r p
    for r in 0 1 2 3; do pids+=" $(rank_pid $r)"; done
    while kill -0 $run_pid 2>/dev/null && [ $((SECONDS - t_fault)) -le "$BOUND" ]; do sleep 0.2; done
    if kill -0 $run_pid 2>/dev/null; then
        err "$name: the run still goes $BOUND s after the fault"
        kill $run_pid 2>/dev/null || true
    fi
    run_rc=0
    wait $run_pid || run_rc=$?
    echo "$me: $name: srun ended $((SECONDS - t_fault)) s after the fault, exit status $run_rc"
    for _ in $(seq 1 50); do
        left=""
        for p in $pids; do [ "$p" = 0 ] || ! kill -0 "$p" 2>/dev/null || left+=" $p"; done
        [ -n "$left" ] || break
        sleep 0.2
    done
    if [ -n "$left" ]; then
        err "$name: ranks still alive after the run ended (PIDs$left)"
        # shellcheck disable=SC2086
        kill -KILL $left 2>/dev/null || true
    else
        echo "$me: ok: $name: every rank exited"
    fi
}

# no_output NAME: a failed run leaves no solution file (nor its temporary); a
# summary, if any, says it failed or stopped at a checkpoint (SIGTERM from Slurm).
no_output() {
    if compgen -G "$work/$1.txt*" >/dev/null; then
        err "$1: the failed run left output: $(echo "$work/$1.txt"*)"
    else
        echo "$me: ok: $1: no output file"
    fi
    [ ! -e "$work/$1.json" ] || failure_summary_mn "$1" "$work/$1.json"
}
failure_summary_mn() {
    python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
failed = s["exit_status"] == 1 and s.get("error") and not s["result"]
stopped = s["exit_status"] == 3 and s["result"].get("status") == "stopped"
sys.exit(not (failed or stopped))' "$2" ||
        err "$1: a summary was written, and it records neither a failure nor a stop at a checkpoint"
}

# restart NAME WHERE: restarts NAME's checkpoint on 2 ranks of node WHERE and
# runs 150 iterations past it; a 1-rank run straight to that iteration must
# give bitwise the same solution (both stop at --max-it: exit status 2).
restart() {
    local name=$1 where=$2 k end rc=0 rc1=0
    # The iteration it holds: int64 at byte 32 of its header (magic, version,
    # n, nnz, iteration); the restart's own message must agree.
    k=$(python3 -c 'import struct, sys; print(struct.unpack_from("<q", open(sys.argv[1], "rb").read(40), 32)[0])' \
        "$work/$name.ckpt" 2>/dev/null || true)
    if [ -z "$k" ]; then
        err "$name: no readable checkpoint after the fault"
        return
    fi
    end=$((k + 150))
    set +e
    timeout 300 srun -N 1 -n 2 -w "$where" --mpi=pmi2 --kill-on-bad-exit=1 "$mutirao" "${cg_args[@]}" \
        --max-it=$end --checkpoint="$work/$name.ckpt" --restart --output="$work/$name.restart.txt" \
        </dev/null >"$work/$name.restart.out" 2>"$work/$name.restart.err"
    rc=$?
    ref1 "${cg_args[@]}" --max-it=$end --checkpoint="$work/$name.unused.ckpt" \
        --output="$work/$name.ref.txt" >"$work/$name.ref.out" 2>"$work/$name.ref.err"
    rc1=$?
    set -e
    grep -F "restarting from $work/$name.ckpt at iteration $k" "$work/$name.restart.err" >/dev/null ||
        err "$name: the restart did not resume at iteration $k"
    if [ $rc != 2 ] || [ $rc1 != 2 ]; then
        tail -n 5 "$work/$name.restart.err" "$work/$name.ref.err" >&2
        err "$name: restart exit status $rc, reference $rc1 (want 2 and 2: --max-it reached)"
    elif cmp -s "$work/$name.restart.txt" "$work/$name.ref.txt"; then
        echo "$me: ok: $name: the checkpoint (iteration $k) restarted on $where alone, to iteration $end:" \
            "the solution of 1 rank, bitwise"
    else
        err "$name: the restarted solution differs from 1 rank's"
    fi
}

# ---- A. a rank killed on the other node -----------------------------------------
if start A 100000000; then
    victim=$(rank_on "$node2")
    t_fault=$SECONDS
    kill -KILL "$(rank_pid "$victim")"
    echo "$me: A: killed rank $victim (PID $(rank_pid "$victim")) on $node2"
    finish_run A
    [ "$run_rc" != 0 ] || err "A: the run exited 0 after losing a rank"
    no_output A
    restart A "$node1"
fi

# ---- B. the other node's slurmd killed mid-run ----------------------------------
# Its ranks run on, but nothing can signal them any more: Slurm sets the node
# DOWN after SlurmdTimeout and ends the job on the first node (SIGTERM: the cg
# ranks stop together with a checkpoint); the second node's ranks, cut off
# from the PMI tree, are ended when its slurmd is back (a node's daemons are
# restarted by its init system), and only then does srun see all its tasks
# end. Both steps must take a bounded time.
if start B 100000000; then
    t_fault=$SECONDS
    kill -KILL "$(tr -dc '0-9' <"$MN_DIR/slurmd-$node2.pid")"
    echo "$me: B: killed slurmd on $node2"
    first=""
    for r in 0 1 2 3; do
        read -r _ node _ _ pid <"$MN_PLACE/$r"
        [ "$node" != "$node1" ] || first+=" $pid"
    done
    while [ $((SECONDS - t_fault)) -le "$BOUND" ]; do
        alive=""
        for p in $first; do ! kill -0 "$p" 2>/dev/null || alive+=" $p"; done
        [ -n "$alive" ] || break
        sleep 0.2
    done
    if [ -n "$alive" ]; then
        err "B: ranks on $node1 still run $BOUND s after the fault (PIDs$alive)"
    else
        echo "$me: ok: B: the ranks on $node1 exited $((SECONDS - t_fault)) s after the fault"
    fi
    grep -E "Node failure on $node2|DUE TO NODE FAILURE" "$work/B.err" >/dev/null ||
        err "B: srun did not report the node failure"
    t_fault=$SECONDS
    MULTINODE_QUIET=1 "$mn_here/multinode_up.sh" || err "B: $node2's slurmd did not come back"
    finish_run B
    no_output B
    restart B "$node1"
fi
MULTINODE_QUIET=1 "$mn_here/multinode_up.sh" || err "the cluster did not come back after B"

# ---- C. the other node dies -----------------------------------------------------
if start C 100000000; then
    t_fault=$SECONDS
    kill -KILL "$(tr -dc '0-9' <"$MN_DIR/slurmd-$node2.pid")"
    # shellcheck disable=SC2046
    kill -KILL $(ip netns pids "$node2") 2>/dev/null || true
    echo "$me: C: killed $node2 (slurmd, slurmstepd and ranks: every process in its namespace)"
    finish_run C
    [ "$run_rc" != 0 ] || err "C: the run exited 0 after losing a node"
    no_output C
    echo "$me: C: $node2 is '$(sinfo -h -N -n "$node2" -o '%t')' in Slurm"
    restart C "$node1"
fi

# ---- back to two nodes ----------------------------------------------------------
t0=$SECONDS
if MULTINODE_QUIET=1 MULTINODE_TIMEOUT=120 "$mn_here/multinode_up.sh"; then
    if mn_srun 2 info >"$work/back.out" 2>&1 && grep -F "node $node2" "$work/back.out" >/dev/null; then
        echo "$me: ok: $node2 back in service after $((SECONDS - t0)) s"
    else
        err "a 2-node step after the faults failed"
    fi
else
    err "the cluster did not come back after the faults"
fi

[ "$fail" = 0 ] || mn_logs
[ "$fail" = 0 ] && echo "$me: PASS"
exit "$fail"
