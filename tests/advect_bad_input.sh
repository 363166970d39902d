#!/usr/bin/env bash
# Bad decks get one clear error on every rank and leave no output behind: a
# Courant number above 1 (named with its face and value, before step 1), sizes
# that do not divide over the process grid, missing fields in an initial-field
# file, a short wind file, options that need each other, a bad value in a deck
# (file:line), a checkpoint of another grid.
source "$(dirname "$0")/lib.sh"
M=("$MPIEXEC" -n 2 "${PREFLAGS[@]}" "$MUTIRAO" advect --device=cpu)
small=(--nx=8 --ny=8 --nz=3)

# bad NAME PATTERN ARGS...: the small grid on 2 ranks; must fail with PATTERN
# and leave nothing (the helpers of lib.sh run their cases through it).
bad() {
    local name=$1 pattern=$2
    shift 2
    check_failure "$name" "$pattern" nonzero "$WORK/none" "${M[@]}" "${small[@]}" "$@"
}

check_failure "Courant above 1" "Courant number 1.6 > 1 on the X face" nonzero "$WORK/out.bin" \
    "${M[@]}" --nx=32 --ny=32 --nz=3 --dt=0.05 --steps=4 --dump="$WORK/out.bin"
grep -q "step 1 " "$WORK/stderr" && fail "Courant above 1: a step ran before the error"
check_failure "Courant above 1 along Z" "Courant number 1.8 > 1 on the Z face" nonzero "$WORK/none" \
    "${M[@]}" "${small[@]}" --u=0 --w=3 --dt=0.2 --steps=4
check_failure "nx not dividing" "nx=25 does not divide over 2 ranks" nonzero "$WORK/none" \
    "${M[@]}" --nx=25 --ny=8 --nz=3 --px=2 --py=1 --steps=1
check_failure "process grid of the wrong size" "process grid has 4 ranks but the run has 2" \
    nonzero "$WORK/none" "${M[@]}" "${small[@]}" --px=2 --py=2 --steps=1
check_failure "blocks narrower than the halo" "fewer than 2 points" nonzero "$WORK/none" \
    "$MPIEXEC" -n 3 "${PREFLAGS[@]}" "$MUTIRAO" advect --nx=3 --ny=8 --nz=3 --px=3 --py=1 --steps=1
check_failure "more field groups than fields" "--pf=3: more field groups than the 2 field(s)" \
    nonzero "$WORK/none" "${M[@]}" "${small[@]}" --fields=2 --pf=3 --steps=1
check_failure "field groups not dividing the ranks" "--pf=3 does not divide the 2 rank(s)" \
    nonzero "$WORK/none" "${M[@]}" "${small[@]}" --fields=4 --pf=3 --steps=1
check_failure "pf x px x py not the ranks" "pf x px x py must be the 2 rank(s)" nonzero \
    "$WORK/none" "${M[@]}" "${small[@]}" --fields=4 --pf=2 --px=2 --py=1 --steps=1
check_failure "negative pf" "--pf=-1: must be 0..4096" nonzero "$WORK/none" "${M[@]}" \
    "${small[@]}" --pf=-1 --steps=1
python3 -c "import struct; open('$WORK/one.bin','wb').write(struct.pack('<192f', *([0.5]*192)))"
check_failure "missing fields" "holds 1 field(s) but the deck asks for 2" nonzero "$WORK/none" \
    "${M[@]}" "${small[@]}" --fields=2 --init=file --init-file="$WORK/one.bin" --steps=1
check_failure "init file missing" "cannot open --init-file '$WORK/nope.bin'" nonzero "$WORK/none" \
    "${M[@]}" "${small[@]}" --init=file --init-file="$WORK/nope.bin" --steps=1
check_failure "init=file without the file" "--init=file needs --init-file=FILE" nonzero "$WORK/none" \
    "${M[@]}" "${small[@]}" --init=file
# The wind file's size is checked against the grid before any allocation.
check_failure "short wind file" "one.bin: 768 bytes, want 2304: 3 x 192 float32 values" nonzero \
    "$WORK/none" "${M[@]}" "${small[@]}" --wind=file --wind-file="$WORK/one.bin" --dt=0.01 --steps=1
check_failure "wind file for a larger grid" "one.bin: 768 bytes, want 50331648" \
    nonzero "$WORK/none" "${M[@]}" --nx=256 --ny=256 --nz=64 --wind=file \
    --wind-file="$WORK/one.bin" --dt=1e-9 --steps=1
bad_directory --wind-file wind-file --wind=file --dt=0.01 --steps=1
bad_directory --init-file init-file --init=file --steps=1
check_failure "grid too small" "--nx=2: must be 3..2^20" nonzero "$WORK/none" \
    "${M[@]}" --nx=2 --steps=1
check_failure "output steps without output" "--output-steps needs --h5=PREFIX" nonzero \
    "$WORK/none" "${M[@]}" "${small[@]}" --output-steps=0 --steps=1
check_failure "restart without a checkpoint" "--restart needs --checkpoint=FILE" nonzero \
    "$WORK/none" "${M[@]}" "${small[@]}" --restart --steps=1
check_failure "NetCDF without output steps" "--nc needs --output-steps=LIST" nonzero \
    "$WORK/none" "${M[@]}" "${small[@]}" --nc="$WORK/n" --steps=1
check_failure "steps not a whole period" "is not a whole number of steps" nonzero "$WORK/none" \
    "${M[@]}" "${small[@]}" --dt=0.3
check_failure "dump into a missing directory" "$WORK/no/such/dir" nonzero "$WORK/none" \
    "${M[@]}" "${small[@]}" --steps=1 --dump="$WORK/no/such/dir/out.bin"
printf '[advect]\nnx = 16\nny = twelve\n' >"$WORK/bad.ini"
check_failure "bad value in a deck" "bad.ini:3" nonzero "$WORK/none" \
    "${M[@]}" --config="$WORK/bad.ini"
run_np 1 advect "${small[@]}" --checkpoint="$WORK/c.ckpt" --checkpoint-every=1 \
    --steps=3 >/dev/null 2>&1 || fail "checkpoint run failed"
check_failure "checkpoint of another grid" "written for nx=8 ny=8 nz=3 fields=1" nonzero \
    "$WORK/none" "${M[@]}" --nx=16 --ny=8 --nz=3 --checkpoint="$WORK/c.ckpt" --restart --steps=4
# A checkpoint cut short, padded, holding a NaN, or a directory: refused by
# size (48 header bytes + 192 cells x 4) before a rank reads its block.
cut_checkpoint "$WORK/c.ckpt" 500
python3 - "$WORK/c.ckpt" "$WORK/nan.ckpt" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
b[48 + 4 * 100:48 + 4 * 101] = struct.pack("<f", float("nan"))
open(sys.argv[2], "wb").write(b)
PY
check_failure "truncated checkpoint" "--restart=$WORK/cut.ckpt: 500 bytes, want 816" nonzero \
    "$WORK/none" "${M[@]}" "${small[@]}" --checkpoint="$WORK/cut.ckpt" --restart --steps=4
check_failure "padded checkpoint" "--restart=$WORK/long.ckpt: 817 bytes, want 816" nonzero \
    "$WORK/none" "${M[@]}" "${small[@]}" --checkpoint="$WORK/long.ckpt" --restart --steps=4
check_failure "NaN in a checkpoint" "--restart=$WORK/nan.ckpt: value 100 is not finite" nonzero \
    "$WORK/none" "${M[@]}" "${small[@]}" --checkpoint="$WORK/nan.ckpt" --restart --steps=4
# A directory as the checkpoint is refused as an output before the restart reads it.
# Generated grids (issue 48): cells x fields multiplied with overflow checks,
# and a grid no rank can hold refused before any allocation, naming the sizes.
check_failure "grid over the memory" "--nx=1048576 --ny=1048576 --nz=3 --fields=1: about " \
    nonzero "$WORK/none" "${M[@]}" --nx=2^20 --ny=2^20 --nz=3 --steps=1
check_failure "grid overflowing int64" \
    "--nx=1048576 --ny=1048576 --nz=1048576 --fields=4096: the grid's size overflows" nonzero \
    "$WORK/none" "${M[@]}" --nx=2^20 --ny=2^20 --nz=2^20 --fields=4096 --steps=1
bad "directory as checkpoint" "cannot write '$WORK/': it is a directory" --checkpoint="$WORK/" \
    --restart --steps=4
finish
