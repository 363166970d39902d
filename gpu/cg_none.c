/* The cg entry points of gpu/cg_gpu.h added after gpu/gpu_none.c's, in a
 * build without CUDA: no context can ever be made (mu_gpu_cg_create fails
 * there), so these are never reached with one; they fail the same way. */
#include <stddef.h>

#include "gpu/cg_gpu.h"

int mu_gpu_cg_residual(mu_gpu_cg *g, double alpha, const void *q, void *r, void *z, int acc_rz,
                       int acc_rr) {
    (void)g;
    (void)alpha;
    (void)q;
    (void)r;
    (void)z;
    (void)acc_rz;
    (void)acc_rr;
    return 1;
}

int mu_gpu_cg_direction(mu_gpu_cg *g, double alpha, double beta, const void *zr, void *p, void *x) {
    (void)g;
    (void)alpha;
    (void)beta;
    (void)zr;
    (void)p;
    (void)x;
    return 1;
}

int mu_gpu_cg_set_depth(mu_gpu_cg *g, int depth) {
    (void)g;
    (void)depth;
    return 1;
}

int mu_gpu_cg_depth(const mu_gpu_cg *g) {
    (void)g;
    return 0;
}
