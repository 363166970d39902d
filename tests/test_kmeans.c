/* Tests of the scenario aggregation's k-means (workloads/scenarios: kmeans_hw.c,
 * kmeans_v2.c, whiten.c, aggregate.c).
 *
 *   test_kmeans            unit tests: whitening against a dense
 *                          inverse of the covariance, singular covariances,
 *                          Version 2 and Hartigan-Wong at a fixed point, the
 *                          whole-step (GPU-shaped) path equal to AS 136's
 *                          on-demand distances, probabilities summing to 1,
 *                          representatives, K > M, duplicates, bad input;
 *   test_kmeans --r DIR    Hartigan-Wong against R's kmeans() on the cases that
 *                          tests/kmeans_r.R wrote to DIR (tests/kmeans_r.sh);
 *   test_kmeans --gpu      the device's kernels and whole aggregations against
 *                          the CPU, bit for bit (exit 77 without a device). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "mu_test.h"
#include "core/free.h"
#include "core/message.h"
#include "gpu/gpu.h"
#include "gpu/scenarios_kmeans.h"
#include "gpu/scenarios_whiten.h"
#include "scenarios/aggregate.h"
#include "scenarios/kmeans.h"
#include "scenarios/represent.h"
#include "core/whiten.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_u64(void) {
    return mu_test_u64(&rng);
}
static double unif(void) { /* (0, 1) */
    return ((double)(next_u64() >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void) {
    return sqrt(-2.0 * log(unif())) * cos(6.283185307179586 * unif());
}

/* m points in d dimensions around g centres (spread s); with ints, rounded to
 * a few integer values so that ties and duplicates abound. */
static double *make_data(int m, int d, int g, double s, int ints) {
    double *mu = malloc(sizeof(double) * g * d), *x = malloc(sizeof(double) * m * d);
    for (int t = 0; t < g * d; t++) mu[t] = 10.0 * gauss();
    for (int i = 0; i < m; i++) {
        int c = (int)(next_u64() % (uint64_t)g);
        for (int j = 0; j < d; j++) {
            double v = mu[c * d + j] + s * gauss();
            x[i * d + j] = ints ? round(v / 4.0) : v;
        }
    }
    free(mu);
    return x;
}

/* Inverse of the sample covariance by Gauss-Jordan with partial pivoting. */
static void cov_inverse(const double *x, int m, int d, double *inv) {
    double *mean = calloc(d, sizeof(double)), *a = calloc((size_t)d * 2 * d, sizeof(double));
    for (int i = 0; i < m; i++)
        for (int j = 0; j < d; j++) mean[j] += x[i * d + j] / m;
    for (int i = 0; i < m; i++)
        for (int p = 0; p < d; p++)
            for (int q = 0; q < d; q++)
                a[p * 2 * d + q] += (x[i * d + p] - mean[p]) * (x[i * d + q] - mean[q]) / (m - 1);
    for (int p = 0; p < d; p++) a[p * 2 * d + d + p] = 1.0;
    for (int c = 0; c < d; c++) {
        int piv = c;
        for (int r = c + 1; r < d; r++)
            if (fabs(a[r * 2 * d + c]) > fabs(a[piv * 2 * d + c])) piv = r;
        for (int q = 0; q < 2 * d; q++) {
            double t = a[c * 2 * d + q];
            a[c * 2 * d + q] = a[piv * 2 * d + q];
            a[piv * 2 * d + q] = t;
        }
        double p = a[c * 2 * d + c];
        for (int q = 0; q < 2 * d; q++) a[c * 2 * d + q] /= p;
        for (int r = 0; r < d; r++)
            if (r != c) {
                double f = a[r * 2 * d + c];
                for (int q = 0; q < 2 * d; q++) a[r * 2 * d + q] -= f * a[c * 2 * d + q];
            }
    }
    for (int p = 0; p < d; p++)
        for (int q = 0; q < d; q++) inv[p * d + q] = a[p * 2 * d + d + q];
    free(mean);
    free(a);
}

static double mahal(const double *a, const double *b, const double *inv, int d) {
    double s = 0.0;
    for (int p = 0; p < d; p++)
        for (int q = 0; q < d; q++) s += (a[p] - b[p]) * inv[p * d + q] * (a[q] - b[q]);
    return s;
}

static void test_whiten_mahalanobis(void) {
    int m = 300, d = 7, r;
    double *x = make_data(m, d, 3, 2.0, 0), *y = malloc(sizeof(double) * m * d);
    for (int i = 0; i < m; i++) x[i * d + 6] = 1e4 * x[i * d + 6] + 3.0 * x[i * d + 1];
    double inv[49];
    CHECK_INT_EQ(mu_whiten(x, m, d, y, &r), 0);
    CHECK_INT_EQ(r, d);
    cov_inverse(x, m, d, inv);
    for (int t = 0; t < 200; t++) {
        int a = (int)(next_u64() % m), b = (int)(next_u64() % m);
        double want = mahal(x + a * d, x + b * d, inv, d);
        double got = mu_km_d2(y + a * d, y + b * d, d);
        CHECK_TRUE(fabs(got - want) <= 1e-9 * (want + 1.0));
    }
    free(x);
    free(y);
}

/* A station that is a combination of two others, and a constant one: the rank
 * drops by two and the distances are those of the independent stations. */
/* From 8192 scenarios the whitening runs on threads (each sum still over the
 * points in order): the same bits with one thread and with several. */
static void test_whiten_threads(void) {
    int m = 9001, d = 23, r1 = 0, r2 = 0;
    double *x = make_data(m, d, 5, 2.0, 0), *y1 = malloc(sizeof(double) * m * d),
           *y2 = malloc(sizeof(double) * m * d);
    int nt = omp_get_max_threads();
    omp_set_num_threads(1);
    CHECK_INT_EQ(mu_whiten(x, m, d, y1, &r1), 0);
    omp_set_num_threads(nt > 1 ? nt : 3);
    CHECK_INT_EQ(mu_whiten(x, m, d, y2, &r2), 0);
    omp_set_num_threads(nt);
    CHECK_INT_EQ(r1, r2);
    CHECK_MEM_EQ(y1, y2, sizeof(double) * m * d);
    free(x), free(y1), free(y2);
}

static void test_whiten_singular(void) {
    int m = 200, d0 = 4, d = 6, r0, r;
    double *x0 = make_data(m, d0, 2, 1.5, 0), *x = malloc(sizeof(double) * m * d);
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < d0; j++) x[i * d + j] = x0[i * d0 + j];
        x[i * d + 4] = 0.1; /* constant: its mean is not exactly 0.1 */
        x[i * d + 5] = x0[i * d0] - 2.5 * x0[i * d0 + 2];
    }
    double *y0 = malloc(sizeof(double) * m * d0), *y = malloc(sizeof(double) * m * d);
    CHECK_INT_EQ(mu_whiten(x0, m, d0, y0, &r0), 0);
    CHECK_INT_EQ(mu_whiten(x, m, d, y, &r), 0);
    CHECK_INT_EQ(r0, 4);
    CHECK_INT_EQ(r, 4);
    for (int t = 0; t < 200; t++) {
        int a = (int)(next_u64() % m), b = (int)(next_u64() % m);
        double want = mu_km_d2(y0 + a * d0, y0 + b * d0, d0);
        double got = mu_km_d2(y + a * d, y + b * d, r);
        CHECK_TRUE(fabs(got - want) <= 1e-7 * (want + 1.0));
    }
    /* All scenarios alike: rank 0. */
    for (int i = 0; i < m * d; i++) x[i] = 3.0;
    CHECK_INT_EQ(mu_whiten(x, m, d, y, &r), 0);
    CHECK_INT_EQ(r, 0);
    free(x0);
    free(x);
    free(y0);
    free(y);
}

/* Every point is nearest (<=) its own cluster's mean, the means recomputed here. */
static void check_fixed_point(const double *a, int m, int d, const int *ic1, int k) {
    double *c = calloc((size_t)k * d, sizeof(double));
    int *nc = calloc(k, sizeof(int));
    for (int i = 0; i < m; i++) {
        nc[ic1[i]]++;
        for (int j = 0; j < d; j++) c[ic1[i] * d + j] += a[i * d + j];
    }
    for (int l = 0; l < k; l++) {
        CHECK_TRUE(nc[l] > 0);
        for (int j = 0; j < d; j++) c[l * d + j] /= nc[l];
    }
    for (int i = 0; i < m; i++) {
        double own = mu_km_d2(a + i * d, c + ic1[i] * d, d);
        for (int l = 0; l < k; l++) CHECK_TRUE(own <= mu_km_d2(a + i * d, c + l * d, d));
    }
    free(c);
    free(nc);
}

static void start_centres(const double *a, int m, int d, int k, double *c) {
    /* k distinct points: the first k of a stride through the data */
    for (int l = 0; l < k; l++)
        memcpy(c + l * d, a + ((size_t)l * (m / k)) * d, sizeof(double) * d);
}

static void test_fixed_points(void) {
    struct {
        int m, d, g, k;
        double s;
    } cs[] = {{500, 2, 5, 5, 0.5},
              {1024, 8, 10, 116, 4.0},
              {1024, 16, 30, 513, 6.0},
              {300, 3, 3, 12, 2.0},
              {2000, 4, 20, 20, 10.0}};
    for (size_t t = 0; t < sizeof cs / sizeof cs[0]; t++) {
        int m = cs[t].m, d = cs[t].d, k = cs[t].k;
        double *a = make_data(m, d, cs[t].g, cs[t].s, 0), *c = malloc(sizeof(double) * k * d);
        int *ic1 = malloc(sizeof(int) * m), *nc = malloc(sizeof(int) * k);
        for (int v2 = 0; v2 < 2; v2++) {
            start_centres(a, m, d, k, c);
            mu_km_out o = {0};
            o.ic1 = ic1;
            o.nc = nc;
            int f = v2 ? mu_km_version2(a, m, d, c, k, 200, 0, NULL, &o)
                       : mu_km_hartigan_wong(a, m, d, c, k, 200, 0, NULL, &o);
            CHECK_INT_EQ(f, MU_KM_OK);
            CHECK_TRUE(o.iter >= 1 && o.iter <= 200);
            check_fixed_point(a, m, d, ic1, k);
        }
        free(a);
        free(c);
        free(ic1);
        free(nc);
    }
}

/* The CPU's whole distance step (8 centres at a time) has mu_km_d2's bits. */
static void test_distance_rows(void) {
    int dims[][3] = {{37, 13, 19}, {5, 1, 8}, {64, 64, 513}, {3, 100, 7}};
    for (int t = 0; t < 4; t++) {
        int m = dims[t][0], d = dims[t][1], k = dims[t][2];
        double *a = make_data(m, d, 3, 5.0, 0), *c = make_data(k, d, 3, 5.0, 0);
        double *dist = malloc(sizeof(double) * m * k);
        mu_km_all_cpu(a, m, d, c, k, dist);
        for (int i = 0; i < m; i++)
            for (int l = 0; l < k; l++) {
                double want = mu_km_d2(a + i * d, c + l * d, d);
                CHECK_BITS(dist[i * k + l], want);
            }
        free(a);
        free(c);
        free(dist);
    }
}

/* Whole distance steps (the path the GPU takes) give AS 136's decisions. */
static void test_whole_steps_equal(void) {
    int m = 1024, d = 6, k = 143;
    double *a = make_data(m, d, 40, 5.0, 0);
    for (int ints = 0; ints < 2; ints++) {
        if (ints)
            for (int i = 0; i < m * d; i++) a[i] = round(a[i] / 3.0);
        double *c1 = malloc(sizeof(double) * k * d), *c2 = malloc(sizeof(double) * k * d);
        int *g1 = malloc(sizeof(int) * m), *g2 = malloc(sizeof(int) * m);
        int *n1 = malloc(sizeof(int) * k), *n2 = malloc(sizeof(int) * k);
        /* distinct starting points */
        int l = 0;
        for (int i = 0; i < m && l < k; i++) {
            int dup = 0;
            for (int q = 0; q < l && !dup; q++)
                dup = !memcmp(c1 + q * d, a + i * d, sizeof(double) * d);
            if (!dup) memcpy(c1 + (l++) * d, a + i * d, sizeof(double) * d);
        }
        CHECK_INT_EQ(l, k);
        for (int v2 = 0; v2 < 2; v2++) {
            double *c0 = malloc(sizeof(double) * k * d);
            memcpy(c0, c1, sizeof(double) * k * d);
            memcpy(c2, c1, sizeof(double) * k * d);
            mu_km_points pts = {a, m, d};
            mu_km_backend be = mu_km_cpu_backend(&pts);
            mu_km_out o1 = {0}, o2 = {0};
            o1.ic1 = g1, o1.nc = n1, o2.ic1 = g2, o2.nc = n2;
            int f1 = v2 ? mu_km_version2(a, m, d, c0, k, 100, 0, NULL, &o1)
                        : mu_km_hartigan_wong(a, m, d, c0, k, 100, 0, NULL, &o1);
            int f2 = v2 ? mu_km_version2(a, m, d, c2, k, 100, 0, &be, &o2)
                        : mu_km_hartigan_wong(a, m, d, c2, k, 100, 0, &be, &o2);
            CHECK_INT_EQ(f1, f2);
            CHECK_INT_EQ(o1.iter, o2.iter);
            CHECK_MEM_EQ(g1, g2, sizeof(int) * m);
            CHECK_ARRAY_BITS(c0, c2, k * d);
            free(c0);
        }
        MU_FREE(c1, c2, g1, g2, n1, n2);
    }
    free(a);
}

/* Version 2's bookkeeping steps: recomputing only flagged clusters gives
 * mu_km_means's rows for them and leaves the others; the sums of squares are
 * the members' distances in point order; the quick test is its definition. */
static void test_bookkeeping(void) {
    int m = 700, d = 5, k = 23;
    double *a = make_data(m, d, 9, 3.0, 0), *c = malloc(sizeof(double) * k * d);
    double *ref = malloc(sizeof(double) * k * d), *cw = malloc(sizeof(double) * k);
    int *ic1 = malloc(sizeof(int) * m), *ic2 = malloc(sizeof(int) * m),
        *nc = malloc(sizeof(int) * k);
    int *nref = malloc(sizeof(int) * k), *cand = malloc(sizeof(int) * m);
    unsigned char fl[23];
    for (int i = 0; i < m; i++) {
        ic1[i] = (int)(next_u64() % (unsigned)(k - 1)); /* cluster k-1 stays empty */
        ic2[i] = (ic1[i] + 1 + (int)(next_u64() % (unsigned)(k - 1))) % k;
    }
    mu_km_means(a, m, d, ic1, k, ref, nref);
    memset(nc, 0, sizeof(int) * k);
    for (int i = 0; i < m; i++) nc[ic1[i]]++;
    CHECK_MEM_EQ(nc, nref, sizeof(int) * k);
    for (int l = 0; l < k; l++) fl[l] = l % 3 == 0;
    for (int p = 0; p < k * d; p++) c[p] = -7.0;
    for (int l = 0; l < k; l++) cw[l] = -7.0;
    mu_km_recompute_cpu(a, m, d, ic1, nc, k, fl, c, cw);
    for (int l = 0; l < k; l++) {
        if (!fl[l]) {
            CHECK_TRUE(cw[l] == -7.0 && c[l * d] == -7.0);
            continue;
        }
        CHECK_ARRAY_BITS(c + l * d, ref + l * d, d);
        double w = 0.0;
        for (int i = 0; i < m; i++)
            if (ic1[i] == l) w += mu_km_d2(a + i * d, ref + l * d, d);
        CHECK_BITS(cw[l], w);
    }
    mu_km_recompute_cpu(a, m, d, ic1, nc, k, NULL, c, cw);
    CHECK_ARRAY_BITS(c, ref, k * d);
    CHECK_TRUE(cw[k - 1] == 0.0);
    double an1[23], an2[23];
    for (int l = 0; l < k; l++) {
        an1[l] = nc[l] > 1 ? nc[l] / (nc[l] - 1.0) : 1e30;
        an2[l] = nc[l] / (nc[l] + 1.0);
    }
    mu_km_qtest_cpu(a, m, d, c, k, ic1, ic2, nc, an1, an2, fl, cand);
    for (int i = 0; i < m; i++) {
        int l1 = ic1[i], l2 = ic2[i], want = -1;
        if (nc[l1] > 1 && (fl[l1] || fl[l2]) &&
            mu_km_d2(a + i * d, c + l2 * d, d) <
                mu_km_d2(a + i * d, c + l1 * d, d) * an1[l1] / an2[l2])
            want = l2;
        CHECK_INT_EQ(cand[i], want);
    }
    free(a), free(c), free(ref), free(cw), free(ic1), free(ic2), free(nc), free(nref), free(cand);
}

/* Checks every promise of aggregate.h on one result. */
static void check_result(const double *x, int m, int d, int kask, const mu_agg_result *r) {
    CHECK_TRUE(r->k >= 1 && r->k <= kask && r->k <= m);
    int *cnt = calloc(r->k, sizeof(int));
    for (int i = 0; i < m; i++) {
        CHECK_TRUE(r->group[i] >= 0 && r->group[i] < r->k);
        cnt[r->group[i]]++;
    }
    double sum = 0.0;
    for (int l = 0; l < r->k; l++) {
        CHECK_TRUE(cnt[l] > 0);
        CHECK_TRUE(r->prob[l] == (double)cnt[l] / m);
        sum += r->prob[l];
        CHECK_INT_EQ(r->group[r->rep[l]], l);
        if (l > 0) CHECK_TRUE(r->rep[l] > r->rep[l - 1]);
    }
    CHECK_TRUE(fabs(sum - 1.0) <= 4.0 * r->k * 2.220446049250313e-16);
    /* representative: the member nearest the centroid in Mahalanobis distance */
    if (r->rank == d && m > d) {
        double *inv = malloc(sizeof(double) * d * d), *c = calloc((size_t)r->k * d, sizeof(double));
        cov_inverse(x, m, d, inv);
        for (int i = 0; i < m; i++)
            for (int j = 0; j < d; j++) c[r->group[i] * d + j] += x[i * d + j] / cnt[r->group[i]];
        double *best = malloc(sizeof(double) * r->k);
        for (int l = 0; l < r->k; l++) best[l] = INFINITY;
        for (int i = 0; i < m; i++) {
            double v = mahal(x + i * d, c + r->group[i] * d, inv, d);
            if (v < best[r->group[i]]) best[r->group[i]] = v;
        }
        for (int l = 0; l < r->k; l++) {
            double v = mahal(x + r->rep[l] * d, c + l * d, inv, d);
            CHECK_TRUE(v <= best[l] + 1e-9 * (1.0 + best[l]));
        }
        free(inv);
        free(c);
        free(best);
    }
    free(cnt);
}

static void test_aggregate(void) {
    struct {
        int m, d, k;
    } cs[] = {{1024, 8, 30}, {1024, 16, 200}, {500, 5, 2}, {200, 3, 1}, {100, 4, 99}};
    for (size_t t = 0; t < sizeof cs / sizeof cs[0]; t++) {
        int m = cs[t].m, d = cs[t].d, k = cs[t].k;
        double *x = make_data(m, d, 12, 3.0, 0);
        for (int meth = 0; meth < 2; meth++) {
            mu_agg_result a, b;
            CHECK_INT_EQ(mu_agg_cluster(x, m, d, k, meth, 100, 7, 0, &a), 0);
            CHECK_INT_EQ(a.k, k);
            CHECK_TRUE(a.converged);
            check_result(x, m, d, k, &a);
            /* deterministic in the key */
            CHECK_INT_EQ(mu_agg_cluster(x, m, d, k, meth, 100, 7, 0, &b), 0);
            CHECK_INT_EQ(a.k, b.k);
            CHECK_MEM_EQ(a.group, b.group, sizeof(int) * m);
            CHECK_MEM_EQ(a.rep, b.rep, sizeof(int) * a.k);
            mu_agg_result_free(&b);
            mu_agg_result_free(&a);
        }
        free(x);
    }
}

/* K > M, K above the number of distinct points, duplicates, one point. */
static void test_aggregate_edges(void) {
    int m = 60, d = 3;
    double *x = make_data(m, d, 4, 2.0, 0);
    mu_agg_result r;
    CHECK_INT_EQ(mu_agg_cluster(x, m, d, 100, MU_AGG_HARTIGAN_WONG, 50, 1, 0, &r), 0);
    CHECK_INT_EQ(r.k, m); /* K > M: one group per scenario */
    for (int l = 0; l < m; l++) CHECK_INT_EQ(r.rep[l], l);
    check_result(x, m, d, 100, &r);
    mu_agg_result_free(&r);
    /* 20 distinct rows, each three times: K = 40 gives 20 groups */
    for (int i = 20; i < m; i++) memcpy(x + i * d, x + (i % 20) * d, sizeof(double) * d);
    CHECK_INT_EQ(mu_agg_cluster(x, m, d, 40, MU_AGG_VERSION2, 50, 1, 0, &r), 0);
    CHECK_INT_EQ(r.k, 20);
    for (int i = 0; i < m; i++) CHECK_INT_EQ(r.group[i], i % 20);
    for (int l = 0; l < 20; l++) CHECK_TRUE(r.prob[l] == 3.0 / 60.0);
    mu_agg_result_free(&r);
    /* duplicates with K below the distinct count: still a valid partition */
    for (int meth = 0; meth < 2; meth++) {
        CHECK_INT_EQ(mu_agg_cluster(x, m, d, 6, meth, 50, 3, 0, &r), 0);
        CHECK_INT_EQ(r.k, 6);
        check_result(x, m, d, 6, &r);
        mu_agg_result_free(&r);
    }
    /* all alike: one group, representative 0 */
    for (int i = 0; i < m * d; i++) x[i] = 2.5;
    CHECK_INT_EQ(mu_agg_cluster(x, m, d, 5, MU_AGG_HARTIGAN_WONG, 50, 1, 0, &r), 0);
    CHECK_INT_EQ(r.k, 1);
    CHECK_INT_EQ(r.rep[0], 0);
    CHECK_TRUE(r.prob[0] == 1.0);
    mu_agg_result_free(&r);
    CHECK_INT_EQ(mu_agg_cluster(x, 1, d, 3, MU_AGG_VERSION2, 50, 1, 0, &r), 0);
    CHECK_INT_EQ(r.k, 1);
    mu_agg_result_free(&r);
    /* representative ties: equal members nearest the centroid, the lowest index wins */
    {
        double v[] = {0, 5, 0, 100, 101, 100};
        for (int meth = 0; meth < 2; meth++) {
            CHECK_INT_EQ(mu_agg_cluster(v, 6, 1, 2, meth, 50, 9, 0, &r), 0);
            CHECK_INT_EQ(r.k, 2);
            CHECK_INT_EQ(r.rep[0], 0);
            CHECK_INT_EQ(r.rep[1], 3);
            CHECK_TRUE(r.prob[0] == 0.5 && r.prob[1] == 0.5);
            mu_agg_result_free(&r);
        }
    }
    /* bad input */
    x[7] = NAN;
    CHECK_INT_EQ(mu_agg_cluster(x, m, d, 5, MU_AGG_HARTIGAN_WONG, 50, 1, 0, &r), 1);
    CHECK_TRUE(strstr(mu_error_message(), "not a finite number") != NULL);
    x[7] = 1.0;
    CHECK_INT_EQ(mu_agg_cluster(x, m, d, 0, MU_AGG_HARTIGAN_WONG, 50, 1, 0, &r), 1);
    CHECK_STR_EQ(mu_error_message(), "aggregation needs K >= 1 groups");
    free(x);
}

/* ---- R comparison -------------------------------------------------------- */

static int read_case(const char *path, int *m, int *d, int *k, int *it, double **x, double **c) {
    FILE *f = fopen(path, "r");
    if (!f || fscanf(f, "%d %d %d %d", m, d, k, it) != 4) return 1;
    *x = malloc(sizeof(double) * *m * *d);
    *c = malloc(sizeof(double) * *k * *d);
    for (int t = 0; t < *m * *d; t++)
        if (fscanf(f, "%lf", *x + t) != 1) return 1;
    for (int t = 0; t < *k * *d; t++)
        if (fscanf(f, "%lf", *c + t) != 1) return 1;
    fclose(f);
    return 0;
}

static int r_compare(const char *dir) {
    int ncase = 0;
    for (int n = 1; n < 100; n++) {
        char pin[1024], pout[1024], word[32];
        snprintf(pin, sizeof pin, "%s/case_%02d.in", dir, n);
        snprintf(pout, sizeof pout, "%s/case_%02d.out", dir, n);
        int m, d, k, itmax;
        double *x, *c;
        if (read_case(pin, &m, &d, &k, &itmax, &x, &c)) break;
        ncase++;
        FILE *f = fopen(pout, "r");
        int rf, riter = 0;
        CHECK(f && fscanf(f, "%31s %d", word, &rf) == 2, "case %d: no R result", n);
        /* both the on-demand (AS 136) and the whole-step (GPU-shaped) paths */
        for (int path = 0; path < 2; path++) {
            double *cc = malloc(sizeof(double) * k * d), *wss = malloc(sizeof(double) * k);
            int *ic1 = malloc(sizeof(int) * m), *nc = malloc(sizeof(int) * k);
            memcpy(cc, c, sizeof(double) * k * d);
            mu_km_points pts = {x, m, d};
            mu_km_backend be = mu_km_cpu_backend(&pts);
            mu_km_out o = {0};
            o.ic1 = ic1, o.nc = nc, o.wss = wss;
            int f2 = mu_km_hartigan_wong(x, m, d, cc, k, itmax, 0, path ? &be : NULL, &o);
            CHECK(f2 == rf, "case %d path %d: ifault %d, R %d", n, path, f2, rf);
            if (rf == 0 || rf == 2 || rf == 4) {
                if (path == 0)
                    CHECK(fscanf(f, "%31s %d %31s", word, &riter, word) == 3, "case %d", n);
                CHECK(o.iter == riter, "case %d path %d: iter %d, R %d", n, path, o.iter, riter);
                long pos = ftell(f);
                int bad = 0;
                for (int i = 0; i < m; i++) {
                    int g;
                    if (fscanf(f, "%d", &g) != 1 || g != ic1[i] + 1) bad++;
                }
                CHECK(!bad, "case %d path %d: %d assignments differ from R's", n, path, bad);
                int badc = 0;
                double v;
                if (fscanf(f, "%31s", word) != 1) badc++;
                for (int t = 0; t < k * d; t++)
                    if (fscanf(f, "%lf", &v) != 1 || !mu_close_rel(v, cc[t], 1e-12)) badc++;
                CHECK(!badc, "case %d path %d: %d centre values differ", n, path, badc);
                if (fscanf(f, "%31s", word) != 1) badc++;
                for (int l = 0; l < k; l++)
                    if (fscanf(f, "%lf", &v) != 1 || !mu_close_rel(v, wss[l], 1e-12)) badc++;
                CHECK(!badc, "case %d path %d: withinss differ", n, path);
                fseek(f, pos, SEEK_SET);
            }
            printf("case %2d: m %4d d %2d k %3d: ifault %d (R %d) iter %d (R %d)%s\n", n, m, d, k,
                   f2, rf, o.iter, riter, path ? " whole steps" : "");
            free(cc);
            free(wss);
            free(ic1);
            free(nc);
        }
        if (f) fclose(f);
        free(x);
        free(c);
    }
    CHECK(ncase >= 10, "only %d cases in %s", ncase, dir);
    printf("%d cases\n", ncase);
    return mu_report("test_kmeans --r");
}

/* ---- GPU against CPU ----------------------------------------------------- */

/* mu_gpu_whiten against mu_whiten (its rows compacted to the rank): the same
 * rank and the same bits, the same message on a non-finite value. */
static void gpu_whiten_case(const double *x, int m, int d) {
    double *y1 = malloc(sizeof(double) * (size_t)m * d);
    const double *y2 = NULL; /* the thread's host rows, kept by the device whitening */
    char e1[128];
    int r1 = -1, r2 = -1;
    mu_error_clear();
    int f1 = mu_whiten(x, m, d, y1, &r1);
    snprintf(e1, sizeof e1, "%s", mu_error_message());
    mu_error_clear();
    int f2 = mu_gpu_whiten(x, m, d, &y2, &r2);
    const char *e2 = mu_error_message();
    CHECK(f1 == f2 && !strcmp(e1, e2), "whiten m %d d %d: CPU %d '%s', GPU %d '%s'", m, d, f1, e1,
          f2, e2);
    if (f1 == 0 && f2 == 0) {
        CHECK_INT_EQ(r1, r2);
        for (int i = 1; i < m; i++)
            memmove(y1 + (size_t)i * r1, y1 + (size_t)i * d, sizeof(double) * r1);
        CHECK(r1 != r2 || !memcmp(y1, y2, sizeof(double) * (size_t)m * r1),
              "whiten m %d d %d: CPU and GPU differ", m, d);
        printf("whiten m %6d d %3d: rank %d, CPU == GPU\n", m, d, r2);
    }
    free(y1);
}

static void gpu_whiten(void) {
    int sizes[][2] = {{2, 3}, {1000, 1}, {9001, 23}, {100000, 64}, {20000, 67}, {4097, 130}};
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
        int m = sizes[t][0], d = sizes[t][1];
        double *x = make_data(m, d, 5, 2.0, 0);
        gpu_whiten_case(x, m, d);
        if (d >= 4) { /* a constant station and a combination of two others */
            for (int i = 0; i < m; i++) {
                x[(size_t)i * d + 1] = 0.1;
                x[(size_t)i * d + 3] = x[(size_t)i * d] - 2.5 * x[(size_t)i * d + 2];
            }
            gpu_whiten_case(x, m, d);
            x[(size_t)(m / 2) * d + 2] = NAN;
            x[(size_t)(m - 1) * d] = INFINITY;
            gpu_whiten_case(x, m, d);
        }
        free(x);
    }
    double *x = make_data(300, 5, 2, 1.0, 1); /* integer values: ties and duplicates */
    gpu_whiten_case(x, 300, 5);
    for (int i = 0; i < 300 * 5; i++) x[i] = 3.0; /* all alike: rank 0 */
    gpu_whiten_case(x, 300, 5);
    free(x);
}

/* The device's means of x (sample and groups), which a GPU aggregation
 * alone returns, against the host's sums on the CPU's result: the same bits. */
static void check_device_means(const double *x, int m, int d, const mu_agg_result *cpu,
                               const mu_agg_result *gpu) {
    if (!CHECK(gpu->xmean && gpu->xgroup_mean && !cpu->xmean && !cpu->xgroup_mean,
               "means of x: the GPU's result should carry them, the CPU's not"))
        return;
    double *groups = malloc(sizeof(double) * cpu->k * d), *mean = malloc(sizeof(double) * d);
    if (!groups || !mean) {
        CHECK(0, "out of memory");
    } else {
        CHECK_INT_EQ(mu_sc_represent(MU_SC_REP_CENTROID, x, m, d, cpu, groups, mean), 0);
        CHECK(!memcmp(groups, gpu->xgroup_mean, sizeof(double) * cpu->k * d) &&
                  !memcmp(mean, gpu->xmean, sizeof(double) * d),
              "means of x: the device's differ from the host's sums");
    }
    free(groups);
    free(mean);
}

/* Large aggregations (the device's whitening and its check that no two rows
 * are equal) on points with repeated rows, once with none: the CPU's groups,
 * representatives and iterations, and the host's means of x. */
static void gpu_duplicates(void) {
    const int m = 20000, d = 6, k = 9;
    for (int every = 0; every <= 7; every += 7) {
        double *x = make_data(m, d, 12, 3.0, 0);
        for (int i = 1; every && i < m; i++)
            if (i % every == 0)
                memcpy(x + (size_t)i * d, x + (size_t)(i / 2) * d, sizeof(double) * d);
        mu_agg_result rc, rg;
        int e1 = mu_agg_cluster(x, m, d, k, MU_AGG_VERSION2, 100, 5, 0, &rc);
        int e2 = mu_agg_cluster(x, m, d, k, MU_AGG_VERSION2, 100, 5, 1, &rg);
        CHECK(e1 == 0 && e2 == 0, "aggregate: %s", mu_error_message());
        if (e1 == 0 && e2 == 0)
            CHECK(rc.k == rg.k && rc.iterations == rg.iterations &&
                      !memcmp(rc.group, rg.group, sizeof(int) * m) &&
                      !memcmp(rc.rep, rg.rep, sizeof(int) * rc.k),
                  "every %d-th row repeated: CPU and GPU groups differ", every);
        if (e1 == 0 && e2 == 0 && rc.k == rg.k) check_device_means(x, m, d, &rc, &rg);
        printf("m %d, every %d-th row repeated: CPU == GPU (groups, means)\n", m, every);
        if (e1 == 0) mu_agg_result_free(&rc);
        if (e2 == 0) mu_agg_result_free(&rg);
        free(x);
    }
}

static int gpu_compare(void) {
    if (mu_gpu_device_count() < 1) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    mu_gpu_info info;
    if (!CHECK(mu_gpu_select(0, &info) == 0, "device 0: %s", mu_gpu_error()))
        return mu_report("test_kmeans --gpu");
    printf("device: %s\n", info.name);
    gpu_whiten();
    struct {
        int m, d, k;
    } cs[] = {{1, 3, 1},        {1000, 1, 7},   {1024, 64, 116}, {1024, 58, 513}, {5000, 100, 40},
              {100000, 16, 20}, {777, 33, 200}, {30000, 64, 20}, {20000, 67, 3}};
    for (size_t t = 0; t < sizeof cs / sizeof cs[0]; t++) {
        int m = cs[t].m, d = cs[t].d, k = cs[t].k;
        double *a = make_data(m, d, 25, 4.0, 0), *c = malloc(sizeof(double) * k * d);
        for (int l = 0; l < k; l++)
            for (int j = 0; j < d; j++) c[l * d + j] = a[(size_t)(l % m) * d + j] + 0.5 * gauss();
        double *d1 = malloc(sizeof(double) * (size_t)m * k),
               *d2 = malloc(sizeof(double) * (size_t)m * k);
        int *i1 = malloc(sizeof(int) * m), *i2 = malloc(sizeof(int) * m);
        int *j1 = malloc(sizeof(int) * m), *j2 = malloc(sizeof(int) * m);
        mu_gpu_km *g;
        CHECK(mu_gpu_km_create(a, m, d, k, &g) == 0, "create: %s", mu_gpu_error());
        mu_km_all_cpu(a, m, d, c, k, d1);
        CHECK(mu_gpu_km_all(g, c, k, d2) == 0, "all: %s", mu_gpu_error());
        CHECK(!memcmp(d1, d2, sizeof(double) * (size_t)m * k), "m %d d %d k %d: distances differ",
              m, d, k);
        if (k >= 2) {
            mu_km_nearest2_cpu(a, m, d, c, k, i1, i2);
            CHECK(mu_gpu_km_nearest2(g, c, k, j1, j2) == 0, "nearest2: %s", mu_gpu_error());
            CHECK(!memcmp(i1, j1, sizeof(int) * m) && !memcmp(i2, j2, sizeof(int) * m),
                  "m %d d %d k %d: nearest two differ", m, d, k);
            /* the Version 2 scan with random counts and live flags */
            int *nc = malloc(sizeof(int) * k);
            double *an1 = malloc(sizeof(double) * k), *an2 = malloc(sizeof(double) * k);
            unsigned char *live = malloc(k);
            for (int l = 0; l < k; l++) {
                nc[l] = 1 + (int)(next_u64() % 5);
                an1[l] = nc[l] > 1 ? nc[l] / (nc[l] - 1.0) : 1e30;
                an2[l] = nc[l] / (nc[l] + 1.0);
                live[l] = next_u64() % 3 == 0;
            }
            int *l1 = malloc(sizeof(int) * m), *l2 = malloc(sizeof(int) * m);
            mu_km_scan_cpu(a, m, d, c, k, i1, i2, nc, an1, an2, live, l1);
            CHECK(mu_gpu_km_scan(g, c, k, i1, i2, nc, an1, an2, live, l2) == 0, "scan: %s",
                  mu_gpu_error());
            CHECK(!memcmp(l1, l2, sizeof(int) * m), "m %d d %d k %d: scans differ", m, d, k);
            /* Version 2's bookkeeping: the quick-transfer test (random counts and
             * flags) and the centre sums (true counts; random flags, then all) */
            mu_km_qtest_cpu(a, m, d, c, k, i1, i2, nc, an1, an2, live, l1);
            CHECK(mu_gpu_km_qtest(g, c, k, i1, i2, nc, an1, an2, live, l2) == 0, "qtest: %s",
                  mu_gpu_error());
            CHECK(!memcmp(l1, l2, sizeof(int) * m), "m %d d %d k %d: quick tests differ", m, d, k);
            memset(nc, 0, sizeof(int) * k);
            for (int i = 0; i < m; i++) nc[i1[i]]++;
            double *cc = malloc(sizeof(double) * k * d), *cg = malloc(sizeof(double) * k * d);
            double *w1 = malloc(sizeof(double) * k), *w2 = malloc(sizeof(double) * k);
            for (int all = 0; all < 2; all++) {
                memcpy(cc, c, sizeof(double) * k * d);
                memcpy(cg, c, sizeof(double) * k * d);
                for (int l = 0; l < k; l++) w1[l] = w2[l] = -1.0;
                mu_km_recompute_cpu(a, m, d, i1, nc, k, all ? NULL : live, cc, w1);
                CHECK(mu_gpu_km_res_push(g, i1, i2) == 0 &&
                          mu_gpu_km_res_recompute(g, k, all ? NULL : live, cg, w2, l2) == 0,
                      "recompute: %s", mu_gpu_error());
                CHECK(!memcmp(cc, cg, sizeof(double) * k * d) &&
                          !memcmp(w1, w2, sizeof(double) * k) && !memcmp(nc, l2, sizeof(int) * k),
                      "m %d d %d k %d: recomputed centres differ (%s)", m, d, k,
                      all ? "all" : "flagged");
            }
            /* whole Version 2 runs with every step on the device (the assignment
             * kept there), against the CPU */
            mu_km_backend be = mu_km_gpu_backend(g, 0, 1);
            int *o1 = malloc(sizeof(int) * m), *o2 = malloc(sizeof(int) * m);
            memcpy(cc, c, sizeof(double) * k * d);
            memcpy(cg, c, sizeof(double) * k * d);
            mu_km_out q1 = {0}, q2 = {0};
            q1.ic1 = o1, q1.nc = nc, q1.wss = w1;
            q2.ic1 = o2, q2.nc = malloc(sizeof(int) * k), q2.wss = w2;
            int f1 = mu_km_version2(a, m, d, cc, k, 100, 0, NULL, &q1);
            int f2 = mu_km_version2(a, m, d, cg, k, 100, 0, &be, &q2);
            CHECK(f1 == f2 && q1.iter == q2.iter && !memcmp(o1, o2, sizeof(int) * m) &&
                      !memcmp(cc, cg, sizeof(double) * k * d) &&
                      (f1 != 0 || !memcmp(w1, w2, sizeof(double) * k)),
                  "m %d d %d k %d: Version 2 with the device's bookkeeping differs (%d/%d, %d/%d "
                  "passes)",
                  m, d, k, f1, f2, q1.iter, q2.iter);
            free(q2.nc), free(o1), free(o2);
            free(cc), free(cg), free(w1), free(w2);
            free(nc), free(an1), free(an2), free(live);
            free(l1), free(l2);
        }
        mu_gpu_km_destroy(g);
        /* whole aggregations, both methods: identical groups */
        for (int meth = 0; meth < 2 && m > 1; meth++) {
            mu_agg_result rc, rg;
            int e1 = mu_agg_cluster(a, m, d, k, meth, 100, 11, 0, &rc);
            int e2 = mu_agg_cluster(a, m, d, k, meth, 100, 11, 1, &rg);
            CHECK(e1 == 0 && e2 == 0, "aggregate: %s", mu_error_message());
            if (e1 == 0 && e2 == 0) {
                CHECK(rc.k == rg.k && rc.iterations == rg.iterations &&
                          !memcmp(rc.group, rg.group, sizeof(int) * m) &&
                          !memcmp(rc.rep, rg.rep, sizeof(int) * rc.k),
                      "m %d d %d k %d method %d: CPU and GPU groups differ", m, d, k, meth);
                printf("m %6d d %3d k %3d %s: %d groups, %d iterations, CPU == GPU\n", m, d, k,
                       meth ? "version 2" : "Hartigan-Wong", rg.k, rg.iterations);
            }
            if (e1 == 0) mu_agg_result_free(&rc);
            if (e2 == 0) mu_agg_result_free(&rg);
        }
        free(a), free(c), free(d1), free(d2), free(i1), free(i2), free(j1), free(j2);
    }
    gpu_duplicates();
    return mu_report("test_kmeans --gpu");
}

int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "--r")) return r_compare(argv[2]);
    if (argc == 2 && !strcmp(argv[1], "--gpu")) return gpu_compare();
    MU_RUN(test_whiten_mahalanobis);
    MU_RUN(test_whiten_singular);
    MU_RUN(test_whiten_threads);
    MU_RUN(test_fixed_points);
    MU_RUN(test_distance_rows);
    MU_RUN(test_whole_steps_equal);
    MU_RUN(test_aggregate);
    MU_RUN(test_aggregate_edges);
    MU_RUN(test_bookkeeping);
    return mu_report("test_kmeans");
}
