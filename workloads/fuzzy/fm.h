/* The Fuzzy Minimals fixed-point iteration (Algorithm 4, lines 3-9; Eq. 3.12)
 * from a range of starting objects, and the acceptance of its end points.
 *
 * The CPU loop here is the reference; gpu/fuzzy_gpu.h runs the same iteration
 * on a device (one thread per start) with the same arithmetic in the same
 * order, so both give the same bits and the same iteration counts; run_starts.c's
 * fz_fm_starts() picks it on ranks bound to a device.
 *
 * The order of the sums. The set is cut into summation blocks of sum_block
 * rows (all of it when sum_block <= 0 or >= n). Within a block the weighted
 * sums run in object order over two lanes in 2-D (even and odd objects: two
 * independent chains) or one lane otherwise, and the lanes are added at the
 * block's end; the block sums are then added in block order. With one block
 * that is plain lane order. The blocks let a ring of ranks (ring.c), each
 * holding some blocks, give exactly the replicated answer. */
#ifndef MU_FUZZY_FM_H
#define MU_FUZZY_FM_H
#include <stdint.h>

/* The set the sums run over (a partition, or the whole data set) and the
 * iteration's parameters. Starts are the set's own objects: start k = row k. */
typedef struct {
    const double *x; /* n x F, row-major */
    int64_t n;
    int F;
    double r2;         /* r^2 */
    double eps1;       /* stop when the squared displacement of v falls below this */
    int64_t max_it;    /* iteration cap */
    int64_t sum_block; /* rows per summation block (even); <= 0: one block */
} mu_fm_set;

/* One start's outcome. */
typedef struct {
    int64_t iterations; /* iterations run (>= 1) */
    int converged;      /* 1 when the last squared displacement was < eps1 */
} mu_fm_stat;

/* For each start k in [first, first + count): v = x_k, then
 *   v <- sum_x mu^2 x / sum_x mu^2,  mu = 1/(1 + r^2 |x - v|^2),
 * until |v_t - v_t-1|^2 < eps1 or max_it iterations. Writes the end point to
 * v[(k - first) * F ...] and its statistics to stat[k - first]. Returns 0, or 1
 * after mu_error(). */
int mu_fm_run_cpu(const mu_fm_set *set, int64_t first, int64_t count, double *v, mu_fm_stat *stat);

/* The pieces of one step, for the ring: the sums of rows [0, rows) of x (which
 * starts on a summation block boundary) from the point c, one record of F + 1
 * doubles (sum mu^2, then sum mu^2 x_f) per summation block of `block` rows
 * (<= 0: one block), written to part. Returns the number of blocks. */
int64_t mu_fm_partials(const double *x, int64_t rows, int F, double r2, int64_t block,
                       const double *c, double *part);
/* Adds nb block records in block order and divides: out = the next point.
 * acc: room for F + 1 doubles. */
void mu_fm_combine(const double *part, int64_t nb, int F, double *acc, double *out);

/* Acceptance (Algorithm 4, lines 10-12) in start order: a converged end point
 * is a new prototype when its squared distance to every prototype already
 * accepted exceeds eps2. v: count x F end points; proto receives the accepted
 * ones (room for count x F); from[j] = the start that gave prototype j (may be
 * NULL). Returns the number accepted. */
int64_t mu_fm_accept(const double *v, const mu_fm_stat *stat, int64_t count, int F, double eps2,
                     double *proto, int64_t *from);

#endif
