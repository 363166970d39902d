#!/usr/bin/env bash
# mutirao cg (CPU) against PETSc's KSPCG (perf/petsc_cg), time per iteration on the
# 3-D 7-point Poisson 64^3, b = A*1, rtol 1e-8 (158 iterations for both), runs
# alternated round by round so both see the same machine load; prints the
# minimum and the median of each program's time per iteration and the load
# average. On a shared machine the minimum is the figure to compare.
# usage: perf/cg_vs_petsc.sh BUILD_DIR NP ROUNDS [label=other_mutirao ...]
# e.g.   perf/cg_vs_petsc.sh build 2 10
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR NP ROUNDS [label=mutirao ...]}
np=${2:-1}
rounds=${3:-10}
shift 3 || true
problem=(--poisson=3d7 --nx=64 --ny=64 --nz=64 --rhs=Aones --rtol=1e-8)
progs=("mutirao=$build/mutirao" "$@" "petsc=$build/perf/petsc_cg")
declare -A times
for ((i = 0; i < rounds; i++)); do
    for p in "${progs[@]}"; do
        label=${p%%=*} exe=${p#*=}
        if [ "$label" = petsc ]; then
            t=$(mpirun.openmpi --allow-run-as-root -n "$np" "$exe" "${problem[@]}" 2>&1 |
                grep -o 'time_per_iteration=[0-9.e+-]*' | cut -d= -f2)
        else
            t=$(mpiexec.mpich -n "$np" "$exe" cg "${problem[@]}" --device=cpu --log=warn 2>&1 |
                grep -o 'time_per_it=[0-9.e+-]*' | cut -d= -f2)
        fi
        times[$label]="${times[$label]:-} $t"
    done
done
echo "ranks $np, $rounds rounds, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for p in "${progs[@]}"; do
    label=${p%%=*}
    python3 -c '
import sys
label, v = sys.argv[1], sorted(float(x) * 1e3 for x in sys.argv[2:])
print("%-10s min %.3f ms  median %.3f ms  (%d runs)" % (label, v[0], v[len(v) // 2], len(v)))
' "$label" ${times[$label]}
done
