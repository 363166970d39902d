/* The fuzzy GPU API in a build without CUDA: every entry point fails with one
 * message, so the fuzzy command takes its CPU path. */
#include <stddef.h>
#include <stdint.h>

#include "gpu/fuzzy_gpu.h"
#include "gpu/none.h"

int mu_gpu_fm_create(const double *x, int64_t n, int F, mu_gpu_fm **ctx) {
    MU_NONE_UNUSED(x, n, F);
    if (ctx) *ctx = NULL;
    return 1;
}

int mu_gpu_fm_run(mu_gpu_fm *ctx, const mu_gpu_fm_range *ranges, int nranges, double r2,
                  double eps1, int64_t max_it, int64_t sum_block, double *v, int64_t *iterations,
                  int *converged, float *kernel_ms) {
    MU_NONE_UNUSED(ctx, ranges, nranges, r2, eps1, max_it, sum_block, v, iterations, converged,
                   kernel_ms);
    return 1;
}

int mu_gpu_fm_run_accept(mu_gpu_fm *ctx, const mu_gpu_fm_range *ranges, int nranges, double r2,
                         double eps1, int64_t max_it, int64_t sum_block, double eps2, double *proto,
                         int64_t *from, int64_t *nproto, int64_t *iterations, int *converged,
                         float *kernel_ms) {
    MU_NONE_UNUSED(ctx, ranges, nranges, r2, eps1, max_it, sum_block, eps2, proto, from, nproto,
                   iterations, converged, kernel_ms);
    return 1;
}

int mu_gpu_fm_accept(mu_gpu_fm *ctx, const double *v, const int *converged, int64_t count,
                     double eps2, double *proto, int64_t *from, int64_t *m) {
    MU_NONE_UNUSED(ctx, v, converged, count, eps2, proto, from);
    if (m) *m = 0;
    return 1;
}

int mu_gpu_fm_set_fast(mu_gpu_fm *ctx, int fast) {
    MU_NONE_UNUSED(ctx, fast);
    return 1;
}

void mu_gpu_fm_destroy(mu_gpu_fm *ctx) {
    MU_NONE_UNUSED(ctx);
}
