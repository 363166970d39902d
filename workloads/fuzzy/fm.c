/* The FM fixed-point iteration on the CPU, and prototype acceptance. */
#include "fuzzy/fm.h"
#include <stdlib.h>
#include <string.h>
#include "core/error.h"

/* The sums of one summation block in 2-D: two lanes (even and odd objects of
 * the block, added at the end) give the compiler independent chains; the order
 * is fixed, so the result is the same on every run and layout. */
static void block_2d(const double *x, int64_t n, double r2, const double *v, double *out) {
    double v0 = v[0], v1 = v[1];
    double sw[2] = {0, 0}, s0[2] = {0, 0}, s1[2] = {0, 0};
    int64_t j = 0;
    for (; j + 1 < n; j += 2) {
        for (int l = 0; l < 2; l++) {
            double a = x[2 * (j + l)], b = x[2 * (j + l) + 1];
            double d0 = a - v0, d1 = b - v1;
            double u = 1.0 / (1.0 + r2 * (d0 * d0 + d1 * d1));
            double w = u * u;
            sw[l] += w;
            s0[l] += w * a;
            s1[l] += w * b;
        }
    }
    if (j < n) {
        double a = x[2 * j], b = x[2 * j + 1];
        double d0 = a - v0, d1 = b - v1;
        double u = 1.0 / (1.0 + r2 * (d0 * d0 + d1 * d1));
        double w = u * u;
        sw[0] += w;
        s0[0] += w * a;
        s1[0] += w * b;
    }
    out[0] = sw[0] + sw[1];
    out[1] = s0[0] + s0[1];
    out[2] = s1[0] + s1[1];
}

/* Any dimension: one lane. out[0] = sum w, out[1 + f] = sum w x_f. */
static void block_any(const double *x, int64_t n, int F, double r2, const double *v, double *out) {
    for (int f = 0; f <= F; f++) out[f] = 0;
    for (int64_t j = 0; j < n; j++) {
        const double *xj = x + j * F;
        double d2 = 0;
        for (int f = 0; f < F; f++) {
            double d = xj[f] - v[f];
            d2 += d * d;
        }
        double u = 1.0 / (1.0 + r2 * d2);
        double w = u * u;
        out[0] += w;
        for (int f = 0; f < F; f++) out[1 + f] += w * xj[f];
    }
}

int64_t mu_fm_partials(const double *x, int64_t rows, int F, double r2, int64_t block,
                       const double *c, double *part) {
    if (block <= 0 || block > rows) block = rows > 0 ? rows : 1;
    int64_t nb = 0;
    for (int64_t j0 = 0; j0 < rows; j0 += block, nb++) {
        int64_t len = rows - j0 < block ? rows - j0 : block;
        if (F == 2)
            block_2d(x + j0 * 2, len, r2, c, part + nb * 3);
        else
            block_any(x + j0 * F, len, F, r2, c, part + nb * (F + 1));
    }
    return nb;
}

void mu_fm_combine(const double *part, int64_t nb, int F, double *acc, double *out) {
    for (int f = 0; f <= F; f++) acc[f] = 0;
    for (int64_t b = 0; b < nb; b++)
        for (int f = 0; f <= F; f++) acc[f] += part[b * (F + 1) + f];
    for (int f = 0; f < F; f++) out[f] = acc[1 + f] / acc[0];
}

int mu_fm_run_cpu(const mu_fm_set *set, int64_t first, int64_t count, double *v, mu_fm_stat *stat) {
    const int F = set->F;
    int64_t block = set->sum_block > 0 && set->sum_block < set->n ? set->sum_block : set->n;
    int64_t nb = block > 0 ? (set->n + block - 1) / block : 1;
    if (nb < 1) nb = 1;
    double *scratch = malloc((size_t)(3 * F + 1 + nb * (F + 1)) * sizeof *scratch);
    if (!scratch) return mu_error("out of memory for %d features", F);
    double *c = scratch, *nx = scratch + F, *acc = scratch + 2 * F, *part = scratch + 3 * F + 1;
    for (int64_t k = 0; k < count; k++) {
        memcpy(c, set->x + (first + k) * F, (size_t)F * sizeof *c);
        int64_t it = 0;
        int conv = 0;
        while (it < set->max_it) {
            it++;
            int64_t got = mu_fm_partials(set->x, set->n, F, set->r2, block, c, part);
            mu_fm_combine(part, got, F, acc, nx);
            double e = 0;
            for (int f = 0; f < F; f++) {
                double d = nx[f] - c[f];
                e += d * d;
            }
            memcpy(c, nx, (size_t)F * sizeof *c);
            if (e < set->eps1) {
                conv = 1;
                break;
            }
        }
        memcpy(v + k * F, c, (size_t)F * sizeof *v);
        stat[k].iterations = it;
        stat[k].converged = conv;
    }
    free(scratch);
    return 0;
}

int64_t mu_fm_accept(const double *v, const mu_fm_stat *stat, int64_t count, int F, double eps2,
                     double *proto, int64_t *from) {
    int64_t m = 0;
    for (int64_t k = 0; k < count; k++) {
        if (!stat[k].converged) continue;
        const double *c = v + k * F;
        int fresh = 1;
        for (int64_t j = 0; j < m && fresh; j++) {
            double d2 = 0;
            for (int f = 0; f < F; f++) {
                double d = c[f] - proto[j * F + f];
                d2 += d * d;
            }
            if (!(d2 > eps2)) fresh = 0;
        }
        if (!fresh) continue;
        memcpy(proto + m * F, c, (size_t)F * sizeof *proto);
        if (from) from[m] = k;
        m++;
    }
    return m;
}
