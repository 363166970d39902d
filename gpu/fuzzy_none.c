/* The fuzzy GPU API in a build without CUDA: every entry point fails with one
 * message, so the fuzzy command takes its CPU path. */
#include <stddef.h>
#include <stdint.h>

#include "gpu/fuzzy_gpu.h"

int mu_gpu_fm_create(const double *x, int64_t n, int F, mu_gpu_fm **ctx) {
    (void)x;
    (void)n;
    (void)F;
    if (ctx) *ctx = NULL;
    return 1;
}

int mu_gpu_fm_run(mu_gpu_fm *ctx, const mu_gpu_fm_range *ranges, int nranges, double r2,
                  double eps1, int64_t max_it, int64_t sum_block, double *v, int64_t *iterations,
                  int *converged, float *kernel_ms) {
    (void)ctx;
    (void)ranges;
    (void)nranges;
    (void)r2;
    (void)eps1;
    (void)max_it;
    (void)sum_block;
    (void)v;
    (void)iterations;
    (void)converged;
    (void)kernel_ms;
    return 1;
}

int mu_gpu_fm_run_accept(mu_gpu_fm *ctx, const mu_gpu_fm_range *ranges, int nranges, double r2,
                         double eps1, int64_t max_it, int64_t sum_block, double eps2, double *proto,
                         int64_t *from, int64_t *nproto, int64_t *iterations, int *converged,
                         float *kernel_ms) {
    (void)ctx;
    (void)ranges;
    (void)nranges;
    (void)r2;
    (void)eps1;
    (void)max_it;
    (void)sum_block;
    (void)eps2;
    (void)proto;
    (void)from;
    (void)nproto;
    (void)iterations;
    (void)converged;
    (void)kernel_ms;
    return 1;
}

int mu_gpu_fm_accept(mu_gpu_fm *ctx, const double *v, const int *converged, int64_t count,
                     double eps2, double *proto, int64_t *from, int64_t *m) {
    (void)ctx;
    (void)v;
    (void)converged;
    (void)count;
    (void)eps2;
    (void)proto;
    (void)from;
    if (m) *m = 0;
    return 1;
}

int mu_gpu_fm_set_fast(mu_gpu_fm *ctx, int fast) {
    (void)ctx;
    (void)fast;
    return 1;
}

int64_t mu_gpu_fm_resident(const mu_gpu_fm *ctx) {
    (void)ctx;
    return 0;
}

void mu_gpu_fm_destroy(mu_gpu_fm *ctx) {
    (void)ctx;
}
