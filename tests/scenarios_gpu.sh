#!/usr/bin/env bash
# `mutirao scenarios --device=gpu` against --device=cpu: the same tree (node
# ids, parents, probabilities exactly; inflows within 1e-9 relative; the draws
# are the CPU's bits, so the files are normally byte-identical, which is
# reported) on 1 and 3 ranks, and the same comb series and openings; 3 ranks sharing the
# device with the root split over them (--split=on); a 10000-scenario root
# (Version 2's bookkeeping on the device). Exit 77 (skipped)
# without a CUDA device.
source "$(dirname "$0")/lib.sh"
IN=$SRCDIR/inputs/scenarios/ons_inflows_64.csv

require_gpu scenarios --device=gpu --input="$IN" --nstations=2 --tree=1,2 --m=8 --stats-series=0

close() { # A B: same rows, same integer/probability fields, inflows within 1e-9
    python3 - "$1" "$2" <<'PY'
import csv, sys
a = list(csv.reader(open(sys.argv[1]))); b = list(csv.reader(open(sys.argv[2])))
if len(a) != len(b) or a[0] != b[0]:
    print("different shapes"); sys.exit(1)
num = [i for i, h in enumerate(a[0]) if h.startswith("p") and h not in ("parent", "probability", "path_probability")]
worst = 0.0
for ra, rb in zip(a[1:], b[1:]):
    for i, (x, y) in enumerate(zip(ra, rb)):
        if i in num:
            fx, fy = float(x), float(y)
            worst = max(worst, abs(fx - fy) / max(abs(fx), 1e-300))
        elif x != y:
            print("row %s column %s: %s vs %s" % (ra[0], a[0][i], x, y)); sys.exit(1)
print("largest relative inflow difference %.3g" % worst)
sys.exit(0 if worst <= 1e-9 else 1)
PY
}
# agree NAME A B: byte-identical, or close (above); else a failure.
agree() {
    local out
    if cmp -s "$2" "$3"; then
        echo "ok: $1: byte-identical"
    elif out=$(close "$2" "$3"); then
        echo "ok: $1: $out"
    else
        fail "$1: $out"
    fi
}

for np in 1 3; do
    for dev in cpu gpu; do
        run_np $np scenarios --device=$dev --input="$IN" --tree=1,30,20 --m=1024 \
            --stats-series=0 --output="$WORK/tree-$dev-$np.csv" >/dev/null 2>"$WORK/err" ||
            { cat "$WORK/err" >&2; fail "tree on $dev, $np rank(s)"; }
        run_np $np scenarios --device=$dev --input="$IN" --mode=comb --series=2000 --horizon=12 \
            --stats-series=0 --output="$WORK/comb-$dev-$np.csv" >/dev/null 2>"$WORK/err" ||
            { cat "$WORK/err" >&2; fail "comb on $dev, $np rank(s)"; }
    done
    for what in tree comb; do
        agree "$what, $np rank(s), GPU vs CPU" "$WORK/$what-cpu-$np.csv" "$WORK/$what-gpu-$np.csv"
    done
done
for dev in cpu gpu; do
    run_np 2 scenarios --device=$dev --input="$IN" --tree=1,20,10 --m=1024 --corr=lognormal \
        --stats-series=0 --output="$WORK/logn-$dev.csv" >/dev/null 2>"$WORK/err" ||
        { cat "$WORK/err" >&2; fail "lognormal-correlation tree on $dev"; }
done
agree "tree with --corr=lognormal, 2 ranks, GPU vs CPU" "$WORK/logn-cpu.csv" "$WORK/logn-gpu.csv"
cmp -s "$WORK/tree-gpu-1.csv" "$WORK/tree-gpu-3.csv" && echo "ok: GPU tree identical on 1 and 3 ranks" ||
    fail "GPU tree differs between 1 and 3 ranks"
# Three ranks on one device with the root shared (--split=on: each rank's block
# of every k-means step on the device, gathered): the one-rank GPU tree.
run_np 3 scenarios --device=gpu --split=on --input="$IN" --tree=1,30,20 --m=1024 \
    --stats-series=0 --output="$WORK/tree-gpu-split.csv" >/dev/null 2>"$WORK/err" ||
    { cat "$WORK/err" >&2; fail "tree on the GPU, 3 ranks, --split=on"; }
cmp -s "$WORK/tree-gpu-1.csv" "$WORK/tree-gpu-split.csv" &&
    echo "ok: GPU tree with the root shared by 3 ranks identical to 1 rank" ||
    fail "GPU tree with --split=on on 3 ranks differs from 1 rank"
# Version 2's bookkeeping on the device (from 8192 scenarios): a 10000-scenario root into 20.
for dev in cpu gpu; do
    run_np 1 scenarios --device=$dev --input="$IN" --tree=1,20 --m=10000 --stats-series=0 \
        --output="$WORK/big-$dev.csv" >/dev/null 2>"$WORK/err" ||
        { cat "$WORK/err" >&2; fail "M=10000 root on $dev"; }
done
agree "M=10000 root (device bookkeeping), GPU vs CPU" "$WORK/big-cpu.csv" "$WORK/big-gpu.csv"
# NEWAVE's backward openings (--mode=openings): the stages side by side on a
# rank's lanes and farmed over the ranks, M = 10000 (device bookkeeping).
for np in 1 3; do
    for dev in cpu gpu; do
        run_np $np scenarios --device=$dev --input="$IN" --mode=openings --horizon=4 --m=10000 \
            --openings=20 --stats-series=0 --output="$WORK/open-$dev-$np.csv" >/dev/null \
            2>"$WORK/err" || { cat "$WORK/err" >&2; fail "openings on $dev, $np rank(s)"; }
    done
    agree "openings, $np rank(s), GPU vs CPU" "$WORK/open-cpu-$np.csv" "$WORK/open-gpu-$np.csv"
done
cmp -s "$WORK/open-gpu-1.csv" "$WORK/open-gpu-3.csv" &&
    echo "ok: GPU openings identical on 1 and 3 ranks" || fail "GPU openings differ between 1 and 3 ranks"
finish
