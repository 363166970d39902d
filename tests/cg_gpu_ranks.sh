#!/usr/bin/env bash
# The GPU path of `mutirao cg` on 1, 2, 3 and 4 ranks (ranks share the node's
# GPUs, bound by node-local rank): the same result line (iterations, residuals,
# error) and bitwise the same solution file on every rank count, for Poisson
# operators and bundled matrices, fp64 and fp32, with and without Jacobi, and
# the thesis variant. One rank runs whole iterations on the device, several
# ranks exchange halos and reduce on the host: the bits still agree, since a
# row's sum and every dot product are layout-independent. Also: GPU and CPU
# take the same number of iterations (within 1) on a well-conditioned problem.
# Exit 77 (skipped) without a CUDA device.
source "$(dirname "$0")/lib.sh"
IN=$SRCDIR/inputs/cg

set +e
run_np 1 cg --device=gpu --poisson=2d5 --nx=4 >"$WORK/probe" 2>&1
rc=$?
set -e
if [ $rc -ne 0 ]; then
    if grep -q -e "sees no CUDA device" -e "no CUDA support" "$WORK/probe"; then
        echo "SKIP: no CUDA device"
        exit 77
    fi
    cat "$WORK/probe" >&2
    fail "probe run on the GPU: exit status $rc"
    finish
fi

# status_of OUT: the cg result line without the timing and the rank count.
status_of() { grep '^cg: ' "$1" | sed -e 's/ time_per_it=[^ ]*//' -e 's/ ranks=[0-9]*//'; }

# same_all NAME ARGS...: every rank count gives rank 1's result line and solution.
same_all() {
    local name=$1 np rc want=""
    shift
    for np in 1 2 3 4; do
        set +e
        run_np "$np" cg --device=gpu --output="$WORK/x$np.txt" "$@" >"$WORK/out" 2>"$WORK/err"
        rc=$?
        set -e
        if [ $rc -ne 0 ] && [ $rc -ne 2 ]; then
            cat "$WORK/err" >&2
            fail "$name on $np ranks: exit status $rc"
            return
        fi
        if ! grep -q "solve runs on the GPU of $np of $np rank" "$WORK/err"; then
            fail "$name on $np ranks: not every rank ran on the GPU"
        fi
        local got
        got=$(status_of "$WORK/out")
        if [ "$np" = 1 ]; then
            want=$got
            echo "ok: $name: $got"
        elif [ "$got" != "$want" ]; then
            fail "$name on $np ranks: '$got', want '$want'"
        elif ! cmp -s "$WORK/x1.txt" "$WORK/x$np.txt"; then
            fail "$name on $np ranks: solution differs from 1 rank"
        fi
    done
}

same_all "3d7 40^3" --poisson=3d7 --nx=40
same_all "3d7 40x36x30 jacobi" --poisson=3d7 --nx=40 --ny=36 --nz=30 --pc=jacobi
same_all "2d5 200x150 jacobi fp32" --poisson=2d5 --nx=200 --ny=150 --pc=jacobi --precision=fp32 \
    --rtol=1e-5
same_all "3d27 20^3 random rhs" --poisson=3d27 --nx=20 --rhs=random --seed=7
same_all "Trefethen_2000 jacobi" --matrix="$IN/Trefethen_2000.mtx" --pc=jacobi
same_all "bcsstk26 jacobi" --matrix="$IN/bcsstk26.mtx" --pc=jacobi --max-it=400
same_all "494_bus" --matrix="$IN/494_bus.mtx" --max-it=400
same_all "nos7 thesis" --matrix="$IN/nos7.mtx" --variant=thesis --max-it=300

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
