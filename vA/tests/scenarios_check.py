#!/usr/bin/env python3
"""Checks of a `mutirao scenarios` tree CSV: every inflow >= 0 and finite, the
children of every node have probabilities summing to 1, path probabilities are
the products along the path, the leaves' sum to 1, node ids are in order and
parents come first.   usage: scenarios_check.py TREE.csv"""
import csv
import math
import sys

rows = list(csv.DictReader(open(sys.argv[1])))
stations = [k for k in rows[0] if k not in
            ("node", "parent", "stage", "year", "month", "probability", "path_probability")]
kids = {}
pp = {}
low = math.inf
bad = []
for i, r in enumerate(rows):
    v, p = int(r["node"]), int(r["parent"])
    if v != i:
        bad.append("node %d on row %d" % (v, i))
    if p >= v:
        bad.append("node %d has parent %d" % (v, p))
    pp[v] = float(r["path_probability"])
    if p >= 0:
        kids.setdefault(p, []).append(float(r["probability"]))
        if abs(pp[v] - pp[p] * float(r["probability"])) > 1e-15:
            bad.append("node %d: path probability" % v)
    for s in stations:
        q = float(r[s])
        if not math.isfinite(q) or q < 0:
            bad.append("node %d station %s: inflow %s" % (v, s, r[s]))
        low = min(low, q)
worst = max(abs(sum(k) - 1) for k in kids.values())
if worst > 1e-12:
    bad.append("children's probabilities sum to 1 within %.3g only" % worst)
leaves = [v for v in pp if v not in kids]
lsum = sum(pp[v] for v in leaves)
if abs(lsum - 1) > 1e-12:
    bad.append("leaf probabilities sum to %.15f" % lsum)
for b in bad[:10]:
    print(b)
print("%d nodes, %d leaves, smallest inflow %.4g, children's probability sums within %.2g of 1" %
      (len(rows), len(leaves), low, worst))
sys.exit(1 if bad else 0)
