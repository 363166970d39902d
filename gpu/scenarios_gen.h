/* Scenario generation on the GPU, as a C API: the same draws as the CPU
 * reference (workloads/scenarios/gen.c), from the shared per-draw arithmetic of
 * gpu/scenarios_gen_core.h. A build without CUDA compiles
 * gpu/scenarios_gen_none.c, whose create fails with "built without CUDA". */
#ifndef MU_GPU_SCENARIOS_GEN_H
#define MU_GPU_SCENARIOS_GEN_H
#include <stdint.h>
#include "gpu/scenarios_gen_core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mu_sc_gpu mu_sc_gpu;

/* Device buffers for up to max_scen scenarios of nst stations (pmax lags; a
 * private past per scenario when per_scen_past). 0, or 1 with mu_gpu_error(). */
int mu_sc_gpu_create(int nst, int pmax, int64_t max_scen, int per_scen_past, mu_sc_gpu **out);
/* Z (host, d->nscen x nst) = the scenarios of d under month g; the number of
 * clamped lower bounds is added to *clamped (may be NULL); kernel_ms (may be
 * NULL) gets the kernel time alone. */
int mu_sc_gpu_generate(mu_sc_gpu *ctx, const mu_sc_gen_month *g, const mu_sc_gen_draw *d, double *Z,
                       int64_t *clamped, float *kernel_ms);
/* The same, leaving Z on the device (benchmarks: the rate without the copy back). */
int mu_sc_gpu_generate_device(mu_sc_gpu *ctx, const mu_sc_gen_month *g, const mu_sc_gen_draw *d,
                              float *kernel_ms);
/* NULL is accepted. */
void mu_sc_gpu_destroy(mu_sc_gpu *ctx);

#ifdef __cplusplus
}
#endif
#endif
