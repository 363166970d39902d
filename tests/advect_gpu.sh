#!/usr/bin/env bash
# The GPU path of `mutirao advect` against the CPU reference: bitwise the same
# final fields (the device does the arithmetic of gpu/advect_walcek.h, built
# with --fmad=false) in both schedules, on 1 rank and on 2, 3 and 4 ranks
# sharing the node's GPUs, for winds with sign changes, chains around periodic lines,
# open borders and a vertical wind. Exit 77 (skipped) without a CUDA device.
source "$(dirname "$0")/lib.sh"

require_gpu advect --device=gpu --nx=8 --ny=8 --nz=3 --steps=1

steplog() {
    { grep -E '\] step [0-9]+ ' "$1" || true; } | sed 's/^\[[^]]*\] //'
}

cpu_vs_gpu() {
    local name=$1
    shift
    run_np 1 advect --device=cpu --schedule=lines --dump="$WORK/cpu.bin" "$@" >"$WORK/cpu.out" \
        2>"$WORK/cpu.err" || { cat "$WORK/cpu.err" >&2; fail "$name: CPU run failed"; return; }
    # 2 x 1 and 4 (2 x 2) ranks: the X halo packed after a Z sweep's edge
    # columns and exchanged while its other columns run (open Z); 1 x 2: the Y
    # halo likewise after an X sweep alone on its lines (open X)
    local layouts=("1 lines" "1 dataflow" "2 dataflow --pf=1" "4 lines --pf=1" "2 lines --px=2 --py=1"
        "2 lines --px=1 --py=2")
    # field groups (cases of 3 fields or more): 2 and 3 groups, and 2 groups of 2 x 1 blocks
    local nf=1 a
    for a in "$@"; do [[ $a == --fields=* ]] && nf=${a#--fields=}; done
    [ "$nf" -ge 3 ] && layouts+=("2 lines --pf=2" "3 dataflow --pf=3" "4 lines --pf=2 --px=2 --py=1")
    for layout in "${layouts[@]}"; do
        read -r np sched grid <<<"$layout"
        # shellcheck disable=SC2086 # grid: zero or more options
        if ! run_np "$np" advect --device=gpu --schedule="$sched" $grid --dump="$WORK/gpu.bin" "$@" \
            >"$WORK/gpu.out" 2>"$WORK/gpu.err"; then
            cat "$WORK/gpu.err" >&2
            fail "$name: GPU $layout failed"
            continue
        fi
        grep -q "run the sweeps on their GPU" "$WORK/gpu.err" || fail "$name: $layout did not use the GPU"
        if cmp -s "$WORK/cpu.bin" "$WORK/gpu.bin" && cmp -s "$WORK/cpu.out" "$WORK/gpu.out"; then
            echo "ok: $name: GPU ($layout) = CPU, bitwise"
        else
            fail "$name: GPU ($layout) differs from the CPU"
        fi
        # the step log (mass, min, max, Courant) reduced on the device: the CPU's lines
        steplog "$WORK/cpu.err" >"$WORK/cpu.log"
        steplog "$WORK/gpu.err" >"$WORK/gpu.log"
        if [ -s "$WORK/cpu.log" ] && cmp -s "$WORK/cpu.log" "$WORK/gpu.log"; then
            echo "ok: $name: GPU ($layout) step log = CPU's ($(wc -l <"$WORK/cpu.log") lines)"
        else
            fail "$name: GPU ($layout) step log differs from the CPU's"
        fi
    done
}

cpu_vs_gpu "constant diagonal" --nx=32 --ny=32 --nz=4 --fields=3 --u=1 --v=0.6 --steps=30
cpu_vs_gpu "rotation, open" --nx=40 --ny=40 --nz=3 --wind=rotation --bc=open --init=cone --cy=0.7 \
    --steps=40
cpu_vs_gpu "swirl with w, 40 fields" --nx=24 --ny=24 --nz=6 --fields=40 --wind=swirl --w=0.4 \
    --bc-z=periodic --init=square --init-3d --radius=0.25 --steps=20
# more fields than the device's per-block step-log words hold (N > 71: global words)
cpu_vs_gpu "80 fields" --nx=12 --ny=10 --nz=3 --fields=80 --wind=rotation --init=cone --steps=6 \
    --log-every=1
cpu_vs_gpu "divergent, stratified" --nx=24 --ny=20 --nz=8 --wind=divergent --u=0.7 \
    --density=stratified --bc-z=periodic --init=gaussian --init-3d --steps=15
# winds from a file, varying along x, y and z with both signs (the device
# makes its face winds from the file's table as from the analytic ones')
python3 - "$WORK/wind.bin" <<'PY'
import math, struct, sys
nx, ny, nz = 20, 18, 5
v = [0.0] * (3 * nx * ny * nz)
for a in range(3):
    for y in range(ny):
        for x in range(nx):
            for z in range(nz):
                v[a * nx * ny * nz + z + nz * (x + nx * y)] = \
                    0.6 * math.sin(0.7 * x + 1.3 * a) * math.cos(0.5 * y) + 0.2 * math.cos(z + a)
open(sys.argv[1], "wb").write(struct.pack("<%df" % len(v), *v))
PY
cpu_vs_gpu "file winds" --nx=20 --ny=18 --nz=5 --fields=2 --wind=file --wind-file="$WORK/wind.bin" \
    --bc=open --dt=0.01 --steps=15
# lines longer than the classification's 32 lanes and its 128-cell rounds
# would fit in one pass (several rounds of the warp per line), open and periodic
cpu_vs_gpu "long lines, open" --nx=100 --ny=12 --nz=3 --wind=rotation --bc=open --init=cone \
    --steps=8
cpu_vs_gpu "long lines, periodic" --nx=72 --ny=8 --nz=3 --u=1 --v=0.6 --steps=8
# open sweeps keep their classes between steps and classify again the lines
# whose winds changed sign: the swirl reverses at step 10 of 20
cpu_vs_gpu "swirl reversing, open" --nx=24 --ny=24 --nz=4 --wind=swirl --w=0.3 --bc=open \
    --init=cone --period=0.5 --dt=0.025

# The halos exchanged ahead were used (the timing table's phase), with the
# CPU's fields: the X halo after the Z sweeps on 3 x 1 ranks, the Y halo after
# the X sweeps on 1 x 3 (open X), the blocks' edges 2 cells from each other.
ha=(--nx=42 --ny=42 --nz=3 --wind=rotation --bc=open --init=cone --steps=6)
run_np 1 advect --device=cpu "${ha[@]}" --dump="$WORK/ha_cpu.bin" >/dev/null 2>"$WORK/err" ||
    fail "halo ahead: CPU run failed"
for g in "--px=3 --py=1" "--px=1 --py=3"; do
    # shellcheck disable=SC2086 # g: two options
    if ! run_np 3 advect --device=gpu --schedule=lines $g "${ha[@]}" --dump="$WORK/ha_gpu.bin" \
        >/dev/null 2>"$WORK/gpu.err"; then
        cat "$WORK/gpu.err" >&2
        fail "halo ahead ($g): GPU run failed"
        continue
    fi
    grep -q "advect: halo ahead" "$WORK/gpu.err" || fail "halo ahead ($g): none exchanged ahead"
    if cmp -s "$WORK/ha_cpu.bin" "$WORK/ha_gpu.bin"; then
        echo "ok: halo exchanged ahead on 3 ranks ($g), fields = CPU's, bitwise"
    else
        fail "halo ahead ($g): the fields differ from the CPU's"
    fi
done

# The X halo between 2 blocks on a node with 2 GPUs or more: through peer
# memory (CUDA IPC) where the GPUs have peer access, and through pinned host
# memory with MUTIRAO_ADV_PEER=0; both the CPU's fields, bitwise.
for route in peer host; do
    knob=1
    [ $route = host ] && knob=0
    if ! MUTIRAO_ADV_PEER=$knob run_np 2 advect --device=gpu --schedule=lines --px=2 --py=1 \
        "${ha[@]}" --dump="$WORK/ha_gpu.bin" >/dev/null 2>"$WORK/gpu.err"; then
        cat "$WORK/gpu.err" >&2
        fail "halo route $route: GPU run failed"
        continue
    fi
    said=$({ grep -o "X halos[^(]*" "$WORK/gpu.err" || true; } | head -1)
    case $route/$said in
    peer/*"peer memory"*) ;;
    peer/*) echo "note: no peer route on this machine (${said:-no halo route logged})" ;;
    host/*"pinned host memory"*) ;;
    host/*) fail "halo route host: MUTIRAO_ADV_PEER=0 did not keep the host route ($said)" ;;
    esac
    if cmp -s "$WORK/ha_cpu.bin" "$WORK/ha_gpu.bin"; then
        echo "ok: 2 x 1 blocks, ${said:-X halos}: fields = CPU's, bitwise"
    else
        fail "halo route $route: the fields differ from the CPU's"
    fi
done

# Checkpoints from the device (the fields come back only then): a GPU run on 2
# ranks checkpoints steps 4 and 8 of 10, a GPU restart from 8 on 1 rank ends
# with the CPU's 10-step fields.
ck=(--nx=20 --ny=16 --nz=4 --fields=3 --wind=swirl --w=0.3 --init=cone --steps=10)
run_np 1 advect --device=cpu "${ck[@]}" --dump="$WORK/ck_cpu.bin" >/dev/null 2>"$WORK/err" ||
    fail "checkpoint case: CPU run failed"
run_np 2 advect --device=gpu "${ck[@]}" --checkpoint="$WORK/g.ckpt" --checkpoint-every=4 \
    >/dev/null 2>"$WORK/err" || fail "checkpoint case: GPU checkpointing run failed"
grep -q "checkpoint of step 8 written" "$WORK/err" || fail "checkpoint case: no checkpoint at step 8"
run_np 1 advect --device=gpu "${ck[@]}" --checkpoint="$WORK/g.ckpt" --restart --dump="$WORK/ck_gpu.bin" \
    >/dev/null 2>"$WORK/err" || fail "checkpoint case: GPU restart failed"
if cmp -s "$WORK/ck_cpu.bin" "$WORK/ck_gpu.bin"; then
    echo "ok: GPU checkpoint at step 8 (2 ranks), GPU restart (1 rank) = CPU's 10 steps, bitwise"
else
    fail "checkpoint case: GPU checkpoint + restart differs from the CPU"
fi

# The Courant check on the device: the same error as the CPU's, which names the face.
run_np 1 advect --device=cpu --nx=16 --ny=16 --nz=3 --steps=3 --dt=0.2 >/dev/null 2>"$WORK/cpu.err" &&
    fail "Courant 3.2 on the CPU: the run did not fail"
want=$({ grep "error: Courant number" "$WORK/cpu.err" || true; } | head -1)
# (field groups: the check of a step is read once the next is queued; on every
# rank, with no answer or dump left behind)
for lay in "1" "2 --pf=1" "2 --pf=2"; do
    read -r np grid <<<"$lay"
    rm -f "$WORK/bad.csv" "$WORK/bad.bin"
    # shellcheck disable=SC2086 # grid: zero or more options
    run_np "$np" advect --device=gpu --nx=16 --ny=16 --nz=3 --fields=2 --steps=3 --dt=0.2 $grid \
        --output="$WORK/bad.csv" --dump="$WORK/bad.bin" >/dev/null 2>"$WORK/gpu.err" &&
        fail "Courant 3.2 on the GPU ($lay): the run did not fail"
    if [ -n "$want" ] && grep -qF "$want" "$WORK/gpu.err"; then
        echo "ok: Courant 3.2 on the GPU ($lay ranks): $want"
    else
        fail "Courant 3.2 on the GPU ($lay ranks): not the CPU's error"
    fi
    [ ! -e "$WORK/bad.csv" ] && [ ! -e "$WORK/bad.bin" ] || fail "Courant 3.2 ($lay): output left"
done
finish
