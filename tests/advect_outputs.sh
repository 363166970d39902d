#!/usr/bin/env bash
# Outputs of `mutirao advect`: checkpoints every k steps and on a real SIGUSR1
# or SIGTERM sent to the ranks (exit status 3), and --restart on another rank
# count ending with bitwise the fields of a run never stopped; parallel HDF5
# fields read back with h5dump equal to the raw dump of the same step; fields
# and winds read from files reproducing the analytic run; the PNG slices; the
# summary JSON.
source "$(dirname "$0")/lib.sh"
args=(--device=cpu --nx=24 --ny=24 --nz=4 --fields=2 --wind=swirl --w=0.3 --bc-z=periodic
    --init=cone --cy=0.7)

# 1. Periodic checkpoints: steps 12 and 24 of 30; restart from 24 on 3 ranks.
run_np 2 advect "${args[@]}" --steps=30 --dump="$WORK/ref30.bin" >/dev/null 2>"$WORK/err" ||
    fail "reference run failed"
run_np 2 advect "${args[@]}" --steps=30 --checkpoint="$WORK/c.ckpt" --checkpoint-every=12 \
    >/dev/null 2>"$WORK/err" || fail "checkpointing run failed"
grep -q "checkpoint of step 24 written" "$WORK/err" || fail "no checkpoint at step 24"
run_np 3 advect "${args[@]}" --steps=30 --checkpoint="$WORK/c.ckpt" --restart --dump="$WORK/re30.bin" \
    >/dev/null 2>"$WORK/err" || fail "restart failed"
grep -q "restarted from .* at step 24" "$WORK/err" || fail "restart did not say where it began"
if cmp -s "$WORK/ref30.bin" "$WORK/re30.bin"; then
    echo "ok: restart from step 24 on 3 ranks: the same bits as 30 steps on 2"
else
    fail "restart from a periodic checkpoint differs"
fi
# written by 2 field groups (2 ranks, automatic), restarted on 3 ranks of X-Y blocks above
# and here on 2 groups of 1 x 2 blocks
run_np 4 advect "${args[@]}" --steps=30 --pf=2 --px=1 --py=2 --checkpoint="$WORK/c.ckpt" --restart \
    --dump="$WORK/re30g.bin" >/dev/null 2>"$WORK/err" || fail "restart on 2 x 1 x 2 failed"
if cmp -s "$WORK/ref30.bin" "$WORK/re30g.bin"; then
    echo "ok: restart from step 24 on 2 field groups x 1 x 2 blocks: the same bits"
else
    fail "restart on 2 field groups x 1 x 2 blocks differs"
fi

# 1b. The answer CSV (--output): one row per field, the same bytes on 1 and 2 ranks
# (exact mass, order-free extremes), mass conserved to float32 rounding (periodic
# boundaries).
run_np 2 advect "${args[@]}" --steps=30 --output="$WORK/ans2.csv" >/dev/null 2>"$WORK/err" ||
    fail "answer run on 2 ranks failed"
run_np 1 advect "${args[@]}" --steps=30 --output="$WORK/ans1.csv" >/dev/null 2>"$WORK/err" ||
    fail "answer run on 1 rank failed"
expect_eq "answer rows (header + 2 fields)" "$(wc -l <"$WORK/ans2.csv")" 3
expect_eq "answer header" "$(head -n 1 "$WORK/ans2.csv")" "field,mass0,mass,mass_change,min,max,l1,l2,linf"
cmp -s "$WORK/ans1.csv" "$WORK/ans2.csv" && echo "ok: answer CSV identical on 1 and 2 ranks" ||
    fail "answer CSV differs between 1 and 2 ranks"
awk -F, 'NR > 1 && ($4 > 1e-5 || $4 < -1e-5) { bad = 1 } END { exit bad }' "$WORK/ans2.csv" &&
    echo "ok: mass change within 1e-5 (float32 fields)" || fail "mass not conserved in the answer CSV"

# 2. A real signal to the ranks of a run with no end in sight.
signal_case() {
    local sig=$1
    rm -f "$WORK/s.ckpt"
    "$MPIEXEC" -n 2 "${PREFLAGS[@]}" "$MUTIRAO" advect "${args[@]}" --steps=100000000 \
        --log-every=20 --checkpoint="$WORK/s.ckpt" >"$WORK/s-$sig.out" 2>"$WORK/s-$sig.err" &
    local pid=$!
    stop_when $pid "$WORK/s-$sig.err" "\\] step 20 " "$sig" \
        "$sig: the run never reached step 20" || return 0
    local rc=$RC
    expect_eq "SIG$sig: exit status" "$rc" 3
    local k
    k=$(grep -o 'checkpoint of step [0-9]* written' "$WORK/s-$sig.err" | awk '{print $4}')
    [ -n "$k" ] && [ -s "$WORK/s.ckpt" ] || { fail "SIG$sig: no checkpoint"; return; }
    local end=$((k + 17))
    run_np 1 advect "${args[@]}" --steps=$end --checkpoint="$WORK/s.ckpt" --restart --dump="$WORK/sr.bin" \
        >/dev/null 2>&1 || fail "SIG$sig: restart failed"
    run_np 2 advect "${args[@]}" --steps=$end --dump="$WORK/sref.bin" >/dev/null 2>&1 ||
        fail "SIG$sig: reference failed"
    if cmp -s "$WORK/sr.bin" "$WORK/sref.bin"; then
        echo "ok: SIG$sig stopped at step $k; restart on 1 rank to $end: the same bits"
    else
        fail "SIG$sig: restart from step $k differs"
    fi
}
signal_case USR1
signal_case TERM

# 3. HDF5 fields (when this build has parallel HDF5), read back with h5dump.
if grep -q "built without parallel HDF5" "$WORK/err"; then
    echo "ok: (this build has no parallel HDF5: field output not tested)"
elif ! command -v h5dump >/dev/null; then
    echo "ok: (no h5dump: apt-get install hdf5-tools)"
else
    run_np 3 advect "${args[@]}" --steps=10 --px=3 --py=1 --h5="$WORK/f" --output-steps=0,10 \
        --dump="$WORK/d10.bin" >/dev/null 2>"$WORK/err" || { cat "$WORK/err" >&2; fail "HDF5 run failed"; }
    h5dump -d /fields -b LE -o "$WORK/h10.bin" "$WORK/f000010.h5" >/dev/null 2>&1 ||
        fail "h5dump cannot read step 10"
    if cmp -s "$WORK/h10.bin" "$WORK/d10.bin"; then
        echo "ok: HDF5 step 10 (3 ranks) read back by h5dump equals the raw dump"
    else
        fail "HDF5 step 10 differs from the raw dump"
    fi
    dims=$(h5dump -H "$WORK/f000000.h5" | grep -o 'DATASPACE  SIMPLE { ( [0-9, ]* )' | head -1)
    expect_eq "HDF5 dataset shape (y, x, z, field)" "$dims" "DATASPACE  SIMPLE { ( 24, 24, 4, 2 )"
    h5dump -a /fields/step "$WORK/f000010.h5" | grep '(0): 10' >/dev/null || fail "HDF5 step attribute"
    ls "$WORK"/f*.tmp* >/dev/null 2>&1 && fail "HDF5 temporary files left behind"
fi

# 3b. NetCDF-CF (through rank 0) beside HDF5 in the same run, 3 ranks in 3 field
#     groups: ncdump's values (printed with 9 digits: float32 round-trips) equal
#     the raw dump, cell by cell; the coordinates are the cell centres; the XDMF
#     file describes the HDF5 dataset (shape, one hyperslab a field).
if grep -q "built without parallel HDF5" "$WORK/err" || ! command -v ncdump >/dev/null; then
    echo "ok: (no parallel HDF5 or no ncdump: NetCDF/XDMF output not tested)"
else
    nc=(--device=cpu --nx=16 --ny=12 --nz=3 --fields=3 --steps=6 --init=cosine --init-3d)
    run_np 3 advect "${nc[@]}" --pf=3 --nc="$WORK/n" --h5="$WORK/n" --output-steps=6 \
        --dump="$WORK/n6.bin" >/dev/null 2>"$WORK/err" || { cat "$WORK/err" >&2; fail "NetCDF run failed"; }
    ncdump -p 9,17 "$WORK/n000006.nc" >"$WORK/n6.cdl" 2>&1 || fail "ncdump cannot read the NetCDF file"
    if python3 - "$WORK/n6.cdl" "$WORK/n6.bin" "$WORK/n000006.xmf" <<'PY'; then
import re, struct, sys
import xml.etree.ElementTree as ET
cdl, dump, xmf = open(sys.argv[1]).read(), open(sys.argv[2], "rb").read(), sys.argv[3]
nx, ny, nz, nf = 16, 12, 3, 3
raw = struct.unpack("<%df" % (nx * ny * nz * nf), dump)  # [y][x][z][field]
def values(name):
    body = re.search(r"\n %s =\s*(.*?);" % name, cdl, re.S).group(1)
    return [float(v) for v in body.replace("\n", " ").split(",")]
bad = []
for f in range(nf):
    got = values("field_%03d" % f)  # [time][z][y][x]
    want = [raw[((y * nx + x) * nz + z) * nf + f] for z in range(nz) for y in range(ny) for x in range(nx)]
    same = [struct.pack("<f", a) == struct.pack("<f", b) for a, b in zip(got, want)]
    if len(got) != len(want) or not all(same):
        bad.append("field %d: %d of %d values differ" % (f, same.count(False), len(want)))
for name, n in (("x", nx), ("y", ny), ("z", nz)):
    if values(name) != [(i + 0.5) / n for i in range(n)]:
        bad.append("coordinate %s is not the cell centres" % name)
if 'Conventions = "CF-1.8"' not in cdl:
    bad.append("no CF Conventions attribute")
grid = ET.parse(xmf).getroot().find("Domain/Grid")
if grid.find("Topology").get("Dimensions") != "%d %d %d" % (ny + 1, nx + 1, nz + 1):
    bad.append("XDMF topology %s" % grid.find("Topology").get("Dimensions"))
attrs = grid.findall("Attribute")
if len(attrs) != nf:
    bad.append("XDMF: %d attributes for %d fields" % (len(attrs), nf))
for f, a in enumerate(attrs):
    sel, data = a.findall("DataItem/DataItem")
    if sel.text.split()[3] != str(f) or data.text != "n000006.h5:/fields":
        bad.append("XDMF field %d: hyperslab %s of %s" % (f, sel.text, data.text))
    if data.get("Dimensions") != "%d %d %d %d" % (ny, nx, nz, nf):
        bad.append("XDMF field %d: dataset shape %s" % (f, data.get("Dimensions")))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
        echo "ok: NetCDF-CF of 3 field groups equals the raw dump; coordinates, CF, XDMF checked"
    else
        fail "NetCDF/XDMF output does not match the run"
    fi
    ls "$WORK"/n*.tmp* >/dev/null 2>&1 && fail "NetCDF temporary files left behind"
fi

# 4. Fields and winds from files: the analytic start dumped at step 0 and a
#    constant wind written face by face give the same final bits as the deck's.
small=(--device=cpu --nx=16 --ny=12 --nz=4 --fields=3 --bc-z=periodic --init=cosine --init-3d)
run_np 1 advect "${small[@]}" --steps=0 --dump="$WORK/init.bin" >/dev/null 2>&1 || fail "step-0 dump failed"
python3 - "$WORK/wind.bin" <<'PY'
import struct, sys
n = 16 * 12 * 4
open(sys.argv[1], "wb").write(struct.pack("<%df" % (3 * n), *([0.75] * n + [-0.5] * n + [0.25] * n)))
PY
run_np 2 advect "${small[@]}" --u=0.75 --v=-0.5 --w=0.25 --dt=0.01 --steps=20 --dump="$WORK/a.bin" \
    >/dev/null 2>&1 || fail "analytic run failed"
run_np 3 advect "${small[@]}" --px=1 --py=3 --init=file --init-file="$WORK/init.bin" --wind=file \
    --wind-file="$WORK/wind.bin" --dt=0.01 --steps=20 --dump="$WORK/b.bin" >/dev/null 2>"$WORK/err" ||
    { cat "$WORK/err" >&2; fail "file run failed"; }
if cmp -s "$WORK/a.bin" "$WORK/b.bin"; then
    echo "ok: --init=file and --wind=file reproduce the analytic run bit for bit"
else
    fail "fields or winds read from files differ from the analytic run"
fi

# 5. PNG slices and the summary.
run_np 2 advect "${args[@]}" --steps=5 --plot="$WORK/p-" --summary="$WORK/s.json" >/dev/null \
    2>"$WORK/err" || { cat "$WORK/err" >&2; fail "plot run failed"; }
for tag in start end; do
    if [ "$(head -c 4 "$WORK/p-$tag.png" 2>/dev/null | tail -c 3)" = PNG ]; then
        echo "ok: p-$tag.png is a PNG"
    else
        fail "p-$tag.png missing or not a PNG"
    fi
done
got=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); r=d['result']; print(r['steps'], r['fields'], r['schedule'])" "$WORK/s.json")
expect_eq "summary: steps fields schedule" "$got" "5 2 lines"
finish
