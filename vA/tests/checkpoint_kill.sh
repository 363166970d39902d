#!/usr/bin/env bash
# Kill at any moment (issue 19): a run writing a checkpoint every iteration or
# step has rank 0 killed (SIGKILL) at a random time, at the first moment after
# it that a checkpoint is being written. Checkpoints are written
# under a temporary name, synced and renamed, so the file under the
# checkpoint's name is always a whole one: --restart from it must end with the
# same bits as a run never stopped. The temporary file left behind tells that
# the kill landed mid-write; at least one try must land there, else the test
# proved nothing. cg (MPI-IO, every rank writes its rows) and advect (rank 0
# writes the gathered fields).
source "$(dirname "$0")/lib.sh"

# rank0 PID: the rank 0 process of the launch PID (hydra's proxies' children,
# or the launcher's under OpenMPI), by its PMI_RANK or OMPI rank.
rank0() {
    local p ranks
    ranks=$(for proxy in $(pgrep -P "$1"); do pgrep -P "$proxy"; done)
    [ -n "$ranks" ] || ranks=$(pgrep -P "$1")
    for p in $ranks; do
        if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null |
            grep -E '^(PMI_RANK|OMPI_COMM_WORLD_RANK)=0$' >/dev/null; then
            echo "$p"
            return
        fi
    done
}

# header_int64 FILE OFFSET: the little-endian int64 at OFFSET.
header_int64() { od -An -t d8 -j "$2" -N 8 "$1" | tr -d ' '; }

# kill_case NAME TRIES: runs try_NAME until 2 kills landed mid-write or TRIES ran.
kill_case() {
    local name=$1 tries=$2 mid=0 t
    for ((t = 1; t <= tries && mid < 2; t++)); do
        rm -f "$WORK"/k.ckpt*
        "start_$name" &
        local pid=$!
        if ! wait_for_file $pid "$WORK/k.ckpt"; then # the first whole checkpoint
            abandon $pid "$name: no first checkpoint" "$WORK/run.err"
            return
        fi
        local r0
        r0=$(rank0 $pid)
        [ -n "$r0" ] || { abandon $pid "$name: rank 0 not found"; return; }
        # A random moment, then the next write in progress (its temporary
        # file present): a busy wait of one step at most, no knob in the code.
        sleep "0.$(printf '%03d' $((RANDOM % 400)))"
        local until=$((SECONDS + 10))
        until compgen -G "$WORK/k.ckpt.tmp*" >/dev/null || [ $SECONDS -gt $until ]; do :; done
        kill -KILL "$r0"
        reap $pid
        local rc=$RC
        [ $rc -ne 0 ] || fail "$name: try $t: the killed run exited 0"
        local torn=0
        compgen -G "$WORK/k.ckpt.tmp*" >/dev/null && torn=1
        mid=$((mid + torn))
        local k
        k=$(header_int64 "$WORK/k.ckpt" "$(offset_$name)")
        if ! "check_$name" "$k"; then
            fail "$name: try $t (killed $([ $torn = 1 ] && echo mid-write || echo between writes)): restart from $k differs"
            return
        fi
        echo "ok: $name: try $t: rank 0 killed $([ $torn = 1 ] && echo "mid-write (temporary file left)" || echo "between writes"); restart from $k: the same bits"
    done
    if [ $mid -eq 0 ]; then
        fail "$name: no kill landed mid-write in $tries tries"
    else
        echo "ok: $name: $mid kill(s) landed mid-write, each restarted to the same bits"
    fi
}

# cg: 3-D Poisson, 262144 rows: 6 MB a checkpoint, one every iteration.
cg_args=(--device=cpu --poisson=3d7 --nx=64 --rtol=0 --rhs=random --replace-every=50)
start_cg() {
    exec "$MPIEXEC" -n 2 "${PREFLAGS[@]}" "$MUTIRAO" cg "${cg_args[@]}" --max-it=100000000 \
        --checkpoint="$WORK/k.ckpt" --checkpoint-every=1 >/dev/null 2>"$WORK/run.err"
}
offset_cg() { echo 32; } # magic, version, n, nnz, then the iteration
check_cg() {
    local end=$(($1 + 5)) rc1=0 rc2=0
    run_np 2 cg "${cg_args[@]}" --max-it=$end --checkpoint="$WORK/k.ckpt" --restart \
        --output="$WORK/re.txt" >/dev/null 2>"$WORK/re.err" || rc1=$?
    run_np 1 cg "${cg_args[@]}" --max-it=$end --output="$WORK/ref.txt" >/dev/null 2>&1 || rc2=$?
    [ $rc1 = 2 ] && [ $rc2 = 2 ] || { cat "$WORK/re.err" >&2; return 1; }
    grep -q "restarting from $WORK/k.ckpt at iteration $1" "$WORK/re.err" &&
        cmp -s "$WORK/re.txt" "$WORK/ref.txt"
}

# advect: 128 x 128 x 8 cells, 4 fields: 2 MB a checkpoint, one every step.
adv_args=(--device=cpu --nx=128 --ny=128 --nz=8 --fields=4 --wind=swirl --init=cone)
start_advect() {
    exec "$MPIEXEC" -n 2 "${PREFLAGS[@]}" "$MUTIRAO" advect "${adv_args[@]}" --steps=100000000 \
        --checkpoint="$WORK/k.ckpt" --checkpoint-every=1 >/dev/null 2>"$WORK/run.err"
}
offset_advect() { echo 40; } # magic, nx, ny, nz, fields, then the step
check_advect() {
    local end=$(($1 + 3))
    run_np 2 advect "${adv_args[@]}" --steps=$end --checkpoint="$WORK/k.ckpt" --restart \
        --dump="$WORK/re.bin" \
        >/dev/null 2>"$WORK/re.err" || { cat "$WORK/re.err" >&2; return 1; }
    run_np 1 advect "${adv_args[@]}" --steps=$end --dump="$WORK/ref.bin" >/dev/null 2>&1 || return 1
    grep -q "restarted from .* at step $1" "$WORK/re.err" && cmp -s "$WORK/re.bin" "$WORK/ref.bin"
}

kill_case cg 8
kill_case advect 8
finish
