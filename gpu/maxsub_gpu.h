/* CUDA kernels of the maxsub workload, as a C API. */
#ifndef MU_MAXSUB_GPU_H
#define MU_MAXSUB_GPU_H
#include <stdint.h>
#include "maxsub_monoid.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1-D: summary of host[0..n), whose first value has global index base.
 * Streams the data through the pipeline (pinned staging, >= 2 streams). */
int mu_gpu_mss1d_host(const int32_t *host, int64_t n, int64_t base, int empty_allowed,
                      mu_mss_summary *out);

/* 1-D on data already resident on the device (benchmarks). kernel_ms may be NULL. */
int mu_gpu_mss1d_device(const int32_t *dev, int64_t n, int64_t base, int empty_allowed,
                        mu_mss_summary *out, float *kernel_ms);

/* 2-D: a rows x cols int32 matrix (row-major, already oriented so that the
 * column pairs are the pairs to enumerate) is copied to the device once and its
 * exclusive row prefix sums V (rows x (cols+1)) built there. */
typedef struct mu_gpu_mss2d mu_gpu_mss2d;
int mu_gpu_mss2d_create(const int32_t *k, int64_t rows, int64_t cols, mu_gpu_mss2d **ctx);
/* Best strip over the tiles [tile_begin, tile_end) (see maxsub_monoid.h): the
 * largest Kadane value over the pairs, and the smallest pair id reaching it
 * (mu_mss_pair_id). Allowed mode: best >= 0 (0 with pair_id -1 when no positive
 * strip). Exact in int64; a faster int32 path is used where it is proven exact. */
int mu_gpu_mss2d_run(mu_gpu_mss2d *ctx, int64_t tile_begin, int64_t tile_end, int empty_allowed,
                     int64_t *best, int64_t *pair_id);
/* The same per tile: results[2t] = best and results[2t+1] = pair id of tile
 * tile_begin + t (pair id -1 when, in allowed mode, the tile has no positive strip).
 * One launch for the whole range; this is what the task farm calls. */
int mu_gpu_mss2d_run_tiles(mu_gpu_mss2d *ctx, int64_t tile_begin, int64_t tile_end,
                           int empty_allowed, int64_t *results);
/* NULL is accepted. */
void mu_gpu_mss2d_destroy(mu_gpu_mss2d *ctx);

#ifdef __cplusplus
}
#endif
#endif
