#!/bin/bash
# Every workload's summary, and that of a failed run, validates against
# docs/summary.schema.json (Debian's python3-jsonschema): numbers as numbers,
# booleans as booleans, per-field arrays for advect, the scenarios tree's
# statistics (tree_*) as numbers, the error of a failed run.
# The schema itself must reject a summary with a number written as a string.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] && "$PY" -c 'import jsonschema' 2>/dev/null || PY=python3
SC=$SRCDIR/inputs/scenarios/ons_inflows_64.csv

runs=(
    "maxsub|maxsub --n=1000"
    "cg|cg --poisson=2d5 --nx=16"
    "cg-maxit|cg --poisson=2d5 --nx=16 --max-it=3"
    "scenarios|scenarios --input=$SC --nstations=2 --tree=1,3,2 --m=16 --stats-series=0"
    "scenarios-stats|scenarios --input=$SC --nstations=3 --tree=1,3,2 --m=16 --stats-series=20 --stats=$WORK/sc-stats.csv"
    "fuzzy|fuzzy --gen=blobs --n=300"
    "advect|advect --nx=16 --ny=16 --nz=4 --steps=2 --fields=3"
    "failed|cg --matrix=$WORK/none.mtx"
)
for r in "${runs[@]}"; do
    name=${r%%|*}
    read -r -a args <<<"${r#*|}"
    set +e
    run_np 2 "${args[@]}" --device=cpu --summary="$WORK/$name.json" >/dev/null 2>"$WORK/$name.err"
    echo "$name: exit status $?"
    set -e
done
"$PY" - "$SRCDIR/docs/summary.schema.json" "$WORK" <<'PY' || fail "summaries against the schema"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
bad = 0
want = {"maxsub": 0, "cg": 0, "cg-maxit": 2, "scenarios": 0, "scenarios-stats": 0, "fuzzy": 0,
        "advect": 0, "failed": 1}
for name, status in want.items():
    s = json.load(open(f"{sys.argv[2]}/{name}.json"))
    errs = [e.message for e in v.iter_errors(s)]
    if errs or s["exit_status"] != status:
        bad += 1
        print(f"FAIL: {name}: exit_status {s['exit_status']} (want {status}): {errs[:3]}")
    else:
        print(f"ok: {name}: valid, exit_status {status}")
adv = json.load(open(f"{sys.argv[2]}/advect.json"))["result"]
if len(adv["l1_error"]) != 3:
    bad += 1; print("FAIL: advect: l1_error has", len(adv["l1_error"]), "fields, want 3")
# The MPI library's answer to its CUDA-aware query, a yes/no in every run, the same in all.
aware = {json.load(open(f"{sys.argv[2]}/{n}.json")).get("mpi_cuda_aware") for n in want}
if len(aware) != 1 or not isinstance(next(iter(aware)), bool):
    bad += 1; print(f"FAIL: mpi_cuda_aware {aware!r}, want one yes/no in every summary")
sc = json.load(open(f"{sys.argv[2]}/scenarios-stats.json"))["result"]
for k in ("tree_node_mean_rel", "tree_sample_mean_rel", "tree_sample_std_rel",
          "tree_sample_lag1_abs", "tree_sample_corr_abs", "tree_hist_mean_rel", "tree_hist_std_rel",
          "tree_hist_lag1_abs", "tree_hist_corr_abs"):
    if not isinstance(sc.get(k), (int, float)) or isinstance(sc.get(k), bool):
        bad += 1; print(f"FAIL: scenarios with --stats: result.{k} = {sc.get(k)!r}, want a number")
# The schema is not vacuous: a number as a string, a yes/no as text, no error on failure.
for key, val, src in (("r", "0.5", "fuzzy"), ("converged", "no", "cg"),
                      ("tree_sample_std_rel", "n/a", "scenarios-stats")):
    s = json.load(open(f"{sys.argv[2]}/{src}.json"))
    s["result"][key] = val
    if not list(v.iter_errors(s)):
        bad += 1; print(f"FAIL: the schema accepts result.{key} = {val!r}")
s = json.load(open(f"{sys.argv[2]}/failed.json")); del s["error"]
if not list(v.iter_errors(s)):
    bad += 1; print("FAIL: the schema accepts a failed run without its error")
sys.exit(bad)
PY
finish
