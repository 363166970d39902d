#!/bin/bash
# Tuning knobs: every MUTIRAO_* variable the sources read through mu_knob is
# registered (listed by `mutirao info`, found by grepping the sources here, not
# from the table), nothing reads one past the registry (no getenv("MUTIRAO_),
# and a knob set in the environment reaches the run's summary with its value.
source "$(dirname "$0")/lib.sh"
SRC=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}

run_np 1 info >"$WORK/info" 2>/dev/null || fail "mutirao info failed"
used=$(grep -rhoE 'mu_knob(_flag|_int|_seconds)?\("MUTIRAO_[A-Z0-9_]+"' "$SRC/core" "$SRC/gpu" "$SRC/mpi" "$SRC/workloads" "$SRC/api" "$SRC/cmd" |
    sed -E 's/.*"(MUTIRAO_[A-Z0-9_]+)"/\1/' | sort -u)
[ -n "$used" ] || fail "no mu_knob call found in the sources"
for k in $used; do
    grep -q "^  $k " "$WORK/info" || fail "$k is read by the sources but not listed by mutirao info"
done
echo "ok: $(echo "$used" | wc -w) knobs read by the sources, all listed by mutirao info"
if grep -rn 'getenv("MUTIRAO_' "$SRC/core" "$SRC/gpu" "$SRC/mpi" "$SRC/workloads" "$SRC/api" "$SRC/cmd"; then
    fail "a MUTIRAO_ variable read with getenv, past the registry"
fi

MUTIRAO_PROGRESS_SECONDS=7 MUTIRAO_MSS1D_ROUNDS=3 run_np 2 maxsub --n=1000 \
    --summary="$WORK/s.json" >/dev/null 2>"$WORK/err" || fail "maxsub with knobs set failed"
python3 - "$WORK/s.json" <<'PY' || fail "summary knobs"
import json, sys
knobs = json.load(open(sys.argv[1])).get("knobs")
want = {"MUTIRAO_PROGRESS_SECONDS": "7", "MUTIRAO_MSS1D_ROUNDS": "3"}
same = json.load(open(sys.argv[1])).get("knobs_same_bits")
sys.exit(0 if knobs == want and same is True else f"summary knobs {knobs} ({same}), want {want}")
PY
# MUTIRAO_CG_LANES changes the order of a row's sum: listed and summarized as such
grep -qE "^  MUTIRAO_CG_LANES +[^ ]+ +rounding " "$WORK/info" || fail "CG_LANES not listed as rounding"
grep -qE "^  MUTIRAO_MSS1D_ROUNDS +[^ ]+ +same bits " "$WORK/info" || fail "MSS1D_ROUNDS not same bits"
MUTIRAO_CG_LANES=4 run_np 1 cg --poisson=2d5 --nx=8 --summary="$WORK/l.json" >/dev/null 2>"$WORK/lerr" ||
    fail "cg with MUTIRAO_CG_LANES set failed"
python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])).get("knobs_same_bits") is not False)' \
    "$WORK/l.json" || fail "a rounding knob set, yet knobs_same_bits is not false"
grep -q "MUTIRAO_CG_LANES = 4 (it may change the answer's last bits)" "$WORK/lerr" ||
    fail "the rounding knob is not logged as such"
grep -q "tuning knob MUTIRAO_MSS1D_ROUNDS = 3" "$WORK/err" || fail "the set knob is not logged"
(unset MUTIRAO_PROGRESS_SECONDS && run_np 1 maxsub --n=1000 --summary="$WORK/n.json" >/dev/null 2>&1) ||
    fail "maxsub failed"
python3 -c 'import json,sys; sys.exit("knobs" in json.load(open(sys.argv[1])))' "$WORK/n.json" ||
    fail "a summary without knobs set has a knobs object"
[ $FAILS -eq 0 ] && echo "ok: knobs in info, logs and summaries"
exit $FAILS
