/* The FM fixed-point iteration on the CPU, and prototype acceptance. */
#include "fuzzy/fm.h"
#include <stdlib.h>
#include <string.h>
#include "core/error.h"

/* One step from v: the weighted mean with weights mu^2. Two lanes (even and odd
 * objects, combined at the end) give the compiler independent chains; the
 * order is fixed, so the result is the same on every run and layout. */
static void step_2d(const double *x, int64_t n, double r2, const double *v, double *out) {
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
    double w = sw[0] + sw[1];
    out[0] = (s0[0] + s0[1]) / w;
    out[1] = (s1[0] + s1[1]) / w;
}

static void step_any(const double *x, int64_t n, int F, double r2, const double *v, double *acc,
                     double *out) {
    double sw = 0;
    for (int f = 0; f < F; f++) acc[f] = 0;
    for (int64_t j = 0; j < n; j++) {
        const double *xj = x + j * F;
        double d2 = 0;
        for (int f = 0; f < F; f++) {
            double d = xj[f] - v[f];
            d2 += d * d;
        }
        double u = 1.0 / (1.0 + r2 * d2);
        double w = u * u;
        sw += w;
        for (int f = 0; f < F; f++) acc[f] += w * xj[f];
    }
    for (int f = 0; f < F; f++) out[f] = acc[f] / sw;
}

int mu_fm_run_cpu(const mu_fm_set *set, int64_t first, int64_t count, double *v, mu_fm_stat *stat) {
    const int F = set->F;
    double stack[3 * 16];
    double *scratch = F <= 16 ? stack : malloc((size_t)(3 * F) * sizeof *scratch);
    if (!scratch) return mu_error("out of memory for %d features", F);
    double *c = scratch, *nx = scratch + F, *acc = scratch + 2 * F;
    for (int64_t k = 0; k < count; k++) {
        memcpy(c, set->x + (first + k) * F, (size_t)F * sizeof *c);
        int64_t it = 0;
        int conv = 0;
        while (it < set->max_it) {
            it++;
            if (F == 2)
                step_2d(set->x, set->n, set->r2, c, nx);
            else
                step_any(set->x, set->n, F, set->r2, c, acc, nx);
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
    if (scratch != stack) free(scratch);
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
