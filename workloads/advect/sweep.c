/* One time step: X, Y and Z sweeps (Walcek 2000, as in CCATT-BRAMS). Each sweep: halo exchange
 * (X, Y), face winds and Walcek densities, the Courant check, the line
 * classification, then the dataflow across ranks (this project's design): local streams first, the
 * flux chains carried across ranks in rounds (each rank passes the flux of its
 * end face once it is known, so both sides of an interface use the one value
 * computed upstream), and the inflow-only cells last. The cells do the same
 * arithmetic in any schedule and on any number of ranks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "advect/advect.h"
#include "mpi/wait.h"
#include "core/error.h"
#include "core/knobs.h"
#include "core/timer.h"
#include "gpu/gpu.h"

typedef struct {
    int axis, m, G, wrap, P, periodic;
    int64_t qs;
    float dt, dx;
} sweep_geom;

static int64_t line_off(const adv_state *s, int axis, int g, int64_t *dens_off,
                        int64_t *dens_stride, int64_t gc[3]) {
    int nz = s->nl[2], nxl = s->nl[0];
    int x = 0, y = 0, z = 0;
    if (axis == 0) {
        z = g % nz;
        y = g / nz;
        *dens_stride = nz;
    } else if (axis == 1) {
        z = g % nz;
        x = g / nz;
        *dens_stride = (int64_t)nz * nxl;
    } else {
        x = g % nxl;
        y = g / nxl;
        *dens_stride = 1;
    }
    *dens_off = z + (int64_t)nz * (x + (int64_t)nxl * y);
    gc[0] = s->lo[0] + x;
    gc[1] = s->lo[1] + y;
    gc[2] = z;
    return adv_idx(s, x, y, z);
}

static void sweep_setup(const adv_state *s, int axis, sweep_geom *w) {
    const adv_cfg *c = s->cfg;
    w->axis = axis;
    w->m = s->nl[axis];
    w->G = axis == 0 ? s->nl[2] * s->nl[1] : axis == 1 ? s->nl[2] * s->nl[0] : s->nl[0] * s->nl[1];
    w->periodic = c->periodic[axis];
    w->wrap = axis == 2 && w->periodic;
    w->P = axis < 2 ? s->cart.dims[axis] : 1;
    w->qs = axis == 0   ? (int64_t)s->N * s->nl[2]
            : axis == 1 ? (int64_t)s->N * s->nl[2] * s->sx
                        : s->N;
    w->dt = (float)c->dt;
    w->dx = (float)(c->len[axis] / (double)c->n[axis]);
}

static adv_line line_view(adv_state *s, const sweep_geom *w, int g, int f) {
    int64_t doff, dstr, gc[3];
    int64_t off = line_off(s, w->axis, g, &doff, &dstr, gc);
    (void)dstr;
    adv_line l;
    l.q = s->q + off + f;
    l.qn = s->qn + off + f;
    l.qs = w->qs;
    l.m = w->m;
    l.wrap = w->wrap;
    int64_t n = s->cfg->n[w->axis];
    l.eb0 = !w->periodic && s->lo[w->axis] == 0 ? 0 : -9;
    l.eb1 = !w->periodic && s->lo[w->axis] + w->m == n ? w->m - 1 : -9;
    l.u = s->wu + (int64_t)g * (w->m + 1);
    l.rs = s->wrs + (int64_t)g * (w->m + 1);
    l.d0 = s->wd0 + (int64_t)g * w->m;
    l.d1 = s->wd1 + (int64_t)g * w->m;
    l.F = s->flux + ((int64_t)g * s->N + f) * (w->m + 1);
    l.fs = 1;
    l.dt = w->dt;
    l.dx = w->dx;
    l.rdx = adv_recip(w->dx);
    return l;
}

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
        line_off(s, ax, g, &doff, &dstr, gc);
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
    line_off(s, ax, g, &doff, &dstr, gc);
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
static int sweep_winds(adv_state *s, const sweep_geom *w, double t, double *cmax) {
    int bad = wind_cache(s, w, 0, w->G);
    if (bad) return bad;
    double tf = w->axis < 2 ? adv_wind_factor(s->cfg, t) : 1.0, cm = *cmax;
    for (int g = 0; g < w->G; g++) {
        int64_t doff, dstr, gc[3];
        line_off(s, w->axis, g, &doff, &dstr, gc);
        line_in li = line_inputs(s, w, g, 0, s->dens + doff, dstr);
        cm = line_winds(s, w, g, &li, tf, cm, &bad);
    }
    *cmax = cm;
    return bad;
}

/* Whether line u (m faces after u[0]) has a face wind >= 0 (pn[0]), one < 0 (pn[1]). */
static void line_signs(const float *u, int m, int pn[2]) {
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
static int share_winds(adv_state *s, const sweep_geom *w, double t, double *cmax) {
    adv_share *sh = s->share;
    int ax = w->axis, m = w->m, g0, g1;
    adv_share_lines(sh, w->G, &g0, &g1);
    int bad = wind_cache(s, w, g0, g1);
    double tf = ax < 2 ? adv_wind_factor(s->cfg, t) : 1.0, cm = *cmax;
    for (int g = bad ? g1 : g0; g < g1; g++) { /* (none where the cache failed) */
        int64_t doff, dstr, gc[3];
        line_off(s, ax, g, &doff, &dstr, gc);
        const float *src = ax == 0 ? sh->rho + gc[2] : sh->dens + doff;
        line_in li = line_inputs(s, w, g, g0, src, ax == 0 ? 0 : dstr);
        cm = line_winds(s, w, g, &li, tf, cm, &bad);
        for (int i = 0; i < m; i++) sh->dens[doff + i * dstr] = li.d1[i];
        if (w->periodic) line_signs(li.u, m, sh->pn[ax] + 2 * g);
    }
    *cmax = cm;
    adv_share_sync(sh); /* (even after a failure: the others wait here) */
    return bad;
}

/* One message along the axis, count floats with tag `tag`: dir = +1 `out` to
 * the next rank and `in` from the previous one, -1 the other way (receive
 * posted first). Both the flux rounds' messages and the peer rounds' tokens
 * go this way. Returns the rank `in` came from (MPI_PROC_NULL: none). */
static int shift(adv_state *s, int axis, int dir, const float *out, float *in, int64_t count,
                 int tag) {
    int to = dir > 0 ? s->cart.next[axis] : s->cart.prev[axis];
    int from = dir > 0 ? s->cart.prev[axis] : s->cart.next[axis];
    MPI_Request rq[2];
    MPI_Irecv(in, (int)count, MPI_FLOAT, from, tag, s->cart.comm, &rq[0]);
    MPI_Isend(out, (int)count, MPI_FLOAT, to, tag, s->cart.comm, &rq[1]);
    mu_waitall(2, rq, MPI_STATUSES_IGNORE);
    return from;
}

/* Exchange of one end flux per line and field with the neighbours of the axis.
 * dir = +1: send F[R] to the next rank, receive F[L] from the previous one. */
static void exchange(adv_state *s, const sweep_geom *w, int dir) {
    int64_t count = (int64_t)w->G * (s->N + 1);
    for (int64_t i = 0; i < count; i++) s->rbuf[i] = 0;
    if (w->axis == 2 || w->P == 1) {
        if (w->periodic) memcpy(s->rbuf, s->sbuf, (size_t)count * sizeof *s->rbuf);
        return;
    }
    shift(s, w->axis, dir, s->sbuf, s->rbuf, count, 40 + w->axis);
}

/* One round's message along the chains (dir 1: F[R] of the lines whose
 * value is known, to the next rank; -1: F[L] to the previous one), then the
 * exchange: each line's N fluxes and a flag in sbuf, the neighbour's in rbuf. */
static void chain_round(adv_state *s, const sweep_geom *w, int dir) {
    int N = s->N, m = w->m;
    for (int g = 0; g < w->G; g++) {
        const adv_seg *sg = &s->seg[g];
        int known = dir > 0 ? sg->out_r : sg->out_l, face = dir > 0 ? sg->b : sg->a;
        float *sb = s->sbuf + (int64_t)g * (N + 1);
        sb[N] = known;
        for (int f = 0; f < N; f++)
            sb[f] = known ? s->flux[((int64_t)g * N + f) * (m + 1) + face] : 0.f;
    }
    exchange(s, w, dir);
}

/* The chains that a flux from the neighbour starts, line g's N fields: dir 1
 * the head waiting for F[L], -1 the tail waiting for F[R]; then the line's
 * flux for the next rank along, if its chain now reaches the end. */
static void chain_continue(adv_state *s, const sweep_geom *w, int g, const float *rb, int dir) {
    adv_seg *sg = &s->seg[g];
    int m = w->m;
    const uint8_t *cls = s->cls + (int64_t)g * m;
    for (int f = 0; f < s->N; f++) {
        adv_line l = line_view(s, w, g, f);
        ADV_FLUX(&l, dir > 0 ? sg->a : sg->b) = rb[f];
        if (dir > 0)
            adv_forward_range(&l, cls, sg->a, sg->h);
        else
            adv_backward_range(&l, cls, sg->t, sg->b);
    }
    const float *u = s->wu + (int64_t)g * (m + 1);
    if (dir > 0) {
        sg->head_done = 1;
        if (sg->h == sg->b && u[sg->b] >= 0) sg->out_r = 1;
    } else {
        sg->tail_done = 1;
        if (sg->t == sg->a && u[sg->a] < 0) sg->out_l = 1;
    }
}

/* Chains across ranks, rounds of chain_round and chain_continue: forward
 * (dir 1) each round passes F[R] of every line whose value is known to the
 * next rank, which then runs the head waiting for it; backward (-1) F[L] to
 * the previous rank, which runs its tail. */
static void chain_rounds(adv_state *s, const sweep_geom *wp, int rounds, int dir) {
    sweep_geom w = *wp;
    for (int r = 0; r < rounds; r++) {
        chain_round(s, &w, dir);
        for (int g = 0; g < w.G; g++) {
            const adv_seg *sg = &s->seg[g];
            const float *rb = s->rbuf + (int64_t)g * (s->N + 1);
            int waits = dir > 0 ? sg->need_l && !sg->head_done : sg->need_r && !sg->tail_done;
            if (waits && rb[s->N] != 0) chain_continue(s, &w, g, rb, dir);
        }
    }
}

static int any_cycle(const adv_state *s, const sweep_geom *w, int sign) {
    for (int g = 0; g < w->G; g++)
        if (s->cyc[g] == sign) return 1;
    return 0;
}

/* The densities after the sweep: the next sweep's D0. */
static void update_dens(adv_state *s, const sweep_geom *w) {
    for (int g = 0; g < w->G; g++) {
        int64_t doff, dstr, gc[3];
        line_off(s, w->axis, g, &doff, &dstr, gc);
        const float *d1 = s->wd1 + (int64_t)g * w->m;
        for (int i = 0; i < w->m; i++) s->dens[doff + i * dstr] = d1[i];
    }
}

static void gpu_geom(const adv_state *s, const sweep_geom *w, double t, mu_gpu_adv_geom *dp) {
    const adv_cfg *c = s->cfg;
    const int first = s->lo[w->axis] == 0, last = s->lo[w->axis] + w->m == c->n[w->axis];
    *dp = (mu_gpu_adv_geom){.sweep = {.axis = w->axis,
                                      .m = w->m,
                                      .G = w->G,
                                      .N = s->N,
                                      .wrap = w->wrap,
                                      .periodic = w->periodic,
                                      .first = first,
                                      .last = last,
                                      .nxl = s->nl[0],
                                      .nyl = s->nl[1],
                                      .nz = s->nl[2],
                                      .sx = s->sx,
                                      .eb0 = !w->periodic && first ? 0 : -9,
                                      .eb1 = !w->periodic && last ? w->m - 1 : -9,
                                      .qs = w->qs,
                                      .glo = s->lo[w->axis],
                                      .gn = c->n[w->axis],
                                      .dt = w->dt,
                                      .dx = w->dx,
                                      .tf = w->axis < 2 ? adv_wind_factor(c, t) : 1.0,
                                      .dtdx = c->dt / (c->len[w->axis] / (double)c->n[w->axis])},
                            .dataflow = c->schedule == ADV_SCHED_DATAFLOW,
                            .halo_ahead = -1};
}

/* The device found a Courant number above 1 or a Walcek density that is not
 * positive in the sweeps up to upto: the host redoes their winds and
 * densities (no fields needed) from rho(z), in the sweeps' order, to name the
 * face or cell as the CPU does. */
static int gpu_recheck(adv_state *s, double t, int upto) {
    int64_t cells = (int64_t)s->nl[0] * s->nl[1] * s->nl[2];
    int nz = s->nl[2];
    for (int64_t i = 0; i < cells; i++) s->dens[i] = (float)adv_rho(s->cfg, (int)(i % nz));
    for (int axis = 0; axis <= upto; axis++) {
        sweep_geom w;
        sweep_setup(s, axis, &w);
        double hc = 0;
        MU_TRY(sweep_winds(s, &w, t, &hc));
        update_dens(s, &w);
    }
    return mu_error("internal: the device's Courant or density check of the step failed where "
                    "the host's passed");
}

/* The device's Courant figures of the sweeps since the last check (up to axis upto). */
static int gpu_check(adv_state *s, double t, int upto, double *cmax) {
    double dc = 0;
    int bad = 0;
    MU_TRY(MU_GPU(mu_gpu_adv_check(s->gpu, &dc, &bad), "advect winds on the GPU"));
    if (dc > *cmax) *cmax = dc;
    return bad ? gpu_recheck(s, t, upto) : 0;
}

/* The sweep's winds, densities and Courant figures queued on the device (the
 * steady winds uploaded at set-up, adv_gpu_winds); the figures are read once a
 * step (adv_confirm), on every decomposition. */
static int gpu_winds(adv_state *s, const sweep_geom *w, const mu_gpu_adv_geom *d) {
    return MU_GPU(mu_gpu_adv_winds(s->gpu, d, w->periodic ? s->cyc + w->G : NULL),
                  "advect winds on the GPU");
}

/* The face densities of one axis by level: rho(z), or along Z the mean of
 * the two cells beside the face (as wind_cache). */
static void face_rho(const adv_state *s, int axis, float *rho) {
    const adv_cfg *c = s->cfg;
    int64_t n = c->n[2];
    for (int64_t z = 0; z < n; z++) {
        int64_t zn = z + 1 < n ? z + 1 : (c->periodic[2] ? 0 : z);
        rho[z] = axis < 2 ? (float)adv_rho(c, z) : (float)(0.5 * (adv_rho(c, z) + adv_rho(c, zn)));
    }
}

int adv_gpu_winds(adv_state *s) {
    float *rho = malloc((size_t)s->nl[2] * sizeof *rho);
    if (!rho) return mu_error("out of memory for the winds");
    int rc = 0;
    for (int axis = 0; axis < 3 && !rc; axis++) {
        sweep_geom w;
        sweep_setup(s, axis, &w);
        mu_gpu_adv_wtab t = {.rho = rho, .nz = s->nl[2], .nxl = s->nl[0], .G = w.G, .m = w.m};
        for (int k = 0; k < 3; k++) t.lo[k] = k < 2 ? s->lo[k] : 0;
        t.n = s->cfg->n[axis];
        double *tab = NULL;
        int64_t stride[3];
        rc = adv_wind_table(s->cfg, axis, &tab, &t.entries, stride);
        if (rc) break;
        t.tab = tab;
        t.sx = stride[0];
        t.sy = stride[1];
        t.sz = stride[2];
        face_rho(s, axis, rho);
        rc = MU_GPU(mu_gpu_adv_wind_put(s->gpu, axis, &t), "advect winds on the GPU");
        free(tab);
    }
    free(rho);
    return rc;
}

/* The halo's messages along X or Y posted, both directions at once: the
 * block's first ADV_HALO cells to the previous rank, its last to the next,
 * count floats each way (MPI_PROC_NULL: no message); rq gets 4 requests. */
static void halo_post(adv_state *s, int axis, const float *to_prev, const float *to_next,
                      float *from_prev, float *from_next, int64_t count, MPI_Request rq[4]) {
    int prev = s->cart.prev[axis], next = s->cart.next[axis];
    MPI_Irecv(from_prev, (int)count, MPI_FLOAT, prev, 50 + axis, s->cart.comm, &rq[0]);
    MPI_Irecv(from_next, (int)count, MPI_FLOAT, next, 60 + axis, s->cart.comm, &rq[1]);
    MPI_Isend(to_next, (int)count, MPI_FLOAT, next, 50 + axis, s->cart.comm, &rq[2]);
    MPI_Isend(to_prev, (int)count, MPI_FLOAT, prev, 60 + axis, s->cart.comm, &rq[3]);
}

/* The axis whose halo the sweep after this one reads, to be exchanged ahead:
 * packed from this sweep's new fields between its edge lines and the others
 * (mu_gpu_adv_begin), so that the messages travel while the others' chains
 * run: the X halo after a Z sweep (for the next step), the Y halo after an X
 * sweep. Only for the lines schedule on a sweep alone on its lines (one rank
 * along its axis, open borders: no flux rounds) and where that axis has
 * neighbours. -1: none (the next sweep exchanges
 * its halo while the device computes its winds). */
static int halo_ahead(const adv_state *s, const sweep_geom *w) {
    int ha = w->axis == 2 ? 0 : w->axis == 0 ? 1 : -1;
    if (ha < 0 || w->P > 1 || w->periodic || s->cfg->schedule == ADV_SCHED_DATAFLOW) return -1;
    if (s->cart.prev[ha] == MPI_PROC_NULL && s->cart.next[ha] == MPI_PROC_NULL) return -1;
    return ha;
}

/* The peer form of gpu_halo_ahead (adv_peer_open): each device copied its
 * halo into its neighbours' memory; a token each way says the copies are
 * queued (nonzero: this rank failed), then the unpack waits for them. */
static int peer_halo_ahead(adv_state *s, int ha, int failed) {
    float mine = (float)(failed != 0), theirs[2] = {0, 0};
    MPI_Request rq[4];
    halo_post(s, ha, &mine, &mine, &theirs[0], &theirs[1], 1, rq);
    mu_waitall(4, rq, MPI_STATUSES_IGNORE);
    if (failed) return 1;
    if (theirs[0] != 0 || theirs[1] != 0)
        return mu_error("advect: a neighbour's peer halo failed"); /* its own error speaks first */
    return MU_GPU(mu_gpu_adv_halo_peer_in(s->gpu, s->cart.prev[ha] != MPI_PROC_NULL,
                                          s->cart.next[ha] != MPI_PROC_NULL),
                  "advect halo on the GPU");
}

/* The halo mu_gpu_adv_begin packed ahead: exchanged while the sweep's other
 * lines run, then queued into the new fields after them. Where the device
 * failed (failed, or the pack cannot be had) the messages still go, from the
 * host's halo buffers, so that no neighbour waits for them; the caller's
 * collective check then stops every rank. */
static int gpu_halo_ahead(adv_state *s, int ha, int failed) {
    if (s->peer == ha + 1) return peer_halo_ahead(s, ha, failed);
    float *to_prev, *to_next, *from_prev, *from_next;
    int64_t count = (int64_t)ADV_HALO * s->N * s->nl[2] * (ha == 0 ? s->nl[1] : s->nl[0]);
    if (!failed)
        failed = mu_gpu_adv_halo_out(s->gpu, &to_prev, &to_next, &from_prev, &from_next, &count);
    if (failed) {
        to_next = s->sbuf;
        to_prev = s->hbuf;
        from_prev = s->rbuf;
        from_next = s->hbuf + s->hmax;
    }
    MPI_Request rq[4];
    MPI_Status sts[4];
    halo_post(s, ha, to_prev, to_next, from_prev, from_next, count, rq);
    mu_waitall(4, rq, sts);
    if (failed) return 1;
    return mu_gpu_adv_halo_in(s->gpu, s->cart.prev[ha] != MPI_PROC_NULL ? from_prev : NULL,
                              s->cart.next[ha] != MPI_PROC_NULL ? from_next : NULL);
}

/* The device's halo along X or Y, both directions at once: the edge cells
 * packed there and sent through host buffers, and while the messages travel
 * the device computes the sweep's winds and densities (gpu_winds, which needs
 * no halo); then the received cells go into the halo. *hrc gets the halo's
 * local error, the return value the winds'. */
static int gpu_halo_winds(adv_state *s, const sweep_geom *w, const mu_gpu_adv_geom *d, int *hrc) {
    int axis = w->axis;
    *hrc = 0;
    if (axis == 2) return gpu_winds(s, w, d);
    int m = s->nl[axis], nxl = s->nl[0], nyl = s->nl[1], nz = s->nl[2], N = s->N;
    int prev = s->cart.prev[axis], next = s->cart.next[axis];
    if (prev == MPI_PROC_NULL && next == MPI_PROC_NULL) /* one open block: no halo to fill */
        return gpu_winds(s, w, d);
    if (mu_gpu_adv_halo_fresh(s->gpu, axis)) /* exchanged ahead, during the last sweep */
        return gpu_winds(s, w, d);
    int64_t count = (int64_t)ADV_HALO * N * nz * (axis == 0 ? nyl : nxl);
    float *to_next = s->sbuf, *to_prev = s->hbuf, *from_prev = s->rbuf,
          *from_next = s->hbuf + s->hmax;
    int rc = mu_gpu_adv_halo(s->gpu, axis, nxl, nyl, nz, N, m - ADV_HALO, to_next, 0) ||
             mu_gpu_adv_halo(s->gpu, axis, nxl, nyl, nz, N, 0, to_prev, 0);
    MPI_Request rq[4];
    halo_post(s, axis, to_prev, to_next, from_prev, from_next, count, rq);
    int wrc = gpu_winds(s, w, d);
    MPI_Status sts[4];
    mu_waitall(4, rq, sts);
    if (!rc && prev != MPI_PROC_NULL)
        rc = mu_gpu_adv_halo(s->gpu, axis, nxl, nyl, nz, N, -ADV_HALO, from_prev, 1);
    if (!rc && next != MPI_PROC_NULL)
        rc = mu_gpu_adv_halo(s->gpu, axis, nxl, nyl, nz, N, m, from_next, 1);
    *hrc = MU_GPU(rc, "advect halo on the GPU");
    return wrc;
}

/* A flux round through peer memory (adv_peer_open): each device copies its
 * message into the neighbour's buffer along dir; a token each way says the
 * copy is queued (nonzero: this rank failed), then the unpack waits for it. */
static int peer_round(adv_state *s, const sweep_geom *w, const mu_gpu_adv_geom *d, int dir, int r) {
    int ax = w->axis;
    float mine = (float)(mu_gpu_adv_peer_pack(s->gpu, d, dir, r) != 0), theirs = 0;
    int from = shift(s, ax, dir, &mine, &theirs, 1, 80 + ax);
    if (mine != 0) return MU_GPU(1, "advect flux round on the GPU");
    if (theirs != 0) return mu_error("advect: a neighbour's flux round failed");
    return MU_GPU(mu_gpu_adv_peer_unpack(s->gpu, d, dir, r, from != MPI_PROC_NULL),
                  "advect flux round on the GPU");
}

/* The sweep on the device, phase for phase as below; the host moves the end fluxes. */
static int gpu_sweep(adv_state *s, const sweep_geom *w, const mu_gpu_adv_geom *dp, int rounds,
                     int *lost) {
    mu_gpu_adv_geom d = *dp;
    int64_t nt = 0;
    int brc = mu_gpu_adv_begin(s->gpu, &d, w->periodic ? s->cyc : NULL, &nt);
    if (d.halo_ahead >= 0) { /* every rank sends its messages, even after a failure */
        mu_timer_begin("advect: halo ahead");
        int rc = gpu_halo_ahead(s, d.halo_ahead, brc);
        mu_timer_end("advect: halo ahead");
        if (rc) return 1;
    }
    if (brc) return 1;
    s->ntasks[w->axis] = nt;
    for (int pass = 0; pass < 2; pass++) {
        int dir = pass == 0 ? 1 : -1;
        if (pass == 1 && mu_gpu_adv_backward(s->gpu, &d)) return 1;
        for (int lap = 0; lap < 2; lap++) {
            if (lap == 1) {
                if (!w->periodic || !any_cycle(s, w, dir)) break;
                if (mu_gpu_adv_lap2(s->gpu, &d, dir)) return 1;
            }
            for (int r = 0; r < rounds; r++) {
                if (s->peer == w->axis + 1 && s->peer_rounds) {
                    if (peer_round(s, w, &d, dir, r)) return 1;
                    continue;
                }
                if (mu_gpu_adv_pack(s->gpu, &d, dir, s->sbuf)) return 1;
                exchange(s, w, dir);
                if (mu_gpu_adv_unpack(s->gpu, &d, dir, s->rbuf)) return 1;
            }
        }
    }
    return mu_gpu_adv_end(s->gpu, &d, lost);
}

/* The classes that adv_seg_lap2 changed for lap 2, put back in the kept ones. */
static void lap2_undo(adv_state *s, const sweep_geom *w, int first, int last) {
    int m = w->m;
    for (int g = 0; g < w->G; g++) {
        const adv_seg *sg = &s->seg[g];
        const float *u = s->wu + (int64_t)g * (m + 1);
        uint8_t *cls = s->cls + (int64_t)g * m;
        if (s->cyc[g] > 0 && last) cls[sg->b - 1] = (uint8_t)adv_class(u[sg->b - 1], u[sg->b]);
        if (s->cyc[g] < 0 && first) cls[sg->a] = (uint8_t)adv_class(u[sg->a], u[sg->a + 1]);
    }
}

static int sweep_run(adv_state *s, int axis, double t, double *cmax, const adv_steady *kept);

/* One sweep; on CPU ranks under steady winds, from the second step on, with
 * the inputs the first step made (adv_steady_keep) in place of the scratch. */
static int sweep(adv_state *s, int axis, double t, double *cmax) {
    const adv_steady *kept = s->gpu ? NULL : s->steady[axis];
    if (kept) adv_steady_swap(s, axis);
    if (s->share) adv_share_swap(s, axis, 1);
    int rc = sweep_run(s, axis, t, cmax, kept);
    if (s->share) adv_share_swap(s, axis, 0);
    if (kept) adv_steady_swap(s, axis);
    return rc;
}

/* The cycle signs of a periodic axis's lines from their wind signs pn (2 a
 * line), reduced first over the axis's ranks. */
static void cycle_signs(adv_state *s, const sweep_geom *w, int *pn, int *cyc) {
    if (w->axis < 2 && w->P > 1)
        mu_allreduce(pn, 2 * w->G, MPI_INT, MPI_LOR, s->cart.line[w->axis]);
    for (int g = 0; g < w->G; g++) cyc[g] = !pn[2 * g + 1] ? 1 : !pn[2 * g] ? -1 : 0;
}

/* Lines of one wind sign all around a periodic axis need a seed (the
 * device's sweeps read the signs only on periodic axes, all set below). */
static void sweep_cycles(adv_state *s, const sweep_geom *w, const adv_steady *kept) {
    int m = w->m;
    for (int g = 0; g < w->G && !s->gpu; g++) s->cyc[g] = kept ? kept->cyc[g] : 0;
    if (w->periodic && !kept) {
        int *pn = s->cyc + w->G; /* 2 flags per line: any wind >= 0, any < 0 (the GPU's: set) */
        for (int g = 0; g < w->G && !s->gpu; g++)
            line_signs(s->wu + (int64_t)g * (m + 1), m, pn + 2 * g);
        cycle_signs(s, w, pn, s->cyc);
    }
}

/* Every line's cycle sign from the shared wind signs (as sweep_cycles), kept
 * for the next steps under steady winds (reuse: made on the first). */
static void share_cycles(adv_state *s, const sweep_geom *w, int reuse) {
    int *cyc = s->share->cyc[w->axis];
    if (!reuse && !w->periodic) memset(cyc, 0, (size_t)w->G * sizeof *cyc);
    if (!reuse && w->periodic) {
        int *pn = s->cyc + w->G; /* this rank's copy: reduced along the axis in place */
        memcpy(pn, s->share->pn[w->axis], (size_t)(2 * w->G) * sizeof *pn);
        cycle_signs(s, w, pn, cyc);
    }
    memcpy(s->cyc, cyc, (size_t)w->G * sizeof *cyc);
}

/* The rest of a sweep on a GPU rank: the device's phases, then the checks. A
 * chain left open on any rank has every rank read its step's Courant figures
 * first, so that winds failing the check give its error, as on the CPU. */
static int sweep_gpu_rest(adv_state *s, const sweep_geom *w, const mu_gpu_adv_geom *d, int rounds,
                          double t, double *cmax) {
    int lost = 0;
    int rc = MU_GPU(gpu_sweep(s, w, d, rounds, &lost) || mu_gpu_adv_dens_next(s->gpu, d),
                    "advect on the GPU");
    int any[2] = {rc != 0, lost};
    mu_allreduce(any, 2, MPI_INT, MPI_MAX, s->comm);
    if (any[0]) return mu_error_collective(s->comm, rc);
    if (!any[1]) return 0;
    if (mu_error_collective(s->comm, gpu_check(s, t, w->axis, cmax))) return 1;
    if (lost)
        rc = mu_error("internal: a flux chain of the %c sweep was never closed", "XYZ"[w->axis]);
    return mu_error_collective(s->comm, rc);
}

/* Each line's segment (or the kept ones), and the inputs kept for the next steps. */
static int sweep_segments(adv_state *s, const sweep_geom *w, const adv_steady *kept, int first,
                          int last, double mine) {
    int m = w->m;
    if (kept)
        memcpy(s->seg, kept->seg, (size_t)w->G * sizeof *s->seg);
    else
        for (int g = 0; g < w->G; g++)
            adv_seg_init(&s->seg[g], s->cls + (int64_t)g * m, s->wu + (int64_t)g * (m + 1), m,
                         !w->periodic && first, !w->periodic && last, s->cyc[g], first, last);
    return !kept && s->keep_winds ? adv_steady_keep(s, w->axis, w->G, m, mine) : 0;
}

/* This rank's slice of the shared segments and classes; the sharing ranks
 * meet; then each copies every segment (its chains mark them) and, where a
 * line goes around with one sign, the classes (lap 2 changes one). Kept
 * under steady winds (made on the first step, with the winds' cache freed). */
static int share_segments(adv_state *s, const sweep_geom *w, int reuse, int first, int last,
                          double mine) {
    adv_share *sh = s->share;
    int ax = w->axis, m = w->m, g0, g1;
    if (!reuse) {
        adv_share_lines(sh, w->G, &g0, &g1);
        for (int g = g0; g < g1; g++)
            adv_seg_init(&sh->seg[ax][g], sh->cls[ax] + (int64_t)g * m,
                         sh->u[ax] + (int64_t)g * (m + 1), m, !w->periodic && first,
                         !w->periodic && last, s->cyc[g], first, last);
        adv_share_sync(sh);
    }
    if (!reuse && s->keep_winds) {
        sh->made[ax] = 1;
        sh->cmax[ax] = mine;
        free(s->wcache[ax]); /* what made the winds: no sweep makes them again */
        free(s->rcache[ax]);
        s->wcache[ax] = NULL;
        s->rcache[ax] = NULL;
    }
    memcpy(s->seg, sh->seg[ax], (size_t)w->G * sizeof *s->seg);
    if (any_cycle(s, w, 1) || any_cycle(s, w, -1)) {
        memcpy(sh->scr_cls, sh->cls[ax], (size_t)w->G * m);
        s->cls = sh->scr_cls;
    }
    return 0;
}

/* The dataflow's tasks and inflow-only cells; 1 for a stream without a root. */
static int sweep_tasks(adv_state *s, const sweep_geom *w, int64_t *nt, int64_t *nf) {
    int m = w->m;
    for (int g = 0; g < w->G; g++) {
        const adv_seg *sg = &s->seg[g];
        if (adv_seg_tasks(s->cls + (int64_t)g * m, g, sg->h, sg->t, s->tasks, nt, s->fcells, nf))
            return 1;
    }
    return 0;
}

/* Local work: the fixed border cells (the chains write every other cell
 * of the line, and the halos are filled again before they are read: the
 * fields are not copied whole), sources, heads fed by an open border, then
 * either every local forward chain (lines) or the independent streams
 * (dataflow). Then the forward chains across ranks. */
static void cells_forward(adv_state *s, const sweep_geom *w, int dataflow, int64_t nt, int rounds,
                          int first, int last) {
    int N = s->N, m = w->m;
    for (int g = 0; g < w->G; g++) {
        adv_seg *sg = &s->seg[g];
        const uint8_t *cls = s->cls + (int64_t)g * m;
        for (int f = 0; f < N; f++) {
            adv_line l = line_view(s, w, g, f);
            for (int i = 0; i < sg->a; i++) l.qn[i * l.qs] = l.q[i * l.qs];
            for (int i = sg->b; i < m; i++) l.qn[i * l.qs] = l.q[i * l.qs];
            adv_seg_sources(sg, &l);
            if (sg->src_l) adv_forward_range(&l, cls, sg->a, sg->h);
            if (!dataflow) adv_forward_range(&l, cls, sg->h, sg->b);
        }
    }
    if (dataflow)
        for (int64_t k = 0; k < nt; k++) {
            const adv_task *tk = &s->tasks[k];
            for (int f = 0; f < N; f++) {
                adv_line l = line_view(s, w, tk->g, f);
                adv_run_task(&l, s->cls + (int64_t)tk->g * m, tk);
            }
        }

    /* Forward chains across ranks. */
    for (int g = 0; g < w->G; g++) adv_seg_close_head(s->seg, s->wu, g, m);
    chain_rounds(s, w, rounds, 1);
    if (any_cycle(s, w, 1)) {
        for (int g = 0; g < w->G; g++)
            if (s->cyc[g] > 0) adv_seg_lap2(&s->seg[g], s->cls + (int64_t)g * m, 1, first, last);
        chain_rounds(s, w, rounds, 1);
    }
}

/* The backward loop over cells [lo, hi) of line g, for each of its fields. */
static void lines_backward(adv_state *s, const sweep_geom *w, int g, int lo, int hi) {
    const uint8_t *cls = s->cls + (int64_t)g * w->m;
    for (int f = 0; f < s->N; f++) {
        adv_line l = line_view(s, w, g, f);
        adv_backward_range(&l, cls, lo, hi);
    }
}

/* Backward chains: local part, tails fed by an open border; then across ranks. */
static void cells_backward(adv_state *s, const sweep_geom *w, int dataflow, int64_t nf, int rounds,
                           int first, int last) {
    int N = s->N, m = w->m;
    if (!dataflow)
        for (int g = 0; g < w->G; g++) lines_backward(s, w, g, s->seg[g].a, s->seg[g].t);
    else
        for (int64_t k = 0; k < nf; k++) {
            int g = s->fcells[2 * k], i = s->fcells[2 * k + 1];
            for (int f = 0; f < N; f++) {
                adv_line l = line_view(s, w, g, f);
                adv_backward(&l, i, s->cls[(int64_t)g * m + i]);
            }
        }
    if (dataflow && last) /* the closing cells of positive chains around the line */
        for (int g = 0; g < w->G; g++)
            if (s->cyc[g] > 0)
                for (int f = 0; f < N; f++) {
                    adv_line l = line_view(s, w, g, f);
                    adv_backward(&l, s->seg[g].b - 1, ADV_K);
                }
    for (int g = 0; g < w->G; g++) {
        const adv_seg *sg = &s->seg[g];
        if (sg->src_r) lines_backward(s, w, g, sg->t, sg->b);
        adv_seg_close_tail(s->seg, s->wu, g, m);
    }
    chain_rounds(s, w, rounds, -1);
    if (any_cycle(s, w, -1)) {
        for (int g = 0; g < w->G; g++)
            if (s->cyc[g] < 0) adv_seg_lap2(&s->seg[g], s->cls + (int64_t)g * m, -1, first, last);
        chain_rounds(s, w, rounds, -1);
    }
}

/* The chains' check, the new field in place, and the densities of the next sweep. */
static void sweep_close(adv_state *s, const sweep_geom *w, const adv_steady *kept, int first,
                        int last) {
    int lost = 0;
    for (int g = 0; g < w->G; g++) {
        const adv_seg *sg = &s->seg[g];
        if ((sg->need_l && !sg->head_done) || (sg->need_r && !sg->tail_done)) lost = 1;
    }
    /* (the next sweep's messages do not depend on it: checked with its winds) */
    if (lost && !s->late)
        s->late =
            mu_error("internal: a flux chain of the %c sweep was never closed", "XYZ"[w->axis]);

    float *tmp = s->q;
    s->q = s->qn;
    s->qn = tmp;
    if (kept) /* the next sweep's D0 is kept too */
        lap2_undo(s, w, first, last);
    else if (!s->share) /* (shared: the next sweep reads this one's D1) */
        update_dens(s, w);
}

static int sweep_run(adv_state *s, int axis, double t, double *cmax, const adv_steady *kept) {
    const adv_cfg *c = s->cfg;
    sweep_geom w;
    sweep_setup(s, axis, &w);
    int m = w.m;

    if (axis < 2 && !s->gpu) adv_halo(s, axis);
    mu_gpu_adv_geom d;
    memset(&d, 0, sizeof d);
    if (s->gpu) {
        gpu_geom(s, &w, t, &d);
        d.halo_ahead = halo_ahead(s, &w);
    }
    mu_timer_begin("advect: winds, classes");
    int hrc = 0, reuse = kept || (s->share && s->share->made[axis]);
    /* (CPU) the largest Courant number of this sweep's lines made here */
    double mine = kept ? kept->cmax : reuse ? s->share->cmax[axis] : 0;
    int bad = s->gpu     ? gpu_halo_winds(s, &w, &d, &hrc)
              : reuse    ? 0
              : s->share ? share_winds(s, &w, t, &mine)
                         : sweep_winds(s, &w, t, &mine);
    if (!s->gpu && mine > *cmax) *cmax = mine;
    mu_timer_end("advect: winds, classes");
    /* (kept winds passed their check on the first step; a chain error waits
     * for the step's reduction, which carries it) */
    if (!reuse && mu_error_collective(s->comm, s->late ? s->late : hrc ? hrc : bad)) return 1;

    if (s->share)
        share_cycles(s, &w, reuse);
    else
        sweep_cycles(s, &w, kept);
    /* A chain crosses at most P - 1 interfaces between open borders; around
     * a periodic axis it may cross all P (the second lap: adv_seg_lap2). */
    int rounds = w.periodic ? w.P : w.P - 1;
    if (s->gpu) return sweep_gpu_rest(s, &w, &d, rounds, t, cmax);
    mu_timer_begin("advect: winds, classes");
    int64_t n = c->n[axis];
    int first = s->lo[axis] == 0, last = s->lo[axis] + m == n;
    int krc = s->share ? share_segments(s, &w, reuse, first, last, mine)
                       : sweep_segments(s, &w, kept, first, last, mine);
    mu_timer_end("advect: winds, classes");
    if (mu_error_collective(s->comm, krc)) return 1;
    mu_timer_begin("advect: cells");
    int dataflow = c->schedule == ADV_SCHED_DATAFLOW;
    int64_t nt = 0, nf = 0;
    if (dataflow) {
        if (sweep_tasks(s, &w, &nt, &nf))
            return mu_timer_end("advect: cells"),
                   mu_error_collective(s->comm, mu_error("internal: a stream without a root"));
        s->ntasks[axis] = nt;
    }
    cells_forward(s, &w, dataflow, nt, rounds, first, last);
    cells_backward(s, &w, dataflow, nf, rounds, first, last);
    mu_timer_end("advect: cells");
    sweep_close(s, &w, kept, first, last);
    return 0;
}

int adv_step(adv_state *s, int64_t k) {
    const adv_cfg *c = s->cfg;
    double t = ((double)k + 0.5) * c->dt; /* winds at the middle of the step */
    int64_t cells = (int64_t)s->nl[0] * s->nl[1] * s->nl[2];
    int nz = s->nl[2];
    if (s->gpu) { /* the densities live on the device: rho(z) up (sbuf holds >= nz floats) */
        for (int z = 0; z < nz; z++) s->sbuf[z] = (float)adv_rho(c, z);
        int rc = MU_GPU(mu_gpu_adv_dens_reset(s->gpu, s->sbuf, nz, cells),
                        "advect densities on the GPU");
        if (mu_error_collective(s->comm, rc)) return 1;
    } else if (!s->steady[0] && !s->share) { /* (kept or shared: D0 with the winds) */
        for (int64_t i = 0; i < cells; i++) s->dens[i] = (float)adv_rho(c, (int)(i % nz));
    }
    double cmax = 0;
    static const char *const phase[3] = {"advect: X sweep", "advect: Y sweep", "advect: Z sweep"};
    for (int axis = 0; axis < 3; axis++) {
        mu_timer_begin(phase[axis]);
        int rc = sweep(s, axis, t, &cmax);
        mu_timer_end(phase[axis]);
        if (rc) return rc;
    }
    if (s->gpu && !c->periodic[0] && k + 1 < c->steps) {
        /* the next step's X winds and densities (no fields needed) beside this Z sweep */
        sweep_geom w;
        mu_gpu_adv_geom d;
        memset(&d, 0, sizeof d);
        sweep_setup(s, 0, &w);
        gpu_geom(s, &w, ((double)(k + 1) + 0.5) * c->dt, &d);
        int rc = MU_GPU(mu_gpu_adv_winds_ahead(s->gpu, &d), "advect on the GPU");
        if (mu_error_collective(s->comm, rc)) return 1;
    }
    if (s->gpu) { /* the step's check posted, read once the next is queued */
        int rc = MU_GPU(mu_gpu_adv_check_post(s->gpu), "advect on the GPU");
        if (mu_error_collective(s->comm, rc)) return 1;
        s->pend_step[s->npend++] = k;
        return s->npend > 1 ? adv_confirm(s) : 0;
    }
    double reduced[2] = {cmax, s->late ? 1 : 0}; /* the step's Courant number and late errors */
    mu_allreduce(reduced, 2, MPI_DOUBLE, MPI_MAX, s->comm);
    s->cmax = reduced[0];
    return reduced[1] > 0 ? mu_error_collective(s->comm, s->late) : 0;
}

int adv_confirm(adv_state *s) {
    if (s->npend == 0) return 0;
    int64_t k = s->pend_step[0];
    double cmax = 0, sec[3];
    int bad = 0;
    mu_timer_begin("advect: GPU step end");
    int rc = MU_GPU(mu_gpu_adv_check_wait(s->gpu, &cmax, &bad, sec), "advect winds on the GPU");
    mu_timer_end("advect: GPU step end");
    s->pend_step[0] = s->pend_step[1];
    s->npend--;
    for (int a = 0; a < 3 && !rc; a++) s->gpu_sweep_s[a] += sec[a];
    if (!rc && bad) rc = gpu_recheck(s, ((double)k + 0.5) * s->cfg->dt, 2);
    if (mu_error_collective(s->comm, rc)) return 1;
    double reduced[2] = {cmax, s->late ? 1 : 0}; /* the step's Courant number and late errors */
    mu_allreduce(reduced, 2, MPI_DOUBLE, MPI_MAX, s->comm);
    s->cmax = reduced[0];
    return reduced[1] > 0 ? mu_error_collective(s->comm, s->late) : 0;
}

static void pack_cols(adv_state *s, int axis, int from, float *buf, int unpack) {
    int N = s->N, nz = s->nl[2];
    int64_t k = 0;
    if (axis == 0) {
        int64_t col = (int64_t)N * nz;
        for (int y = 0; y < s->nl[1]; y++)
            for (int x = from; x < from + ADV_HALO; x++) {
                float *p = s->q + adv_idx(s, x, y, 0);
                if (unpack)
                    memcpy(p, buf + k, (size_t)col * sizeof *p);
                else
                    memcpy(buf + k, p, (size_t)col * sizeof *p);
                k += col;
            }
    } else {
        int64_t row = (int64_t)N * nz * s->nl[0];
        for (int y = from; y < from + ADV_HALO; y++) {
            float *p = s->q + adv_idx(s, 0, y, 0);
            if (unpack)
                memcpy(p, buf + k, (size_t)row * sizeof *p);
            else
                memcpy(buf + k, p, (size_t)row * sizeof *p);
            k += row;
        }
    }
}

/* Halo of ADV_HALO cells along X or Y: owned edge cells to the neighbours,
 * both directions at once (the same messages as the GPU's gpu_halo_winds). */
void adv_halo(adv_state *s, int axis) {
    int m = s->nl[axis];
    int prev = s->cart.prev[axis], next = s->cart.next[axis];
    if (prev == MPI_PROC_NULL && next == MPI_PROC_NULL) return;
    int64_t count = (int64_t)ADV_HALO * s->N * s->nl[2] * (axis == 0 ? s->nl[1] : s->nl[0]);
    float *to_next = s->sbuf, *to_prev = s->hbuf, *from_prev = s->rbuf,
          *from_next = s->hbuf + s->hmax;
    pack_cols(s, axis, m - ADV_HALO, to_next, 0);
    pack_cols(s, axis, 0, to_prev, 0);
    MPI_Request rq[4];
    MPI_Status sts[4];
    halo_post(s, axis, to_prev, to_next, from_prev, from_next, count, rq);
    mu_waitall(4, rq, sts);
    if (prev != MPI_PROC_NULL) pack_cols(s, axis, -ADV_HALO, from_prev, 1);
    if (next != MPI_PROC_NULL) pack_cols(s, axis, m, from_next, 1);
}
