#!/usr/bin/env bash
# Checkpoint and restart: a run stopped by a real SIGUSR1 (or SIGTERM) sent to
# its ranks writes its checkpoint and exits 3; --restart, on the same or another
# rank count, ends with the same iteration count and bitwise the same solution
# as a run never stopped. Periodic checkpoints (--checkpoint-every) too, for
# both variants, Jacobi and fp32. A checkpoint of another problem is refused.
source "$(dirname "$0")/lib.sh"
status_of() { cg_status "$1" | sed 's/ (restarted)//'; }

# 1. A real signal. The stopped run has no tolerance to reach (--rtol=0) and a
#    huge --max-it, so it is still iterating when the signal comes, however fast
#    the machine: a random b (no exactly representable solution) and residual
#    replacement keep ||r|| at round-off level, never exactly 0. The restart and
#    the reference then stop at the same --max-it.
signal_case() {
    local sig=$1 np=$2 np_restart=$3
    shift 3
    local args=(--poisson=3d7 --nx=40 --rtol=0 --rhs=random --replace-every=50 "$@")
    rm -f "$WORK/sig.ckpt"
    "$MPIEXEC" -n "$np" "${PREFLAGS[@]}" "$MUTIRAO" cg "${args[@]}" --max-it=100000000 \
        --checkpoint="$WORK/sig.ckpt" >"$WORK/sig.out" 2>"$WORK/sig.err" &
    local pid=$!
    # Once the solve is running (a progress line: MUTIRAO_PROGRESS_SECONDS=1).
    stop_when $pid "$WORK/sig.err" "cg solve:" "$sig" "$sig: the run never reached the solve" \
        "$WORK/sig.err" || return 0
    local rc=$RC
    # MPICH's launcher now and then reports a rank ended by the signal itself
    # (exit 15) on a loaded 2-core machine, with the previous build as well:
    # the handler is installed on every rank before the solve, so this is the
    # launcher's race, not the solver's. Try again (up to 3 attempts).
    if [ "$rc" = 15 ] && [ "${attempt:-1}" -lt 3 ]; then
        echo "note: $sig on $np ranks: the launcher reported exit 15 (attempt ${attempt:-1}); again"
        attempt=$((${attempt:-1} + 1)) signal_case "$sig" "$np" "$np_restart" "$@"
        return
    fi
    expect_eq "$sig on $np ranks: exit status" "$rc" 3
    [ "$rc" = 3 ] || { tail -n 5 "$WORK/sig.err" "$WORK/sig.out" >&2; return; }
    grep -q "stopped by SIG$sig at iteration" "$WORK/sig.err" || fail "$sig: no stop message"
    # Not computed, so not printed as 0 (issue 19).
    grep -q "^cg: stopped .* true_residual=not-computed " "$WORK/sig.out" ||
        fail "$sig: the stopped run's line lacks true_residual=not-computed: $(cat "$WORK/sig.out")"
    [ -s "$WORK/sig.ckpt" ] || { fail "$sig: no checkpoint"; return; }
    local k end
    k=$(grep -o 'stopped by SIG[A-Z0-9]* at iteration [0-9]*' "$WORK/sig.err" | awk '{ print $NF }')
    end=$((k + 37))
    echo "ok: SIG$sig stopped $np rank(s) at iteration $k; restart on $np_restart to $end"
    set +e
    run_np "$np_restart" cg "${args[@]}" --max-it=$end --checkpoint="$WORK/sig.ckpt" --restart \
        --output="$WORK/restart.txt" >"$WORK/restart.out" 2>"$WORK/restart.err"
    rc=$?
    run_np 2 cg "${args[@]}" --max-it=$end --output="$WORK/ref.txt" --checkpoint="$WORK/unused.ckpt" \
        >"$WORK/ref.out" 2>"$WORK/ref.err"
    local rc2=$?
    set -e
    expect_eq "$sig: restart exit status (max-it reached)" "$rc" 2
    expect_eq "$sig: reference exit status" "$rc2" 2
    grep -q "restarting from $WORK/sig.ckpt at iteration $k" "$WORK/restart.err" ||
        fail "$sig: restart did not resume at $k"
    expect_eq "$sig: restart result" "$(status_of "$WORK/restart.out")" "$(status_of "$WORK/ref.out")"
    if cmp -s "$WORK/restart.txt" "$WORK/ref.txt"; then
        echo "ok: $sig: restart solution identical"
    else
        fail "$sig: restarted solution differs"
    fi
}
signal_case USR1 2 3
signal_case TERM 3 1 --pc=jacobi --precision=fp32

# 2. Periodic checkpoints on converging runs: stop at --max-it after a checkpoint,
#    restart elsewhere, converge at the same iteration with the same solution.
periodic() {
    local name=$1 every=$2 stop=$3 np=$4 np_restart=$5
    shift 5
    rm -f "$WORK/per.ckpt"
    set +e
    run_np "$np" cg "$@" --checkpoint="$WORK/per.ckpt" --checkpoint-every="$every" \
        --max-it="$stop" >/dev/null 2>"$WORK/per.err"
    local rc=$?
    run_np "$np_restart" cg "$@" --checkpoint="$WORK/per.ckpt" --restart --output="$WORK/per.txt" \
        >"$WORK/per.out" 2>"$WORK/per.err2"
    local rc2=$?
    run_np 1 cg "$@" --output="$WORK/perref.txt" --checkpoint="$WORK/unused.ckpt" \
        >"$WORK/perref.out" 2>/dev/null
    local rc3=$?
    set -e
    expect_eq "$name: first leg stops at --max-it" "$rc" 2
    expect_eq "$name: restart converges" "$rc2" 0
    expect_eq "$name: reference converges" "$rc3" 0
    expect_eq "$name: result" "$(status_of "$WORK/per.out")" "$(status_of "$WORK/perref.out")"
    if cmp -s "$WORK/per.txt" "$WORK/perref.txt"; then
        echo "ok: $name: solution identical"
    else
        fail "$name: solution differs"
    fi
}
periodic "standard 3d7" 25 40 2 3 --poisson=3d7 --nx=20 --rtol=1e-10
periodic "jacobi fp32 nos5" 40 90 3 1 --matrix="$SRCDIR/inputs/cg/nos5.mtx" --pc=jacobi \
    --precision=fp32 --rtol=1e-5
periodic "replacement every 9" 30 40 1 4 --poisson=2d5 --nx=40 --replace-every=9
periodic "thesis 2d5" 20 30 3 2 --poisson=2d5 --nx=32 --variant=thesis

# 3. A checkpoint of another problem or other options is refused.
rm -f "$WORK/other.ckpt"
set +e
run_np 2 cg --poisson=3d7 --nx=12 --checkpoint="$WORK/other.ckpt" --checkpoint-every=5 --max-it=6 \
    >/dev/null 2>&1
run_np 2 cg --poisson=3d7 --nx=12 --pc=jacobi --checkpoint="$WORK/other.ckpt" --restart \
    >/dev/null 2>"$WORK/o1.err"
rc1=$?
run_np 2 cg --poisson=3d27 --nx=12 --checkpoint="$WORK/other.ckpt" --restart >/dev/null 2>"$WORK/o2.err"
rc2=$?
set -e
expect_eq "other options refused" "$rc1" 1
grep -q "was written with other solver options" "$WORK/o1.err" || fail "options mismatch message"
expect_eq "other matrix refused" "$rc2" 1
grep -q "was written for another matrix" "$WORK/o2.err" || fail "matrix mismatch message"
ls "$WORK"/*.tmp* >/dev/null 2>&1 && fail "temporary files left behind"
finish
