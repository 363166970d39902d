#!/usr/bin/env bash
# Exact mode with the data passed around a ring of ranks (--ring): each rank
# holds only its whole summation blocks, the blocks travel, and the block sums
# are added in global block order, so the ring gives bitwise the replicated
# answer: the same result line, the same total iteration count, and identical
# prototypes.csv, memberships.csv and labels.csv, on 1, 2, 3 and 4 ranks; also
# when --ring=auto picks it (the set above --mem-limit), with z-scores, and in
# 4-D (the general one-lane sums).
source "$(dirname "$0")/lib.sh"

iterations() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['result']['iterations_total'])" "$1"; }

# ring_case NAME RING_ARGS -- ARGS...: the replicated run on 2 ranks against the ring on 1-4.
ring_case() {
    local name=$1
    shift
    local ring=()
    while [ "$1" != "--" ]; do
        ring+=("$1")
        shift
    done
    shift
    if ! run_np 2 fuzzy --device=cpu --ring=no --output-prefix="$WORK/$name-ref-" \
        --summary="$WORK/$name-ref.json" "$@" >"$WORK/ref.out" 2>"$WORK/ref.err"; then
        cat "$WORK/ref.err" >&2
        fail "$name: replicated run failed"
        return
    fi
    local want
    want="$(grep '^fuzzy: ' "$WORK/ref.out") it=$(iterations "$WORK/$name-ref.json")"
    echo "replicated: $name: $want"
    for np in 1 2 3 4; do
        if ! run_np "$np" fuzzy --device=cpu "${ring[@]}" --output-prefix="$WORK/$name-$np-" \
            --summary="$WORK/$name-$np.json" "$@" >"$WORK/ring.out" 2>"$WORK/ring.err"; then
            cat "$WORK/ring.err" >&2
            fail "$name: ring on $np rank(s) failed"
            continue
        fi
        grep -q "fuzzy: the ring:" "$WORK/ring.err" || fail "$name, $np rank(s): the ring was not used"
        local got
        got="$(grep '^fuzzy: ' "$WORK/ring.out") it=$(iterations "$WORK/$name-$np.json")"
        [ "$got" = "$want" ] || fail "$name, ring on $np rank(s): '$got', want '$want'"
        local f same=1
        for f in prototypes memberships labels; do
            cmp -s "$WORK/$name-ref-$f.csv" "$WORK/$name-$np-$f.csv" || {
                same=0
                fail "$name, ring on $np rank(s): $f.csv differs from the replicated run"
            }
        done
        [ $same = 1 ] && echo "ok: $name, ring on $np rank(s): bitwise the replicated answer"
    done
}

ring_case blobs1000 --ring=yes -- --gen=blobs --n=1000 --seed=4 --sum-block=256
ring_case blobs700-auto --mem-limit=0.01 -- --gen=blobs --n=700 --seed=8 --sum-block=256 --zscore
ring_case blobs4d --ring=yes -- --gen=blobs --n=600 --seed=3 --sum-block=256 \
    --centers="0,0,0,0;300,300,300,300;600,0,600,0" --sigma=90
# The partitioned mode has no ring: asking for one is refused.
check_failure "ring in partitioned mode" "--ring goes with --mode=exact" nonzero "none" \
    "$MPIEXEC" -n 1 "${PREFLAGS[@]}" "$MUTIRAO" fuzzy --device=cpu --gen=blobs --n=100 \
    --mode=partitioned --ring=yes
finish
