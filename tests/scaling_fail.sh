#!/usr/bin/env bash
# perf/scaling.py must report a run that fails or leaves no summary, never drop it:
#  1. cg and advect, strong, on 1 and 2 ranks (mpiexec, outside Slurm), advect with
#     --pf=1 --px=2 --py=1, which only a 2-rank run can lay out: the advect 1-rank
#     row must say failed with the launch's non-zero exit status and mutirao's
#     error, the other three rows ok (the advect 2-rank row the base of its
#     series, efficiency 1), a FAILED line on stderr, the PNG still written, and
#     the driver's exit status 1;
#  2. a launcher that runs nothing and exits 0: every row missing, exit status 1;
#  3. an unknown workload: a usage error (exit status 2) before any run;
#  4. scenarios as NEWAVE's backward openings (--extra="scenarios=--mode=openings
#     ..."): no --tree passed, every row ok, its step the openings phase over the
#     stages of its own summary.
# Environment from ctest: MUTIRAO, MPIEXEC, MPIEXEC_PREFLAGS, SRCDIR.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PY=""
for p in python3 /usr/bin/python3; do
    if "$p" -c 'import matplotlib' >/dev/null 2>&1; then PY=$p; break; fi
done
[ -n "$PY" ] || { fail "no python3 with matplotlib (scripts/setup.sh installs python3-matplotlib)"; finish; }
# Outside any Slurm job: its variables would steer the driver (srun) and mpiexec.
while read -r v; do
    case "$v" in SLURM_*) unset "$v" ;; esac
done < <(compgen -e)
driver=("$PY" "$SRCDIR/perf/scaling.py" --mutirao="$MUTIRAO" --preset=tiny --device=cpu)
launcher="$MPIEXEC -n {ranks} ${PREFLAGS[*]}"

# ---- 1. one failed run in a series -----------------------------------------------
rc=0
"${driver[@]}" --workloads=cg,advect --studies=strong --ranks=1,2 --launcher="$launcher" \
    --extra="advect=--pf=1 --px=2 --py=1" --outdir="$WORK/one" \
    >"$WORK/one.out" 2>"$WORK/one.err" || rc=$?
expect_eq "driver exit status with a failed run" "$rc" 1
if ! grep -q "FAILED: advect strong on 1 ranks" "$WORK/one.err"; then
    fail "no FAILED line for advect on 1 rank on stderr"; cat "$WORK/one.err" >&2
fi
[ -s "$WORK/one/scaling.png" ] || fail "no scaling.png beside the failed run"
if ! "$PY" - "$WORK/one/scaling.csv" <<'PY'; then
import csv, sys
rows = {(r["workload"], int(r["ranks"])): r for r in csv.DictReader(open(sys.argv[1]))}
bad = []
if sorted(rows) != [("advect", 1), ("advect", 2), ("cg", 1), ("cg", 2)]:
    bad.append(f"rows {sorted(rows)}")
else:
    f = rows[("advect", 1)]
    if f["status"] != "failed" or f["exit_code"] in ("", "0") or "pf" not in f["message"]:
        bad.append(f"advect 1 rank: {f['status']}, exit {f['exit_code']}, {f['message']!r}")
    if f["efficiency"] != "" or f["step_s"] != "":
        bad.append(f"advect 1 rank: numbers for a failed run: {f['efficiency']} {f['step_s']}")
    for key in [("advect", 2), ("cg", 1), ("cg", 2)]:
        if rows[key]["status"] != "ok":
            bad.append(f"{key}: {rows[key]['status']} {rows[key]['message']}")
    if rows[("advect", 2)]["efficiency"] not in ("1", "1.0"):
        bad.append(f"advect 2 ranks, the first that ran: efficiency {rows[('advect', 2)]['efficiency']}")
if bad:
    sys.exit("; ".join(bad))
print("ok: advect 1 rank failed (exit " + rows[("advect", 1)]["exit_code"] + "), 3 rows ok")
PY
    fail "rows of the series with a failed run"
fi

# ---- 2. runs that leave no summary -----------------------------------------------
rc=0
"${driver[@]}" --workloads=maxsub --studies=strong,weak --ranks=1,2 --launcher="true -n {ranks}" \
    --outdir="$WORK/none" --no-plot >"$WORK/none.out" 2>"$WORK/none.err" || rc=$?
expect_eq "driver exit status without summaries" "$rc" 1
missing=$(grep -c ',missing,0,' "$WORK/none/scaling.csv" || true)
expect_eq "missing rows" "$missing" 4
expect_eq "MISSING lines on stderr" "$(grep -c 'MISSING: maxsub' "$WORK/none.err" || true)" 4

# ---- 3. a usage error --------------------------------------------------------------
rc=0
"${driver[@]}" --workloads=cg,nope --outdir="$WORK/bad" >"$WORK/bad.out" 2>"$WORK/bad.err" || rc=$?
expect_eq "driver exit status for an unknown workload" "$rc" 2
[ ! -e "$WORK/bad/scaling.csv" ] || fail "a CSV after a usage error"

# ---- 4. scenarios as openings ------------------------------------------------------
"${driver[@]}" --workloads=scenarios --studies=strong --ranks=1,2 --launcher="$launcher" \
    --extra="scenarios=--mode=openings --horizon=3 --openings=4" --outdir="$WORK/open" --no-plot \
    >"$WORK/open.out" 2>"$WORK/open.err" || { cat "$WORK/open.err" >&2; fail "openings series"; }
if ! "$PY" - "$WORK/open" <<'PY'; then
import csv, json, os, sys
rows = list(csv.DictReader(open(os.path.join(sys.argv[1], "scaling.csv"))))
bad = [] if len(rows) == 2 else [f"{len(rows)} rows"]
for r in rows:
    s = json.load(open(os.path.join(sys.argv[1], r["summary"])))
    want = s["phases"]["openings"]["max_s"] / 3
    if r["status"] != "ok" or not r["size"].startswith("openings") or r["steps"] != "3" \
            or "--tree" in r["command"] or abs(float(r["step_s"]) - want) > 1e-5 * want:
        bad.append(f"{r['ranks']} ranks: {r['status']} {r['size']} {r['steps']} {r['step_s']} vs {want}")
if bad:
    sys.exit("; ".join(bad))
print("ok: openings series, step = the openings phase over 3 stages")
PY
    fail "the openings series"
fi
finish
