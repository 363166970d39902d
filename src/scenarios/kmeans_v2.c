/* The study's parallel "Version 2" of Hartigan-Wong (report 3.7.3 and 4.7):
 * the centres stay fixed during each pass over the points and are recomputed
 * from their members after it, so every point's test in a pass is independent
 * of the others' and the distance step is one M x K computation (the GPU's).
 *
 * Choices where the study is silent (report 10, gap 9), and why:
 *  - a pass applies AS 136's optimal-transfer test (R1 = n1/(n1-1) d(i,L1)
 *    against R2 = n/(n+1) d(i,L), live-set rule, strict inequality) with the
 *    counts frozen at the start of the pass, like the centres;
 *  - a running count forbids the move that would empty a cluster (two points
 *    leaving a pair in one pass); that cluster lost members, so it is live in
 *    the next pass and the point is tested again;
 *  - simultaneous moves must not cycle. Taken all together, AS 136's moves
 *    do: a move to a farther centre, justified only by the n/(n-1) and
 *    n/(n+1) factors, lowers the sum of squares when made alone, and two such
 *    moves between the same clusters can undo each other pass after pass (it
 *    happened on 3 of 5 test sets). So in a pass, moves to a strictly nearer
 *    centre are all taken (as in Lloyd's method: with the centres frozen each
 *    lowers a bound on the new sum of squares), while a move to a farther one
 *    is taken only when neither of its clusters has moved anything yet in the
 *    pass, and then locks both for the rest of it (so the exact single-move
 *    gain applies). Every pass with a move lowers the within sum of squares,
 *    so the passes cannot cycle; a point held back is tested again next pass,
 *    since a cluster it concerns changed;
 *  - after each optimal-transfer pass, quick-transfer sweeps (each point
 *    against its second choice, for points whose two clusters changed in the
 *    last sweep) with the centres recomputed after every sweep, which avoids
 *    the flip-flop that frozen centres and counts allow; at most 50 sweeps;
 *  - the live set of a pass is the clusters whose members changed since the
 *    previous pass began. A cluster that is not live has the same members, so
 *    the same centre bits (means are summed in point order), as when its
 *    points were last tested; so the live-set rule loses no move;
 *  - it stops after a pass with no transfer. Then every point passed the test
 *    against every cluster with the final means, which implies it is nearest
 *    its own centre (n1/(n1-1) >= 1 >= n/(n+1)): a fixed point of k-means. */
#include <stdlib.h>
#include <string.h>

#include "scenarios/kmeans.h"

#define MU_KM_BIG 1.0e30
#define MU_KM_QSWEEPS 50

static void factors(const int *nc, int k, double *an1, double *an2) {
    for (int l = 0; l < k; l++) {
        double aa = nc[l];
        an2[l] = aa / (aa + 1.0);
        an1[l] = aa > 1.0 ? aa / (aa - 1.0) : MU_KM_BIG;
    }
}

/* Whether a move from l1 to l2 may join the others of this pass (see the top).
 * A move to a strictly nearer centre may always (unless a cluster is locked);
 * one that the n/(n-1) and n/(n+1) factors alone justify needs both clusters
 * untouched so far in the pass, and then locks them. */
static int allowed(unsigned char *lock, const unsigned char *touched, int l1, int l2, int nearer) {
    if (lock[l1] || lock[l2]) return 0;
    if (nearer) return 1;
    if (touched[l1] || touched[l2]) return 0;
    lock[l1] = lock[l2] = 1;
    return 1;
}

/* Quick-transfer sweeps; chg collects the clusters that changed. */
static void quick_sweeps(const double *a, int m, int d, double *c, int k, int *ic1, int *ic2,
                         int *nc, double *an1, double *an2, unsigned char *chg, int *ncrun,
                         unsigned char *qchg, unsigned char *nchg, unsigned char *lock,
                         long long *evals) {
    memcpy(qchg, chg, (size_t)k);
    for (int s = 0; s < MU_KM_QSWEEPS; s++) {
        memcpy(ncrun, nc, sizeof(int) * (size_t)k);
        memset(nchg, 0, (size_t)k);
        memset(lock, 0, (size_t)k);
        int moved = 0;
        for (int i = 0; i < m; i++) {
            int l1 = ic1[i], l2 = ic2[i];
            if (nc[l1] == 1 || (!qchg[l1] && !qchg[l2])) continue;
            const double *ai = a + (size_t)i * d;
            double r1 = mu_km_d2(ai, c + (size_t)l1 * d, d) * an1[l1];
            double dl2 = mu_km_d2(ai, c + (size_t)l2 * d, d);
            *evals += 2;
            if (dl2 < r1 / an2[l2] && ncrun[l1] > 1 &&
                allowed(lock, nchg, l1, l2, dl2 < mu_km_d2(ai, c + (size_t)l1 * d, d))) {
                ncrun[l1]--;
                ncrun[l2]++;
                ic1[i] = l2;
                ic2[i] = l1;
                nchg[l1] = nchg[l2] = 1;
                moved++;
            }
        }
        if (!moved) return;
        mu_km_means(a, m, d, ic1, k, c, nc);
        factors(nc, k, an1, an2);
        for (int l = 0; l < k; l++) chg[l] |= nchg[l];
        memcpy(qchg, nchg, (size_t)k);
    }
}

int mu_km_version2(const double *a, int m, int d, double *c, int k, int maxit,
                   const mu_km_backend *be, mu_km_out *out) {
    double t0 = mu_km_now();
    out->ifault = MU_KM_BADK;
    out->iter = 0;
    out->dist_s = 0.0;
    out->dist_evals = 0;
    if (k <= 1 || k >= m) return out->ifault;
    int *ic1 = out->ic1, *nc = out->nc;
    int *ic2 = malloc(sizeof(int) * (size_t)m), *l2 = malloc(sizeof(int) * (size_t)m);
    int *ncrun = malloc(sizeof(int) * (size_t)k);
    double *an1 = malloc(sizeof(double) * (size_t)k), *an2 = malloc(sizeof(double) * (size_t)k);
    double *r1 = malloc(sizeof(double) * (size_t)m), *r2 = malloc(sizeof(double) * (size_t)m);
    unsigned char *flags = malloc(5 * (size_t)k);
    if (!ic2 || !l2 || !ncrun || !an1 || !an2 || !r1 || !r2 || !flags) {
        out->ifault = MU_KM_BACKEND;
        goto done;
    }
    unsigned char *live = flags, *chg = flags + k, *qchg = flags + 2 * k, *nchg = flags + 3 * k,
                  *lock = flags + 4 * k;

    double t;
    if (be) {
        t = mu_km_now();
        if (be->nearest2(be->ctx, c, k, ic1, ic2)) {
            out->ifault = MU_KM_BACKEND;
            goto done;
        }
        out->dist_s += mu_km_now() - t;
    } else {
        mu_km_nearest2_cpu(a, m, d, c, k, ic1, ic2);
        out->dist_evals += (long long)m * k;
    }
    mu_km_means(a, m, d, ic1, k, c, nc);
    for (int l = 0; l < k; l++)
        if (nc[l] == 0) {
            out->ifault = MU_KM_EMPTY;
            goto done;
        }
    factors(nc, k, an1, an2);
    memset(live, 1, (size_t)k);
    out->ifault = MU_KM_MAXITER;
    out->iter = maxit + 1;
    for (int it = 1; it <= maxit; it++) {
        /* The parallel part: every point's test against the frozen centres. */
        if (be) {
            t = mu_km_now();
            if (be->scan(be->ctx, c, k, ic1, ic2, nc, an1, an2, live, r1, r2, l2)) {
                out->ifault = MU_KM_BACKEND;
                goto done;
            }
            out->dist_s += mu_km_now() - t;
        } else {
            mu_km_scan_cpu(a, m, d, c, k, ic1, ic2, nc, an1, an2, live, r1, r2, l2);
            out->dist_evals += (long long)m * k;
        }
        /* The serial part: apply the moves in point order. */
        memcpy(ncrun, nc, sizeof(int) * (size_t)k);
        memset(chg, 0, (size_t)k);
        memset(lock, 0, (size_t)k);
        int moved = 0;
        for (int i = 0; i < m; i++) {
            int l1 = ic1[i], to = l2[i];
            if (to < 0) continue; /* the only member of its cluster */
            if (r2[i] >= r1[i]) {
                ic2[i] = to;
                continue;
            }
            if (ncrun[l1] == 1) continue; /* would empty l1 */
            const double *ai = a + (size_t)i * d;
            int nearer = mu_km_d2(ai, c + (size_t)to * d, d) < mu_km_d2(ai, c + (size_t)l1 * d, d);
            if (!allowed(lock, chg, l1, to, nearer)) {
                ic2[i] = to;
                continue;
            }
            ncrun[l1]--;
            ncrun[to]++;
            ic1[i] = to;
            ic2[i] = l1;
            chg[l1] = chg[to] = 1;
            moved++;
        }
        if (!moved) {
            out->ifault = MU_KM_OK;
            out->iter = it;
            break;
        }
        mu_km_means(a, m, d, ic1, k, c, nc);
        factors(nc, k, an1, an2);
        quick_sweeps(a, m, d, c, k, ic1, ic2, nc, an1, an2, chg, ncrun, qchg, nchg, lock,
                     &out->dist_evals);
        memcpy(live, chg, (size_t)k);
    }
    if (out->wss) {
        for (int l = 0; l < k; l++) out->wss[l] = 0.0;
        for (int i = 0; i < m; i++)
            out->wss[ic1[i]] += mu_km_d2(a + (size_t)i * d, c + (size_t)ic1[i] * d, d);
    }
done:
    free(ic2);
    free(l2);
    free(ncrun);
    free(an1);
    free(an2);
    free(r1);
    free(r2);
    free(flags);
    out->total_s = mu_km_now() - t0;
    return out->ifault;
}
