/* The device whitening's API in a build without CUDA: it always fails, and the
 * aggregation only calls it on GPU ranks, which such a build never has. */
#include "core/message.h"
#include "gpu/gpu.h"
#include "gpu/none.h"
#include "gpu/scenarios_whiten.h"

int mu_gpu_whiten(const double *x, int m, int d, double *y, int *rank) {
    MU_NONE_UNUSED(x, m, d, y);
    *rank = 0;
    return MU_GPU(1, "whitening on the GPU"); /* mu_gpu_error(): no CUDA in this build */
}

const double *mu_gpu_whiten_rows(void) {
    return NULL;
}
