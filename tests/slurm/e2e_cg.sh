#!/usr/bin/env bash
# End-to-end: jobs/cg.sbatch and jobs/cg-scaling.sbatch through the local Slurm.
#
#   e2e_cg.sh <mutirao binary> <source dir> [mpiexec] [run|scaling]
# MPIEXEC_PREFLAGS (;-separated) go to the 1-rank reference runs; PETSC_CG (the
# perf/petsc_cg binary, optional) lets the job run its PETSc reference too.
#
# run (default): jobs/cg.sbatch on 4 tasks, on a small Matrix Market file written
#   here (gzip-compressed, symmetric, with comments) and on a generated 3-D 7-point
#   Poisson problem. Each run's summary must say 4 ranks, and its iteration count
#   and solution must match a 1-rank CPU run made here with mpiexec outside Slurm:
#   the same count, solutions within 1e-12 relative (mutirao's rank-independence
#   claim). When petsc_cg is built, the job's PETSc runs must exist and agree (the
#   iteration count within 2% or +-1, the solutions within 1e-8 relative).
# scaling: jobs/cg-scaling.sbatch on 2 tasks, ranks 1 and 2, a 16^3 strong and an
#   8^3-per-rank weak problem: scaling.csv must have the header and the 4 rows,
#   with sane numbers, and scaling.png must be a PNG image.
# Exit 77 (ctest: skipped) when mutirao has no cg command yet, or when Slurm is not
# installed (unless MUTIRAO_REQUIRE_SLURM=1, as in CI). KEEP=1 keeps the workdir.
set -euo pipefail

# shellcheck source=tests/slurm/e2e_args.sh
source "$(dirname "${BASH_SOURCE[0]}")/e2e_args.sh"
mode=${4:-run}
me=e2e_cg_$mode
case "$mode" in run | scaling) ;; *) echo "$me: mode must be run or scaling" >&2; exit 2 ;; esac

help=$("$mpiexec" -n 1 ${preflags[@]+"${preflags[@]}"} "$mutirao" --help 2>&1 || true)
if ! grep -qE '^ +cg ' <<<"$help"; then
    echo "$me: SKIP: this mutirao has no 'cg' command yet"
    exit 77
fi
# shellcheck source=tests/slurm/e2e_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

job_env
unset LAUNCH NP CG_ARGS PETSC_LAUNCH RANKS STUDIES

# ---- scaling -------------------------------------------------------------------
if [ "$mode" = scaling ]; then
    export RANKS="1 2" STUDIES="strong weak" POISSON=3d7 STRONG_NX=16 WEAK_NX=8 PC=jacobi \
        RHS=Aones RTOL=1e-8 DEVICE=cpu PETSC=0
    unset STRONG_NY STRONG_NZ WEAK_NY WEAK_NZ MAX_IT
    submit cg-scaling --ntasks=2 --time=5
    if python3 - "$OUTDIR/scaling.csv" "$OUTDIR/scaling.png" <<'PY'; then
import sys

csv, png = sys.argv[1:3]
want = "study,program,ranks,n,iterations,time_per_iteration_s,speedup,efficiency"
bad = []
try:
    lines = open(csv).read().split("\n")
except OSError as e:
    sys.exit(f"{csv}: {e}")
if lines[0] != want:
    bad.append(f"header {lines[0]!r}, expected {want!r}")
rows = [l.split(",") for l in lines[1:] if l]
got = {(r[0], int(r[2])): r for r in rows if len(r) == 8}
if len(rows) != 4 or set(got) != {("strong", 1), ("strong", 2), ("weak", 1), ("weak", 2)}:
    bad.append(f"expected rows strong/weak x ranks 1/2, got {[(r[0], r[2]) for r in rows]}")
else:
    for (study, k), r in got.items():
        n, its, t, sp, eff = int(r[3]), int(r[4]), float(r[5]), float(r[6]), float(r[7])
        want_n = 16**3 if study == "strong" else 8 * 8 * 8 * k
        if r[1] != "mutirao": bad.append(f"{study} {k}: program {r[1]}")
        if n != want_n: bad.append(f"{study} {k}: n {n}, expected {want_n}")
        if not 0 < its < 1000: bad.append(f"{study} {k}: iterations {its}")
        if not 0 < t < 10: bad.append(f"{study} {k}: time per iteration {t}")
        if k == 1 and (sp != 1 or eff != 1): bad.append(f"{study} 1: speedup {sp}, efficiency {eff}, expected 1")
        if not 0 < eff < 10 or not 0 < sp < 20: bad.append(f"{study} {k}: speedup {sp}, efficiency {eff}")
        if abs(sp - eff * k) > 1e-3 * max(1, sp):  # both studies, with base 1 rank
            bad.append(f"{study} {k}: speedup {sp} and efficiency {eff} disagree")
    if got[("strong", 1)][4] != got[("strong", 2)][4]:
        bad.append("strong scaling: iteration counts differ between 1 and 2 ranks")
try:
    with open(png, "rb") as f:
        head = f.read(8)
        size = len(head) + len(f.read())
    if head != b"\x89PNG\r\n\x1a\n" or size < 2000:
        bad.append(f"{png} is not a PNG plot ({size} bytes)")
except OSError as e:
    bad.append(f"{png}: {e}")
if bad:
    sys.exit("; ".join(bad))
print("\n".join(lines))
PY
        echo "$me: ok: scaling.csv rows and scaling.png"
    else
        err "scaling results"
    fi
    e2e_end
fi

# ---- run -----------------------------------------------------------------------
# A small SPD Matrix Market file, gzip-compressed: a 2-D 5-point operator on a
# 14 x 11 grid with a varying diagonal (4 + (i mod 5)/4: strictly dominant, so SPD),
# lower triangle only, with comments and a blank line.
python3 - "$work/spd.mtx" <<'PY'
import sys

nx, ny = 14, 11
n = nx * ny
entries = []
for r in range(n):
    x, y = r % nx, r // nx
    entries.append((r, r, 4 + (r % 5) / 4))
    if x > 0: entries.append((r, r - 1, -1.0))
    if y > 0: entries.append((r, r - nx, -0.75))
with open(sys.argv[1], "w") as f:
    f.write("%%MatrixMarket matrix coordinate real symmetric\n% e2e_cg: 2-D 5-point, varying diagonal\n%\n")
    f.write(f"{n} {n} {len(entries)}\n")
    for i, j, v in sorted(entries, key=lambda e: (e[1], e[0])):
        f.write(f"{i + 1} {j + 1} {v:.17g}\n")
PY
gzip -9 "$work/spd.mtx"

export MATRIX=$work/spd.mtx.gz POISSON=3d7 NX=10 NY=9 NZ=8 RHS=Aones PC=jacobi RTOL=1e-10 \
    DEVICE=auto CHECKPOINT=0 PETSC=0
unset ATOL MAX_IT PRECISION
if [ -n "${PETSC_CG:-}" ] && [ -x "${PETSC_CG:-}" ]; then
    export PETSC=1 PETSC_CG
fi
submit cg --ntasks=4 --time=5

# The reference runs: 1 rank, CPU, outside Slurm.
declare -A problem=([cg_matrix]="--matrix=$MATRIX" [cg_poisson]="--poisson=3d7 --nx=10 --ny=9 --nz=8")
for name in cg_matrix cg_poisson; do
    read -r -a prob <<<"${problem[$name]}"
    ref=$work/ref_$name
    if ! outside_slurm cg "${prob[@]}" --rhs="$RHS" --pc="$PC" --rtol="$RTOL" --device=cpu \
        --output="$ref.txt" --summary="$ref.json" >"$ref.log" 2>&1; then
        cat "$ref.log" >&2
        err "$name: the 1-rank reference run failed"
        continue
    fi
    if python3 - "$name" "$OUTDIR/$name" "$ref" "$OUTDIR/petsc_$name" "$PETSC" <<'PY'; then
import json, math, os, sys

name, job, ref, petsc, with_petsc = sys.argv[1:6]

def load(p):
    with open(p) as f:
        return json.load(f)

def find(d, key):
    if isinstance(d, dict):
        if key in d and not isinstance(d[key], (dict, list)):
            return d[key]
        for v in ([d["result"]] if isinstance(d.get("result"), dict) else []) + list(d.values()):
            r = find(v, key)
            if r is not None:
                return r
    return None

def vec(p):
    with open(p) as f:
        return [float(l) for l in f if l.strip()]

def rel(a, b):
    if len(a) != len(b):
        return float("inf")
    nb = math.sqrt(sum(y * y for y in b)) or 1.0
    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b))) / nb

bad = []
try:
    js, rs = load(job + ".json"), load(ref + ".json")
    xj, xr = vec(job + ".txt"), vec(ref + ".txt")
except (OSError, ValueError) as e:
    sys.exit(str(e))
if find(js, "ranks") != 4:
    bad.append(f"the job's summary says ranks={find(js, 'ranks')!r}, expected 4")
ij, ir = find(js, "iterations"), find(rs, "iterations")
if ij is None or ij != ir:
    bad.append(f"iterations: {ij} on 4 ranks under Slurm, {ir} on 1 rank")
d = rel(xj, xr)
if not d <= 1e-12:
    bad.append(f"solutions differ by {d:.3e} relative (limit 1e-12)")
msg = f"{ij} iterations on 4 ranks and on 1, solutions within {d:.1e}"
if with_petsc == "1":
    try:
        ps = load(petsc + ".json")
        ip = ps["result"]["iterations"]
        if abs(ip - ij) > max(1, math.ceil(0.02 * ip)):
            bad.append(f"PETSc needs {ip} iterations, mutirao {ij}")
        dp = ps["compare"]["difference_relative"]
        if not dp <= 1e-8:
            bad.append(f"PETSc's solution differs by {dp:.3e} relative (limit 1e-8)")
        msg += f"; PETSc {ip} iterations, difference {dp:.1e}"
    except (OSError, ValueError, KeyError, TypeError) as e:
        bad.append(f"no usable PETSc reference summary: {e}")
if bad:
    sys.exit(f"{name}: " + "; ".join(bad))
print(f"e2e_cg_run: ok: {name}: {msg}")
PY
        :
    else
        err "$name: the Slurm run and the 1-rank run disagree"
    fi
done

# The job log has one answer line per run.
job_log_count '^cg.sbatch: cg_[a-z]* *mutirao iterations=' 2 \
    "'cg.sbatch: <run> mutirao iterations=' lines in the job log"

e2e_end
