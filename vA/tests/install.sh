#!/bin/bash
# cmake --install into a fresh prefix, then the examples built against the
# installed package both ways (find_package(mutirao) and pkg-config with
# mpicc) and run: the public CG call on 1, 2 and 3 ranks takes the iterations
# of `mutirao cg` on the same operator and right-hand side, gives the same
# line on every rank count, and solves it (max |x - 1| small); bad input is
# refused with a message and status 1 on every rank.
source "$(dirname "$0")/lib.sh"
BUILD=$(dirname "$MUTIRAO")
PREFIX=$WORK/prefix
cmake --install "$BUILD" --prefix "$PREFIX" >"$WORK/install.log" 2>&1 ||
    { cat "$WORK/install.log" >&2; fail "cmake --install"; finish; }
for f in bin/mutirao include/mutirao/mutirao.h include/mutirao/cg.h include/mutirao/maxsub.h \
    include/mutirao/fuzzy.h include/mutirao/scenarios.h \
    lib/libmutirao.a \
    lib/libmutirao.so lib/pkgconfig/mutirao.pc lib/cmake/mutirao/mutiraoConfig.cmake; do
    [ -e "$PREFIX/$f" ] || fail "not installed: $f"
done
export LD_LIBRARY_PATH=$PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# A sanitized library needs its runtime in the program too.
SAN=()
[ "${MUTIRAO_SANITIZE:-OFF}" = ON ] && SAN=(-fsanitize=address,undefined)

cmake -S "$SRCDIR/examples" -B "$WORK/ex" -DCMAKE_PREFIX_PATH="$PREFIX" \
    -DCMAKE_C_FLAGS="${SAN[*]}" -DMPI_EXECUTABLE_SUFFIX=.mpich >"$WORK/ex.log" 2>&1 &&
    cmake --build "$WORK/ex" >>"$WORK/ex.log" 2>&1 ||
    { cat "$WORK/ex.log" >&2; fail "examples with find_package(mutirao)"; finish; }
CC_MPI=$(command -v mpicc.mpich || command -v mpicc)
EXAMPLES=(cg_laplace maxsub_check fuzzy_blobs scenarios_tree)
for ex in "${EXAMPLES[@]}"; do
    PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig "$CC_MPI" "${SAN[@]}" \
        $(PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig pkg-config --cflags mutirao) \
        "$SRCDIR/examples/$ex.c" \
        $(PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig pkg-config --libs mutirao) -lm -o "$WORK/${ex}_pc" ||
        fail "example $ex with pkg-config"
done

want=$(run_np 1 cg --poisson=2d5 --nx=48 --rhs=Aones --device=cpu 2>/dev/null |
    sed -n 's/.* iterations=\([0-9]*\) .*/\1/p')
[ -n "$want" ] || fail "mutirao cg on the same operator gave no iteration count"
first=""
for exe in "$WORK/ex/cg_laplace" "$WORK/cg_laplace_pc"; do
    for np in 1 2 3; do
        line=$("$MPIEXEC" -n "$np" "${PREFLAGS[@]}" "$exe" 48 cpu 2>"$WORK/err") ||
            { cat "$WORK/err" >&2; fail "$(basename "$exe") on $np rank(s)"; continue; }
        echo "$np rank(s): $line"
        [ -z "$first" ] && first=$line
        [ "$line" = "$first" ] || fail "$(basename "$exe") on $np rank(s): '$line', want '$first'"
        case $line in *" converged iterations=$want "*) ;;
        *) fail "$np rank(s): not 'converged iterations=$want' as mutirao cg: $line" ;; esac
        python3 -c 'import re,sys; e=float(re.search(r"max\|x-1\|=(\S+)", sys.argv[1]).group(1)); sys.exit(e > 1e-6)' \
            "$line" || fail "$np rank(s): x is not the solution (all ones): $line"
    done
done
# each_run EXAMPLE CHECK ARGS...: both builds of EXAMPLE on 1, 2 and 3 ranks,
# each in a folder of its own ("{dir}" in ARGS), its output in {dir}/out; then
# CHECK EXE NP DIR (not when the run failed).
each_run() {
    local ex=$1 check=$2 exe np d
    shift 2
    for exe in "$WORK/ex/$ex" "$WORK/${ex}_pc"; do
        for np in 1 2 3; do
            d=$WORK/run_$(basename "$exe")_$np
            mkdir -p "$d"
            "$MPIEXEC" -n "$np" "${PREFLAGS[@]}" "$exe" "${@//\{dir\}/$d}" >"$d/out" 2>"$WORK/err" ||
                { cat "$WORK/err" "$d/out" >&2; fail "$(basename "$exe") on $np rank(s)"; continue; }
            "$check" "$exe" "$np" "$d"
        done
    done
}
# maxsub: both calls checked by the example against brute force on rank 0,
# and their lines equal to the command's on the data the example wrote.
check_maxsub() {
    local exe=$1 np=$2 d=$3
    grep -x "brute force: agrees" "$d/out" >/dev/null || fail "$(basename "$exe"): no brute-force check"
    run_np 2 maxsub --device=cpu --input="$d/array.txt" >"$d/cmd" 2>/dev/null ||
        fail "mutirao maxsub on the example's array"
    run_np 2 maxsub --device=cpu --dim=2 --input="$d/matrix.txt" >>"$d/cmd" 2>/dev/null ||
        fail "mutirao maxsub on the example's matrix"
    expect_eq "$(basename "$exe") on $np rank(s) against mutirao maxsub" \
        "$(grep '^maxsub:' "$d/out")" "$(cat "$d/cmd")"
}
each_run maxsub_check check_maxsub 3000 24 40 cpu "{dir}"
# fuzzy: the example checks its prototypes against the blobs' centres and its
# labels against its memberships; its prototypes (bits and object counts) are
# those of mutirao fuzzy on the objects it wrote.
check_fuzzy() {
    local exe=$1 np=$2 d=$3
    grep "^centres: agree" "$d/out" >/dev/null || fail "$(basename "$exe"): no check of the centres"
    run_np 2 fuzzy --device=cpu --input="$d/objects.csv" --output="$d/cmd.csv" >/dev/null 2>&1 ||
        fail "mutirao fuzzy on the example's objects"
    expect_eq "$(basename "$exe") on $np rank(s) against mutirao fuzzy" \
        "$(grep -v '^centres' "$d/out")" "$(cut -d, -f1-4 "$d/cmd.csv")"
}
each_run fuzzy_blobs check_fuzzy 600 cpu "{dir}/objects.csv"
# scenarios: the example checks that the probabilities add up; its tree is
# byte for byte the CSV of mutirao scenarios on the record it wrote.
check_scenarios() {
    local exe=$1 np=$2 d=$3
    grep "^probabilities: add up" "$d/out" >/dev/null || fail "$(basename "$exe"): no check"
    run_np 2 scenarios --device=cpu --input="$d/record.csv" --tree=1,4,3 --m=64 --seed=7 \
        --output="$d/cmd.csv" >/dev/null 2>&1 || fail "mutirao scenarios on the example's record"
    grep -v '^probabilities' "$d/out" >"$d/tree.csv"
    cmp -s "$d/tree.csv" "$d/cmd.csv" &&
        echo "ok: $(basename "$exe") on $np rank(s): the tree of mutirao scenarios ($(wc -l <"$d/cmd.csv") lines)" ||
        fail "$(basename "$exe") on $np rank(s): the tree differs from mutirao scenarios'"
}
each_run scenarios_tree check_scenarios cpu "{dir}/record.csv"
# Refused calls: the command's checks, with a message and status 1.
refused() { # NAME MESSAGE PROGRAM ARGS...
    local name=$1 msg=$2
    shift 2
    if "$MPIEXEC" -n 2 "${PREFLAGS[@]}" "$@" >/dev/null 2>"$WORK/err"; then
        fail "$name: accepted"
    elif ! grep -F -- "$msg" "$WORK/err" >/dev/null; then
        cat "$WORK/err" >&2
        fail "$name: no message '$msg'"
    else
        echo "ok: $name refused: $msg"
    fi
}
refused "fuzzy, device fpga" "mutirao_fuzzy_cluster: device 'fpga': expected auto, cpu or gpu" \
    "$WORK/ex/fuzzy_blobs" 600 fpga
refused "fuzzy, 2 objects of 2 features" "singular" "$WORK/ex/fuzzy_blobs" 2 cpu
refused "maxsub, an empty array" "mutirao_maxsub_1d: the array is empty" "$WORK/ex/maxsub_check" 0
refused "scenarios, tree 1,0" "--tree=1,0: expected positive integers" \
    "$WORK/ex/scenarios_tree" cpu "" 1,0
# A refused call: a device name the library does not know.
if "$MPIEXEC" -n 2 "${PREFLAGS[@]}" "$WORK/ex/cg_laplace" 16 fpga >/dev/null 2>"$WORK/err"; then
    fail "device 'fpga' accepted"
elif [ "$(grep -c "device 'fpga': expected auto, cpu or gpu" "$WORK/err")" -lt 1 ]; then
    cat "$WORK/err" >&2; fail "device 'fpga': no clear message"
fi
finish
