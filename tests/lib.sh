# Shared helpers for the command-level tests. Environment from ctest:
# MUTIRAO (the binary), MPIEXEC, MPIEXEC_PREFLAGS (;-separated), SRCDIR.
set -euo pipefail
IFS=';' read -r -a PREFLAGS <<< "${MPIEXEC_PREFLAGS:-}"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mutirao_test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
FAILS=0

# run_np NP ARGS...: runs mutirao on NP ranks (CPU device unless the args say otherwise).
run_np() {
    local np=$1
    shift
    "$MPIEXEC" -n "$np" "${PREFLAGS[@]}" "$MUTIRAO" "$@"
}

# WRAP: a command prefix the bad-input helpers put before mpiexec (empty: none).
WRAP=()
# MEM_1G: runs its command under a 1 GiB address-space limit (ulimit -v), for
# readers whose memory must follow the file's size, not the sizes it claims.
MEM_1G=(bash -c 'ulimit -v 1048576 && exec "$@"' mem_1g)
# AddressSanitizer reserves terabytes of address space for its shadow: under
# it the cases still run (message, exit status, time), without the limit.
# (ctest says so in MUTIRAO_SANITIZE: "ldd | grep -q" under pipefail could
# fail on ldd's SIGPIPE and keep the limit.)
if [ "${MUTIRAO_SANITIZE:-OFF}" = ON ]; then MEM_1G=(); fi

# require_gpu ARGS...: a small run of "mutirao ARGS" on the GPU; exits 77
# (skipped) where there is no CUDA device, fails the test on any other error.
require_gpu() {
    local rc=0
    run_np 1 "$@" >"$WORK/probe" 2>&1 || rc=$?
    [ $rc -eq 0 ] && return 0
    if grep -q -e "sees no CUDA device" -e "no CUDA support" "$WORK/probe"; then
        echo "SKIP: no CUDA device"
        exit 77
    fi
    cat "$WORK/probe" >&2
    fail "probe run on the GPU: exit status $rc"
    finish
}

fail() {
    echo "FAIL: $*" >&2
    FAILS=$((FAILS + 1))
}

# expect_eq WHAT GOT WANT
expect_eq() {
    if [ "$2" != "$3" ]; then fail "$1: got '$2', want '$3'"; else echo "ok: $1 = $2"; fi
}

# answer FILE: the data row of a result CSV
answer() { sed -n 2p "$1"; }

# check_failure NAME PATTERN WANT LEFTOVER CMD...: runs CMD in $WORK (60 s limit).
# It must exit with status WANT ("nonzero": any failure), print PATTERN, print
# exactly one "mutirao: error" line, and leave no file matching the glob LEFTOVER.
check_failure() {
    local name=$1 pattern=$2 want=$3 leftover=$4
    shift 4
    set +e
    (cd "$WORK" && timeout 60 "$@" >"$WORK/stdout" 2>"$WORK/stderr")
    local rc=$?
    set -e
    if [ $rc -eq 124 ]; then fail "$name: hung"; return 1; fi
    if { [ "$want" = nonzero ] && [ $rc -eq 0 ]; } || { [ "$want" != nonzero ] && [ $rc -ne "$want" ]; }; then
        fail "$name: exit status $rc, want $want"
        cat "$WORK/stderr" >&2
        return 1
    fi
    if ! grep -qF -- "$pattern" "$WORK/stderr"; then
        fail "$name: message lacks '$pattern':"
        cat "$WORK/stderr" >&2
        return 1
    fi
    local count
    count=$(grep -c "mutirao: error" "$WORK/stderr" || true)
    if [ "$count" -ne 1 ]; then fail "$name: $count error messages, want 1"; return 1; fi
    if compgen -G "$leftover" >/dev/null; then fail "$name: output left behind: $(echo $leftover)"; return 1; fi
    echo "ok: $name -> $(grep 'mutirao: error' "$WORK/stderr")"
}

# bad_on_3 NAME PATTERN WANT LEFTOVER COMMAND ARGS...: check_failure of
# `mutirao COMMAND --device=cpu ARGS` on 3 ranks, behind the WRAP prefix; a
# failed check is counted (fail), and the script goes on.
bad_on_3() {
    local name=$1 pattern=$2 want=$3 leftover=$4 command=$5
    shift 5
    check_failure "$name" "$pattern" "$want" "$leftover" \
        "${WRAP[@]}" "$MPIEXEC" -n 3 "${PREFLAGS[@]}" "$MUTIRAO" "$command" --device=cpu "$@" || true
}

# Hostile inputs every file option meets (issue 19), checked through the
# calling script's own `bad NAME PATTERN ARGS...` (its ranks, outputs and exit
# status). WHAT is the file as the messages name it ("input", "matrix", "job
# deck"...), OPT the option that takes it, ARGS the rest of the command line.

# bad_missing WHAT OPT PATH [ARGS...]: PATH does not exist.
bad_missing() {
    local what=$1 opt=$2 path=$3
    shift 3
    bad "missing $what" "cannot open $what '$path'" --"$opt"="$path" "$@"
}

# bad_file NAME OPT WHERE MESSAGE [ARGS...]: the file $WORK/FILE given as
# --OPT is refused with "WHERE: MESSAGE", WHERE being FILE or FILE:LINE as the
# message names it.
bad_file() {
    local name=$1 opt=$2 where=$3 message=$4
    shift 4
    bad "$name" "$where: $message" --"$opt"="$WORK/${where%%:*}" "$@"
}

# bad_files OPT [ARGS...] <<'EOF': bad_file for each row "NAME | WHERE |
# MESSAGE" of the table on standard input, the file given as --OPT.
bad_files() {
    local opt=$1 rows row name where
    shift
    mapfile -t rows
    for row in "${rows[@]}"; do
        name=${row%% | *}
        row=${row#* | }
        where=${row%% | *}
        bad_file "$name" "$opt" "$where" "${row#* | }" "$@"
    done
}

# bad_directory WHAT OPT [ARGS...]: a directory ($WORK) instead of a file.
bad_directory() {
    local what=$1 opt=$2
    shift 2
    bad "directory as $what" "$WORK/: is a directory (the $what must be a regular file)" \
        --"$opt"="$WORK/" "$@"
}

# bad_device WHAT OPT DEVICE [ARGS...]: a character device instead of a file.
bad_device() {
    local what=$1 opt=$2 dev=$3
    shift 3
    bad "device as $what" "$dev: is a character device (the $what must be a regular file)" \
        --"$opt"="$dev" "$@"
}

# bad_nul NAME FILE LINE COLUMN TEXT OPT [ARGS...]: $WORK/FILE written by
# `printf TEXT`, which puts a NUL byte at LINE, COLUMN: refused there, by
# name, not read as the end of the line.
bad_nul() {
    local name=$1 file=$2 line=$3 column=$4 text=$5 opt=$6
    shift 6
    # shellcheck disable=SC2059 # TEXT is a printf format: its \0 is the NUL byte
    printf "$text" >"$WORK/$file"
    bad "$name" "$file:$line: NUL byte at column $column" --"$opt"="$WORK/$file" "$@"
}

# bad_unknown_option OPTION=VALUE [ARGS...]: an option the command does not take.
bad_unknown_option() {
    local option=$1
    shift
    bad "unknown option" "unknown option '${option%%=*}'" "$@" "$option"
}

# bad_no_gnuplot ARGS...: --plot in ARGS, with GNUPLOT naming no program.
bad_no_gnuplot() {
    GNUPLOT=/nonexistent/gnuplot bad "plot without gnuplot" \
        "--plot needs gnuplot, and '/nonexistent/gnuplot' was not found" "$@"
}

# cut_checkpoint FILE BYTES: $WORK/cut.ckpt, FILE's first BYTES bytes, and
# $WORK/long.ckpt, FILE with one byte more, for the restart's size checks.
cut_checkpoint() {
    head -c "$2" "$1" >"$WORK/cut.ckpt"
    { cat "$1"; printf 'x'; } >"$WORK/long.ckpt"
}

# failure_summary NAME FILE: a summary written by a failed run (if any) records
# the failure, its error and no result.
failure_summary() {
    [ ! -e "$2" ] || python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
sys.exit(not (s["exit_status"] == 1 and s.get("error") and not s["result"]))' "$2" ||
        fail "$1: the summary does not record the failure"
}

finish() {
    if [ "$FAILS" -gt 0 ]; then
        echo "$FAILS check(s) failed" >&2
        exit 1
    fi
    echo "all checks passed"
}

# signal_when PID LOG PATTERN SIG: waits (up to 60 s) until LOG shows PATTERN
# while the launch PID runs, then sends SIG to the ranks themselves (the
# launcher's grandchildren under MPICH's hydra proxies, its children under
# OpenMPI's mpirun), as Slurm does: mpiexec.hydra's own forwarding of a
# signal can race with its output forwarding. Returns 1 when the run ended or
# never got there.
signal_when() {
    local pid=$1 log=$2 pattern=$3 sig=$4 t=0 ranks
    # polled often: a run's later stages may take well under a second
    until grep -q "$pattern" "$log" 2>/dev/null; do
        sleep 0.05
        t=$((t + 1))
        if [ $t -gt 1200 ] || ! kill -0 "$pid" 2>/dev/null; then return 1; fi
    done
    ranks=$(for proxy in $(pgrep -P "$pid"); do pgrep -P "$proxy"; done)
    [ -n "$ranks" ] || ranks=$(pgrep -P "$pid" -f "$MUTIRAO")
    # shellcheck disable=SC2086
    kill -"$sig" ${ranks:-$pid}
}

# ranks_of PID: the mutirao processes below the launch PID (MPICH: under
# hydra's proxies; OpenMPI: the launcher's children).
ranks_of() {
    local p
    for p in $(pgrep -P "$1"); do
        [ "$(ps -o comm= -p "$p")" = mutirao ] && echo "$p"
        ranks_of "$p"
    done
}

# STOP_AT: the environment under which a launch stops itself (SIGSTOP) right
# after it renames a whole file onto $MU_STOP_AT (tests/stop_at_rename.c,
# preloaded). Use: env "${STOP_AT[@]}" MU_STOP_AT=FILE "$MPIEXEC" ... &
STOP_AT=(LD_PRELOAD="${MU_STOP_AT_LIB:?ctest sets MU_STOP_AT_LIB}")
# AddressSanitizer wants its runtime first in the list of loaded libraries.
if [ "${MUTIRAO_SANITIZE:-OFF}" = ON ]; then
    STOP_AT+=(ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0")
fi

# signal_at_stop PID SIG [others]: waits (up to 120 s) until a rank of the
# launch PID has stopped itself (STOP_AT), then sends SIG to every rank (with
# "others": only to the ranks that did not stop) and continues the stopped
# ones. The run is frozen with work left when the signal is sent, so it
# cannot end first. Returns 1 when the launch ended without stopping.
signal_at_stop() {
    local pid=$1 sig=$2 only=${3:-} t=0 ranks stopped p
    while :; do
        ranks=$(ranks_of "$pid")
        stopped=$(for p in $ranks; do
            [ "$(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null)" = T ] && echo "$p"
        done)
        [ -z "$stopped" ] || break
        if [ $t -gt 2400 ] || ! kill -0 "$pid" 2>/dev/null; then return 1; fi
        sleep 0.05
        t=$((t + 1))
    done
    if [ "$only" = others ]; then
        ranks=$(for p in $ranks; do [[ " $(echo $stopped) " == *" $p "* ]] || echo "$p"; done)
    fi
    # shellcheck disable=SC2086
    kill -"$sig" $ranks
    # shellcheck disable=SC2086
    kill -CONT $stopped
}

# abandon PID WHY [LOG]: a background launch PID did not get where the test
# needed it: fails the test with WHY, shows LOG (when given) and reaps the launch.
abandon() {
    fail "$2"
    [ -z "${3:-}" ] || cat "$3" >&2
    wait "$1" || true
}

# reap PID: waits for the background launch PID; its exit status in RC.
# shellcheck disable=SC2034 # RC: read by the caller
reap() {
    RC=0
    wait "$1" || RC=$?
}

# stop_when PID LOG PATTERN SIG WHY [SHOW]: signal_when, then waits for the
# launch PID: its exit status in RC. Where the run ended or never showed
# PATTERN, abandons it (WHY, SHOW) and returns 1.
stop_when() {
    if ! signal_when "$1" "$2" "$3" "$4"; then
        abandon "$1" "$5" "${6:-}"
        return 1
    fi
    reap "$1"
}

# wait_for_file PID FILE: waits (up to 60 s) until FILE is non-empty while the
# launch PID runs. Returns 1 when the run ended first or the time ran out.
wait_for_file() {
    local pid=$1 file=$2 t=0
    until [ -s "$file" ]; do
        sleep 0.05
        t=$((t + 1))
        if [ $t -gt 1200 ] || ! kill -0 "$pid" 2>/dev/null; then return 1; fi
    done
}

# cg_status OUT: the cg result line of OUT without the timing and the rank count.
cg_status() { grep '^cg: ' "$1" | sed -e 's/ time_per_it=[^ ]*//' -e 's/ ranks=[0-9]*//'; }

# cg_run WHAT NP ARGS...: `mutirao cg ARGS` on NP ranks, its output in
# $WORK/out and its log in $WORK/err. Converged (0) or not (2) passes; any
# other exit status fails WHAT, with the log shown (returns 1).
cg_run() {
    local what=$1 np=$2 rc=0
    shift 2
    run_np "$np" cg "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
    if [ $rc -ne 0 ] && [ $rc -ne 2 ]; then
        cat "$WORK/err" >&2
        fail "$what: exit status $rc"
        return 1
    fi
}

# cg_same_as_1 NAME NP: compares a cg_run on NP ranks (solution written to
# $WORK/xNP.txt) with the one on 1 rank, which runs first: on 1 rank keeps its
# result line in CG_WANT; on NP ranks fails NAME (returns 1) unless the result
# line and, bitwise, the solution are 1 rank's.
cg_same_as_1() {
    local name=$1 np=$2 got
    got=$(cg_status "$WORK/out")
    if [ "$np" = 1 ]; then
        CG_WANT=$got
        echo "ok: $name: $got"
    elif [ "$got" != "$CG_WANT" ]; then
        fail "$name on $np ranks: '$got', want '$CG_WANT'"
        return 1
    elif ! cmp -s "$WORK/x1.txt" "$WORK/x$np.txt"; then
        fail "$name on $np ranks: solution differs from 1 rank"
        return 1
    fi
}
