# Sourced first by the end-to-end tests (e2e_*.sh) with their arguments
# "<mutirao binary> <source dir> [mpiexec] ...": sets mutirao and src (absolute),
# mpiexec (default mpiexec.mpich) and preflags (MPIEXEC_PREFLAGS, ';'-separated,
# as in tests/lib.sh), and me, the test's name for messages (the script's, less
# .sh; a test may name itself otherwise after); a usage error exits 2.
# shellcheck shell=bash
if [ $# -lt 2 ]; then
    echo "usage: $0 <mutirao binary> <source dir> [mpiexec] ..." >&2
    exit 2
fi
mutirao=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$2" && pwd)
mpiexec=${3:-mpiexec.mpich}
IFS=';' read -r -a preflags <<<"${MPIEXEC_PREFLAGS:-}"
me=$(basename "$0" .sh)
