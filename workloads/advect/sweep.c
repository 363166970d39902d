/* One time step: X, Y and Z sweeps (Walcek 2000, as in CCATT-BRAMS). Each sweep: halo exchange
 * (X, Y), face winds and Walcek densities, the Courant check, the line
 * classification, then the dataflow across ranks (this project's design): local streams first, the
 * flux chains carried across ranks in rounds (each rank passes the flux of its
 * end face once it is known, so both sides of an interface use the one value
 * computed upstream), and the inflow-only cells last. The cells do the same
 * arithmetic in any schedule and on any number of ranks. The steps: the
 * winds in sweep_winds.c, the halos and flux chains between ranks in
 * sweep_halo.c, the CPU's walks in sweep_walks.c, the GPU's sweep in
 * sweep_gpu.c, its peer paths in peer.c (sweep.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "advect/sweep.h"
#include "mpi/wait.h"
#include "core/error.h"
#include "core/knobs.h"
#include "core/timer.h"
#include "gpu/gpu.h"

int64_t adv_line_off(const adv_state *s, int axis, int g, int64_t *dens_off, int64_t *dens_stride,
                     int64_t gc[3]) {
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

void adv_sweep_setup(const adv_state *s, int axis, sweep_geom *w) {
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

adv_line adv_line_view(adv_state *s, const sweep_geom *w, int g, int f) {
    int64_t doff, dstr, gc[3];
    int64_t off = adv_line_off(s, w->axis, g, &doff, &dstr, gc);
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

int adv_any_cycle(const adv_state *s, const sweep_geom *w, int sign) {
    for (int g = 0; g < w->G; g++)
        if (s->cyc[g] == sign) return 1;
    return 0;
}

/* The densities after the sweep: the next sweep's D0. */
void adv_update_dens(adv_state *s, const sweep_geom *w) {
    for (int g = 0; g < w->G; g++) {
        int64_t doff, dstr, gc[3];
        adv_line_off(s, w->axis, g, &doff, &dstr, gc);
        const float *d1 = s->wd1 + (int64_t)g * w->m;
        for (int i = 0; i < w->m; i++) s->dens[doff + i * dstr] = d1[i];
    }
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
            adv_line_signs(s->wu + (int64_t)g * (m + 1), m, pn + 2 * g);
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
    if (adv_any_cycle(s, w, 1) || adv_any_cycle(s, w, -1)) {
        memcpy(sh->scr_cls, sh->cls[ax], (size_t)w->G * m);
        s->cls = sh->scr_cls;
    }
    return 0;
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
        adv_update_dens(s, w);
}

static int sweep_run(adv_state *s, int axis, double t, double *cmax, const adv_steady *kept) {
    const adv_cfg *c = s->cfg;
    sweep_geom w;
    adv_sweep_setup(s, axis, &w);
    int m = w.m;

    if (axis < 2 && !s->gpu) adv_halo(s, axis);
    mu_gpu_adv_geom d;
    memset(&d, 0, sizeof d);
    if (s->gpu) {
        adv_gpu_geom(s, &w, t, &d);
        d.halo_ahead = adv_halo_ahead(s, &w);
    }
    mu_timer_begin("advect: winds, classes");
    int hrc = 0, reuse = kept || (s->share && s->share->made[axis]);
    /* (CPU) the largest Courant number of this sweep's lines made here */
    double mine = kept ? kept->cmax : reuse ? s->share->cmax[axis] : 0;
    int bad = s->gpu     ? adv_gpu_halo_winds(s, &w, &d, &hrc)
              : reuse    ? 0
              : s->share ? adv_share_winds(s, &w, t, &mine)
                         : adv_sweep_winds(s, &w, t, &mine);
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
    if (s->gpu) return adv_sweep_gpu_rest(s, &w, &d, rounds, t, cmax);
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
        if (adv_sweep_tasks(s, &w, &nt, &nf))
            return mu_timer_end("advect: cells"),
                   mu_error_collective(s->comm, mu_error("internal: a stream without a root"));
        s->ntasks[axis] = nt;
    }
    adv_cells_forward(s, &w, dataflow, nt, rounds, first, last);
    adv_cells_backward(s, &w, dataflow, nf, rounds, first, last);
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
        adv_sweep_setup(s, 0, &w);
        adv_gpu_geom(s, &w, ((double)(k + 1) + 0.5) * c->dt, &d);
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
    if (!rc && bad) rc = adv_gpu_recheck(s, ((double)k + 0.5) * s->cfg->dt, 2);
    if (mu_error_collective(s->comm, rc)) return 1;
    double reduced[2] = {cmax, s->late ? 1 : 0}; /* the step's Courant number and late errors */
    mu_allreduce(reduced, 2, MPI_DOUBLE, MPI_MAX, s->comm);
    s->cmax = reduced[0];
    return reduced[1] > 0 ? mu_error_collective(s->comm, s->late) : 0;
}
