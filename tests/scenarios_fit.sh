#!/usr/bin/env bash
# The PAR(p) fit on the real records against an independent computation
# (tests/scenarios_yw_check.py: a dense solve of each month's Yule-Walker system
# from the raw records, standard-library Python): orders equal, coefficients,
# partial autocorrelations, noise variances and moments to 1e-10, with the CEPEL
# conventions (1/N) and with the alternatives (1/(N-1), pairs), p_max 6 and 4.
source "$(dirname "$0")/lib.sh"
IN=$SRCDIR/inputs/scenarios/ons_inflows_64.csv
CHECK="python3 $SRCDIR/tests/scenarios_yw_check.py"

fit() { # name, options...
    local name=$1
    shift
    if ! run_np 1 scenarios --device=cpu --input="$IN" --tree=1,2 --m=16 --stats-series=0 \
        --model="$WORK/$name.json" "$@" >"$WORK/out" 2>"$WORK/err"; then
        cat "$WORK/err" >&2
        fail "$name: mutirao failed"
        return
    fi
    local out
    if out=$($CHECK "$IN" "$WORK/$name.json" 1e-10); then
        echo "ok: $name: $out"
    else
        fail "$name: $out"
    fi
}

fit "CEPEL conventions, all 64 stations"
# The record's p002 repeats p001 column for column (checked here from the file),
# so each month's residual correlation is singular: one warning, naming p002.
python3 - "$IN" <<'PY' || fail "p002 is no longer a copy of p001 in the record: update this check"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
sys.exit(any(r["p001"] != r["p002"] for r in rows))
PY
n=$(grep -c "not positive definite" "$WORK/err" || true)
[ "$n" = 1 ] || fail "$n non-positive-definite warnings, want 1"
grep -q "month(s) 1,2,3,4,5,6,7,8,9,10,11,12: p002 is a linear combination" "$WORK/err" ||
    { grep "definite" "$WORK/err" >&2; fail "the warning does not name p002 and the months"; }
# --drop-dependent leaves p002 out and fits again: no warning, the log names
# p002, and the tree is byte for byte that of the 63 other stations by name.
others=$(head -n 1 "$IN" | tr ',' '\n' | sed '1,2d' | grep -v -x p002 | paste -s -d,)
tree=(--device=cpu --input="$IN" --tree=1,3 --m=64 --stats-series=0)
run_np 2 scenarios "${tree[@]}" --drop-dependent --output="$WORK/dd.csv" >/dev/null 2>"$WORK/dd.err" ||
    fail "--drop-dependent run failed"
run_np 2 scenarios "${tree[@]}" --stations="$others" --output="$WORK/63.csv" >/dev/null 2>&1 ||
    fail "63-station run failed"
grep -q "leaving out 1 station(s) that are linear combinations of others: p002" "$WORK/dd.err" ||
    fail "--drop-dependent did not name p002"
grep -q "not positive definite" "$WORK/dd.err" && fail "--drop-dependent still warns"
if cmp -s "$WORK/dd.csv" "$WORK/63.csv"; then
    echo "ok: --drop-dependent: p002 left out, the tree of the 63 others byte for byte"
else
    fail "--drop-dependent tree differs from the tree of the 63 other stations"
fi
# The months' correlations and factors are computed on threads: the model and a
# tree generated from it are byte for byte the same on 1 and 3 threads.
for t in 1 3; do
    OMP_NUM_THREADS=$t run_np 1 scenarios "${tree[@]}" --model="$WORK/model$t.json" \
        --output="$WORK/tree$t.csv" >/dev/null 2>&1 || fail "the run on $t thread(s) failed"
done
if cmp -s "$WORK/model1.json" "$WORK/model3.json" && cmp -s "$WORK/tree1.csv" "$WORK/tree3.csv"; then
    echo "ok: the model and its tree the same on 1 and 3 threads"
else
    fail "the model or its tree differs between 1 and 3 threads"
fi
# A stage of fewer nodes than threads leaves each lane threads for its node's
# host loops (from 8192 scenarios): 3 nodes on 6 threads, against 1 thread.
big=(--device=cpu --input="$IN" --tree=1,3 --m=8192 --stats-series=0)
for t in 1 6; do
    OMP_NUM_THREADS=$t run_np 1 scenarios "${big[@]}" --output="$WORK/big$t.csv" >/dev/null 2>&1 ||
        fail "the M = 8192 run on $t thread(s) failed"
done
if cmp -s "$WORK/big1.csv" "$WORK/big6.csv"; then
    echo "ok: M = 8192, 3 nodes on 6 threads (2 a lane): the tree of 1 thread"
else
    fail "M = 8192: the tree on 6 threads differs from 1 thread's"
fi
fit "N-1 and pairs, p_max 4" --stations=p006,p074,p047,p061,p092 --sd-denominator=n-1 \
    --acf-denominator=pairs --pmax=4
finish
