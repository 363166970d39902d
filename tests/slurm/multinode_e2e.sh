#!/usr/bin/env bash
# Every workload across the two nodes of multinode_up.sh: srun -N 2 --mpi=pmi2
# on 2 ranks (1 + 1), 3 (2 + 1) and 4 (2 + 2) gives the answer of one rank made
# here with mpiexec outside Slurm, byte for byte: the output files and the
# answer line on stdout (its timing and rank count aside). Each run's summary
# must place its ranks where Slurm put them (node names, node-local ranks). For
# the task-farm runs (maxsub 2-D, fuzzy exact, the scenarios tree) the master,
# rank 0, must be on the first node and workers on both nodes must have done
# tasks.
#
#   multinode_e2e.sh <mutirao binary> <source dir> <mpiexec> <workload>
# Exit 77 (skipped) where the cluster cannot run, unless MUTIRAO_REQUIRE_SLURM=1.
set -euo pipefail
# shellcheck source=tests/slurm/e2e_args.sh
source "$(dirname "${BASH_SOURCE[0]}")/e2e_args.sh"
workload=${4:?workload: maxsub, cg, fuzzy, advect or scenarios}
me=multinode_$workload
# shellcheck source=tests/slurm/multinode_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/multinode_lib.sh"

in=$src/inputs
fz_files="-prototypes.csv -memberships.csv -labels.csv -raw.csv -dendrogram.csv"
# Cases: "name|farm (1: check the task farm)|output suffixes|mutirao arguments".
# {P} in the arguments is the run's output prefix.
case "$workload" in
maxsub) cases="
m1d_gen|0|.csv|maxsub --n=2^20 --seed=5 --output={P}.csv
m1d_text|0|.csv|maxsub --input=$in/maxsub/study_1d.txt --output={P}.csv
m2d_grid|0|.csv|maxsub --dim=2 --gen=thesis --n=384 --bands=2 --farm-chunk=1 --output={P}.csv
fasta|0|.csv|maxsub --fasta=$in/maxsub/proteins.fasta --output={P}.csv" ;;
cg) cases="
cg_nos7|0|.txt|cg --matrix=$in/cg/nos7.mtx --pc=jacobi --output={P}.txt
cg_poisson|0|.txt|cg --poisson=3d7 --nx=16 --nz=20 --rhs=random --output={P}.txt" ;;
fuzzy) cases="
fz_exact|1|$fz_files|fuzzy --gen=blobs --n=1500 --seed=3 --farm-chunk=1 --output-prefix={P}-
fz_part|0|$fz_files|fuzzy --gen=blobs --n=1500 --mode=partitioned --partitions=3 --output-prefix={P}-" ;;
advect) cases="
adv_fields|0|.bin|advect --config=$in/advect/rotation.ini --nx=32 --ny=32 --fields=4 --steps=16 --dump={P}.bin
adv_blocks|0|.bin|advect --config=$in/advect/rotation.ini --nx=36 --ny=36 --fields=2 --pf=1 --steps=16 --dump={P}.bin" ;;
scenarios) cases="
sc_tree|1|.csv|scenarios --input=$in/scenarios/ons_inflows_64.csv --tree=1,30,8 --m=128 --seed=7 --stats-series=0 --threads=1 --output={P}.csv
sc_comb|0|.csv|scenarios --input=$in/scenarios/ons_inflows_64.csv --mode=comb --series=300 --horizon=6 --seed=7 --stats-series=0 --threads=1 --output={P}.csv" ;;
*) echo "$me: unknown workload '$workload'" >&2; exit 2 ;;
esac

# The answer line(s) on stdout, without what may differ (time, rank count).
answer() { sed -e 's/ time_per_it=[^ ]*//' -e 's/ ranks=[0-9]*//' "$1"; }

# check_farm WHAT SUMMARY: rank 0 (the master) on the first node of the
# layout, and on each node a worker (rank > 0) that computed tasks.
check_farm() {
    local out
    if python3 - "$2" >"$work/check.out" 2>&1 <<'PY'; then
import json, sys

s = json.load(open(sys.argv[1]))
layout = {e["rank"]: e["node"] for e in s.get("layout", [])}
farm = s.get("task_farm") or {}
if not farm:
    sys.exit("no task_farm in the summary")
tasks = {}
for phase in farm.values():
    for r, t in enumerate(phase["tasks_by_rank"]):
        tasks[r] = tasks.get(r, 0) + t
first = sorted(set(layout.values()))[0]
if layout.get(0) != first:
    sys.exit(f"the master (rank 0) is on {layout.get(0)}, not the first node {first}")
worked = {}
for r, t in tasks.items():
    if r > 0 and t > 0:
        worked.setdefault(layout[r], []).append(f"rank {r}: {t}")
missing = sorted(set(layout.values()) - set(worked))
if missing:
    sys.exit(f"no worker on {missing} computed a task (tasks by rank {tasks})")
print(f"master on {first}; " + "; ".join(f"{n}: {', '.join(w)}" for n, w in sorted(worked.items())))
PY
        out=$(cat "$work/check.out")
        echo "$me: ok: $1: task farm: $out"
    else
        err "$1: task farm: $(cat "$work/check.out")"
    fi
}

while IFS='|' read -r name farm suffixes args; do
    [ -n "$name" ] || continue
    ref=$work/ref_$name
    read -r -a argv <<<"${args//\{P\}/$ref}"
    if ! ref1 "${argv[@]}" >"$ref.out" 2>"$ref.err"; then
        cat "$ref.err" >&2
        err "$name: the 1-rank reference run failed"
        continue
    fi
    for np in 2 3 4; do
        run=$work/np${np}_$name
        read -r -a argv <<<"${args//\{P\}/$run}"
        t0=$SECONDS
        if ! mn_srun "$np" "${argv[@]}" --device=cpu --summary="$run.json" >"$run.out" 2>"$run.err"; then
            tail -n 20 "$run.err" >&2
            err "$name on $np ranks over 2 nodes failed"
            continue
        fi
        echo "$me: $name: $np ranks over 2 nodes in $((SECONDS - t0)) s"
        for sfx in $suffixes; do same_files "$name on $np ranks: output $sfx" "$ref$sfx" "$run$sfx"; done
        if [ "$(answer "$ref.out")" = "$(answer "$run.out")" ]; then
            echo "$me: ok: $name on $np ranks: answer line as on 1 rank"
        else
            err "$name on $np ranks: answer '$(answer "$run.out")', 1 rank '$(answer "$ref.out")'"
        fi
        check_layout "$name on $np ranks" "$run.json" "$np"
        [ "$farm" = 0 ] || [ "$np" = 2 ] || check_farm "$name on $np ranks" "$run.json"
    done
done <<<"$cases"

[ "$fail" = 0 ] || mn_logs
[ "$fail" = 0 ] && echo "$me: PASS"
exit "$fail"
