#!/usr/bin/env python3
"""Independent reference for maxsub tests, written from the rules stated
here (and in docs/maxsub.md), not from the C code.

1-D: the largest sum, then the smallest end, then the largest start; with
--empty=allowed only positive sums count and otherwise the answer is empty.
2-D: pairs over the smaller dimension (columns unless there are more columns
than rows); the largest sum, then the first pair in lexicographic order, then
the 1-D rule inside the strip.

usage: ref_maxsub.py 1d FILE allowed|forbidden      -> "sum,start,end"
       ref_maxsub.py 2d FILE allowed|forbidden      -> "sum,row0,row1,col0,col1"
       ref_maxsub.py gen1d FILE.bin N SEED           (writes random int32 values)
"""
import random
import struct
import sys


def best_1d(x, allowed):
    """O(n^2) enumeration with the key spelled out."""
    best = None
    for j in range(len(x)):
        s = 0
        for i in range(j, -1, -1):
            s += x[i]
            if allowed and s <= 0:
                continue
            key = (s, -j, i)
            if best is None or key > best[0]:
                best = (key, s, i, j)
    if best is None:
        return (0, -1, -1)
    return (best[1], best[2], best[3])


def kadane_1d(x, allowed):
    """Linear reference for long inputs, same rule as best_1d."""
    if allowed:
        best, bs, be, run, start = 0, -1, -1, 0, 0
        for i, v in enumerate(x):
            if run + v > 0:
                if run == 0:
                    start = i
                run += v
            else:
                run = 0
            if run > best:
                best, bs, be = run, start, i
        return (best, bs, be)
    best, bs, be, run, start = None, -1, -1, 0, 0
    for i, v in enumerate(x):
        if i == 0 or run <= 0:
            run, start = v, i
        else:
            run += v
        if best is None or run > best:
            best, bs, be = run, start, i
    return (best, bs, be)


def best_2d(k, allowed):
    rows, cols = len(k), len(k[0])
    transposed = cols > rows
    if transposed:
        k = [list(r) for r in zip(*k)]
        rows, cols = cols, rows
    best = None
    for g in range(cols):
        strip = [0] * rows
        for h in range(g, cols):
            for i in range(rows):
                strip[i] += k[i][h]
            s, r0, r1 = kadane_1d(strip, allowed)
            if allowed and s <= 0:
                continue
            if best is None or s > best[0]:
                best = (s, r0, r1, g, h)
    if best is None:
        return (0, -1, -1, -1, -1)
    s, r0, r1, g, h = best
    return (s, g, h, r0, r1) if transposed else (s, r0, r1, g, h)


def read_ints(path):
    with open(path) as f:
        return [[int(t) for t in line.split("#")[0].split()] for line in f if line.split("#")[0].split()]


def main():
    mode = sys.argv[1]
    if mode == "gen1d":
        rnd = random.Random(int(sys.argv[4]))
        n = int(sys.argv[3])
        with open(sys.argv[2], "wb") as f:
            f.write(struct.pack("<%di" % n, *[rnd.randint(-50, 50) for _ in range(n)]))
        return
    allowed = sys.argv[3] == "allowed"
    path = sys.argv[2]
    if mode == "1d":
        if path.endswith(".bin"):
            data = open(path, "rb").read()
            x = list(struct.unpack("<%di" % (len(data) // 4), data))
        else:
            x = [v for row in read_ints(path) for v in row]
        r = best_1d(x, allowed) if len(x) <= 400 else kadane_1d(x, allowed)
    else:
        r = best_2d(read_ints(path), allowed)
    print(",".join(str(v) for v in r))


if __name__ == "__main__":
    main()
