#!/usr/bin/env bash
# The GPU path of `mutirao cg` on 1, 2, 3 and 4 ranks (ranks share the node's
# GPUs, bound by node-local rank): the same result line (iterations, residuals,
# error) and bitwise the same solution file on every rank count, for Poisson
# operators and bundled matrices, fp64 and fp32, with and without Jacobi, and
# the thesis variant. One rank runs whole iterations on the device; several
# ranks on distinct GPUs with peer access too (the peer form: halo and exact
# sums through peer memory), else (ranks sharing a GPU, MUTIRAO_CG_PEER=0)
# they exchange halos and reduce on the host: the bits still agree, since a
# row's sum and every dot product are layout-independent. The form each rank
# count ran is printed; 2 ranks also run with MUTIRAO_CG_PEER=0. Also: GPU and CPU
# take the same number of iterations (within 1) on a well-conditioned problem.
# Checkpoints of several GPU ranks (periodic, and a real SIGUSR1) restart to
# the same bits. Exit 77 (skipped) without a CUDA device.
source "$(dirname "$0")/lib.sh"
IN=$SRCDIR/inputs/cg

require_gpu cg --device=gpu --poisson=2d5 --nx=4

# same_all NAME ARGS...: every rank count gives rank 1's result line and solution.
same_all() {
    local name=$1 np forms=""
    shift
    for np in 1 2 3 4; do
        cg_run "$name on $np ranks" "$np" --device=gpu --output="$WORK/x$np.txt" "$@" || return 0
        if ! grep -q "solve runs on the GPU of $np of $np rank" "$WORK/err"; then
            fail "$name on $np ranks: not every rank ran on the GPU"
        fi
        if [ "$np" -gt 1 ]; then
            if grep -q "GPU ranks on one node with peer access" "$WORK/err"; then
                forms="$forms $np:peer"
            elif grep -q "GPU ranks: iterations driven from the host" "$WORK/err"; then
                forms="$forms $np:host"
            else
                forms="$forms $np:table" # no whole iterations (thesis variant)
            fi
        fi
        cg_same_as_1 "$name" "$np" || true
    done
    echo "   forms of several ranks:${forms:- none logged}"
    # 2 ranks with the host-driven form forced (where the peer form is the
    # default): the halo handed to MPI in device memory where the MPI library is
    # CUDA-aware, else staged through pinned host memory.
    if MUTIRAO_CG_PEER=0 cg_run "$name on 2 ranks, MUTIRAO_CG_PEER=0" 2 --device=gpu \
        --output="$WORK/xh.txt" "$@"; then
        if [ "$(cg_status "$WORK/out")" != "$CG_WANT" ] || ! cmp -s "$WORK/x1.txt" "$WORK/xh.txt"; then
            fail "$name on 2 ranks, host-driven: differs from 1 rank"
        elif grep -q "GPU ranks: iterations driven from the host" "$WORK/err" &&
            ! grep -q "the halo from ${ROUTE_WORDS[$AWARE]}" "$WORK/err"; then
            fail "$name on 2 ranks, host-driven: not the halo from ${ROUTE_WORDS[$AWARE]}"
        fi
    fi
}

# The halo's route: device memory where the MPI library says it is CUDA-aware.
ROUTE_WORDS=("pinned host memory" "device memory")
AWARE=0
if run_np 1 info 2>/dev/null | grep -q "^CUDA-aware: *yes"; then
    AWARE=1
    echo "   the MPI library is CUDA-aware: the halo goes from device memory"
else
    echo "   the MPI library is not CUDA-aware: the halo goes from pinned host memory"
fi

same_all "3d7 40^3" --poisson=3d7 --nx=40
same_all "3d7 40x36x30 jacobi" --poisson=3d7 --nx=40 --ny=36 --nz=30 --pc=jacobi
same_all "2d5 200x150 jacobi fp32" --poisson=2d5 --nx=200 --ny=150 --pc=jacobi --precision=fp32 \
    --rtol=1e-5
same_all "3d27 20^3 random rhs" --poisson=3d27 --nx=20 --rhs=random --seed=7
same_all "Trefethen_2000 jacobi" --matrix="$IN/Trefethen_2000.mtx" --pc=jacobi
same_all "bcsstk26 jacobi" --matrix="$IN/bcsstk26.mtx" --pc=jacobi --max-it=400
same_all "494_bus" --matrix="$IN/494_bus.mtx" --max-it=400
same_all "nos7 thesis" --matrix="$IN/nos7.mtx" --variant=thesis --max-it=300

# The peer form forced (MUTIRAO_CG_PEER=1) on 2 ranks, also where they share
# one GPU (their spinning kernels then take turns by time slices: a small
# problem): the same result line and solution as 1 rank, Jacobi and not.
for pc in none jacobi; do
    pf=(--poisson=3d7 --nx=16 --ny=12 --nz=10 --rhs=random --seed=3 --pc=$pc)
    set +e
    run_np 1 cg --device=gpu --output="$WORK/f1.txt" "${pf[@]}" >"$WORK/f1.out" 2>"$WORK/f1.err"
    rc1=$?
    MUTIRAO_CG_PEER=1 run_np 2 cg --device=gpu --output="$WORK/f2.txt" \
        "${pf[@]}" >"$WORK/f2.out" 2>"$WORK/f2.err"
    rc2=$?
    set -e
    expect_eq "forced peer form ($pc): 1-rank exit status" "$rc1" 0
    expect_eq "forced peer form ($pc): 2-rank exit status" "$rc2" 0
    if ! grep -q "GPU ranks on one node with peer access.*MUTIRAO_CG_PEER=1" "$WORK/f2.err"; then
        tail -n 5 "$WORK/f2.err" >&2
        fail "forced peer form ($pc): the 2-rank run did not run the peer form"
    elif [ "$(cg_status "$WORK/f1.out")" = "$(cg_status "$WORK/f2.out")" ] &&
        cmp -s "$WORK/f1.txt" "$WORK/f2.txt"; then
        echo "ok: forced peer form ($pc) on 2 ranks = 1 rank: $(cg_status "$WORK/f2.out")"
    else
        fail "forced peer form ($pc): 2 ranks differ from 1 rank"
    fi
done

# Several GPU ranks run whole iterations in the backend, the stop flag folded
# into their reductions. Periodic checkpoints: 2 ranks stop at --max-it=50 with
# checkpoints at 20 and 40; a restart from 40 on 2 ranks ends at 90 as a run
# never stopped, bitwise.
ck=(--device=gpu --poisson=3d7 --nx=40 --rhs=random --rtol=1e-14)
set +e
run_np 2 cg "${ck[@]}" --max-it=50 --checkpoint-every=20 --checkpoint="$WORK/p.ckpt" \
    >"$WORK/p1.out" 2>"$WORK/p1.err"
rc1=$?
run_np 2 cg "${ck[@]}" --max-it=90 --checkpoint="$WORK/p.ckpt" --restart --output="$WORK/p2.txt" \
    >"$WORK/p2.out" 2>"$WORK/p2.err"
rc2=$?
run_np 2 cg "${ck[@]}" --max-it=90 --output="$WORK/p3.txt" >"$WORK/p3.out" 2>"$WORK/p3.err"
rc3=$?
set -e
expect_eq "periodic checkpoints: first run exit status (max-it)" "$rc1" 2
expect_eq "periodic checkpoints: restart exit status (max-it)" "$rc2" 2
expect_eq "periodic checkpoints: reference exit status (max-it)" "$rc3" 2
grep -q "restarting from $WORK/p.ckpt at iteration 40" "$WORK/p2.err" ||
    fail "periodic checkpoints: the restart did not resume at 40"
if [ "$(cg_status "$WORK/p2.out" | sed 's/ (restarted)//')" = "$(cg_status "$WORK/p3.out")" ] &&
    cmp -s "$WORK/p2.txt" "$WORK/p3.txt"; then
    echo "ok: 2 GPU ranks: checkpoint at 40, restart to 90 = a run to 90"
else
    fail "2 GPU ranks: restarted run differs from the uninterrupted one"
fi

# A real SIGUSR1 to 2 GPU ranks: both stop after the same iteration with a
# checkpoint (exit 3); a restart on 1 rank (device batches) to 37 iterations
# more ends as a 2-rank run never stopped, bitwise. 200^3 with rtol 0 iterates
# for several seconds (over 15000 iterations) before its recursive residual
# could underflow; the signal comes about a second into the solve.
sg=(--device=gpu --poisson=3d7 --nx=200 --rhs=random --rtol=0)
"$MPIEXEC" -n 2 "${PREFLAGS[@]}" "$MUTIRAO" cg "${sg[@]}" --max-it=40000 \
    --checkpoint="$WORK/s.ckpt" >"$WORK/s.out" 2>"$WORK/s.err" &
pid=$!
if ! signal_when $pid "$WORK/s.err" "cg solve:" USR1; then
    fail "SIGUSR1 on 2 GPU ranks: the run never reached the solve"
    tail -n 5 "$WORK/s.err" >&2
fi
reap $pid
rc=$RC
expect_eq "SIGUSR1 on 2 GPU ranks: exit status" "$rc" 3
k=$(grep -o 'stopped by SIG[A-Z0-9]* at iteration [0-9]*' "$WORK/s.err" | awk '{ print $NF }')
if [ "$rc" = 3 ] && [ -n "$k" ]; then
    end=$((k + 37))
    set +e
    run_np 1 cg "${sg[@]}" --max-it=$end --checkpoint="$WORK/s.ckpt" --restart \
        --output="$WORK/s1.txt" >"$WORK/s1.out" 2>"$WORK/s1.err"
    rc1=$?
    run_np 2 cg "${sg[@]}" --max-it=$end --output="$WORK/s2.txt" >"$WORK/s2.out" 2>"$WORK/s2.err"
    rc2=$?
    set -e
    expect_eq "SIGUSR1: restart exit status (max-it)" "$rc1" 2
    expect_eq "SIGUSR1: reference exit status (max-it)" "$rc2" 2
    if [ "$(cg_status "$WORK/s1.out" | sed 's/ (restarted)//')" = "$(cg_status "$WORK/s2.out")" ] &&
        cmp -s "$WORK/s1.txt" "$WORK/s2.txt"; then
        echo "ok: SIGUSR1 stopped 2 GPU ranks at $k; 1-rank restart to $end = 2 ranks to $end"
    else
        fail "SIGUSR1: restarted run differs from the uninterrupted one"
    fi
else
    tail -n 5 "$WORK/s.err" >&2
    fail "SIGUSR1 on 2 GPU ranks: no stop message"
fi

# GPU against CPU: iterations within 1 where CG is well conditioned.
run_np 1 cg --device=cpu --poisson=3d7 --nx=32 --rhs=random >"$WORK/cpu" 2>/dev/null
run_np 1 cg --device=gpu --poisson=3d7 --nx=32 --rhs=random >"$WORK/gpu" 2>/dev/null
ic=$(grep -o 'iterations=[0-9]*' "$WORK/cpu" | cut -d= -f2)
ig=$(grep -o 'iterations=[0-9]*' "$WORK/gpu" | cut -d= -f2)
if [ -n "$ic" ] && [ -n "$ig" ] && [ $((ig - ic)) -ge -1 ] && [ $((ig - ic)) -le 1 ]; then
    echo "ok: 3d7 32^3: GPU $ig iterations, CPU $ic"
else
    fail "3d7 32^3: GPU '$ig' iterations, CPU '$ic'"
fi
finish
