#!/usr/bin/python3
"""How fast mutirao takes in its input files, against the disk they sit on.

Writes a maxsub binary input (raw little-endian int32, the .bin format of
docs/maxsub.md) of --size bytes, takes the largest Matrix Market file under
inputs/ (or writes a 3-D 7-point Poisson matrix with --matrix-nx), measures the
disk's read rate of each file (dd with O_DIRECT, bypassing the page cache) and
the cached read rate (dd after a warm-up read), then runs

    LAUNCH mutirao maxsub --input=FILE.bin --summary=...
    LAUNCH mutirao cg --matrix=FILE.mtx --max-it=1 --summary=...

twice each: cold (the file's pages dropped from the cache first with
posix_fadvise DONTNEED, which needs no privileges) and warm (the file just
read). It prints each input phase's time (maxsub: "input"; cg: "read", which
also builds the CSR and sends the rows), its rate in GB/s of file bytes, and
the ratio to the disk's and to the cached rate (1.0: as fast as dd).

    perf/bench_inputs.py [--size=1G] [--launch="mpirun -n 1"] [--device=cpu]
                         [--dir=DIR] [--mutirao=build/mutirao] [--matrix=FILE]
                         [--matrix-nx=N] [--keep]

--dir picks the file system measured (default: perf/bench_inputs.tmp in the
repository, not /tmp, which may be memory). Small sizes (64M) make a quick
test; rates of files smaller than the disk's cache or read-ahead say little.
"""
import argparse
import array
import glob
import json
import os
import random
import re
import shlex
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLOCK = 1 << 20  # int32 values per written block (4 MiB)


def parse_size(text):
    units = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    t = text.strip().upper().rstrip("B")
    unit = t[-1] if t and t[-1] in units else ""
    value = float(t[: len(t) - len(unit)] if unit else t)
    return int(value * units[unit]) // 4 * 4


def write_maxsub(path, size, seed=1):
    """Raw int32 little-endian values in [-1000, 1000]: a few blocks of
    random values, reused with a varying shift so the file is not one block
    repeated (the content does not matter to the read rate)."""
    rng = random.Random(seed)
    blocks = []
    for _ in range(4):
        a = array.array("i", (rng.randint(-1000, 1000) for _ in range(BLOCK)))
        if sys.byteorder != "little":
            a.byteswap()
        blocks.append(a.tobytes())
    left, k = size, 0
    with open(path, "wb") as f:
        while left > 0:
            b = blocks[k % len(blocks)]
            s = (k * 4096) % len(b)
            chunk = (b[s:] + b[:s])[:left]
            f.write(chunk)
            left -= len(chunk)
            k += 1


def write_poisson_mtx(path, nx):
    """The 3-D 7-point operator on nx^3 points, lower triangle ('symmetric')."""
    n = nx**3
    entries = n + 3 * (nx - 1) * nx * nx
    with open(path, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real symmetric\n")
        f.write(f"{n} {n} {entries}\n")
        lines = []
        for r in range(n):
            i, j, k = r % nx, (r // nx) % nx, r // (nx * nx)
            row = r + 1
            if k > 0:
                lines.append(f"{row} {row - nx * nx} -1\n")
            if j > 0:
                lines.append(f"{row} {row - nx} -1\n")
            if i > 0:
                lines.append(f"{row} {row - 1} -1\n")
            lines.append(f"{row} {row} 6\n")
            if len(lines) > 65536:
                f.write("".join(lines))
                lines = []
        f.write("".join(lines))


def drop_cache(path):
    """Evicts the file's pages from the page cache (clean pages: written back first)."""
    with open(path, "rb") as f:
        os.fsync(f.fileno())  # dirty pages are not dropped
        os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)


def dd_rate(path, direct):
    """Bytes per second of `dd bs=16M` reading the file (direct: O_DIRECT), from
    dd's own count of seconds (its start-up left out); None if refused."""
    cmd = ["dd", f"if={path}", "of=/dev/null", "bs=16M"] + (["iflag=direct"] if direct else [])
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                       env=dict(os.environ, LC_ALL="C"))
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        return None
    m = re.search(r"^(\d+) bytes.*copied, ([0-9.e+-]+) s", p.stderr, re.M)
    if m and float(m.group(2)) > 0:
        return int(m.group(1)) / float(m.group(2))
    return os.path.getsize(path) / dt


def disk_and_cached(path):
    drop_cache(path)
    disk = dd_rate(path, True)
    dd_rate(path, False)  # warm the cache
    cached = max(dd_rate(path, False) for _ in range(2))
    return disk, cached


def run_phase(args, sub, extra, phase, summary):
    cmd = shlex.split(args.launch) + [args.mutirao, sub] + extra
    cmd += [f"--device={args.device}", f"--summary={summary}"]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 2):  # cg: 2 = not converged (--max-it=1)
        sys.stderr.write(p.stderr[-2000:])
        raise SystemExit(f"bench_inputs: '{' '.join(cmd)}' exited with {p.returncode}")
    with open(summary) as f:
        return json.load(f)["phases"][phase]["max_s"]


def gbs(rate):
    return "n/a" if rate is None else f"{rate / 1e9:.3f}"


def ratio(a, b):
    return "n/a" if a is None or b is None else f"{a / b:.2f}"


def measure(args, label, path, sub, extra, phase, summary):
    size = os.path.getsize(path)
    disk, cached = disk_and_cached(path)
    rows = []
    for state in ("cold", "warm"):
        if state == "cold":
            drop_cache(path)
        else:
            dd_rate(path, False)
        t = run_phase(args, sub, extra, phase, summary)
        rate = size / t if t > 0 else None
        rows.append((state, t, rate))
    print(f"{label}: {path} ({size / 1e6:.1f} MB); disk (dd O_DIRECT) {gbs(disk)} GB/s, "
          f"cached (dd) {gbs(cached)} GB/s")
    for state, t, rate in rows:
        print(f"  {sub} '{phase}' phase, {state}: {t:.3f} s = {gbs(rate)} GB/s; "
              f"x{ratio(rate, disk)} of disk, x{ratio(rate, cached)} of cached")
    return rows


def largest_mtx():
    files = glob.glob(os.path.join(ROOT, "inputs", "**", "*.mtx"), recursive=True)
    if not files:
        raise SystemExit("bench_inputs: no .mtx file under inputs/")
    return max(files, key=os.path.getsize)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", default="1G", help="maxsub input size (1G, 64M, ...)")
    ap.add_argument("--launch", default="mpirun -n 1", help="launcher prefix")
    ap.add_argument("--device", default="cpu", help="cpu, gpu or auto")
    ap.add_argument("--dir", default=os.path.join(ROOT, "perf", "bench_inputs.tmp"))
    ap.add_argument("--mutirao", default=os.path.join(ROOT, "build", "mutirao"))
    ap.add_argument("--matrix", help="Matrix Market file for cg (default: largest in inputs/)")
    ap.add_argument("--matrix-nx", type=int, default=0,
                    help="write a 3-D 7-point Poisson .mtx of N^3 rows instead")
    ap.add_argument("--keep", action="store_true", help="keep the written files")
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    summary = os.path.join(args.dir, "summary.json")
    written = [summary]

    bin_path = os.path.join(args.dir, "maxsub_input.bin")
    size = parse_size(args.size)
    if size < 4:
        raise SystemExit("bench_inputs: --size must be at least 4 bytes")
    write_maxsub(bin_path, size)
    written.append(bin_path)
    if args.matrix_nx > 0:
        mtx = os.path.join(args.dir, f"poisson_{args.matrix_nx}.mtx")
        write_poisson_mtx(mtx, args.matrix_nx)
        written.append(mtx)
    else:
        mtx = args.matrix or largest_mtx()
    print(f"bench_inputs: launch '{args.launch}', device {args.device}, files in {args.dir}")
    try:
        measure(args, "maxsub", bin_path, "maxsub", [f"--input={bin_path}"], "input", summary)
        measure(args, "cg", mtx, "cg", [f"--matrix={mtx}", "--max-it=1"], "read", summary)
    finally:
        if not args.keep:
            for p in written:
                if os.path.exists(p):
                    os.remove(p)


if __name__ == "__main__":
    main()
