#!/usr/bin/env bash
# One answer whatever the layout: `mutirao fuzzy` on 1, 2, 3 and 4 ranks gives
# the same r, the same prototypes and memberships (within 1e-9 relative; the
# exact reductions make them bitwise equal in practice) and the same labels, in
# exact mode (starts handed out by the task farm) and partitioned mode
# (partitions spread over the ranks, p not a multiple of the ranks, n not a
# multiple of p), with and without z-scores, in 2-D and 4-D.
source "$(dirname "$0")/lib.sh"
IN=$SRCDIR/inputs/fuzzy
CHECK="python3 $SRCDIR/tests/fuzzy_check.py"

# same_all NAME ARGS...: every rank count gives rank 1's r and results.
same_all() {
    local name=$1 np want=""
    shift
    for np in 1 2 3 4; do
        if ! run_np "$np" fuzzy --device=cpu --output-prefix="$WORK/$name-np$np-" "$@" \
            >"$WORK/out" 2>"$WORK/err"; then
            cat "$WORK/err" >&2
            fail "$name on $np ranks: exit status non-zero"
            return
        fi
        local got
        got=$(grep '^fuzzy: ' "$WORK/out")
        if [ "$np" = 1 ]; then
            want=$got
            echo "ok: $name: $got"
            continue
        fi
        [ "$got" = "$want" ] || fail "$name on $np ranks: '$got', want '$want'"
        local out
        if out=$($CHECK same "$WORK/$name-np1-" "$WORK/$name-np$np-" 1e-9); then
            echo "ok: $name, $np ranks: $out"
        else
            fail "$name on $np ranks: $out"
        fi
    done
}

same_all "ruspini exact" --input="$IN/ruspini.csv"
same_all "iris exact printed z-scored" --input="$IN/iris.csv" --label-column=Species \
    --r-norm=printed --zscore
same_all "iris exact density merged" --input="$IN/iris.csv" --label-column=Species --eps2=0.1 \
    --merge=yes
same_all "faithful partitioned p=3 z-scored" --input="$IN/faithful.csv" --zscore \
    --mode=partitioned --partitions=3
same_all "blobs 2000 exact farm-chunk 1" --gen=blobs --n=2000 --seed=5 --farm-chunk=1
same_all "blobs 3001 partitioned p=5" --gen=blobs --n=3001 --seed=6 --mode=partitioned \
    --partitions=5
same_all "xclara partitioned p=4 k=3" --input="$IN/xclara.csv" --mode=partitioned --partitions=4 \
    --k=3
finish
