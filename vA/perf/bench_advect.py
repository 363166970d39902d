#!/usr/bin/env python3
"""bench_advect: times `mutirao advect` itself, as a user runs it.

The command runs twice on the same deck, with --steps=S1 and --steps=S2
(default 10 and 90), each with --summary. From the summaries:
  set-up      the command's "advect: setup" phase: from the command's start
              (after MPI and device binding) to the first step: state, initial
              fields, winds, device copy, the step-0 log;
  finish      the "advect: finish" phase: the fields home, error norms, answer;
  step        the marginal wall time of a step, (steps phase at S2 - at S1) /
              (S2 - S1): what one more step costs in a run;
  device      the run's own device time of a step (CUDA events around its
              sweeps, summed over the run, rank 0), and step / device;
  floor       (GPU runs, with --floor=BIN: perf/advect_floor) the device floor
              of a step measured in the same run, and device / floor.
Prints one table; --csv=FILE appends a row per run.

  perf/bench_advect.py --mutirao=build/mutirao --launch="mpirun -n 1" \\
      --floor=build/perf/advect_floor -- --config=inputs/advect/paper.ini --device=gpu
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile


def run(args, extra, steps, tag, work):
    summary = os.path.join(work, f"{tag}-{steps}.json")
    cmd = shlex.split(args.launch) + [args.mutirao, "advect", *extra, f"--steps={steps}",
                                      f"--log-every={steps}", f"--summary={summary}"]
    with open(os.path.join(work, f"{tag}-{steps}.log"), "w") as log:
        rc = subprocess.call(cmd, stdout=log, stderr=subprocess.STDOUT)
    if rc != 0:
        sys.exit(f"bench_advect: {' '.join(cmd)} failed with status {rc} (log in {work})")
    with open(summary) as f:
        return json.load(f)


def phase(summary, name):
    return summary["phases"].get(name, {}).get("max_s", 0.0)


def floor(binary, s):
    res = s["result"]
    out = subprocess.run([binary, str(res["cells"]), "1", "1", str(res["fields"])],
                         capture_output=True, text=True, check=True).stdout
    vals = dict(line.split() for line in out.splitlines())
    return float(vals["d2d_bandwidth_gbs"]), float(vals["step_floor_s"])


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mutirao", default="build/mutirao")
    ap.add_argument("--launch", default="mpiexec -n 1", help="launcher and its options")
    ap.add_argument("--steps", default="10,90", help="the two step counts S1,S2")
    ap.add_argument("--floor", help="perf/advect_floor binary (GPU runs)")
    ap.add_argument("--tag", default="run", help="name of this configuration in the table")
    ap.add_argument("--csv", help="append the figures to this CSV")
    ap.add_argument("options", nargs="*", help="the command's options (after --)")
    args = ap.parse_args()
    s1, s2 = (int(x) for x in args.steps.split(","))
    with tempfile.TemporaryDirectory(prefix="bench_advect.") as work:
        a, b = (run(args, args.options, n, args.tag, work) for n in (s1, s2))
    step = (phase(b, "advect: steps") - phase(a, "advect: steps")) / (s2 - s1)
    dev = b.get("gpu_sweeps_s_rank0", 0.0) / s2
    row = {
        "tag": args.tag, "ranks": b.get("ranks", ""),
        "groups": b["result"].get("field_groups", ""),
        "setup_s": phase(b, "advect: setup"), "finish_s": phase(b, "advect: finish"),
        "step_s": step, "device_step_s": dev, "wall_s": b.get("wall_seconds", 0.0),
    }
    print(f"advect, {args.tag}: {' '.join(args.options)}")
    print(f"  set-up (start to first step) {row['setup_s']:.3f} s, finish {row['finish_s']:.3f} s, "
          f"wall at {s2} steps {row['wall_s']:.3f} s")
    print(f"  step (marginal wall, steps {s1} -> {s2}) {step * 1e3:.3f} ms")
    if dev > 0:
        print(f"  device time a step (the run's own, rank 0) {dev * 1e3:.3f} ms; "
              f"step / device {step / dev:.3f}")
        if args.floor:
            bw, fl = floor(args.floor, b)
            fl /= int(row["groups"] or 1)  # rank 0's share of the fields
            row["floor_s"] = fl
            print(f"  device floor {fl * 1e3:.3f} ms (D2D {bw:.0f} GB/s, this run); "
                  f"device / floor {dev / fl:.3f}, step / floor {step / fl:.3f}")
    if args.csv:
        new = not os.path.exists(args.csv)
        with open(args.csv, "a") as f:
            if new:
                f.write(",".join(row) + "\n")
            f.write(",".join(str(v) for v in row.values()) + "\n")


if __name__ == "__main__":
    main()
