/* The model: moments, the log-determinant, the factor r, memberships, and the
 * study's sort-and-deal partitioning. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fuzzy/fuzzy.h"
#include "core/error.h"
#include "core/exactsum.h"
#include "core/log.h"
#include "mpi/wait.h"

/* Sums count accumulators over comm, exactly (every rank count gives the same
 * words); in chunks, as MPI counts are int. */
static void xsum_reduce(mu_xsum *s, int64_t count, MPI_Comm comm) {
    for (int64_t i = 0; i < count; i++) mu_xsum_normalize(&s[i]);
    if (comm == MPI_COMM_NULL) return;
    const int64_t chunk = (int64_t)1 << 24;
    for (int64_t i = 0; i < count; i += chunk) {
        int64_t m = count - i < chunk ? count - i : chunk;
        mu_allreduce(s + i, (int)(m * MU_XSUM_WORDS), MPI_INT64_T, MPI_SUM, comm);
    }
}

double mu_fz_model_bytes(int F) {
    double npair = (double)F * (F + 1) / 2;
    /* The accumulators, then cov, the Cholesky factor and the plot's two F x F. */
    return (npair > F ? npair : F) * (double)sizeof(mu_xsum) + 4.0 * F * F * sizeof(double);
}

int mu_fz_moments(const double *x, int64_t nloc, int F, int64_t n, MPI_Comm comm, double *mean,
                  double *cov) {
    int64_t npair = (int64_t)F * (F + 1) / 2;
    mu_xsum *acc = malloc((size_t)(npair > F ? npair : F) * sizeof *acc);
    double *d = malloc((size_t)F * sizeof *d);
    int rc = !acc || !d ? mu_error("out of memory for the covariance's exact sums (%lld x %zu "
                                   "bytes)",
                                   (long long)npair, sizeof *acc)
                        : 0;
    if (comm != MPI_COMM_NULL) rc = mu_error_collective(comm, rc);
    if (rc) {
        free(acc);
        free(d);
        return 1;
    }
    /* Pass 1: the mean. */
    for (int f = 0; f < F; f++) mu_xsum_zero(&acc[f]);
    for (int64_t i = 0; i < nloc; i++)
        for (int f = 0; f < F; f++) {
            mu_xsum_add(&acc[f], x[i * F + f]);
            if ((i & 0x3fffffff) == 0x3fffffff) mu_xsum_normalize(&acc[f]);
        }
    xsum_reduce(acc, F, comm);
    for (int f = 0; f < F; f++) mean[f] = mu_xsum_round(&acc[f], NULL) / (double)n;
    /* Pass 2: centred cross products, upper triangle. */
    for (int64_t k = 0; k < npair; k++) mu_xsum_zero(&acc[k]);
    for (int64_t i = 0; i < nloc; i++) {
        for (int f = 0; f < F; f++) d[f] = x[i * F + f] - mean[f];
        int64_t k = 0;
        for (int a = 0; a < F; a++)
            for (int b = a; b < F; b++, k++) mu_xsum_add(&acc[k], d[a] * d[b]);
        if ((i & 0x3fffffff) == 0x3fffffff)
            for (k = 0; k < npair; k++) mu_xsum_normalize(&acc[k]);
    }
    xsum_reduce(acc, npair, comm);
    int64_t k = 0;
    for (int a = 0; a < F; a++)
        for (int b = a; b < F; b++, k++)
            cov[(int64_t)a * F + b] = cov[(int64_t)b * F + a] =
                mu_xsum_round(&acc[k], NULL) / (double)(n - 1);
    free(acc);
    free(d);
    return 0;
}

int mu_fz_logdet(const double *C, int F, double *logdet, int *bad_col) {
    double *L = malloc((size_t)(F * F) * sizeof *L);
    if (!L) return mu_error("out of memory for a %d x %d Cholesky factor", F, F);
    memcpy(L, C, (size_t)(F * F) * sizeof *L);
    double ld = 0;
    for (int j = 0; j < F; j++) {
        double s = L[j * F + j];
        for (int k = 0; k < j; k++) s -= L[j * F + k] * L[j * F + k];
        /* Not positive, or lost to rounding against the column's own variance. */
        if (!(s > 1e-13 * C[j * F + j]) || !(s > 0)) {
            *bad_col = j;
            free(L);
            return 1;
        }
        double p = sqrt(s);
        L[j * F + j] = p;
        ld += 2.0 * log(p);
        for (int i = j + 1; i < F; i++) {
            double t = L[i * F + j];
            for (int k = 0; k < j; k++) t -= L[i * F + k] * L[j * F + k];
            L[i * F + j] = t / p;
        }
    }
    free(L);
    *logdet = ld;
    return 0;
}

typedef struct {
    const double *d2;
    int64_t nloc;
    MPI_Comm comm;
    int threads;
    int evals;
} rsums;

/* A thread's part of S and T: its accumulators normalized, so that any
 * number of parts merge within the add limits. */
static void part_sums(const double *d2, int64_t lo, int64_t hi, double a, mu_xsum acc[2]) {
    mu_xsum_zero(&acc[0]);
    mu_xsum_zero(&acc[1]);
    for (int64_t i = lo; i < hi; i++) {
        double u = 1.0 / (1.0 + a * d2[i]);
        mu_xsum_add(&acc[0], u);
        mu_xsum_add(&acc[1], u * (1.0 - u));
        if (((i - lo) & 0x3fffffff) == 0x3fffffff) {
            mu_xsum_normalize(&acc[0]);
            mu_xsum_normalize(&acc[1]);
        }
    }
    mu_xsum_normalize(&acc[0]);
    mu_xsum_normalize(&acc[1]);
}

/* S = sum u and T = sum u (1 - u), u = 1/(1 + e^(2s) d2), over all ranks; the
 * rank's distances in blocks handed to its threads as they come (exact sums:
 * the same words in any order; a thread the system holds back keeps one
 * small block, not a thread's share). */
static void eval_sums(rsums *c, double s, double *S, double *T) {
    mu_xsum acc[2];
    mu_xsum_zero(&acc[0]);
    mu_xsum_zero(&acc[1]);
    double a = exp(2.0 * s);
    int threads = c->nloc >= 8192 && c->threads > 1 ? c->threads : 1;
    int parts = threads > 1 ? 8 * threads : 1;
#pragma omp parallel for schedule(dynamic) num_threads(threads)
    for (int p = 0; p < parts; p++) {
        mu_xsum part[2];
        part_sums(c->d2, c->nloc * p / parts, c->nloc * (p + 1) / parts, a, part);
#pragma omp critical(mu_fz_r_sums)
        {
            mu_xsum_merge(&acc[0], &part[0]);
            mu_xsum_merge(&acc[1], &part[1]);
        }
    }
    xsum_reduce(acc, 2, c->comm);
    c->evals++;
    *S = mu_xsum_round(&acc[0], NULL);
    *T = mu_xsum_round(&acc[1], NULL);
}

int mu_fz_solve_r(const double *d2, int64_t nloc, int64_t n, int F, double logdet, mu_fz_rnorm norm,
                  double tol, int threads, MPI_Comm comm, mu_fz_rinfo *info) {
    memset(info, 0, sizeof *info);
    rsums c = {d2, nloc, comm, threads, 0};
    /* log K: sqrt|C^-1| = exp(-logdet / 2), over n in the printed form. */
    double logK = -0.5 * logdet - (norm == MU_FZ_R_PRINTED ? log((double)n) : 0.0);
    double S, T;
    /* S <= n, so g(s) <= log K + log n - F s: the root lies at or below s_hi, and
     * g(s_hi) = log(S/n) < 0 unless every object sits on the mean. */
    double hi = (logK + log((double)n)) / F, ghi;
    eval_sums(&c, hi, &S, &T);
    ghi = logK + log(S) - F * hi;
    if (!(ghi < 0)) {
        info->r = exp(hi);
        return mu_error("the factor r: every object sits on the mean (no spread)");
    }
    /* Walk left in doubling steps until g > 0. */
    double lo = hi, glo = ghi, step = 1.0;
    int walks = 0;
    while (!(glo > 0)) {
        hi = lo;
        ghi = glo;
        lo = hi - step;
        step *= 2.0;
        eval_sums(&c, lo, &S, &T);
        glo = logK + log(S) - F * lo;
        if (++walks > 200 || !isfinite(glo))
            return mu_error("the factor r: no bracket found (g = %g at log r = %g)", glo, lo);
    }
    /* Safeguarded Newton from the left end (there g > 0 and Newton moves right). */
    double s = lo, g = glo, dg = -2.0 * T / S - F;
    int steps = 0;
    for (;;) {
        double next = s - g / dg;
        if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
        double moved = fabs(next - s);
        s = next;
        eval_sums(&c, s, &S, &T);
        g = logK + log(S) - F * s;
        dg = -2.0 * T / S - F;
        steps++;
        if (!isfinite(g))
            return mu_error("the factor r: the sums broke down at log r = %g (S = %g)", s, S);
        if (g > 0)
            lo = s;
        else if (g < 0)
            hi = s;
        if (g == 0 || moved <= tol || hi - lo <= tol * 0.5) break;
        if (steps >= 500)
            return mu_error("the factor r: Newton did not settle in %d steps (bracket %g..%g)",
                            steps, exp(lo), exp(hi));
    }
    info->r = exp(s);
    info->steps = steps;
    info->evals = c.evals;
    info->resid = g;
    info->lo = exp(lo);
    info->hi = exp(hi);
    return 0;
}

void mu_fz_memberships(const double *x, int64_t n, int F, const double *v, int m, double r,
                       double *mu, int32_t *labels, double *top_mu) {
    double r2 = r * r;
    for (int64_t i = 0; i < n; i++) {
        const double *xi = x + i * F;
        int best = 0;
        double top = -1;
        for (int j = 0; j < m; j++) {
            double d2 = 0;
            for (int f = 0; f < F; f++) {
                double d = xi[f] - v[j * F + f];
                d2 += d * d;
            }
            double u = 1.0 / (1.0 + r2 * d2);
            if (mu) mu[i * m + j] = u;
            if (u > top) {
                top = u;
                best = j;
            }
        }
        if (labels) labels[i] = best;
        if (top_mu) top_mu[i] = top;
    }
}

/* Lexicographic ascending, ties in input order: a stable order. */
static const double *sort_x;
static int sort_F;
static int lex_cmp(const void *pa, const void *pb) {
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    const double *xa = sort_x + a * sort_F, *xb = sort_x + b * sort_F;
    for (int f = 0; f < sort_F; f++) {
        if (xa[f] < xb[f]) return -1;
        if (xa[f] > xb[f]) return 1;
    }
    return (a > b) - (a < b);
}

int mu_fz_deal(const double *x, int64_t n, int F, int p, int64_t *order, int64_t *start) {
    int64_t *sorted = malloc((size_t)n * sizeof *sorted);
    if (!sorted) return mu_error("out of memory sorting %lld objects", (long long)n);
    for (int64_t i = 0; i < n; i++) sorted[i] = i;
    sort_x = x;
    sort_F = F;
    qsort(sorted, (size_t)n, sizeof *sorted, lex_cmp);
    start[0] = 0;
    for (int j = 0; j < p; j++) start[j + 1] = start[j] + n / p + (j < n % p);
    for (int j = 0; j < p; j++)
        for (int64_t k = 0, i = j; i < n; i += p, k++) order[start[j] + k] = sorted[i];
    free(sorted);
    return 0;
}
