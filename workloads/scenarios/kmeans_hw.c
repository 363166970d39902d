/* Hartigan-Wong k-means exactly as Applied Statistics algorithm AS 136 (KMNS,
 * OPTRA, QTRAN), with the two changes R's kmeans() makes to it: a cap on the
 * quick-transfer steps (ifault 4) and the number of passes returned in iter.
 * Written from the published algorithm (Hartigan and Wong 1979); the test compares it with
 * R's kmeans(algorithm = "Hartigan-Wong") for identical assignments.
 *
 * Exactness rests on doing the arithmetic in AS 136's order: distances summed
 * over j in turn (mu_km_d2), centres updated by (c n -+ a) / (n -+ 1) on each
 * transfer, the final centres and sums of squares recomputed from the members.
 * AS 136 leaves a distance loop as soon as the partial sum reaches the bound
 * it is compared with; partial sums of squares never decrease, so comparing
 * the full sum with that bound takes the same decision, which lets a backend
 * (the GPU) supply whole distances. The same fact lets OPTRA compute, before a
 * point's loop over the clusters, every distance that loop will read and the
 * backend's step does not hold (centres moved during the pass, or all of them
 * without a backend) as whole sums, 8 centres side by side: independent
 * chains instead of one dependent chain of d additions, each still summed
 * over j in order (mu_km_d2's bits); QTRAN pairs its two distances the same
 * way. Step counters (LIVE, NCP, INDX) keep the
 * 1-based point numbers of the Fortran. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scenarios/kmeans.h"
#include "core/free.h"

#define MU_KM_BIG 1.0e30

typedef struct {
    const double *a;
    int m, d, k;
    double *c;
    /* Distances from the backend's last whole step; valid for centre l while
     * ver[l] == cver[l] (ver counts the updates of each centre). */
    double *cache;
    unsigned *ver, *cver;
    long long evals;
    double *row; /* k: this point's distances computed ahead (OPTRA) */
    int *idx;    /* k: the clusters whose distance is in row */
} hw;

static int stale(const hw *h, int l) {
    return !(h->cache && h->ver[l] == h->cver[l]);
}

#define MU_KM_HWB 8

/* row[idx[p]] = mu_km_d2(point i, centre idx[p]) for p < n: MU_KM_HWB
 * independent sums at a time, each in mu_km_d2's order. */
static void ahead(hw *h, int i, const int *idx, int n) {
    const int d = h->d;
    const double *ai = h->a + (size_t)i * d;
    int p = 0;
    for (; p + MU_KM_HWB <= n; p += MU_KM_HWB) {
        const double *cp[MU_KM_HWB];
        double s[MU_KM_HWB];
        for (int t = 0; t < MU_KM_HWB; t++) {
            cp[t] = h->c + (size_t)idx[p + t] * d;
            s[t] = 0.0;
        }
        for (int j = 0; j < d; j++) {
            const double x = ai[j];
            for (int t = 0; t < MU_KM_HWB; t++) {
                double u = x - cp[t][j];
                s[t] += u * u;
            }
        }
        for (int t = 0; t < MU_KM_HWB; t++) h->row[idx[p + t]] = s[t];
    }
    for (; p + 2 <= n; p += 2) {
        const double *c0 = h->c + (size_t)idx[p] * d, *c1 = h->c + (size_t)idx[p + 1] * d;
        double s0 = 0.0, s1 = 0.0;
        for (int j = 0; j < d; j++) {
            double u = ai[j] - c0[j], v = ai[j] - c1[j];
            s0 += u * u;
            s1 += v * v;
        }
        h->row[idx[p]] = s0;
        h->row[idx[p + 1]] = s1;
    }
    for (; p < n; p++) h->row[idx[p]] = mu_km_d2(ai, h->c + (size_t)idx[p] * d, d);
    h->evals += n;
}

/* The distance OPTRA reads: the backend's, or the one computed ahead. */
static double known(const hw *h, int i, int l) {
    return stale(h, l) ? h->row[l] : h->cache[(size_t)i * h->k + l];
}

/* Squared distance from point i to centre l, or any value >= bound when it is
 * at least bound (AS 136's early exit). */
static double dist_to(hw *h, int i, int l, double bound) {
    if (h->cache && h->ver[l] == h->cver[l]) return h->cache[(size_t)i * h->k + l];
    const double *a = h->a + (size_t)i * h->d, *c = h->c + (size_t)l * h->d;
    h->evals++;
    double s = 0.0;
    for (int j = 0; j < h->d; j++) {
        double t = a[j] - c[j];
        s += t * t;
        if (s >= bound) return s;
    }
    return s;
}

static double dist(hw *h, int i, int l) {
    return dist_to(h, i, l, HUGE_VAL);
}

/* Moves point i from l1 to l2 and updates both centres, counts and factors. */
static void transfer(hw *h, int i, int l1, int l2, int *nc, double *an1, double *an2) {
    double al1 = nc[l1], alw = al1 - 1.0, al2 = nc[l2], alt = al2 + 1.0;
    const double *a = h->a + (size_t)i * h->d;
    double *c1 = h->c + (size_t)l1 * h->d, *c2 = h->c + (size_t)l2 * h->d;
    for (int j = 0; j < h->d; j++) {
        c1[j] = (c1[j] * al1 - a[j]) / alw;
        c2[j] = (c2[j] * al2 + a[j]) / alt;
    }
    nc[l1]--;
    nc[l2]++;
    an2[l1] = alw / al1;
    an1[l1] = MU_KM_BIG;
    if (alw > 1.0) an1[l1] = alw / (alw - 1.0);
    an1[l2] = alt / al2;
    an2[l2] = alt / (alt + 1.0);
    if (h->ver) {
        h->ver[l1]++;
        h->ver[l2]++;
    }
}

/* The optimal-transfer stage: one pass over the points. */
static void optra(hw *h, int *ic1, int *ic2, int *nc, double *an1, double *an2, int *ncp,
                  double *dd, int *itran, int *live, int *indx) {
    int m = h->m, k = h->k;
    /* A cluster updated in the last quick-transfer stage is live for the whole pass. */
    for (int l = 0; l < k; l++)
        if (itran[l] == 1) live[l] = m + 1;
    for (int i = 0; i < m; i++) {
        int pt = i + 1;
        (*indx)++;
        int l1 = ic1[i];
        if (nc[l1] != 1) { /* the only member of its cluster never moves */
            int l2 = ic2[i], ll = l2, n = 0;
            /* The distances the loop below reads that are not in the cache. */
            if (ncp[l1] != 0 && stale(h, l1)) h->idx[n++] = l1;
            if (stale(h, l2)) h->idx[n++] = l2;
            for (int l = 0; l < k; l++)
                if (!((pt >= live[l1] && pt >= live[l]) || l == l1 || l == ll) && stale(h, l))
                    h->idx[n++] = l;
            ahead(h, i, h->idx, n);
            /* R1 is kept until L1 changes. */
            if (ncp[l1] != 0) dd[i] = known(h, i, l1) * an1[l1];
            double r2 = known(h, i, l2) * an2[l2];
            for (int l = 0; l < k; l++) {
                /* L1 not live: only live clusters are candidates; else all. */
                if ((pt >= live[l1] && pt >= live[l]) || l == l1 || l == ll) continue;
                double rr = r2 / an2[l];
                double dc = known(h, i, l);
                if (dc >= rr) continue;
                r2 = dc * an2[l];
                l2 = l;
            }
            if (r2 >= dd[i]) {
                ic2[i] = l2; /* no transfer: L2 is the new second choice */
            } else {
                *indx = 0;
                live[l1] = m + pt;
                live[l2] = m + pt;
                ncp[l1] = pt;
                ncp[l2] = pt;
                transfer(h, i, l1, l2, nc, an1, an2);
                ic1[i] = l2;
                ic2[i] = l1;
            }
        }
        if (*indx == m) return;
    }
    for (int l = 0; l < k; l++) {
        itran[l] = 0;
        live[l] -= m;
    }
}

/* The quick-transfer stage: each point against its second choice, cyclically,
 * until m steps pass without a transfer. Returns 1 when maxqtr steps ran out. */
static int qtran(hw *h, int *ic1, int *ic2, int *nc, double *an1, double *an2, int *ncp, double *dd,
                 int *itran, int *indx, int maxqtr) {
    int m = h->m, icoun = 0, istep = 0;
    for (;;) {
        for (int i = 0; i < m; i++) {
            icoun++;
            istep++;
            if (istep >= maxqtr) return 1;
            int l1 = ic1[i], l2 = ic2[i];
            if (nc[l1] != 1) {
                int need1 = istep <= ncp[l1], need2 = istep < ncp[l1] || istep < ncp[l2];
                double d2 = 0.0;
                if (need1 && need2 && stale(h, l1) && stale(h, l2)) { /* both at once */
                    int pair[2] = {l1, l2};
                    ahead(h, i, pair, 2);
                    dd[i] = h->row[l1] * an1[l1];
                    d2 = h->row[l2];
                } else {
                    /* L1 updated within the last m steps: recompute R1. */
                    if (need1) dd[i] = dist(h, i, l1) * an1[l1];
                    if (need2) d2 = dist_to(h, i, l2, dd[i] / an2[l2]);
                }
                if (need2) {
                    double r2 = dd[i] / an2[l2];
                    if (d2 < r2) {
                        icoun = 0;
                        *indx = 0;
                        itran[l1] = 1;
                        itran[l2] = 1;
                        ncp[l1] = istep + m;
                        ncp[l2] = istep + m;
                        transfer(h, i, l1, l2, nc, an1, an2);
                        ic1[i] = l2;
                        ic2[i] = l1;
                    }
                }
            }
            if (icoun == m) return 0;
        }
    }
}

/* Final centres and within sums of squares from the members (AS 136 label 150). */
static void finish(const double *a, int m, int d, double *c, int k, const int *ic1, const int *nc,
                   double *wss) {
    memset(c, 0, sizeof(double) * (size_t)k * (size_t)d);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < d; j++) c[(size_t)ic1[i] * d + j] += a[(size_t)i * d + j];
    if (wss)
        for (int l = 0; l < k; l++) wss[l] = 0.0;
    for (int j = 0; j < d; j++) {
        for (int l = 0; l < k; l++) c[(size_t)l * d + j] /= (double)nc[l];
        if (wss)
            for (int i = 0; i < m; i++) {
                double t = a[(size_t)i * d + j] - c[(size_t)ic1[i] * d + j];
                wss[ic1[i]] += t * t;
            }
    }
}

int mu_km_hartigan_wong(const double *a, int m, int d, double *c, int k, int maxit, int maxqtr,
                        const mu_km_backend *be, mu_km_out *out) {
    double t0 = mu_km_now();
    if (mu_km_out_start(out, m, k)) return out->ifault;
    if (maxqtr <= 0) maxqtr = 50LL * m > INT_MAX ? INT_MAX : 50 * m;
    int *ic1 = out->ic1, *nc = out->nc;
    int *ic2 = malloc(sizeof(int) * (size_t)m), *ncp = malloc(sizeof(int) * (size_t)k);
    int *itran = malloc(sizeof(int) * (size_t)k), *live = malloc(sizeof(int) * (size_t)k);
    double *an1 = malloc(sizeof(double) * (size_t)k), *an2 = malloc(sizeof(double) * (size_t)k);
    double *dd = calloc((size_t)m, sizeof(double));
    hw h = {a, m, d, k, c, NULL, NULL, NULL, 0, NULL, NULL};
    h.row = malloc(sizeof(double) * (size_t)k);
    h.idx = malloc(sizeof(int) * (size_t)k);
    if (be) {
        h.cache = malloc(sizeof(double) * (size_t)m * (size_t)k);
        h.ver = calloc((size_t)k, sizeof(unsigned));
        h.cver = calloc((size_t)k, sizeof(unsigned));
    }
    if (!ic2 || !ncp || !itran || !live || !an1 || !an2 || !dd || !h.row || !h.idx ||
        (be && (!h.cache || !h.ver || !h.cver))) {
        out->ifault = MU_KM_BACKEND;
        goto done;
    }

    /* Each point to its two nearest centres. */
    if (be) {
        double t = mu_km_now();
        if (be->nearest2(be->ctx, c, k, ic1, ic2)) {
            out->ifault = MU_KM_BACKEND;
            goto done;
        }
        out->dist_s += mu_km_now() - t;
    } else {
        mu_km_nearest2_cpu(a, m, d, c, k, ic1, ic2);
        h.evals += (long long)m * k;
    }
    mu_km_means(a, m, d, ic1, k, c, nc);
    out->ifault = MU_KM_OK;
    for (int l = 0; l < k; l++) {
        if (nc[l] == 0) {
            out->ifault = MU_KM_EMPTY;
            goto done;
        }
        double aa = nc[l];
        an2[l] = aa / (aa + 1.0);
        an1[l] = MU_KM_BIG;
        if (aa > 1.0) an1[l] = aa / (aa - 1.0);
        itran[l] = 1;
        ncp[l] = -1;
    }
    int indx = 0, ij;
    for (ij = 1; ij <= maxit; ij++) {
        if (be) { /* every distance of this pass's starting centres */
            double t = mu_km_now();
            if (be->all(be->ctx, c, k, h.cache)) {
                out->ifault = MU_KM_BACKEND;
                goto done;
            }
            memcpy(h.cver, h.ver, sizeof(unsigned) * (size_t)k);
            out->dist_s += mu_km_now() - t;
        }
        optra(&h, ic1, ic2, nc, an1, an2, ncp, dd, itran, live, &indx);
        if (indx == m) break; /* no transfer in the last m steps */
        if (qtran(&h, ic1, ic2, nc, an1, an2, ncp, dd, itran, &indx, maxqtr)) {
            out->ifault = MU_KM_QTRANCAP;
            break;
        }
        if (k == 2) break; /* the quick transfer already tried the only alternative */
        for (int l = 0; l < k; l++) ncp[l] = 0;
    }
    if (ij > maxit) out->ifault = MU_KM_MAXITER;
    out->iter = ij;
    finish(a, m, d, c, k, ic1, nc, out->wss);
done:
    out->dist_evals += h.evals;
    MU_FREE(ic2, ncp, itran, live, an1, an2, dd, h.cache, h.row, h.idx, h.ver, h.cver);
    out->total_s = mu_km_now() - t0;
    return out->ifault;
}
