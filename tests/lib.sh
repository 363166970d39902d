# Shared helpers for the command-level tests. Environment from ctest:
# MUTIRAO (the binary), MPIEXEC, MPIEXEC_PREFLAGS (;-separated), SRCDIR.
set -euo pipefail
IFS=';' read -r -a PREFLAGS <<< "${MPIEXEC_PREFLAGS:-}"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mutirao_test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
FAILS=0

# run_np NP ARGS...: runs mutirao on NP ranks (CPU device unless the args say otherwise).
run_np() {
    local np=$1
    shift
    "$MPIEXEC" -n "$np" "${PREFLAGS[@]}" "$MUTIRAO" "$@"
}

fail() {
    echo "FAIL: $*" >&2
    FAILS=$((FAILS + 1))
}

# expect_eq WHAT GOT WANT
expect_eq() {
    if [ "$2" != "$3" ]; then fail "$1: got '$2', want '$3'"; else echo "ok: $1 = $2"; fi
}

# answer FILE: the data row of a result CSV
answer() { sed -n 2p "$1"; }

finish() {
    if [ "$FAILS" -gt 0 ]; then
        echo "$FAILS check(s) failed" >&2
        exit 1
    fi
    echo "all checks passed"
}
