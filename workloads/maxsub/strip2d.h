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

/* One column block of the oriented row-prefix table, as a rank holds it:
 * prefix columns lo .. lo + w inclusive of its rows, row-major with row
 * stride w + 1. The values are the global prefix sums V[i][lo + j], so a strip
 * (g, h) with g in one block and h in another is V_H[i][h+1] - V_G[i][g]. */
typedef struct {
    const int64_t *V;
    int64_t lo, w;
} mu_mss2d_block;

/* The tiles of pairs (g, h), g in block G, h in block H: the upper triangle of
 * T x T tiles over G when diag (G is H: g <= h), else all tiles of the
 * rectangle, row-major (tile id -> (tg, th)). */
int64_t mu_mss2d_block_tile_count(int64_t wG, int64_t wH, int diag);
void mu_mss2d_block_tile(int64_t wG, int64_t wH, int diag, int64_t id, int64_t *tg, int64_t *th);

/* Over the tiles [t0, t1) of the block pair (G, H) and rows [0, rows): the
 * largest strip Kadane value and the smallest global pair id (over cols
 * columns) reaching it; the conventions of mu_mss2d_cpu_tiles. */
void mu_mss2d_block_best(const mu_mss2d_block *G, const mu_mss2d_block *H, int64_t rows,
                         int64_t cols, int diag, int64_t t0, int64_t t1, int empty_allowed,
                         int64_t *best, int64_t *pair_id);

/* Summaries of every pair of the tiles [t0, t1) over rows [0, rows): out
 * holds MU_MSS_TILE^2 summaries a tile (pair (a, b) of tile t at
 * ((t - t0) * T + a) * T + b); pairs outside the blocks or below the diagonal
 * are zero. */
void mu_mss2d_block_sums(const mu_mss2d_block *G, const mu_mss2d_block *H, int64_t rows, int diag,
                         int64_t t0, int64_t t1, int empty_allowed, mu_mss2d_sum *out);

/* The best pair of summaries laid out as mu_mss2d_block_sums writes them
 * (the whole column's, combined over the bands), kept into *best, *pair_id
 * (mu_mss2d_keep; allowed mode counts only positive values). */
void mu_mss2d_sums_keep(const mu_mss2d_sum *s, int64_t wG, int64_t wH, int64_t loG, int64_t loH,
                        int64_t cols, int diag, int64_t t0, int64_t t1, int empty_allowed,
                        int64_t *best, int64_t *pair_id);

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
