/* Scenario generation without CUDA: no device path; callers use the CPU reference. */
#include <stddef.h>
#include "gpu/none.h"
#include "gpu/scenarios_gen.h"

int mu_sc_gpu_create(int nst, int pmax, int64_t max_scen, int per_scen_past, mu_sc_gpu **out) {
    MU_NONE_UNUSED(nst, pmax, max_scen, per_scen_past);
    *out = NULL;
    return 1; /* mu_gpu_error() says "this build has no CUDA support" */
}

int mu_sc_gpu_generate(mu_sc_gpu *ctx, const mu_sc_gen_month *g, const mu_sc_gen_draw *d, double *Z,
                       int64_t *clamped, float *kernel_ms) {
    MU_NONE_UNUSED(ctx, g, d, Z, clamped, kernel_ms);
    return 1;
}

int mu_sc_gpu_generate_device(mu_sc_gpu *ctx, const mu_sc_gen_month *g, const mu_sc_gen_draw *d,
                              float *kernel_ms) {
    MU_NONE_UNUSED(ctx, g, d, kernel_ms);
    return 1;
}

void mu_sc_gpu_destroy(mu_sc_gpu *ctx) {
    MU_NONE_UNUSED(ctx);
}
