#!/usr/bin/env python3
"""Checks a perf/scaling.py result folder (tests/slurm/e2e_scaling.sh).

  scaling_check.py OUTDIR WORKLOADS STUDIES RANKS
(comma lists). Every expectation is computed here from the run summaries and
the lists, not read from the driver: one row per workload x study x rank
count, every one ok, efficiencies recomputed from step_s, step_s recomputed
from each summary, the problem sizes of a series checked against the strong
(same problem) and weak (same work per rank) rules, with repeats the fastest
run kept, and a PNG image.
"""
import csv
import glob
import json
import math
import os
import struct
import sys

REQUIRED = ["workload", "study", "nodes", "ranks", "gpus", "size", "wall_s", "step_s",
            "efficiency", "phase_setup_s", "phase_compute_s", "phase_wait_s", "phase_comm_s",
            "phase_transfer_s", "phase_io_s", "phase_other_s", "host_peak_mb_max",
            "host_peak_mb_mean", "device_peak_mb_max", "device_peak_mb_mean", "status", "exit_code", "message",
            "summary"]


def close(a, b, rel=1e-4):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def step_from_summary(w, s):
    """Time per step as the driver's documentation defines it, per workload."""
    ph = lambda n: s["phases"][n]["max_s"]
    opt = lambda n: s["options"][n]["value"]
    if w == "cg":  # the iterations alone, the solve's fixed part apart
        return s["iteration_seconds"]
    if w == "advect":
        return ph("advect: steps") / s["result"]["steps"]
    if w == "maxsub":
        return ph("prefix") + ph("pairs")
    if w == "fuzzy":
        return ph("fm")
    if w == "scenarios":
        return ph("tree") / (len(opt("tree").split(",")) - 1)
    raise ValueError(w)


def work_size(w, s):
    """What a weak series keeps per rank, from a summary: (quantity, the rest)."""
    res, opt = s["result"], lambda n: s["options"][n]["value"]
    if w == "cg":
        return res["n"], None
    if w == "advect":
        return res["fields"], res["cells"]
    if w == "maxsub":
        assert res["rows"] == res["cols"]
        return res["rows"], None
    if w == "fuzzy":
        return res["n"], None
    if w == "scenarios":
        return int(opt("m")), opt("tree")
    raise ValueError(w)


def weak_expected(w, q1, k):
    """The weak rule: rows, fields, M linear in K; maxsub n ~ K^(1/3) (O(n^3));
    fuzzy n ~ K^(1/2) (O(n^2))."""
    if w == "maxsub":
        return round(q1 * k ** (1 / 3))
    if w == "fuzzy":
        return round(q1 * math.sqrt(k))
    return q1 * k


def check_rows(rows, workloads, studies, ranks, bad):
    want = {(w, st, k) for w in workloads for st in studies for k in ranks}
    got = [(r["workload"], r["study"], int(r["ranks"])) for r in rows]
    if len(rows) != len(want) or set(got) != want:
        bad.append(f"{len(rows)} rows {sorted(got)}, expected the {len(want)} of {sorted(want)}")
    for r in rows:
        tag = f"{r['workload']} {r['study']} {r['ranks']}"
        if r["status"] != "ok" or r["exit_code"] != "0" or r["message"]:
            bad.append(f"{tag}: status {r['status']} exit {r['exit_code']} {r['message']!r}")
        if r["nodes"] != "1" or r["gpus"] != "0":
            bad.append(f"{tag}: nodes {r['nodes']} gpus {r['gpus']}, expected 1 and 0")


def check_series(rows, bad):
    series = {}
    for r in rows:
        series.setdefault((r["workload"], r["study"]), []).append(r)
    for (w, st), rs in series.items():
        rs.sort(key=lambda r: int(r["ranks"]))
        sums = []
        for r in rs:
            tag = f"{w} {st} {r['ranks']}"
            with open(r["summary"]) as f:
                s = json.load(f)
            sums.append(s)
            if s.get("command") != w or s.get("ranks") != int(r["ranks"]):
                bad.append(f"{tag}: summary of {s.get('command')} on {s.get('ranks')} ranks")
            t, wall = float(r["step_s"]), float(r["wall_s"])
            if not close(t, step_from_summary(w, s)):
                bad.append(f"{tag}: step_s {t}, summary gives {step_from_summary(w, s)}")
            for other in glob.glob(r["summary"].rsplit("_r", 1)[0] + "_r*.json"):
                with open(other) as f:  # --repeat: the row is the fastest step
                    if step_from_summary(w, json.load(f)) < t * (1 - 1e-4):
                        bad.append(f"{tag}: {other} has a faster step than the row's")
            if not close(wall, s["wall_seconds"]):
                bad.append(f"{tag}: wall_s {wall}, summary {s['wall_seconds']}")
            mem = s["memory"]["host_peak_bytes"]
            host = float(r["host_peak_mb_max"])
            if not close(host * 2**20, mem["max"]) or not 0 < mem["min"] <= mem["mean"] <= mem["max"]:
                bad.append(f"{tag}: host_peak_mb_max {host}, summary {mem}")
            phases = [float(r[f"phase_{c}_s"]) for c in
                      ("setup", "compute", "wait", "comm", "transfer", "io", "other")]
            if min(phases) < 0 or phases[1] <= 0 or sum(phases) < wall * (1 - 1e-4):
                bad.append(f"{tag}: phases {phases} against wall {wall}")
        t1, k1 = float(rs[0]["step_s"]), int(rs[0]["ranks"])
        q1, rest1 = work_size(w, sums[0])
        for r, s in zip(rs, sums):
            tag = f"{w} {st} {r['ranks']}"
            k, t, eff = int(r["ranks"]), float(r["step_s"]), float(r["efficiency"])
            want = t1 * k1 / (t * k) if st == "strong" else t1 / t
            if not close(eff, want, 1e-3):
                bad.append(f"{tag}: efficiency {eff}, recomputed {want:.6g}")
            if not 0 < eff <= 1.5:
                bad.append(f"{tag}: efficiency {eff} outside (0, 1.5]")
            q, rest = work_size(w, s)
            wq = q1 if st == "strong" else weak_expected(w, q1, k // k1)
            if q != wq or rest != rest1:
                bad.append(f"{tag}: size {q} {rest}, expected {wq} {rest1} ({st} scaling)")


def check_png(path, bad):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        bad.append(f"{path}: {e}")
        return
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        bad.append(f"{path}: not a PNG image")
        return
    width, height = struct.unpack(">II", data[16:24])
    if width < 400 or height < 400 or len(data) < 20000:
        bad.append(f"{path}: {width}x{height}, {len(data)} bytes: too small for the plots")


def main():
    outdir, workloads, studies, ranks = sys.argv[1:5]
    knob = sys.argv[5] if len(sys.argv) > 5 else None  # NAME=value set in every run's environment
    workloads, studies = workloads.split(","), studies.split(",")
    ranks = [int(k) for k in ranks.split(",")]
    bad = []
    with open(os.path.join(outdir, "scaling.csv"), newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
        rows = list(reader)
    for r in rows:  # the CSV names its run files relative to its own folder
        r["summary"] = os.path.join(outdir, r["summary"])
    if missing:
        sys.exit(f"scaling.csv lacks the columns {missing}")
    check_rows(rows, workloads, studies, ranks, bad)
    if not bad:
        check_series(rows, bad)
    if knob:
        bad += [f"{r['workload']} {r['study']} {r['ranks']}: knobs '{r.get('knobs')}', want {knob}"
                for r in rows if knob not in (r.get("knobs") or "").split(";")]
    check_png(os.path.join(outdir, "scaling.png"), bad)
    if bad:
        sys.exit("scaling_check: " + "\n  ".join(bad))
    print(f"scaling_check: ok: {len(rows)} rows, efficiencies, step times, sizes, PNG")


if __name__ == "__main__":
    main()
