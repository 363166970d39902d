#!/usr/bin/env python3
"""scaling: strong- and weak-scaling series of any `mutirao <workload>` command.

For each workload, study (strong, weak) and rank count K it launches
`LAUNCHER mutirao <workload> <size options> <extra> --device=D --summary=FILE`,
reads the summary and writes one CSV row; at the end one PNG of the parallel
efficiency and of each run's time split.

  strong  the same problem on every K (the preset's strong size);
  weak    the same work per rank (one GPU a rank with --device=gpu): the preset's
          weak size is one rank's, grown with K as the table WEAK below says.

Launching: inside a Slurm allocation (SLURM_JOB_ID set) the default launcher is
  srun --mpi=pmi2 --kill-on-bad-exit=1 -N {nodes} -n {ranks}
where {nodes} is the fewest of the allocation's nodes that hold K tasks; outside
Slurm it is `mpiexec.mpich -n {ranks}`. --launcher replaces it, e.g.
  --launcher "mpirun --allow-run-as-root --oversubscribe -n {ranks}".
The default rank list is 1, 2, 4, ... up to the allocation's tasks (or 2
outside Slurm), and the allocation's count itself.

CSV ($OUTDIR/scaling.csv), one row a run, failed and missing runs included:
  workload, study, nodes, ranks, gpus, device, size, steps, wall_s, step_s,
  efficiency, phase_setup_s, phase_compute_s, phase_wait_s, phase_comm_s,
  phase_transfer_s, phase_io_s, phase_other_s, host_peak_mb_max,
  host_peak_mb_mean, device_peak_mb_max, device_peak_mb_mean, status,
  exit_code, message,
  summary, command, phases, knobs
 wall_s     the summary's wall_seconds (slowest rank, from the command's start);
 step_s     the time of one step of the workload (step_time below): cg the
            summary's iteration_seconds (the iterations alone, the solve's fixed
            part apart; seconds_per_iteration where absent); advect the "advect: steps" phase
            over the steps; maxsub the 2-D (or 1-D) kernel phases, one step;
            fuzzy the "fm" phase (all starts), one step; scenarios the "tree"
            (or "comb", "openings") phase over the stages (comb, openings: the
            months; --extra="scenarios=--mode=openings ..." runs NEWAVE's
            backward openings instead of the preset's tree);
 host_peak_mb_*, device_peak_mb_*  the summary's memory: peak resident host
            memory and peak device allocation of a rank (MiB), the slowest
            (max) and the mean rank: memory per rank against the rank count;
 efficiency from step_s against the smallest K of the series that ran:
            strong t_b*K_b/(t_K*K), weak t_b/t_K;
 phase_*    the summary's top-level timers sorted by the table PHASES below
            (slowest rank's seconds, max_s): setup (input, fit, set-up),
            compute (the kernel phases, the ranks' mean), wait (the kernel
            phases' max - mean: what the mean rank waits for the slowest, load
            imbalance and MPI waits inside the kernel), comm (MPI phases timed
            on their own), transfer (host-device copies timed on their own), io
            (outputs, checkpoints, plots), other (the rest of wall_s: MPI start,
            checks, merges, ...). No workload times its halo exchanges or
            reductions apart from its kernel today, so they are in compute/wait;
 status     ok, failed (the launch exited non-zero: exit_code and the log's last
            error line), or missing (exit 0 but no readable summary);
 phases     every timer of the summary, "name=max_s" separated by ";";
 knobs      the tuning knobs set in the run's environment ("NAME=value"; the
            summary's "knobs", see `mutirao info`).
With --repeat R each point runs R times and its row is the run with the
fastest step (time-shared machines: the least disturbed run). A failed or
missing run is reported on stderr and makes the exit status 1.
"""
import argparse
import csv
import json
import math
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIO_INPUT = os.path.join(ROOT, "inputs", "scenarios", "ons_inflows_64.csv")
ADVECT_PAPER = os.path.join(ROOT, "inputs", "advect", "paper.ini")
WORKLOAD_NAMES = ["scenarios", "cg", "maxsub", "advect", "fuzzy"]


def same(**size):
    """Both studies of a preset at one size: the strong problem is also one
    rank's (GPU's) weak share."""
    return {"strong": dict(size), "weak": dict(size)}


# Problem sizes per preset and workload: "strong" is the fixed problem, "weak"
# one rank's (GPU's) share, grown with K by WEAK.
#  tiny   CI on 2 cores: a fraction of a second each;
#  cpu16  the 16-core host of the GPU machine: about 10 s on one rank (estimated
#         from this project's timings, not measured there);
#  gpu    one to eight H100s: cg 256^3, advect the study's case (paper.ini),
#         maxsub 2-D n = 16384, fuzzy exact on 10^5 blobs (about 20 s on one H100), scenarios 13
#         aggregations of M = 100000 (tree 1,12,20: the 12 second-stage nodes
#         each into 20, farmed over the ranks).
PRESETS = {
    "tiny": {
        "cg": {"strong": dict(nx=48, ny=48, nz=48), "weak": dict(nx=32, ny=32, nz=32)},
        "advect": {"strong": dict(nx=64, ny=64, nz=8, fields=6, steps=16),
                   "weak": dict(nx=48, ny=48, nz=8, fields=6, steps=16)},
        "maxsub": {"strong": dict(n=640), "weak": dict(n=512)},
        "fuzzy": {"strong": dict(n=1600), "weak": dict(n=1200)},
        "scenarios": {"strong": dict(tree="1,6,4", m=512), "weak": dict(tree="1,4,4", m=384)},
    },
    "cpu16": {
        "cg": {"strong": dict(nx=160, ny=160, nz=160), "weak": dict(nx=128, ny=128, nz=128)},
        "advect": same(nx=192, ny=192, nz=16, fields=16, steps=10),
        "maxsub": same(n=2600),  # n = 1300 took 1.4 s on one rank of the H200 host
        "fuzzy": same(n=6000),
        "scenarios": same(tree="1,30,200", m=2048),
    },
    "gpu": {
        "cg": same(nx=256, ny=256, nz=256),
        "advect": same(config=ADVECT_PAPER, nx=336, ny=336, nz=38, fields=22, steps=40),
        "maxsub": same(n=16384),
        "fuzzy": same(n=100000),
        "scenarios": same(tree="1,12,20", m=100000),
    },
}

# Weak scaling: what stays the same per rank (GPU), and how the size grows
# with K. The exponent is 1 over the order of the work in the grown size, so
# that the work per rank stays constant.
WEAK = {
    "cg": ("rows per rank: the grid grows along z, nz = nz1 * K (each rank a slab "
           "of the same shape, as jobs/cg-scaling.sbatch)", "nz", 1),
    "advect": ("fields per rank: fields = fields1 * K on the same grid", "fields", 1),
    "maxsub": ("2-D work per rank: the column-pair algorithm is O(n^3), so "
               "n = n1 * K^(1/3)", "n", 3),
    "fuzzy": ("work per rank: exact Fuzzy Minimals is O(n^2) (every start walks "
              "every point), so n = n1 * K^(1/2)", "n", 2),
    "scenarios": ("scenarios per rank: M = M1 * K on the same tree (generation "
                  "and k-means linear in M)", "m", 1),
}

# Top-level timers of each workload's summary, by CSV phase column. Timers
# named in "nested" run inside another one and are left out of the split
# (they stay in the raw "phases" column); unknown timers fall into "other".
PHASES = {
    "cg": {"setup": ["read", "setup"], "compute": ["solve"], "io": ["output"],
           "nested": ["checkpoint"]},
    "advect": {"setup": ["advect: setup"], "compute": ["advect: steps"],
               "other": ["advect: finish"], "nested_prefix": "advect: "},
    "maxsub": {"setup": ["input"], "compute": ["prefix", "pairs", "reduce", "regions"],
               "comm": ["combine"]},
    "fuzzy": {"setup": ["input", "moments", "factor r"], "transfer": ["device copy"],
              "compute": ["fm"], "io": ["output", "plot"]},
    "scenarios": {"setup": ["input", "fit"], "compute": ["tree", "comb", "openings"],
                  "io": ["output"], "nested": ["generate", "aggregate"],
                  "nested_prefix": "stage"},
}
CATEGORIES = ["setup", "compute", "wait", "comm", "transfer", "io", "other"]

MEMORY = ["host_peak_mb_max", "host_peak_mb_mean", "device_peak_mb_max", "device_peak_mb_mean"]
COLUMNS = (["workload", "study", "nodes", "ranks", "gpus", "device", "size", "steps",
            "wall_s", "step_s", "efficiency"] + [f"phase_{c}_s" for c in CATEGORIES] +
           MEMORY +
           ["status", "exit_code", "message", "summary", "command", "phases", "knobs"])


def say(msg):
    print(f"scaling: {msg}", file=sys.stderr, flush=True)


def die(msg):
    """A usage error: exit status 2, as argparse's own."""
    say(msg)
    sys.exit(2)


# ---- sizes -----------------------------------------------------------------------

def grow(params, workload, k):
    """One rank's weak size grown to K ranks (WEAK)."""
    p = dict(params)
    _, key, order = WEAK[workload]
    if order == 1:
        p[key] = params[key] * k
    else:
        p[key] = int(round(params[key] * k ** (1.0 / order)))
    return p


def size_args(workload, p, extra=()):
    """The command's options for a size, and the size as the CSV says it
    (extra: the workload's --extra options)."""
    if workload == "cg":
        args = ["--poisson=3d7", f"--nx={p['nx']}", f"--ny={p['ny']}", f"--nz={p['nz']}",
                "--pc=jacobi"]
        return args, f"{p['nx']}x{p['ny']}x{p['nz']}"
    if workload == "advect":
        args = [f"--config={p['config']}"] if p.get("config") else []
        args += [f"--nx={p['nx']}", f"--ny={p['ny']}", f"--nz={p['nz']}",
                 f"--fields={p['fields']}"]
        if p.get("steps"):
            args.append(f"--steps={p['steps']}")
        return args, f"fields={p['fields']} {p['nx']}x{p['ny']}x{p['nz']}"
    if workload == "maxsub":
        return ["--dim=2", f"--n={p['n']}"], f"{p['n']}x{p['n']}"
    if workload == "fuzzy":
        return ["--gen=blobs", f"--n={p['n']}"], f"n={p['n']}"
    if workload == "scenarios":
        if "--mode=openings" in extra:  # NEWAVE's backward openings: stages, no tree
            return [f"--input={SCENARIO_INPUT}", f"--m={p['m']}", "--stats-series=0"], \
                f"openings M={p['m']}"
        args = [f"--input={SCENARIO_INPUT}", f"--tree={p['tree']}", f"--m={p['m']}",
                "--stats-series=0"]
        return args, f"tree={p['tree']} M={p['m']}"
    raise ValueError(workload)


# ---- reading a summary ---------------------------------------------------------------

def phase_max(summary, name):
    return summary.get("phases", {}).get(name, {}).get("max_s")


def option(summary, name):
    return summary.get("options", {}).get(name, {}).get("value")


def step_time(workload, s):
    """(seconds per step, steps) from a summary, per workload (see the doc)."""
    res = s.get("result", {})
    if workload == "cg":  # the iterations alone where the summary has them
        t = s.get("iteration_seconds", s.get("seconds_per_iteration"))
        return t, res.get("iterations")
    if workload == "advect":
        t, n = phase_max(s, "advect: steps"), res.get("steps")
        return (t / n if t is not None and n else None), n
    if workload == "maxsub":
        ts = [phase_max(s, p) for p in PHASES["maxsub"]["compute"]]
        ts = [t for t in ts if t is not None]
        return (sum(ts) if ts else None), 1
    if workload == "fuzzy":
        return phase_max(s, "fm"), 1
    if workload == "scenarios":
        if option(s, "mode") in ("comb", "openings"):  # per month of the horizon
            t, n = phase_max(s, option(s, "mode")), int(option(s, "horizon") or 0)
        else:
            t, n = phase_max(s, "tree"), len(str(option(s, "tree") or "").split(",")) - 1
        return (t / n if t is not None and n > 0 else None), n
    raise ValueError(workload)


def split_phases(workload, s):
    """The CSV's phase columns from the summary's timers (PHASES)."""
    table = PHASES[workload]
    nested = set(table.get("nested", []))
    prefix = table.get("nested_prefix")
    named = {n: c for c in CATEGORIES for n in table.get(c, [])}
    out = dict.fromkeys(CATEGORIES, 0.0)
    for name, p in s.get("phases", {}).items():
        cat = named.get(name)
        if cat is None and (name in nested or (prefix and name.startswith(prefix))):
            continue
        if cat == "compute":  # the mean rank's kernel, the rest is waiting
            out["compute"] += p["mean_s"]
            out["wait"] += max(0.0, p["max_s"] - p["mean_s"])
        else:
            out[cat or "other"] += p["max_s"]
    wall = s.get("wall_seconds", 0.0)
    out["other"] += max(0.0, wall - sum(out.values()))
    return out


def read_summary(workload, path):
    """The CSV fields a summary gives, or raises ValueError."""
    with open(path) as f:
        s = json.load(f)
    if s.get("command") != workload:
        raise ValueError(f"summary of '{s.get('command')}', not '{workload}'")
    step, steps = step_time(workload, s)
    wall = s.get("wall_seconds")
    if step is None or not step > 0 or wall is None:
        raise ValueError("summary without a step time or wall_seconds")
    row = {"wall_s": wall, "step_s": step, "steps": steps, "gpus": s.get("gpu_ranks", 0),
           "ranks_seen": s.get("ranks")}
    for c, v in split_phases(workload, s).items():
        row[f"phase_{c}_s"] = v
    mem = s.get("memory", {})
    for key, col in (("host_peak_bytes", "host_peak_mb"), ("device_peak_bytes", "device_peak_mb")):
        if key in mem:
            row[f"{col}_max"] = mem[key]["max"] / 2**20
            row[f"{col}_mean"] = mem[key]["mean"] / 2**20
    row["phases"] = ";".join(f"{n}={p['max_s']:.6g}" for n, p in s.get("phases", {}).items())
    row["knobs"] = ";".join(f"{n}={v}" for n, v in s.get("knobs", {}).items())
    return row


# ---- runs ------------------------------------------------------------------------

def in_slurm():
    return bool(os.environ.get("SLURM_JOB_ID"))


def slurm_shape():
    """(tasks, nodes, tasks per node) of the allocation."""
    tasks = int(os.environ.get("SLURM_NTASKS") or os.environ.get("SLURM_NPROCS") or 1)
    nodes = int(os.environ.get("SLURM_JOB_NUM_NODES") or os.environ.get("SLURM_NNODES") or 1)
    per = os.environ.get("SLURM_NTASKS_PER_NODE", "")
    per = int(per) if per.isdigit() else math.ceil(tasks / nodes)
    return tasks, nodes, max(1, per)


def nodes_for(k):
    if not in_slurm():
        return 1
    _, nodes, per = slurm_shape()
    return min(nodes, math.ceil(k / per))


def default_ranks():
    top = slurm_shape()[0] if in_slurm() else 2
    ranks, k = [], 1
    while k <= top:
        ranks.append(k)
        k *= 2
    if ranks[-1] != top:
        ranks.append(top)
    return ranks


def last_error(log):
    """The log's last error line, for the CSV and stderr."""
    try:
        with open(log, errors="replace") as f:
            lines = [l.strip() for l in f if l.strip()]
    except OSError:
        return ""
    # mutirao's own message first: an MPI abort after it says less
    for pick in (lambda l: "mutirao: error" in l, lambda l: "error" in l.lower()):
        for l in reversed(lines):
            if pick(l):
                return l[:300]
    return lines[-1][:300] if lines else ""


def launch(cmd, log, timeout):
    """Runs one launch; its exit status (124 when it ran past timeout)."""
    with open(log, "w") as f:
        try:
            return subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT,
                                  timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            f.write(f"\nscaling: killed after {timeout} s\n")
            return 124
        except OSError as e:
            f.write(f"\nscaling: cannot start {cmd[0]}: {e}\n")
            return 127


def run_one(a, workload, study, k):
    """One point of a series: its CSV row (without the efficiency); with
    --repeat, the fastest step of the repeats (a failed repeat fails the row)."""
    p = PRESETS[a.preset][workload][study]
    if study == "weak":
        p = grow(p, workload, k)
    args, size = size_args(workload, p, a.extra.get(workload, []))
    nodes = nodes_for(k)
    row = {"workload": workload, "study": study, "nodes": nodes, "ranks": k,
           "gpus": k if a.device == "gpu" else 0, "device": a.device, "size": size}
    launcher = shlex.split(a.launcher.format(ranks=k, nodes=nodes, gpus=k))
    best = None
    for i in range(a.repeat):
        name = f"{workload}_{study}_np{k}" + (f"_r{i + 1}" if a.repeat > 1 else "")
        summary = os.path.join(a.outdir, "runs", name + ".json")
        cmd = (launcher + [a.mutirao, workload] + args + a.extra.get(workload, []) +
               [f"--device={a.device}", f"--summary={summary}"])
        r = attempt(a, dict(row, summary=summary), name, cmd)
        if r["status"] != "ok":
            return r
        if best is None or r["step_s"] < best["step_s"]:
            best = r
    return best


def attempt(a, row, name, cmd):
    """One launch and its summary: the row filled in, with its status."""
    workload, study, k, summary = row["workload"], row["study"], row["ranks"], row["summary"]
    log = summary[:-len(".json")] + ".log"
    row["command"] = " ".join(shlex.quote(c) for c in cmd)
    say(f"{name}: {row['command']}")
    if a.dry_run:
        return dict(row, status="dry-run", exit_code="", message="")
    if os.path.exists(summary):
        os.remove(summary)  # never read a previous run's
    rc = launch(cmd, log, a.timeout)
    if rc != 0:
        msg = last_error(log)
        say(f"FAILED: {workload} {study} on {k} ranks: exit status {rc}: {msg} (log {log})")
        return dict(row, status="failed", exit_code=rc, message=msg)
    try:
        got = read_summary(workload, summary)
    except (OSError, ValueError, KeyError, TypeError) as e:
        msg = f"no usable summary {summary}: {e}"
        say(f"MISSING: {workload} {study} on {k} ranks: {msg} (log {log})")
        return dict(row, status="missing", exit_code=0, message=msg)
    seen = got.pop("ranks_seen")
    if seen not in (None, k):
        msg = f"the summary says {seen} ranks, not {k}"
        say(f"FAILED: {workload} {study} on {k} ranks: {msg}")
        return dict(row, status="failed", exit_code=0, message=msg)
    say(f"{name}: wall {got['wall_s']:.3g} s, step {got['step_s']:.3g} s")
    return dict(row, **got, status="ok", exit_code=0, message="")


def add_efficiency(rows):
    """Efficiency of each ok run against the smallest K of its series that ran."""
    for r in rows:
        r["efficiency"] = ""
    series = {}
    for r in rows:
        if r["status"] == "ok":
            series.setdefault((r["workload"], r["study"]), []).append(r)
    for (_, study), rs in series.items():
        base = min(rs, key=lambda r: r["ranks"])
        for r in rs:
            ratio = base["step_s"] / r["step_s"]
            r["efficiency"] = ratio * base["ranks"] / r["ranks"] if study == "strong" else ratio


def write_csv(rows, path):
    """The CSV, with paths inside the source tree and the results folder
    written relative to them, and a binary outside the tree by its name
    (`mutirao`, as on the PATH), so that a CSV names no machine's folders."""
    here = os.path.dirname(os.path.abspath(path)) + os.sep
    def shown(v):
        v = fmt(v)
        if not isinstance(v, str):
            return v
        v = v.replace(here, "").replace(ROOT + os.sep, "")
        return re.sub(r"(?<![\w.])/\S*/mutirao(?=\s)", "mutirao", v)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({c: shown(r.get(c, "")) for c in COLUMNS})


def print_table(rows):
    """The CSV's main columns on stdout, for the job's log."""
    print(f"{'workload':9s} {'study':6s} {'nodes':>5s} {'ranks':>5s} {'gpus':>4s} "
          f"{'size':24s} {'wall_s':>9s} {'step_s':>10s} {'eff.':>6s}  status")
    for r in rows:
        num = lambda c, f: format(r[c], f) if isinstance(r.get(c), float) else "-"
        print(f"{r['workload']:9s} {r['study']:6s} {r['nodes']:5d} {r['ranks']:5d} "
              f"{r.get('gpus', 0):4d} {r['size']:24s} {num('wall_s', '9.4g')} "
              f"{num('step_s', '10.4g')} {num('efficiency', '6.3f')}  {r['status']}")


def fmt(v):
    return f"{v:.6g}" if isinstance(v, float) else v


# ---- plot --------------------------------------------------------------------------

COLOURS = {"setup": "#9467bd", "compute": "#1f77b4", "wait": "#ff7f0e", "comm": "#d62728",
           "transfer": "#8c564b", "io": "#2ca02c", "other": "#7f7f7f"}


def plot(rows, path, unit):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    fig, axes = plt.subplots(len(workloads), 3, figsize=(18, 3.2 * len(workloads)),
                             squeeze=False)
    for i, w in enumerate(workloads):
        rs = [r for r in rows if r["workload"] == w]
        plot_efficiency(axes[i][0], w, rs, unit)
        plot_split(axes[i][1], w, rs)
        plot_memory(axes[i][2], w, rs, unit)
    handles, labels = axes[0][1].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=len(CATEGORIES), fontsize=8)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.3 / (3.2 * len(workloads))))
    fig.savefig(path, dpi=90)
    plt.close(fig)


def plot_efficiency(ax, workload, rs, unit):
    for study, mark in (("strong", "o-"), ("weak", "s--")):
        pts = sorted((r["ranks"], r["efficiency"]) for r in rs
                     if r["study"] == study and r["efficiency"] != "")
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], mark, label=study)
        for r in rs:  # failed runs marked at 0
            if r["study"] == study and r["status"] != "ok":
                ax.plot([r["ranks"]], [0], "rx", markersize=9)
    ax.axhline(1.0, color="black", lw=0.8, ls=":")
    ks = sorted({r["ranks"] for r in rs})
    ax.set_xscale("log", base=2)
    ax.set_xticks(ks)
    ax.set_xticklabels([str(k) for k in ks])
    ax.minorticks_off()
    ax.set_ylim(0, max([1.2] + [r["efficiency"] * 1.1 for r in rs if r["efficiency"] != ""]))
    ax.set_xlabel(unit)
    ax.set_ylabel("efficiency")
    ax.set_title(f"{workload}: parallel efficiency (x: failed)", fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)


def plot_memory(ax, workload, rs, unit):
    """Peak memory of the largest rank against the rank count: a decomposition
    whose data divides falls as 1/K (strong, the dotted line) or stays flat (weak)."""
    for study, mark in (("strong", "o-"), ("weak", "s--")):
        for col, what in (("host_peak_mb_max", "host"), ("device_peak_mb_max", "device")):
            pts = sorted((r["ranks"], r.get(col) or 0.0) for r in rs
                         if r["study"] == study and r["status"] == "ok")
            if pts and any(p[1] > 0 for p in pts):
                ax.plot([p[0] for p in pts], [p[1] for p in pts], mark, label=f"{study} {what}")
                if study == "strong":
                    k1, m1 = pts[0]
                    ax.plot([p[0] for p in pts], [m1 * k1 / p[0] for p in pts], ":",
                            color="grey", lw=0.8)
    ks = sorted({r["ranks"] for r in rs})
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(ks)
    ax.set_xticklabels([str(k) for k in ks])
    ax.minorticks_off()
    ax.set_xlabel(unit)
    ax.set_ylabel("peak MiB, largest rank")
    ax.set_title(f"{workload}: memory per rank (dotted: 1-rank / K)", fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)


def plot_split(ax, workload, rs):
    rs = sorted(rs, key=lambda r: (r["study"], r["ranks"]))
    x = range(len(rs))
    bottom = [0.0] * len(rs)
    for c in CATEGORIES:
        h = [r.get(f"phase_{c}_s", 0.0) if r["status"] == "ok" else 0.0 for r in rs]
        ax.bar(x, h, bottom=bottom, color=COLOURS[c], label=c, width=0.7)
        bottom = [b + v for b, v in zip(bottom, h)]
    for i, r in enumerate(rs):
        if r["status"] != "ok":
            ax.text(i, 0, r["status"], rotation=90, ha="center", va="bottom", color="red")
    ax.set_xticks(list(x))
    ax.set_xticklabels([f"{r['study'][0]}{r['ranks']}" for r in rs], fontsize=7)
    ax.set_ylabel("seconds (slowest rank)")
    ax.set_title(f"{workload}: time split per run (s = strong, w = weak; number = ranks)",
                 fontsize=9)


# ---- command line ----------------------------------------------------------------

def parse_list(text, allowed, what):
    items = [t for t in text.replace(" ", ",").split(",") if t]
    bad = [t for t in items if t not in allowed]
    if bad or not items:
        die(f"{what} '{text}': expected some of {', '.join(allowed)}")
    return items


def parse_ranks(text):
    try:
        ks = sorted({int(t) for t in text.replace(" ", ",").split(",") if t})
    except ValueError:
        ks = []
    if not ks or ks[0] < 1:
        die(f"--ranks '{text}': expected positive whole numbers")
    return ks


def parse_extra(items):
    extra = {}
    for item in items:
        w, sep, args = item.partition("=")
        if not sep or w not in WORKLOAD_NAMES:
            die(f"--extra '{item}': expected WORKLOAD=ARGS, e.g. cg='--pc=none'")
        extra.setdefault(w, []).extend(shlex.split(args))
    return extra


def default_mutirao():
    built = os.path.join(ROOT, "build", "mutirao")
    return built if os.access(built, os.X_OK) else "mutirao"


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="scaling.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=weak_help())
    ap.add_argument("--workloads", default=",".join(WORKLOAD_NAMES),
                    help="comma list of " + ", ".join(WORKLOAD_NAMES) + " [all]")
    ap.add_argument("--studies", default="strong,weak", help="strong and/or weak [both]")
    ap.add_argument("--ranks", help="rank (GPU) counts, e.g. 1,2,4 [1, 2, 4, ... the allocation]")
    ap.add_argument("--preset", default="tiny", choices=sorted(PRESETS))
    ap.add_argument("--device", default="cpu", choices=["cpu", "gpu", "auto"],
                    help="gpu: one GPU a rank [cpu]")
    ap.add_argument("--launcher", help="launch command with {ranks} (and {nodes}, {gpus})")
    ap.add_argument("--mutirao", default=default_mutirao(), help="the binary [build/mutirao]")
    ap.add_argument("--outdir", default="out/scaling", help="results folder [out/scaling]")
    ap.add_argument("--extra", action="append", default=[], metavar="WORKLOAD=ARGS",
                    help="more options for one workload's runs (they win over the preset's)")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per run [3600]")
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs per point; the row is the one with the fastest step [1]")
    ap.add_argument("--no-plot", action="store_true", help="write the CSV only")
    ap.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    ap.add_argument("--merge", nargs="+", metavar="CSV",
                    help="run nothing: merge these CSVs (series run in pieces; a later "
                         "file's run replaces an earlier one's) into one CSV and PNG in --outdir")
    a = ap.parse_args(argv)
    a.workloads = parse_list(a.workloads, WORKLOAD_NAMES, "--workloads")
    a.studies = parse_list(a.studies, ["strong", "weak"], "--studies")
    a.ranks = parse_ranks(a.ranks) if a.ranks else default_ranks()
    a.extra = parse_extra(a.extra)
    if a.repeat < 1:
        die(f"--repeat {a.repeat}: expected 1 or more")
    if not a.launcher:
        a.launcher = ("srun --mpi=pmi2 --kill-on-bad-exit=1 -N {nodes} -n {ranks}"
                      if in_slurm() else "mpiexec.mpich -n {ranks}")
    if "{ranks}" not in a.launcher:
        die(f"--launcher '{a.launcher}' has no {{ranks}}")
    if in_slurm() and a.ranks[-1] > slurm_shape()[0]:
        die(f"--ranks has {a.ranks[-1]}, more than the allocation's "
                 f"{slurm_shape()[0]} tasks")
    return a


def weak_help():
    return "weak scaling per workload:\n" + "\n".join(
        f"  {w:9s} {WEAK[w][0]}" for w in WORKLOAD_NAMES)


INTS = ("nodes", "ranks", "gpus", "steps")
FLOATS = ["wall_s", "step_s"] + [f"phase_{c}_s" for c in CATEGORIES] + MEMORY


def read_csv(path):
    """A CSV this script wrote, its numbers as numbers again."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        for c in INTS:
            r[c] = int(r[c]) if r.get(c) else 0
        for c in FLOATS:
            r[c] = float(r[c]) if r.get(c) else 0.0
    return rows


def merge(a):
    runs = {}
    for path in a.merge:
        for r in read_csv(path):
            runs[(r["workload"], r["study"], r["nodes"], r["ranks"])] = r
    rows = list(runs.values())
    add_efficiency(rows)
    os.makedirs(a.outdir, exist_ok=True)
    write_csv(rows, os.path.join(a.outdir, "scaling.csv"))
    print_table(rows)
    if not a.no_plot:
        gpu = any(r["device"] == "gpu" for r in rows)
        plot(rows, os.path.join(a.outdir, "scaling.png"), "GPUs (one a rank)" if gpu else "ranks")
    return 0 if all(r["status"] == "ok" for r in rows) else 1


def main(argv):
    a = parse_args(argv)
    if a.merge:
        return merge(a)
    os.makedirs(os.path.join(a.outdir, "runs"), exist_ok=True)
    where = os.environ.get("SLURM_JOB_NODELIST") or os.uname().nodename
    say(f"{a.preset} preset, device {a.device}, ranks {a.ranks}, on {where}, "
        f"launcher '{a.launcher}', outdir {a.outdir}")
    csv_path = os.path.join(a.outdir, "scaling.csv")
    rows = []
    for w in a.workloads:
        for s in a.studies:
            for k in a.ranks:
                rows.append(run_one(a, w, s, k))
                if not a.dry_run:  # a series cut short (job time limit) keeps its runs
                    add_efficiency(rows)
                    write_csv(rows, csv_path)
    if a.dry_run:
        return 0
    print_table(rows)
    say(f"wrote {csv_path}")
    if not a.no_plot:
        png = os.path.join(a.outdir, "scaling.png")
        plot(rows, png, "GPUs (one a rank)" if a.device == "gpu" else "ranks")
        say(f"wrote {png}")
    bad = [r for r in rows if r["status"] != "ok"]
    for r in bad:
        say(f"{r['status']}: {r['workload']} {r['study']} on {r['ranks']} ranks "
            f"(exit status {r['exit_code']}): {r['message']}")
    if bad:
        say(f"{len(bad)} of {len(rows)} runs failed or left no summary")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
