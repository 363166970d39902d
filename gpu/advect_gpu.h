/* CUDA kernels of the advect workload, as a C API driven sweep by sweep from
 * src/advect/sweep.c, in the same phases as the CPU: classification of every
 * line on the device (one thread per line), the dataflow task list built there
 * (streams as one warp each, the fields on its lanes, as in the study; the
 * inflow-only cells after), or the lines schedule (one thread per field and
 * line); the end fluxes of the segments go through the host for MPI between
 * phases. The cells do the arithmetic of gpu/advect_walcek.h, so with
 * --fmad=false the fields are bitwise those of the CPU. The CPU-only build
 * (gpu/advect_none.c) reports "built without CUDA" from every entry point. */
#ifndef MU_GPU_ADVECT_GPU_H
#define MU_GPU_ADVECT_GPU_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int axis, m, G, N; /* sweep axis, cells per segment, lines, fields */
    int wrap, periodic, first, last, dataflow;
    int nxl, nz, sx; /* block geometry (sx = nxl + 4) */
    int64_t qs;      /* stride between cells of a line */
    float dt, dx;
    int eb0, eb1; /* see adv_line */
} mu_gpu_adv_geom;

typedef struct mu_gpu_adv mu_gpu_adv;

/* Device buffers for padded fields of qlen floats, at most gmax lines of at
 * most mmax cells, N fields, halo exchanges of up to halo floats. */
int mu_gpu_adv_create(int64_t qlen, int64_t gmax, int mmax, int N, int64_t halo, mu_gpu_adv **out);
void mu_gpu_adv_destroy(mu_gpu_adv *g);            /* NULL is accepted */
int mu_gpu_adv_put(mu_gpu_adv *g, const float *q); /* the padded fields, host to device */
int mu_gpu_adv_get(mu_gpu_adv *g, float *q);       /* device to host */
/* Halo columns (axis 0) or rows (axis 1) from..from+1 to or from a host buffer. */
int mu_gpu_adv_halo(mu_gpu_adv *g, int axis, int nxl, int nyl, int nz, int N, int from, float *host,
                    int unpack);
/* Uploads the sweep's winds (u, rs: G x (m+1)), densities (G x m) and cycle
 * signs, classifies, copies q to qn, and runs the local phase; *ntasks gets
 * the number of streams (dataflow). */
int mu_gpu_adv_begin(mu_gpu_adv *g, const mu_gpu_adv_geom *w, const float *wu, const float *wrs,
                     const float *wd0, const float *wd1, const int *cyc, int64_t *ntasks);
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
