/* Unit tests of the fuzzy workload's serial parts against reference vectors
 * (docs/fuzzy.md): the membership table of the 90-object example (the study's
 * Table 5.1), the merge vectors for 2 and 4 blocks (its Tables 5.3 and 5.4),
 * Iris's r in both forms, and the pieces: moments, Cholesky, the r solver, the FM
 * iteration and acceptance, dealing, single linkage against the study's matrix
 * algorithm, cuts, accuracy measures, the reader and its errors. */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mu_test.h"
#include "mu_test_dir.h"
#include "core/eigen.h"
#include "core/error.h"
#include "core/log.h"
#include "fuzzy/fm.h"
#include "fuzzy/fuzzy.h"
#include "fuzzy/run.h"

#ifndef MU_TEST_FUZZY_INPUTS
#error "MU_TEST_FUZZY_INPUTS (the inputs/fuzzy folder) must be defined"
#endif

static char tmpdir[256];

static const char *write_tmp(const char *name, const char *text) {
    return mu_test_write(tmpdir, name, text);
}

/* ---- the study's Table 5.1 from r = 0.892701 and the unrounded prototypes --- */

static void membership_table_5_1(void) {
    /* (x, y, mu to P1, mu to P2), Table 5.1 = Table 5.2. */
    static const double t[27][4] = {
        {1, 4, 0.36437, 0.01118},  {1, 5, 0.49978, 0.01137},  {1, 6, 0.35074, 0.01135},
        {2, 4, 0.56947, 0.01359},  {2, 5, 0.98775, 0.01386},  {2, 6, 0.53688, 0.01384},
        {3, 4, 0.42349, 0.01685},  {3, 5, 0.61814, 0.01727},  {3, 6, 0.40519, 0.01723},
        {8, 4, 0.03413, 0.08310},  {8, 5, 0.03502, 0.09464},  {8, 6, 0.03401, 0.09352},
        {9, 4, 0.02534, 0.13607},  {9, 5, 0.02583, 0.17002},  {9, 6, 0.02527, 0.16644},
        {10, 4, 0.01952, 0.23481}, {10, 5, 0.01981, 0.35826}, {10, 6, 0.01948, 0.34273},
        {11, 4, 0.01548, 0.36205}, {11, 5, 0.01566, 0.77242}, {11, 6, 0.01546, 0.70369},
        {12, 4, 0.01257, 0.34975}, {12, 5, 0.01269, 0.71850}, {12, 6, 0.01256, 0.65866},
        {13, 4, 0.01041, 0.21977}, {13, 5, 0.01049, 0.32438}, {13, 6, 0.01040, 0.31160}};
    const double P[4] = {2.120191, 4.966554, 11.439040, 5.420668};
    double x[27 * 2], mu[27 * 2];
    int32_t lab[27];
    for (int i = 0; i < 27; i++) {
        x[2 * i] = t[i][0];
        x[2 * i + 1] = t[i][1];
    }
    mu_fz_memberships(x, 27, 2, P, 2, 0.892701, mu, lab, NULL);
    double worst = 0;
    for (int i = 0; i < 27; i++)
        for (int j = 0; j < 2; j++) {
            double e = fabs(mu[2 * i + j] - t[i][2 + j]);
            if (e > worst) worst = e;
            CHECK_TRUE(e < 1e-5);
        }
    printf("Table 5.1: max |mu - printed| = %.2e over 54 values (reference fit: 5.8e-6)\n", worst);
    /* Hard labels: the 9 small-group objects to P1, the rest to P2. */
    for (int i = 0; i < 27; i++) CHECK_INT_EQ(lab[i], t[i][0] <= 3 ? 0 : 1);
}

/* ---- the merge of Table 5.3's per-block prototypes into Table 5.4 ---------- */

static void merge_vectors(const double *v, int m, const double *heights, int nh,
                          const double *means) {
    mu_fz_merge *mg = malloc((size_t)(m - 1) * sizeof *mg);
    int64_t group[32], members[32];
    double out[2 * 32];
    CHECK_INT_EQ(mu_fz_linkage(v, m, 2, mg), 0);
    for (int s = 1; s < m - 1; s++) CHECK_TRUE(mg[s].height >= mg[s - 1].height);
    for (int k = 0; k < nh; k++) /* the last nh heights */
        CHECK_TRUE(fabs(mg[m - 1 - nh + k].height - heights[k]) < 6e-4);
    CHECK_INT_EQ(mg[m - 2].size, m);
    int64_t g = mu_fz_cut(mg, m, MU_FZ_CUT_GAP, 0, group);
    CHECK_INT_EQ(g, 2);
    mu_fz_group_means(v, m, 2, group, g, out, members);
    for (int k = 0; k < 4; k++) CHECK_TRUE(fabs(out[k] - means[k]) < 5e-4);
    /* Any threshold inside the last gap, and k = 2, give the same groups. */
    double mid = 0.5 * (mg[m - 3].height + mg[m - 2].height);
    int64_t g2[32];
    CHECK_INT_EQ(mu_fz_cut(mg, m, MU_FZ_CUT_THRESHOLD, mid, g2), 2);
    CHECK_MEM_EQ(group, g2, (size_t)m * sizeof *g2);
    CHECK_INT_EQ(mu_fz_cut(mg, m, MU_FZ_CUT_K, 2, g2), 2);
    CHECK_MEM_EQ(group, g2, (size_t)m * sizeof *g2);
    CHECK_INT_EQ(mu_fz_cut(mg, m, MU_FZ_CUT_K, 1, g2), 1);
    CHECK_INT_EQ(mu_fz_cut(mg, m, MU_FZ_CUT_K, m + 5, g2), m);
    CHECK_INT_EQ(mu_fz_cut(mg, m, MU_FZ_CUT_NONE, 0, g2), m);
    CHECK_INT_EQ(mu_fz_cut(mg, m, MU_FZ_CUT_THRESHOLD, 0, g2), m);
    free(mg);
}

static void merge_two_blocks(void) {
    const double v[] = {1.57, 4.78, 8.72, 1.76, 11.13, 6.27, 3.00, 4.80, 9.90, 3.84, 14.12, 7.32};
    const double h[] = {1.430, 2.391, 2.724, 3.169, 6.478};
    const double means[] = {2.285, 4.790, 10.9675, 4.7975};
    merge_vectors(v, 6, h, 5, means);
}

static void merge_four_blocks(void) {
    const double v[] = {1.06,  4.56, 8.07, 1.08,  9.94, 6.59, 14.93, 8.92, 1.07,
                        5.91,  8.75, 1.90, 11.35, 7.08, 2.03, 5.44,  9.36, 3.17,
                        13.16, 7.24, 3.04, 4.47,  9.85, 4.74, 15.09, 7.78};
    const double h[] = {2.004, 6.066};
    const double means[] = {1.800, 5.095, 11.16667, 5.38889};
    merge_vectors(v, 13, h, 2, means);
}

/* Algorithm 8 as the study implemented it (matrix, index vector, swap-remove):
 * its merge heights must equal the minimum-spanning-tree linkage's. */
static void linkage_matches_algorithm_8(void) {
    enum { M = 40 };
    double v[M * 3];
    uint64_t s = 12345;
    for (int i = 0; i < M * 3; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        v[i] = (double)(s >> 11) / 9007199254740992.0 * 10.0;
    }
    static double D[M][M];
    int idx[M], len = M;
    for (int i = 0; i < M; i++) {
        idx[i] = i;
        for (int j = 0; j < M; j++) {
            double d2 = 0;
            for (int f = 0; f < 3; f++)
                d2 += (v[i * 3 + f] - v[j * 3 + f]) * (v[i * 3 + f] - v[j * 3 + f]);
            D[i][j] = sqrt(d2);
        }
    }
    double ref[M - 1];
    for (int step = 0; len > 1; step++) {
        int br = -1, bs = -1;
        for (int a = 0; a < len; a++)
            for (int b = 0; b < len; b++)
                if (a != b && (br < 0 || D[idx[a]][idx[b]] < D[idx[br]][idx[bs]])) {
                    br = a;
                    bs = b;
                }
        ref[step] = D[idx[br]][idx[bs]];
        for (int k = 0; k < M; k++) {
            double m = fmin(D[k][idx[br]], D[k][idx[bs]]);
            D[k][idx[bs]] = D[idx[bs]][k] = m;
        }
        idx[br] = idx[--len];
    }
    mu_fz_merge mg[M - 1];
    CHECK_INT_EQ(mu_fz_linkage(v, M, 3, mg), 0);
    for (int k = 0; k < M - 1; k++) CHECK_TRUE(fabs(mg[k].height - ref[k]) < 1e-12);
}

/* ---- moments, Cholesky, r -------------------------------------------------- */

static void moments_and_logdet(void) {
    const double x[] = {1, 2, 3, 5, 4, 4, 6, 9, 2, 1};
    double mean[2], cov[4], ld;
    int bad = -1;
    mu_fz_moments(x, 5, 2, 5, MPI_COMM_NULL, mean, cov);
    CHECK_TRUE(fabs(mean[0] - 3.2) < 1e-15 && fabs(mean[1] - 4.2) < 1e-15);
    /* By hand: sum dx^2 = 14.8, sum dy^2 = 38.8, sum dx dy = 21.8, over n - 1 = 4. */
    CHECK_TRUE(fabs(cov[0] - 3.7) < 1e-14 && fabs(cov[3] - 9.7) < 1e-14);
    CHECK_TRUE(fabs(cov[1] - 5.45) < 1e-14 && cov[1] == cov[2]);
    CHECK_INT_EQ(mu_fz_logdet(cov, 2, &ld, &bad), 0);
    CHECK_TRUE(fabs(ld - log(3.7 * 9.7 - 5.45 * 5.45)) < 1e-13);
    /* Rows split in any way give the same bits (exact sums). */
    double m2[2], c2[4];
    mu_fz_moments(x, 5, 2, 5, MPI_COMM_NULL, m2, c2);
    CHECK_ARRAY_BITS(mean, m2, 2);
    /* A collinear column: singular. */
    const double col[] = {1, 2, 3, 2, 4, 6, 5, 1, 6, 0, 0, 0, 3, 3, 6};
    double C[9], mm[3];
    mu_fz_moments(col, 5, 3, 5, MPI_COMM_NULL, mm, C);
    CHECK_INT_EQ(mu_fz_logdet(C, 3, &ld, &bad), 1);
    CHECK_INT_EQ(bad, 2);
}

/* g(r) of Eq. 3.9 in plain double, for checking the solver's root. */
static double eq_3_9(const double *d2, int64_t n, int F, double logdet, int printed, double r) {
    double s = 0;
    for (int64_t i = 0; i < n; i++) s += 1.0 / (1.0 + r * r * d2[i]);
    return exp(-0.5 * logdet) / (printed ? n : 1) * s / pow(r, F) - 1.0;
}

static void solve_r_on(const double *x, int64_t n, int F, int printed, double want, double tol) {
    double *mean = malloc((size_t)F * sizeof *mean), *cov = malloc((size_t)(F * F) * sizeof *cov);
    double *d2 = malloc((size_t)n * sizeof *d2), ld;
    int bad;
    mu_fz_moments(x, n, F, n, MPI_COMM_NULL, mean, cov);
    CHECK_INT_EQ(mu_fz_logdet(cov, F, &ld, &bad), 0);
    for (int64_t i = 0; i < n; i++) {
        d2[i] = 0;
        for (int f = 0; f < F; f++) d2[i] += (x[i * F + f] - mean[f]) * (x[i * F + f] - mean[f]);
    }
    mu_fz_rinfo info, info3;
    mu_fz_rnorm norm = printed ? MU_FZ_R_PRINTED : MU_FZ_R_DENSITY;
    CHECK_INT_EQ(mu_fz_solve_r(d2, n, n, F, ld, norm, 1e-12, 1, MPI_COMM_NULL, &info), 0);
    /* threads split the sums elsewhere (from 8192 distances): the same bits */
    CHECK_INT_EQ(mu_fz_solve_r(d2, n, n, F, ld, norm, 1e-12, 3, MPI_COMM_NULL, &info3), 0);
    CHECK_TRUE(memcmp(&info.r, &info3.r, sizeof info.r) == 0 && info.evals == info3.evals);
    printf("r (%s) = %.9f in %d steps, %d evaluations; want %.6f\n",
           printed ? "printed" : "density", info.r, info.steps, info.evals, want);
    CHECK_TRUE(fabs(info.r - want) < tol);
    CHECK_TRUE(fabs(eq_3_9(d2, n, F, ld, printed, info.r)) < 1e-12);
    /* The root is unique: f changes sign around it. */
    CHECK_TRUE(eq_3_9(d2, n, F, ld, printed, info.r * 0.999) > 0);
    CHECK_TRUE(eq_3_9(d2, n, F, ld, printed, info.r * 1.001) < 0);
    free(mean);
    free(cov);
    free(d2);
}

static void factor_r_grid90(void) {
    /* A stand-in for the study's 90-object example: 3 x 3 plus 9 x 9 grids. */
    double x[180];
    int k = 0;
    for (int a = 1; a <= 3; a++)
        for (int b = 4; b <= 6; b++) {
            x[k++] = a;
            x[k++] = b;
        }
    for (int a = 8; a <= 16; a++)
        for (int b = 1; b <= 9; b++) {
            x[k++] = a;
            x[k++] = b;
        }
    solve_r_on(x, 90, 2, 0, 1.019, 5e-4);  /* 1.019 without 1/n */
    solve_r_on(x, 90, 2, 1, 0.2401, 5e-5); /* and 0.2401 with it */
}

static void factor_r_threads(void) {
    /* 30000 points of the 90-object grid's kind, the 3 x 3 block repeated and
     * shifted: r as a root of Eq. 3.9, the same bits on 1 and 3 threads. */
    enum { N = 30000 };
    double *x = malloc(2 * N * sizeof *x);
    for (int i = 0; i < N; i++) {
        x[2 * i] = (i % 3) + 0.001 * (i % 997);
        x[2 * i + 1] = (i / 3 % 3) + 0.002 * (i % 491);
    }
    solve_r_on(x, N, 2, 0, 0, INFINITY);
    free(x);
}

static void factor_r_iris(void) {
    mu_fz_data d;
    CHECK_INT_EQ(mu_fz_read(MU_TEST_FUZZY_INPUTS "/iris.csv", "auto", "Species", &d), 0);
    CHECK_INT_EQ(d.n, 150);
    CHECK_INT_EQ(d.F, 4);
    CHECK_INT_EQ(d.nlabels, 3);
    solve_r_on(d.x, d.n, d.F, 1, 1.446719, 5e-7); /* the printed form */
    solve_r_on(d.x, d.n, d.F, 0, 3.60561, 5e-6);
    mu_fz_free(&d);
}

/* ---- the FM iteration and acceptance ------------------------------------- */

static void fm_fixed_point(void) {
    /* Two tight pairs far apart, r = 1: each start ends at its pair's centre. */
    const double x[] = {0, 0, 0.2, 0, 10, 10, 10, 10.4};
    mu_fm_set set = {x, 4, 2, 1.0, 1e-24, 1000, 0};
    double v[8];
    mu_fm_stat st[4];
    CHECK_INT_EQ(mu_fm_run_cpu(&set, 0, 4, v, st), 0);
    for (int k = 0; k < 4; k++) {
        CHECK_TRUE(st[k].converged);
        /* The end point satisfies Eq. 3.12: v = sum mu^2 x / sum mu^2. */
        double sw = 0, s0 = 0, s1 = 0;
        for (int j = 0; j < 4; j++) {
            double d0 = x[2 * j] - v[2 * k], d1 = x[2 * j + 1] - v[2 * k + 1];
            double u = 1 / (1 + d0 * d0 + d1 * d1);
            sw += u * u;
            s0 += u * u * x[2 * j];
            s1 += u * u * x[2 * j + 1];
        }
        CHECK_TRUE(fabs(s0 / sw - v[2 * k]) < 1e-11 && fabs(s1 / sw - v[2 * k + 1]) < 1e-11);
    }
    CHECK_TRUE(fabs(v[0] - v[2]) < 1e-11 && fabs(v[4] - v[6]) < 1e-11);
    CHECK_TRUE(fabs(v[0] - 0.1) < 0.01 && fabs(v[5] - 10.2) < 0.01);
    /* The same in the general-F loop (3-D, third coordinate 0). */
    const double x3[] = {0, 0, 0, 0.2, 0, 0, 10, 10, 0, 10, 10.4, 0};
    mu_fm_set set3 = {x3, 4, 3, 1.0, 1e-24, 1000, 0};
    double v3[12];
    CHECK_INT_EQ(mu_fm_run_cpu(&set3, 1, 3, v3, st), 0);
    for (int k = 0; k < 3; k++) {
        CHECK_TRUE(fabs(v3[3 * k] - v[2 * (k + 1)]) < 1e-10);
        CHECK_TRUE(fabs(v3[3 * k + 1] - v[2 * (k + 1) + 1]) < 1e-10);
    }
    /* Acceptance in start order: the first of each pair wins. */
    double proto[8];
    int64_t from[4];
    CHECK_INT_EQ(mu_fm_accept(v, st, 4, 2, 0.01, proto, from), 2);
    CHECK_INT_EQ(from[0], 0);
    CHECK_INT_EQ(from[1], 2);
    /* An iteration cap: counted, not accepted. */
    mu_fm_set capped = {x, 4, 2, 1.0, 1e-300, 2, 0};
    CHECK_INT_EQ(mu_fm_run_cpu(&capped, 0, 4, v, st), 0);
    for (int k = 0; k < 4; k++) {
        CHECK_TRUE(!st[k].converged);
        CHECK_INT_EQ(st[k].iterations, 2);
    }
    CHECK_INT_EQ(mu_fm_accept(v, st, 4, 2, 0.01, proto, from), 0);
    /* eps2 is strict: a point at exactly sqrt(eps2) from a prototype is rejected. */
    const double pts[] = {0, 0, 0.5, 0, 1.5, 0};
    mu_fm_stat ok[3] = {{1, 1}, {1, 1}, {1, 1}};
    CHECK_INT_EQ(mu_fm_accept(pts, ok, 3, 2, 0.25, proto, from), 2);
    CHECK_INT_EQ(from[1], 2);
}

/* ---- partitions ---------------------------------------------------------- */

static void deal_round_robin(void) {
    /* 7 objects, p = 3: sorted order 3,1,5,0,6,2,4 (ties 1 and 5 in input order). */
    const double x[] = {4, 0, 2, 1, 6, 0, 1, 5, 9, 9, 2, 1, 5, 5};
    int64_t order[7], start[4];
    CHECK_INT_EQ(mu_fz_deal(x, 7, 2, 3, order, start), 0);
    const int64_t want_start[] = {0, 3, 5, 7}, want[] = {3, 0, 4, 1, 6, 5, 2};
    CHECK_MEM_EQ(start, want_start, sizeof want_start);
    CHECK_MEM_EQ(order, want, sizeof want);
}

/* ---- accuracy measures and the eigen-solver -------------------------------- */

static void accuracy_measures(void) {
    const int32_t a[] = {0, 0, 1, 1, 2, 2}, same[] = {1, 1, 2, 2, 0, 0}, b[] = {0, 0, 0, 1, 1, 1};
    CHECK_TRUE(fabs(mu_fz_ari(a, 3, same, 3, 6) - 1) < 1e-15);
    CHECK_TRUE(fabs(mu_fz_purity(a, 3, same, 3, 6) - 1) < 1e-15);
    /* sklearn's adjusted_rand_score([0,0,1,1,2,2], [0,0,0,1,1,1]) = 0.24242424... */
    CHECK_TRUE(fabs(mu_fz_ari(a, 3, b, 2, 6) - 8.0 / 33.0) < 1e-12);
    CHECK_TRUE(fabs(mu_fz_purity(a, 3, b, 2, 6) - 5.0 / 6.0) < 1e-15);
    CHECK_TRUE(fabs(mu_fz_purity(b, 2, a, 3, 6) - 4.0 / 6.0) < 1e-15);
}

static void eigen_jacobi(void) {
    const double A[] = {4, 1, 0, 1, 3, 1, 0, 1, 2};
    double val[3], vec[9];
    CHECK_INT_EQ(mu_sym_eigen(A, 3, val, vec), 0);
    /* Eigenvalues 3 + sqrt(3), 3, 3 - sqrt(3); A v = lambda v for each column. */
    CHECK_TRUE(fabs(val[0] - (3 + sqrt(3))) < 1e-12 && fabs(val[1] - 3) < 1e-12 &&
               fabs(val[2] - (3 - sqrt(3))) < 1e-12);
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 3; i++) {
            double av = 0;
            for (int j = 0; j < 3; j++) av += A[i * 3 + j] * vec[j * 3 + k];
            CHECK_TRUE(fabs(av - val[k] * vec[i * 3 + k]) < 1e-12);
        }
}

/* ---- the reader ------------------------------------------------------------ */

static void reader_formats(void) {
    mu_fz_data d;
    const char *p = write_tmp("ws.txt", "# comment\n1 2.5\n\n3\t4e1\n  -5   6 \n");
    CHECK_INT_EQ(mu_fz_read(p, "auto", NULL, &d), 0);
    CHECK_INT_EQ(d.n, 3);
    CHECK_INT_EQ(d.F, 2);
    CHECK_TRUE(d.x[1] == 2.5 && d.x[3] == 40 && d.x[4] == -5);
    CHECK_STR_EQ(d.names[1], "x2");
    CHECK_INT_EQ(d.first_line, 2);
    mu_fz_free(&d);
    p = write_tmp("lab.csv", "\"a\",\"kind\",\"b\"\n1,x,2\n3,y,4\n5,x,7\n");
    CHECK_INT_EQ(mu_fz_read(p, "auto", "kind", &d), 0);
    CHECK_INT_EQ(d.F, 2);
    CHECK_STR_EQ(d.names[0], "a");
    CHECK_STR_EQ(d.names[1], "b");
    CHECK_INT_EQ(d.nlabels, 2);
    CHECK_TRUE(d.label[0] == 0 && d.label[1] == 1 && d.label[2] == 0);
    CHECK_TRUE(d.x[5] == 7);
    mu_fz_free(&d);
    CHECK_INT_EQ(mu_fz_read(p, "auto", "2", &d), 0); /* by number */
    CHECK_INT_EQ(d.nlabels, 2);
    mu_fz_free(&d);
    p = write_tmp("nohead.csv", "1;2\n3;4\n");
    CHECK_INT_EQ(mu_fz_read(p, "no", NULL, &d), 0);
    CHECK_INT_EQ(d.n, 2);
    mu_fz_free(&d);
}

static void expect_error(const char *name, const char *text, const char *label, const char *want) {
    mu_fz_data d;
    const char *p = write_tmp(name, text);
    mu_error_clear();
    int rc = mu_fz_read(p, "auto", label, &d);
    if (!rc) {
        rc = mu_fz_check_columns(p, &d);
        mu_fz_free(&d);
    }
    CHECK_INT_EQ(rc, 1);
    CHECK(strstr(mu_error_message(), want) != NULL, "%s: message '%s' lacks '%s'", name,
          mu_error_message(), want);
}

static void reader_errors(void) {
    expect_error("nonnum.csv", "a,b\n1,2\n3,x5\n", NULL,
                 "nonnum.csv:3: column 2 ('b'): 'x5' is not a number");
    expect_error("ragged.csv", "a,b\n1,2\n3\n", NULL, "ragged.csv:3: 1 field(s), expected 2");
    expect_error("nan.csv", "a,b\n1,2\nnan,3\n", NULL,
                 "nan.csv:3: column 1 ('a'): NaN is not allowed");
    expect_error("inf.csv", "a,b\n1,2\n4,-inf\n", NULL,
                 "inf.csv:3: column 2 ('b'): Inf is not allowed");
    expect_error("na.csv", "a,b\n1,NA\n", NULL, "missing values");
    expect_error("const.csv", "a,b\n1,2\n3,2\n4,2\n", NULL,
                 "const.csv:2: column 'b' is constant (2 in every row)");
    expect_error("empty.csv", "# nothing\n\n", NULL, "no data");
    expect_error("head.csv", "a,b\n", NULL, "no data rows");
    expect_error("one.csv", "a,b\n1,2\n", NULL, "one object only");
    expect_error("nolab.csv", "a,b\n1,2\n3,4\n", "Species", "no such column");
    expect_error("labnum.csv", "1,2\n3,4\n", "5", "the file has 2 column(s)");
    expect_error("label.csv", "a,s\n1,x\n2,y\n", NULL, "(a label column? see --label-column)");
    mu_fz_data d;
    mu_error_clear();
    CHECK_INT_EQ(mu_fz_read("/nonexistent/x.csv", "auto", NULL, &d), 1);
    CHECK_TRUE(strstr(mu_error_message(), "cannot open input") != NULL);
}

static void blobs_deterministic(void) {
    mu_fz_data a, b;
    CHECK_INT_EQ(mu_fz_gen_blobs(3000, 7, "400,400;400,1090;1125,750", 110, &a), 0);
    CHECK_INT_EQ(mu_fz_gen_blobs(3000, 7, "400,400;400,1090;1125,750", 110, &b), 0);
    CHECK_ARRAY_BITS(a.x, b.x, 3000 * 2);
    int count[3] = {0, 0, 0};
    double mx[3] = {0, 0, 0};
    for (int i = 0; i < 3000; i++) {
        count[a.label[i]]++;
        mx[a.label[i]] += a.x[2 * i];
        CHECK_TRUE(a.x[2 * i] == nearbyint(a.x[2 * i])); /* integers */
    }
    for (int k = 0; k < 3; k++)
        CHECK(count[k] >= 900 && count[k] <= 1100, "count[%d] = %d", k, count[k]);
    CHECK_TRUE(fabs(mx[2] / count[2] - 1125) < 15);
    mu_fz_free(&a);
    mu_fz_free(&b);
    CHECK_INT_EQ(mu_fz_gen_blobs(10, 1, "1,2;3", 1, &a), 1);
}

/* ---- summation blocks, the ring's pieces, checkpoints ---------------------- */

static void fill_points(double *x, int64_t n, int F, unsigned seed) {
    uint64_t s = 0x9E3779B97F4A7C15ull * (seed + 1);
    for (int64_t i = 0; i < n * F; i++)
        x[i] = mu_test_uniform(&s) * 10.0 + (i % F == 0 && (i / F) % 3 == 0 ? 20 : 0);
}

/* One block as large as the set is the one-block order; a step summed chunk by
 * chunk (mu_fm_partials on whole blocks, mu_fm_combine in block order) is the
 * step of mu_fm_run_cpu with those blocks, bit for bit: what the ring relies on. */
static void summation_blocks(void) {
    for (int F = 2; F <= 3; F++) {
        const int64_t n = 1000, B = 256;
        double *x = malloc((size_t)(n * F) * sizeof *x), v1[8], v2[8], v3[8], step[8], acc[8];
        double part[5 * 4];
        mu_fm_stat st1, st2;
        fill_points(x, n, F, (unsigned)F);
        mu_fm_set one = {x, n, F, 0.5, 1e-20, 1000, 0}, big = one, blk = one;
        big.sum_block = 4096;
        blk.sum_block = B;
        CHECK_INT_EQ(mu_fm_run_cpu(&one, 17, 1, v1, &st1), 0);
        CHECK_INT_EQ(mu_fm_run_cpu(&big, 17, 1, v2, &st2), 0);
        CHECK_ARRAY_BITS(v1, v2, F);
        CHECK_INT_EQ(st1.iterations, st2.iterations);
        /* One step with blocks of 256, by hand in two chunks (512 + 488 rows). */
        blk.max_it = 1;
        CHECK_INT_EQ(mu_fm_run_cpu(&blk, 17, 1, v3, &st1), 0);
        int64_t nb = mu_fm_partials(x, 512, F, 0.5, B, x + 17 * F, part);
        CHECK_INT_EQ(nb, 2);
        nb += mu_fm_partials(x + 512 * F, n - 512, F, 0.5, B, x + 17 * F, part + nb * (F + 1));
        CHECK_INT_EQ(nb, 4);
        mu_fm_combine(part, nb, F, acc, step);
        CHECK_ARRAY_BITS(step, v3, F);
        /* Blocks change the order, so the step differs from the one-block one in the last bits
         * only. */
        one.max_it = 1;
        CHECK_INT_EQ(mu_fm_run_cpu(&one, 17, 1, v1, &st1), 0);
        for (int f = 0; f < F; f++) CHECK_TRUE(fabs(v1[f] - v3[f]) <= 1e-12 * fabs(v1[f]));
        free(x);
    }
}

static void checkpoint_files(void) {
    const int64_t n = 50;
    const int F = 2;
    double x[100], rec[50 * 4], back[50 * 4];
    fill_points(x, n, F, 9);
    for (int i = 0; i < 50 * 4; i++) rec[i] = i * 0.25 - 3;
    for (int k = 0; k < 50; k++) { /* whole iteration counts up to --max-it, flags 0 or 1 */
        rec[k * 4 + 2] = k + 1;
        rec[k * 4 + 3] = k % 2;
    }
    mu_fm_set set = {x, n, F, 0.5, 1e-12, 100, 0};
    uint64_t fp = mu_fz_fingerprint(x, n, F, &set);
    char path[512];
    snprintf(path, sizeof path, "%s/fz.ckpt", tmpdir);
    CHECK_INT_EQ(mu_fz_ckpt_write(path, n, F, fp, 30, rec), 0);
    int64_t done = -1;
    CHECK_INT_EQ(mu_fz_ckpt_read(path, n, F, fp, 100, &done, back), 0);
    CHECK_INT_EQ(done, 30);
    CHECK_ARRAY_BITS(back, rec, 30 * 4);
    /* Other settings, other data, another size: refused with a message. */
    mu_fm_set other = set;
    other.eps1 = 1e-11;
    CHECK_TRUE(mu_fz_fingerprint(x, n, F, &other) != fp);
    CHECK_INT_EQ(mu_fz_ckpt_read(path, n, F, fp ^ 1, 100, &done, back), 1);
    CHECK_TRUE(strstr(mu_error_message(), "other data or settings") != NULL);
    CHECK_INT_EQ(mu_fz_ckpt_read(path, n + 1, F, fp, 100, &done, back), 1);
    CHECK_TRUE(strstr(mu_error_message(), "50 objects of 2 features") != NULL);
    /* A truncated file. */
    FILE *f = fopen(path, "r+b");
    CHECK_TRUE(f != NULL);
    CHECK_INT_EQ(ftruncate(fileno(f), 64 + 8 * 10), 0);
    fclose(f);
    CHECK_INT_EQ(mu_fz_ckpt_read(path, n, F, fp, 100, &done, back), 1);
    CHECK_TRUE(strstr(mu_error_message(), "truncated") != NULL);
    CHECK_INT_EQ(mu_fz_ckpt_read("/nonexistent/fz.ckpt", n, F, fp, 100, &done, back), 1);
    mu_error_clear();
}

int main(void) {
    mu_log_init(0, 1);
    if (mu_test_dir_make(tmpdir, sizeof tmpdir, "mutirao_test_fuzzy")) return 1;
    MU_RUN(membership_table_5_1);
    MU_RUN(merge_two_blocks);
    MU_RUN(merge_four_blocks);
    MU_RUN(linkage_matches_algorithm_8);
    MU_RUN(moments_and_logdet);
    MU_RUN(factor_r_grid90);
    MU_RUN(factor_r_threads);
    MU_RUN(factor_r_iris);
    MU_RUN(fm_fixed_point);
    MU_RUN(deal_round_robin);
    MU_RUN(accuracy_measures);
    MU_RUN(eigen_jacobi);
    MU_RUN(reader_formats);
    MU_RUN(reader_errors);
    MU_RUN(blobs_deterministic);
    MU_RUN(summation_blocks);
    MU_RUN(checkpoint_files);
    return mu_test_dir_remove(tmpdir, mu_report("test_fuzzy"));
}
