#!/usr/bin/env bash
# `mutirao maxsub --device=gpu` against --device=cpu on generated data, which
# GPU ranks now make on their device: the same result line on 1, 2 and 3 ranks
# for 1-D (both distributions, both empty modes, a size past the device's
# 2^28-value chunks) and 2-D (square, more columns than rows so the matrix is
# made transposed, more rows than columns; and the rank grids of the
# distributed path, several bands included), and the study's generator (made
# on the host) as a control. In 2-D a rank makes its block and builds its
# prefix on its device (the study's generator: made on the host, prefix on
# the device), on grids of up to 6 blocks a band (two visitor slots, the next
# block uploaded while the pairs run). Exit 77 (skipped) without a CUDA device.
source "$(dirname "$0")/lib.sh"

require_gpu maxsub --device=gpu --n=16

# same NAME ARGS...: the CPU's result line on 1 rank, the GPU's on 1-3 ranks.
same() {
    local name=$1 np want got
    shift
    want=$(run_np 1 maxsub --device=cpu "$@" 2>"$WORK/err" | grep '^maxsub: ') ||
        { cat "$WORK/err" >&2; fail "$name: the CPU run failed"; return; }
    for np in 1 2 3; do
        got=$(run_np "$np" maxsub --device=gpu "$@" 2>"$WORK/err" | grep '^maxsub: ') ||
            { cat "$WORK/err" >&2; fail "$name on $np GPU rank(s): failed"; continue; }
        if [ "$got" != "$want" ]; then
            fail "$name on $np GPU rank(s): '$got', want '$want'"
        fi
    done
    grep -q "generated on the GPU" "$WORK/err" && echo "ok: $name: $want (generated on the GPU)" ||
        echo "ok: $name: $want"
}

same "1-D uniform" --n=1000003 --seed=7
same "1-D sparse, empty allowed" --n=2000001 --seed=3 --dist=sparse --empty=allowed
same "1-D small range" --n=99999 --seed=11 --min=-3 --max=2
same "1-D past a chunk" --n=300000000 --seed=5 --dist=sparse
same "1-D study generator" --n=100000 --gen=thesis
same "2-D square" --dim=2 --n=300 --seed=2
same "2-D wide (made transposed)" --dim=2 --rows=90 --cols=333 --seed=4
same "2-D tall, sparse" --dim=2 --rows=400 --cols=77 --seed=6 --dist=sparse
same "2-D study generator" --dim=2 --rows=150 --cols=170 --gen=thesis

# banded NAME ARGS...: the CPU's 1-rank line from GPU ranks on grids of several
# row bands (the int64 summary kernel, combined over the column) and of one.
banded() {
    local name=$1 want got layout np bands
    shift
    want=$(run_np 1 maxsub --device=cpu "$@" 2>"$WORK/err" | grep '^maxsub: ') ||
        { cat "$WORK/err" >&2; fail "$name: the CPU run failed"; return; }
    for layout in 2:2 3:3 4:2 4:1 6:1 6:2; do
        np=${layout%:*} bands=${layout#*:}
        got=$(run_np "$np" maxsub --device=gpu --bands="$bands" "$@" 2>"$WORK/err" | grep '^maxsub: ') ||
            { cat "$WORK/err" >&2; fail "$name on $np GPU ranks, --bands=$bands: failed"; continue; }
        [ "$got" = "$want" ] || fail "$name on $np GPU ranks, --bands=$bands: '$got', want '$want'"
    done
    echo "ok: $name: $want (grids 2x1, 3x1, 2x2, 1x4, 1x6, 2x3)"
}
for empty in allowed forbidden; do
    banded "2-D square, bands, --empty=$empty" --dim=2 --n=300 --seed=2 --empty=$empty
    banded "2-D wide, bands, --empty=$empty" --dim=2 --rows=90 --cols=333 --seed=4 --min=-3 --max=3 --empty=$empty
done
banded "2-D int64 (B >= 2^30), bands" --dim=2 --rows=130 --cols=97 --seed=8 --min=-2000000000 --max=2000000000
banded "2-D study generator, bands" --dim=2 --rows=120 --cols=140 --gen=thesis
finish
