/* The sweep on the GPU, driven from the host: the device's geometry, its
 * Courant check, its winds, the halos exchanged while it computes, and the
 * flux rounds between ranks. */
#include <stdlib.h>
#include "advect/sweep.h"
#include "core/error.h"
#include "core/timer.h"
#include "gpu/gpu.h"
#include "mpi/wait.h"

void adv_gpu_geom(const adv_state *s, const sweep_geom *w, double t, mu_gpu_adv_geom *dp) {
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
int adv_gpu_recheck(adv_state *s, double t, int upto) {
    int64_t cells = (int64_t)s->nl[0] * s->nl[1] * s->nl[2];
    int nz = s->nl[2];
    for (int64_t i = 0; i < cells; i++) s->dens[i] = (float)adv_rho(s->cfg, (int)(i % nz));
    for (int axis = 0; axis <= upto; axis++) {
        sweep_geom w;
        adv_sweep_setup(s, axis, &w);
        double hc = 0;
        MU_TRY(adv_sweep_winds(s, &w, t, &hc));
        adv_update_dens(s, &w);
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
    return bad ? adv_gpu_recheck(s, t, upto) : 0;
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
        adv_sweep_setup(s, axis, &w);
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

/* The halo mu_gpu_adv_begin packed ahead: exchanged while the sweep's other
 * lines run, then queued into the new fields after them. Where the device
 * failed (failed, or the pack cannot be had) the messages still go, from the
 * host's halo buffers, so that no neighbour waits for them; the caller's
 * collective check then stops every rank. */
static int gpu_halo_ahead(adv_state *s, int ha, int failed) {
    if (s->peer == ha + 1) return adv_peer_halo_ahead(s, ha, failed);
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
    adv_halo_post(s, ha, to_prev, to_next, from_prev, from_next, count, rq);
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
int adv_gpu_halo_winds(adv_state *s, const sweep_geom *w, const mu_gpu_adv_geom *d, int *hrc) {
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
    adv_halo_post(s, axis, to_prev, to_next, from_prev, from_next, count, rq);
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
                if (!w->periodic || !adv_any_cycle(s, w, dir)) break;
                if (mu_gpu_adv_lap2(s->gpu, &d, dir)) return 1;
            }
            for (int r = 0; r < rounds; r++) {
                if (s->peer == w->axis + 1 && s->peer_rounds) {
                    if (adv_peer_round(s, w, &d, dir, r)) return 1;
                    continue;
                }
                if (mu_gpu_adv_pack(s->gpu, &d, dir, s->sbuf)) return 1;
                adv_exchange(s, w, dir);
                if (mu_gpu_adv_unpack(s->gpu, &d, dir, s->rbuf)) return 1;
            }
        }
    }
    return mu_gpu_adv_end(s->gpu, &d, lost);
}

/* The rest of a sweep on a GPU rank: the device's phases, then the checks. A
 * chain left open on any rank has every rank read its step's Courant figures
 * first, so that winds failing the check give its error, as on the CPU. */
int adv_sweep_gpu_rest(adv_state *s, const sweep_geom *w, const mu_gpu_adv_geom *d, int rounds,
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
