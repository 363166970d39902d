/* The k-means kernels' API in a build without CUDA: no context can be made,
 * so the aggregation reports that the build has no device and callers keep
 * the CPU path. */
#include <stddef.h>

#include "gpu/none.h"
#include "gpu/scenarios_kmeans.h"

int mu_gpu_km_create(const double *pts, int m, int d, int kmax, mu_gpu_km **out) {
    MU_NONE_UNUSED(pts, m, d, kmax);
    if (out) *out = NULL;
    return 1;
}

int mu_gpu_km_reserve(int m, int d, int kmax) {
    MU_NONE_UNUSED(m, d, kmax);
    return 1;
}

void mu_gpu_km_destroy(mu_gpu_km *g) {
    MU_NONE_UNUSED(g);
}

int mu_gpu_km_all(mu_gpu_km *g, const double *c, int k, double *dist) {
    MU_NONE_UNUSED(g, c, k, dist);
    return 1;
}

int mu_gpu_km_nearest2(mu_gpu_km *g, const double *c, int k, int *ic1, int *ic2) {
    MU_NONE_UNUSED(g, c, k, ic1, ic2);
    return 1;
}

int mu_gpu_km_scan(mu_gpu_km *g, const double *c, int k, const int *ic1, const int *ic2,
                   const int *nc, const double *an1, const double *an2, const unsigned char *live,
                   int *move) {
    MU_NONE_UNUSED(g, c, k, ic1, ic2, nc, an1, an2, live, move);
    return 1;
}

int mu_gpu_km_qtest(mu_gpu_km *g, const double *c, int k, const int *ic1, const int *ic2,
                    const int *nc, const double *an1, const double *an2, const unsigned char *qchg,
                    int *cand) {
    MU_NONE_UNUSED(g, c, k, ic1, ic2, nc, an1, an2, qchg, cand);
    return 1;
}

int mu_gpu_km_res_scan(mu_gpu_km *g, const double *c, int k, const int *nc, const double *an1,
                       const double *an2, const unsigned char *live) {
    MU_NONE_UNUSED(g, c, k, nc, an1, an2, live);
    return 1;
}

int mu_gpu_km_res_qtest(mu_gpu_km *g, const double *c, int k, const int *nc, const double *an1,
                        const double *an2, const unsigned char *qchg) {
    MU_NONE_UNUSED(g, c, k, nc, an1, an2, qchg);
    return 1;
}

int mu_gpu_km_res_batch(mu_gpu_km *g, int k, const int *nc, int *applied, int *moved,
                        unsigned char *touched, double *c, double *cw, int *nc_out) {
    MU_NONE_UNUSED(g, k, nc, applied, moved, touched, c, cw, nc_out);
    return 1;
}

int mu_gpu_km_res_recompute(mu_gpu_km *g, int k, const unsigned char *touched, double *c,
                            double *cw, int *nc) {
    MU_NONE_UNUSED(g, k, touched, c, cw, nc);
    return 1;
}

int mu_gpu_km_res_restore(mu_gpu_km *g) {
    MU_NONE_UNUSED(g);
    return 1;
}

int mu_gpu_km_res_pull(mu_gpu_km *g, int *ic1, int *ic2, int *cand) {
    MU_NONE_UNUSED(g, ic1, ic2, cand);
    return 1;
}

int mu_gpu_km_res_push(mu_gpu_km *g, const int *ic1, const int *ic2) {
    MU_NONE_UNUSED(g, ic1, ic2);
    return 1;
}

int mu_gpu_km_own(mu_gpu_km *g, const double *c, int k, const int *ic1, double *dd) {
    MU_NONE_UNUSED(g, c, k, ic1, dd);
    return 1;
}

int mu_gpu_km_group_means(mu_gpu_km *g, const int *grp, int k, const double *x, int d,
                          double *out) {
    MU_NONE_UNUSED(g, grp, k, x, d, out);
    return 1;
}

int mu_gpu_km_kernel_ms(mu_gpu_km *g, const double *c, int k, int reps, double *ms) {
    MU_NONE_UNUSED(g, c, k, reps);
    if (ms) *ms = 0.0;
    return 1;
}
