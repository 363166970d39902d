/* CPU reference of the 2-D maximum submatrix: row prefix sums, Kadane per column
 * pair over tiles of pairs (the same tiles the GPU and the task farm use), and
 * the index recovery for the winning pair; and of the 1-D summary, which the
 * GPU paths, the tests and the benchmarks check theirs against. */
#ifndef MU_MAXSUB_STRIP2D_H
#define MU_MAXSUB_STRIP2D_H
#include <stdint.h>
#include "gpu/maxsub_monoid.h"

/* The summary of x[0 .. n), whose indices start at base, by one sequential scan. */
mu_mss_summary mu_mss_scan_array(const int32_t *x, int64_t n, int64_t base, int empty_allowed);

/* 1 when a and b are the same summary, field by field. */
int mu_mss_same(const mu_mss_summary *a, const mu_mss_summary *b);

/* Exclusive row prefix sums: V[i*(cols+1) + 0] = 0, V[i*(cols+1) + j+1] = V[..j] + k[i*cols + j].
 */
void mu_mss2d_prefix(const int32_t *k, int64_t rows, int64_t cols, int64_t *V);

/* Over the pairs of tiles [tile_begin, tile_end): the largest strip Kadane value
 * and the smallest pair id (mu_mss_pair_id) reaching it. Allowed mode: best >= 0,
 * pair_id = -1 when no strip has a positive sum. */
void mu_mss2d_cpu_tiles(const int64_t *V, int64_t rows, int64_t cols, int64_t tile_begin,
                        int64_t tile_end, int empty_allowed, int64_t *best, int64_t *pair_id);

/* Kadane with indices over strip (g, h) of the matrix k (rows x cols), under the
 * 1-D tie rule; O(rows * (h - g + 1)), so no prefix array is needed. */
void mu_mss2d_strip(const int32_t *k, int64_t rows, int64_t cols, int64_t g, int64_t h,
                    int empty_allowed, int64_t *sum, int64_t *row0, int64_t *row1);

/* The same from the strip's row sums c[0 .. rows). */
void mu_mss2d_best_rows(const int64_t *c, int64_t rows, int empty_allowed, int64_t *sum,
                        int64_t *row0, int64_t *row1);

/* Keeps (best, pair_id) as the better of itself and (b, id): larger value, then smaller id. */
static inline void mu_mss2d_keep(int64_t *best, int64_t *pair_id, int64_t b, int64_t id) {
    if (id < 0) return;
    if (*pair_id < 0 || b > *best || (b == *best && id < *pair_id)) {
        *best = b;
        *pair_id = id;
    }
}
#endif
