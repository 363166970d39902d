/* CUDA kernels of the maxsub workload, as a C API. */
#ifndef MU_MAXSUB_GPU_H
#define MU_MAXSUB_GPU_H
#include <stdint.h>
#include "maxsub_monoid.h"
#include "core/philox_value.h"

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

/* 1-D on Philox data made on the device: the summary of values [lo, hi) of
 * the sequence spec, generated and reduced in chunks without a host copy. */
int mu_gpu_mss1d_philox(mu_philox_spec spec, int64_t lo, int64_t hi, int empty_allowed,
                        mu_mss_summary *out);

/* Philox values into device memory dev (rows x cols, stream order on stream, NULL
 * the default): value base + t at t, or with transposed the matrix whose source
 * is the cols x rows matrix of values base + index. */
int mu_gpu_philox_fill(mu_philox_spec spec, int64_t base, int64_t rows, int64_t cols,
                       int transposed, int32_t *dev, void *stream);
/* The same into host memory (tests: the device's bits against the host's). */
int mu_gpu_philox_to_host(mu_philox_spec spec, int64_t base, int64_t rows, int64_t cols,
                          int transposed, int32_t *host);

/* 2-D: a rows x cols int32 matrix (row-major, already oriented so that the
 * column pairs are the pairs to enumerate) is copied to the device once and its
 * exclusive row prefix sums V (rows x (cols+1)) built there. */
typedef struct mu_gpu_mss2d mu_gpu_mss2d;
int mu_gpu_mss2d_create(const int32_t *k, int64_t rows, int64_t cols, mu_gpu_mss2d **ctx);
/* The same for Philox data made on the device (see mu_gpu_philox_fill): no host matrix. */
int mu_gpu_mss2d_create_philox(mu_philox_spec spec, int64_t rows, int64_t cols, int transposed,
                               mu_gpu_mss2d **ctx);
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
/* The row sums c[0 .. rows) of strip (g, h), from the prefix sums on the device. */
int mu_gpu_mss2d_strip_sums(const mu_gpu_mss2d *ctx, int64_t g, int64_t h, int64_t *c);
/* NULL is accepted. */
void mu_gpu_mss2d_destroy(mu_gpu_mss2d *ctx);

/* The distributed path: a context with three slots of row-prefix blocks (0:
 * the rank's own, 1 and 2: the ring's visitors, allocated on first use or by
 * mu_gpu_mss2d_reserve), each rows x (w + 1) global prefix columns lo .. lo + w
 * (row-major int64, w <= wmax), and B, the largest absolute row sum of the
 * whole rows (the int32 path is taken where B < 2^30 and the answer proves it
 * exact, as above). */
int mu_gpu_mss2d_open(int64_t rows, int64_t wmax, mu_gpu_mss2d **ctx);
/* Device memory for slots 0 .. nslots - 1 now (nslots <= 3). */
int mu_gpu_mss2d_reserve(mu_gpu_mss2d *ctx, int nslots);
/* Slot `slot` from host prefix columns V (synchronous). */
int mu_gpu_mss2d_load(mu_gpu_mss2d *ctx, int slot, const int64_t *V, int64_t lo, int64_t w,
                      int64_t B);
/* The own block (slot 0) made on the device, no host copy: value (i, j) of
 * its rows x w oriented block is value first + i si + j sj of the Philox
 * sequence spec (mu_philox_value, as the host's generator), its prefix
 * columns lo .. lo + w built there as local sums (the band's offsets not yet
 * added), and each row's total and absolute sum into host tot and abs
 * (rows values each): the host's mu_mss2d_prefix_rows, bit for bit. */
int mu_gpu_mss2d_make_philox(mu_gpu_mss2d *ctx, mu_philox_spec spec, int64_t first, int64_t si,
                             int64_t sj, int64_t lo, int64_t w, int64_t *tot, int64_t *abs);
/* The same from host values seg in the block's segment order (rows of w
 * values, or transposed columns of rows values), uploaded once. */
int mu_gpu_mss2d_make_values(mu_gpu_mss2d *ctx, const int32_t *seg, int transposed, int64_t lo,
                             int64_t w, int64_t *tot, int64_t *abs);
/* The made block ready: off[i] (host, rows values; NULL: none) added to row
 * i's prefix columns, and B taken. */
int mu_gpu_mss2d_finish(mu_gpu_mss2d *ctx, const int64_t *off, int64_t B);
/* Slot k's prefix columns into host V (rows x (w + 1)), or its prefix column
 * j (0 .. w) into out (rows values). */
int mu_gpu_mss2d_fetch(const mu_gpu_mss2d *ctx, int k, int64_t *V);
int mu_gpu_mss2d_column(const mu_gpu_mss2d *ctx, int k, int64_t j, int64_t *out);
/* A visitor block V (host, page-locked for a true overlap) into slot k (1 or
 * 2) on the context's copy stream, beside the kernels of the other slots;
 * V must stay untouched and slot k unused until mu_gpu_mss2d_upload_wait. B
 * is the own block's (one band, one bound). */
int mu_gpu_mss2d_upload(mu_gpu_mss2d *ctx, int k, const int64_t *V, int64_t lo, int64_t w);
int mu_gpu_mss2d_upload_wait(mu_gpu_mss2d *ctx);
/* Over the tiles [t0, t1) of the pairs g in slot sg's block, h in slot sh's
 * (diag: the same block, g <= h; tiles as mu_mss2d_block_tile numbers them):
 * the largest value and the smallest global pair id over cols columns, the
 * conventions of mu_gpu_mss2d_run. The one-band fast path. */
int mu_gpu_mss2d_block_best(mu_gpu_mss2d *ctx, int sg, int sh, int64_t cols, int diag, int64_t t0,
                            int64_t t1, int empty_allowed, int64_t *best, int64_t *pair_id);
/* The same tiles' summaries over the rows (int64), MU_MSS_TILE^2 a tile into
 * host memory out in the layout of the CPU's mu_mss2d_block_sums (pairs
 * outside the blocks or below the diagonal: zero). For more than one band. */
int mu_gpu_mss2d_block_sums(mu_gpu_mss2d *ctx, int sg, int sh, int diag, int64_t t0, int64_t t1,
                            int empty_allowed, mu_mss2d_sum *out);

#ifdef __cplusplus
}
#endif
#endif
