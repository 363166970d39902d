#!/usr/bin/env bash
# Bad input to `mutirao cg`: one clear message naming the file, the line and
# the problem, exit status 1 on every rank (no hang), and no output file. A
# matrix that is not SPD is a breakdown, reported as such. Not converging
# within --max-it is a warning with exit status 2 and the last iterate written.
source "$(dirname "$0")/lib.sh"
IN=$SRCDIR/inputs/cg

# bad NAME PATTERN ARGS...: on 3 ranks; must exit 1, print PATTERN once, leave no output.
bad() {
    local name=$1 pattern=$2
    shift 2
    rm -f "$WORK"/out.txt*
    bad_on_3 "$name" "$pattern" 1 "$WORK/out.txt*" cg --output="$WORK/out.txt" "$@"
}

mm() { printf '%%%%MatrixMarket matrix coordinate %s\n' "$1"; }
{ mm "real general"; printf '2 2 2\n1 1 1\n2 2 x4\n'; } >"$WORK/nonnum.mtx"
{ mm "real symmetric"; printf '3 3 3\n1 1 4\n1 3 -1\n3 3 4\n'; } >"$WORK/upper.mtx"
{ mm "real general"; printf '2 2 3\n1 1 1\n2 2 1\n'; } >"$WORK/few.mtx"
{ mm "real general"; printf '2 2 1\n1 1 1\n2 2 1\n'; } >"$WORK/many.mtx"
{ mm "real general"; printf '2 2 2\n1 1 1\n3 2 1\n'; } >"$WORK/range.mtx"
{ mm "real general"; printf '2 3 1\n1 1 1\n'; } >"$WORK/rect.mtx"
printf '%%%%MatrixMarket matrix array real general\n1 1\n1\n' >"$WORK/array.mtx"
{ mm "complex general"; printf '1 1 1\n1 1 1 0\n'; } >"$WORK/complex.mtx"
printf 'not a matrix\n' >"$WORK/banner.mtx"
# Not SPD: an indefinite diagonal; a Laplacian with a large negative diagonal entry.
{ mm "real symmetric"; printf '2 2 2\n1 1 1\n2 2 -2\n'; } >"$WORK/indef.mtx"
{
    mm "real symmetric"
    n=10
    echo "$((n * n)) $((n * n)) $((n * n + 2 * n * (n - 1)))"
    for ((j = 0; j < n; j++)); do for ((i = 0; i < n; i++)); do
        r=$((j * n + i + 1))
        if [ $r = 1 ]; then echo "$r $r -100"; else echo "$r $r 4"; fi
        [ $i -gt 0 ] && echo "$r $((r - 1)) -1"
        [ $j -gt 0 ] && echo "$r $((r - n)) -1"
    done; done
} >"$WORK/neglap.mtx"
gzip -c "$IN/LF10.mtx" | head -c 300 >"$WORK/trunc.mtx.gz"

# Hostile files (issue 19). A size line's row count is backed by entries before
# anything of that size is made (1 GiB of address space and 20 s are plenty);
# NUL bytes, underflowing values and non-regular files are refused by name.
{ mm "real symmetric"; printf '100000000 100000000 1\n1 1 4\n'; } >"$WORK/rows.mtx"
{ mm "real symmetric"; printf '2147483646 2147483646 1\n1 1 4\n'; } >"$WORK/rowsmax.mtx"
{ mm "real symmetric"; printf '2 2 2\n1 1 4\n2 2 1e-400\n'; } >"$WORK/tiny.mtx"
WRAP=("${MEM_1G[@]}" timeout 20)
bad "1e8 rows, 1 entry, under 1 GiB" \
    "rows.mtx:2: 100000000 rows but 1 entries: an SPD matrix has a diagonal entry in every row" \
    --matrix="$WORK/rows.mtx"
bad_file "2^31 - 2 rows, 1 entry, under 1 GiB" matrix rowsmax.mtx:2 "2147483646 rows but 1 entries"
WRAP=()
bad_nul "NUL byte" nul.mtx 3 6 '%%%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 4\0 5\n2 2 4\n' \
    matrix
bad_file "underflow" matrix tiny.mtx:4 "value '1e-400' is below the smallest normal double"
bad_directory matrix matrix
bad_device matrix matrix /dev/zero
bad_missing matrix matrix "$WORK/none.mtx"
bad_files matrix <<'EOF'
not Matrix Market | banner.mtx:1 | not a Matrix Market file
array format | array.mtx:1 | format 'array' is not supported
complex field | complex.mtx:1 | field 'complex' is not supported
non-square | rect.mtx:2 | the matrix is 2 x 3; CG needs a square matrix
non-numeric value | nonnum.mtx:4 | 'x4' is not a number
index out of range | range.mtx:4 | row index 3 is out of range 1..2
too few entries | few.mtx:5 | end of file after 2 of the 3 entries
too many entries | many.mtx:4 | more entries than the 1 declared on line 2
upper triangle in a symmetric file | upper.mtx:4 | entry (1, 3) lies above the diagonal
truncated gzip | trunc.mtx.gz:24 | the compressed file ends early
EOF
bad "indefinite matrix" "breakdown at iteration 0: p'Ap = -1 <= 0: the matrix is not SPD" \
    --matrix="$WORK/indef.mtx" --rhs=ones
bad "Laplacian with a negative diagonal" "<= 0: the matrix is not SPD" --matrix="$WORK/neglap.mtx" \
    --rhs=ones
bad "thesis variant, not SPD" "w'Aw = -1 <= 0: the matrix is not SPD" --matrix="$WORK/indef.mtx" \
    --rhs=ones --variant=thesis
bad "Jacobi on a negative diagonal" "row 1 has diagonal -100: --pc=jacobi needs a positive diagonal" \
    --matrix="$WORK/neglap.mtx" --pc=jacobi
bad "scaled beyond the double range" "times --scale=1e+307 is not finite" --matrix="$IN/nos1.mtx" \
    --scale=1e307
bad "no problem" "no problem: give --matrix=FILE or --poisson" --rtol=1e-6
bad "matrix and poisson" "--matrix and --poisson exclude each other" --matrix="$IN/LF10.mtx" \
    --poisson=2d5 --nx=4
bad "poisson without nx" "--poisson=3d7 needs --nx=N" --poisson=3d7
bad "zero grid" "--nx, --ny and --nz must be at least 1" --poisson=2d5 --nx=0
bad "nz in 2-D" "--nz is for the 3-D operators" --poisson=2d5 --nx=4 --nz=3
bad "grid sizes with a file" "--nx, --ny and --nz go with --poisson" --matrix="$IN/LF10.mtx" --nx=3
bad_unknown_option --tol=1e-6 --poisson=2d5 --nx=4
bad "bad preconditioner" "expects one of none|jacobi, got 'ilu'" --poisson=2d5 --nx=4 --pc=ilu
bad "bad number" "option 'rtol' expects a finite number, got 'tiny'" --poisson=2d5 --nx=4 --rtol=tiny
bad "rtol out of range" "--rtol must be in [0, 1)" --poisson=2d5 --nx=4 --rtol=2
# A tuning knob with a value it does not allow is refused, not ignored.
WRAP=(env MUTIRAO_CG_LANES=3)
bad "tuning knob out of its values" "MUTIRAO_CG_LANES=3: expected 1|2|4|8|16|32" --poisson=2d5 --nx=8
WRAP=()
bad "negative max-it" "--max-it must be >= 0" --poisson=2d5 --nx=4 --max-it=-1
bad "zero scale" "--scale must be positive" --poisson=2d5 --nx=4 --scale=0
bad "thesis with jacobi" "no --pc or --replace-every" --poisson=2d5 --nx=4 --variant=thesis --pc=jacobi
bad "restart without a checkpoint" "cannot open checkpoint '$WORK/none.ckpt'" \
    --poisson=2d5 --nx=4 --restart --checkpoint="$WORK/none.ckpt"
bad "output directory missing" "cannot write" --poisson=2d5 --nx=4 --output="$WORK/no/dir/x.txt"
printf 'poisson = 2d5\nnx = 5\nbogus = 1\n' >"$WORK/deck.ini"
bad_file "unknown deck key" config deck.ini:3 "unknown key 'bogus'"

# A good deck works, and the command line wins over it.
printf '[cg]\npoisson = 2d5\nnx = 5\npc = jacobi\n' >"$WORK/good.ini"
run_np 2 cg --config="$WORK/good.ini" --nx=6 >"$WORK/deck.out" 2>/dev/null || fail "deck run failed"
if grep -q "n=36 " "$WORK/deck.out" && grep -q "pc=jacobi" "$WORK/deck.out"; then
    echo "ok: job deck"
else
    fail "job deck: $(cat "$WORK/deck.out")"
fi

# Not converged: a warning, exit status 2, and the last iterate is still written.
set +e
run_np 3 cg --poisson=3d7 --nx=10 --max-it=5 --output="$WORK/x5.txt" --summary="$WORK/s5.json" \
    >"$WORK/nc.out" 2>"$WORK/nc.err"
rc=$?
set -e
expect_eq "not converged: exit status" "$rc" 2
grep -q "not converged after 5 iterations" "$WORK/nc.err" || fail "not converged: no warning"
expect_eq "not converged: solution lines" "$(wc -l <"$WORK/x5.txt")" 1000
grep -q '"converged":	false' "$WORK/s5.json" || fail "not converged: summary lacks converged false"
# Checkpoints (--restart): cut short, padded, a directory (issue 19). The
# header is 512 bytes, then 3 vectors of the 64 rows: 2048 bytes.
ck=(--poisson=2d5 --nx=8 --rtol=0 --max-it=4)
run_np 1 cg "${ck[@]}" --checkpoint="$WORK/c.ckpt" --checkpoint-every=2 --output="$WORK/c.txt" \
    >/dev/null 2>&1 || true
[ -s "$WORK/c.ckpt" ] || fail "no checkpoint to cut"
head -c 100 "$WORK/c.ckpt" >"$WORK/head.ckpt"
cut_checkpoint "$WORK/c.ckpt" 1000
bad "checkpoint shorter than its header" "checkpoint '$WORK/head.ckpt' is truncated (100 bytes)" \
    "${ck[@]}" --checkpoint="$WORK/head.ckpt" --restart
bad "truncated checkpoint" "checkpoint '$WORK/cut.ckpt' has 1000 bytes, expected 2048" \
    "${ck[@]}" --checkpoint="$WORK/cut.ckpt" --restart
bad "padded checkpoint" "checkpoint '$WORK/long.ckpt' has 2049 bytes, expected 2048" \
    "${ck[@]}" --checkpoint="$WORK/long.ckpt" --restart
# A directory as the checkpoint is refused as an output before the restart reads it.
bad "directory as checkpoint" "cannot write '$WORK/': it is a directory" --checkpoint="$WORK/" \
    "${ck[@]}" --restart
finish
