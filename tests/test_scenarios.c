/* Unit tests of the scenarios workload (issue 4) without MPI: the reader's
 * errors, the PAR(p) fit against known coefficients of long synthetic series,
 * the dense linear algebra, non-negative generation under a hostile model, and
 * the moments of 100000 generated years against the fitted model. */
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
#include "core/free.h"
#include "core/log.h"
#include "scenarios/scenarios.h"

#ifndef MU_TEST_SCENARIOS_INPUTS
#error "MU_TEST_SCENARIOS_INPUTS (the inputs/scenarios folder) must be defined"
#endif

#ifdef MU_TEST_SCENARIOS_GPU
/* ---- GPU: the generation kernel against the CPU reference -------------------- */
#include "gpu/gpu.h"
#include "gpu/scenarios_gen.h"

/* Relative difference of two inflow tables, and equal clamp counts. */
static void compare(const char *what, const double *a, const double *b, int64_t n, int64_t ca,
                    int64_t cb) {
    double worst = 0;
    for (int64_t i = 0; i < n; i++) {
        double d = fabs(a[i] - b[i]) / fmax(fabs(a[i]), 1e-300);
        if (a[i] == b[i]) d = 0;
        if (d > worst) worst = d;
    }
    if (CHECK(worst <= 1e-12 && ca == cb,
              "%s: largest relative difference %.3g, clamped %lld vs %lld", what, worst,
              (long long)ca, (long long)cb))
        printf("ok: %s: %lld values, largest relative difference %.3g, clamped %lld\n", what,
               (long long)n, worst, (long long)ca);
}

int main(int argc, char **argv) {
    (void)argc;
    (void)argv;
    mu_log_init(0, 1);
    if (mu_gpu_device_count() < 1) {
        printf("SKIP: no CUDA device (%s)\n", mu_gpu_error());
        return 77;
    }
    mu_gpu_info info;
    if (!CHECK(mu_gpu_select(0, &info) == 0, "select device 0: %s", mu_gpu_error()))
        return mu_report("test_gpu_scenarios");
    printf("device: %s\n", info.name);
    const char *sets[2] = {"all", "p006,p074,p047,p061,p092"}; /* eigen and Cholesky factors */
    for (int set = 0; set < 2; set++) {
        mu_sc_hist h;
        mu_sc_select sel = {sets[set], 0, 0, 10};
        if (!CHECK(mu_sc_read(MU_TEST_SCENARIOS_INPUTS "/ons_inflows_64.csv", &sel, &h) == 0, "%s",
                   mu_error_message()))
            return mu_report("test_gpu_scenarios");
        mu_sc_fit_cfg fc = {.pmax = 6, .pacf_conf = 1.96, .quiet = 1};
        mu_sc_model md;
        if (!CHECK(mu_sc_fit(&h, &fc, &md) == 0, "%s", mu_error_message()))
            return mu_report("test_gpu_scenarios");
        int nst = h.nst, P = md.pmax;
        enum { M = 3000 };
        mu_sc_gpu *g1 = NULL, *g2 = NULL;
        if (!CHECK(!mu_sc_gpu_create(nst, P, M, 0, &g1) && !mu_sc_gpu_create(nst, P, M, 1, &g2),
                   "create: %s", mu_gpu_error()))
            return mu_report("test_gpu_scenarios");
        double *zp = malloc((size_t)M * P * nst * sizeof *zp);
        double *zc = malloc((size_t)M * nst * sizeof *zc),
               *zg = malloc((size_t)M * nst * sizeof *zg);
        for (int m = 0; m < 12; m++) {
            mu_sc_gen_month g;
            mu_sc_month_args(&md, m, &g);
            g.delta_min = 0.05;
            /* Tree node: one past (the record's months before), M scenarios. */
            int64_t end = (int64_t)(h.nyears - 1) * 12 + m;
            for (int i = 0; i < P; i++)
                for (int s = 0; s < nst; s++) {
                    int64_t t = end - 1 - i;
                    int mm = (int)(t % 12);
                    zp[i * nst + s] =
                        (h.q[t * nst + s] - md.mu[mm * nst + s]) / md.sd[mm * nst + s];
                }
            mu_sc_gen_draw d = {11, (uint64_t)(1000 + m), 17, M, zp, 0};
            int64_t cc = 0, cg = 0;
            mu_sc_gen_cpu(&g, &d, zc, &cc);
            if (!CHECK(mu_sc_gpu_generate(g1, &g, &d, zg, &cg, NULL) == 0, "generate: %s",
                       mu_gpu_error()))
                return mu_report("test_gpu_scenarios");
            char what[160];
            snprintf(what, sizeof what, "%d stations (%s), month %d, shared past", nst,
                     md.lower[m] ? "Cholesky" : "eigen", m + 1);
            compare(what, zc, zg, (int64_t)M * nst, cc, cg);
            /* Comb: a past per scenario, some far below the mean (clamps). */
            for (int64_t k = 0; k < M; k++)
                for (int i = 0; i < P * nst; i++) {
                    uint32_t r[4];
                    mu_rng4(5, (uint64_t)k, (uint64_t)i, r);
                    zp[k * P * nst + i] = 6 * mu_rng_open01(r[0], r[1]) - 4;
                }
            mu_sc_gen_draw dc = {11, (uint64_t)(2000 + m), 0, M, zp, (int64_t)P * nst};
            cc = cg = 0;
            mu_sc_gen_cpu(&g, &dc, zc, &cc);
            if (!CHECK(mu_sc_gpu_generate(g2, &g, &dc, zg, &cg, NULL) == 0, "generate: %s",
                       mu_gpu_error()))
                return mu_report("test_gpu_scenarios");
            snprintf(what, sizeof what, "%d stations, month %d, a past per scenario", nst, m + 1);
            compare(what, zc, zg, (int64_t)M * nst, cc, cg);
        }
        free(zp);
        free(zc);
        free(zg);
        mu_sc_gpu_destroy(g1);
        mu_sc_gpu_destroy(g2);
        mu_sc_model_free(&md);
        mu_sc_hist_free(&h);
    }
    return mu_report("test_gpu_scenarios");
}
#else

static char tmpdir[256];

static const char *write_tmp(const char *name, const char *text) {
    return mu_test_write(tmpdir, name, text);
}

/* A CSV of `years` whole years of two stations, value(y, m, s) = 100 + 10 s +
 * m + (y * 7 + m * 3 + s) % 11, with one change applied by the caller's text. */
static char *make_record(int years) {
    size_t cap = (size_t)years * 12 * 40 + 64, o = 0;
    char *t = malloc(cap);
    o += (size_t)snprintf(t + o, cap - o, "year,month,a,b\n");
    for (int y = 0; y < years; y++)
        for (int m = 1; m <= 12; m++)
            o += (size_t)snprintf(t + o, cap - o, "%d,%d,%d,%d\n", 1950 + y, m,
                                  100 + m + (y * 7 + m * 3) % 11,
                                  110 + m + (y * 7 + m * 3 + 1) % 11);
    return t;
}

static mu_sc_select sel_all(void) {
    mu_sc_select s = {NULL, 0, 0, 10};
    return s;
}

/* Replaces the first occurrence of `from` in text by `to` (same buffer, enough room). */
static char *edit(const char *text, const char *from, const char *to) {
    const char *p = strstr(text, from);
    CHECK_TRUE(p != NULL);
    size_t n = strlen(text) + strlen(to) + 1;
    char *out = malloc(n);
    snprintf(out, n, "%.*s%s%s", (int)(p - text), text, to, p + strlen(from));
    return out;
}

static void expect_read_error(const char *name, const char *text, const char *msg) {
    const char *path = write_tmp(name, text);
    mu_sc_hist h;
    mu_sc_select sel = sel_all();
    mu_error_clear();
    CHECK_INT_EQ(mu_sc_read(path, &sel, &h), 1);
    CHECK(strstr(mu_error_message(), msg) != NULL, "message '%s' lacks '%s'", mu_error_message(),
          msg);
}

static void reader_errors(void) {
    char *ok = make_record(12);
    mu_sc_hist h;
    mu_sc_select sel = sel_all();
    CHECK_INT_EQ(mu_sc_read(write_tmp("ok.csv", ok), &sel, &h), 0);
    CHECK_INT_EQ(h.nyears, 12);
    CHECK_INT_EQ(h.nst, 2);
    CHECK_INT_EQ(h.first_year, 1950);
    mu_sc_hist_free(&h);

    char *gap = edit(ok, "1951,4,", "1951,5,");
    expect_read_error("gap.csv", gap,
                      "gap.csv:17: gap in the record: 1951-05 follows 1951-03 "
                      "(1951-04 is missing)");
    char *order = edit(ok, "1951,4,", "1951,2,");
    expect_read_error("order.csv", order,
                      "order.csv:17: months out of order: 1951-02 after 1951-03");
    char *neg = edit(ok, "\n1952,6,", "\n1952,6,-");
    expect_read_error("neg.csv", neg, "neg.csv:31: station a, 1952-06: negative inflow -");
    char *hole = edit(ok, "\n1952,6,", "\n1952,6,,");
    expect_read_error("hole.csv", hole, "hole.csv:31: 5 field(s), expected 4");
    char *empty = edit(ok, "\n1952,6,", "\n1952,6, ");
    (void)empty;
    char *shortrow = edit(ok, "\n1952,6,", "\n1952,6,7\n1952,99,");
    expect_read_error("short.csv", shortrow, "short.csv:31: 3 field(s), expected 4");
    char *few = make_record(5);
    expect_read_error("few.csv", few,
                      "few.csv: short record: 5 year(s), the fit needs at least 10");
    free(few);
    /* Zero variance: station b equal to 50 in every March. */
    char *zv = make_record(12);
    for (char *p = zv; (p = strstr(p, ",3,")) != NULL; p++) {
        char *comma = strchr(p + 3, ',');
        memcpy(comma + 1, "050", 3);
    }
    expect_read_error("zerovar.csv", zv, "zerovar.csv:4: station b has zero variance in month 3");
    expect_read_error("header.csv", "yr,month,a\n1950,1,3\n",
                      "header.csv:1: header must be year,month");
    expect_read_error("start.csv", "year,month,a\n1950,2,3\n",
                      "start.csv:2: the record starts in 1950-02");
    char *nan = edit(ok, "\n1952,6,", "\n1952,6,x");
    expect_read_error("nan.csv", nan, "nan.csv:31: station a, 1952-06: 'x");
    MU_FREE(ok, gap, order, neg, hole, empty, shortrow, zv, nan);
}

static void linalg(void) {
    const double A[9] = {4, 2, 0.6, 2, 5, 1, 0.6, 1, 3}, b[3] = {1, 2, 3};
    double x[3], L[9], val[3], V[9];
    CHECK_INT_EQ(mu_sc_solve(A, b, 3, x), 0);
    for (int i = 0; i < 3; i++) {
        double r = -b[i];
        for (int j = 0; j < 3; j++) r += A[i * 3 + j] * x[j];
        CHECK_TRUE(fabs(r) < 1e-14);
    }
    CHECK_INT_EQ(mu_sc_cholesky(A, 3, L), 0);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = 0;
            for (int k = 0; k < 3; k++) s += L[i * 3 + k] * L[j * 3 + k];
            CHECK_TRUE(fabs(s - A[i * 3 + j]) < 1e-14);
        }
    const double S[9] = {1, 1, 0, 1, 1, 0, 0, 0, 1}; /* singular */
    CHECK_INT_EQ(mu_sc_cholesky(S, 3, L), 1);
    CHECK_INT_EQ(mu_sym_eigen(S, 3, val, V), 0);
    CHECK_TRUE(fabs(val[0] - 2) < 1e-14 && fabs(val[1] - 1) < 1e-14 && fabs(val[2]) < 1e-14);
}

/* Synthetic record: station 0 a periodic PAR(1) z_m = a_m z_{m-1} + e, station
 * 1 a constant AR(2); N years, Gaussian noise from Philox. The standardized
 * coefficient of station 0 is a_m sigma_{m-1} / sigma_m with the stationary
 * monthly variances, which a fixed-point iteration gives. */
static const double a_m[12] = {0.7, 0.5, 0.3, 0.8, 0.9, 0.6, 0.4, 0.75, 0.85, 0.2, 0.55, 0.65};
static const double ar2[2] = {0.6, 0.25};

static void synth(int N, mu_sc_hist *h) {
    memset(h, 0, sizeof *h);
    h->nyears = N;
    h->nst = 2;
    h->first_year = 1;
    snprintf(h->path, sizeof h->path, "synthetic");
    h->names = calloc(2, sizeof *h->names);
    h->names[0] = strdup("par1");
    h->names[1] = strdup("ar2");
    h->q = malloc((size_t)N * 12 * 2 * sizeof *h->q);
    double x0 = 0, x1 = 0, x1p = 0;
    for (int64_t t = -1200; t < (int64_t)N * 12; t++) {
        uint32_t r[4];
        mu_rng4(99, 7, (uint64_t)(t + 1200), r);
        double u1 = mu_rng_open01(r[0], r[1]), u2 = mu_rng_open01(r[2], r[3]);
        double rad = sqrt(-2 * log(u1)), e0 = rad * cos(6.283185307179586 * u2),
               e1 = rad * sin(6.283185307179586 * u2);
        int m = (int)(((t % 12) + 12) % 12);
        x0 = a_m[m] * x0 + e0;
        double n1 = ar2[0] * x1 + ar2[1] * x1p + e1;
        x1p = x1;
        x1 = n1;
        if (t >= 0) {
            h->q[t * 2] = 1000 + 100 * m + 50 * x0;
            h->q[t * 2 + 1] = 500 + 30 * x1;
        }
    }
}

static void fit_recovers_coefficients(void) {
    const int N = 20000;
    mu_sc_hist h;
    synth(N, &h);
    mu_sc_fit_cfg fc = {.pmax = 6, .pacf_conf = 1.96, .quiet = 1};
    mu_sc_model md;
    CHECK_INT_EQ(mu_sc_fit(&h, &fc, &md), 0);
    double var[12];
    for (int m = 0; m < 12; m++) var[m] = 1;
    for (int it = 0; it < 2000; it++)
        for (int m = 0; m < 12; m++) var[m] = a_m[m] * a_m[m] * var[(m + 11) % 12] + 1;
    double tol = 5 / sqrt((double)N); /* a few standard errors of a coefficient */
    for (int m = 0; m < 12; m++) {
        double want = a_m[m] * sqrt(var[(m + 11) % 12] / var[m]);
        const double *phi = md.phi + (size_t)(m * 2 + 0) * 6;
        CHECK_TRUE(md.order[m * 2] >= 1);
        CHECK(!(fabs(phi[0] - want) > tol), "month %d: phi1 %.4f, want %.4f", m + 1, phi[0], want);
        for (int i = 1; i < 6; i++) CHECK_TRUE(fabs(phi[i]) < tol);
        /* Noise variance in standardized units: 1 / var_m. */
        double sa2 = md.sig_a[m * 2] * md.sig_a[m * 2];
        CHECK_TRUE(fabs(sa2 - 1 / var[m]) < 4 * tol);
        const double *p2 = md.phi + (size_t)(m * 2 + 1) * 6;
        CHECK_TRUE(md.order[m * 2 + 1] >= 2);
        CHECK_TRUE(fabs(p2[0] - ar2[0]) < tol && fabs(p2[1] - ar2[1]) < tol);
        for (int i = 2; i < 6; i++) CHECK_TRUE(fabs(p2[i]) < tol);
        /* PACF beyond the true order is insignificant on average. */
    }
    CHECK_INT_EQ(md.nonstationary, 0);
    CHECK_TRUE(md.radius[0] < 1 && md.radius[1] < 1);
    /* Independent noises: residual correlation near 0, Cholesky used. */
    for (int m = 0; m < 12; m++) {
        CHECK_TRUE(fabs(md.corr[m * 4 + 1]) < tol);
        CHECK_INT_EQ(md.lower[m], 1);
    }
    mu_sc_model_free(&md);
    mu_sc_hist_free(&h);
}

/* A hostile month: mean small against the spread and a strongly negative past,
 * so the lower bound is clamped often; inflows must stay >= 0. */
static void generation_nonnegative(void) {
    enum { NST = 3, P = 2, M = 20000 };
    double mu[NST] = {10, 1, 50}, sd[NST] = {30, 5, 40},
           phi[NST * P] = {0.9, 0.3, 0.5, 0, 1.2, -0.4}, sa[NST] = {0.4, 0.9, 0.2},
           D[NST * NST] = {1, 0, 0, 0.6, 0.8, 0, -0.3, 0.1, 0.948683298};
    mu_sc_gen_month g = {NST, P, mu, sd, phi, sa, D, 1, 0.05};
    double zp[P * NST] = {-3, 2, -4, 1, -2, 5}, *Z = malloc((size_t)M * NST * sizeof *Z);
    mu_sc_gen_draw d = {5, 42, 0, M, zp, 0};
    int64_t clamped = 0;
    mu_sc_gen_cpu(&g, &d, Z, &clamped);
    double mn = INFINITY;
    for (int k = 0; k < M * NST; k++) mn = fmin(mn, Z[k]);
    CHECK_TRUE(mn >= 0);
    CHECK_TRUE(clamped > 0);
    /* The same draws for a slice: keyed by scenario, not by position. */
    double Z2[5 * NST];
    mu_sc_gen_draw d2 = {5, 42, 777, 5, zp, 0};
    mu_sc_gen_cpu(&g, &d2, Z2, NULL);
    CHECK_ARRAY_BITS(Z2, Z + 777 * NST, 5 * NST);
    free(Z);
}

/* With the residual correlation applied to the normals, the
 * lognormal noises a correlate less than the target where the lognormals are
 * skewed; the per-node transform (mu_sc_lognormal_factor) gives the target. A
 * node-like draw of 200000 scenarios of three stations with a strongly skewed
 * noise (small conditional mean): sample correlation of a within 0.01 of R with
 * the transform; the plain normal-space factor is farther off. */
static void lognormal_correlation(void) {
    enum { NST = 3, P = 1, M = 200000 };
    double mu[NST] = {100, 80, 120}, sd[NST] = {60, 70, 50}, phi[NST * P] = {0.5, 0.6, 0.4},
           sa[NST] = {0.8, 0.7, 0.9};
    const double R[NST * NST] = {1, 0.8, 0.5, 0.8, 1, 0.6, 0.5, 0.6, 1};
    double D[NST * NST], Dn[NST * NST];
    int lower = 0, neg;
    double smallest;
    CHECK_INT_EQ(mu_sc_factor(R, NST, Dn, &lower, &neg, &smallest), 0);
    CHECK_INT_EQ(lower, 1);
    double zp[P * NST] = {-1.2, -0.8, -1.5}, *Z = malloc((size_t)M * NST * sizeof *Z);
    mu_sc_gen_month g = {NST, P, mu, sd, phi, sa, Dn, 1, 0.05};
    double err[2];
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            CHECK_INT_EQ(mu_sc_lognormal_factor(&g, R, zp, D, &lower), 0);
            g.D = D;
            g.lower = lower;
        }
        mu_sc_gen_draw d = {8, 3, 0, M, zp, 0};
        int64_t clamped = 0;
        mu_sc_gen_cpu(&g, &d, Z, &clamped);
        CHECK_INT_EQ(clamped, 0);
        /* a_s = Z_s / sd_s - mu_s / sd_s - cond_s */
        double s1[NST] = {0}, s2[NST] = {0}, sx[NST][NST] = {{0}};
        for (int64_t k = 0; k < M; k++) {
            double a[NST];
            for (int s = 0; s < NST; s++) {
                a[s] = (Z[k * NST + s] - mu[s]) / sd[s] - phi[s] * zp[s];
                s1[s] += a[s];
                s2[s] += a[s] * a[s];
            }
            for (int i = 0; i < NST; i++)
                for (int j = 0; j < NST; j++) sx[i][j] += a[i] * a[j];
        }
        err[pass] = 0;
        for (int i = 0; i < NST; i++) {
            double mi = s1[i] / M, vi = s2[i] / M - mi * mi;
            CHECK_TRUE(fabs(mi) < 0.02);
            CHECK_TRUE(fabs(sqrt(vi) / sa[i] - 1) < 0.03);
            for (int j = 0; j < i; j++) {
                double mj = s1[j] / M, vj = s2[j] / M - mj * mj;
                double r = (sx[i][j] / M - mi * mj) / sqrt(vi * vj);
                err[pass] = fmax(err[pass], fabs(r - R[i * NST + j]));
            }
        }
        printf("noise correlation, %s: largest |r - R| %.4f\n",
               pass ? "lognormal transform" : "normal-space factor", err[pass]);
    }
    CHECK_TRUE(err[1] < 0.01);
    CHECK_TRUE(err[0] > err[1]);
    free(Z);
}

/* The fitted model's own periodic moments (whatever the noise law, the
 * recursion is linear with zero-mean noise of variance sig_a^2): the covariance
 * of the state (z_t .. z_{t-P}) by iterating Sigma_m = A_m Sigma_{m-1} A_m^T +
 * sig_a^2 e1 e1^T over the months to the fixed point. var[m] = Var z_m and
 * lag1[m] = Corr(z_m, z_{m-1}). */
static void model_moments(const mu_sc_model *md, int s, double var[12], double lag1[12]) {
    enum { Q = 13 };
    int P = md->pmax, nst = md->nst;
    static double S[Q * Q], T[Q * Q];
    memset(S, 0, sizeof S);
    for (int it = 0; it < 400; it++)
        for (int m = 0; m < 12; m++) {
            const double *phi = md->phi + ((size_t)m * nst + s) * P;
            /* new state: z_t = sum phi_i z_{t-i} + a; the rest shift down. */
            for (int i = 0; i <= P; i++)
                for (int j = 0; j <= P; j++) {
                    double v = 0;
                    if (i == 0 && j == 0) {
                        for (int a = 0; a < P; a++)
                            for (int b = 0; b < P; b++) v += phi[a] * phi[b] * S[a * Q + b];
                        v += md->sig_a[m * nst + s] * md->sig_a[m * nst + s];
                    } else if (i == 0) {
                        for (int a = 0; a < P; a++) v += phi[a] * S[a * Q + j - 1];
                    } else if (j == 0) {
                        for (int b = 0; b < P; b++) v += phi[b] * S[(i - 1) * Q + b];
                    } else {
                        v = S[(i - 1) * Q + j - 1];
                    }
                    T[i * Q + j] = v;
                }
            memcpy(S, T, sizeof S);
            if (it == 399) {
                var[m] = S[0];
                lag1[m] = S[1] / sqrt(S[0] * S[Q + 1]);
            }
        }
}

/* 100000 generated years of three real stations (bundled record, fit with
 * p_max 6) against the fitted model's own moments, within sampling error:
 * monthly means within 0.015 sd of the model's (standard error about 0.004),
 * standard deviations within 0.03 (about 5 standard errors for these skewed
 * values; p047 in June, a dry month where the lower bound is clamped now and
 * then, comes out 2.5% low), lag-1 correlations within 0.015 (4). */
static void generated_moments(void) {
    mu_sc_hist h;
    mu_sc_select sel = {"p006,p074,p047", 0, 0, 10};
    CHECK_INT_EQ(mu_sc_read(MU_TEST_SCENARIOS_INPUTS "/ons_inflows_64.csv", &sel, &h), 0);
    mu_sc_fit_cfg fc = {.pmax = 6, .pacf_conf = 1.96, .quiet = 1};
    mu_sc_model md;
    CHECK_INT_EQ(mu_sc_fit(&h, &fc, &md), 0);
    enum { S = 1000, YEARS = 100, BURN = 2 };
    int nst = h.nst, P = md.pmax;
    double *zp = malloc((size_t)S * P * nst * sizeof *zp), *Z = malloc((size_t)S * nst * sizeof *Z);
    double sum[12][3] = {{0}}, sq[12][3] = {{0}}, cross[12][3] = {{0}}, prev[S][3];
    int64_t cnt = 0;
    for (int k = 0; k < S; k++)
        for (int i = 0; i < P * nst; i++) zp[(size_t)k * P * nst + i] = 0;
    for (int t = 0; t < 12 * (YEARS + BURN); t++) {
        int m = t % 12;
        mu_sc_gen_month g;
        mu_sc_month_args(&md, m, &g);
        g.delta_min = 0.05;
        mu_sc_gen_draw d = {3, (uint64_t)t, 0, S, zp, (int64_t)P * nst};
        mu_sc_gen_cpu(&g, &d, Z, NULL);
        for (int k = 0; k < S; k++) {
            double *z = zp + (size_t)k * P * nst;
            memmove(z + nst, z, (size_t)(P - 1) * nst * sizeof *z);
            for (int s = 0; s < nst; s++) {
                double q = Z[k * nst + s];
                CHECK_TRUE(q >= 0);
                z[s] = (q - md.mu[m * nst + s]) / md.sd[m * nst + s];
                if (t >= 12 * BURN) {
                    sum[m][s] += z[s];
                    sq[m][s] += z[s] * z[s];
                    cross[m][s] += z[s] * prev[k][s];
                }
                prev[k][s] = z[s];
            }
        }
        if (t >= 12 * BURN && m == 0) cnt += S;
    }
    CHECK_INT_EQ(cnt, 100000);
    for (int s = 0; s < nst; s++) {
        double mvar[12], mlag[12];
        model_moments(&md, s, mvar, mlag);
        for (int m = 0; m < 12; m++) {
            double mean = sum[m][s] / cnt, var = sq[m][s] / cnt - mean * mean;
            int mp = (m + 11) % 12;
            double vp = sq[mp][s] / cnt - (sum[mp][s] / cnt) * (sum[mp][s] / cnt);
            double r1 = (cross[m][s] / cnt - mean * sum[mp][s] / cnt) / sqrt(var * vp);
            int bad = fabs(mean) > 0.015 || fabs(sqrt(var) - sqrt(mvar[m])) > 0.03 ||
                      fabs(r1 - mlag[m]) > 0.015;
            if (bad || getenv("MU_TEST_VERBOSE"))
                printf("%s month %2d: mean %+.4f sd, std %.4f (model %.4f), lag-1 %.4f (model "
                       "%.4f, record %.4f)\n",
                       h.names[s], m + 1, mean, sqrt(var), sqrt(mvar[m]), r1, mlag[m],
                       md.rho[((size_t)m * nst + s) * P]);
            CHECK_TRUE(!bad);
        }
    }
    free(zp);
    free(Z);
    mu_sc_model_free(&md);
    mu_sc_hist_free(&h);
}

/* The three forms of representative on a hand-made node of 5 scenarios in 2
 * groups: nearest copies the named members, centroid gives the group means
 * (in inflow units), scaled the nearest members times one factor per station;
 * the probability-weighted children give back the sample mean for the last
 * two, and a station whose nearest members are all 0 takes that mean. */
static void representatives(void) {
    const double x[5 * 2] = {1, 0, 3, 0, 5, 4, 10, 0, 20, 6}; /* m = 5, d = 2 */
    int group[5] = {0, 0, 0, 1, 1}, rep[2] = {1, 3};
    double prob[2] = {0.6, 0.4}, out[4], mean[2];
    mu_agg_result ar = {.k = 2, .rep = rep, .prob = prob, .group = group};
    CHECK_INT_EQ(mu_sc_represent(MU_SC_REP_NEAREST, x, 5, 2, &ar, out, mean), 0);
    CHECK_TRUE(out[0] == 3 && out[1] == 0 && out[2] == 10 && out[3] == 0);
    CHECK_TRUE(mean[0] == 39.0 / 5 && mean[1] == 10.0 / 5);
    CHECK_INT_EQ(mu_sc_represent(MU_SC_REP_CENTROID, x, 5, 2, &ar, out, mean), 0);
    CHECK_TRUE(out[0] == 3 && fabs(out[1] - 4.0 / 3) < 1e-15 && out[2] == 15 && out[3] == 3);
    for (int form = MU_SC_REP_CENTROID; form <= MU_SC_REP_SCALED; form++) {
        CHECK_INT_EQ(mu_sc_represent((mu_sc_rep)form, x, 5, 2, &ar, out, mean), 0);
        for (int s = 0; s < 2; s++) {
            double w = prob[0] * out[s] + prob[1] * out[2 + s];
            CHECK_TRUE(fabs(w / mean[s] - 1) < 1e-15);
            CHECK_TRUE(out[s] >= 0 && out[2 + s] >= 0);
        }
    }
    /* scaled: station 0 times 7.8 / (0.6 * 3 + 0.4 * 10); station 1 (nearest all 0): the mean. */
    CHECK_INT_EQ(mu_sc_represent(MU_SC_REP_SCALED, x, 5, 2, &ar, out, mean), 0);
    CHECK_TRUE(fabs(out[0] - 3 * 7.8 / 5.8) < 1e-14 && fabs(out[2] - 10 * 7.8 / 5.8) < 1e-14);
    CHECK_TRUE(out[1] == 2 && out[3] == 2);
    CHECK_INT_EQ(mu_sc_rep_parse("centroid"), MU_SC_REP_CENTROID);
    CHECK_INT_EQ(mu_sc_rep_parse("median"), -1);
    CHECK_STR_EQ(mu_sc_rep_name(MU_SC_REP_SCALED), "scaled");
}

int main(void) {
    mu_log_init(0, 1);
    if (mu_test_dir_make(tmpdir, sizeof tmpdir, "mutirao_test_scenarios")) return 1;
    MU_RUN(reader_errors);
    MU_RUN(linalg);
    MU_RUN(fit_recovers_coefficients);
    MU_RUN(generation_nonnegative);
    MU_RUN(lognormal_correlation);
    MU_RUN(generated_moments);
    MU_RUN(representatives);
    return mu_test_dir_remove(tmpdir, mu_report("test_scenarios"));
}
#endif
