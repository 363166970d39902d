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

# 2. Real signals sent to the ranks at a checkpoint the run froze at.
signal_case() { # SIG NP NP_RESTART NTH: frozen at the NTH checkpoint (after stage NTH)
    local sig=$1 np=$2 np_restart=$3 nth=$4
    local want=$((nth + 1))
    rm -f "$WORK/sig.ckpt" "$WORK/sig.csv"
    # The ranks run until the checkpoint after stage NTH is whole, where rank 0
    # stops itself (STOP_AT): every rank has the signal before rank 0 goes on.
    # Rank 0 hands out the nodes of stage NTH + 1 and sees its signal before
    # the first, so the run stops in that stage with none of its nodes done,
    # however fast or loaded the machine; with NTH = 5 that is the last stage,
    # which a signal used to leave running to the end.
    env "${STOP_AT[@]}" MU_STOP_AT="$WORK/sig.ckpt" MU_STOP_AT_NTH="$nth" "$MPIEXEC" -n "$np" \
        "${PREFLAGS[@]}" "$MUTIRAO" scenarios "${opts[@]}" $tree --checkpoint="$WORK/sig.ckpt" \
        --checkpoint-every=1 --output="$WORK/sig.csv" >"$WORK/sig.out" 2>"$WORK/sig.err" &
    local pid=$!
    if ! signal_at_stop $pid "$sig"; then
        abandon $pid "$sig: the run ended before checkpoint $nth stopped it" "$WORK/sig.err"
        return 0
    fi
    reap $pid
    local rc=$RC
    expect_eq "$sig on $np ranks: exit status" "$rc" 3
    [ "$rc" = 3 ] || { tail -n 5 "$WORK/sig.err" >&2; return; }
    [ ! -e "$WORK/sig.csv" ] || fail "$sig: a stopped run wrote the tree"
    [ -s "$WORK/sig.ckpt" ] || fail "$sig: no checkpoint"
    local k d
    k=$(grep -o "stopped by SIG$sig in stage [0-9]* of 6 after [0-9]* of" "$WORK/sig.err" | awk '{ print $6 }')
    d=$(grep -o "stopped by SIG$sig in stage [0-9]* of 6 after [0-9]* of" "$WORK/sig.err" | awk '{ print $10 }')
    [ -n "$k" ] || { fail "$sig: no stop message"; cat "$WORK/sig.err" >&2; return; }
    expect_eq "$sig: the stage it stopped in (the one after the checkpoint it froze at)" "$k" "$want"
    expect_eq "$sig: nodes of stage $want done before it stopped" "$d" 0
    run_np "$np_restart" scenarios "${opts[@]}" $tree --checkpoint="$WORK/sig.ckpt" --restart \
        --output="$WORK/sig.csv" >/dev/null 2>"$WORK/sr.err" || { cat "$WORK/sr.err" >&2; fail "$sig: restart"; }
    grep -q "restarting from $WORK/sig.ckpt after stage $nth " "$WORK/sr.err" || fail "$sig: restart did not resume after stage $nth"
    if cmp -s "$WORK/ref.csv" "$WORK/sig.csv"; then
        echo "ok: SIG$sig stopped $np rank(s) in stage $k; restart on $np_restart: the same tree"
    else
        fail "$sig: restarted tree differs"
    fi
}
signal_case USR1 2 3 1
signal_case TERM 3 1 1
signal_case TERM 2 3 5 # the last stage

# 3. Checkpoint bodies edited behind a valid header: one message naming the
# file and the field, exit 1, no tree, never a crash, a wild parent or NaN.
edit() { # NAME EDIT: a copy of p.ckpt (after stage 5) edited by python3 EDIT
    python3 - "$WORK/p.ckpt" "$WORK/$1.ckpt" "$2" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
fp, s, n, nst, K, d = struct.unpack_from("<6q", b, 8)
sf = 56                        # stage_first[s + 2]
par = sf + 8 * (s + 2)         # parent[n] (int64)
stg = par + 8 * n              # stage[n] (int32)
prob = stg + 4 * n             # prob[n], then pprob[n]
it = prob + 16 * n             # iters[n] (int32)
q = it + 4 * n                 # inflows[n * nst]
prd = 2 + nst + K * (1 + nst)  # a done node's record (doubles)
exec(sys.argv[3])
open(sys.argv[2], "wb").write(bytes(b))
PY
}
bad_ckpt() { # NAME PATTERN EDIT
    edit "$1" "$3"
    check_failure "checkpoint: $1" "$2" 1 "$WORK/none*" "$MPIEXEC" -n 2 "${PREFLAGS[@]}" "$MUTIRAO" \
        scenarios "${opts[@]}" $tree --checkpoint="$WORK/$1.ckpt" --restart --output="$WORK/none.csv" || true
}
bad_ckpt nodes "fields 'nodes' (1099511627776) and 'done' (0) do not match" 'struct.pack_into("<q", b, 24, 1 << 40)'
bad_ckpt done "and 'done' (-5) do not match" 'struct.pack_into("<q", b, 48, -5)'
bad_ckpt stages "field 'stages done': 9, not 0 to 5" 'struct.pack_into("<q", b, 16, 9)'
bad_ckpt stage_first "field 'stage_first': stage 2 has" 'struct.pack_into("<q", b, sf + 16, 2)'
bad_ckpt parent "field 'parent' of node 5: -7 is not a node of stage 1" 'struct.pack_into("<q", b, par + 5 * 8, -7)'
bad_ckpt parent_later "field 'parent' of node 40: 300 is not a node of stage 3" 'struct.pack_into("<q", b, par + 40 * 8, 300)'
bad_ckpt stage_index "field 'stage' of node 7: 9, not 2" 'struct.pack_into("<i", b, stg + 7 * 4, 9)'
bad_ckpt prob "field 'prob' of node 3" 'struct.pack_into("<d", b, prob + 3 * 8, 1.5)'
bad_ckpt inflows "field 'inflows' of node 10, station 1:" 'b[q + 10 * nst * 8:q + 10 * nst * 8 + 8] = b"\xff" * 8'
bad_ckpt iters "field 'iters' of node 2" 'struct.pack_into("<i", b, it + 2 * 4, -3)'
bad_ckpt format1 "a scenarios checkpoint of format 1, not 2" 'b[7] = ord("1")'
bad_ckpt truncated "do not match its" 'del b[-9:]'
# A done node of stage 6 added to the body (index and record).
bad_ckpt done_index "field 'index' of done node 0: 999" \
    'struct.pack_into("<q", b, 48, 1); b += struct.pack("<q", 999) + struct.pack("<%dd" % prd, *([1.0, 2.0] + [0.5] * (prd - 2)))'
bad_ckpt done_record "field 'record' of done node 0: " \
    'struct.pack_into("<q", b, 48, 1); b += struct.pack("<q", 4) + struct.pack("<2d", 1.0, 2.0) + b"\xff" * (8 * (prd - 2))'
bad_ckpt done_groups "field 'groups' or 'iters' of done node 0: 7" \
    'struct.pack_into("<q", b, 48, 1); b += struct.pack("<q", 4) + struct.pack("<%dd" % prd, *([7.0, 2.0] + [0.5] * (prd - 2)))'
finish
