# Sourced by the end-to-end tests (e2e_*.sh) once they have set `me`, their
# name for messages. Skips the test (exit 77) when Slurm is not installed or not
# startable here, unless MUTIRAO_REQUIRE_SLURM=1 (CI) makes that a failure; then
# makes the work folder $work (kept on failure or with KEEP=1), sets fail=0 and
# defines err(), which records a failure and goes on, and the helpers below.
# shellcheck shell=bash
# shellcheck disable=SC2154 # me; src, mutirao, mpiexec, preflags: set by the test (e2e_args.sh)
for cmd in sbatch slurmctld slurmd munged; do
    if ! command -v "$cmd" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$cmd" ]; then
        if [ "${MUTIRAO_REQUIRE_SLURM:-0}" = 1 ]; then
            echo "$me: FAIL: $cmd not installed (MUTIRAO_REQUIRE_SLURM=1)" >&2
            exit 1
        fi
        echo "$me: SKIP: $cmd not installed (apt-get install slurmctld slurmd slurm-client munge)"
        exit 77
    fi
done
if [ "$(id -u)" != 0 ] && ! scontrol ping 2>/dev/null | grep 'is UP' >/dev/null; then
    if [ "${MUTIRAO_REQUIRE_SLURM:-0}" = 1 ]; then
        echo "$me: FAIL: Slurm is not up and only root can start it" >&2
        exit 1
    fi
    echo "$me: SKIP: Slurm is not up and only root can start it (tests/slurm/slurm_up.sh)"
    exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/mutirao-$me.XXXXXX")
chmod 755 "$work"
fail=0
# shellcheck disable=SC2317 # run by the EXIT trap
finish() {
    local rc=$?
    if [ "$rc" != 0 ] || [ "${KEEP:-0}" = 1 ]; then
        echo "$me: workdir kept: $work"
    else
        rm -rf "$work"
    fi
}
trap finish EXIT
err() { echo "$me: FAIL: $*" >&2; fail=1; }

# job_env: what every job takes from the test, exported: MUTIRAO (the binary
# under test) and OUTDIR ($work/out).
job_env() { export MUTIRAO=$mutirao OUTDIR=$work/out; }

# job_input FILE NAME: the job's INPUT, exported: a copy of the source's
# inputs/FILE as $work/NAME.
job_input() {
    cp "$src/inputs/$1" "$work/$2"
    export INPUT=$work/$2
}

# submit JOB SBATCH_ARGS...: jobs/JOB.sbatch through the local Slurm
# (run_sbatch.sh, which waits for it), named mutirao-e2e-JOB; a job that does
# not end well ends the test (exit 1).
submit() {
    local job=$1
    shift
    "$src/tests/slurm/run_sbatch.sh" "$src/jobs/$job.sbatch" "$work" --export=ALL \
        --job-name="mutirao-e2e-$job" "$@" || exit 1
}

# outside_slurm ARGS...: `mutirao ARGS` on 1 rank with mpiexec, the references'
# run, outside Slurm: without the SLURM_* variables, which would steer mpiexec
# and the launch check should the test itself run inside an allocation.
outside_slurm() {
    local v unset_slurm=()
    while read -r v; do
        case "$v" in SLURM_*) unset_slurm+=(-u "$v") ;; esac
    done < <(compgen -e)
    env ${unset_slurm[@]+"${unset_slurm[@]}"} "$mpiexec" -n 1 ${preflags[@]+"${preflags[@]}"} \
        "$mutirao" "$@"
}

# summary_shows FILE KEY WANT [WHAT]: the run summary FILE says 4 ranks (the
# e2e jobs' size) and result.KEY = WANT (a JSON value); an ok line or err(),
# about WHAT when given.
summary_shows() {
    local file=$1 key=$2 want=$3 what=${4:-}
    if python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d.get("ranks") == 4 and d["result"][sys.argv[2]] == json.loads(sys.argv[3]) else 1)' \
        "$file" "$key" "$want"; then
        echo "$me: ok: ${what:+$what }summary: 4 ranks, $want $key"
    else
        err "${what:+$what: }summary does not show 4 ranks and $want $key"
    fi
}

# png_drawn FILE WHY: when gnuplot is installed (the jobs plot only then), FILE
# must be a PNG image; else err() WHY.
png_drawn() {
    command -v "${GNUPLOT:-gnuplot}" >/dev/null 2>&1 || return 0
    if [ "$(head -c 4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG' ]; then
        echo "$me: ok: $(basename "$1") drawn"
    else
        err "$2"
    fi
}

# job_log: the path of the test's job log, the first slurm-*.out in $work.
job_log() {
    local logs=("$work"/slurm-*.out)
    echo "${logs[0]}"
}

# job_log_count REGEX WANT WHAT: the job log has WANT lines matching REGEX
# (each run's one result line); else err() "expected WANT WHAT, found N".
job_log_count() {
    local count
    count=$(grep -c "$1" "$(job_log)" 2>/dev/null || true)
    [ "${count:-0}" -eq "$2" ] || err "expected $2 $3, found ${count:-0}"
}

# e2e_end: the test's last word: PASS when no check failed, and its exit status.
e2e_end() {
    [ "$fail" = 0 ] && echo "$me: PASS"
    exit "$fail"
}
