#!/usr/bin/env python3
"""Checks a `mutirao scenarios --mode=openings` CSV on its own: stages 1..H in
order, one calendar month after another; each stage's openings numbered 1..k,
with positive probabilities that add up to 1 (to 1e-12) and a common
denominator M (group sizes over the sample: every probability times the
smallest one's M is an integer); inflows finite, non-negative and distinct
between the openings of a stage. Prints a summary line; exit 1 on a failure."""
import csv
import math
import sys


def fail(msg):
    print(msg)
    sys.exit(1)


def main(path):
    rows = list(csv.reader(open(path)))
    head = rows[0]
    if head[:5] != ["stage", "year", "month", "opening", "probability"] or len(head) < 6:
        fail("unexpected header %s" % head[:6])
    stages = {}
    for r in rows[1:]:
        stages.setdefault(int(r[0]), []).append(r)
    if sorted(stages) != list(range(1, len(stages) + 1)):
        fail("stages are not 1..%d" % len(stages))
    worst, prev, total = 0.0, None, 0
    for t in sorted(stages):
        rs = stages[t]
        ym = {(int(r[1]), int(r[2])) for r in rs}
        if len(ym) != 1:
            fail("stage %d has several months" % t)
        y, m = ym.pop()
        if prev and (y * 12 + m) != prev + 1:
            fail("stage %d is not the month after stage %d" % (t, t - 1))
        prev = y * 12 + m
        if [int(r[3]) for r in rs] != list(range(1, len(rs) + 1)):
            fail("stage %d: openings not numbered 1..%d" % (t, len(rs)))
        p = [float(r[4]) for r in rs]
        if min(p) <= 0:
            fail("stage %d: a probability <= 0" % t)
        worst = max(worst, abs(math.fsum(p) - 1))
        # group sizes over one M: M is a multiple of 1/min(p); try the smallest that fits all
        base = round(1 / min(p))
        M = next((base * k for k in range(1, 10001)
                  if all(abs(x * base * k - round(x * base * k)) < 1e-6 for x in p)), None)
        if M is None:
            fail("stage %d: the probabilities have no common denominator" % t)
        vals = [tuple(float(v) for v in r[5:]) for r in rs]
        if any(not math.isfinite(v) or v < 0 for row in vals for v in row):
            fail("stage %d: an inflow that is negative or not finite" % t)
        if len(set(vals)) != len(vals):
            fail("stage %d: two openings with the same inflows" % t)
        total += len(rs)
    if worst > 1e-12:
        fail("a stage's probabilities add up to 1 %+.3g" % worst)
    print("%d stages, %d openings, largest |probability sum - 1| %.3g" % (len(stages), total, worst))


if __name__ == "__main__":
    main(sys.argv[1])
