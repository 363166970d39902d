#!/bin/bash
# Tuning knobs: every MUTIRAO_* variable the sources read through mu_knob is
# registered (listed by `mutirao info`, found by grepping the sources here, not
# from the table), nothing reads one past the registry (no getenv("MUTIRAO_),
# and a knob set in the environment reaches the run's summary with its value.
source "$(dirname "$0")/lib.sh"
SRC=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}

run_np 1 info >"$WORK/info" 2>/dev/null || fail "mutirao info failed"
used=$(grep -rhoE 'mu_knob\("MUTIRAO_[A-Z0-9_]+"' "$SRC/src" "$SRC/mpi" "$SRC/gpu" |
    sed -E 's/.*"(MUTIRAO_[A-Z0-9_]+)"/\1/' | sort -u)
[ -n "$used" ] || fail "no mu_knob call found in the sources"
for k in $used; do
    grep -q "^  $k " "$WORK/info" || fail "$k is read by the sources but not listed by mutirao info"
done
echo "ok: $(echo "$used" | wc -w) knobs read by the sources, all listed by mutirao info"
if grep -rn 'getenv("MUTIRAO_' "$SRC/src" "$SRC/mpi" "$SRC/gpu"; then
    fail "a MUTIRAO_ variable read with getenv, past the registry"
fi

MUTIRAO_PROGRESS_SECONDS=7 MUTIRAO_MSS1D_ROUNDS=3 run_np 2 maxsub --n=1000 \
    --summary="$WORK/s.json" >/dev/null 2>"$WORK/err" || fail "maxsub with knobs set failed"
python3 - "$WORK/s.json" <<'PY' || fail "summary knobs"
import json, sys
knobs = json.load(open(sys.argv[1])).get("knobs")
want = {"MUTIRAO_PROGRESS_SECONDS": "7", "MUTIRAO_MSS1D_ROUNDS": "3"}
sys.exit(0 if knobs == want else f"summary knobs {knobs}, want {want}")
PY
grep -q "tuning knob MUTIRAO_MSS1D_ROUNDS = 3" "$WORK/err" || fail "the set knob is not logged"
(unset MUTIRAO_PROGRESS_SECONDS && run_np 1 maxsub --n=1000 --summary="$WORK/n.json" >/dev/null 2>&1) ||
    fail "maxsub failed"
python3 -c 'import json,sys; sys.exit("knobs" in json.load(open(sys.argv[1])))' "$WORK/n.json" ||
    fail "a summary without knobs set has a knobs object"
[ $FAILS -eq 0 ] && echo "ok: knobs in info, logs and summaries"
exit $FAILS
