/* The k-means kernels' API in a build without CUDA: no context can be made,
 * so the aggregation reports that the build has no device and callers keep
 * the CPU path. */
#include <stddef.h>

#include "gpu/scenarios_kmeans.h"

int mu_gpu_km_create(const double *pts, int m, int d, int kmax, mu_gpu_km **out) {
    (void)pts;
    (void)m;
    (void)d;
    (void)kmax;
    if (out) *out = NULL;
    return 1;
}

void mu_gpu_km_destroy(mu_gpu_km *g) {
    (void)g;
}

int mu_gpu_km_all(mu_gpu_km *g, const double *c, int k, double *dist) {
    (void)g;
    (void)c;
    (void)k;
    (void)dist;
    return 1;
}

int mu_gpu_km_nearest2(mu_gpu_km *g, const double *c, int k, int *ic1, int *ic2) {
    (void)g;
    (void)c;
    (void)k;
    (void)ic1;
    (void)ic2;
    return 1;
}

int mu_gpu_km_scan(mu_gpu_km *g, const double *c, int k, const int *ic1, const int *ic2,
                   const int *nc, const double *an1, const double *an2, const unsigned char *live,
                   double *r1, double *r2, int *l2) {
    (void)g;
    (void)c;
    (void)k;
    (void)ic1;
    (void)ic2;
    (void)nc;
    (void)an1;
    (void)an2;
    (void)live;
    (void)r1;
    (void)r2;
    (void)l2;
    return 1;
}

int mu_gpu_km_qtest(mu_gpu_km *g, const double *c, int k, const int *ic1, const int *ic2,
                    const int *nc, const double *an1, const double *an2, const unsigned char *qchg,
                    int *cand) {
    (void)g;
    (void)c;
    (void)k;
    (void)ic1;
    (void)ic2;
    (void)nc;
    (void)an1;
    (void)an2;
    (void)qchg;
    (void)cand;
    return 1;
}

int mu_gpu_km_recompute(mu_gpu_km *g, const int *ic1, const int *nc, int k,
                        const unsigned char *touched, double *c, double *cw) {
    (void)g;
    (void)ic1;
    (void)nc;
    (void)k;
    (void)touched;
    (void)c;
    (void)cw;
    return 1;
}

int mu_gpu_km_kernel_ms(mu_gpu_km *g, const double *c, int k, int reps, double *ms) {
    (void)g;
    (void)c;
    (void)k;
    (void)reps;
    if (ms) *ms = 0.0;
    return 1;
}
