#!/usr/bin/env bash
# Install what mutirao needs on Debian 12 (scripts/packages.txt), then build it.
#   scripts/setup.sh [--user] [--no-install] [--no-build] [cmake options...]
# --user: only the [user] packages, to build and run (no Slurm, PETSc, R or test
# tools). Installing needs root (or sudo) only for packages that are missing.
# The Slurm tests start their own one-node cluster; nothing is started here.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

install=1 build=1 level=dev
while [ $# -gt 0 ]; do
    case "$1" in
    --user) level=user ;;
    --no-install) install=0 ;;
    --no-build) build=0 ;;
    -h | --help) sed -n '2,6s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) break ;;
    esac
    shift
done

# packages LEVEL: the package names of [user], and of [dev] too for LEVEL dev.
packages() {
    sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' scripts/packages.txt |
        awk -v level="$1" '/^\[/ { on = ($0 == "[user]" || level == "dev"); next } on'
}
# missing NAME...: those not installed.
missing() {
    local p
    for p in "$@"; do
        dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -e '^install ok installed' \
            >/dev/null || echo "$p"
    done
}

if [ $install = 1 ]; then
    mapfile -t wanted < <(packages $level)
    mapfile -t absent < <(missing "${wanted[@]}")
    if [ ${#absent[@]} -eq 0 ]; then
        echo "setup: the ${#wanted[@]} [$level] packages are installed"
    else
        sudo=()
        if [ "$(id -u)" != 0 ]; then
            if ! command -v sudo >/dev/null 2>&1; then
                echo "setup: missing packages; as root run: apt-get install ${absent[*]}" >&2
                exit 1
            fi
            sudo=(sudo)
        fi
        echo "setup: apt-get install ${absent[*]}"
        "${sudo[@]}" apt-get update
        "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${absent[@]}"
    fi
fi
if [ $build = 1 ]; then
    scripts/build.sh "$@"
fi
