#!/usr/bin/env bash
# Tree checkpoints: periodic checkpoints (--checkpoint-every) leave the tree
# unchanged, and --restart from one, on another rank count, ends with the same
# tree as a run never stopped; a run stopped by a real SIGUSR1 or SIGTERM sent
# to its ranks writes its checkpoint between stages and exits 3, and the
# restart gives the same tree; a checkpoint of other options is refused.
source "$(dirname "$0")/lib.sh"
IN=$SRCDIR/inputs/scenarios/ons_inflows_64.csv
opts=(--device=cpu --input="$IN" --nstations=16 --m=512 --stats-series=0 --seed=5)
tree=--tree=1,3,3,3,3,3,3

run_np 2 scenarios "${opts[@]}" $tree --output="$WORK/ref.csv" >/dev/null 2>&1 || fail "reference run"

# 1. Periodic checkpoints, then a restart from the last one (after stage 5).
run_np 1 scenarios "${opts[@]}" $tree --checkpoint="$WORK/p.ckpt" --checkpoint-every=1 \
    --output="$WORK/periodic.csv" >/dev/null 2>"$WORK/p.err" || { cat "$WORK/p.err" >&2; fail "periodic run"; }
cmp -s "$WORK/ref.csv" "$WORK/periodic.csv" && echo "ok: periodic checkpoints leave the tree unchanged" ||
    fail "tree with periodic checkpoints differs"
grep -q "checkpoint after stage 5 written" "$WORK/p.err" || fail "no checkpoint after stage 5"
for np in 3 4; do
    run_np $np scenarios "${opts[@]}" $tree --checkpoint="$WORK/p.ckpt" --restart \
        --output="$WORK/restart$np.csv" >/dev/null 2>"$WORK/r.err" || { cat "$WORK/r.err" >&2; fail "restart on $np"; }
    grep -q "restarting from $WORK/p.ckpt after stage 5" "$WORK/r.err" || fail "restart did not resume after stage 5"
    cmp -s "$WORK/ref.csv" "$WORK/restart$np.csv" && echo "ok: restart on $np ranks: the same tree" ||
        fail "restart on $np ranks: tree differs"
done
check_failure "checkpoint of other options" "p.ckpt: the checkpoint is of another record or other options" \
    nonzero "$WORK/none*" "$MPIEXEC" -n 2 "${PREFLAGS[@]}" "$MUTIRAO" scenarios "${opts[@]}" $tree \
    --seed=6 --checkpoint="$WORK/p.ckpt" --restart --output="$WORK/none.csv" || true

# 2. Real signals sent to the ranks once stage 1 is done.
signal_case() {
    local sig=$1 np=$2 np_restart=$3
    rm -f "$WORK/sig.ckpt" "$WORK/sig.csv"
    # The ranks run until the checkpoint after stage 1 is whole, where rank 0
    # stops itself (STOP_AT): the signal then comes with five stages left and is
    # seen after stage 2, however fast or loaded the machine.
    env "${STOP_AT[@]}" MU_STOP_AT="$WORK/sig.ckpt" "$MPIEXEC" -n "$np" "${PREFLAGS[@]}" "$MUTIRAO" \
        scenarios "${opts[@]}" $tree --checkpoint="$WORK/sig.ckpt" --checkpoint-every=1 \
        --output="$WORK/sig.csv" >"$WORK/sig.out" 2>"$WORK/sig.err" &
    local pid=$!
    if ! signal_at_stop $pid "$sig"; then
        abandon $pid "$sig: the run ended before its first checkpoint stopped it" "$WORK/sig.err"
        return 0
    fi
    reap $pid
    local rc=$RC
    expect_eq "$sig on $np ranks: exit status" "$rc" 3
    [ "$rc" = 3 ] || { tail -n 5 "$WORK/sig.err" >&2; return; }
    [ ! -e "$WORK/sig.csv" ] || fail "$sig: a stopped run wrote the tree"
    local k
    k=$(grep -o "stopped by SIG$sig after stage [0-9]*" "$WORK/sig.err" | awk '{ print $NF }')
    [ -n "$k" ] || { fail "$sig: no stop message"; return; }
    expect_eq "$sig: the stage it stopped after (the one after the checkpoint it froze at)" "$k" 2
    run_np "$np_restart" scenarios "${opts[@]}" $tree --checkpoint="$WORK/sig.ckpt" --restart \
        --output="$WORK/sig.csv" >/dev/null 2>"$WORK/sr.err" || { cat "$WORK/sr.err" >&2; fail "$sig: restart"; }
    if cmp -s "$WORK/ref.csv" "$WORK/sig.csv"; then
        echo "ok: SIG$sig stopped $np rank(s) after stage $k; restart on $np_restart: the same tree"
    else
        fail "$sig: restarted tree differs"
    fi
}
signal_case USR1 2 3
signal_case TERM 3 1
finish
