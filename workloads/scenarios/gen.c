/* Scenario generation on the CPU: the reference the GPU kernel must match. Each
 * scenario draws its stations' normals, correlates them through the month's
 * factor and turns them into inflows (gpu/scenarios_gen_core.h). */
#include <math.h>
#include <stdlib.h>
#include "scenarios/scenarios.h"

void mu_sc_gen_cpu(const mu_sc_gen_month *g, const mu_sc_gen_draw *d, double *Z, int64_t *clamped) {
    int nst = g->nst;
    double w[1024], *wv = nst <= 1024 ? w : malloc((size_t)nst * sizeof *wv);
    int64_t nclamp = 0;
    for (int64_t k = 0; k < d->nscen; k++) {
        uint64_t scen = (uint64_t)(d->scen0 + k);
        const double *zp = d->zpast + k * d->zstride;
        for (int s = 0; s < nst; s++) wv[s] = mu_sc_normal(d->seed, d->node, scen, s);
        for (int s = 0; s < nst; s++) {
            int c;
            Z[k * nst + s] = mu_sc_inflow(g, zp, s, mu_sc_corr_noise(g, wv, s), &c);
            nclamp += c;
        }
    }
    if (wv != w) free(wv);
    if (clamped) *clamped += nclamp;
}

int mu_sc_lognormal_factor(const mu_sc_gen_month *g, const double *R, const double *zpast,
                           double *D, int *lower) {
    int n = g->nst, neg;
    double smallest, *s2 = malloc((size_t)n * sizeof *s2), *Q = malloc((size_t)n * n * sizeof *Q);
    if (!s2 || !Q) {
        free(s2);
        free(Q);
        return 1;
    }
    for (int i = 0; i < n; i++) s2[i] = mu_sc_sigma_xi2(g, zpast, i);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (i == j) {
                Q[i * n + j] = 1;
                continue;
            }
            double arg = 1 + R[i * n + j] * sqrt(expm1(s2[i]) * expm1(s2[j]));
            double r = arg > 0 ? log(arg) / sqrt(s2[i] * s2[j]) : -1;
            Q[i * n + j] = r > 1 ? 1 : r < -1 ? -1 : r;
        }
    int rc = mu_sc_factor(Q, n, D, lower, &neg, &smallest);
    free(s2);
    free(Q);
    return rc;
}
