#!/usr/bin/env bash
# Job decks: one deck holds sections for two commands (and [mutirao] for
# both); each command reads its own and skips the other's, with the answers
# of the same options on the command line. Paths in the deck are taken from
# the deck's folder (run from another directory), paths on the command line
# from the working directory. Refused: an unknown section, a NUL byte, an
# over-long line, a directory or a FIFO as the deck, each by file (and line).
source "$(dirname "$0")/lib.sh"

mkdir -p "$WORK/decks/data" "$WORK/elsewhere"
cp "$SRCDIR/inputs/maxsub/study_1d.txt" "$WORK/decks/data/values.txt"
cat >"$WORK/decks/two.ini" <<'INI'
; two commands in one deck
[mutirao]
device = cpu
[cg]
poisson = 2d5
nx = 7
output = cg_x.txt
[maxsub]
input = data/values.txt
output = maxsub.csv
INI

cd "$WORK/elsewhere"
run_np 2 maxsub --config=../decks/two.ini >"$WORK/ms_deck.out" 2>"$WORK/err" ||
    { cat "$WORK/err" >&2; fail "maxsub from the two-command deck"; }
run_np 2 cg --config=../decks/two.ini >"$WORK/cg_deck.out" 2>"$WORK/err" ||
    { cat "$WORK/err" >&2; fail "cg from the two-command deck"; }
run_np 2 maxsub --device=cpu --input="$SRCDIR/inputs/maxsub/study_1d.txt" \
    --output="$WORK/ms_cl.csv" >"$WORK/ms_cl.out" 2>/dev/null || fail "maxsub, command line"
run_np 2 cg --device=cpu --poisson=2d5 --nx=7 --output="$WORK/cg_cl.txt" >"$WORK/cg_cl.out" \
    2>/dev/null || fail "cg, command line"
for f in maxsub.csv cg_x.txt; do
    [ -f "$WORK/decks/$f" ] || fail "the deck's output $f is not in the deck's folder"
    [ ! -e "$WORK/elsewhere/$f" ] || fail "the deck's output $f went to the working directory"
done
cmp -s "$WORK/decks/maxsub.csv" "$WORK/ms_cl.csv" && echo "ok: maxsub from the deck = command line" ||
    fail "maxsub: the deck's answer differs"
cmp -s "$WORK/decks/cg_x.txt" "$WORK/cg_cl.txt" && echo "ok: cg from the deck = command line" ||
    fail "cg: the deck's solution differs"
cmp -s "$WORK/ms_deck.out" "$WORK/ms_cl.out" || fail "maxsub: the deck's answer line differs"
# (cg's line but its time per iteration)
expect_eq "cg's answer line from the deck" "$(sed 's/ time_per_it=[^ ]*//' "$WORK/cg_deck.out")" \
    "$(sed 's/ time_per_it=[^ ]*//' "$WORK/cg_cl.out")"
# A path on the command line stays relative to the working directory.
run_np 1 maxsub --config=../decks/two.ini --output=cl.csv >/dev/null 2>&1 || fail "--output=cl.csv"
[ -f "$WORK/elsewhere/cl.csv" ] && echo "ok: a command-line path is from the working directory" ||
    fail "--output=cl.csv is not in the working directory"
cmp -s "$WORK/elsewhere/cl.csv" "$WORK/ms_cl.csv" || fail "--output=cl.csv: another answer"
cd "$WORK"

M=("$MPIEXEC" -n 2 "${PREFLAGS[@]}" "$MUTIRAO" maxsub --n=10)
printf '[maxsub]\nn = 10\n[cgg]\nnx = 4\n' >"$WORK/sec.ini"
check_failure "unknown section" "sec.ini:3: unknown section [cgg]" nonzero "$WORK/none" \
    "${M[@]}" --config="$WORK/sec.ini"
printf '[maxsub]\nseed = 4\x00\n' >"$WORK/nul.ini"
check_failure "NUL byte in a deck" "nul.ini:2: NUL byte" nonzero "$WORK/none" \
    "${M[@]}" --config="$WORK/nul.ini"
{ printf '[maxsub]\nseed = 4\n; '; head -c 300 /dev/zero | tr '\0' x; printf '\n'; } >"$WORK/long.ini"
check_failure "over-long deck line" "long.ini:3: line of 302 bytes" nonzero "$WORK/none" \
    "${M[@]}" --config="$WORK/long.ini"
mkdir "$WORK/dir.ini"
check_failure "directory as deck" "is a directory" nonzero "$WORK/none" \
    "${M[@]}" --config="$WORK/dir.ini"
mkfifo "$WORK/fifo.ini"
check_failure "FIFO as deck" "FIFO" nonzero "$WORK/none" "${M[@]}" --config="$WORK/fifo.ini"
finish
