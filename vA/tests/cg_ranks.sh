#!/usr/bin/env bash
# One answer whatever the layout: `mutirao cg` on 1, 2, 3 and 4 ranks takes the
# same number of iterations and writes bitwise the same solution, on every
# bundled matrix (inputs/cg/) and on the 2-D, 3-D and 27-point Poisson
# operators, without a preconditioner and with Jacobi, in fp64 and fp32 (the
# combinations spread over the problems and rank counts so the suite stays
# within a minute or two under ASan on 2 cores). Also: a gzip copy reads the
# same, and b = A 1 gives a small error where the matrix is well conditioned.
source "$(dirname "$0")/lib.sh"
IN=$SRCDIR/inputs/cg

# same_on NAME "NP..." ARGS...: each listed rank count gives the first one's result line
# and solution (the first listed is 1).
same_on() {
    local name=$1 nps=$2 np
    shift 2
    for np in $nps; do
        cg_run "$name on $np ranks" "$np" --device=cpu --output="$WORK/x$np.txt" "$@" || return 0
        if cg_same_as_1 "$name" "$np" && [ "$np" != 1 ]; then
            echo "ok:   the same on $np ranks"
        fi
    done
}

combos=("--pc=none --precision=fp64" "--pc=jacobi --precision=fp64"
    "--pc=none --precision=fp32 --rtol=1e-5" "--pc=jacobi --precision=fp32 --rtol=1e-5")

# Every bundled matrix on 1-4 ranks, the four combinations in turn (each one on
# three matrices). --max-it bounds the slow ones: equality at iteration 150 is
# as strict a test as at convergence, and keeps the suite short under ASan.
k=0
for f in "$IN"/*.mtx; do
    c=${combos[k % 4]}
    k=$((k + 1))
    # shellcheck disable=SC2086
    same_on "$(basename "$f") $c" "1 2 3 4" --matrix="$f" $c --max-it=150
done
# The Poisson operators: every combination on 1 rank and one other, in turn,
# plus a full 1-4 sweep of one combination per operator.
k=0
for p in "--poisson=2d5 --nx=23 --ny=17" "--poisson=3d7 --nx=9 --ny=8 --nz=7" \
    "--poisson=3d27 --nx=7 --ny=6 --nz=5 --rhs=random --seed=5"; do
    for c in "${combos[@]}"; do
        # shellcheck disable=SC2086
        same_on "$p $c" "1 $((2 + k % 3))" $p $c
        k=$((k + 1))
    done
    # shellcheck disable=SC2086
    same_on "$p ${combos[k % 4]}" "1 2 3 4" $p ${combos[k % 4]}
done
same_on "2d5 ones, residual replacement every 7" "1 3" --poisson=2d5 --nx=30 --rhs=ones \
    --replace-every=7

# gzip is read directly, with the same result as the plain file.
gzip -c "$IN/nos5.mtx" >"$WORK/nos5.mtx.gz"
run_np 1 cg --matrix="$IN/nos5.mtx" --pc=jacobi --output="$WORK/plain.txt" >"$WORK/plain" 2>/dev/null
run_np 3 cg --matrix="$WORK/nos5.mtx.gz" --pc=jacobi --output="$WORK/gz.txt" >"$WORK/gz" 2>/dev/null
expect_eq "gzip copy, 3 ranks" "$(cg_status "$WORK/gz")" "$(cg_status "$WORK/plain")"
cmp -s "$WORK/plain.txt" "$WORK/gz.txt" || fail "gzip copy: solution differs"

# b = A 1: the error ||x - 1|| / ||1|| is small on well-conditioned problems.
small_error() {
    local name=$1 limit=$2
    shift 2
    run_np 2 cg "$@" >"$WORK/out" 2>/dev/null || { fail "$name: exit status $?"; return; }
    local e
    e=$(grep -o 'error=[^ ]*' "$WORK/out" | cut -d= -f2)
    if awk -v e="$e" -v l="$limit" 'BEGIN { exit !(e + 0 <= l + 0) }'; then
        echo "ok: $name: error $e <= $limit"
    else
        fail "$name: error '$e' > $limit"
    fi
}
small_error "gr_30_30" 1e-9 --matrix="$IN/gr_30_30.mtx" --rtol=1e-12
small_error "mesh1e1" 1e-9 --matrix="$IN/mesh1e1.mtx" --rtol=1e-12
small_error "Trefethen_2000 jacobi" 1e-9 --matrix="$IN/Trefethen_2000.mtx" --pc=jacobi --rtol=1e-12
small_error "3d7 16^3" 1e-9 --poisson=3d7 --nx=16 --rtol=1e-12
small_error "3d27 12^3 fp32" 1e-4 --poisson=3d27 --nx=12 --precision=fp32 --rtol=1e-6
finish
