#!/usr/bin/env python3
"""The study's accuracy table (Table 5.11) for `mutirao fuzzy`: the
sequential (exact) run against the partitioned runs with p = 1, 2, 4, 8 on the
same data, as a Markdown table.

    fuzzy_accuracy.py MUTIRAO [--np=N] [--mpiexec=mpiexec] [--device=cpu|gpu] -- ARGS...

ARGS go to every run (the data: --gen=schools --n=40646, --input=FILE, ...).
Accuracy, as the study measured it: harden each run (argmax membership) and
count the objects whose partitioned group maps to their exact group; the map
sends each partitioned group to the exact group holding most of its objects
(purity). Also the adjusted Rand index (no map needed), the final prototype
count, and how far the final prototypes moved (largest distance from a
partitioned prototype to the nearest exact one, in units of 1/r).
"""
import csv
import math
import os
import subprocess
import sys
import tempfile
from collections import Counter


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        sys.exit("fuzzy_accuracy: %s failed (%d)" % (" ".join(cmd), p.returncode))
    return p.stdout


def load(prefix):
    with open(prefix + "labels.csv", newline="") as f:
        labels = [int(row[1]) for row in list(csv.reader(f))[1:]]
    with open(prefix + "prototypes.csv", newline="") as f:
        rows = list(csv.reader(f))
    nf = len(rows[0]) - 3
    protos = [[float(v) for v in row[1:1 + nf]] for row in rows[1:]]
    return labels, protos


def purity(a, b):
    pairs = Counter(zip(a, b))
    best = {}
    for (ga, gb), c in pairs.items():
        best[ga] = max(best.get(ga, 0), c)
    return sum(best.values()) / len(a)


def ari(a, b):
    n = len(a)
    comb = lambda k: k * (k - 1) / 2
    sij = sum(comb(c) for c in Counter(zip(a, b)).values())
    sa = sum(comb(c) for c in Counter(a).values())
    sb = sum(comb(c) for c in Counter(b).values())
    expected = sa * sb / comb(n)
    top = 0.5 * (sa + sb)
    return 1.0 if top == expected else (sij - expected) / (top - expected)


def main(argv):
    if "--" not in argv or len(argv) < 3:
        sys.exit(__doc__)
    cut = argv.index("--")
    mutirao, opts, args = argv[1], argv[2:cut], argv[cut + 1:]
    np_, mpiexec, device = "1", "mpiexec", "cpu"
    for o in opts:
        k, _, v = o.partition("=")
        if k == "--np":
            np_ = v
        elif k == "--mpiexec":
            mpiexec = v
        elif k == "--device":
            device = v
        else:
            sys.exit("fuzzy_accuracy: unknown option " + o)
    work = tempfile.mkdtemp(prefix="fuzzy_accuracy.")
    runs = [("exact", ["--mode=exact"])] + [
        ("p=%d" % p, ["--mode=partitioned", "--partitions=%d" % p]) for p in (1, 2, 4, 8)]
    got = {}
    r = None
    for name, mode in runs:
        prefix = os.path.join(work, name + "-")
        out = run([mpiexec, "-n", np_, mutirao, "fuzzy", "--device=" + device,
                   "--output-prefix=" + prefix] + mode + args)
        line = [l for l in out.splitlines() if l.startswith("fuzzy: ")][0]
        fields = dict(f.split("=", 1) for f in line.split()[1:] if "=" in f)
        r = float(fields["r"])
        got[name] = load(prefix) + (int(fields["raw"]),)
    ref_labels, ref_protos, _ = got["exact"]
    print("| run | raw prototypes | final prototypes | accuracy vs exact (purity) | ARI vs exact "
          "| prototypes moved (1/r) |")
    print("|---|---|---|---|---|---|")
    for name, _ in runs:
        labels, protos, raw = got[name]
        moved = max(min(math.dist(p, q) for q in ref_protos) for p in protos) * r
        print("| %s | %d | %d | %.2f %% | %.6f | %.3g |" % (
            "exact (sequential)" if name == "exact" else "partitioned " + name, raw, len(protos),
            100 * purity(labels, ref_labels), ari(labels, ref_labels), moved))
    print("\nr = %.10g; data: %s; %s ranks, --device=%s" % (r, " ".join(args), np_, device))


if __name__ == "__main__":
    main(sys.argv)
