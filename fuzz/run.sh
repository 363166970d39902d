#!/usr/bin/env bash
# Runs the libFuzzer targets of a MUTIRAO_FUZZ=ON build.
#   fuzz/run.sh [-b BUILD] [-t SECONDS] [-j JOBS] [TARGET...]
# BUILD: the build folder (default build-fuzz); SECONDS: each target's budget
# (default 3600: hours on a big machine over all targets); JOBS: parallel
# workers per target (default 1; e.g. the cores of the machine). Targets
# default to all. The corpus grows in $FUZZ_WORK/<target>/ (default
# fuzz-work/, kept between runs; seeded by fuzz/corpus.sh); a crash leaves
# its input in $FUZZ_WORK/crashes/ and makes the script exit 1.
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=build-fuzz secs=3600 jobs=1
while getopts b:t:j: o; do
    case $o in
    b) build=$OPTARG ;;
    t) secs=$OPTARG ;;
    j) jobs=$OPTARG ;;
    *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(mtx fuzzy_csv maxsub_text maxsub_bin fasta scenarios_csv
    advect_wind advect_init advect_checkpoint cg_checkpoint fuzzy_checkpoint scenarios_checkpoint deck api)
work=${FUZZ_WORK:-fuzz-work}
mkdir -p "$work/crashes"
seeds=$(mktemp -d)
trap 'rm -rf "$seeds"' EXIT
"$src/fuzz/corpus.sh" "$build" "$seeds"

dict_of() {
    case $1 in
    advect_wind | advect_init) echo f32 ;;
    *_checkpoint) echo checkpoint ;;
    *) echo "$1" ;;
    esac
}

par=()
[ "$jobs" -le 1 ] || par=(-fork="$jobs")
failed=()
for t in "${targets[@]}"; do
    mkdir -p "$work/$t"
    echo "=== fuzz: $t for ${secs} s ($jobs worker(s))"
    # MPICH's allocations at MPI_Init are never freed: leaks are checked per
    # input (libFuzzer's -detect_leaks), not at exit. Readers must fail on
    # their own, under 512 MB a malloc, 10 s an input.
    rc=0
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}:leak_check_at_exit=0 \
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        "$build/fuzz/fuzz_$t" "$work/$t" "$seeds/$t" -dict="$src/fuzz/dict/$(dict_of "$t").dict" \
        -max_total_time="$secs" -timeout=10 -malloc_limit_mb=512 -rss_limit_mb=2048 \
        "${par[@]}" -print_final_stats=1 \
        -artifact_prefix="$work/crashes/$t-" >"$work/$t.log" 2>&1 || rc=$?
    grep -E "^(#[0-9]+.*DONE|stat::number_of_executed_units|Done [0-9]+ runs)" "$work/$t.log" || true
    if [ $rc -ne 0 ]; then
        tail -n 40 "$work/$t.log"
        failed+=("$t")
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "=== fuzz: FAILED: ${failed[*]} (inputs in $work/crashes/)"
    exit 1
fi
echo "=== fuzz: no crash in ${targets[*]}"
