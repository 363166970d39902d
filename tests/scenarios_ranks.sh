#!/usr/bin/env bash
# One answer whatever the layout: `mutirao scenarios` on 1, 2, 3 and 4 ranks
# (and on 2 ranks of 3 host threads each) writes byte-identical trees (CSV and JSON), comb series, openings
# and statistics reports, with both aggregation methods and both correlation spaces; every tree has
# non-negative inflows, children's probabilities summing to 1 and consistent path probabilities
# (tests/scenarios_check.py); the openings are checked by tests/scenarios_openings_check.py.
source "$(dirname "$0")/lib.sh"
IN=$SRCDIR/inputs/scenarios/ons_inflows_64.csv
CHECK="python3 $SRCDIR/tests/scenarios_check.py"
OPENINGS="python3 $SRCDIR/tests/scenarios_openings_check.py"

same_all() { # name, options...
    local name=$1 np
    shift
    for np in 1 2 3 4; do
        local p="$WORK/$name-np$np"
        if ! run_np "$np" scenarios --device=cpu --input="$IN" --output="$p.csv" \
            --stats="$p-stats.csv" --stats-series=40 --stats-years=2 "$@" >"$p.out" 2>"$p.err"; then
            cat "$p.err" >&2
            fail "$name on $np ranks: exit status non-zero"
            return
        fi
        if [ "$np" = 1 ]; then
            echo "ok: $name: $(grep '^scenarios: ' "$p.out")"
            case " $* " in *" --mode=comb "*) ;; *" --mode=openings "*)
                local out
                if out=$($OPENINGS "$p.csv"); then echo "ok: $name: $out"; else fail "$name: $out"; fi ;;
                *)
                local out
                if out=$($CHECK "$p.csv"); then echo "ok: $name: $out"; else fail "$name: $out"; fi ;;
            esac
            continue
        fi
        local f
        for f in .csv -stats.csv .out; do
            cmp -s "$WORK/$name-np1$f" "$p$f" || fail "$name: $f on $np ranks differs from 1 rank"
        done
        if [ -f "$WORK/$name-np1.json" ]; then
            cmp -s "$WORK/$name-np1.json" "$p.json" || fail "$name: JSON on $np ranks differs"
        fi
        echo "ok: $name: $np ranks identical to 1"
    done
    # Host threads inside the ranks (a stage's nodes side by side): the same bytes.
    local p="$WORK/$name-threads"
    run_np 2 scenarios --device=cpu --input="$IN" --output="$p.csv" --stats="$p-stats.csv" \
        --stats-series=40 --stats-years=2 --threads=3 "$@" >"$p.out" 2>"$p.err" ||
        { cat "$p.err" >&2; fail "$name on 2 ranks x 3 threads: exit status non-zero"; return; }
    for f in .csv -stats.csv; do
        cmp -s "$WORK/$name-np1$f" "$p$f" || fail "$name: $f with 3 threads per rank differs"
    done
    echo "ok: $name: 2 ranks x 3 threads identical to 1 rank"
}

same_all "tree 1,6,5 v2, 16 stations" --nstations=16 --tree=1,6,5 --m=256 --method=v2
same_all "tree 1,4,3,2 hw, 8 stations" --nstations=8 --tree=1,4,3,2 --m=128 --method=hw \
    --start=1990-05 --seed=7
same_all "tree 1,5,3 lognormal correlation, 6 stations" --nstations=6 --tree=1,5,3 --m=200 \
    --corr=lognormal
same_all "comb 300 x 6, 10 stations" --nstations=10 --mode=comb --series=300 --horizon=6 --seed=3
same_all "openings 14 stages x M=240 into 9, 12 stations" --nstations=12 --mode=openings \
    --horizon=14 --m=240 --openings=9 --seed=5
# The job deck gives the same tree as the same settings on the command line,
# run from another directory (its input path is taken from the deck's folder).
(cd "$WORK" && run_np 2 scenarios --device=cpu --config="$SRCDIR/inputs/scenarios/study_6000.ini" \
    --tree=1,4,3 --m=128 --stats-series=0 --output="$WORK/deck.csv" >/dev/null 2>"$WORK/deck.err") ||
    { cat "$WORK/deck.err" >&2; fail "run from the deck"; }
run_np 1 scenarios --device=cpu --input="$IN" --start=2021-01 --seed=2016 --method=v2 --pmax=6 \
    --tree=1,4,3 --m=128 --stats-series=0 --output="$WORK/nodeck.csv" >/dev/null 2>&1 ||
    fail "run without the deck"
cmp -s "$WORK/deck.csv" "$WORK/nodeck.csv" && echo "ok: deck inputs/scenarios/study_6000.ini = command line" ||
    fail "the deck's tree differs from the command line's"
finish
