/* A rank's block of the distributed 2-D problem: its values loaded from the
 * source (made, read at its offsets, or scattered from rank 0) and its part of
 * the row-prefix table. Internal to workloads/maxsub. */
#ifndef MU_MAXSUB_BLOCK2D_H
#define MU_MAXSUB_BLOCK2D_H
#include <stdint.h>
#include "app.h"
#include "maxsub/grid2d.h"
#include "maxsub/maxsub.h"

/* The block's values in segment order: without transposing, nr segments (its
 * rows) of w values; transposed, w segments (its columns) of nr values, each
 * a contiguous range of the input. */
typedef struct {
    int64_t first, stride, count, len;
} mu_mss2d_segs;

mu_mss2d_segs mu_mss2d_segments(const mu_mss2d_grid *g, int transposed, int64_t i0, int64_t nr,
                                int64_t lo, int64_t w);

/* This rank's block into seg (count x len values; NULL outside the grid, or
 * where the block is made elsewhere: a GPU making Philox values). Collective: with SRC_ROOT, rank 0
 * sends every rank its block. 0, or 1 on every rank after an error. */
int mu_mss2d_load(const mu_app *app, const mu_maxsub_matrix *m, const mu_mss2d_grid *g,
                  int transposed, int32_t *seg);

/* The block's prefix columns from its values seg (nr x (w + 1), global
 * prefix sums: the block totals of the band's earlier blocks added by an
 * exclusive scan over the band) and *B, the largest absolute row sum of the
 * band's rows; scratch: 4 nr values. Collective over the band. */
/* The row pass of the block's prefix columns (no communication): V (nr x
 * (w + 1), local sums: the band's offsets not added), each row's total tot
 * and absolute sum abs. The device builds the same (mu_gpu_mss2d_make_*). */
void mu_mss2d_prefix_rows(const int32_t *seg, int64_t nr, int64_t w, int transposed, int64_t *V,
                          int64_t *tot, int64_t *abs);

/* The band pass, scratch as mu_mss2d_prefix_block's (row totals at 0, the
 * absolute sums at 2 nr): the rows' offsets (the band's earlier blocks'
 * totals, an exclusive scan) into scratch + nr and *B. Returns 1 when the
 * offsets are to be added (not the band's first block). Collective over the band. */
int mu_mss2d_band_scan(const mu_mss2d_grid *g, int64_t *scratch, int64_t *B);

void mu_mss2d_prefix_block(const mu_mss2d_grid *g, const int32_t *seg, int transposed, int64_t *V,
                           int64_t *scratch, int64_t *B);

#endif
