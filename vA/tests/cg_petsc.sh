#!/usr/bin/env bash
# mutirao cg against PETSc's KSPCG (perf/petsc_cg): the same problems, the same
# stopping test, both programs on 1, 2 and 3 ranks.
#
# Environment from ctest (tests/CMakeLists_petsc.cmake): MUTIRAO, MPIEXEC,
# MPIEXEC_PREFLAGS, SRCDIR as in tests/lib.sh; PETSC_CG (the reference program,
# empty when it was not built) and PETSC_MPIEXEC (OpenMPI's mpirun).
# Knobs: PETSC_MPIEXEC_PREFLAGS (space-separated, default --allow-run-as-root
# --oversubscribe), CG_PETSC_NP (default "1 2 3"), CG_PETSC_MATRICES (a folder of
# .mtx/.mtx.gz files, default $SRCDIR/inputs/cg; e.g. a folder of SuiteSparse matrices for a
# run by hand), CG_PETSC_MAX_IT (100000), CG_PETSC_DEVICE (cpu), KEEP=1 keeps the
# work folder.
#
# Problems: the generated Poisson operators 2d5 64x64, 3d7 16^3 and 3d27 12^3 with
# b = A*1 at rtol 1e-10, 2d5 48x40 with b = 1 at rtol 1e-10, and every Matrix
# Market file in inputs/cg/ with b = A*1 at rtol 1e-8 (skipped with a message when
# that folder has none); each with --pc=none and --pc=jacobi, atol 0, x0 = 0.
#
# The rules, for each problem, preconditioner and rank count np (PETSc's numbers
# from its runs on the same np unless said otherwise):
#  1. Iterations: mutirao's count lies in [lo - s, hi + s], where lo..hi is the
#     range of PETSc's counts over all the rank counts run and s = max(1,
#     ceil(0.02 hi)): within 2% (one iteration for counts below 50) of what PETSc
#     itself gives. The range matters on ill-conditioned matrices, where a change
#     in the order of the sums alone moves CG's count: PETSc 3.18 on 1, 2 and 3
#     ranks at rtol 1e-8 gives 62123..63787 on bcsstk13 without a preconditioner
#     (2.6%), 4518..4664 on nos7 (3.2%), 1356..1392 on bcsstk26 with Jacobi.
#     mutirao's sums are rank-independent but ordered differently from any of
#     PETSc's, so it may land anywhere in that band; on well-conditioned problems
#     the range is one number and the rule is plain 2% / +-1. Where PETSc's own
#     range exceeds 0.5% the count is rounding-steered and s is 5% instead (seen:
#     bcsstk26 without a preconditioner, PETSc 17281..17402, mutirao 16824, and
#     mutirao itself 16936..17091 when the matrix is scaled by one ulp).
#  2. Both converged, or neither did.
#  3. Residual: the true relative residual ||b - A x_m||/||b|| of mutirao's
#     solution, recomputed by PETSc from the file mutirao wrote, is at most
#     10 max(rtol, r_p), r_p the largest true relative residual of PETSc's own
#     solutions (which exceeds rtol where the recursive residual drifts from the
#     true one, e.g. 5e-7 on nos7 at rtol 1e-8).
#  4. Solution: ||x_m - x_p|| / ||x_p|| <= tol_x, with
#     - b = A*1 (exact solution 1): tol_x = max(100 rtol, 10 e_p), e_p =
#       ||x_p - 1|| / ||1|| PETSc's own error. Since ||x_m - x_p|| <= e_m + e_p, this
#       holds whenever mutirao's error is at most 9 times PETSc's; on an
#       ill-conditioned matrix where neither solution is accurate at this rtol (e_p
#       is 0.4 on bcsstk13 without a preconditioner) rule 3 is the binding check.
#     - b = 1: tol_x = max(100 rtol, 2 kappa (r_m + r_p)), kappa PETSc's Lanczos
#       estimate of the condition number (--cond=1): the forward-error bound
#       ||x - x*|| <= kappa ||b - A x|| / ||b|| ||x*|| applied to both solutions,
#       with a factor 2 for the estimate (Lanczos underestimates kappa).
#     For the Poisson problems at rtol 1e-10 this means a difference of at most
#     about 1e-8 (the issue asks 1e-6 or better).
#  5. When mutirao's summary reports its true residual, it agrees with PETSc's
#     recomputation within a factor of 2 (plus 1e-15).
# Exit 77 (ctest: skipped) when perf/petsc_cg was not built or `mutirao cg` does
# not exist yet.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lib.sh
source "$here/lib.sh"
if [ "${KEEP:-0}" = 1 ]; then trap 'echo "work folder kept: $WORK"' EXIT; fi

if [ -z "${PETSC_CG:-}" ] || [ ! -x "$PETSC_CG" ]; then
    echo "SKIP: perf/petsc_cg was not built (apt-get install petsc-dev, then reconfigure)"
    exit 77
fi
PETSC_MPIEXEC=${PETSC_MPIEXEC:-mpirun.openmpi}
if ! command -v "$PETSC_MPIEXEC" >/dev/null 2>&1; then
    echo "SKIP: no OpenMPI launcher '$PETSC_MPIEXEC' for perf/petsc_cg"
    exit 77
fi
read -r -a PPREFLAGS <<<"${PETSC_MPIEXEC_PREFLAGS:---allow-run-as-root --oversubscribe}"
# Open MPI in containers without ptrace rights fails its single-copy transfers.
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
help=$(run_np 1 --help 2>&1 || true)
if ! grep -qE '^ +cg ' <<<"$help"; then
    echo "SKIP: this mutirao has no 'cg' command yet (mutirao --help lists: $(
        grep -E '^  [a-z]' <<<"$help" | awk '{print $1}' | tr '\n' ' '))"
    exit 77
fi

NPS=${CG_PETSC_NP:-1 2 3}
MAX_IT=${CG_PETSC_MAX_IT:-100000}
DEVICE=${CG_PETSC_DEVICE:-cpu}
MATRICES=${CG_PETSC_MATRICES:-${SRCDIR:-$here/..}/inputs/cg}

# The judge: reads the summaries of one problem and preconditioner, prints one
# line per rank count and one table row, exits 1 if a rule fails.
cat >"$WORK/judge.py" <<'PY'
import json, math, sys

label, pc, rtol, rhs, prefix = sys.argv[1:6]
nps = sys.argv[6:]
rtol = float(rtol)

def load(path):
    with open(path) as f:
        return json.load(f)

def get(d, keys):
    """A number or bool under one of keys: in d["result"] first, then anywhere."""
    if not isinstance(d, dict):
        return None
    for sect in ([d.get("result")] if isinstance(d.get("result"), dict) else []) + [d]:
        for k in keys:
            if k in sect and isinstance(sect[k], (int, float, bool, str)):
                return sect[k]
    for v in d.values():
        if isinstance(v, dict) and v is not d.get("result"):
            r = get(v, keys)
            if r is not None:
                return r
    return None

def truth(v):
    if isinstance(v, str):
        return v.lower() in ("yes", "true", "converged", "1")
    return bool(v)

fails = 0
p, m = {}, {}
for np_ in nps:
    try:
        p[np_] = load(f"{prefix}.p{np_}.json")
        m[np_] = load(f"{prefix}.m{np_}.json")
    except (OSError, ValueError) as e:
        print(f"FAIL: {label} {pc} np={np_}: {e}")
        fails += 1
if fails:
    sys.exit(1)

pits = [p[n]["result"]["iterations"] for n in nps]
lo, hi = min(pits), max(pits)
# Where PETSc's own count moves by more than 0.5% with the rank count alone, the
# count is steered by rounding (an ill-conditioned matrix without a good
# preconditioner): allow 5% there, 2% elsewhere.
rounding_steered = hi - lo > 0.005 * lo
slack = max(1, math.ceil((0.05 if rounding_steered else 0.02) * hi))
rp_max = max(p[n]["result"]["true_residual_relative"] for n in nps)
mits, diffs = [], []
for n in nps:
    pr, ms = p[n]["result"], m[n]
    cmp_ = p[n].get("compare") or {}
    problems = []
    its = get(ms, ["iterations"])
    mits.append(its)
    if not isinstance(its, int) or isinstance(its, bool):
        problems.append(f"no iteration count in mutirao's summary")
    elif not lo - slack <= its <= hi + slack:
        problems.append(f"iterations {its} outside PETSc's {lo}..{hi} +- {slack}")
    conv = get(ms, ["converged"])
    if conv is None:
        problems.append("no 'converged' in mutirao's summary")
    elif truth(conv) != pr["converged"]:
        problems.append(f"mutirao converged={truth(conv)}, PETSc {pr['converged']} ({pr['reason']})")
    rm = cmp_.get("true_residual_relative")
    rlim = 10 * max(rtol, rp_max)
    if rm is None or not rm <= rlim:
        problems.append(f"true residual of mutirao's x {rm} > {rlim:.2e}")
    d = cmp_.get("difference_relative")
    if rhs == "Aones":
        tol = max(100 * rtol, 10 * pr["error_relative"])
    else:
        kappa = pr.get("cond_estimate") or float("inf")
        tol = max(100 * rtol, 2 * kappa * ((rm or 0) + pr["true_residual_relative"]))
    diffs.append(d)
    if d is None or not d <= tol:
        problems.append(f"||x_m - x_p||/||x_p|| = {d} > {tol:.2e}")
    mres = get(ms, ["true_residual_relative", "true_relative_residual", "true_residual_rel"])
    if isinstance(mres, (int, float)) and rm is not None and not isinstance(mres, bool):
        if abs(mres - rm) > 0.5 * max(mres, rm) + 1e-15:
            problems.append(f"mutirao reports true residual {mres:.3e}, PETSc recomputes {rm:.3e}")
    head = (f"{label} pc={pc} np={n}: iterations mutirao {its} PETSc {pr['iterations']} "
            f"(band {lo - slack}..{hi + slack}), residual {rm if rm is None else f'{rm:.2e}'} "
            f"(limit {rlim:.1e}), difference {d if d is None else f'{d:.2e}'} (limit {tol:.1e})")
    if problems:
        fails += 1
        print(f"FAIL: {head}: " + "; ".join(problems))
    else:
        print(f"ok: {head}")
dmax = max((x for x in diffs if x is not None), default=float("nan"))
with open(sys.argv[5].rsplit("/", 1)[0] + "/table.txt", "a") as f:
    f.write(f"{label:22s} {pc:6s} {'/'.join(map(str, pits)):>20s} {'/'.join(map(str, mits)):>20s}"
            f" {dmax:10.2e}\n")
sys.exit(1 if fails else 0)
PY

# compare LABEL RTOL RHS [petsc extra] -- PROBLEM ARGS...: both programs on every np
# and both preconditioners, then the judge.
compare() {
    local label=$1 rtol=$2 rhs=$3 extra=()
    shift 3
    while [ "$1" != -- ]; do extra+=("$1"); shift; done
    shift
    local pc np pre
    for pc in none jacobi; do
        pre=$WORK/$label.$pc
        local ok=1
        for np in $NPS; do
            local args=("$@" --rhs="$rhs" --pc="$pc" --rtol="$rtol" --atol=0 --max-it="$MAX_IT")
            if ! run_np "$np" cg "${args[@]}" --device="$DEVICE" --output="$pre.m$np.txt" \
                --summary="$pre.m$np.json" >"$pre.m$np.log" 2>&1; then
                tail -n 15 "$pre.m$np.log" >&2
                fail "$label pc=$pc: mutirao cg on $np rank(s) failed"
                ok=0
                continue
            fi
            if ! "$PETSC_MPIEXEC" -n "$np" "${PPREFLAGS[@]}" "$PETSC_CG" "${args[@]}" \
                ${extra[@]+"${extra[@]}"} --compare="$pre.m$np.txt" --output="$pre.p$np.txt" \
                --summary="$pre.p$np.json" >"$pre.p$np.log" 2>&1; then
                tail -n 15 "$pre.p$np.log" >&2
                fail "$label pc=$pc: petsc_cg on $np rank(s) failed"
                ok=0
            fi
        done
        [ $ok = 1 ] || continue
        # shellcheck disable=SC2086 # NPS is a list
        python3 "$WORK/judge.py" "$label" "$pc" "$rtol" "$rhs" "$pre" $NPS ||
            FAILS=$((FAILS + 1))
    done
}

compare poisson-2d5-64x64 1e-10 Aones -- --poisson=2d5 --nx=64 --ny=64
compare poisson-3d7-16x16x16 1e-10 Aones -- --poisson=3d7 --nx=16 --ny=16 --nz=16
compare poisson-3d27-12x12x12 1e-10 Aones -- --poisson=3d27 --nx=12 --ny=12 --nz=12
compare poisson-2d5-48x40-b1 1e-10 ones --cond=1 -- --poisson=2d5 --nx=48 --ny=40

shopt -s nullglob
files=("$MATRICES"/*.mtx "$MATRICES"/*.mtx.gz)
if [ ${#files[@]} -eq 0 ]; then
    echo "note: no Matrix Market files in $MATRICES: the matrix comparisons are skipped" \
        "(CG_PETSC_MATRICES=DIR runs them on a folder of matrices)"
fi
for f in ${files[@]+"${files[@]}"}; do
    name=$(basename "$f")
    compare "${name%%.mtx*}" 1e-8 Aones -- --matrix="$f"
done

echo
printf '%-22s %-6s %20s %20s %10s\n' problem pc "PETSc its (np $(tr ' ' / <<<"$NPS"))" \
    "mutirao its" "max diff"
cat "$WORK/table.txt" 2>/dev/null || true
finish
