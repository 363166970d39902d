#!/usr/bin/env bash
# Bad input gets one clear message naming the file, the line, the station and
# the month, a non-zero exit on every rank, no hang, and no output file.
source "$(dirname "$0")/lib.sh"

bad() { # NAME PATTERN ARGS...: 3 ranks, a tree (or the mode in $MODE)
    local name=$1 pattern=$2
    shift 2
    rm -rf "$WORK/out" "$WORK/s.json"
    mkdir -p "$WORK/out"
    bad_on_3 "$name" "$pattern" nonzero "$WORK/out/*" scenarios "${MODE:---tree=1,3}" --m=32 \
        --output="$WORK/out/t.csv" --model="$WORK/out/m.json" --stats="$WORK/out/s.csv" \
        --summary="$WORK/s.json" "$@"
    failure_summary "$name" "$WORK/s.json"
}

# A good record: 12 years of two stations.
python3 - "$WORK" <<'PY'
import sys
w = sys.argv[1]
rows = ["year,month,a,b"]
for y in range(1950, 1962):
    for m in range(1, 13):
        rows.append("%d,%d,%d,%d" % (y, m, 100 + m + (y * 7 + m * 3) % 11, 90 + 2 * m + (y * 5 + m) % 13))
open(w + "/ok.csv", "w").write("\n".join(rows) + "\n")
def variant(name, fn):
    r = list(rows)
    fn(r)
    open(w + "/" + name, "w").write("\n".join(r) + "\n")
variant("gap.csv", lambda r: r.pop(40))                       # 1953-04 missing
variant("order.csv", lambda r: r.__setitem__(40, r[40].replace("1953,4,", "1953,2,")))
variant("neg.csv", lambda r: r.__setitem__(30, r[30].replace(",", ",-", 3).replace(",-", ",", 2)))
variant("short_row.csv", lambda r: r.__setitem__(30, "1952,6,101"))
variant("empty_cell.csv", lambda r: r.__setitem__(30, "1952,6,,99"))
variant("short.csv", lambda r: r.__delitem__(slice(61, None)))   # 5 years
def zv(r):
    for i in range(1, len(r)):
        y, m, a, b = r[i].split(",")
        if m == "3":
            r[i] = ",".join([y, m, a, "77"])
variant("zerovar.csv", zv)
variant("partial.csv", lambda r: r.pop())                       # ends in November
PY

# A comb too large for rank 0's memory, refused before allocating: one message,
# status 1 on every rank and none left waiting in a collective (they used to
# return 0 and hang).
rm -rf "$WORK/out" && mkdir -p "$WORK/out"
check_failure "comb beyond memory" "the comb needs 1.79e+03 GiB on rank 0, more than the" nonzero "$WORK/out/*" \
    "$MPIEXEC" -n 3 "${PREFLAGS[@]}" "$MUTIRAO" scenarios --device=cpu --input="$WORK/ok.csv" \
    --mode=comb --series=100000000 --horizon=1200 --output="$WORK/out/c.csv" || true
bad_missing input input "$WORK/nope.csv"
bad "no input" "no input: give --input=FILE" --tree=1,3
bad_files input <<'EOF'
gap | gap.csv:41 | gap in the record: 1953-05 follows 1953-03 (1953-04 is missing)
months out of order | order.csv:41 | months out of order: 1953-02 after 1953-03
negative inflow | neg.csv:31 | station b, 1952-06: negative inflow
short row | short_row.csv:31 | 3 field(s), expected 4
empty cell | empty_cell.csv:31 | station a, 1952-06: no value (a gap in the record)
short record | short.csv | short record: 5 year(s), the fit needs at least 10
zero variance | zerovar.csv:4 | station b has zero variance in month 3 (77 in every year)
partial year | partial.csv:144 | the record ends in 1961-11: it must end in December
EOF
bad_file "unknown station" input ok.csv:1 "--stations: no column 'zz' in the header" --stations=a,zz
bad "bad tree" "--tree=2,30: starts with 1 (the root)" --input="$WORK/ok.csv" --tree=2,30
bad "bad tree text" "--tree=1,x: expected positive integers" --input="$WORK/ok.csv" --tree=1,x
# 64 stages wrote past the tree's arrays of stage offsets and openings.
stages64="1$(printf ',1%.0s' $(seq 64))"
bad "64 stages" "--tree=$stages64: expected positive integers separated by commas, e.g. \
1,30,200 (at most 63 stages)" --input="$WORK/ok.csv" --tree="$stages64"
# Generated sizes (issue 48): the tree's nodes multiplied with overflow checks,
# and a tree no rank can hold refused before the fit and any output, naming
# --tree and --m.
bad "tree over the memory" "--tree=1,1000000,1000000 --m=32 with " --input="$WORK/ok.csv" \
    --tree=1,1000000,1000000
bad "tree of over 2^63 nodes" "--tree=1,1000000,1000000,1000000,1000000: over 2^63 nodes" \
    --input="$WORK/ok.csv" --tree=1,1000000,1000000,1000000,1000000
bad "bad start" "--start=2030-01: the record (1950-01 to 1961-12) must hold" \
    --input="$WORK/ok.csv" --start=2030-01
bad "bad pmax" "--pmax=13: must be 1..12" --input="$WORK/ok.csv" --pmax=13
bad "bad method" "expects one of hw|v2" --input="$WORK/ok.csv" --method=lloyd
bad "comb options in tree mode" "--series goes with --mode=comb" --input="$WORK/ok.csv" --series=10
bad "horizon in tree mode" "--horizon goes with --mode=comb or --mode=openings" \
    --input="$WORK/ok.csv" --horizon=10
bad "openings in tree mode" "--openings goes with --mode=openings" --input="$WORK/ok.csv" \
    --openings=10
MODE=--mode=openings bad "no openings" "--openings=0: must be 1..M (--m=32)" \
    --input="$WORK/ok.csv" --openings=0
MODE=--mode=openings bad "more openings than scenarios" "--openings=33: must be 1..M (--m=32)" \
    --input="$WORK/ok.csv" --openings=33
bad "a tree in openings mode" "--tree goes with --mode=tree" --input="$WORK/ok.csv" \
    --mode=openings
MODE=--mode=openings bad "a checkpoint in openings mode" \
    "--restart and --checkpoint-every go with --mode=tree" --input="$WORK/ok.csv" \
    --checkpoint-every=1
MODE=--mode=openings bad "openings before the record's second year" \
    "--mode=openings: stage 2's past ends" --input="$WORK/ok.csv" --start=1950-08
bad "lognormal correlation in comb mode" "--corr=lognormal goes with --mode=tree" \
    --input="$WORK/ok.csv" --mode=comb --corr=lognormal
bad "output in a missing directory" "cannot write '$WORK/nodir/t.json'" --input="$WORK/ok.csv" \
    --output-json="$WORK/nodir/t.json"
bad_no_gnuplot --input="$WORK/ok.csv" --plot="$WORK/out/p.png"
# Hostile files (issue 19): a header of 200000 stations (3 MB, quadratic before:
# 0.8 MB took 1.8 s) is read in linear time (10 s bound); a CR-only file of
# 5.4 MB is one line over the 4 MiB limit; too many columns; underflow; NUL;
# non-regular files.
python3 - "$WORK" <<'PY'
import sys
w = sys.argv[1]
open(w + "/widehdr.csv", "w").write("year,month," + ",".join("station%07d" % i for i in range(200000)) + "\n")
open(w + "/fields.csv", "w").write("year,month" + ",s" * 300000 + "\n")
row = ",".join(["1234.5678"] * 40)
lines = ["year,month," + ",".join("s%d" % i for i in range(40))]
lines += ["%d,%d,%s" % (y, m, row) for y in range(1000, 1000 + 1100) for m in range(1, 13)]
open(w + "/cr.csv", "w", newline="").write("\r".join(lines) + "\r")
PY
printf 'year,month,a\n1950,1,1e-400\n' >"$WORK/tiny.csv"
WRAP=(timeout 10)
bad_file "wide header in linear time" input widehdr.csv "short record: 0 year(s)"
bad_file "CR-only line endings" input cr.csv:1 "line longer than 4194304 bytes (lines that end in CR only? use LF or CR LF)"
bad_file "too many columns" input fields.csv:1 "300002 fields: at most 262144 columns are supported"
WRAP=()
bad_file "underflow" input tiny.csv:2 "station a, 1950-01: '1e-400' is below the smallest normal double"
bad_nul "NUL byte" nul.csv 2 9 'year,month,a\n1950,1,5\0,6\n' input
bad_directory input input
# A 1e300 inflow of station p001 (issue 48) overflowed the fit's squares, and
# the fit blamed other stations ("p002, ... are a linear combination"), exit
# 0: refused at its own station and line.
python3 - "$SRCDIR/inputs/scenarios/ons_inflows_64.csv" "$WORK/huge.csv" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
row = lines[100].split(",")   # line 101: 1939-04
assert lines[0].split(",")[2] == "p001" and row[:2] == ["1939", "4"]
row[2] = "1e300"
lines[100] = ",".join(row)
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
PY
bad_file "1e300 inflow" input huge.csv:101 "station p001, 1939-04: inflow 1e300 is too large"
finish
