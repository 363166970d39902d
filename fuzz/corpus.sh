#!/usr/bin/env bash
# fuzz/corpus.sh BUILD OUT: the seed corpus of every target under OUT/<target>/:
# the bundled inputs of inputs/, a valid checkpoint written by each checkpoint
# target itself, and the inputs that once broke a reader (issue 19), made
# here so that the large ones need not sit in the repository.
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$1 out=$2
for t in mtx fuzzy_csv maxsub_text maxsub_bin fasta scenarios_csv advect_wind advect_init \
    advect_checkpoint cg_checkpoint fuzzy_checkpoint scenarios_checkpoint deck api; do
    mkdir -p "$out/$t"
done
cp "$src"/inputs/*/*.ini "$out/deck/"
cp "$src"/inputs/cg/{LF10,LFAT5,mesh1e1,nos1,494_bus}.mtx "$out/mtx/"
# The reader takes gzip streams by their magic: a whole one and a cut one.
gzip -c "$src/inputs/cg/LF10.mtx" >"$out/mtx/LF10.mtx.gz"
head -c 300 "$out/mtx/LF10.mtx.gz" >"$out/mtx/cut.mtx.gz"
cp "$src"/inputs/fuzzy/{faithful,iris,ruspini}.csv "$out/fuzzy_csv/"
cp "$src"/inputs/maxsub/study_{1d,2d}.txt "$out/maxsub_text/"
cp "$src"/inputs/maxsub/proteins.fasta "$out/fasta/"
# Three stations over 13 years keep the seed small and the checks reachable.
awk -F, -v OFS=, 'NR <= 157 { print $1, $2, $3, $4, $5 }' "$src/inputs/scenarios/ons_inflows_64.csv" \
    >"$out/scenarios_csv/ons5.csv"
# Binary seeds: int32 values; 72 and 48 float32 values of the advect targets' grid.
python3 - "$out" <<'PY'
import struct, sys
out = sys.argv[1]
open(f"{out}/maxsub_bin/small.bin", "wb").write(struct.pack("<8i", 3, -5, 7, 2, -9, 4, 0, 1))
open(f"{out}/advect_wind/wind.f32", "wb").write(struct.pack("<72f", *[0.25] * 72))
open(f"{out}/advect_init/init.f32", "wb").write(struct.pack("<48f", *[i / 48 for i in range(48)]))
PY
ASAN_OPTIONS=detect_leaks=0 MUTIRAO_FUZZ_SEED="$out/cg_checkpoint/valid.ckpt" "$build/fuzz/fuzz_cg_checkpoint" >/dev/null 2>&1
ASAN_OPTIONS=detect_leaks=0 MUTIRAO_FUZZ_SEED="$out/advect_checkpoint/valid.ckpt" "$build/fuzz/fuzz_advect_checkpoint" \
    >/dev/null 2>&1
for t in fuzzy_checkpoint scenarios_checkpoint; do
    ASAN_OPTIONS=detect_leaks=0 MUTIRAO_FUZZ_SEED="$out/$t/valid.ckpt" "$build/fuzz/fuzz_$t" >/dev/null 2>&1
    head -c 100 "$out/$t/valid.ckpt" >"$out/$t/truncated.ckpt"
done
# The library's calls: one seed a call (the first byte picks it), the rest zeros.
python3 - "$out/api" <<'PY'
import sys
for c in range(5):
    open(f"{sys.argv[1]}/call{c}.bin", "wb").write(bytes([c]) + bytes(400))
PY

# Issue 19's defects, each a regression input of its reader.
r=$out/fuzzy_csv
python3 - "$r" <<'PY'
import sys
r = sys.argv[1]
open(f"{r}/wide_2x2000.csv", "w").write("\n".join(" ".join(str(i * 7 % 13 + j) for i in range(2000)) for j in range(2)) + "\n")
open(f"{r}/nul.csv", "wb").write(b"1 2\x00 3 4\n5 6 7 8\n9 1 2 3\n")
open(f"{r}/huge_small.csv", "w").write("1e308 1\n1e-400 2\n3 4\n")
PY
printf '%%%%MatrixMarket matrix coordinate real symmetric\n100000000 100000000 1\n1 1 1.0\n' \
    >"$out/mtx/huge_rows.mtx"
printf '%%%%MatrixMarket matrix coordinate real symmetric\n2147483646 2147483646 1\n1 1 1.0\n' \
    >"$out/mtx/max_rows.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\x00 junk\n2 2 1.0\n' \
    >"$out/mtx/nul.mtx"
printf '1 2\0 3 4\n' >"$out/maxsub_text/nul.txt"
printf '1 2\n3 4\0\n' >"$out/maxsub_text/nul_2d.txt"
printf '>p1 desc\nACDE\0FGH\n' >"$out/fasta/nul.fasta"
printf '>p1\0hidden\nACDEFGH\n' >"$out/fasta/nul_header.fasta"
# A long header line (the parse was quadratic) and one line with CR endings only.
python3 - "$out/scenarios_csv" <<'PY'
import sys
r = sys.argv[1]
open(f"{r}/long_header.csv", "w").write("year,month," + ",".join(f"s{i}" for i in range(20000)) + "\n1990,1," + ",".join("1" for _ in range(20000)) + "\n")
open(f"{r}/cr_only.csv", "w").write("\r".join(["year,month,a"] + [f"{1990 + m // 12},{m % 12 + 1},{m + 1}" for m in range(240)]) + "\r")
PY
head -c 100 "$out/advect_wind/wind.f32" >"$out/advect_wind/truncated.f32"
head -c 100 "$out/cg_checkpoint/valid.ckpt" >"$out/cg_checkpoint/truncated.ckpt"
head -c 100 "$out/advect_checkpoint/valid.ckpt" >"$out/advect_checkpoint/truncated.ckpt"
