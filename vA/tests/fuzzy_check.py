#!/usr/bin/env python3
"""Checks on the CSV files `mutirao fuzzy --output-prefix=P` writes, for the
command-level tests. Each subcommand exits 0 when the check holds and prints
what it compared; otherwise it prints why and exits 1.

  fuzzy_check.py protos P WANT TOL        P + prototypes.csv holds the points of
                                          WANT ("x,y;x,y;...") in any order, each
                                          coordinate within TOL
  fuzzy_check.py count P K                exactly K prototypes
  fuzzy_check.py sizes P S1,S2,.. SLACK   hard-label sizes, sorted, each within SLACK
  fuzzy_check.py member P OBJ M1,M2 TOL   memberships of object OBJ (0-based), in
                                          prototype order
  fuzzy_check.py classes P SPEC           per prototype, the reference classes of
                                          its objects: SPEC "setosa:50|versicolor:50,
                                          virginica:29|virginica:21" (groups in any order)
  fuzzy_check.py same A B RTOL            prototypes and memberships of prefixes A and B
                                          agree within RTOL relative; labels identical
  fuzzy_check.py near A B PTOL MTOL SHARE the same number of prototypes, in order, each
                                          coordinate within PTOL; memberships within
                                          MTOL; at least SHARE of the labels the same
"""
import csv
import sys


def rows(path):
    with open(path, newline="") as f:
        r = list(csv.reader(f))
    return r[0], r[1:]


def protos(prefix):
    head, body = rows(prefix + "prototypes.csv")
    nf = len(head) - 3
    return [[float(v) for v in row[1:1 + nf]] for row in body], [int(row[1 + nf]) for row in body]


def fail(msg):
    print("fuzzy_check: " + msg)
    sys.exit(1)


def main(argv):
    cmd, prefix = argv[1], argv[2]
    if cmd == "protos":
        got, _ = protos(prefix)
        want = [[float(v) for v in p.split(",")] for p in argv[3].split(";")]
        tol = float(argv[4])
        if len(got) != len(want):
            fail("%d prototypes, want %d: %s" % (len(got), len(want), got))
        left = list(got)
        for w in want:
            best = min(left, key=lambda g: max(abs(a - b) for a, b in zip(g, w)))
            err = max(abs(a - b) for a, b in zip(best, w))
            if err > tol:
                fail("no prototype within %g of %s (closest %s)" % (tol, w, best))
            left.remove(best)
        print("prototypes %s within %g" % (["(" + ", ".join("%.6g" % v for v in g) + ")" for g in got], tol))
    elif cmd == "count":
        got, _ = protos(prefix)
        if len(got) != int(argv[3]):
            fail("%d prototypes, want %s" % (len(got), argv[3]))
        print("%d prototypes" % len(got))
    elif cmd == "sizes":
        _, sizes = protos(prefix)
        want = sorted(int(v) for v in argv[3].split(","))
        slack = int(argv[4])
        got = sorted(sizes)
        if len(got) != len(want) or any(abs(a - b) > slack for a, b in zip(got, want)):
            fail("group sizes %s, want %s (+-%d)" % (got, want, slack))
        print("group sizes %s" % got)
    elif cmd == "member":
        _, body = rows(prefix + "memberships.csv")
        got = [float(v) for v in body[int(argv[3])][1:]]
        want = [float(v) for v in argv[4].split(",")]
        tol = float(argv[5])
        if len(got) != len(want) or any(abs(a - b) > tol for a, b in zip(got, want)):
            fail("memberships of object %s: %s, want %s (+-%g)" % (argv[3], got, want, tol))
        print("memberships of object %s: %s" % (argv[3], ["%.5f" % v for v in got]))
    elif cmd == "classes":
        head, body = rows(prefix + "labels.csv")
        groups = {}
        for row in body:
            groups.setdefault(int(row[1]), {}).setdefault(row[3], 0)
            groups[int(row[1])][row[3]] += 1
        got = sorted(sorted(g.items()) for g in groups.values())
        want = sorted(sorted((c.split(":")[0], int(c.split(":")[1])) for c in g.split(","))
                      for g in argv[3].split("|"))
        if got != want:
            fail("classes per group %s, want %s" % (got, want))
        print("classes per group %s" % got)
    elif cmd == "same":
        other, rtol = argv[3], float(argv[4])
        for name in ("prototypes.csv", "memberships.csv"):
            ha, a = rows(prefix + name)
            hb, b = rows(other + name)
            if ha != hb or len(a) != len(b):
                fail("%s: shapes differ (%d vs %d rows)" % (name, len(a), len(b)))
            for ra, rb in zip(a, b):
                for x, y in zip(ra, rb):
                    x, y = float(x), float(y)
                    if abs(x - y) > rtol * max(abs(x), abs(y), 1e-300) and x != y:
                        fail("%s: %r vs %r beyond %g relative" % (name, x, y, rtol))
        if rows(prefix + "labels.csv") != rows(other + "labels.csv"):
            fail("labels differ")
        print("same prototypes and memberships (%g relative) and labels" % rtol)
    elif cmd == "near":
        other, ptol, mtol, share = argv[3], float(argv[4]), float(argv[5]), float(argv[6])
        pa, _ = protos(prefix)
        pb, _ = protos(other)
        if len(pa) != len(pb):
            fail("%d prototypes against %d" % (len(pa), len(pb)))
        dp = max((abs(x - y) for ra, rb in zip(pa, pb) for x, y in zip(ra, rb)), default=0.0)
        _, ma = rows(prefix + "memberships.csv")
        _, mb = rows(other + "memberships.csv")
        if len(ma) != len(mb):
            fail("memberships: %d rows against %d" % (len(ma), len(mb)))
        dm = max((abs(float(x) - float(y)) for ra, rb in zip(ma, mb) for x, y in zip(ra[1:], rb[1:])),
                 default=0.0)
        _, la = rows(prefix + "labels.csv")
        _, lb = rows(other + "labels.csv")
        same = sum(1 for ra, rb in zip(la, lb) if ra[1] == rb[1]) / max(len(la), 1)
        msg = "%d prototypes, largest difference %.3g (limit %.3g); memberships %.3g (limit %.3g); " \
              "labels %.5f the same (at least %g)" % (len(pa), dp, ptol, dm, mtol, same, share)
        if dp > ptol or dm > mtol or same < share:
            fail(msg)
        print(msg)
    else:
        fail("unknown check " + cmd)


if __name__ == "__main__":
    main(sys.argv)
