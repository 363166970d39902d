#!/usr/bin/env bash
# The GPU path of `mutirao fuzzy` against the CPU: the same result line (r, raw
# and merged prototype counts, starts that did not converge), the same total
# iteration count, and the same prototypes and memberships within 1e-9
# relative (bitwise in practice: the kernel does the CPU's arithmetic in the
# CPU's order) with identical labels, on the bundled sets and a seeded
# 10000-point blob set, in exact mode (task farm of start ranges on several
# ranks) and partitioned mode (all of a rank's partitions in one launch), on 1
# and 2 ranks with --device=gpu; the accepted (raw) prototypes bitwise, which
# in partitioned mode checks the device acceptance against mu_fm_accept on the
# bundled sets. --arith=fast against the bitwise GPU run: the same prototype
# count, prototypes within 1e-4/r (a hundred times the eps1 step), memberships
# within 1e-4, at least 99.9 % of the labels the same; and the fast run's files
# byte for byte the same on 1 and 3 ranks (its sums do not depend on the
# layout). Exit 77 (skipped) without a CUDA device.
source "$(dirname "$0")/lib.sh"
IN=$SRCDIR/inputs/fuzzy
CHECK="python3 $SRCDIR/tests/fuzzy_check.py"

set +e
run_np 1 fuzzy --device=gpu --input="$IN/ruspini.csv" >"$WORK/probe" 2>&1
rc=$?
set -e
if [ $rc -ne 0 ]; then
    if grep -q -e "sees no CUDA device" -e "no CUDA support" -e "no device" "$WORK/probe"; then
        echo "SKIP: no CUDA device"
        exit 77
    fi
    cat "$WORK/probe" >&2
    fail "probe run on the GPU: exit status $rc"
    finish
fi

iterations() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['result']['iterations_total'])" "$1"; }

# one NAME DEVICE NP ARGS...: a run writing $WORK/NAME-*.csv and NAME.json.
one() {
    local name=$1 dev=$2 np=$3
    shift 3
    if ! run_np "$np" fuzzy --device="$dev" --output-prefix="$WORK/$name-" \
        --summary="$WORK/$name.json" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"; then
        cat "$WORK/$name.err" >&2
        fail "$name: exit status non-zero"
        return 1
    fi
    if [ "$dev" = gpu ] && ! grep -q "runs on the GPU of $np of $np rank" "$WORK/$name.err"; then
        fail "$name: not every rank ran the iteration on the GPU"
    fi
}

# cpu_gpu NAME ARGS...: the CPU on 1 rank, the GPU on 1 and 2 ranks.
cpu_gpu() {
    local name=$1
    shift
    one "$name-cpu" cpu 1 "$@" || return
    local want
    want="$(grep '^fuzzy: ' "$WORK/$name-cpu.out") it=$(iterations "$WORK/$name-cpu.json")"
    echo "cpu: $name: $want"
    for np in 1 2; do
        one "$name-gpu$np" gpu "$np" "$@" || continue
        local got out
        got="$(grep '^fuzzy: ' "$WORK/$name-gpu$np.out") it=$(iterations "$WORK/$name-gpu$np.json")"
        [ "$got" = "$want" ] || fail "$name, GPU on $np rank(s): '$got', want '$want'"
        # The accepted list itself, exactly (%.17g): partitioned runs accept
        # on the device, the CPU with mu_fm_accept.
        cmp -s "$WORK/$name-cpu-raw.csv" "$WORK/$name-gpu$np-raw.csv" ||
            fail "$name, GPU on $np rank(s): raw prototypes differ from the CPU's"
        if out=$($CHECK same "$WORK/$name-cpu-" "$WORK/$name-gpu$np-" 1e-9); then
            echo "ok: $name, GPU on $np rank(s): $out"
        else
            fail "$name, GPU on $np rank(s): $out"
        fi
    done
}

cpu_gpu ruspini --input="$IN/ruspini.csv"
cpu_gpu faithful-z --input="$IN/faithful.csv" --zscore
cpu_gpu iris-printed --input="$IN/iris.csv" --label-column=Species --r-norm=printed --eps2=0.5
cpu_gpu iris-density --input="$IN/iris.csv" --label-column=Species --eps2=0.1 --merge=yes
cpu_gpu xclara --input="$IN/xclara.csv"
cpu_gpu xclara-p4 --input="$IN/xclara.csv" --mode=partitioned --partitions=4
cpu_gpu faithful-p3 --input="$IN/faithful.csv" --zscore --mode=partitioned --partitions=3
cpu_gpu blobs10k --gen=blobs --n=10000 --seed=2017
cpu_gpu blobs10k-p8 --gen=blobs --n=10000 --seed=2017 --mode=partitioned --partitions=8
cpu_gpu blobs10k-p3 --gen=blobs --n=10000 --seed=2017 --mode=partitioned --partitions=3
cpu_gpu blobs5k-sum256 --gen=blobs --n=5000 --seed=9 --sum-block=256 --farm-chunk=700
# fast NAME ARGS...: --arith=fast on 1 and 3 ranks against NAME's bitwise GPU run.
fast() {
    local name=$1
    shift
    one "$name-fast1" gpu 1 --arith=fast "$@" || return
    one "$name-fast3" gpu 3 --arith=fast "$@" || return
    grep -q "arith=fast: fused" "$WORK/$name-fast1.err" || fail "$name: the fast form did not run"
    local r out f
    r=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['r'])" "$WORK/$name-gpu1.json")
    if out=$($CHECK near "$WORK/$name-gpu1-" "$WORK/$name-fast1-" "$(python3 -c "print(1e-4 / $r)")" 1e-4 0.999); then
        echo "ok: $name, fast against bitwise: $out"
    else
        fail "$name, fast against bitwise: $out"
    fi
    for f in prototypes memberships labels raw; do
        cmp -s "$WORK/$name-fast1-$f.csv" "$WORK/$name-fast3-$f.csv" ||
            fail "$name: fast $f.csv differs between 1 and 3 ranks"
    done
}
fast xclara --input="$IN/xclara.csv"
fast iris-density --input="$IN/iris.csv" --label-column=Species --eps2=0.1 --merge=yes
fast blobs10k --gen=blobs --n=10000 --seed=2017
fast blobs10k-p3 --gen=blobs --n=10000 --seed=2017 --mode=partitioned --partitions=3

# The seeded 10000-point set: 3 prototypes at the study's centres.
if check_out=$($CHECK protos "$WORK/blobs10k-gpu1-" "400,400;400,1090;1125,750" 30); then
    echo "ok: blobs 10k exact on the GPU: $check_out"
else
    fail "blobs 10k exact on the GPU: $check_out"
fi
finish
