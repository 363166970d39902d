/* The advect problem of the advect fuzz targets: 4 x 3 x 2 cells, 2 fields,
 * a constant wind, a Gaussian (or a file) as the initial fields. */
#ifndef MU_FUZZ_ADVECT_CFG_H
#define MU_FUZZ_ADVECT_CFG_H
#include <string.h>
#include "advect/advect.h"

static inline void fz_advect_cfg(adv_cfg *c) {
    memset(c, 0, sizeof *c);
    c->n[0] = 4;
    c->n[1] = 3;
    c->n[2] = 2;
    c->nf = 2;
    for (int k = 0; k < 3; k++) {
        c->len[k] = 1;
        c->center[k] = 0.5;
        c->periodic[k] = 1;
    }
    c->dt = 0.01;
    c->steps = 10;
    c->wind = ADV_WIND_CONSTANT;
    c->u0[0] = 1;
    c->init = ADV_INIT_GAUSSIAN;
    c->radius = 0.2;
    c->amp = 1;
    c->pgrid[0] = c->pgrid[1] = 1;
    c->pf = 1;
}

#endif
