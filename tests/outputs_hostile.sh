#!/usr/bin/env bash
# Outputs and options against a careless or hostile user (issue 48): a symlink
# output stays a link and its target gets the output; a FIFO and a character
# device are written through, never replaced; a directory, an input or another
# output as the output is refused before any work, the input untouched; field
# files are checked at the start; empty, overflowing and huge option values
# and a damaged cg checkpoint get one message naming the option or file. Every
# refusal: one message, a non-zero exit on every rank (mpiexec's status), no
# output and no temporary file left. No sleeps: a FIFO's reader is waited on.
source "$(dirname "$0")/lib.sh"
cd "$WORK"

# ok_run NAME ARGS...: mutirao ARGS on 2 ranks must succeed.
ok_run() {
    local name=$1
    shift
    run_np 2 "$@" >"$WORK/ok.out" 2>"$WORK/ok.err" || { cat "$WORK/ok.err" >&2; fail "$name: failed"; }
}
# refused NAME PATTERN LEFTOVER COMMAND ARGS...: on 2 ranks, see check_failure.
refused() {
    local name=$1 pattern=$2 leftover=$3 command=$4
    shift 4
    check_failure "$name" "$pattern" nonzero "$leftover" \
        "$MPIEXEC" -n 2 "${PREFLAGS[@]}" "$MUTIRAO" "$command" --device=cpu "$@" || true
}
no_tmp() { # no temporary file left anywhere in $WORK
    local left
    left=$(find "$WORK" -name '*.tmp*' | head -n 3)
    [ -z "$left" ] || fail "$1: temporary files left: $left"
}

printf '1\n-2\n3\n4\n-1\n' >in.txt
cp in.txt in.orig
printf 'x,y\n0,0\n0.1,0.2\n0.2,0.1\n5,5\n5.1,5.2\n5.2,5.1\n' >r.csv
cp r.csv r.orig
cp "$SRCDIR/inputs/cg/LF10.mtx" m.mtx
cp m.mtx m.orig
python3 - <<'PY'
rows = ["year,month,a,b"]
for y in range(1950, 1962):
    for m in range(1, 13):
        rows.append("%d,%d,%d,%d" % (y, m, 100 + m + (y * 7 + m * 3) % 11, 90 + 2 * m + (y * 5 + m) % 13))
open("q.csv", "w").write("\n".join(rows) + "\n")
PY
cp q.csv q.orig
sc=(--tree=1,3 --m=32)

# 1. A symlink: still a link after the run, its target holds the output (also
#    a dangling one, whose target is created).
echo old >real.csv
ln -s real.csv link.csv
ln -s made.csv dangling.csv
ok_run "symlink output" maxsub --device=cpu --n=100 --output=link.csv
ok_run "dangling symlink output" maxsub --device=cpu --n=100 --output=dangling.csv
[ -L link.csv ] || fail "symlink output: link.csv is no longer a symlink"
[ -L dangling.csv ] || fail "dangling symlink output: dangling.csv is no longer a symlink"
expect_eq "symlink target's header" "$(head -n 1 real.csv)" "sum,start,end"
expect_eq "dangling symlink target's header" "$(head -n 1 made.csv 2>/dev/null)" "sum,start,end"
ln -s real.ckpt link.ckpt
ok_run "symlink checkpoint" cg --device=cpu --poisson=2d5 --nx=8 --checkpoint=link.ckpt \
    --checkpoint-every=1
[ -L link.ckpt ] && [ -s real.ckpt ] || fail "symlink checkpoint: link replaced or target empty"
no_tmp "symlinks"

# 2. A FIFO: written through (a reader gets the CSV), still a FIFO after.
mkfifo fifo
cat fifo >fifo.got &
reader=$!
ok_run "FIFO output" maxsub --device=cpu --n=100 --output=fifo
# A run that failed before opening the FIFO leaves the reader waiting: release it.
if kill -0 "$reader" 2>/dev/null; then timeout 10 bash -c ': >fifo' || true; fi
wait "$reader" || true
[ -p fifo ] || fail "FIFO output: fifo is no longer a FIFO"
expect_eq "FIFO reader's header" "$(head -n 1 fifo.got)" "sum,start,end"

# 3. A character device (a copy of /dev/null, made where the test runs as
#    root; /dev/null itself otherwise, which only root could replace).
if [ "$(id -u)" = 0 ] && mknod null c 1 3 2>/dev/null; then dev=$WORK/null; else dev=/dev/null; fi
ok_run "device output" maxsub --device=cpu --n=100 --output="$dev" --summary="$dev"
[ -c "$dev" ] || fail "device output: $dev is no longer a character device"
ok_run "device dump" advect --device=cpu --nx=8 --ny=8 --nz=3 --steps=2 --dump="$dev"
[ -c "$dev" ] || fail "device dump: $dev is no longer a character device"
no_tmp "devices"

# 4. An output that is an input (by name, through a symlink, and as the
#    summary): refused before any work, the input untouched.
ln -s in.txt in.link
refused "maxsub output = input" "output 'in.txt' is the same file as the input --input='in.txt'" \
    "$WORK/*.tmp*" maxsub --input=in.txt --output=in.txt
refused "maxsub output = input through a symlink" "output 'in.link' is the same file as the input" \
    "$WORK/*.tmp*" maxsub --input=in.txt --output=in.link
refused "summary = input" "output 'in.txt' is the same file as the input --input='in.txt'" \
    "$WORK/*.tmp*" maxsub --input=in.txt --summary=in.txt
cmp -s in.txt in.orig || fail "maxsub input changed"
refused "fuzzy output = input" "output 'r.csv' is the same file as the input --input='r.csv'" \
    "$WORK/*.tmp*" fuzzy --input=r.csv --output=r.csv
cmp -s r.csv r.orig || fail "fuzzy input changed"
refused "cg output = matrix" "output './m.mtx' is the same file as the input --matrix='m.mtx'" \
    "$WORK/*.tmp*" cg --matrix=m.mtx --output=./m.mtx
cmp -s m.mtx m.orig || fail "cg matrix changed"
refused "scenarios output = input" "output 'q.csv' is the same file as the input --input='q.csv'" \
    "$WORK/*.tmp*" scenarios "${sc[@]}" --input=q.csv --output=q.csv
cmp -s q.csv q.orig || fail "scenarios input changed"

# 5. Two outputs that are one file: refused, nothing written.
refused "two outputs one file" "output './t.csv' is the same file as the output 't.csv'" \
    "$WORK/t.csv" scenarios "${sc[@]}" --input=q.csv --output=t.csv --output-json=./t.csv
refused "fuzzy output = plot" "output 'p.csv' is the same file as the output 'p.csv'" \
    "$WORK/p.csv" fuzzy --input=r.csv --output=p.csv --plot=p.csv

# 6. A directory as the output.
mkdir adir
refused "directory as output" "cannot write 'adir': it is a directory" "$WORK/adir/*" \
    maxsub --n=100 --output=adir

# 7. Field files: a directory in the way of a late step's file is found at
#    the start, before step 1 (no step's file written, no temporary file).
mkdir -p fields f000008.nc
refused "netCDF target in the way" "cannot write 'f000008.nc': it is a directory" \
    "$WORK/f000000.nc" advect --nx=8 --ny=8 --nz=3 --steps=8 --nc=f --output-steps=0,8
grep -q "step 1 " "$WORK/stderr" && fail "netCDF target in the way: a step ran before the error"

# 8. Empty, overflowing and out-of-range option values: one message naming the option.
refused "empty --tree" "option 'tree' needs a value, got an empty one" "$WORK/*.tmp*" \
    scenarios --input=q.csv --tree=
refused "empty --centers" "option 'centers' needs a value, got an empty one" "$WORK/*.tmp*" \
    fuzzy --gen=blobs --centers=
refused "empty --n" "option 'n' needs a value, got an empty one" "$WORK/*.tmp*" maxsub --n=
refused "empty --rtol" "option 'rtol' needs a value, got an empty one" "$WORK/*.tmp*" \
    cg --poisson=2d5 --nx=8 --rtol=
refused "--min-years past 2^32" "--min-years=4294967306: must be 3..100000" "$WORK/*.tmp*" \
    scenarios --input=q.csv --min-years=4294967306
refused "--n past int64" "option 'n' expects an integer" "$WORK/*.tmp*" maxsub --n=99999999999999999999

# 9. Generated sizes: nx ny nz past 2^31 rows refused at once (not wrapped).
refused "3-D grid that wraps" "--nx=4194304 --ny=4194304 --nz=4194304: a grid of over 2^31 - 2 rows" \
    "$WORK/*.tmp*" cg --poisson=3d7 --nx=4194304

# 10. A cg checkpoint whose iteration count is 1e15 (the header's 5th word).
ok_run "cg checkpoint" cg --device=cpu --poisson=2d5 --nx=8 --checkpoint=it.ckpt --checkpoint-every=2
printf '\x00\x80\xc6\xa4\x7e\x8d\x03\x00' | dd of=it.ckpt bs=1 seek=32 conv=notrunc status=none
refused "cg checkpoint at iteration 1e15" "iteration count 1000000000000000: expected 0 to 2^40" \
    "$WORK/*.tmp*" cg --poisson=2d5 --nx=8 --checkpoint=it.ckpt --restart
no_tmp "the end"
finish
