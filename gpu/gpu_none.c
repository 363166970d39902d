/* The GPU API in a build without CUDA: no device is ever visible, and every
 * offload entry point fails with one message, so callers take their CPU path. */
#include <stddef.h>
#include <stdint.h>

#include "gpu/gpu.h"
#include "gpu/maxsub_gpu.h"
#include "gpu/pipeline.h"

static const char mu_gpu_no_cuda[] = "this build has no CUDA support";

int mu_gpu_built(void) {
    return 0;
}

const char *mu_gpu_versions(void) {
    return "none";
}

int mu_gpu_device_count(void) {
    return 0;
}

int mu_gpu_select(int ordinal, mu_gpu_info *info) {
    (void)ordinal;
    (void)info;
    return 1;
}

const char *mu_gpu_error(void) {
    return mu_gpu_no_cuda;
}

int mu_pipeline_run(const void *host, size_t count, size_t elem_size, int64_t offset,
                    const mu_pipeline_cfg *cfg, mu_chunk_launch launch, void *ctx) {
    (void)host;
    (void)count;
    (void)elem_size;
    (void)offset;
    (void)cfg;
    (void)launch;
    (void)ctx;
    return 1;
}

int mu_gpu_mss1d_host(const int32_t *host, int64_t n, int64_t base, int empty_allowed,
                      mu_mss_summary *out) {
    (void)host;
    (void)n;
    (void)base;
    (void)empty_allowed;
    (void)out;
    return 1;
}

int mu_gpu_mss1d_device(const int32_t *dev, int64_t n, int64_t base, int empty_allowed,
                        mu_mss_summary *out, float *kernel_ms) {
    (void)dev;
    (void)n;
    (void)base;
    (void)empty_allowed;
    (void)out;
    (void)kernel_ms;
    return 1;
}

int mu_gpu_mss2d_create(const int32_t *k, int64_t rows, int64_t cols, mu_gpu_mss2d **ctx) {
    (void)k;
    (void)rows;
    (void)cols;
    if (ctx) *ctx = NULL;
    return 1;
}

int mu_gpu_mss2d_run(mu_gpu_mss2d *ctx, int64_t tile_begin, int64_t tile_end, int empty_allowed,
                     int64_t *best, int64_t *pair_id) {
    (void)ctx;
    (void)tile_begin;
    (void)tile_end;
    (void)empty_allowed;
    (void)best;
    (void)pair_id;
    return 1;
}

int mu_gpu_mss2d_run_tiles(mu_gpu_mss2d *ctx, int64_t tile_begin, int64_t tile_end,
                           int empty_allowed, int64_t *results) {
    (void)ctx;
    (void)tile_begin;
    (void)tile_end;
    (void)empty_allowed;
    (void)results;
    return 1;
}

void mu_gpu_mss2d_destroy(mu_gpu_mss2d *ctx) {
    (void)ctx;
}
