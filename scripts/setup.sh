#!/usr/bin/env bash
# Install what mutirao needs on Debian 12 (scripts/packages.txt), then build it.
#   scripts/setup.sh [--no-install] [--no-build] [cmake options...]
# Installing needs root (or sudo). The Slurm tests start their own one-node
# cluster (tests/slurm/slurm_up.sh); nothing is started here.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

install=1 build=1
while [ $# -gt 0 ]; do
    case "$1" in
    --no-install) install=0 ;;
    --no-build) build=0 ;;
    -h | --help) sed -n '2,5s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) break ;;
    esac
    shift
done

if [ $install = 1 ]; then
    mapfile -t packages < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' scripts/packages.txt)
    sudo=()
    if [ "$(id -u)" != 0 ]; then
        if ! command -v sudo >/dev/null 2>&1; then
            echo "setup: installing needs root; as root run: apt-get install ${packages[*]}" >&2
            exit 1
        fi
        sudo=(sudo)
    fi
    echo "setup: apt-get install ${packages[*]}"
    "${sudo[@]}" apt-get update
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${packages[@]}"
fi
if [ $build = 1 ]; then
    scripts/build.sh "$@"
fi
