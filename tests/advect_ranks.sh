#!/usr/bin/env bash
# One answer whatever the layout: `mutirao advect` gives the same final fields,
# bit for bit (cmp of the raw dumps), on 1, 2, 3 and 4 ranks, with process
# grids 4 x 1, 1 x 4 and 2 x 2, field groups (2 and 3 of them, alone and with
# blocks), in the lines and the dataflow schedule; also
# the same printed masses and norms. Chains once around periodic lines in X,
# Y and Z (constant wind); winds with sign changes across rank borders, open
# borders and a vertical wind (swirl). Sweep inputs shared on a node by the
# ranks of one block (field groups), or not: the same bits.
source "$(dirname "$0")/lib.sh"

same_all() {
    local name=$1 ref="" refout=""
    shift
    # blocks alone (--pf=1), field groups alone (3 groups over 5 fields: not divisible),
    # and both (2 groups of 2 x 1 and of 1 x 2 blocks)
    for layout in "1 lines" "1 dataflow" "2 dataflow --pf=1" "3 lines --pf=1" \
        "4 dataflow --px=4 --py=1" "4 lines --px=1 --py=4" "4 dataflow --px=2 --py=2" \
        "2 lines --pf=2" "3 dataflow" "4 lines --pf=2 --px=2 --py=1" "4 dataflow --pf=2 --px=1"; do
        read -r np sched grid <<<"$layout"
        local tag="$name-np$np-$sched${grid// /}"
        if ! run_np "$np" advect --device=cpu --schedule="$sched" $grid --dump="$WORK/$tag.bin" "$@" \
            >"$WORK/$tag.out" 2>"$WORK/$tag.err"; then
            cat "$WORK/$tag.err" >&2
            fail "$name: $layout: exit status non-zero"
            continue
        fi
        if [ -z "$ref" ]; then
            ref=$WORK/$tag.bin
            refout=$WORK/$tag.out
            echo "ok: $name: $(head -1 "$refout")"
            continue
        fi
        if cmp -s "$ref" "$WORK/$tag.bin" && cmp -s "$refout" "$WORK/$tag.out"; then
            echo "ok: $name: $layout: same bits"
        else
            fail "$name: $layout: fields or printed results differ from 1 rank, lines"
        fi
    done
}

same_all "constant wind, periodic in X, Y and Z, 5 fields" --nx=24 --ny=24 --nz=4 --fields=5 --u=1 \
    --v=0.7 --w=0.5 --bc-z=periodic --steps=8
# Steady winds on CPU ranks: each axis's winds, densities and classes made on
# the first step and kept; the same bits as making them every step
# (MUTIRAO_ADV_KEEP=0), periodic lines (lap 2 changes a kept class) and open ones.
kept_same() {
    local name=$1 np=$2
    shift 2
    run_np "$np" advect --device=cpu --dump="$WORK/keep.bin" "$@" >"$WORK/keep.out" 2>"$WORK/keep.err" &&
        MUTIRAO_ADV_KEEP=0 run_np "$np" advect --device=cpu --dump="$WORK/make.bin" "$@" \
            >"$WORK/make.out" 2>"$WORK/make.err" || { fail "$name: a run failed"; return; }
    grep -q "steady winds: each axis" "$WORK/keep.err" || fail "$name: the winds were not kept"
    if cmp -s "$WORK/keep.bin" "$WORK/make.bin" && cmp -s "$WORK/keep.out" "$WORK/make.out"; then
        echo "ok: $name on $np ranks: kept winds give the bits of winds made every step"
    else
        fail "$name on $np ranks: kept winds differ from winds made every step"
    fi
}
kept_same "constant wind, periodic" 1 --nx=24 --ny=24 --nz=4 --fields=3 --u=1 --v=-0.7 --w=0.5 \
    --bc-z=periodic --steps=8
kept_same "constant wind, periodic, 2 x 2 blocks" 4 --nx=24 --ny=24 --nz=4 --fields=1 --u=1 \
    --v=-0.7 --w=0.5 --bc-z=periodic --steps=8 --px=2 --py=2
kept_same "rotation, open, 3 x 1 blocks, dataflow" 3 --nx=30 --ny=24 --nz=3 --fields=2 \
    --wind=rotation --bc=open --init=cone --cy=0.7 --steps=12 --pf=1 --schedule=dataflow
# Ranks of a node that hold one block (field groups) make its sweep inputs
# once between them, in shared memory, each a slice of the lines: the same
# dump, answer CSV, step log and checkpoint as on 1 rank, in field groups alone
# and with 2 x 1, 1 x 2 and 2 x 2 blocks.
shared_run() { # tag np args...
    local tag=$1 np=$2
    shift 2
    run_np "$np" advect --device=cpu --dump="$WORK/$tag.bin" --output="$WORK/$tag.csv" \
        --checkpoint="$WORK/$tag.ckpt" "$@" >"$WORK/$tag.out" 2>"$WORK/$tag.err"
}
steplog() { sed -n 's/^\[mutirao [0-9/]*\] \(step .*\)/\1/p' "$1"; }
shared_same() {
    local name=$1
    shift
    if ! run_np 1 advect --device=cpu --dump="$WORK/s1.bin" \
        --output="$WORK/s1.csv" --checkpoint="$WORK/s1.ckpt" "$@" >"$WORK/s1.out" 2>"$WORK/s1.err"; then
        fail "$name: 1 rank: exit status non-zero"
        return
    fi
    # ranks, ranks a block sharing and ranks sharing, layout
    for layout in "3 3 3 --pf=3" "4 4 4 --pf=4" "4 2 4 --pf=2 --px=2 --py=1" \
        "4 2 4 --pf=2 --px=1 --py=2" "8 2 8 --pf=2 --px=2 --py=2"; do
        read -r np by ranks grid <<<"$layout"
        local tag="s$np${grid// /}" want="by $by ranks a block ($ranks of the run's $np"
        if ! shared_run "$tag" "$np" $grid "$@"; then
            cat "$WORK/$tag.err" >&2
            fail "$name: $layout: exit status non-zero"
            continue
        fi
        if ! grep -qF "$want" "$WORK/$tag.err"; then
            fail "$name: $layout: not shared as expected ($want)"
        fi
        local same=1
        for ext in bin csv ckpt out; do cmp -s "$WORK/s1.$ext" "$WORK/$tag.$ext" || same=0; done
        cmp -s <(steplog "$WORK/s1.err") <(steplog "$WORK/$tag.err") || same=0
        if [ $same = 1 ]; then
            echo "ok: $name: $layout: the dump, answer, checkpoint and step log of 1 rank"
        else
            fail "$name: $layout: output differs from 1 rank"
        fi
    done
}
shared_same "swirl (new winds every step), open borders" --nx=24 --ny=24 --nz=4 --fields=5 \
    --wind=swirl --w=0.4 --bc=open --init=cone --init-3d --radius=0.25 --steps=6 \
    --checkpoint-every=4 --log-every=1
shared_same "constant wind, periodic (kept, lap 2), dataflow" --nx=24 --ny=24 --nz=4 --fields=4 \
    --u=1 --v=-0.7 --w=0.5 --bc-z=periodic --steps=6 --checkpoint-every=4 --schedule=dataflow \
    --log-every=1
same_all "swirl, open borders, vertical wind, 3 fields" --nx=24 --ny=24 --nz=4 --fields=3 --wind=swirl --w=0.4 \
    --bc=open --bc-z=periodic --init=square --init-3d --radius=0.25 --steps=8
finish
