/* Steady winds on CPU ranks: a sweep's face winds, Walcek densities, cell
 * classes, segments and cycle signs depend on the winds and on rho(z) alone
 * (each step starts from rho(z)), so under winds that do not change with time
 * they are the same every step. The first step makes them, as any step does;
 * later steps read them (the same bits) instead of making them again: no
 * winds, densities, classes or cycle reductions a step, which each rank would
 * otherwise repeat for its own fields. */
#include <stdlib.h>
#include <string.h>
#include "advect/advect.h"
#include "core/error.h"
#include "core/free.h"
#include "core/knobs.h"
#include "core/log.h"
#include "core/summary.h"
#include "mpi/wait.h"

/* Bytes kept for the three axes: per line, m + 1 faces and m cells. */
static double steady_bytes(const adv_state *s) {
    double cells = (double)s->nl[0] * s->nl[1] * s->nl[2], total = 0;
    for (int a = 0; a < 3; a++) {
        double lines = cells / s->nl[a];
        total += lines * ((s->nl[a] + 1) * 8.0 + s->nl[a] * 9.0 + sizeof(adv_seg) + sizeof(int));
    }
    return total;
}

void adv_steady_decide(adv_state *s, double mem_bytes, int on_gpu) {
    double bytes = steady_bytes(s);
    /* a quarter of the rank's memory at most: the fields and scratch come first */
    int fits = !(mem_bytes > 0) || bytes <= 0.25 * mem_bytes;
    s->keep_winds =
        !on_gpu && adv_wind_steady(s->cfg) && fits && mu_knob_flag("MUTIRAO_ADV_KEEP", 1);
    int all = s->keep_winds;
    mu_allreduce(&all, 1, MPI_INT, MPI_MIN, s->comm);
    s->keep_winds = all; /* every rank or none: kept sweeps skip the lines' reductions */
    if (all)
        mu_info("steady winds: each axis's winds, densities and classes kept between steps "
                "(%.1f MB a rank)",
                bytes / 1e6);
    mu_summary_int("winds_kept", all);
}

int adv_steady_keep(adv_state *s, int axis, int G, int m, double cmax) {
    adv_steady *k = calloc(1, sizeof *k);
    if (!k) return mu_error("out of memory for the steady winds");
    s->steady[axis] = k;
    size_t faces = (size_t)G * (m + 1), cells = (size_t)G * m;
    k->u = malloc(faces * sizeof *k->u);
    k->rs = malloc(faces * sizeof *k->rs);
    k->d0 = malloc(cells * sizeof *k->d0);
    k->d1 = malloc(cells * sizeof *k->d1);
    k->cls = malloc(cells);
    k->seg = malloc((size_t)G * sizeof *k->seg);
    k->cyc = malloc((size_t)G * sizeof *k->cyc);
    if (!k->u || !k->rs || !k->d0 || !k->d1 || !k->cls || !k->seg || !k->cyc)
        return mu_error("out of memory for the steady winds");
    memcpy(k->u, s->wu, faces * sizeof *k->u);
    memcpy(k->rs, s->wrs, faces * sizeof *k->rs);
    memcpy(k->d0, s->wd0, cells * sizeof *k->d0);
    memcpy(k->d1, s->wd1, cells * sizeof *k->d1);
    memcpy(k->cls, s->cls, cells);
    memcpy(k->seg, s->seg, (size_t)G * sizeof *k->seg);
    memcpy(k->cyc, s->cyc, (size_t)G * sizeof *k->cyc);
    k->cmax = cmax;
    free(s->wcache[axis]); /* what made the winds: no sweep makes them again */
    free(s->rcache[axis]);
    s->wcache[axis] = NULL;
    s->rcache[axis] = NULL;
    return 0;
}

void adv_steady_swap(adv_state *s, int axis) {
    adv_steady *k = s->steady[axis];
    float **mine[4] = {&s->wu, &s->wrs, &s->wd0, &s->wd1},
          **kept[4] = {&k->u, &k->rs, &k->d0, &k->d1};
    for (int i = 0; i < 4; i++) { /* exchanged both ways: the scratch waits in k */
        float *t = *mine[i];
        *mine[i] = *kept[i];
        *kept[i] = t;
    }
    uint8_t *t = s->cls;
    s->cls = k->cls;
    k->cls = t;
}

void adv_steady_free(adv_state *s) {
    for (int a = 0; a < 3; a++) {
        adv_steady *k = s->steady[a];
        if (!k) continue;
        MU_FREE(k->u, k->rs, k->d0, k->d1, k->cls, k->seg, k->cyc, k);
        s->steady[a] = NULL;
    }
}
