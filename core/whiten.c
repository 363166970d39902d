/* Mahalanobis distance by whitening. With z = D^-1 (x - mean) (D the stations'
 * standard deviations) and R = L L' the scenarios' correlation matrix, the
 * squared Mahalanobis distance (x_a - x_b)' S^-1 (x_a - x_b) equals
 * |L^-1 (z_a - z_b)|^2, so the k-means runs on y = L^-1 z with the Euclidean
 * distance in O(d) per pair instead of O(d^2). Working on correlations keeps
 * the rank test independent of the stations' scales (inflows differ by 10^4).
 *
 * A singular covariance (a station constant over the M scenarios, or a linear
 * combination of others, like the study's artificial stations) is handled by a
 * Cholesky factorisation with diagonal pivoting that stops at the numerical
 * rank r: stations are taken largest remaining variance first (ties: lower
 * index), and one whose variance left after the kept ones is at most
 * MU_WHITEN_TOL of its own is dropped. Over these scenarios a dropped station
 * is determined by the kept ones, so the distance over the kept r (that is,
 * with the pseudo-inverse of S, for differences between scenarios) is the
 * Mahalanobis distance that the singular S still defines. Constant stations add
 * nothing to any distance. When every station is dropped (all scenarios alike)
 * the rank is 0 and all distances are 0. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/free.h"
#include "core/message.h"
#include "core/whiten.h"

/* Stations kept (not constant over the scenarios): their means and standard
 * deviations, their indices in keep; returns how many. */
static int kept_stations(const double *x, int m, int d, double *mean, double *sd, int *keep) {
    for (int i = 0; i < m; i++)
        for (int j = 0; j < d; j++) mean[j] += x[(size_t)i * d + j];
    for (int j = 0; j < d; j++) mean[j] /= m;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < d; j++) {
            double t = x[(size_t)i * d + j] - mean[j];
            sd[j] += t * t;
        }
    return mu_whiten_keep(m, d, mean, sd, keep);
}

int mu_whiten_keep(int m, int d, const double *mean, double *sd, int *keep) {
    int q = 0;
    for (int j = 0; j < d; j++) {
        sd[j] = sqrt(sd[j] / (m - 1));
        if (sd[j] > MU_WHITEN_CONST * fabs(mean[j]) && sd[j] > 0.0) keep[q++] = j;
    }
    return q;
}

static int pivoted_cholesky(double *r, int q, int *piv);

enum { CT = 4, CB = 64 }; /* correlation tiles: CT x CT entries, CB points at a time */

/* Threads from this many points on: below it the parallel regions' start
 * costs more than the loops (a tree node has M = 1024). */
#define PAR_MIN 8192

/* The CT x CT tile of r at (s0, u0) plus the products of points i0 .. i1-1,
 * each entry's in point order (as one running sum over all the points); z has
 * row stride zs, a multiple of CT (zero padding). */
static void corr_tile(const double *z, int zs, int q, int i0, int i1, int s0, int u0, double *r) {
    int ns = q - s0 < CT ? q - s0 : CT, nu = q - u0 < CT ? q - u0 : CT;
    double acc[CT][CT] = {{0}};
    for (int a = 0; a < ns; a++)
        for (int b = 0; b < nu; b++) acc[a][b] = r[(size_t)(s0 + a) * q + u0 + b];
    for (int i = i0; i < i1; i++) {
        const double *za = z + (size_t)i * zs + s0, *zb = z + (size_t)i * zs + u0;
        for (int a = 0; a < CT; a++)
            for (int b = 0; b < CT; b++) acc[a][b] += za[a] * zb[b];
    }
    for (int a = 0; a < ns; a++)
        for (int b = 0; b < nu; b++) r[(size_t)(s0 + a) * q + u0 + b] = acc[a][b];
}

/* z: standardised kept stations (m x q, row stride zs); r: their correlation
 * matrix. Each entry of the lower triangle is one sum over the points in
 * order; tiles of entries (independent sums) are split over the threads, and
 * a tile's sums advance CB points at a time so that the points stay in cache. */
static void correlation(const double *x, int m, int d, const double *mean, const double *sd,
                        const int *keep, int q, int zs, double *z, double *r) {
#pragma omp parallel for schedule(static) if (m >= PAR_MIN)
    for (int i = 0; i < m; i++) {
        for (int s = 0; s < q; s++) {
            int j = keep[s];
            z[(size_t)i * zs + s] = (x[(size_t)i * d + j] - mean[j]) / sd[j];
        }
        for (int s = q; s < zs; s++) z[(size_t)i * zs + s] = 0.0;
    }
    int nt = (q + CT - 1) / CT, ntiles = nt * (nt + 1) / 2;
#pragma omp parallel if (m >= PAR_MIN)
    for (int i0 = 0; i0 < m; i0 += CB) {
        int i1 = m - i0 < CB ? m : i0 + CB;
        /* static: each thread keeps its tiles from one block of points to the next */
#pragma omp for schedule(static) nowait
        for (int t = 0; t < ntiles; t++) {
            int a = 0;
            while ((a + 1) * (a + 2) / 2 <= t) a++;
            corr_tile(z, zs, q, i0, i1, a * CT, (t - a * (a + 1) / 2) * CT, r);
        }
    }
}

int mu_whiten_factor(double *r, int m, int q, int *piv) {
    for (int s = 0; s < q; s++)
        for (int u = 0; u <= s; u++) {
            r[(size_t)s * q + u] /= (m - 1);
            r[(size_t)u * q + s] = r[(size_t)s * q + u];
        }
    return pivoted_cholesky(r, q, piv);
}

/* Pivoted Cholesky in place (lower triangle, rows and columns swapped as
 * pivots are chosen); piv[s] = kept-station slot in position s. Returns the
 * numerical rank. */
static int pivoted_cholesky(double *r, int q, int *piv) {
    for (int s = 0; s < q; s++) piv[s] = s;
    int rk = 0;
    for (int s = 0; s < q; s++) {
        int p = s;
        for (int u = s + 1; u < q; u++)
            if (r[(size_t)u * q + u] > r[(size_t)p * q + p]) p = u;
        if (!(r[(size_t)p * q + p] > MU_WHITEN_TOL)) break;
        if (p != s) { /* symmetric swap of rows/columns s and p */
            for (int u = 0; u < q; u++) {
                double t = r[(size_t)s * q + u];
                r[(size_t)s * q + u] = r[(size_t)p * q + u];
                r[(size_t)p * q + u] = t;
            }
            for (int u = 0; u < q; u++) {
                double t = r[(size_t)u * q + s];
                r[(size_t)u * q + s] = r[(size_t)u * q + p];
                r[(size_t)u * q + p] = t;
            }
            int t = piv[s];
            piv[s] = piv[p];
            piv[p] = t;
        }
        double l = sqrt(r[(size_t)s * q + s]);
        r[(size_t)s * q + s] = l;
        for (int u = s + 1; u < q; u++) r[(size_t)u * q + s] /= l;
        for (int u = s + 1; u < q; u++)
            for (int v = s + 1; v <= u; v++) {
                r[(size_t)u * q + v] -= r[(size_t)u * q + s] * r[(size_t)v * q + s];
                r[(size_t)v * q + u] = r[(size_t)u * q + v];
            }
        rk++;
    }
    return rk;
}

enum { WB = 8 };

/* y_i = L^-1 (z_i in pivot order), by forward substitution: WB points side
 * by side (yb[s][t]), each point's chain of subtractions in the order u = 0..s-1
 * as one point alone would do them, but WB independent chains at a time. */
static void whiten_block(const double *z, int zs, const double *r, const int *piv, int m, int d,
                         int q, int rk, int i0, double *yb, double *y) {
    int nb = m - i0 < WB ? m - i0 : WB;
    for (int s = 0; s < rk; s++) {
        double v[WB] = {0};
        for (int t = 0; t < nb; t++) v[t] = z[(size_t)(i0 + t) * zs + piv[s]];
        const double *rs = r + (size_t)s * q;
        for (int u = 0; u < s; u++) {
            const double ru = rs[u], *yu = yb + (size_t)u * WB;
            for (int t = 0; t < WB; t++) v[t] -= ru * yu[t];
        }
        for (int t = 0; t < WB; t++) yb[(size_t)s * WB + t] = v[t] / rs[s];
    }
    for (int t = 0; t < nb; t++) {
        double *yi = y + (size_t)(i0 + t) * d;
        for (int s = 0; s < rk; s++) yi[s] = yb[(size_t)s * WB + t];
        for (int s = rk; s < d; s++) yi[s] = 0.0;
    }
}

/* Every point's block on the threads (points are independent); yb: WB x rk
 * scratch for each of nthr threads. */
static void whiten_points(const double *z, int zs, const double *r, const int *piv, int m, int d,
                          int q, int rk, int nthr, double *yb, double *y) {
#pragma omp parallel for schedule(static) num_threads(nthr)
    for (int i0 = 0; i0 < m; i0 += WB)
        whiten_block(z, zs, r, piv, m, d, q, rk, i0, yb + (size_t)omp_get_thread_num() * WB * rk,
                     y);
}

int mu_whiten(const double *x, int m, int d, double *y, int *rank) {
    *rank = 0;
    for (size_t t = 0; t < (size_t)m * (size_t)d; t++)
        if (!isfinite(x[t]))
            return mu_error("scenario %zu, station %zu is not a finite number", t / (size_t)d,
                            t % (size_t)d);
    if (m < 2) return 0;
    double *mean = calloc((size_t)d, sizeof(double)), *sd = calloc((size_t)d, sizeof(double));
    int *keep = malloc(sizeof(int) * (size_t)d), *piv = malloc(sizeof(int) * (size_t)d);
    double *z = malloc(sizeof(double) * (size_t)m * (size_t)((d + CT - 1) / CT * CT));
    double *r = calloc((size_t)d * (size_t)d, sizeof(double));
    int rc = 0;
    if (!mean || !sd || !keep || !piv || !z || !r)
        MU_TRY_GOTO(mu_error("out of memory whitening %d x %d scenarios", m, d));
    int q = kept_stations(x, m, d, mean, sd, keep);
    int zs = (q + CT - 1) / CT * CT;
    correlation(x, m, d, mean, sd, keep, q, zs, z, r);
    int rk = mu_whiten_factor(r, m, q, piv);
    int nthr = omp_in_parallel() || m < PAR_MIN ? 1 : omp_get_max_threads();
    double *yb = malloc(sizeof(double) * WB * (size_t)(rk > 0 ? rk : 1) * (size_t)nthr);
    if (!yb) MU_TRY_GOTO(mu_error("out of memory whitening %d x %d scenarios", m, d));
    whiten_points(z, zs, r, piv, m, d, q, rk, nthr, yb, y);
    free(yb);
    *rank = rk;
done:
    MU_FREE(mean, sd, keep, piv, z, r);
    return rc;
}
