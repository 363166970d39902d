/* Scenario generation on the CPU: the reference the GPU kernel must match. Each
 * scenario draws its stations' normals, correlates them through the month's
 * factor and turns them into inflows (gpu/scenarios_gen_core.h). */
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
