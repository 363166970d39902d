#!/usr/bin/env python3
"""Independent check of a `mutirao scenarios` tree against the scenarios its
nodes generated (--node-scenarios): for every node with children, the
probability-weighted mean of its children's inflows against the plain mean of
the node's M generated scenarios, station by station, and the children's
probabilities against the group sizes they imply (multiples of 1/M).
   usage: scenarios_mean_check.py TREE.csv NODE_SCENARIOS.csv MODE
MODE: "mean"    every child mean within 1e-9 relative of the sample mean;
      "members" every child is one of the node's generated scenarios (the
                study's nearest form), reported with its mean difference.
Reads the files with numpy when it is there, else with the csv module."""
import csv
import sys

try:
    import numpy as np
except ImportError:  # pure Python: slower, the same sums
    np = None

TOL = 1e-9
tree = list(csv.DictReader(open(sys.argv[1])))
mode = sys.argv[3]
stations = [k for k in tree[0] if k not in
            ("node", "parent", "stage", "year", "month", "probability", "path_probability")]

scen = {}  # node -> list of rows (exact decimal text, for the members test, and floats)
with open(sys.argv[2]) as f:
    rd = csv.reader(f)
    head = next(rd)
    if head[2:] != stations:
        sys.exit("the two files name different stations")
    for r in rd:
        scen.setdefault(int(r[0]), []).append(r[2:])

kids = {}
for r in tree:
    p = int(r["parent"])
    if p >= 0:
        kids.setdefault(p, []).append(r)

bad, worst, checked, m = [], 0.0, 0, 0
for v, ch in sorted(kids.items()):
    if v not in scen:
        bad.append("node %d has children but no generated scenarios" % v)
        continue
    rows = scen[v]
    m = len(rows)
    if np is not None:
        x = np.array(rows, dtype=float)
        mean = x.mean(axis=0)
        prob = np.array([float(c["probability"]) for c in ch])
        q = np.array([[float(c[s]) for s in stations] for c in ch])
        wmean = prob @ q
    else:
        mean = [sum(float(r[j]) for r in rows) / m for j in range(len(stations))]
        prob = [float(c["probability"]) for c in ch]
        wmean = [sum(p * float(c[s]) for p, c in zip(prob, ch)) for s in stations]
    for p in prob:
        if abs(p * m - round(p * m)) > 1e-9 or round(p * m) < 1:
            bad.append("node %d: probability %r is not a group size over M=%d" % (v, p, m))
    for j, s in enumerate(stations):
        d = abs(wmean[j] - mean[j]) / max(abs(mean[j]), 1e-300)
        worst = max(worst, d)
        if mode == "mean" and d > TOL:
            bad.append("node %d station %s: children's mean %.17g, sample mean %.17g (%.3g)" %
                       (v, s, wmean[j], mean[j], d))
    if mode == "members":
        members = {tuple(float(t) for t in r) for r in rows}
        for c in ch:
            if tuple(float(c[s]) for s in stations) not in members:
                bad.append("node %s is not one of node %d's scenarios" % (c["node"], v))
    checked += 1

for b in bad[:10]:
    print(b)
print("%d nodes with children (M=%d), largest relative difference of a children's mean from "
      "the node's sample mean %.3g%s" % (checked, m, worst, " (numpy)" if np is not None else ""))
sys.exit(1 if bad or checked == 0 else 0)
