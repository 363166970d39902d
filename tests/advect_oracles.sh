#!/usr/bin/env bash
# Oracles on `mutirao advect`, against analytic answers:
# a uniform field stays uniform in a divergent 3-D wind (Walcek densities);
# mass is conserved to rounding with periodic boundaries; no new extrema and
# no negative values; a Gaussian, a cosine bell and a square wave carried once
# around the periodic domain (X-Y diagonal, and along Z) return with L1, L2
# and Linf errors whose observed order on two resolutions is about 2 for the
# smooth profiles; a cone after one revolution of solid-body rotation;
# LeVeque's swirl returning to its start, better on the finer grid.
source "$(dirname "$0")/lib.sh"

# adv NAME ARGS...: runs on NP ranks (default 1; advect_ranks checks that the
# rank count changes no bit); sets the globals from field 0's result line.
adv() {
    local name=$1
    shift
    if ! run_np "${NP:-1}" advect --device=cpu "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"; then
        cat "$WORK/$name.err" >&2
        fail "$name: exit status non-zero"
        return 1
    fi
    read -r CHANGE MIN MAX L1 L2 LINF < <(awk '$3 == 0 {print $9, $11, $13, $15, $17, $19}' "$WORK/$name.out")
    echo "ok: $name ran: mass change $CHANGE min $MIN max $MAX L1 $L1 L2 $L2 Linf $LINF"
}

# check NAME EXPR: a Python boolean over the globals passed as variables.
check() {
    local name=$1 expr=$2
    if python3 -c "import math,sys; c,mn,mx,l1,l2,li=map(float,sys.argv[1:7]); sys.exit(0 if ($expr) else 1)" \
        "$CHANGE" "$MIN" "$MAX" "$L1" "$L2" "$LINF"; then
        echo "ok: $name: $expr"
    else
        fail "$name: not ($expr) with change=$CHANGE min=$MIN max=$MAX L1=$L1 L2=$L2 Linf=$LINF"
    fi
}

# order NAME E_COARSE E_FINE MIN: observed order log2(coarse/fine) at least MIN.
order() {
    local got
    got=$(python3 -c "import math,sys; print('%.3f' % math.log2(float(sys.argv[1])/float(sys.argv[2])))" "$2" "$3")
    if python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= float(sys.argv[2]) else 1)" "$got" "$4"; then
        echo "ok: $1: observed order $got (>= $4)"
    else
        fail "$1: observed order $got, want >= $4"
    fi
}

# Uniform stays uniform: divergent wind in X, Y and Z, periodic, stratified density too.
for dens in uniform stratified; do
    adv "uniform-$dens" --nx=24 --ny=20 --nz=8 --fields=3 --wind=divergent --u=0.8 --bc-z=periodic \
        --init=uniform --amp=2 --density=$dens --steps=30
    check "uniform stays uniform ($dens density)" "abs(mn-2) <= 4e-7 and abs(mx-2) <= 4e-7"
done
adv "uniform-open" --nx=24 --ny=20 --nz=8 --wind=divergent --u=0.8 --bc=open --init=uniform --steps=30
check "uniform stays uniform (open boundaries)" "abs(mn-1) <= 2e-7 and abs(mx-1) <= 2e-7"

# Translation once around the periodic domain along the diagonal (Courant 0.5).
# on_32_and_64 TAG WHAT EXPR32 EXPR64 ARGS...: adv TAG32 on 32 x 32 x 3 cells and
# TAG64 on 64 x 64 x 3, each checked ("WHAT 32", "WHAT 64") with its EXPR; the
# coarse run's errors kept in L1_32, L2_32 and LINF_32 for order.
on_32_and_64() {
    local tag=$1 what=$2 expr32=$3 expr64=$4
    shift 4
    adv "${tag}32" --nx=32 --ny=32 --nz=3 "$@"
    check "${what/:/ 32:}" "$expr32"
    L1_32=$L1 L2_32=$L2 LINF_32=$LINF
    adv "${tag}64" --nx=64 --ny=64 --nz=3 "$@"
    check "${what/:/ 64:}" "$expr64"
}
on_32_and_64 gauss "gaussian: conserved, bounded" \
    "abs(c) < 1e-6 and mn >= 0 and mx <= 0.9892080 and l1 < 0.02" \
    "abs(c) < 1e-6 and mn >= 0 and mx <= 0.9972911 and l1 < 0.004" \
    --u=1 --v=1 --init=gaussian --radius=0.15
order "gaussian L1" "$L1_32" "$L1" 1.8
order "gaussian Linf" "$LINF_32" "$LINF" 1.2
bell="abs(c) < 1e-6 and mn >= 0 and mx <= 1"
on_32_and_64 cos "cosine bell: conserved, positive" "$bell" "$bell" \
    --u=1 --v=1 --init=cosine --radius=0.3
order "cosine bell L1" "$L1_32" "$L1" 1.7
order "cosine bell L2" "$L2_32" "$L2" 1.5
square="abs(c) < 1e-6 and mn == 0 and mx == 1"
on_32_and_64 sq "square wave: no new extrema" "$square" "$square" \
    --u=1 --v=-1 --init=square --radius=0.2
order "square wave L1 (discontinuous: about 1)" "$L1_32" "$L1" 0.7

# Along Z (periodic, a 3-D Gaussian), several fields.
adv z32 --nx=4 --ny=4 --nz=32 --fields=2 --u=0 --w=-1 --bc-z=periodic --init-3d --init=gaussian
z32=$L1
adv z64 --nx=4 --ny=4 --nz=64 --fields=2 --u=0 --w=-1 --bc-z=periodic --init-3d --init=gaussian
check "z translation: conserved" "abs(c) < 1e-6 and mn >= 0"
order "z translation L1" "$z32" "$L1" 1.8

# Solid-body rotation of a cone, one revolution (open boundaries: the cone stays inside).
adv cone --nx=64 --ny=64 --nz=3 --wind=rotation --bc=open --init=cone --cx=0.5 --cy=0.75 --radius=0.15
check "rotating cone: peak kept, positive, conserved" "mx > 0.9 and mx <= 1 and mn >= 0 and l1 < 0.06 and abs(c) < 1e-6"

# LeVeque's swirl (reverses at T/2): back to the start, better on the finer grid.
adv swirl32 --nx=32 --ny=32 --nz=3 --wind=swirl --init=cosine --cx=0.5 --cy=0.75 --radius=0.15
sw32=$L1
adv swirl64 --nx=64 --ny=64 --nz=3 --wind=swirl --init=cosine --cx=0.5 --cy=0.75 --radius=0.15
check "swirl returns: bounded, conserved" "mn >= 0 and mx <= 1 and l1 < 0.06 and abs(c) < 1e-5"
order "swirl L1" "$sw32" "$L1" 1.0

# Conservation with a varying wind in X, Y and Z at once (periodic everywhere).
NP=2 adv mix --nx=30 --ny=24 --nz=12 --fields=2 --wind=swirl --w=0.7 --bc-z=periodic --init=cone \
    --init-3d --cx=0.4 --cy=0.6 --radius=0.3 --steps=40
check "swirl + vertical wind: conserved, bounded" "abs(c) < 1e-5 and mn >= 0 and mx <= 1"
finish
