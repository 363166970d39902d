#!/usr/bin/env python3
"""model: a performance model of the five workloads, calibrated on scaling CSVs.

Reads CSVs written by perf/scaling.py and, for each workload, device and
variant (cg's host-driven path: rows whose knobs column holds
MUTIRAO_CG_PEER=0, or in older CSVs a file name holding "noipc"), models the time of one step (the CSV's step_s) on P
ranks, one GPU a rank:

  T(P) = f T1 A(P) + (1 - f) T1 B(P) + T_net(P) + o S(P)

  T1     the measured one-rank step of the same study (strong or weak);
  B(P)   the divisible work on the slowest rank over the one-rank run's, from
         the decomposition in the code (slabs, field groups, task farms);
  A(P)   how the fixed part of a step scales: 1 for a per-step cost, the cells
         per rank for advect's winds, n^2 / P for maxsub's prefix block;
  T_net  messages x latency + bytes / bandwidth, host staging over PCIe, and
         allreduces by recursive doubling (ceil(log2 P) rounds of 2 latencies
         plus payload / bandwidth; rounds inside a node at the node's latency,
         the others on the network);
  S(P)   synchronising events a step (host waits on the GPU, collectives,
         farm round trips): each costs o beyond the latency model;
  f, o   fitted (non-negative least squares on relative error) on the runs
         with at most --fit-ranks ranks; cg's no-IPC fit keeps f from the IPC
         fit (same kernels) and gives o for the host-driven form, which is what
         cg pays beyond one node or 8 GPUs.

It prints, per dataset, the fitted values, every measured point against the
model (role "fit" where the point calibrated the model, "check" where it did
not), and predicted strong and weak efficiency at --targets ranks; writes
--out (CSV) and a markdown table for perf/MODEL.md. perf/MODEL.md has the
equations and the per-workload counts.

  python3 perf/model.py --csv perf/scaling/gpu/scaling.csv \
      --csv perf/scaling/gpu_noipc/scaling.csv
"""
import argparse
import csv
import heapq
import math
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scaling import WEAK, grow  # the weak-scaling rule the measurements used

# Network and node (MODEL.md, "Assumptions"); each has an option.
DEFAULTS = {
    "ndr_latency": 2e-6,      # MPI point-to-point over InfiniBand NDR
    "ndr_bw": 50e9,           # 400 Gb/s a port, one port per GPU, per direction
    "nvlink_latency": 1e-6,   # peer stores and flag polls between GPUs of a node
    "nvlink_bw": 450e9,       # NVLink 4 (H100 SXM), per direction
    "shm_latency": 0.5e-6,    # MPI between ranks of a node (shared memory)
    "shm_bw": 20e9,           # host-to-host copies through shared memory
    "pcie_bw": 25e9,          # host staging, PCIe 5 x16, per direction
    "gpus_per_node": 8,
    "gpu_mem": 80e9,          # H100: what a rank's device holds
    # scenarios on a GPU rank: each node a rank's lanes add beside the first
    # costs this share of one node alone (the lanes share one device). From the
    # stage timers of perf/scaling/gpu2 (bb514e2, one H100 a rank): 12 nodes
    # 3.0x the root alone, 6 nodes 1.9-2.0x, i.e. (3.0 - 1) / 11 = 0.18 and
    # (1.9 - 1) / 5 = 0.18 (0.39 before the k-means kept its assignment on the
    # device and the scenarios' rows were page-locked).
    "gpu_lane_cost": 0.18,
}
DOUBLE, FLOAT, INT64 = 8, 4, 8
XSUM_WORDS = 71           # core/exactsum.h: MU_XSUM_WORDS
CG_PEER_MAX = 8           # gpu/cg_gpu.h: MU_GPU_CG_PEER_MAX
MSS_TILE = 64             # gpu/maxsub_monoid.h: MU_MSS_TILE
H100_SMS = 132
# cg host-driven: the share of an iteration's divisible kernels that the halo
# overlaps (the direction pass and the interior rows: 131 + 331 of 600 us in
# perf/bench_cg_ranks's parts on 2 H100s, 111b5b9)
CG_HALO_OVERLAP = 0.77
FUZZY_FEATURES = 2        # --gen=blobs default centres are 2-D
SC_STATIONS = 64          # inputs/scenarios/ons_inflows_64.csv

UNITS = {
    "cg": "row-iteration (one matrix row in one CG iteration)",
    "advect": "cell-field-step (one cell of one field in one time step)",
    "maxsub": "pair-row update (n^2 (n+1)/2 for an n x n matrix)",
    "fuzzy": "point pair (n^2 for n points: every start walks every point)",
    "scenarios": "scenario generated and clustered (M per tree node)",
}


def note(msg):
    print(f"model: {msg}", file=sys.stderr)


# ---- reading ---------------------------------------------------------------------

def variant_of(path, row):
    """cg's host-driven runs: MUTIRAO_CG_PEER=0 in the row's knobs, or (CSVs
    written before the knobs column) "noipc" in the file's path."""
    if "MUTIRAO_CG_PEER=0" in (row.get("knobs") or "").split(";"):
        return "noipc"
    return "noipc" if "noipc" in path.lower() else "default"


def read_csvs(paths):
    """The ok rows of every CSV, numbers parsed; the others noted and left out."""
    rows = []
    for path in paths:
        try:
            with open(path, newline="") as f:
                got = list(csv.DictReader(f))
        except OSError as e:
            note(f"{path}: {e}: skipped")
            continue
        for r in got:
            where = f"{path}: {r.get('workload')} {r.get('study')} on {r.get('ranks')} ranks"
            if r.get("status") != "ok":
                note(f"{where}: status {r.get('status')!r}: ignored")
                continue
            try:
                r["ranks"] = int(r["ranks"])
                r["step_s"] = float(r["step_s"])
                r["params"] = parse_size(r["workload"], r["size"])
            except (KeyError, ValueError) as e:
                note(f"{where}: unreadable ({e}): ignored")
                continue
            r["variant"] = variant_of(path, r)
            r["source"] = path
            rows.append(r)
    return rows


def parse_size(workload, size):
    """The size column back into scaling.py's size parameters."""
    nums = [int(x) for x in re.findall(r"\d+", size.split("=")[-1])] if workload != "advect" \
        else None
    if workload == "cg":
        nx, ny, nz = nums
        return dict(nx=nx, ny=ny, nz=nz)
    if workload == "advect":
        m = re.match(r"fields=(\d+)\s+(\d+)x(\d+)x(\d+)", size.strip())
        if not m:
            raise ValueError(f"size {size!r}")
        nf, nx, ny, nz = map(int, m.groups())
        return dict(fields=nf, nx=nx, ny=ny, nz=nz)
    if workload == "maxsub":
        return dict(n=int(size.split("x")[0]))
    if workload == "fuzzy":
        return dict(n=int(size.split("=")[1]))
    if workload == "scenarios":
        m = re.match(r"tree=([\d,]+)\s+M=(\d+)", size.strip())
        if not m:
            raise ValueError(f"size {size!r}")
        return dict(tree=m.group(1), m=int(m.group(2)))
    raise ValueError(f"workload {workload!r}")


def size_text(workload, p):
    if workload == "cg":
        return f"{p['nx']}x{p['ny']}x{p['nz']}"
    if workload == "advect":
        return f"fields={p['fields']} {p['nx']}x{p['ny']}x{p['nz']}"
    if workload == "maxsub":
        return f"{p['n']}x{p['n']}"
    if workload == "fuzzy":
        return f"n={p['n']}"
    return f"tree={p['tree']} M={p['m']}"


# ---- the step's shape: work, messages, reductions ---------------------------------

def shape(workload, p, P, device, variant, net):
    """One step on P ranks: a dict of
    units  work units of the whole problem (UNITS);
    crit   divisible work units on the slowest rank;
    fixed  scale of the fixed part (same unit at every P of a series);
    msgs, bytes, link   point-to-point messages and bytes the slowest rank
           sends in sequence, and the link they take (nvlink, shm, ndr);
    reds, red_bytes     allreduces and their payload;
    staged  bytes through host staging (down and up counted);
    syncs, sync_kind    synchronising events and which o prices them;
    path, notes."""
    s = dict(msgs=0, bytes=0, link="shm", reds=0, red_bytes=8, staged=0, syncs=0,
             sync_kind="mpi", path="", notes=[])
    nodes = math.ceil(P / net["gpus_per_node"]) if device == "gpu" else 1
    s["nodes"] = nodes
    return SHAPES[workload](s, p, P, nodes, device, variant, net)


def cg_shape(s, p, P, nodes, device, variant, net):
    # Row blocks of the 7-point Poisson matrix, nnz-balanced z slabs
    # (workloads/cg/poisson.c cg_poisson_bounds); halo of p only (mpi/halo.c).
    n = p["nx"] * p["ny"] * p["nz"]
    plane = p["nx"] * p["ny"]
    rows = n / P
    s.update(units=n, crit=math.ceil(rows), fixed=1)
    if P == 1:
        s["path"] = "one rank" + (", device iterations" if device == "gpu" else "")
        return s
    sides = 1 if P == 2 else 2
    per_side = min(math.ceil(plane / rows), P - 1)  # thinner slabs than a plane
    s["msgs"] = sides * per_side
    s["bytes"] = sides * plane * DOUBLE
    s["reds"] = 2  # p'Ap, then r'z with r'r and the stop flag (workloads/cg/kernels_gpu.c)
    s["red_bytes"] = INT64 * ((XSUM_WORDS + 1) + (2 * XSUM_WORDS + 1)) / 2
    peer = device == "gpu" and variant != "noipc" and P <= CG_PEER_MAX and nodes == 1
    if device != "gpu":
        s.update(path="CPU ranks", link="shm", syncs=2)
    elif peer:
        s.update(path="peer (CUDA IPC)", link="nvlink", syncs=2, sync_kind="peer")
    else:
        # the halo's staging and messages fly during the direction pass and the
        # interior rows (workloads/cg/kernels_gpu.c iterate_ranks): CG_HALO_OVERLAP
        s.update(path="host-driven", link="ndr" if nodes > 1 else "shm", syncs=2,
                 sync_kind="host", staged=2 * s["bytes"], overlap=CG_HALO_OVERLAP)
    if rows < plane:
        s["notes"].append(f"{rows:.0f} rows a rank, under one {plane}-row plane: "
                          f"halo from {per_side} ranks a side")
    return s


def adv_groups(nf, cells, P, mem):
    """workloads/advect/decomp.c adv_decompose, automatic: field groups, then blocks."""
    for d in range(min(P, nf), 0, -1):
        if P % d:
            continue
        if cells / (P // d) * (16.0 * math.ceil(nf / d) + 64.0) <= mem or d == 1:
            return d
    return 1


def dims_create(b):
    """MPI_Dims_create(b, 2): the most square factors, larger first."""
    best = (b, 1)
    for a in range(1, int(math.isqrt(b)) + 1):
        if b % a == 0:
            best = (b // a, a)
    return best


def advect_shape(s, p, P, nodes, device, variant, net):
    nf, nx, ny, nz = p["fields"], p["nx"], p["ny"], p["nz"]
    cells = nx * ny * nz
    pf = adv_groups(nf, cells, P, net["gpu_mem"])
    b = P // pf
    px, py = dims_create(b)
    nfm = math.ceil(nf / pf)
    nxl, nyl = math.ceil(nx / px), math.ceil(ny / py)
    cr = nxl * nyl * nz
    # the fixed part taken as a per-step cost (A = 1): the 1- and 2-rank runs
    # cannot tell per-cell wind work (which blocks would divide) from launches
    s.update(units=cells * nf, crit=nfm * cr, fixed=1)
    if P == 1:
        s["path"] = "one rank"
        return s
    if b == 1:
        # workloads/advect/sweep.c: error collectives after each sweep's winds and
        # chains, the density reset, the winds ahead, the check post, and
        # adv_confirm's two: no halo between groups.
        s.update(path=f"{pf} field groups of <= {nfm}", reds=11, syncs=11)
        if nf % pf:
            s["notes"].append(f"{nf} fields over {pf} groups: {nfm} on the slowest rank")
        return s
    link = "ndr" if b > net["gpus_per_node"] else ("shm" if device == "gpu" else "shm")
    msgs = nbytes = syncs = 0
    for pa, side in ((px, nyl), (py, nxl)):
        if pa == 1:
            continue
        halo = ADV_HALO_CELLS * nfm * nz * side * FLOAT
        msgs += 2
        nbytes += 2 * halo
        # flux chains: two passes of pa - 1 rounds between open borders (the
        # study's case; pa around a periodic axis), each a message after the last
        rounds = pa - 1
        flux = nz * side * (nfm + 1) * FLOAT
        msgs += 2 * rounds
        nbytes += 2 * rounds * flux
        syncs += 2 * rounds * 2  # each round: pack to the host, unpack to the device
    s.update(path=f"{pf} groups x {px}x{py} blocks", msgs=msgs, bytes=nbytes, link=link,
             reds=8, syncs=syncs + 8 + 3, staged=2 * nbytes)
    return s


ADV_HALO_CELLS = 2  # workloads/advect/advect.h: ADV_HALO


def farm(ntasks, P, min_chunk):
    """mpi/taskfarm.c on P ranks of equal speed, task time 1, messages free:
    (makespan, chunks of the busiest worker, chunks in all). The master works
    its own min_chunk chunks between requests and answers only between them."""
    guided = lambda rem, size: min(rem, max(rem // (2 * size), min_chunk))
    if P == 1:
        return ntasks, 0, 0
    t_master, nxt, chunks = 0.0, 0, 0
    asks = [(0.0, w) for w in range(1, P)]  # (time of request, worker)
    heapq.heapify(asks)
    finish = [0.0] * P
    count = [0] * P
    while asks or nxt < ntasks:
        if asks and asks[0][0] <= t_master:
            t, w = heapq.heappop(asks)
            if nxt < ntasks:
                c = guided(ntasks - nxt, P)
                nxt += c
                chunks += 1
                count[w] += 1
                finish[w] = max(t, t_master) + c
                heapq.heappush(asks, (finish[w], w))
        elif nxt < ntasks:
            c = min(min_chunk, ntasks - nxt) if asks else guided(ntasks - nxt, 1)
            nxt += c
            t_master += c
        else:
            t_master = asks[0][0]
    return max([t_master] + finish), max(count), chunks


def maxsub_grid(P, n):
    # workloads/maxsub/grid2d.c mu_mss2d_grid_shape: the factorization P = pr x pc
    # (pr <= rows, pc <= cols) of least bytes per rank, fewer bands on a tie.
    def comm(pr, pc):
        block = 8.0 * (n / pr) * (n / pc + 1)
        return (pc // 2) * block + (32.0 * n * n / (2.0 * pc) if pr > 1 else 0.0)
    best = None
    for pr in range(1, P + 1):
        if P % pr or pr > n or P // pr > n:
            continue
        if best is None or comm(pr, P // pr) < comm(*best):
            best = (pr, P // pr)
    return best


def maxsub_shape(s, p, P, nodes, device, variant, net):
    # workloads/maxsub/solve2d.c: a pr x pc grid of row-prefix blocks (n^2 / P
    # each); the band's blocks pass around a ring (floor(pc/2) shifts of a
    # block), every rank runs its block pairs' tiles; with pr > 1 each pair's
    # 32-byte band summary goes through a reduction over the column. Shift s
    # flies while step s runs (non-blocking, a second ring buffer; a GPU
    # uploads the landed block beside the kernels): a step with a shift costs
    # max(its pairs, the shift), see s["ring"] and net_time.
    n = p["n"]
    units = n * n * (n + 1) / 2
    pr, pc = maxsub_grid(P, n)
    nr, w = math.ceil(n / pr), math.ceil(n / pc)
    block = 8 * nr * (w + 1)
    s.update(units=units, crit=units / P, fixed=n * n / P)
    # grid2d.c mu_mss2d_grid_bytes: own block + the ring's blocks (two from
    # two shifts on), the values before them; on a GPU: own + the visitors
    # (slots 1 and 2) in int64 and int32
    slots = 1 if pc < 2 else (2 if pc < 4 else 3)
    mem = (12.0 * nr * (w + 1) * slots if device == "gpu"
           else 8.0 * nr * (w + 1) * (1 + (0 if pc < 2 else 1 if pc < 4 else 2)))
    if mem > net["gpu_mem"] and device == "gpu":
        s["notes"].append(f"prefix blocks {mem / 1e9:.0f} GB per rank: over one GPU")
    if P == 1:
        s["path"] = "one rank"
        return s
    shifts = pc // 2
    pairs = n * n / (2.0 * pc)
    chunk = 2 * H100_SMS if device == "gpu" else 16
    sums = 32.0 * pairs * math.ceil(math.log2(pr)) if pr > 1 else 0.0
    reduces = math.ceil(pairs / (chunk * MSS_TILE * MSS_TILE)) if pr > 1 else 0
    msgs = 1 if nr * (w + 1) < 2**17 or nr * (w + 1) % 2**17 == 0 else 2  # pieces + remainder
    # Pair work by step: step 0 its diagonal (w^2/2), the middle steps w^2,
    # the last (no shift) w^2/2 for even pc (met twice, halved) or w^2.
    total = shifts + (0.0 if pc % 2 == 0 else 0.5)
    s.update(path=f"grid {pr}x{pc}", msgs=shifts * msgs + reduces,
             bytes=shifts * block + sums, link="ndr" if nodes > 1 else "shm",
             reds=6 + reduces, syncs=shifts + reduces + 6,
             staged=(shifts + 1) * block if device == "gpu" else 0,
             ring=dict(steps=shifts, msgs=msgs, bytes=block,
                       up=block if device == "gpu" else 0,
                       shares=[0.5 / total] + [1.0 / total] * (shifts - 1)))
    return s


def fuzzy_shape(s, p, P, nodes, device, variant, net):
    # workloads/fuzzy/run_exact.c fz_fm_exact: the whole set on every rank, the n starts
    # farmed in chunks of min(resident starts, n / 4P); F + 2 doubles a start
    # back to rank 0, which receives them all.
    n = p["n"]
    resident = H100_SMS * 8 * 64
    chunk = n if P == 1 else (min(resident, math.ceil(n / (4 * P))) if device == "gpu" else 1)
    span, worker_chunks, chunks = farm(n, P, chunk)
    s.update(units=float(n) * n, crit=span * float(n), fixed=n)
    if P == 1:
        s["path"] = "one rank"
        return s
    s.update(path=f"task farm, {chunks} chunks", msgs=2 * worker_chunks,
             bytes=n * (FUZZY_FEATURES + 2) * DOUBLE, link="ndr" if nodes > 1 else "shm",
             reds=4, syncs=worker_chunks + 4)
    return s


def scenarios_shape(s, p, P, nodes, device, variant, net):
    # workloads/scenarios/scenarios_run.c mu_sc_build_tree: per stage the farm hands out the
    # stage's nodes in chunks of min(threads, share); a chunk's nodes run side
    # by side on the rank's host threads (lanes), so on CPU ranks a stage lasts
    # ceil(chunk / lanes) node aggregations; rank 0 broadcasts the records.
    opens = [int(k) for k in p["tree"].split(",")[1:]]
    m, lanes = p["m"], net["lanes"]
    nodes_at, count = [], 1
    for k in opens:
        nodes_at.append(count)
        count *= k
    stages = len(opens)
    # CPU ranks share a stage of fewer nodes than ranks, node after node, each
    # node's M scenarios split over the ranks (mu_sc_split_stage, shared_stage)
    split = [device != "gpu" and 1 < P and v < P for v in nodes_at]
    if device == "gpu":  # the lanes share the rank's device (gpu_lane_cost)
        waves = sum(1 + (math.ceil(v / P) - 1) * net["gpu_lane_cost"] for v in nodes_at)
    else:
        waves = sum(v / P if sp else math.ceil(math.ceil(v / P) / lanes)
                    for v, sp in zip(nodes_at, split))
    s.update(units=sum(nodes_at) * m / stages, crit=waves * m / stages, fixed=1)
    if P == 1:
        s["path"] = "one rank"
        return s
    split = any(split)
    rec = sum(v * (2 + k * (1 + SC_STATIONS)) for v, k in zip(nodes_at, opens)) * DOUBLE
    s.update(path="shared stages" if split else "task farm of tree nodes",
             msgs=2, bytes=rec / stages, link="ndr" if nodes > 1 else "shm",
             reds=4, red_bytes=rec / stages, syncs=4)
    s["notes"].append("critical path: one node's aggregation a stage")
    return s


SHAPES = {"cg": cg_shape, "advect": advect_shape, "maxsub": maxsub_shape,
          "fuzzy": fuzzy_shape, "scenarios": scenarios_shape}


# ---- time ------------------------------------------------------------------------

def link_cost(net, link):
    return {"nvlink": (net["nvlink_latency"], net["nvlink_bw"]),
            "shm": (net["shm_latency"], net["shm_bw"]),
            "ndr": (net["ndr_latency"], net["ndr_bw"])}[link]


def allreduce(net, P, nbytes, device, intra_link):
    """Recursive doubling: ceil(log2 P) rounds of 2 latencies plus the payload;
    the first log2(GPUs a node) rounds inside the node."""
    if P <= 1:
        return 0.0
    rounds = math.ceil(math.log2(P))
    inside = min(rounds, int(math.log2(net["gpus_per_node"]))) if device == "gpu" else rounds
    a_in, b_in = link_cost(net, intra_link)
    a_out, b_out = link_cost(net, "ndr")
    return (inside * (2 * a_in + nbytes / b_in) +
            (rounds - inside) * (2 * a_out + nbytes / b_out))


def net_time(s, P, device, net, divisible=0.0):
    """The step's communication; the point-to-point part and its staging beyond
    what the shape's `overlap` share of the divisible compute (seconds) hides."""
    if P <= 1:
        return 0.0
    lat, bw = link_cost(net, s["link"])
    msgs, nbytes, staged, hidden = s["msgs"], s["bytes"], s["staged"], 0.0
    ring = s.get("ring")
    if ring:
        # each shift (its messages, and a GPU's upload) against the pairs of
        # its step: max(compute, transfer), so only the excess shows
        one = ring["msgs"] * lat + ring["bytes"] / bw + ring["up"] / net["pcie_bw"]
        hidden = sum(max(0.0, one - share * divisible) for share in ring["shares"])
        msgs -= ring["steps"] * ring["msgs"]
        nbytes -= ring["steps"] * ring["bytes"]
        staged -= ring["steps"] * ring["up"]
    p2p = msgs * lat + nbytes / bw + staged / net["pcie_bw"]
    intra = "nvlink" if s["link"] == "nvlink" else "shm"
    red = s["reds"] * allreduce(net, P, s["red_bytes"], device, intra)
    return max(0.0, p2p - s.get("overlap", 0.0) * divisible) + hidden + red


def model_time(s, s1, T1, f, o, P, device, net):
    """(total, compute, network, sync) for one step."""
    comp = f * T1 * s["fixed"] / s1["fixed"] + (1 - f) * T1 * s["crit"] / s1["crit"]
    netw = net_time(s, P, device, net, T1 * s["crit"] / s1["crit"])
    sync = o.get(s["sync_kind"], 0.0) * s["syncs"] if P > 1 else 0.0
    return comp + netw + sync, comp, netw, sync


# ---- calibration ---------------------------------------------------------------------

def nnls2(rows, fix_f=None):
    """min sum (a f + b o - y)^2 over 0 <= f <= 0.99, o >= 0 (rows: (a, b, y),
    already divided by the measured time)."""
    def cost(f, o):
        return sum((a * f + b * o - y) ** 2 for a, b, y in rows)

    def best_one(col, others):
        num = sum(r[col] * (r[2] - others(r)) for r in rows)
        den = sum(r[col] ** 2 for r in rows)
        return max(0.0, num / den) if den > 0 else 0.0

    cands = []
    if fix_f is None:
        saa = sum(a * a for a, _, _ in rows)
        sbb = sum(b * b for _, b, _ in rows)
        sab = sum(a * b for a, b, _ in rows)
        say = sum(a * y for a, _, y in rows)
        sby = sum(b * y for _, b, y in rows)
        det = saa * sbb - sab * sab
        if abs(det) > 1e-12 * max(1e-30, saa * sbb):
            cands.append(((say * sbb - sby * sab) / det, (saa * sby - sab * say) / det))
        cands.append((min(0.99, best_one(0, lambda r: 0.0)), 0.0))
        cands.append((0.0, best_one(1, lambda r: 0.0)))
        f0 = 0.0
    else:
        f0 = fix_f
    cands.append((f0, best_one(1, lambda r: r[0] * f0)))
    ok = [(f, o) for f, o in cands if 0 <= f <= 0.99 and o >= 0]
    return min(ok, key=lambda c: cost(*c)) if ok else (f0, 0.0)


def calibrate(ds, net, fit_ranks, fix_f=None):
    """f and o of a dataset from its runs with 2..fit_ranks ranks."""
    eqs, kinds = [], set()
    for r in ds["points"]:
        if not 1 < r["ranks"] <= fit_ranks:
            continue
        s, s1, T1 = r["shape"], r["base_shape"], r["T1"]
        a = T1 * (s["fixed"] / s1["fixed"] - s["crit"] / s1["crit"])
        div = T1 * s["crit"] / s1["crit"]
        y = r["step_s"] - div - net_time(s, r["ranks"], ds["device"], net, div)
        eqs.append((a / r["step_s"], s["syncs"] / r["step_s"], y / r["step_s"]))
        kinds.add(s["sync_kind"])
        r["role"] = "fit"
    if not eqs:
        return (fix_f or 0.0), {}, "no multi-rank run to fit: f = 0, o = 0"
    how = f"{len(eqs)} point(s)"
    if fix_f is not None:
        how += ", f from the default variant"
    elif len(eqs) < 2:  # one point cannot tell f from o: o alone
        fix_f = 0.0
        how += ", too few for f: f = 0"
    f, o = nnls2(eqs, fix_f)
    return f, {k: o for k in kinds}, how


# ---- datasets -------------------------------------------------------------------------

def datasets(rows, net):
    """Rows grouped by (workload, device, variant), each with its one-rank bases."""
    out = {}
    for r in rows:
        key = (r["workload"], r["device"], r["variant"])
        out.setdefault(key, {"workload": key[0], "device": key[1], "variant": key[2],
                             "rows": []})["rows"].append(r)
    for ds in out.values():
        ds["bases"], ds["points"] = {}, []
        for study in ("strong", "weak"):
            rs = [r for r in ds["rows"] if r["study"] == study]
            one = [r for r in rs if r["ranks"] == 1]
            if not rs:
                note(f"{ds['workload']} ({ds['device']}, {ds['variant']}): no {study} runs: skipped")
                continue
            if not one:
                note(f"{ds['workload']} ({ds['device']}, {ds['variant']}) {study}: "
                     "no one-rank run to take T1 from: skipped")
                continue
            base = min(one, key=lambda r: r["step_s"])
            ds["bases"][study] = base
            b_shape = shape(ds["workload"], base["params"], 1, ds["device"], ds["variant"], net)
            base["unit_s"] = base["step_s"] / b_shape["units"]
            for r in rs:
                r.update(T1=base["step_s"], base_shape=b_shape, role="check",
                         shape=shape(ds["workload"], r["params"], r["ranks"], ds["device"],
                                     ds["variant"], net))
                ds["points"].append(r)
    return out


def fit_all(dsets, net, fit_ranks):
    # default variants first: the no-IPC fit keeps their f
    for key in sorted(dsets, key=lambda k: k[2] != "default"):
        ds = dsets[key]
        fix = None
        if ds["variant"] != "default":
            sib = dsets.get((key[0], key[1], "default"))
            if sib and "f" in sib:
                fix = sib["f"]
        ds["f"], ds["o"], ds["how"] = calibrate(ds, net, fit_ranks, fix)
    # o of a form a dataset never ran (cg beyond one node) from its sibling
    for key, ds in dsets.items():
        for other_key, other in dsets.items():
            if other_key[:2] == key[:2] and other is not ds:
                for k, v in other["o"].items():
                    ds["o"].setdefault(k, v)


def predict(ds, study, P, net):
    """Modelled step, its split and shape for a target P, or None."""
    base = ds["bases"].get(study)
    if not base:
        return None
    w = ds["workload"]
    p = grow(base["params"], w, P) if study == "weak" else dict(base["params"])
    s = shape(w, p, P, ds["device"], ds["variant"], net)
    s1 = shape(w, base["params"], 1, ds["device"], ds["variant"], net)
    o = dict(ds["o"])
    if s["sync_kind"] not in o and P > 1:
        fallback = max(o.values()) if o else 0.0
        s["notes"].append(f"no fit of the {s['sync_kind']} form: o = {fallback * 1e6:.1f} us")
        o[s["sync_kind"]] = fallback
    T, comp, netw, sync = model_time(s, s1, base["step_s"], ds["f"], o, P, ds["device"], net)
    eff = base["step_s"] / (P * T) if study == "strong" else base["step_s"] / T
    return dict(T=T, comp=comp, net=netw, sync=sync, eff=eff, shape=s, size=size_text(w, p))


# ---- output -------------------------------------------------------------------------

def fmt_t(t):
    if t >= 1:
        return f"{t:.3g} s"
    if t >= 1e-3:
        return f"{t * 1e3:.3g} ms"
    return f"{t * 1e6:.3g} us"


def fmt_b(b):
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if b >= scale:
            return f"{b / scale:.3g} {unit}"
    return f"{b:.0f} B"


def ds_name(ds):
    v = "" if ds["variant"] == "default" else f", {ds['variant']}"
    return f"{ds['workload']} ({ds['device']}{v})"


def report(dsets, net, targets, out_rows):
    md = ["| workload | study | P | path | step (model) | step (measured) | error | "
          "efficiency (model) | bytes/rank/step | msgs | allreduces |",
          "|---|---|---|---|---|---|---|---|---|---|---|"]
    for key in sorted(dsets):
        ds = dsets[key]
        if "f" not in ds or not ds["bases"]:
            continue
        print(f"\n== {ds_name(ds)}: unit {UNITS[ds['workload']]}")
        for study, base in ds["bases"].items():
            print(f"   {study}: one rank {fmt_t(base['step_s'])} a step on {base['size']}: "
                  f"{base['unit_s']:.4g} s a unit")
        o = ", ".join(f"o[{k}] = {v * 1e6:.2f} us" for k, v in sorted(ds["o"].items())) or "o = 0"
        print(f"   fitted: fixed part f = {ds['f']:.3f} of T1, {o} ({ds['how']})")
        print(f"   {'study':6s} {'P':>4s} {'role':5s} {'measured':>10s} {'model':>10s} "
              f"{'error':>7s}  path")
        for r in sorted(ds["points"], key=lambda r: (r["study"], r["ranks"])):
            pr = predict_at(ds, r, net)
            err = (pr["T"] - r["step_s"]) / r["step_s"]
            print(f"   {r['study']:6s} {r['ranks']:4d} {r['role']:5s} {fmt_t(r['step_s']):>10s} "
                  f"{fmt_t(pr['T']):>10s} {100 * err:+6.1f}%  {pr['shape']['path']}")
            out_rows.append(row_out(ds, r["study"], r["ranks"], pr, r, err))
            md.append(md_row(ds, r["study"], r["ranks"], pr, r["step_s"], err))
        print(f"   {'study':6s} {'P':>4s} {'nodes':>5s} {'step':>10s} {'compute':>10s} "
              f"{'network':>10s} {'sync':>10s} {'eff.':>6s}  path; bytes, msgs, allreduces")
        for study in ("strong", "weak"):
            for P in targets:
                pr = predict(ds, study, P, net)
                if not pr:
                    continue
                s = pr["shape"]
                extra = f"; {'; '.join(s['notes'])}" if s["notes"] else ""
                print(f"   {study:6s} {P:4d} {s['nodes']:5d} {fmt_t(pr['T']):>10s} "
                      f"{fmt_t(pr['comp']):>10s} {fmt_t(pr['net']):>10s} {fmt_t(pr['sync']):>10s} "
                      f"{100 * pr['eff']:5.1f}%  {s['path']}; {fmt_b(s['bytes'])}, {s['msgs']}, "
                      f"{s['reds']}{extra}")
                out_rows.append(row_out(ds, study, P, pr, None, None))
                md.append(md_row(ds, study, P, pr, None, None))
    return md


def predict_at(ds, r, net):
    """The model at a measured point (its own size, not the weak rule's)."""
    s, s1 = r["shape"], r["base_shape"]
    T, comp, netw, sync = model_time(s, s1, r["T1"], ds["f"], ds["o"], r["ranks"],
                                     ds["device"], net)
    eff = r["T1"] / (r["ranks"] * T) if r["study"] == "strong" else r["T1"] / T
    return dict(T=T, comp=comp, net=netw, sync=sync, eff=eff, shape=s)


OUT_COLUMNS = ["workload", "device", "variant", "study", "ranks", "nodes", "size", "kind", "role",
               "path", "step_model_s", "compute_s", "network_s", "sync_s", "step_measured_s",
               "rel_error", "efficiency_model", "efficiency_measured", "bytes_per_rank",
               "messages", "allreduces", "staged_bytes", "syncs", "fixed_fraction", "notes"]


def row_out(ds, study, P, pr, r, err):
    s = pr["shape"]
    meas_eff = ""
    if r is not None:
        meas_eff = r["T1"] / (P * r["step_s"]) if study == "strong" else r["T1"] / r["step_s"]
    return {"workload": ds["workload"], "device": ds["device"], "variant": ds["variant"],
            "study": study, "ranks": P, "nodes": s["nodes"],
            "size": r["size"] if r is not None else pr["size"],
            "kind": "measured" if r is not None else "predicted",
            "role": r["role"] if r is not None else "", "path": s["path"],
            "step_model_s": pr["T"], "compute_s": pr["comp"], "network_s": pr["net"],
            "sync_s": pr["sync"], "step_measured_s": r["step_s"] if r is not None else "",
            "rel_error": err if err is not None else "", "efficiency_model": pr["eff"],
            "efficiency_measured": meas_eff, "bytes_per_rank": s["bytes"], "messages": s["msgs"],
            "allreduces": s["reds"], "staged_bytes": s["staged"], "syncs": s["syncs"],
            "fixed_fraction": ds["f"], "notes": "; ".join(s["notes"])}


def md_row(ds, study, P, pr, meas, err):
    s = pr["shape"]
    name = ds["workload"] + ("" if ds["variant"] == "default" else f" ({ds['variant']})")
    m = fmt_t(meas) if meas is not None else "-"
    e = f"{100 * err:+.1f} %" if err is not None else "-"
    return (f"| {name} | {study} | {P} | {s['path']} | {fmt_t(pr['T'])} | {m} | {e} | "
            f"{100 * pr['eff']:.1f} % | {fmt_b(s['bytes'])} | {s['msgs']} | {s['reds']} |")


def write_csv(rows, path):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=OUT_COLUMNS)
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})


# ---- command line ----------------------------------------------------------------------

def parse_args(argv):
    ap = argparse.ArgumentParser(prog="model.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--csv", action="append", required=True, metavar="FILE",
                    help="a scaling CSV (repeatable; 'noipc' in the name: cg's host-driven path)")
    ap.add_argument("--targets", default="8,64,512", help="rank (GPU) counts to predict [8,64,512]")
    ap.add_argument("--fit-ranks", type=int, default=2,
                    help="calibrate on runs with at most this many ranks [2]; larger: checks")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                  "model_predictions.csv"))
    ap.add_argument("--markdown", metavar="FILE", help="also write the markdown table here")
    ap.add_argument("--lanes", type=int, default=16,
                    help="host threads a rank (scenarios' side-by-side nodes) [16]")
    for k, v in DEFAULTS.items():
        ap.add_argument("--" + k.replace("_", "-"), type=type(v), default=v,
                        help=f"[{v:g}]")
    a = ap.parse_args(argv)
    try:
        a.targets = sorted({int(t) for t in a.targets.split(",") if t.strip()})
    except ValueError:
        ap.error(f"--targets {a.targets!r}: expected whole numbers")
    return a


def assumptions(net):
    return (f"network: InfiniBand NDR, {net['ndr_bw'] / 1e9:g} GB/s a direction, one port a GPU, "
            f"{net['ndr_latency'] * 1e6:g} us MPI latency; {net['gpus_per_node']} GPUs a node "
            f"(NVLink {net['nvlink_bw'] / 1e9:g} GB/s, {net['nvlink_latency'] * 1e6:g} us; "
            f"host MPI {net['shm_bw'] / 1e9:g} GB/s, {net['shm_latency'] * 1e6:g} us); host staging "
            f"{net['pcie_bw'] / 1e9:g} GB/s a direction; allreduce: recursive doubling, "
            "ceil(log2 P) rounds of 2 latencies + payload/bandwidth")


def main(argv):
    a = parse_args(argv)
    net = {k: getattr(a, k) for k in DEFAULTS}
    net["lanes"] = a.lanes
    rows = read_csvs(a.csv)
    if not rows:
        note("no usable rows")
        return 1
    for w in SHAPES:
        if not any(r["workload"] == w for r in rows):
            note(f"no usable {w} runs in the CSVs: {w} skipped")
    dsets = datasets(rows, net)
    fit_all(dsets, net, a.fit_ranks)
    print("model: " + assumptions(net))
    out_rows = []
    md = report(dsets, net, a.targets, out_rows)
    write_csv(out_rows, a.out)
    print(f"\nmodel: wrote {a.out}\n")
    print("\n".join(md))
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write("\n".join(md) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
