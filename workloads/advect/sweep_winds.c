/* A sweep's inputs on the CPU: the face winds of each line (cached for the
 * sweep), the Walcek densities, the Courant numbers and their check; each
 * rank's own, or a slice of the lines shared by the node's ranks of a block. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "advect/sweep.h"
#include "core/error.h"

/* The steady part of the face winds and the face densities of one axis's
 * lines [g0, g1) (the ones this rank makes), once per run (lines on host
 * threads); line g at (g - g0) (m + 1). */
static int wind_cache(adv_state *s, const sweep_geom *w, int g0, int g1) {
    const adv_cfg *c = s->cfg;
    int ax = w->axis, m = w->m;
    int64_t n = c->n[ax];
    if (s->wcache[ax]) return 0;
    s->wcache[ax] = malloc((size_t)(g1 - g0) * (m + 1) * sizeof(double));
    s->rcache[ax] = malloc((size_t)(g1 - g0) * (m + 1) * sizeof(float));
    if (!s->wcache[ax] || !s->rcache[ax]) return mu_error("out of memory for the winds");
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (int g = g0; g < g1; g++) {
        int64_t doff, dstr, gc[3];
        adv_line_off(s, ax, g, &doff, &dstr, gc);
        for (int j = -1; j < m; j++) {
            int64_t p[3] = {gc[0], gc[1], gc[2]};
            p[ax] = ((s->lo[ax] + j) % n + n) % n; /* the face right of this cell; wrapped */
            int64_t k = (int64_t)(g - g0) * (m + 1) + j + 1;
            s->wcache[ax][k] = adv_wind(c, ax, p[0], p[1], p[2]);
            if (ax < 2) {
                s->rcache[ax][k] = (float)adv_rho(c, p[2]);
            } else {
                int64_t zn = p[2] + 1 < n ? p[2] + 1 : (w->periodic ? 0 : p[2]);
                s->rcache[ax][k] = (float)(0.5 * (adv_rho(c, p[2]) + adv_rho(c, zn)));
            }
        }
    }
    return 0;
}

/* The Courant error of the face right of cell j of the line at gc (local). */
static int courant_error(const adv_state *s, int ax, const int64_t gc[3], int j, double cn) {
    int64_t n = s->cfg->n[ax], gi = s->lo[ax] + j, p[3] = {gc[0], gc[1], gc[2]};
    p[ax] = gi % n;
    return mu_error("Courant number %.6g > 1 on the %c face between cells %lld and %lld along %c "
                    "at (x, y, z) = (%lld, %lld, %lld): lower dt below %.6g or the wind",
                    cn, "XYZ"[ax], (long long)gi, (long long)((gi + 1) % n), "xyz"[ax],
                    (long long)p[0], (long long)p[1], (long long)p[2], s -> cfg -> dt / cn);
}

/* Where one line's inputs go, and what they are made from: its D0 at src,
 * stride floats apart, the steady part of its face winds and its face
 * densities (wind_cache). */
typedef struct {
    float *u, *rs, *d0, *d1;
    const float *src;
    int64_t stride;
    const double *wc;
    const float *rc;
} line_in;

/* Line g's face winds (time factor tf), densities and Courant check; returns
 * the largest Courant number of cm and its faces, *bad the first failure. */
static double line_winds(const adv_state *s, const sweep_geom *w, int g, const line_in *li,
                         double tf, double cm, int *bad) {
    const adv_cfg *c = s->cfg;
    int ax = w->axis, m = w->m;
    int64_t n = c->n[ax], doff, dstr, gc[3];
    double dtdx = c->dt / (c->len[ax] / (double)n);
    float fdtdx = (float)dtdx, *u = li->u, *rs = li->rs, *d0 = li->d0, *d1 = li->d1;
    const float *src = li->src; /* (locals: the loops below keep them in registers) */
    const double *wc = li->wc;
    int64_t stride = li->stride;
    adv_line_off(s, ax, g, &doff, &dstr, gc);
    memcpy(rs, li->rc, (size_t)(m + 1) * sizeof *rs);
    u[0] = (float)(wc[0] * tf);
    /* Faces inside the domain, each counted by the rank owning its left cell. */
    int inner = w->periodic || s->lo[ax] + m < n ? m : m - 1;
    for (int j = 0; j < m; j++) {
        u[j + 1] = (float)(wc[j + 1] * tf);
        double cn = fabs((double)u[j + 1]) * dtdx;
        if (j < inner && cn > cm) cm = cn;
        if (j < inner && cn > 1 && !*bad) *bad = courant_error(s, ax, gc, j, cn);
    }
    int64_t gi0 = s->lo[ax];
    for (int i = 0; i < m; i++) {
        d0[i] = src[i * stride];
        int fixed = !w->periodic && (gi0 + i == 0 || gi0 + i == n - 1);
        d1[i] = fixed ? d0[i] : d0[i] - fdtdx * (rs[i + 1] * u[i + 1] - rs[i] * u[i]);
        if (!(d1[i] > 0) && !*bad)
            *bad = mu_error("the Walcek density of cell %lld along %c falls to %g in the %c "
                            "sweep (a strongly divergent wind): lower dt",
                            (long long)(gi0 + i), "xyz"[ax], (double)d1[i], "XYZ"[ax]);
    }
    return cm;
}

/* Line g's inputs in the scratch, its D0 from src (stride apart); the wind
 * caches hold lines from g0 on. */
static line_in line_inputs(const adv_state *s, const sweep_geom *w, int g, int g0, const float *src,
                           int64_t stride) {
    int ax = w->axis, m = w->m;
    line_in li = {s->wu + (int64_t)g * (m + 1),
                  s->wrs + (int64_t)g * (m + 1),
                  s->wd0 + (int64_t)g * m,
                  s->wd1 + (int64_t)g * m,
                  src,
                  stride,
                  s->wcache[ax] + (int64_t)(g - g0) * (m + 1),
                  s->rcache[ax] + (int64_t)(g - g0) * (m + 1)};
    return li;
}

/* Winds, densities and the Courant check of one sweep; the largest Courant
 * number goes to *cmax. Fails (locally) naming the first face above 1. */
int adv_sweep_winds(adv_state *s, const sweep_geom *w, double t, double *cmax) {
    int bad = wind_cache(s, w, 0, w->G);
    if (bad) return bad;
    double tf = w->axis < 2 ? adv_wind_factor(s->cfg, t) : 1.0, cm = *cmax;
    for (int g = 0; g < w->G; g++) {
        int64_t doff, dstr, gc[3];
        adv_line_off(s, w->axis, g, &doff, &dstr, gc);
        line_in li = line_inputs(s, w, g, 0, s->dens + doff, dstr);
        cm = line_winds(s, w, g, &li, tf, cm, &bad);
    }
    *cmax = cm;
    return bad;
}

/* Whether line u (m faces after u[0]) has a face wind >= 0 (pn[0]), one < 0 (pn[1]). */
void adv_line_signs(const float *u, int m, int pn[2]) {
    pn[0] = pn[1] = 0;
    for (int j = 0; j < m; j++) {
        if (u[j + 1] >= 0)
            pn[0] = 1;
        else
            pn[1] = 1;
    }
}

/* This rank's slice of the sweep's shared inputs (the state's scratch points
 * at them) and, on periodic axes, its lines' wind signs; then the sharing
 * ranks meet, so that every line is made before any is read. The shared cell
 * densities are the per-rank path's s->dens: the X sweep's D0 is rho(z), each
 * line's D1 goes back in place at once (the lines of a sweep own disjoint
 * cells), the next sweep reads it after the meeting. */
int adv_share_winds(adv_state *s, const sweep_geom *w, double t, double *cmax) {
    adv_share *sh = s->share;
    int ax = w->axis, m = w->m, g0, g1;
    adv_share_lines(sh, w->G, &g0, &g1);
    int bad = wind_cache(s, w, g0, g1);
    double tf = ax < 2 ? adv_wind_factor(s->cfg, t) : 1.0, cm = *cmax;
    for (int g = bad ? g1 : g0; g < g1; g++) { /* (none where the cache failed) */
        int64_t doff, dstr, gc[3];
        adv_line_off(s, ax, g, &doff, &dstr, gc);
        const float *src = ax == 0 ? sh->rho + gc[2] : sh->dens + doff;
        line_in li = line_inputs(s, w, g, g0, src, ax == 0 ? 0 : dstr);
        cm = line_winds(s, w, g, &li, tf, cm, &bad);
        for (int i = 0; i < m; i++) sh->dens[doff + i * dstr] = li.d1[i];
        if (w->periodic) adv_line_signs(li.u, m, sh->pn[ax] + 2 * g);
    }
    *cmax = cm;
    adv_share_sync(sh); /* (even after a failure: the others wait here) */
    return bad;
}
