/* The device whitening's API in a build without CUDA: it always fails, and the
 * aggregation only calls it on GPU ranks, which such a build never has. */
#include <stdio.h>

#include "gpu/gpu.h"
#include "gpu/scenarios_whiten.h"

int mu_gpu_whiten(const double *x, int m, int d, double *y, int *rank, char *err, size_t errlen) {
    (void)x;
    (void)m;
    (void)d;
    (void)y;
    *rank = 0;
    snprintf(err, errlen, "whitening on the GPU: %s", mu_gpu_error());
    return 1;
}

const double *mu_gpu_whiten_rows(void) {
    return NULL;
}
