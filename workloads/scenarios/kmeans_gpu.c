/* The k-means backend over a device context (gpu/scenarios_kmeans.h): the
 * whole steps of kmeans.h computed by the CUDA kernels, with the same bits. */
#include <stddef.h>

#include "gpu/scenarios_kmeans.h"
#include "scenarios/kmeans.h"

static int gpu_all(void *ctx, const double *c, int k, double *dist) {
    return mu_gpu_km_all(ctx, c, k, dist);
}
static int gpu_nearest2(void *ctx, const double *c, int k, int *ic1, int *ic2) {
    return mu_gpu_km_nearest2(ctx, c, k, ic1, ic2);
}
static int gpu_scan(void *ctx, const double *c, int k, const int *ic1, const int *ic2,
                    const int *nc, const double *an1, const double *an2, const unsigned char *live,
                    int *move) {
    return mu_gpu_km_scan(ctx, c, k, ic1, ic2, nc, an1, an2, live, move);
}
static int gpu_qtest(void *ctx, const double *c, int k, const int *ic1, const int *ic2,
                     const int *nc, const double *an1, const double *an2, const unsigned char *qchg,
                     int *cand) {
    return mu_gpu_km_qtest(ctx, c, k, ic1, ic2, nc, an1, an2, qchg, cand);
}

static int res_scan(void *ctx, const double *c, int k, const int *nc, const double *an1,
                    const double *an2, const unsigned char *live) {
    return mu_gpu_km_res_scan(ctx, c, k, nc, an1, an2, live);
}
static int res_qtest(void *ctx, const double *c, int k, const int *nc, const double *an1,
                     const double *an2, const unsigned char *qchg) {
    return mu_gpu_km_res_qtest(ctx, c, k, nc, an1, an2, qchg);
}
static int res_batch(void *ctx, int k, const int *nc, int *applied, int *moved,
                     unsigned char *touched, double *c, double *cw, int *nc_out) {
    return mu_gpu_km_res_batch(ctx, k, nc, applied, moved, touched, c, cw, nc_out);
}
static int res_recompute(void *ctx, int k, const unsigned char *touched, double *c, double *cw,
                         int *nc) {
    return mu_gpu_km_res_recompute(ctx, k, touched, c, cw, nc);
}
static int res_restore(void *ctx) {
    return mu_gpu_km_res_restore(ctx);
}
static int res_pull(void *ctx, int *ic1, int *ic2, int *cand) {
    return mu_gpu_km_res_pull(ctx, ic1, ic2, cand);
}
static int res_push(void *ctx, const int *ic1, const int *ic2) {
    return mu_gpu_km_res_push(ctx, ic1, ic2);
}

static const mu_km_resident gpu_resident = {res_scan,    res_qtest, res_batch, res_recompute,
                                            res_restore, res_pull,  res_push};

mu_km_backend mu_km_gpu_backend(struct mu_gpu_km *g, int qtest, int resident) {
    return (mu_km_backend){g,
                           gpu_all,
                           gpu_nearest2,
                           gpu_scan,
                           qtest ? gpu_qtest : NULL,
                           NULL,
                           resident ? &gpu_resident : NULL};
}
