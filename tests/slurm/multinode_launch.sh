#!/usr/bin/env bash
# Across the two nodes of multinode_up.sh:
# 1. `mutirao info` on 3 ranks (2 + 1) lists each rank's node and node-local
#    rank (of how many on that node) as Slurm placed it.
# 2. The launch check with a wrong plugin: `srun -N 2 --mpi=none` starts an
#    MPICH program as separate one-rank worlds on both nodes; every task must
#    stop with the hint `srun --mpi=pmi2` and none may run the command.
#
#   multinode_launch.sh <mutirao binary> <source dir> [mpiexec]
# Exit 77 (skipped) where the cluster cannot run, unless MUTIRAO_REQUIRE_SLURM=1.
set -euo pipefail
# shellcheck source=tests/slurm/e2e_args.sh
source "$(dirname "${BASH_SOURCE[0]}")/e2e_args.sh"
# shellcheck source=tests/slurm/multinode_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/multinode_lib.sh"

# ---- 1. mutirao info ------------------------------------------------------------
if mn_srun 3 info --summary="$work/info.json" >"$work/info.out" 2>"$work/info.err"; then
    for r in 0 1 2; do
        read -r _ node local _ _ <"$MN_PLACE/$r"
        on_node=$(grep -l " $node " "$MN_PLACE"/* | wc -l)
        want="  rank $r: node $node, local rank $local of $on_node, CPU"
        if grep -F -- "$want" "$work/info.out" >/dev/null; then
            echo "$me: ok: info: '$want'"
        else
            err "info: no line '$want':"
            grep '^  rank ' "$work/info.out" >&2 || true
        fi
    done
    grep -F "world size:  3" "$work/info.out" >/dev/null || err "info: world size is not 3"
    check_layout "info on 3 ranks" "$work/info.json" 3
else
    cat "$work/info.err" >&2
    err "mutirao info on 3 ranks over 2 nodes failed"
fi

# ---- 2. a wrong --mpi plugin ----------------------------------------------------
for np in 2 4; do
    rm -f "$MN_PLACE"/*
    set +e
    timeout 120 srun -N 2 -n "$np" --mpi=none --job-name="mutirao-$me" "$work/rank.sh" "$mutirao" \
        maxsub --n=1000 --device=cpu --output="$work/none$np.csv" </dev/null \
        >"$work/none$np.out" 2>"$work/none$np.err"
    rc=$?
    set -e
    [ $rc -ne 124 ] || err "srun --mpi=none -N 2 -n $np: hung"
    [ $rc -ne 0 ] || err "srun --mpi=none -N 2 -n $np: exit status 0"
    hints=$(grep -c "srun --mpi=pmi2" "$work/none$np.err" || true)
    nodes=$(cat "$MN_PLACE"/* | awk '{ print $2 }' | sort -u | tr '\n' ' ')
    [ "$nodes" = "${MN_NODES[*]} " ] || err "srun --mpi=none -N 2 -n $np: tasks ran on '$nodes'"
    if [ "$hints" -eq "$np" ]; then
        echo "$me: ok: srun --mpi=none -N 2 -n $np: exit status $rc, all $np tasks (on $nodes) name the fix"
    else
        err "srun --mpi=none -N 2 -n $np: $hints of $np tasks named the fix:"
        cat "$work/none$np.err" >&2
    fi
    if grep '^maxsub:' "$work/none$np.out" >/dev/null || [ -e "$work/none$np.csv" ]; then
        err "srun --mpi=none -N 2 -n $np: a task ran the command anyway"
    fi
done

[ "$fail" = 0 ] || mn_logs
[ "$fail" = 0 ] && echo "$me: PASS"
exit "$fail"
