#!/usr/bin/env bash
# The command line: help lists every option with its default, a job deck gives
# the same answer as the same options on the command line, the summary JSON
# holds the answer and the run's configuration, info reports the ranks, and a
# mismatched launcher is detected.
source "$(dirname "$0")/lib.sh"

"$MUTIRAO" maxsub --help > "$WORK/help"
for opt in dim input format rows cols n gen seed dist min max empty output farm-chunk fasta \
           config device summary log; do
    grep -q -- "--$opt" "$WORK/help" || fail "help lacks --$opt"
done
grep -q "\[allowed\]" "$WORK/help" || fail "help lacks defaults"
"$MUTIRAO" --help > "$WORK/tophelp"
grep -q maxsub "$WORK/tophelp" || fail "top-level help lacks maxsub"
"$MUTIRAO" maxsub -h > "$WORK/h" || fail "-h refused"
cmp -s "$WORK/help" "$WORK/h" || fail "-h is not --help"
# --key value as well as --key=value, a negative value included; a missing value is named.
run_np 2 maxsub --device=cpu --n 400 --seed 9 --min -7 --max 6 --output "$WORK/sp.csv" >/dev/null 2>&1 ||
    fail "--key value refused"
run_np 2 maxsub --device=cpu --n=400 --seed=9 --min=-7 --max=6 --output="$WORK/eq.csv" >/dev/null 2>&1
cmp -s "$WORK/sp.csv" "$WORK/eq.csv" || fail "--key value differs from --key=value"
if run_np 1 maxsub --n=10 --seed > /dev/null 2> "$WORK/err"; then fail "--seed without a value accepted"; fi
grep -q "option '--seed' needs a value" "$WORK/err" || fail "no message for a missing value"
if "$MUTIRAO" frobnicate 2> "$WORK/err"; then fail "unknown command accepted"; fi
grep -q "unknown command 'frobnicate'" "$WORK/err" || fail "unknown command message"

printf '[maxsub]\ndim = 2\nn = 40\nseed = 4\nmin = -5\nmax = 5\n' > "$WORK/deck.ini"
run_np 2 maxsub --device=cpu --config="$WORK/deck.ini" --output="$WORK/a.csv" --summary="$WORK/s.json" > /dev/null 2>&1
run_np 2 maxsub --device=cpu --dim=2 --n=40 --seed=4 --min=-5 --max=5 --output="$WORK/b.csv" > /dev/null 2>&1
expect_eq "deck equals command line" "$(answer "$WORK/a.csv")" "$(answer "$WORK/b.csv")"
python3 - "$WORK/s.json" "$(answer "$WORK/a.csv")" <<'PY' || fail "summary JSON"
import json, sys
s = json.load(open(sys.argv[1]))
want = [int(v) for v in sys.argv[2].split(",")]
r = s["result"]
assert [r["sum"], r["row0"], r["row1"], r["col0"], r["col1"]] == want, r
assert s["ranks"] == 2 and s["command"] == "maxsub", s
assert s["options"]["n"]["source"].endswith("deck.ini:3"), s["options"]["n"]
assert "pairs" in s["phases"] and s["wall_seconds"] > 0
print("ok: summary", r)
PY

run_np 3 info > "$WORK/info" 2>/dev/null
grep -q "world size:  3" "$WORK/info" || fail "info world size"
[ "$(grep -c 'rank [0-9]: node' "$WORK/info")" = 3 ] || fail "info lists every rank"
grep -q "MPI:" "$WORK/info" || fail "info MPI library"

# A launcher that does not match the library: Slurm says 4 tasks, MPI sees 1.
if SLURM_STEP_NUM_TASKS=4 SLURM_STEP_ID=0 "$MUTIRAO" maxsub --n=5 2> "$WORK/err" > /dev/null; then
    fail "launch mismatch not detected"
fi
grep -q "srun --mpi=pmi2" "$WORK/err" || fail "launch mismatch hint"
if OMPI_COMM_WORLD_SIZE=2 "$MUTIRAO" maxsub --n=5 2> "$WORK/err" > /dev/null; then
    fail "OpenMPI launcher mismatch not detected"
fi
# mpiexec inside a Slurm step of more tasks (each task its own world): every rank stops, and
# the message names each count. A step of fewer tasks (Hydra's proxies, one a node) is fine.
if SLURM_STEP_NUM_TASKS=4 run_np 2 maxsub --n=5 2> "$WORK/err" > /dev/null; then
    fail "a Slurm step of 4 tasks around mpiexec -n 2 not detected"
fi
[ "$(grep -c "SLURM_STEP_NUM_TASKS=4 but MPI_Comm_size is 2" "$WORK/err")" = 2 ] ||
    { cat "$WORK/err" >&2; fail "not every rank names the step's 4 tasks"; }
grep -q "(SLURM_STEP_NUM_TASKS=4, PMI_SIZE=2)" "$WORK/err" || fail "the counts are not listed"
SLURM_STEP_NUM_TASKS=1 run_np 2 maxsub --n=5 > /dev/null 2>&1 ||
    fail "one Slurm task around mpiexec -n 2 (Hydra under Slurm) refused"
# The timing table ends every run.
run_np 1 maxsub --device=cpu --n=1000 2> "$WORK/err" > /dev/null
grep -q "total wall" "$WORK/err" || fail "timing table"
# ... except under --log=error; nested phases are indented and the top level sums to <= 100 %.
run_np 1 maxsub --device=cpu --n=1000 --log=error 2> "$WORK/err" > /dev/null
[ ! -s "$WORK/err" ] || { cat "$WORK/err" >&2; fail "--log=error still prints"; }
# (one rank: the maxima of phases over ranks may come from different ranks)
run_np 1 advect --device=cpu --nx=24 --ny=24 --nz=4 --steps=2 2> "$WORK/err" > /dev/null
grep -q "^  advect: X sweep " "$WORK/err" || fail "the sweeps are not indented under advect: steps"
top=$(awk '/^phase /{t=1; next} t && /^advect: / {s += $NF} END {print s+0}' "$WORK/err")
python3 -c "import sys; sys.exit(float(sys.argv[1]) > 100.5)" "$top" ||
    fail "top-level phases sum to $top %"
finish
