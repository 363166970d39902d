#!/usr/bin/env bash
# --variant=thesis reproduces the study's coded CG (the CG of its annex source
# listing): its update order, 0-based nro_iter and absolute test ||r|| < 1e-5.
# Regression values of the study's listed code (run on a CPU) on the 2-D 5-point
# Poisson operator, and an exact 2 x 2 trace, hold on 1 and 3 ranks.
source "$(dirname "$0")/lib.sh"

# nro NAME WANT ARGS...: nro_iter on 1 and 3 ranks.
nro() {
    local name=$1 want=$2 np
    shift 2
    for np in 1 3; do
        run_np "$np" cg --variant=thesis "$@" >"$WORK/out" 2>"$WORK/err" ||
            { fail "$name on $np ranks: exit status $?"; cat "$WORK/err" >&2; continue; }
        expect_eq "$name, $np rank(s): nro_iter" "$(grep -o 'nro_iter=[0-9]*' "$WORK/out" | cut -d= -f2)" "$want"
    done
}
# The study's code: 32 x 32, b = A 1: 52 in float and in double.
nro "2d5 32x32 Aones fp32" 52 --poisson=2d5 --nx=32
nro "2d5 32x32 Aones fp64" 52 --poisson=2d5 --nx=32 --precision=fp64
# The study's code: 100 x 100, b = A 1: 163 in float and in double; b = 1: 169 in double.
nro "2d5 100x100 Aones fp32" 163 --poisson=2d5 --nx=100
nro "2d5 100x100 Aones fp64" 163 --poisson=2d5 --nx=100 --precision=fp64
nro "2d5 100x100 ones fp64" 169 --poisson=2d5 --nx=100 --precision=fp64 --rhs=ones
# b = 1 in float: the study's sequential float dots take 218; exact dots take 202.
nro "2d5 100x100 ones fp32 (exact dots)" 202 --poisson=2d5 --nx=100 --rhs=ones

# The 2 x 2 trace: A = [[3, 2], [2, 6]], b = A 1 = (5, 8): x = (1, 1) after 2 products.
printf '%%%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 1 3\n2 1 2\n2 2 6\n' >"$WORK/a2.mtx"
run_np 1 cg --variant=thesis --precision=fp64 --matrix="$WORK/a2.mtx" --atol=1e-12 \
    --output="$WORK/x2.txt" >"$WORK/out" 2>/dev/null || fail "2x2 trace: exit status $?"
expect_eq "2x2 trace: iterations" "$(grep -o ' iterations=[0-9]*' "$WORK/out" | cut -d= -f2)" 2
expect_eq "2x2 trace: x" "$(awk '{ printf "%.12f ", $1 }' "$WORK/x2.txt")" "1.000000000000 1.000000000000 "
finish
