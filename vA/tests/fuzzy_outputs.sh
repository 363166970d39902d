#!/usr/bin/env bash
# What `mutirao fuzzy` writes: the prototypes (--output), the full set under a
# prefix or in a directory (prototypes, memberships, labels, raw prototypes,
# dendrogram), the summary JSON, and the PNG scatter (2-D data on its features,
# 4-D on its principal axes). Files appear whole or not at all: no temporary
# names remain, and a failed run leaves an earlier result untouched.
source "$(dirname "$0")/lib.sh"
IN=$SRCDIR/inputs/fuzzy

run2() {
    if ! run_np 2 fuzzy --device=cpu "$@" >"$WORK/stdout" 2>"$WORK/stderr"; then
        cat "$WORK/stderr" >&2
        fail "run failed: $*"
        return 1
    fi
}

# lines FILE: line count.
lines() { wc -l <"$1" | tr -d ' '; }

# Iris, density r, merged: 7 raw prototypes, 3 groups, labels kept aside.
if run2 --input="$IN/iris.csv" --label-column=Species --eps2=0.1 --merge=yes \
    --output="$WORK/p.csv" --output-prefix="$WORK/iris-" --summary="$WORK/iris.json" \
    --plot="$WORK/iris.png"; then
    expect_eq "prototypes header" "$(head -n 1 "$WORK/p.csv")" \
        "prototype,Sepal.Length,Sepal.Width,Petal.Length,Petal.Width,objects,merged"
    expect_eq "prototypes rows" "$(lines "$WORK/p.csv")" 4
    cmp -s "$WORK/p.csv" "$WORK/iris-prototypes.csv" || fail "--output and the prefix's prototypes.csv differ"
    expect_eq "memberships header" "$(head -n 1 "$WORK/iris-memberships.csv")" "object,p0,p1,p2"
    expect_eq "memberships rows" "$(lines "$WORK/iris-memberships.csv")" 151
    expect_eq "labels header" "$(head -n 1 "$WORK/iris-labels.csv")" "object,label,membership,Species"
    expect_eq "labels row 0" "$(sed -n 2p "$WORK/iris-labels.csv" | cut -d, -f1,2,4)" "0,0,setosa"
    expect_eq "raw rows" "$(lines "$WORK/iris-raw.csv")" 8
    expect_eq "dendrogram header" "$(head -n 1 "$WORK/iris-dendrogram.csv")" "step,a,b,height,height_r,size"
    expect_eq "dendrogram rows (6 merges)" "$(lines "$WORK/iris-dendrogram.csv")" 7
    expect_eq "last merge joins all 7" "$(tail -n 1 "$WORK/iris-dendrogram.csv" | cut -d, -f6)" 7
    expect_eq "stdout result line" "$(grep -c '^fuzzy: n=150 features=4 mode=exact' "$WORK/stdout")" 1
    expect_eq "PNG signature (4-D, principal axes)" "$(head -c 4 "$WORK/iris.png" | od -An -c | tr -d ' ')" '211PNG'
    if python3 - "$WORK/iris.json" <<'PY'; then
import json, sys
s = json.load(open(sys.argv[1]))
res = s["result"]
assert res["prototypes"] == 3 and res["raw_prototypes"] == 7, res
assert res["mode"] == "exact" and res["r_norm"] == "density", res
assert abs(float(res["r"]) - 3.60561) < 1e-5 and abs(s["r"] - 3.60561) < 1e-5
assert s["ranks"] == 2 and 0.6 < s["ari"] < 0.61, s
PY
        echo "ok: summary JSON holds the result"
    else
        fail "summary JSON"
    fi
fi

# Ruspini in a directory that does not exist yet, with a 2-D plot.
if run2 --input="$IN/ruspini.csv" --output-dir="$WORK/rdir" --plot="$WORK/rdir/ruspini.png"; then
    for f in prototypes memberships labels raw dendrogram; do
        [ -s "$WORK/rdir/$f.csv" ] || fail "--output-dir: no $f.csv"
    done
    expect_eq "ruspini prototypes" "$(($(lines "$WORK/rdir/prototypes.csv") - 1))" 4
    expect_eq "ruspini dendrogram (no merge)" "$(lines "$WORK/rdir/dendrogram.csv")" 1
    expect_eq "PNG signature (2-D)" "$(head -c 4 "$WORK/rdir/ruspini.png" | od -An -c | tr -d ' ')" '211PNG'
    echo "ok: --output-dir files"
fi

# Partitioned: raw prototypes carry their partition; the dendrogram has m - 1 merges.
if run2 --gen=blobs --n=1500 --mode=partitioned --partitions=3 --output-prefix="$WORK/b-"; then
    raw=$(($(lines "$WORK/b-raw.csv") - 1))
    expect_eq "dendrogram merges = raw - 1" "$(($(lines "$WORK/b-dendrogram.csv") - 1))" $((raw - 1))
    expect_eq "partitions in raw.csv" "$(cut -d, -f2 "$WORK/b-raw.csv" | sed 1d | sort -u | tr '\n' ' ')" "0 1 2 "
    expect_eq "labels carry the blob" "$(head -n 1 "$WORK/b-labels.csv")" "object,label,membership,blob"
fi

# No temporary file anywhere.
left=$(find "$WORK" -name '*.tmp.*' | head -n 3)
[ -z "$left" ] || fail "temporary files left: $left"

# A failed run leaves an earlier result as it was.
echo "earlier" >"$WORK/keep.csv"
printf 'a,b\n1,2\n3,x\n' >"$WORK/bad.csv"
if run_np 2 fuzzy --input="$WORK/bad.csv" --output="$WORK/keep.csv" >/dev/null 2>&1; then
    fail "bad input accepted"
fi
expect_eq "earlier output untouched" "$(cat "$WORK/keep.csv")" earlier

# --help names the options.
run_np 1 fuzzy --help >"$WORK/help" 2>&1 || fail "--help failed"
for o in --mode --partitions --r-norm --eps1 --eps2 --max-it --threshold --k --output-prefix --plot; do
    grep -q -- "$o" "$WORK/help" || fail "--help lacks $o"
done
finish
