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

int mu_gpu_cg_halo_pack_next(mu_gpu_cg *g, const void *zr, const void *p, double beta) {
    (void)g;
    (void)zr;
    (void)p;
    (void)beta;
    return 1;
}

int mu_gpu_cg_peer_export(mu_gpu_cg *g, void *p, mu_gpu_cg_handle *box, mu_gpu_cg_handle *vec) {
    (void)g;
    (void)p;
    (void)box;
    (void)vec;
    return 1;
}

int mu_gpu_cg_peer_open(mu_gpu_cg *g, void *p, const mu_gpu_cg_peer_desc *d) {
    (void)g;
    (void)p;
    (void)d;
    return 1;
}

int mu_gpu_cg_peer_ready(const mu_gpu_cg *g, const void *p) {
    (void)g;
    (void)p;
    return 0;
}

int mu_gpu_cg_peer_close(mu_gpu_cg *g) {
    (void)g;
    return 0;
}
