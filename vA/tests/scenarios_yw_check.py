#!/usr/bin/env python3
"""Independent check of `mutirao scenarios --model=FILE.json`: from the raw
record (CSV year,month,<station>...), recompute per station and month the mean,
standard deviation, periodic autocorrelations, every Yule-Walker system up to
p_max as a dense solve (Gaussian elimination written here), the partial
autocorrelations, the order (largest lag with |pacf| > conf/sqrt(N)), the
coefficients and the noise variance, and compare with the model's to `tol`.
Standard library only.   usage: scenarios_yw_check.py RECORD.csv MODEL.json TOL"""
import csv
import json
import math
import sys


def solve(a, b):
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            for j in range(c, n + 1):
                m[r][j] -= f * m[c][j]
    x = [0.0] * n
    for i in range(n - 1, -1, -1):
        x[i] = (m[i][n] - sum(m[i][j] * x[j] for j in range(i + 1, n))) / m[i][i]
    return x


def main():
    rec, model, tol = sys.argv[1], sys.argv[2], float(sys.argv[3])
    md = json.load(open(model))
    rows = list(csv.reader(open(rec)))
    hdr = rows[0]
    data = rows[1:]
    N = len(data) // 12
    P = md["pmax"]
    sd_n1 = md["sd_denominator"] == "N-1"
    pairs = md["acf_denominator"] == "pairs"
    limit = md["pacf_limit"]
    worst = 0.0
    bad = 0
    orders = 0
    for st in md["stations"]:
        col = hdr.index(st["name"])
        q = [float(r[col]) for r in data]
        mu = [sum(q[y * 12 + m] for y in range(N)) / N for m in range(12)]
        sd = [math.sqrt(sum((q[y * 12 + m] - mu[m]) ** 2 for y in range(N)) / (N - 1 if sd_n1 else N))
              for m in range(12)]
        z = [(q[t] - mu[t % 12]) / sd[t % 12] for t in range(12 * N)]
        rho = [[0.0] * (P + 1) for _ in range(12)]
        for m in range(12):
            for k in range(1, P + 1):
                ts = [y * 12 + m for y in range(N) if y * 12 + m - k >= 0]
                rho[m][k] = sum(z[t] * z[t - k] for t in ts) / (len(ts) if pairs else N)

        def yw(m, p):
            a = [[1.0 if i == j else rho[(m - min(i, j)) % 12][abs(j - i)] for j in range(1, p + 1)]
                 for i in range(1, p + 1)]
            return solve(a, [rho[m][i] for i in range(1, p + 1)])

        for m in range(12):
            got = st["months"][m]
            pacf = [yw(m, k)[-1] for k in range(1, P + 1)]
            order = max([k for k in range(1, P + 1) if abs(pacf[k - 1]) > limit], default=0)
            phi = yw(m, order) if order else []
            va = 1 - sum(phi[i] * rho[m][i + 1] for i in range(order))
            orders += 1
            if got["order"] != order:
                print("station %s month %d: order %d, independent %d" % (st["name"], m + 1,
                                                                          got["order"], order))
                bad += 1
                continue
            diffs = [abs(got["mean"] - mu[m]) / mu[m], abs(got["std"] - sd[m]) / sd[m],
                     abs(got["noise_variance"] - va)]
            diffs += [abs(a - b) for a, b in zip(got["phi"], phi)]
            diffs += [abs(a - b) for a, b in zip(got["pacf"], pacf)]
            diffs += [abs(a - rho[m][i + 1]) for i, a in enumerate(got["rho"])]
            d = max(diffs)
            worst = max(worst, d)
            if d > tol:
                print("station %s month %d: largest difference %.3g > %g" % (st["name"], m + 1,
                                                                            d, tol))
                bad += 1
    print("%d station-months, %d orders equal, largest difference %.3g (tolerance %g)" %
          (orders, orders - bad, worst, tol))
    sys.exit(1 if bad else 0)


main()
