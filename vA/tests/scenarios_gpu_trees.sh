#!/usr/bin/env bash
# The forms of representative on the GPU (--representative=nearest|centroid|
# scaled): the children's inflows are computed on the host from the node's
# scenarios and groups, both the CPU's bits on a device, so the GPU's tree
# must be the CPU's byte for byte, on 1 and 3 ranks (3 ranks sharing the
# device, the root split over them too), and the mean-keeping forms keep
# each node's sample mean on the device's scenarios (scenarios_mean_check.py).
# Exit 77 (skipped) without a CUDA device.
source "$(dirname "$0")/lib.sh"
IN=$SRCDIR/inputs/scenarios/ons_inflows_64.csv
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

require_gpu scenarios --device=gpu --input="$IN" --nstations=2 --tree=1,2 --m=8 --stats-series=0

ARGS=(--input="$IN" --tree=1,30,20 --m=1024 --stats-series=0)
for rep in nearest centroid scaled; do
    for run in cpu:1 gpu:1 gpu:3 gpu:3:on; do
        IFS=: read -r dev np split <<<"$run"
        p="$WORK/$rep-$dev-$np${split:+-split}"
        run_np "$np" scenarios --device="$dev" ${split:+--split=on} "${ARGS[@]}" \
            --representative=$rep --output="$p.csv" --node-scenarios="$p-nodes.csv" \
            >/dev/null 2>"$p.err" || { cat "$p.err" >&2; fail "$rep on $dev, $np rank(s)"; }
    done
    ref="$WORK/$rep-cpu-1"
    for p in "$WORK/$rep-gpu-1" "$WORK/$rep-gpu-3" "$WORK/$rep-gpu-3-split"; do
        if cmp -s "$ref.csv" "$p.csv" && cmp -s "$ref-nodes.csv" "$p-nodes.csv"; then
            echo "ok: $rep: ${p##*/} identical to the CPU's tree and scenarios"
        else
            fail "$rep: ${p##*/} differs from the CPU (1 rank)"
        fi
    done
    [ $rep = nearest ] && continue
    p="$WORK/$rep-gpu-1"
    if out=$($PY "$SRCDIR/tests/scenarios_mean_check.py" "$p.csv" "$p-nodes.csv" mean); then
        echo "ok: $rep on the GPU keeps the mean: $out"
    else
        fail "$rep on the GPU: $out"
    fi
done
# A root of 10000 scenarios (from 8192 the device whitens the node and keeps
# Version 2's bookkeeping): both methods, byte for byte the CPU's tree.
ARGS=(--input="$IN" --tree=1,20 --m=10000 --stats-series=0)
for meth in hw v2; do
    for run in cpu:1 gpu:1 gpu:3:on; do
        IFS=: read -r dev np split <<<"$run"
        p="$WORK/big-$meth-$dev-$np${split:+-split}"
        run_np "$np" scenarios --device="$dev" ${split:+--split=on} "${ARGS[@]}" --method=$meth \
            --output="$p.csv" --node-scenarios="$p-nodes.csv" >/dev/null 2>"$p.err" ||
            { cat "$p.err" >&2; fail "M=10000 root, $meth on $dev, $np rank(s)"; }
    done
    ref="$WORK/big-$meth-cpu-1"
    for p in "$WORK/big-$meth-gpu-1" "$WORK/big-$meth-gpu-3-split"; do
        if cmp -s "$ref.csv" "$p.csv" && cmp -s "$ref-nodes.csv" "$p-nodes.csv"; then
            echo "ok: M=10000 root, $meth: ${p##*/} identical to the CPU's tree and scenarios"
        else
            fail "M=10000 root, $meth: ${p##*/} differs from the CPU (1 rank)"
        fi
    done
done
finish
