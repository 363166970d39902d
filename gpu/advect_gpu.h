/* CUDA kernels of the advect workload, as a C API driven sweep by sweep from
 * workloads/advect/sweep_gpu.c, in the same phases as the CPU: classification of every
 * line on the device (a warp per line), the dataflow task list built there
 * (likewise; streams as one warp each, the fields on its lanes, as in the
 * study; the inflow-only cells after), or the lines schedule (one thread per
 * field and line); the end fluxes of the segments go through the host for MPI
 * between phases. The chains walk with the cells' neighbours in registers
 * (gpu/advect_walk.h) and do the arithmetic of gpu/advect_walcek.h, so with
 * --fmad=false the fields are bitwise those of the CPU. The CPU-only build
 * (gpu/advect_none.c) reports "built without CUDA" from every entry point. */
#ifndef MU_GPU_ADVECT_GPU_H
#define MU_GPU_ADVECT_GPU_H
#include <stdint.h>
#include "core/exactsum.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A sweep's geometry as the kernels take it (by value: the order of the
 * fields is their parameters' layout). */
typedef struct {
    int axis, m, G, N; /* sweep axis, cells per segment, lines, fields */
    int wrap, periodic, first, last;
    int nxl, nyl, nz, sx; /* block geometry (sx = nxl + 4) */
    int eb0, eb1;         /* see adv_line */
    long long qs;         /* stride between cells of a line */
    long long glo, gn;    /* the segment's first global cell along the axis; global cells */
    float dt, dx;
    double tf, dtdx; /* the winds' time factor (steady part x tf); dt / dx */
} mu_gpu_adv_sweep;

typedef struct {
    mu_gpu_adv_sweep sweep;
    int dataflow;
    int halo_ahead; /* begin: the axis (0, 1) whose halo the next sweep needs, packed from
                       this sweep's new fields (mu_gpu_adv_halo_out), or -1 */
} mu_gpu_adv_geom;

typedef struct mu_gpu_adv mu_gpu_adv;

/* Device buffers for padded fields of qlen floats, at most gmax lines of at
 * most mmax cells, N fields, halo exchanges of up to halo floats. */
int mu_gpu_adv_create(int64_t qlen, int64_t gmax, int mmax, int N, int64_t halo, mu_gpu_adv **out);
void mu_gpu_adv_destroy(mu_gpu_adv *g); /* NULL is accepted */
/* Page-locks a host buffer that the halos and flux rounds go through (a rank
 * with neighbours), so that its copies run at the pinned rate; until destroy. */
int mu_gpu_adv_pin(mu_gpu_adv *g, void *host, size_t bytes);
int mu_gpu_adv_put(mu_gpu_adv *g, const float *q); /* the padded fields, host to device */
int mu_gpu_adv_get(mu_gpu_adv *g, float *q);       /* device to host */
/* Halo columns (axis 0) or rows (axis 1) from..from+1 to or from a host buffer. */
int mu_gpu_adv_halo(mu_gpu_adv *g, int axis, int nxl, int nyl, int nz, int N, int from, float *host,
                    int unpack);
/* The steady part of one axis's face winds, as a table over the global cell
 * indices it depends on: the wind of the face right of global cell (x, y, z)
 * is tab[x sx + y sy + z sz] (a stride 0 where it does not depend on that
 * index), and its density rho[z]; the rank's lines are G x m cells, the
 * first at lo, n cells along the axis (its faces wrap). */
typedef struct {
    const double *tab;
    int64_t entries, sx, sy, sz;
    const float *rho;
    int nz, nxl, G, m;
    int64_t lo[3], n;
} mu_gpu_adv_wtab;
/* The winds stay on the device: made there once per run from the table, one
 * double and one float a face, G x (m+1) each (has_wind says whether they are
 * there); each sweep scales them by tf. */
int mu_gpu_adv_wind_put(mu_gpu_adv *g, int axis, const mu_gpu_adv_wtab *t);
int mu_gpu_adv_has_wind(const mu_gpu_adv *g, int axis);
/* The cell densities back to rho(z) (nz values) at the start of a step: the
 * next sweep's D0 is rho(z) (uploaded when it changes), each later sweep's the
 * D1 of the sweep before, read on the device where that sweep left it. */
int mu_gpu_adv_dens_reset(mu_gpu_adv *g, const float *rho, int nz, int64_t cells);
/* The sweep's face winds, Walcek densities D0/D1 and Courant figures, queued
 * on the device; pn (periodic axes, else NULL) gets 2 flags per line: any wind
 * >= 0, any < 0 (a wait). The figures stay on the device until
 * mu_gpu_adv_check. */
int mu_gpu_adv_winds(mu_gpu_adv *g, const mu_gpu_adv_geom *w, int *pn);
/* The first sweep of the next step (w: its geometry, from rho(z), not periodic)
 * queued now, beside this step's last chains; the next step's
 * mu_gpu_adv_winds of the same geometry, after its dens_reset, then only waits
 * for it (its figures go to that step's check). Does nothing where the
 * winds are not uploaded yet. */
int mu_gpu_adv_winds_ahead(mu_gpu_adv *g, const mu_gpu_adv_geom *w);
/* The Courant figures of the sweeps since the last check: *cmax the largest
 * Courant number of the faces inside the domain, *bad 1 if one exceeds 1 or
 * a D1 is not positive (the host then redoes the winds and densities to name
 * the place). check_post queues their copy at the end of a step (no wait, at
 * most 2 posted), check_wait reads the oldest posted (a wait for that step
 * alone) with its sweeps' device seconds (sweep_s: X, Y, Z; NULL: not
 * wanted), so the host queues step k+1 before it reads step k's; check is
 * both at once. */
int mu_gpu_adv_check_post(mu_gpu_adv *g);
int mu_gpu_adv_check_wait(mu_gpu_adv *g, double *cmax, int *bad, double sweep_s[3]);
int mu_gpu_adv_check(mu_gpu_adv *g, double *cmax, int *bad);
/* The fields made on the device from the shape of each owned cell (nxl x nyl
 * x nz, z fastest; fields f0.. of the run), with the host's roundings
 * (adv_init_value); the halos 0. */
int mu_gpu_adv_init_fields(mu_gpu_adv *g, const double *shape, int nxl, int nyl, int nz, int f0,
                           double background, double amp);
/* The step log's figures of the owned cells (nxl x nyl x nz of the padded
 * fields) on the device, only these few numbers copied back: per field the
 * exact sum of q rho(z) dV (rhodv: nz values) added to acc[f], the smallest
 * and largest value as adv_fkey keys (NaN skipped; +Inf / -Inf keys if none). */
int mu_gpu_adv_diag(mu_gpu_adv *g, int nxl, int nyl, int nz, const double *rhodv, mu_xsum *acc,
                    int32_t *kmin, int32_t *kmax);
/* The densities after the sweep (D1) become the cell densities (no copy). */
int mu_gpu_adv_dens_next(mu_gpu_adv *g, const mu_gpu_adv_geom *w);
/* Uploads the cycle signs (NULL: none), classifies, copies q to qn, and runs
 * the local phase; *ntasks gets the number of streams (dataflow). With
 * w->halo_ahead >= 0 (lines schedule, the segments alone on their lines) it
 * runs first the lines whose new values the next sweep's halo along that axis
 * holds, packs that halo, both directions, into pinned host memory on a copy
 * stream, and then the other lines. */
int mu_gpu_adv_begin(mu_gpu_adv *g, const mu_gpu_adv_geom *w, const int *cyc, int64_t *ntasks);
/* The halo packed by begin (a wait for its copy alone, while the other lines
 * run): the values for the previous and the next rank, and where to receive
 * theirs (pinned, count floats each). */
int mu_gpu_adv_halo_out(mu_gpu_adv *g, float **to_prev, float **to_next, float **from_prev,
                        float **from_next, int64_t *count);
/* The received halo (NULL: no neighbour that side) into the new fields,
 * queued after the sweep's chains; the next sweep along that axis then needs
 * no exchange (mu_gpu_adv_halo_fresh). */
int mu_gpu_adv_halo_in(mu_gpu_adv *g, const float *from_prev, const float *from_next);
/* Peer halos, between the GPUs of one node (CUDA IPC): the halos packed
 * ahead go straight into the neighbours' device memory, and only a token
 * travels through MPI. export gives this rank's receive buffers (halos, and
 * the flux rounds below) and its events (made on the first call); open maps the neighbour's on side
 * (0: the previous rank along axis, 1: the next), for the halos along axis only; halo_peer_in then
 * replaces halo_out / halo_in: once the neighbours' tokens say that their
 * copies are queued, it queues the unpack of what they sent (0: no
 * neighbour that side). close unmaps (also done by destroy). */
typedef struct {
    unsigned char b[64];
} mu_gpu_adv_ipc;
#define MU_GPU_ADV_IPC 8 /* handles a rank exports: 2 buffers, 6 events */
int mu_gpu_adv_peer_export(mu_gpu_adv *g, int rounds, int64_t rslot,
                           mu_gpu_adv_ipc h[MU_GPU_ADV_IPC]);
int mu_gpu_adv_peer_open(mu_gpu_adv *g, int axis, int side, const mu_gpu_adv_ipc h[MU_GPU_ADV_IPC]);
void mu_gpu_adv_peer_close(mu_gpu_adv *g);
int mu_gpu_adv_halo_peer_in(mu_gpu_adv *g, int from_prev, int from_next);
/* The flux rounds of a sweep along the peer axis (export's rounds, rslot
 * floats a message at most) in peer memory: pack copies round r's message
 * into the neighbour's buffer (dir +1: the next rank's, -1: the previous
 * one's); once the neighbours' tokens say theirs are queued, unpack runs what
 * the received fluxes free (has_src 0: no neighbour that side, no flux). */
int mu_gpu_adv_peer_pack(mu_gpu_adv *g, const mu_gpu_adv_geom *w, int dir, int r);
int mu_gpu_adv_peer_unpack(mu_gpu_adv *g, const mu_gpu_adv_geom *w, int dir, int r, int has_src);
/* 1 if the halo along axis was filled ahead since the fields last changed
 * from the host (and forgets it), else 0. */
int mu_gpu_adv_halo_fresh(mu_gpu_adv *g, int axis);
/* One round of the flux chains: dir +1 packs F[R] (forward), -1 F[L]
 * (backward) into host (G x (N+1)); unpack runs what the received fluxes free. */
int mu_gpu_adv_pack(mu_gpu_adv *g, const mu_gpu_adv_geom *w, int dir, float *host);
int mu_gpu_adv_unpack(mu_gpu_adv *g, const mu_gpu_adv_geom *w, int dir, const float *host);
int mu_gpu_adv_lap2(mu_gpu_adv *g, const mu_gpu_adv_geom *w, int sign);
/* The local backward phase (after the forward rounds). */
int mu_gpu_adv_backward(mu_gpu_adv *g, const mu_gpu_adv_geom *w);
/* Checks every chain was closed (*lost = 1 if not) and makes qn the fields. */
int mu_gpu_adv_end(mu_gpu_adv *g, const mu_gpu_adv_geom *w, int *lost);
/* Seconds in kernels and in host-device copies, and bytes copied, so far. */
void mu_gpu_adv_times(const mu_gpu_adv *g, double *kernel_s, double *copy_s, double *bytes);

#ifdef __cplusplus
}
#endif
#endif
