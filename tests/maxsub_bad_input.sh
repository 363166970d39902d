#!/usr/bin/env bash
# Bad input gets one clear message naming what is wrong and where, a non-zero
# exit on every rank (mpiexec returns non-zero if any rank does), no hang and no
# output file.
source "$(dirname "$0")/lib.sh"

# bad NAME PATTERN ARGS...: runs on 3 ranks; must fail, print PATTERN, leave no output.
bad() {
    local name=$1 pattern=$2
    shift 2
    rm -f "$WORK"/out.csv*
    bad_on_3 "$name" "$pattern" nonzero "$WORK/out.csv*" maxsub --output="$WORK/out.csv" "$@"
}

printf '1 2 3\n4 x5 6\n' > "$WORK/nonnum.txt"
printf '# only a comment\n\n' > "$WORK/empty.txt"
printf '1 2 3\n4 5\n' > "$WORK/ragged.txt"
printf '1 99999999999 3\n' > "$WORK/range.txt"
printf 'abcdefg' > "$WORK/odd.bin"
: > "$WORK/zero.bin"
head -c 400 /dev/zero > "$WORK/m100.bin"

bad_missing input input "$WORK/nope.txt"
bad_file "non-numeric text" input nonnum.txt:2 "'x5' is not an integer"
bad "empty text (n = 0)" "no values (n = 0)" --input="$WORK/empty.txt"
bad_file "value out of int32 range" input range.txt:1 "99999999999 is outside the int32 range"
bad "ragged matrix" "ragged.txt:2: row has 2 values, expected 3" --dim=2 --input="$WORK/ragged.txt"
bad "binary size not a multiple of 4" "is not a multiple of 4" --input="$WORK/odd.bin"
bad "empty binary (n = 0)" "empty file (n = 0)" --input="$WORK/zero.bin"
bad "binary matrix, wrong sizes" "holds 100 int32 values, but --rows=7 x --cols=9 needs 63" \
    --dim=2 --input="$WORK/m100.bin" --rows=7 --cols=9
bad "binary matrix without sizes" "needs --rows and --cols" --dim=2 --input="$WORK/m100.bin"
bad "generated n = 0" "--n=0: the length must be at least 1" --n=0
bad "no input at all" "no input" --dim=1
bad_unknown_option --bogus=1 --n=5
bad "bad choice" "expects one of allowed|forbidden" --n=5 --empty=maybe
bad "bad integer" "expects an integer, got 'lots'" --n=lots
bad "min above max" "min <= max" --n=5 --min=3 --max=1
bad_missing "job deck" config "$WORK/none.ini"
printf 'n = 10\nwhat = 3\n' > "$WORK/deck.ini"
bad_file "unknown deck key" config deck.ini:2 "unknown key 'what'"
# Hostile files (issue 19): a NUL byte ends no line silently; only regular
# files are read, as input or as job deck (a FIFO would block, so this is also
# a time bound).
mkfifo "$WORK/fifo"
bad_nul "NUL byte, 1-D" nul.txt 1 4 '1 2\0 3 4\n' input
bad_nul "NUL byte, 2-D" nul2.txt 2 4 '1 2\n3 4\0 5\n' input --dim=2
bad_directory input input
bad "directory as binary input" "$WORK/: is a directory (the input must be a regular file)" \
    --input="$WORK/" --format=bin
bad "FIFO as input" "$WORK/fifo: is a FIFO (named pipe) (the input must be a regular file)" \
    --input="$WORK/fifo"
bad_directory "FASTA file" fasta
# A NUL byte would cut a header's id or description short (strndup): refused
# on any line of a FASTA file, header or sequence.
bad_nul "NUL byte in a FASTA header" nul_head.fasta 1 4 '>p1\0hidden description\nACDEFGH\n' fasta
bad_nul "NUL byte in a FASTA sequence" nul_seq.fasta 2 5 '>p1 kinase\nACDE\0FGH\n' fasta
bad "FIFO as FASTA" "$WORK/fifo: is a FIFO (named pipe) (the FASTA file must be a regular file)" \
    --fasta="$WORK/fifo"
bad_directory "job deck" config
bad_device "job deck" config /dev/null
bad "output directory missing" "cannot write" --n=5 --output="$WORK/no/such/dir/out.csv"
bad "fasta and input together" "exclude each other" --input="$WORK/nonnum.txt" --fasta=x.fa
bad "unwritable summary" "cannot write" --n=5 --summary="$WORK/no/dir/s.json"
# Generated sizes (issue 48): a length no rank can hold is refused before any
# allocation, naming the option; 2-D sizes whose product overflows int64 too.
bad "generated n = 2^40, over the memory" "--n=1099511627776: " --n=2^40
bad "2-D sizes overflowing int64" \
    "--rows x --cols: a 4294967296 x 4294967296 matrix has over 2^60 values" \
    --dim=2 --rows=2^32 --cols=2^32
finish
