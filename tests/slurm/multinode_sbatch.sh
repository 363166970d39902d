#!/usr/bin/env bash
# Batch jobs of jobs/ submitted with -N 2 to the cluster of multinode_up.sh run
# to the end, their batch script on the first node and their steps on both:
# 1. jobs/maxsub.sbatch on 4 tasks (2 a node), generated 1-D and 2-D data: each
#    answer byte for byte that of 1 rank outside Slurm, each summary 4 ranks on
#    2 nodes.
# 2. jobs/scaling.sbatch (perf/scaling.py) on 2 nodes of 2 tasks, cg and maxsub
#    strong on 1, 2 and 4 ranks (tiny preset): every row ok, the 4-rank runs on
#    2 nodes (the CSV and the runs' summaries), the smaller ones on 1. Timings
#    here mean nothing and are not checked.
#
#   multinode_sbatch.sh <mutirao binary> <source dir> [mpiexec]
# Exit 77 (skipped) where the cluster cannot run, unless MUTIRAO_REQUIRE_SLURM=1.
set -euo pipefail
# shellcheck source=tests/slurm/e2e_args.sh
source "$(dirname "${BASH_SOURCE[0]}")/e2e_args.sh"
# shellcheck source=tests/slurm/multinode_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/multinode_lib.sh"
export RUN_SBATCH_UP=$mn_here/multinode_up.sh RUN_SBATCH_TIMEOUT=${RUN_SBATCH_TIMEOUT:-240}

# ---- 1. maxsub.sbatch -----------------------------------------------------------
export MUTIRAO=$mutirao OUTDIR=$work/maxsub N1=300000 N2=256 SEED=11 GEN=philox DEVICE=cpu
unset LAUNCH NP EMPTY INPUT1D INPUT2D MAXSUB_ARGS
if "$src/tests/slurm/run_sbatch.sh" "$src/jobs/maxsub.sbatch" "$work/job1" --export=ALL \
    --job-name=mutirao-mn-maxsub --nodes=2 --ntasks=4 --ntasks-per-node=2 --time=5 >"$work/job1.log" 2>&1; then
    grep -E '^run_sbatch: job|^maxsub.sbatch: job' "$work/job1.log" | sed "s/^/$me: /"
    grep -F "on mtn[1-2]," "$work/job1.log" >/dev/null || err "maxsub.sbatch: the job log does not name nodes mtn[1-2]"
    for run in "maxsub1d_gen|--dim=1 --n=$N1" "maxsub2d_gen|--dim=2 --n=$N2"; do
        name=${run%%|*}
        read -r -a args <<<"${run#*|}"
        ref1 maxsub "${args[@]}" --seed="$SEED" --gen="$GEN" --output="$work/ref_$name.csv" \
            >"$work/ref_$name.log" 2>&1 || err "$name: the 1-rank reference run failed"
        same_files "maxsub.sbatch -N 2: $name" "$work/ref_$name.csv" "$OUTDIR/$name.csv"
        if python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
nodes = sorted({e["node"] for e in d["layout"]})
sys.exit(0 if d["ranks"] == 4 and d["nodes"] == 2 and nodes == ["mtn1", "mtn2"] else 1)' "$OUTDIR/$name.json"; then
            echo "$me: ok: maxsub.sbatch -N 2: $name: summary: 4 ranks on mtn1 and mtn2"
        else
            err "maxsub.sbatch -N 2: $name: summary does not show 4 ranks on mtn1 and mtn2"
        fi
    done
else
    cat "$work/job1.log" >&2
    err "jobs/maxsub.sbatch with -N 2 did not complete"
fi

# ---- 2. scaling.sbatch ----------------------------------------------------------
unset LAUNCH PYTHON SCENARIOS_ARGS CG_ARGS MAXSUB_ARGS ADVECT_ARGS FUZZY_ARGS
for p in python3 /usr/bin/python3; do
    if "$p" -c 'import matplotlib' >/dev/null 2>&1; then export PYTHON=$p; break; fi
done
if [ -z "${PYTHON:-}" ]; then
    err "no python3 with matplotlib (scripts/setup.sh installs python3-matplotlib)"
else
    export SCALING=$src/perf/scaling.py OUTDIR=$work/scaling WORKLOADS=cg,maxsub STUDIES=strong \
        RANKS="1 2 4" PRESET=tiny DEVICE=cpu RUN_TIMEOUT=60 REPEAT=1
    if "$src/tests/slurm/run_sbatch.sh" "$src/jobs/scaling.sbatch" "$work/job2" --export=ALL \
        --job-name=mutirao-mn-scaling --nodes=2 --ntasks-per-node=2 --time=5 >"$work/job2.log" 2>&1; then
        grep -E '^run_sbatch: job' "$work/job2.log" | sed "s/^/$me: /"
        if python3 - "$OUTDIR/scaling.csv" >"$work/check.out" 2>&1 <<'PY'; then
import csv, json, os, sys

path = sys.argv[1]
rows = list(csv.DictReader(open(path)))
bad, seen = [], set()
for r in rows:
    k, nodes = int(r["ranks"]), int(r["nodes"])
    seen.add((r["workload"], k))
    if r["status"] != "ok":
        bad.append(f"{r['workload']} {k}: status {r['status']} ({r['message']})")
        continue
    want = 2 if k == 4 else 1
    if nodes != want:
        bad.append(f"{r['workload']} {k} ranks: {nodes} nodes in the CSV, want {want}")
    s = json.load(open(os.path.join(os.path.dirname(path), r["summary"])))
    if s.get("nodes") != want or s.get("ranks") != k:
        bad.append(f"{r['workload']} {k}: summary says {s.get('ranks')} ranks on {s.get('nodes')} nodes")
want_rows = {(w, k) for w in ("cg", "maxsub") for k in (1, 2, 4)}
if seen != want_rows:
    bad.append(f"rows {sorted(seen)}, want {sorted(want_rows)}")
if bad:
    sys.exit("; ".join(bad))
print(f"{len(rows)} rows ok, the 4-rank runs on 2 nodes")
PY
            echo "$me: ok: scaling.sbatch -N 2: $(cat "$work/check.out")"
        else
            err "scaling.sbatch -N 2: $(cat "$work/check.out")"
        fi
    else
        cat "$work/job2.log" >&2
        err "jobs/scaling.sbatch with -N 2 did not complete"
    fi
fi

[ "$fail" = 0 ] || mn_logs
[ "$fail" = 0 ] && echo "$me: PASS"
exit "$fail"
