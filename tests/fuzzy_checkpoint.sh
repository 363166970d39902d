#!/usr/bin/env bash
# Checkpoint and restart of an exact run: a real SIGUSR1 (or SIGTERM) sent to
# the ranks mid-run makes them finish the current round of starts, write the
# records so far and exit 3; --restart, on another rank count, ends with the
# same result line, the same total iteration count and identical prototypes,
# memberships and labels as a run never stopped. Periodic checkpoints alone
# leave the answer unchanged, and a checkpoint of other data is refused.
source "$(dirname "$0")/lib.sh"
ARGS=(--gen=blobs --n=2000 --seed=11)

iterations() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['result']['iterations_total'])" "$1"; }
line() { echo "$(grep '^fuzzy: ' "$1.out") it=$(iterations "$1.json")"; }

# The reference, never stopped.
run_np 2 fuzzy --device=cpu "${ARGS[@]}" --output-prefix="$WORK/ref-" --summary="$WORK/ref.json" \
    >"$WORK/ref.out" 2>"$WORK/ref.err" || { cat "$WORK/ref.err" >&2; fail "reference run"; finish; }
WANT=$(line "$WORK/ref")
echo "reference: $WANT"

same_as_ref() {
    local name=$1 prefix=$2 f
    local got
    got=$(line "$prefix")
    [ "$got" = "$WANT" ] || fail "$name: '$got', want '$WANT'"
    for f in prototypes memberships labels; do
        cmp -s "$WORK/ref-$f.csv" "$prefix-$f.csv" || fail "$name: $f.csv differs from the reference"
    done
    echo "ok: $name: the reference's answer"
}

# signal_case SIG NP NP_RESTART: stop a run on NP ranks with SIG, restart on NP_RESTART.
signal_case() {
    local sig=$1 np=$2 np2=$3
    rm -f "$WORK/fz.ckpt"
    # The ranks run until the first periodic checkpoint (60 of 2000 starts) is
    # whole, where rank 0 stops itself (STOP_AT): the signal then comes with
    # 1940 starts left, however fast the machine, and is seen at the next round.
    env "${STOP_AT[@]}" MU_STOP_AT="$WORK/fz.ckpt" "$MPIEXEC" -n "$np" "${PREFLAGS[@]}" "$MUTIRAO" \
        fuzzy --device=cpu "${ARGS[@]}" --checkpoint="$WORK/fz.ckpt" --checkpoint-every=60 \
        --output-prefix="$WORK/stopped-" >"$WORK/sig.out" 2>"$WORK/sig.err" &
    local pid=$!
    if ! signal_at_stop $pid "$sig"; then
        abandon $pid "$sig: the run ended before its first checkpoint stopped it" "$WORK/sig.err"
        return
    fi
    reap $pid
    local rc=$RC
    expect_eq "SIG$sig on $np rank(s): exit status" "$rc" 3
    [ "$rc" = 3 ] || { tail -n 5 "$WORK/sig.err" >&2; return; }
    grep -q "stopped by SIG$sig after [0-9]* of 2000 starts" "$WORK/sig.err" ||
        fail "SIG$sig: no stop message"
    [ ! -e "$WORK/stopped-prototypes.csv" ] || fail "SIG$sig: a stopped run wrote results"
    # Seen at the round after the checkpoint the run stopped at: always 120.
    grep -q "stopped by SIG$sig after 120 of 2000 starts" "$WORK/sig.err" ||
        fail "SIG$sig: not stopped at the round after the first checkpoint (120 starts)"
    echo "ok: $(grep -o "stopped by SIG$sig after [0-9]* of 2000 starts" "$WORK/sig.err")"
    if run_np "$np2" fuzzy --device=cpu "${ARGS[@]}" --checkpoint="$WORK/fz.ckpt" --restart \
        --output-prefix="$WORK/restart-" --summary="$WORK/restart.json" >"$WORK/restart.out" \
        2>"$WORK/restart.err"; then
        grep -q "restarting from" "$WORK/restart.err" || fail "SIG$sig: no restart message"
        same_as_ref "SIG$sig on $np rank(s), restart on $np2" "$WORK/restart"
    else
        cat "$WORK/restart.err" >&2
        fail "SIG$sig: the restart failed"
    fi
}

signal_case USR1 2 1
signal_case TERM 1 3

# A signal that reaches rank 1 only (rank 0 frozen at its first checkpoint):
# every rank stops at the same round, and rank 0 says the signal came to
# another rank (not "signal 0").
rm -f "$WORK/fz.ckpt"
env "${STOP_AT[@]}" MU_STOP_AT="$WORK/fz.ckpt" "$MPIEXEC" -n 2 "${PREFLAGS[@]}" "$MUTIRAO" fuzzy \
    --device=cpu "${ARGS[@]}" --checkpoint="$WORK/fz.ckpt" --checkpoint-every=60 \
    --output-prefix="$WORK/other-" >/dev/null 2>"$WORK/other.err" &
pid=$!
if signal_at_stop $pid USR1 others; then
    reap $pid
    expect_eq "SIGUSR1 to rank 1 only: exit status" "$RC" 3
    grep -q "stopped by a signal on another rank after 120 of 2000 starts" "$WORK/other.err" ||
        fail "SIGUSR1 to rank 1 only: rank 0 does not say the signal came to another rank"
    ! grep -q "signal 0" "$WORK/other.err" || fail "SIGUSR1 to rank 1 only: 'signal 0' in the log"
else
    abandon $pid "SIGUSR1 to rank 1 only: the run ended before its first checkpoint stopped it" \
        "$WORK/other.err"
fi

# Periodic checkpoints only: the same answer.
run_np 3 fuzzy --device=cpu "${ARGS[@]}" --checkpoint="$WORK/periodic.ckpt" \
    --checkpoint-every=500 --output-prefix="$WORK/periodic-" --summary="$WORK/periodic.json" \
    >"$WORK/periodic.out" 2>"$WORK/periodic.err" || fail "periodic run"
[ -s "$WORK/periodic.ckpt" ] || fail "no periodic checkpoint"
same_as_ref "checkpoints every 500 starts on 3 ranks" "$WORK/periodic"

# A checkpoint of other data is refused, on every rank, with one message.
check_failure "restart on other data" "written for other data or settings" nonzero "restart2-*" \
    "$MPIEXEC" -n 2 "${PREFLAGS[@]}" "$MUTIRAO" fuzzy --device=cpu --gen=blobs --n=2000 --seed=12 \
    --checkpoint="$WORK/periodic.ckpt" --restart --output-prefix="$WORK/restart2-"
check_failure "restart without a checkpoint" "cannot open checkpoint" nonzero "restart3-*" \
    "$MPIEXEC" -n 1 "${PREFLAGS[@]}" "$MUTIRAO" fuzzy --device=cpu "${ARGS[@]}" \
    --checkpoint="$WORK/missing.ckpt" --restart --output-prefix="$WORK/restart3-"

# Records edited behind a valid header (issue 48): one message naming the file
# and the field, a non-zero exit, no results. The file: a 64-byte header
# (magic, n, F, done, record, fingerprint, 2 spare), then done records of F + 2
# doubles (end point, iterations, converged).
bad_record() { # NAME PATTERN EDIT (python3, on bytearray b; rec(k, i): a field's offset)
    python3 - "$WORK/periodic.ckpt" "$WORK/$1.ckpt" "$3" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
n, F, done, record = struct.unpack_from("<4q", b, 8)
assert done > 3 and record == F + 2
def rec(k, i): return 64 + 8 * (k * record + i)
exec(sys.argv[3])
open(sys.argv[2], "wb").write(bytes(b))
PY
    check_failure "checkpoint: $1" "$2" nonzero "$WORK/edited-*" "$MPIEXEC" -n 2 "${PREFLAGS[@]}" \
        "$MUTIRAO" fuzzy --device=cpu "${ARGS[@]}" --checkpoint="$WORK/$1.ckpt" --restart \
        --output-prefix="$WORK/edited-" || true
}
bad_record iterations \
    "$WORK/iterations.ckpt': field 'iterations' of record 3: 1e+15, not a whole number in 0..10000" \
    'struct.pack_into("<d", b, rec(3, F), 1e15)'
bad_record negative_iterations "field 'iterations' of record 0: -2, not a whole number" \
    'struct.pack_into("<d", b, rec(0, F), -2)'
bad_record converged "$WORK/converged.ckpt': field 'converged' of record 2: 0.5, not 0 or 1" \
    'struct.pack_into("<d", b, rec(2, F + 1), 0.5)'
bad_record end_point "field 'end point' of record 1, coordinate 2: nan, not a finite number" \
    'struct.pack_into("<d", b, rec(1, 1), float("nan"))'
finish
