/* Version 2 with the assignment kept by the backend (kmeans_v2.c's resident
 * branches, which the GPU's backend takes from 8192 points), run here over a
 * CPU implementation of the mu_km_resident steps: the same arithmetic as
 * Version 2 without a backend, so every answer must be identical to it
 * (assignments, centres' and sums of squares' bits, passes, ifault). The data
 * sets make batches that would empty a cluster (handed back to the host's walk)
 * and batches whose moves do not lower the sum of squares (restored, then the
 * safe subset); the test counts both, to show that those branches ran. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mu_test.h"
#include "scenarios/kmeans.h"

typedef struct {
    const double *a;
    int m, d;
    int *ic1, *ic2, *cand, *move, *save1, *save2, *leave;
    int batches, fallbacks, restores;
} res_cpu;

static int r_all(void *ctx, const double *c, int k, double *dist) {
    res_cpu *r = ctx;
    mu_km_all_cpu(r->a, r->m, r->d, c, k, dist);
    return 0;
}

/* The first step also sets the kept assignment, as the device's does. */
static int r_nearest2(void *ctx, const double *c, int k, int *ic1, int *ic2) {
    res_cpu *r = ctx;
    mu_km_nearest2_cpu(r->a, r->m, r->d, c, k, ic1, ic2);
    memcpy(r->ic1, ic1, sizeof(int) * (size_t)r->m);
    memcpy(r->ic2, ic2, sizeof(int) * (size_t)r->m);
    return 0;
}

static int r_scan_host(void *ctx, const double *c, int k, const int *ic1, const int *ic2,
                       const int *nc, const double *an1, const double *an2,
                       const unsigned char *live, int *move) {
    res_cpu *r = ctx;
    mu_km_scan_cpu(r->a, r->m, r->d, c, k, ic1, ic2, nc, an1, an2, live, move);
    return 0;
}

static int r_scan(void *ctx, const double *c, int k, const int *nc, const double *an1,
                  const double *an2, const unsigned char *live) {
    res_cpu *r = ctx;
    mu_km_scan_cpu(r->a, r->m, r->d, c, k, r->ic1, r->ic2, nc, an1, an2, live, r->move);
    for (int i = 0; i < r->m; i++) {
        const int mv = r->move[i];
        r->cand[i] = mv >= 0 ? mv : -1;
        if (mv <= -2) r->ic2[i] = -2 - mv;
    }
    return 0;
}

static int r_qtest(void *ctx, const double *c, int k, const int *nc, const double *an1,
                   const double *an2, const unsigned char *qchg) {
    res_cpu *r = ctx;
    mu_km_qtest_cpu(r->a, r->m, r->d, c, k, r->ic1, r->ic2, nc, an1, an2, qchg, r->cand);
    return 0;
}

static int r_recompute(void *ctx, int k, const unsigned char *touched, double *c, double *cw,
                       int *nc) {
    res_cpu *r = ctx;
    memset(nc, 0, sizeof(int) * (size_t)k);
    for (int i = 0; i < r->m; i++) nc[r->ic1[i]]++;
    mu_km_recompute_cpu(r->a, r->m, r->d, r->ic1, nc, k, touched, c, cw);
    return 0;
}

/* Every move at once when no cluster would lose all its points, else none. */
static int r_batch(void *ctx, int k, const int *nc, int *applied, int *moved,
                   unsigned char *touched, double *c, double *cw, int *nc_out) {
    res_cpu *r = ctx;
    if (k < 1) return 1;
    memcpy(r->save1, r->ic1, sizeof(int) * (size_t)r->m);
    memcpy(r->save2, r->ic2, sizeof(int) * (size_t)r->m);
    memset(r->leave, 0, sizeof(int) * (size_t)k);
    for (int i = 0; i < r->m; i++)
        if (r->cand[i] >= 0) r->leave[r->ic1[i]]++;
    int ok = 1;
    for (int l = 0; l < k; l++)
        if (nc[l] <= r->leave[l]) ok = 0;
    memset(touched, 0, (size_t)k);
    *applied = ok;
    *moved = 0;
    r->batches++;
    r->fallbacks += !ok;
    for (int i = 0; ok && i < r->m; i++) {
        const int to = r->cand[i], l1 = r->ic1[i];
        if (to < 0) continue;
        r->ic1[i] = to;
        r->ic2[i] = l1;
        touched[l1] = touched[to] = 1;
        (*moved)++;
    }
    return r_recompute(ctx, k, touched, c, cw, nc_out);
}

static int r_restore(void *ctx) {
    res_cpu *r = ctx;
    memcpy(r->ic1, r->save1, sizeof(int) * (size_t)r->m);
    memcpy(r->ic2, r->save2, sizeof(int) * (size_t)r->m);
    r->restores++;
    return 0;
}

static int r_pull(void *ctx, int *ic1, int *ic2, int *cand) {
    res_cpu *r = ctx;
    const size_t bytes = sizeof(int) * (size_t)r->m;
    memcpy(ic1, r->ic1, bytes);
    if (ic2) memcpy(ic2, r->ic2, bytes);
    if (cand) memcpy(cand, r->cand, bytes);
    return 0;
}

static int r_push(void *ctx, const int *ic1, const int *ic2) {
    res_cpu *r = ctx;
    memcpy(r->ic1, ic1, sizeof(int) * (size_t)r->m);
    memcpy(r->ic2, ic2, sizeof(int) * (size_t)r->m);
    return 0;
}

static const mu_km_resident resident = {r_scan,    r_qtest, r_batch, r_recompute,
                                        r_restore, r_pull,  r_push};

static uint64_t rng = 0x2545F4914F6CDD1Dull;

/* m points of d coordinates around g centres, as small integers when ints
 * (ties and equal distances abound). */
static double *make_points(int m, int d, int g, int ints) {
    double *x = malloc(sizeof(double) * (size_t)m * d);
    for (int i = 0; i < m; i++) {
        const int c = (int)(mu_test_u64(&rng) % (uint64_t)g);
        for (int j = 0; j < d; j++) {
            const double u = (double)(mu_test_u64(&rng) >> 11) / 9007199254740992.0;
            const double v = 10.0 * ((c * 7 + j * 3) % 11) + 6.0 * (u - 0.5);
            x[(size_t)i * d + j] = ints ? (double)(int)v : v;
        }
    }
    return x;
}

/* One data set: Version 2 with the CPU's resident backend against none. */
static void compare(int m, int d, int k, int g, int ints, res_cpu *tot) {
    double *a = make_points(m, d, g, ints);
    double *c1 = malloc(sizeof(double) * (size_t)k * d),
           *c2 = malloc(sizeof(double) * (size_t)k * d);
    for (int l = 0; l < k; l++) /* centres at spread points */
        memcpy(c1 + (size_t)l * d, a + (size_t)(l * (m / k)) * d, sizeof(double) * (size_t)d);
    memcpy(c2, c1, sizeof(double) * (size_t)k * d);
    int *o1 = malloc(sizeof(int) * m), *o2 = malloc(sizeof(int) * m);
    int *n1 = malloc(sizeof(int) * k), *n2 = malloc(sizeof(int) * k);
    double *w1 = malloc(sizeof(double) * k), *w2 = malloc(sizeof(double) * k);
    res_cpu r = {a,
                 m,
                 d,
                 malloc(sizeof(int) * m),
                 malloc(sizeof(int) * m),
                 malloc(sizeof(int) * m),
                 malloc(sizeof(int) * m),
                 malloc(sizeof(int) * m),
                 malloc(sizeof(int) * m),
                 malloc(sizeof(int) * k),
                 0,
                 0,
                 0};
    mu_km_backend be = {&r, r_all, r_nearest2, r_scan_host, NULL, NULL, &resident};
    mu_km_out q1 = {0}, q2 = {0};
    q1.ic1 = o1, q1.nc = n1, q1.wss = w1;
    q2.ic1 = o2, q2.nc = n2, q2.wss = w2;
    int f1 = mu_km_version2(a, m, d, c1, k, 60, 0, NULL, &q1);
    int f2 = mu_km_version2(a, m, d, c2, k, 60, 0, &be, &q2);
    CHECK(f1 == f2 && q1.iter == q2.iter, "m %d k %d: ifault %d / %d, passes %d / %d", m, k, f1, f2,
          q1.iter, q2.iter);
    if (f1 == f2 && f1 != MU_KM_EMPTY && f1 != MU_KM_BADK) {
        CHECK(!memcmp(o1, o2, sizeof(int) * m), "m %d k %d: assignments differ", m, k);
        CHECK(!memcmp(c1, c2, sizeof(double) * k * d), "m %d k %d: centres differ", m, k);
        CHECK(!memcmp(n1, n2, sizeof(int) * k), "m %d k %d: sizes differ", m, k);
        CHECK(!memcmp(w1, w2, sizeof(double) * k), "m %d k %d: sums of squares differ", m, k);
    }
    printf("m %5d d %2d k %3d%s: ifault %d, %d passes, %d batches, %d to the host's walk, %d "
           "restored\n",
           m, d, k, ints ? " (integers)" : "", f2, q2.iter, r.batches, r.fallbacks, r.restores);
    tot->batches += r.batches;
    tot->fallbacks += r.fallbacks;
    tot->restores += r.restores;
    free(r.ic1), free(r.ic2), free(r.cand), free(r.move), free(r.save1), free(r.save2);
    free(r.leave), free(a), free(c1), free(c2), free(o1), free(o2), free(n1), free(n2);
    free(w1), free(w2);
}

int main(void) {
    res_cpu tot = {0};
    const struct {
        int m, d, k, g, ints;
    } cs[] = {{500, 3, 8, 5, 0},   {300, 2, 30, 12, 0}, {200, 4, 60, 30, 1}, {2000, 6, 25, 9, 0},
              {900, 3, 40, 40, 0}, {150, 2, 45, 20, 0}, {400, 2, 70, 25, 0}};
    for (size_t t = 0; t < sizeof cs / sizeof cs[0]; t++)
        compare(cs[t].m, cs[t].d, cs[t].k, cs[t].g, cs[t].ints, &tot);
    CHECK(tot.fallbacks > 0, "no batch went to the host's walk: the data no longer test it");
    CHECK(tot.restores > 0, "no batch was restored: the data no longer test the safe subset");
    return mu_report("test_kmeans_resident");
}
