#!/usr/bin/env bash
# The reference vectors of docs/fuzzy.md at the command level:
# Iris in both r forms, the 90-object stand-in, the group
# counts of Old Faithful, Ruspini and xclara (inputs/fuzzy), and a seeded
# 10000-point three-blob set (the study's test 2 analogue) giving 3 prototypes.
source "$(dirname "$0")/lib.sh"
IN=$SRCDIR/inputs/fuzzy
CHECK="python3 $SRCDIR/tests/fuzzy_check.py"

# fz NAME NP ARGS...: one run writing $WORK/NAME-*.csv; its result line goes to $WORK/NAME.line.
fz() {
    local name=$1 np=$2
    shift 2
    if ! run_np "$np" fuzzy --device=cpu --output-prefix="$WORK/$name-" "$@" >"$WORK/$name.out" \
        2>"$WORK/$name.err"; then
        cat "$WORK/$name.err" >&2
        fail "$name: exit status non-zero"
        return 1
    fi
    grep '^fuzzy: ' "$WORK/$name.out" >"$WORK/$name.line"
    echo "ran: $name: $(cat "$WORK/$name.line")"
}

# field NAME KEY: KEY=value from the result line.
field() { tr ' ' '\n' <"$WORK/$1.line" | sed -n "s/^$2=//p"; }

# near WHAT GOT WANT TOL
near() {
    if python3 -c "import sys; sys.exit(0 if abs(float('$2') - float('$3')) <= float('$4') else 1)"; then
        echo "ok: $1 = $2 (want $3 +- $4)"
    else
        fail "$1: got $2, want $3 +- $4"
    fi
}

check() {
    local what=$1
    shift
    local out
    if out=$($CHECK "$@"); then echo "ok: $what: $out"; else fail "$what: $out"; fi
}

# ---- Iris, printed r: r = 1.446719, 2 prototypes, 51/99, first object's memberships.
if fz iris_printed 2 --input="$IN/iris.csv" --label-column=Species --r-norm=printed --eps2=0.5; then
    near "iris printed r" "$(field iris_printed r)" 1.446719 5e-7
    check "iris printed prototypes" protos "$WORK/iris_printed-" \
        "5.0027,3.3978,1.4920,0.2508;6.1731,2.8804,4.7634,1.6050" 1e-4
    check "iris printed split" classes "$WORK/iris_printed-" "setosa:50,versicolor:1|versicolor:49,virginica:50"
    check "iris printed object 0" member "$WORK/iris_printed-" 0 0.93914,0.03123 1e-5
fi

# ---- Iris, density r: r = 3.60561, 7 raw prototypes (eps2 = (0.1/r)^2), 3 groups after the
# widest-gap merge: 50 setosa; 50 versicolor + 29 virginica; 21 virginica.
if fz iris_density 3 --input="$IN/iris.csv" --label-column=Species --eps2=0.1 --merge=yes; then
    near "iris density r" "$(field iris_density r)" 3.60561 5e-6
    expect_eq "iris density raw prototypes" "$(field iris_density raw)" 7
    check "iris density groups" classes "$WORK/iris_density-" \
        "setosa:50|versicolor:50,virginica:29|virginica:21"
fi

# ---- The 90-object stand-in: a 3x3 grid plus a 9x9 grid.
{
    echo "x,y"
    for x in 1 2 3; do for y in 4 5 6; do echo "$x,$y"; done; done
    for x in $(seq 8 16); do for y in $(seq 1 9); do echo "$x,$y"; done; done
} >"$WORK/grid90.csv"
if fz grid_density 1 --input="$WORK/grid90.csv"; then
    near "grid90 density r" "$(field grid_density r)" 1.019 5e-4
    check "grid90 density prototypes" protos "$WORK/grid_density-" "2.12,5.00;11.98,5.00" 5e-3
    check "grid90 density sizes" sizes "$WORK/grid_density-" 9,81 0
fi
if fz grid_printed 1 --input="$WORK/grid90.csv" --r-norm=printed; then
    near "grid90 printed r" "$(field grid_printed r)" 0.2401 5e-5
    check "grid90 printed: one prototype" count "$WORK/grid_printed-" 1
fi
for p in 2 4; do
    if fz grid_p$p $p --input="$WORK/grid90.csv" --r=0.892701 --mode=partitioned --partitions=$p; then
        check "grid90 r=0.8927 p=$p merged groups" sizes "$WORK/grid_p$p-" 9,81 0
    fi
done

# ---- Group counts of the public sets, density r, exact mode.
if fz faithful 2 --input="$IN/faithful.csv" --zscore; then
    check "Old Faithful (z-scored): 2 groups" sizes "$WORK/faithful-" 97,175 0
fi
if fz ruspini 2 --input="$IN/ruspini.csv"; then
    check "Ruspini: 4 groups" sizes "$WORK/ruspini-" 15,17,20,23 0
fi
if fz xclara 2 --input="$IN/xclara.csv"; then
    check "xclara: 3 groups" sizes "$WORK/xclara-" 900,950,1150 7
fi

# ---- The study's test 2 analogue: 10000 Philox blobs (sigma 110, integer coordinates) at
# (400,400), (400,1090), (1125,750); density r near 0.0274. Partitioned with
# p = 4 (exact mode on 10^4 points is the GPU's job), and exact on 3000 of the same kind.
if fz blobs10k 2 --gen=blobs --n=10000 --seed=2017 --mode=partitioned --partitions=4; then
    near "blobs 10k r" "$(field blobs10k r)" 0.0274 1e-3
    check "blobs 10k p=4: 3 prototypes" protos "$WORK/blobs10k-" "400,400;400,1090;1125,750" 30
fi
if fz blobs3k 2 --gen=blobs --n=3000 --seed=2017; then
    check "blobs 3k exact: 3 prototypes" protos "$WORK/blobs3k-" "400,400;400,1090;1125,750" 30
fi
# ---- The stand-in for the study's test 4 (--gen=schools, latitude/longitude): exact FM finds
# one prototype in each of the five metro areas of the study's Table 5.10, on 2 ranks.
if fz schools4k 2 --gen=schools --n=4000 --seed=3; then
    check "schools stand-in: the five metro areas" protos "$WORK/schools4k-" \
        "26.03236,-80.25505;26.24011,-98.08960;33.97310,-118.07499;42.17509,-71.88173;44.92812,-93.23445" 0.1
fi
finish
