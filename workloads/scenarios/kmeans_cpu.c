/* The CPU distance steps of the k-means (the reference the GPU kernels match
 * bit for bit) and the helpers both k-means share. Every distance has the bits
 * of mu_km_d2; the whole steps compute a point's row of distances at once. */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scenarios/kmeans.h"
#include "gpu/scenarios_kmeans_core.h"

double mu_km_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Centres transposed (d x k), so that a point's distances to 8 centres at a
 * time are summed side by side in registers: s[t] += (a_j - c_jt)^2 for j in
 * order, the same operations in the same order as mu_km_d2 for each centre
 * (independent sums, no reassociation), with one load of a_j for 8 centres.
 * About 1.5 times the speed of one centre at a time. NULL: no memory. */
static double *transpose(const double *c, int k, int d) {
    double *ct = malloc(sizeof(double) * (size_t)k * (size_t)d);
    if (!ct) return NULL;
    for (int l = 0; l < k; l++)
        for (int j = 0; j < d; j++) ct[(size_t)j * k + l] = c[(size_t)l * d + j];
    return ct;
}

#define MU_KM_ROWB 8

/* row[l] = mu_km_d2(ai, centre l), from ct = transpose(c) (or c itself when
 * ct is NULL). */
static void row_d2(const double *ai, int d, const double *c, const double *ct, int k, double *row) {
    int l0 = 0;
    if (ct)
        for (; l0 + MU_KM_ROWB <= k; l0 += MU_KM_ROWB) {
            double s[MU_KM_ROWB] = {0};
            for (int j = 0; j < d; j++) {
                const double aj = ai[j], *cj = ct + (size_t)j * k + l0;
                for (int t = 0; t < MU_KM_ROWB; t++) {
                    double u = aj - cj[t];
                    s[t] += u * u;
                }
            }
            for (int t = 0; t < MU_KM_ROWB; t++) row[l0 + t] = s[t];
        }
    for (int l = l0; l < k; l++) row[l] = mu_km_d2(ai, c + (size_t)l * d, d);
}

void mu_km_all_cpu(const double *a, int m, int d, const double *c, int k, double *dist) {
    double *ct = transpose(c, k, d);
    for (int i = 0; i < m; i++) row_d2(a + (size_t)i * d, d, c, ct, k, dist + (size_t)i * k);
    free(ct);
}

/* AS 136's first step: centres 0 and 1 in order, then each further centre
 * replaces the second (or the first) only when strictly nearer, so ties keep
 * the lower index. */
void mu_km_nearest2_cpu(const double *a, int m, int d, const double *c, int k, int *ic1, int *ic2) {
    double *ct = transpose(c, k, d), *rowbuf = malloc(sizeof(double) * (size_t)k);
    for (int i = 0; i < m; i++) {
        const double *ai = a + (size_t)i * d;
        if (rowbuf) row_d2(ai, d, c, ct, k, rowbuf);
#define D2(l) (rowbuf ? rowbuf[l] : mu_km_d2(ai, c + (size_t)(l)*d, d))
        double d0 = D2(0);
        mu_km_near2 n = mu_km_near2_start(d0, k > 1 ? D2(1) : d0, k);
        for (int l = 2; l < k; l++) mu_km_near2_offer(&n, l, D2(l));
#undef D2
        ic1[i] = n.c1;
        ic2[i] = n.c2;
    }
    free(ct);
    free(rowbuf);
}

void mu_km_scan_cpu(const double *a, int m, int d, const double *c, int k, const int *ic1,
                    const int *ic2, const int *nc, const double *an1, const double *an2,
                    const unsigned char *live, int *move) {
    double *ct = transpose(c, k, d), *rowbuf = malloc(sizeof(double) * (size_t)k);
    for (int i = 0; i < m; i++) {
        const double *ai = a + (size_t)i * d;
        int c1 = ic1[i];
        if (nc[c1] == 1) {
            move[i] = -1;
            continue;
        }
        if (rowbuf) row_d2(ai, d, c, ct, k, rowbuf);
#define D2(l) (rowbuf ? rowbuf[l] : mu_km_d2(ai, c + (size_t)(l)*d, d))
        int best = ic2[i];
        double r = D2(best) * an2[best];
        for (int l = 0; l < k; l++) {
            if ((!live[c1] && !live[l]) || l == c1 || l == ic2[i]) continue;
            double dc = D2(l);
            if (dc < r / an2[l]) {
                r = dc * an2[l];
                best = l;
            }
        }
        move[i] = mu_km_move(D2(c1) * an1[c1], r, best);
#undef D2
    }
    free(ct);
    free(rowbuf);
}

/* s[t] = mu_km_d2(p[t], q[t], d) for t < MU_KM_ROWB: independent sums side by
 * side (each in mu_km_d2's order), instead of one dependent chain at a time. */
static void d2_side(const double *const *p, const double *const *q, int d, double *s) {
    for (int t = 0; t < MU_KM_ROWB; t++) s[t] = 0.0;
    for (int j = 0; j < d; j++)
        for (int t = 0; t < MU_KM_ROWB; t++) {
            double u = p[t][j] - q[t][j];
            s[t] += u * u;
        }
}

void mu_km_qtest_cpu(const double *a, int m, int d, const double *c, int k, const int *ic1,
                     const int *ic2, const int *nc, const double *an1, const double *an2,
                     const unsigned char *qchg, int *cand) {
    (void)k;
    /* the tested points, MU_KM_ROWB / 2 at a time: their two distances side by side */
    enum { H = MU_KM_ROWB / 2 };
    const double *p[MU_KM_ROWB], *q[MU_KM_ROWB];
    double s[MU_KM_ROWB];
    int pend[H], np = 0;
    for (int i = 0; i <= m; i++) {
        if (i < m) {
            int l1 = ic1[i], l2 = ic2[i];
            cand[i] = -1;
            if (nc[l1] == 1 || (!qchg[l1] && !qchg[l2])) continue;
            pend[np] = i;
            p[np] = p[H + np] = a + (size_t)i * d;
            q[np] = c + (size_t)l1 * d;
            q[H + np] = c + (size_t)l2 * d;
            np++;
            if (np < H) continue;
        }
        if (np == 0) continue;
        for (int t = np; t < H; t++) { /* padding: repeats of the first */
            p[t] = p[H + t] = p[0];
            q[t] = q[H + t] = q[0];
        }
        d2_side(p, q, d, s);
        for (int t = 0; t < np; t++) {
            int pi = pend[t], l1 = ic1[pi], l2 = ic2[pi];
            double r1 = s[t] * an1[l1];
            if (s[H + t] < r1 / an2[l2]) cand[pi] = l2;
        }
        np = 0;
    }
}

void mu_km_recompute_cpu(const double *a, int m, int d, const int *ic1, const int *nc, int k,
                         const unsigned char *touched, double *c, double *cw) {
    for (int l = 0; l < k; l++)
        if (!touched || touched[l]) {
            memset(c + (size_t)l * d, 0, sizeof(double) * (size_t)d);
            cw[l] = 0.0;
        }
    for (int i = 0; i < m; i++) {
        int l = ic1[i];
        if (touched && !touched[l]) continue;
        const double *ai = a + (size_t)i * d;
        double *cl = c + (size_t)l * d;
        for (int j = 0; j < d; j++) cl[j] += ai[j];
    }
    for (int l = 0; l < k; l++)
        if ((!touched || touched[l]) && nc[l] > 0)
            for (int j = 0; j < d; j++) c[(size_t)l * d + j] /= (double)nc[l];
    /* the members' distances MU_KM_ROWB at a time, added in point order */
    const double *p[MU_KM_ROWB], *q[MU_KM_ROWB];
    double s[MU_KM_ROWB];
    int cl[MU_KM_ROWB], np = 0;
    for (int i = 0; i <= m; i++) {
        if (i < m) {
            int l = ic1[i];
            if (touched && !touched[l]) continue;
            p[np] = a + (size_t)i * d;
            q[np] = c + (size_t)l * d;
            cl[np++] = l;
            if (np < MU_KM_ROWB) continue;
        }
        if (np == 0) continue;
        for (int t = np; t < MU_KM_ROWB; t++) {
            p[t] = p[0];
            q[t] = q[0];
        }
        d2_side(p, q, d, s);
        for (int t = 0; t < np; t++) cw[cl[t]] += s[t];
        np = 0;
    }
}

/* The backend's per-point tests (scan, qtest) over the points ctx: FN, the
 * CPU version, which takes the points and then the same arguments. */
#define CPU_POINT_TEST(name, FN)                                                                   \
    static int name(void *ctx, const double *c, int k, const int *ic1, const int *ic2,             \
                    const int *nc, const double *an1, const double *an2,                           \
                    const unsigned char *flag, int *out) {                                         \
        const mu_km_points *x = ctx;                                                               \
        FN(x->a, x->m, x->d, c, k, ic1, ic2, nc, an1, an2, flag, out);                             \
        return 0;                                                                                  \
    }
CPU_POINT_TEST(cpu_scan, mu_km_scan_cpu)
CPU_POINT_TEST(cpu_qtest, mu_km_qtest_cpu)
#undef CPU_POINT_TEST

static int cpu_recompute(void *ctx, const int *ic1, const int *nc, int k,
                         const unsigned char *touched, double *c, double *cw) {
    const mu_km_points *x = ctx;
    mu_km_recompute_cpu(x->a, x->m, x->d, ic1, nc, k, touched, c, cw);
    return 0;
}

static int cpu_all(void *ctx, const double *c, int k, double *dist) {
    const mu_km_points *x = ctx;
    mu_km_all_cpu(x->a, x->m, x->d, c, k, dist);
    return 0;
}
static int cpu_nearest2(void *ctx, const double *c, int k, int *ic1, int *ic2) {
    const mu_km_points *x = ctx;
    mu_km_nearest2_cpu(x->a, x->m, x->d, c, k, ic1, ic2);
    return 0;
}

mu_km_backend mu_km_cpu_backend(mu_km_points *pts) {
    mu_km_backend be = {pts, cpu_all, cpu_nearest2, cpu_scan, cpu_qtest, cpu_recompute, NULL};
    return be;
}

/* Each cluster's sums belong to one thread (cluster l to thread l mod the
 * count), which adds its members in point order: the serial loop's bits. */
void mu_km_means(const double *a, int m, int d, const int *ic1, int k, double *c, int *nc) {
    memset(c, 0, sizeof(double) * (size_t)k * (size_t)d);
    memset(nc, 0, sizeof(int) * (size_t)k);
    for (int i = 0; i < m; i++) nc[ic1[i]]++;
#pragma omp parallel if (m >= MU_KM_PAR_MIN)
    {
        const int nt = omp_get_num_threads(), t = omp_get_thread_num();
        for (int i = 0; i < m; i++) {
            const int l = ic1[i];
            if (l % nt != t) continue;
            for (int j = 0; j < d; j++) c[(size_t)l * d + j] += a[(size_t)i * d + j];
        }
    }
    for (int l = 0; l < k; l++)
        if (nc[l] > 0)
            for (int j = 0; j < d; j++) c[(size_t)l * d + j] /= (double)nc[l];
}
