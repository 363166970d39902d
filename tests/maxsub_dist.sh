#!/usr/bin/env bash
# maxsub 2-D over distributed data (docs/maxsub.md): the answer is bitwise the
# same on 1-4 ranks for every rank grid (one band, and 2, 3 or 4 bands whose
# summaries combine in row order), for generated, binary and text input, both
# empty conventions and both orientations; a problem too large for one rank's
# --max-memory is refused up front on 1 rank and finishes on 4.
source "$(dirname "$0")/lib.sh"
DEVICE=${MUTIRAO_TEST_DEVICE:-cpu}

# grids NAME ARGS...: the 1-rank answer on 2-4 ranks, automatic and forced bands.
grids() {
    local name=$1
    shift
    rm -f "$WORK/one.csv"
    run_np 1 maxsub --dim=2 --device="$DEVICE" --output="$WORK/one.csv" "$@" > "$WORK/log" 2>&1 ||
        { cat "$WORK/log" >&2; fail "$name on 1 rank exited non-zero"; return; }
    local want
    want=$(answer "$WORK/one.csv")
    for layout in "2:0" "3:0" "4:0" "2:2" "3:3" "4:2" "4:4"; do
        local np=${layout%:*} bands=${layout#*:}
        rm -f "$WORK/out.csv"
        if ! run_np "$np" maxsub --dim=2 --device="$DEVICE" --bands="$bands" --output="$WORK/out.csv" \
            "$@" > "$WORK/log" 2>&1; then
            cat "$WORK/log" >&2
            fail "$name on $np ranks, --bands=$bands exited non-zero"
            continue
        fi
        expect_eq "$name, $np ranks, --bands=$bands" "$(answer "$WORK/out.csv")" "$want"
    done
}

python3 - "$WORK" <<'PY'
import random, struct, sys
w = sys.argv[1]
rnd = random.Random(23)
for name, (r, c) in {"tall": (83, 29), "wide": (21, 97)}.items():
    m = [rnd.randint(-6, 6) for _ in range(r * c)]
    open(w + "/%s.bin" % name, "wb").write(struct.pack("<%di" % (r * c), *m))
    open(w + "/%s.txt" % name, "w").write(
        "\n".join(" ".join(map(str, m[i * c:(i + 1) * c])) for i in range(r)) + "\n")
PY
for empty in allowed forbidden; do
    grids "generated 150x130 --empty=$empty" --rows=150 --cols=130 --min=-3 --max=3 --seed=5 --empty=$empty
    grids "generated 70x260 (transposed) --empty=$empty" --rows=70 --cols=260 --seed=2 --empty=$empty
    grids "all negative --empty=$empty" --n=40 --min=-5 --max=-1 --empty=$empty
    grids "binary tall --empty=$empty" --input="$WORK/tall.bin" --rows=83 --cols=29 --empty=$empty
    grids "binary wide --empty=$empty" --input="$WORK/wide.bin" --rows=21 --cols=97 --empty=$empty
    grids "text wide --empty=$empty" --input="$WORK/wide.txt" --empty=$empty
done
grids "thesis 200x90" --gen=thesis --rows=200 --cols=90 --farm-chunk=1
grids "sparse 300" --n=300 --dist=sparse --seed=3 --farm-chunk=2

# Too large for one rank: refused up front with the memory named, finished on 4.
run_np 1 maxsub --dim=2 --n=1024 --seed=4 --device="$DEVICE" --output="$WORK/free.csv" > /dev/null 2>&1 ||
    fail "n=1024 without a limit"
check_failure "n=1024 over --max-memory=8 on 1 rank" \
    "MiB per rank, more than the 8.0 MiB a rank may use (--max-memory); run on more ranks" \
    nonzero "$WORK/big.csv*" "$MPIEXEC" -n 1 "${PREFLAGS[@]}" "$MUTIRAO" maxsub --dim=2 --n=1024 \
    --seed=4 --device="$DEVICE" --max-memory=8 --output="$WORK/big.csv"
rm -f "$WORK/big.csv"
if run_np 4 maxsub --dim=2 --n=1024 --seed=4 --device="$DEVICE" --max-memory=8 \
    --output="$WORK/big.csv" > "$WORK/log" 2>&1; then
    expect_eq "n=1024 on 4 ranks under --max-memory=8" "$(answer "$WORK/big.csv")" \
        "$(answer "$WORK/free.csv")"
else
    cat "$WORK/log" >&2
    fail "n=1024 on 4 ranks under --max-memory=8 exited non-zero"
fi
finish
