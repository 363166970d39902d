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
                    double *r1, double *r2, int *l2) {
    return mu_gpu_km_scan(ctx, c, k, ic1, ic2, nc, an1, an2, live, r1, r2, l2);
}
static int gpu_qtest(void *ctx, const double *c, int k, const int *ic1, const int *ic2,
                     const int *nc, const double *an1, const double *an2, const unsigned char *qchg,
                     int *cand) {
    return mu_gpu_km_qtest(ctx, c, k, ic1, ic2, nc, an1, an2, qchg, cand);
}
static int gpu_recompute(void *ctx, const int *ic1, const int *nc, int k,
                         const unsigned char *touched, double *c, double *cw) {
    return mu_gpu_km_recompute(ctx, ic1, nc, k, touched, c, cw);
}

mu_km_backend mu_km_gpu_backend(struct mu_gpu_km *g, int qtest, int recompute) {
    return (mu_km_backend){g,
                           gpu_all,
                           gpu_nearest2,
                           gpu_scan,
                           qtest ? gpu_qtest : NULL,
                           recompute ? gpu_recompute : NULL};
}
