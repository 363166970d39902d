/* The device whitening's API in a build without CUDA: it always fails, and the
 * aggregation only calls it on GPU ranks, which such a build never has. */
#include "core/message.h"
#include "gpu/gpu.h"
#include "gpu/scenarios_whiten.h"

int mu_gpu_whiten(const double *x, int m, int d, const double **y, int *rank) {
    (void)x;
    (void)m;
    (void)d;
    *y = NULL;
    *rank = 0;
    return MU_GPU(1, "whitening on the GPU"); /* mu_gpu_error(): no CUDA in this build */
}

const double *mu_gpu_whiten_rows(void) {
    return NULL;
}

const double *mu_gpu_whiten_input(const double **mean) {
    *mean = NULL;
    return NULL;
}

int mu_gpu_whiten_reserve(int m, int d) {
    (void)m;
    (void)d;
    return MU_GPU(1, "whitening on the GPU");
}

int mu_gpu_whiten_distinct(int m, int r, int *all) {
    (void)m;
    (void)r;
    *all = 0;
    return 0;
}
