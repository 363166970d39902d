#!/bin/bash
# The manuals against the binary: every option that `mutirao <command> --help`
# lists is named as --<option> in docs/<command>.md, for each command of
# `mutirao --help` (info aside: it has no options of its own), and the options
# every command takes are named in docs/running.md, where they are documented.
# A failure names the command, the option and the page to add it to.
source "$(dirname "$0")/lib.sh"
SRC=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}

# named PAGE OPTION: PAGE holds --OPTION, not only as the start of a longer name.
named() { grep -qE -- "--$2([^A-Za-z0-9-]|\$)" "$1"; }

run_np 1 --help >"$WORK/main" 2>"$WORK/main.err" ||
    { cat "$WORK/main.err" >&2; fail "mutirao --help"; finish; }
commands=$(sed -n '/^commands:/,/^$/s/^  \([a-z0-9-]*\) .*/\1/p' "$WORK/main" |
    grep -vx info || true)
common=$(sed -n '/^options every command takes:/,/^$/s/^  --\([a-z0-9-]*\).*/\1/p' "$WORK/main")
[ -n "$commands" ] || fail "no command found in mutirao --help"
[ -n "$common" ] || fail "no common option found in mutirao --help"

missing=0
for o in $common; do
    named "$SRC/docs/running.md" "$o" && continue
    fail "common option --$o is not in docs/running.md"
    missing=$((missing + 1))
done
if [ $missing -eq 0 ]; then echo "ok: the common options ($(echo $common)) in docs/running.md"; fi

for c in $commands; do
    page=$SRC/docs/$c.md
    if [ ! -f "$page" ]; then
        fail "$c: no page docs/$c.md"
        continue
    fi
    run_np 1 "$c" --help >"$WORK/$c" 2>"$WORK/$c.err" ||
        { cat "$WORK/$c.err" >&2; fail "mutirao $c --help"; continue; }
    opts=$(sed -n 's/^  --\([a-z0-9-]*\).*/\1/p' "$WORK/$c")
    [ -n "$opts" ] || { fail "$c: no option in mutirao $c --help"; continue; }
    n=0 missing=0
    for o in $opts; do
        grep -qx "$o" <<<"$common" && continue
        n=$((n + 1))
        named "$page" "$o" && continue
        fail "$c: option --$o is not in docs/$c.md"
        missing=$((missing + 1))
    done
    if [ $missing -eq 0 ]; then echo "ok: $c: its $n options in docs/$c.md"; fi
done
finish
