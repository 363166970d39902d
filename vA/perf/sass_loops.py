#!/usr/bin/env python3
"""Static size of the loops of CUDA kernels, for comparing builds of a kernel.

Reads `cuobjdump -sass OBJ` (or `nvdisasm` output, or PTX from `nvcc -ptx`)
and prints, per kernel whose name matches PATTERN, its instruction count and
each loop's: the instructions from a backward branch's target to the branch
(a loop body with all its paths, so an upper bound on one trip's count).
Usage: sass_loops.py FILE [PATTERN]   (PATTERN: a Python regex; default: the
advect chain kernels).
"""
import re
import sys


def kernels(lines):
    sass = any(re.match(r"\s*/\*[0-9a-f]{4}\*/", l) for l in lines)
    cur = None
    for l in lines:
        s = l.strip()
        m = re.match(r"Function : (\S+)", s) if sass else re.match(r"(?:\.visible |\.weak )?\.entry (\S+)\(", s)
        if m:
            cur = (m.group(1), [])
            yield cur
            continue
        if cur is None:
            continue
        if sass:
            lab = re.match(r"(\.L\w+):", s)
            if lab:
                cur[1].append(("L", lab.group(1), None))
                continue
            ins = re.match(r"/\*([0-9a-f]{4,})\*/\s+(.*?);", s)
            if ins:
                addr, text = int(ins.group(1), 16), ins.group(2)
                tgt = None
                if re.search(r"\bBRA\b", text):
                    t = re.search(r"`\((\.L\w+)\)", text) or re.search(r"\b0x([0-9a-f]+)\s*$", text)
                    if t:
                        tgt = t.group(1) if t.group(1).startswith(".L") else int(t.group(1), 16)
                cur[1].append(("I", addr, tgt))
        else:
            lab = re.match(r"(\$L__\w+):", s)
            if lab:
                cur[1].append(("L", lab.group(1), None))
            elif s.endswith(";") and not s.startswith((".", "//")):
                t = re.search(r"\bbra(?:\.uni)?\s+(\$L__\w+);", s)
                cur[1].append(("I", None, t.group(1) if t else None))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    pat = sys.argv[2] if len(sys.argv) > 2 else r"\dk_(local|backward|streams|unpack)[IE]"
    lines = open(sys.argv[1]).read().splitlines()
    for name, items in list(kernels(lines)):  # each kernel whole
        if not re.search(pat, name):
            continue
        label_at, addr_at, n, loops = {}, {}, 0, []
        for kind, a, tgt in items:
            if kind == "L":
                label_at[a] = n
                continue
            if a is not None:
                addr_at[a] = n
            n += 1
            start = label_at.get(tgt) if isinstance(tgt, str) else addr_at.get(tgt)
            if start is not None and start < n:
                loops.append(n - start)
        print(f"{name}\n    {n} instructions; loops (target..back branch): {loops}")


main()
