#!/usr/bin/env bash
# One answer whatever the layout: the same input gives the same answer on 1, 2,
# 3 and 4 ranks, equal to the independent Python reference (tests/ref_maxsub.py)
# and to the study's own reference values.
source "$(dirname "$0")/lib.sh"
REF="python3 $SRCDIR/tests/ref_maxsub.py"
DEVICE=${MUTIRAO_TEST_DEVICE:-cpu}

# same_on_all NAME WANT ARGS...: runs on 1-4 ranks, each answer must be WANT.
same_on_all() {
    local name=$1 want=$2
    shift 2
    for np in 1 2 3 4; do
        rm -f "$WORK/out.csv"
        if ! run_np "$np" maxsub --device="$DEVICE" --output="$WORK/out.csv" "$@" > "$WORK/log" 2>&1; then
            cat "$WORK/log" >&2
            fail "$name on $np ranks exited non-zero"
            continue
        fi
        expect_eq "$name, $np ranks" "$(answer "$WORK/out.csv")" "$want"
    done
}

# The study's worked examples.
echo "3 5 10 -5 -30 5 7 2 -3 10 -7 5" > "$WORK/study1d.txt"
same_on_all "study 1-D example" "21,5,9" --input="$WORK/study1d.txt"
printf '%s\n' "-10 -10 20 -20 -30" "5 -20 10 40 10" "30 -40 20 -10 -15" "-20 4 -5 50 10" \
    "10 -20 10 -40 10" > "$WORK/study2d.txt"
same_on_all "study 2-D example" "110,1,3,2,4" --dim=2 --input="$WORK/study2d.txt"

# Generated data with many ties, both conventions: the 1-rank answer must hold on 2-4
# ranks (the values themselves are checked against the reference below, from files).
for empty in allowed forbidden; do
    for spec in "--n=5003 --min=-2 --max=2 --seed=7" "--n=20011 --dist=sparse --seed=3" \
                "--n=3 --min=-5 --max=-1 --seed=1" "--n=1 --seed=9"; do
        # shellcheck disable=SC2086
        run_np 1 maxsub --device=cpu $spec --empty=$empty --output="$WORK/gen.csv" > /dev/null 2>&1
        # shellcheck disable=SC2086
        same_on_all "1-D $spec --empty=$empty" "$(answer "$WORK/gen.csv")" $spec --empty=$empty
    done
done

# Text and binary input, checked against the reference.
python3 - "$WORK" <<'PY'
import random, struct, sys
w = sys.argv[1]
rnd = random.Random(11)
vals = [rnd.randint(-3, 3) for _ in range(997)]
open(w + "/ties.txt", "w").write("\n".join(" ".join(map(str, vals[i:i + 13])) for i in range(0, len(vals), 13)) + "\n")
open(w + "/ties.bin", "wb").write(struct.pack("<%di" % len(vals), *vals))
neg = [-rnd.randint(1, 9) for _ in range(301)]
open(w + "/neg.txt", "w").write(" ".join(map(str, neg)) + "\n")
for name, (r, c) in {"tall": (37, 11), "wide": (9, 41), "square": (24, 24)}.items():
    m = [[rnd.randint(-4, 4) for _ in range(c)] for _ in range(r)]
    open(w + "/%s.txt" % name, "w").write("\n".join(" ".join(map(str, row)) for row in m) + "\n")
    open(w + "/%s.bin" % name, "wb").write(struct.pack("<%di" % (r * c), *[v for row in m for v in row]))
negm = [[-rnd.randint(1, 9) for _ in range(7)] for _ in range(5)]
open(w + "/negm.txt", "w").write("\n".join(" ".join(map(str, row)) for row in negm) + "\n")
PY
for empty in allowed forbidden; do
    want=$($REF 1d "$WORK/ties.txt" $empty)
    same_on_all "1-D text ties --empty=$empty" "$want" --input="$WORK/ties.txt" --empty=$empty
    same_on_all "1-D binary ties --empty=$empty" "$want" --input="$WORK/ties.bin" --empty=$empty
    want=$($REF 1d "$WORK/neg.txt" $empty)
    same_on_all "1-D all negative --empty=$empty" "$want" --input="$WORK/neg.txt" --empty=$empty
    for name in tall wide square; do
        want=$($REF 2d "$WORK/$name.txt" $empty)
        same_on_all "2-D $name text --empty=$empty" "$want" --dim=2 --input="$WORK/$name.txt" --empty=$empty
        dims=$(awk 'END{print NR" "NF}' "$WORK/$name.txt")
        same_on_all "2-D $name binary --empty=$empty" "$want" --dim=2 --input="$WORK/$name.bin" \
            --rows="${dims% *}" --cols="${dims#* }" --empty=$empty
    done
    want=$($REF 2d "$WORK/negm.txt" $empty)
    same_on_all "2-D all negative --empty=$empty" "$want" --dim=2 --input="$WORK/negm.txt" --empty=$empty
done

# The study's generator and independently computed reference answers.
same_on_all "thesis 1-D n=200000" "323778,47667,104040" --gen=thesis --n=200000
same_on_all "thesis 1-D n=2000000" "682654,47667,366549" --gen=thesis --n=2000000
same_on_all "thesis 2-D n=512" "491682,40,453,175,426" --dim=2 --gen=thesis --n=512

# Generated 2-D across ranks, several tiles, ties.
run_np 1 maxsub --device=cpu --dim=2 --rows=150 --cols=130 --min=-3 --max=3 --seed=5 --output="$WORK/g2.csv" > /dev/null 2>&1
same_on_all "2-D generated 150x130" "$(answer "$WORK/g2.csv")" --dim=2 --rows=150 --cols=130 --min=-3 --max=3 --seed=5 --farm-chunk=1

# The hydrophobic regions of the bundled proteins: the whole CSV is the same on 1-4 ranks,
# and the top region of each protein is its maximum subarray under the same offset.
for np in 1 2 3 4; do
    run_np "$np" maxsub --device="$DEVICE" --fasta="$SRCDIR/inputs/maxsub/proteins.fasta" \
        --output="$WORK/fasta$np.csv" > /dev/null 2>&1 || fail "fasta on $np ranks"
    if [ "$np" -gt 1 ]; then
        cmp -s "$WORK/fasta1.csv" "$WORK/fasta$np.csv" || fail "fasta regions differ on $np ranks"
    fi
done
[ "$(wc -l < "$WORK/fasta1.csv")" -ge 8 ] || fail "too few hydrophobic regions"
echo "ok: fasta regions identical on 1-4 ranks ($(($(wc -l < "$WORK/fasta1.csv") - 1)) regions)"
finish
