#!/usr/bin/env bash
# The main job: each workload on its input in inputs/, on NP MPI ranks, then a
# table of the answers and the wall times. Builds build/ first if needed.
#   scripts/run_main.sh [name...]        only the named workloads
# Environment: NP (ranks, default 4), MPIEXEC (default mpiexec.mpich),
# MUTIRAO (default build/mutirao), OUT (default out/main), DEVICE (default auto).
# Each run writes $OUT/<name>.csv (its answer), <name>.json (summary), <name>.log.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

NP=${NP:-4}
MPIEXEC=${MPIEXEC:-mpiexec.mpich}
MUTIRAO=${MUTIRAO:-build/mutirao}
OUT=${OUT:-out/main}
DEVICE=${DEVICE:-auto}

# The workloads: "name|mutirao arguments". To add one, add a line. A line whose
# argument names a file under inputs/ that is not there is skipped.
WORKLOADS='
maxsub-1d-study|maxsub --input=inputs/maxsub/study_1d.txt
maxsub-1d-thesis|maxsub --gen=thesis --n=2000000
maxsub-2d-study|maxsub --dim=2 --input=inputs/maxsub/study_2d.txt
maxsub-2d-thesis|maxsub --dim=2 --gen=thesis --n=512
maxsub-fasta|maxsub --fasta=inputs/maxsub/proteins.fasta
cg-nos7-jacobi|cg --matrix=inputs/cg/nos7.mtx --pc=jacobi --rhs=Aones
cg-poisson3d-64|cg --poisson=3d7 --nx=64 --rhs=Aones
fuzzy-ruspini|fuzzy --input=inputs/fuzzy/ruspini.csv
advect-rotation|advect --config=inputs/advect/rotation.ini
scenarios-6000|scenarios --config=inputs/scenarios/study_6000.ini
'

[ -x "$MUTIRAO" ] || scripts/build.sh
mkdir -p "$OUT"

# The answer of a run, from the "result" of its summary JSON: the scalar fields
# that say what was found (sizes and counters left out), plus the true residual
# where the workload reports one.
answer() {
    python3 - "$1" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    print("(no summary)")
    sys.exit()
skip = {"n", "nnz", "rows", "cols", "first_iteration", "features", "partitions", "mode", "r_norm",
        "raw_prototypes", "iterations_total", "iterations_max", "unconverged", "converged",
        "prototype_list"}
r = d.get("result", {})
def text(v):
    return "%.10g" % v if isinstance(v, float) else str(v)
out = ["%s=%s" % (k, text(v)) for k, v in r.items() if k not in skip and not isinstance(v, (list, dict))]
if isinstance(d.get("true_residual_relative"), float):
    out.append("true_residual=%.2e" % d["true_residual_relative"])
print(" ".join(out).replace("|", "/") or "(no result)")
PY
}

rows=()
failed=0
while IFS='|' read -r name args; do
    [ -n "$name" ] || continue
    case "$name" in \#*) continue ;; esac
    if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then continue; fi
    read -r -a argv <<<"$args"
    missing=""
    for a in "${argv[@]}"; do
        case "${a#*=}" in inputs/*) [ -e "${a#*=}" ] || missing=${a#*=} ;; esac
    done
    if [ -n "$missing" ]; then
        rows+=("$name|skipped: no $missing|-")
        continue
    fi
    echo "run_main: $name: $MPIEXEC -n $NP $MUTIRAO ${argv[*]}"
    t0=$(date +%s.%N)
    if "$MPIEXEC" -n "$NP" "$MUTIRAO" "${argv[@]}" --device="$DEVICE" \
        --output="$OUT/$name.csv" --summary="$OUT/$name.json" </dev/null >"$OUT/$name.log" 2>&1; then
        t1=$(date +%s.%N)
        rows+=("$name|$(answer "$OUT/$name.json")|$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')")
    else
        failed=1
        rows+=("$name|FAILED, see $OUT/$name.log|-")
        tail -n 20 "$OUT/$name.log" >&2
    fi
done <<<"$WORKLOADS"

printf '\n%-18s %-56s %8s\n' workload answer "wall s"
printf '%-18s %-56s %8s\n' -------- ------ ------
for r in ${rows[@]+"${rows[@]}"}; do
    IFS='|' read -r name ans t <<<"$r"
    printf '%-18s %-56s %8s\n' "$name" "$ans" "$t"
done
printf '(%d ranks, %s; answers, summaries and logs in %s/)\n' "$NP" "$MPIEXEC" "$OUT"
exit $failed
