#!/usr/bin/env bash
# The forms of representative (--representative=nearest|centroid|scaled): for
# each, trees on 1, 2, 3 and 4 ranks (the root shared by the ranks) and on
# 2 ranks x 3 host threads are byte-identical, with non-negative inflows,
# children's probabilities summing to 1 and consistent path probabilities
# (scenarios_check.py). From each node's generated scenarios
# (--node-scenarios), an independent script (scenarios_mean_check.py) finds
# that under centroid and scaled every node's probability-weighted child mean
# is its sample mean within 1e-9 relative, and that the nearest form's
# children are scenarios the node drew (whose mean it does not keep: the
# check must fail there, or it would prove nothing). Also: the summary's
# tree_node_mean_rel, a checkpoint of one form refused by another, and
# --representative refused in comb mode.
source "$(dirname "$0")/lib.sh"
IN=$SRCDIR/inputs/scenarios/ons_inflows_64.csv
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
CHECK="$PY $SRCDIR/tests/scenarios_check.py"
MEAN="$PY $SRCDIR/tests/scenarios_mean_check.py"
ARGS=(--device=cpu --input="$IN" --nstations=12 --tree=1,7,4,3 --m=200 --stats-series=0)

for rep in nearest centroid scaled; do
    for np in 1 2 3 4; do
        p="$WORK/$rep-np$np"
        run_np "$np" scenarios "${ARGS[@]}" --representative=$rep --output="$p.csv" \
            --node-scenarios="$p-nodes.csv" --summary="$p.json" >"$p.out" 2>"$p.err" ||
            { cat "$p.err" >&2; fail "$rep on $np ranks: exit status non-zero"; continue; }
        if [ $np = 1 ]; then
            if out=$($CHECK "$p.csv"); then echo "ok: $rep: $out"; else fail "$rep: $out"; fi
            continue
        fi
        for f in .csv -nodes.csv; do
            cmp -s "$WORK/$rep-np1$f" "$p$f" || fail "$rep: $f on $np ranks differs from 1 rank"
        done
        echo "ok: $rep: $np ranks identical to 1"
    done
    p="$WORK/$rep-threads"
    run_np 2 scenarios "${ARGS[@]}" --representative=$rep --threads=3 --output="$p.csv" \
        >/dev/null 2>"$p.err" || { cat "$p.err" >&2; fail "$rep, 2 ranks x 3 threads"; }
    cmp -s "$WORK/$rep-np1.csv" "$p.csv" && echo "ok: $rep: 2 ranks x 3 threads identical" ||
        fail "$rep: 2 ranks x 3 threads differ from 1 rank"
done

# The mean-keeping forms, checked from the files alone.
for rep in centroid scaled; do
    p="$WORK/$rep-np1"
    if out=$($MEAN "$p.csv" "$p-nodes.csv" mean); then echo "ok: $rep keeps the mean: $out"; else
        fail "$rep: $out"; fi
done
p="$WORK/nearest-np1"
if out=$($MEAN "$p.csv" "$p-nodes.csv" members); then echo "ok: nearest picks members: $out"; else
    fail "nearest: $out"; fi
if out=$($MEAN "$p.csv" "$p-nodes.csv" mean); then
    fail "the mean check passes the nearest form too, so it cannot tell ($out)"
else
    echo "ok: the mean check rejects the nearest form ($(echo "$out" | tail -n 1))"
fi
# The forms differ, and the summary's worst node-mean difference says which keeps the mean.
cmp -s "$WORK/nearest-np1.csv" "$WORK/centroid-np1.csv" && fail "centroid gave the nearest tree"
for rep in nearest centroid scaled; do
    v=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["result"]["tree_node_mean_rel"])' \
        "$WORK/$rep-np1.json")
    case $rep in
    nearest) ok=$(awk -v v="$v" 'BEGIN { print (v > 1e-6) }') ;;
    *) ok=$(awk -v v="$v" 'BEGIN { print (v < 1e-12) }') ;;
    esac
    [ "$ok" = 1 ] && echo "ok: $rep: summary tree_node_mean_rel=$v" ||
        fail "$rep: summary tree_node_mean_rel=$v"
done

# A checkpoint of one form does not resume another.
run_np 1 scenarios "${ARGS[@]}" --representative=centroid --checkpoint="$WORK/c.ckpt" \
    --checkpoint-every=1 >/dev/null 2>&1 || fail "centroid run with checkpoints"
check_failure "restart with another representative" "other options" nonzero "$WORK/none*" \
    "$MPIEXEC" -n 1 "${PREFLAGS[@]}" "$MUTIRAO" scenarios "${ARGS[@]}" --representative=scaled --checkpoint="$WORK/c.ckpt" --restart
run_np 2 scenarios "${ARGS[@]}" --representative=centroid --checkpoint="$WORK/c.ckpt" --restart \
    --output="$WORK/restart.csv" >/dev/null 2>"$WORK/restart.err" ||
    { cat "$WORK/restart.err" >&2; fail "centroid restart"; }
cmp -s "$WORK/restart.csv" "$WORK/centroid-np1.csv" && echo "ok: centroid restart = one run" ||
    fail "centroid restart differs from the run that never stopped"
check_failure "--representative in comb mode" "for the tree" nonzero "$WORK/none*" \
    "$MPIEXEC" -n 1 "${PREFLAGS[@]}" "$MUTIRAO" scenarios --device=cpu --input="$IN" --mode=comb --representative=centroid
finish
