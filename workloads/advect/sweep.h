/* Internal to the advection sweep (sweep.c, sweep_winds.c, sweep_halo.c,
 * sweep_walks.c, sweep_gpu.c, peer.c): a sweep's geometry and the steps each
 * file gives the others. */
#ifndef MU_ADVECT_SWEEP_H
#define MU_ADVECT_SWEEP_H
#include <mpi.h>
#include <stdint.h>
#include "advect/advect.h"
#include "gpu/advect_gpu.h"

typedef struct {
    int axis, m, G, wrap, P, periodic;
    int64_t qs;
    float dt, dx;
} sweep_geom;

/* sweep.c: the lines of a sweep and their densities. */
int64_t adv_line_off(const adv_state *s, int axis, int g, int64_t *dens_off, int64_t *dens_stride,
                     int64_t gc[3]);
void adv_sweep_setup(const adv_state *s, int axis, sweep_geom *w);
adv_line adv_line_view(adv_state *s, const sweep_geom *w, int g, int f);
int adv_any_cycle(const adv_state *s, const sweep_geom *w, int sign);
void adv_update_dens(adv_state *s, const sweep_geom *w);

/* sweep_winds.c: the sweep's face winds, Walcek densities and Courant check (each rank's own, or
 * shared by a node's ranks of one block). */
int adv_sweep_winds(adv_state *s, const sweep_geom *w, double t, double *cmax);
void adv_line_signs(const float *u, int m, int pn[2]);
int adv_share_winds(adv_state *s, const sweep_geom *w, double t, double *cmax);

/* sweep_halo.c: the halos and the flux chains between ranks (host memory and MPI). */
int adv_shift(adv_state *s, int axis, int dir, const float *out, float *in, int64_t count, int tag);
void adv_exchange(adv_state *s, const sweep_geom *w, int dir);
void adv_chain_rounds(adv_state *s, const sweep_geom *wp, int rounds, int dir);
void adv_halo_post(adv_state *s, int axis, const float *to_prev, const float *to_next,
                   float *from_prev, float *from_next, int64_t count, MPI_Request rq[4]);
int adv_halo_ahead(const adv_state *s, const sweep_geom *w);

/* sweep_walks.c: the CPU's walks of a sweep's cells (forward, backward). */
int adv_sweep_tasks(adv_state *s, const sweep_geom *w, int64_t *nt, int64_t *nf);
void adv_cells_forward(adv_state *s, const sweep_geom *w, int dataflow, int64_t nt, int rounds,
                       int first, int last);
void adv_cells_backward(adv_state *s, const sweep_geom *w, int dataflow, int64_t nf, int rounds,
                        int first, int last);

/* sweep_gpu.c: the sweep on the GPU, driven from the host. */
void adv_gpu_geom(const adv_state *s, const sweep_geom *w, double t, mu_gpu_adv_geom *dp);
int adv_gpu_recheck(adv_state *s, double t, int upto);
int adv_gpu_halo_winds(adv_state *s, const sweep_geom *w, const mu_gpu_adv_geom *d, int *hrc);
int adv_sweep_gpu_rest(adv_state *s, const sweep_geom *w, const mu_gpu_adv_geom *d, int rounds,
                       double t, double *cmax);

/* peer.c: the peer paths (GPU ranks of one node). */
int adv_peer_halo_ahead(adv_state *s, int ha, int failed);
int adv_peer_round(adv_state *s, const sweep_geom *w, const mu_gpu_adv_geom *d, int dir, int r);
#endif
