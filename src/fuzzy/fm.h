/* The Fuzzy Minimals fixed-point iteration (Algorithm 4, lines 3-9; Eq. 3.12)
 * from a range of starting objects, and the acceptance of its end points.
 *
 * This is the seam for the GPU: a gpu/fuzzy_gpu.h C API replaces
 * mu_fm_run_cpu() with functions of the same contract, the set copied to the
 * device once and then one call per range of starts, e.g.
 *     int mu_gpu_fm_create(const mu_fm_set *set, mu_gpu_fm **ctx);
 *     int mu_gpu_fm_run(mu_gpu_fm *ctx, int64_t first, int64_t count, double *v,
 *                       mu_fm_stat *stat);
 *     void mu_gpu_fm_destroy(mu_gpu_fm *ctx);
 * and fm_starts() in run.c (the only caller) picks it on ranks bound to a
 * device. Everything else (r, acceptance, merge, memberships) stays on the
 * host. The CPU loop sums each start's trajectory in a fixed order (two lanes
 * in 2-D, one otherwise); a device may sum in another order and then agrees
 * to about 1e-12 relative (report 8.1 item 9). */
#ifndef MU_FUZZY_FM_H
#define MU_FUZZY_FM_H
#include <stdint.h>

/* The set the sums run over (a partition, or the whole data set) and the
 * iteration's parameters. Starts are the set's own objects: start k = row k. */
typedef struct {
    const double *x; /* n x F, row-major */
    int64_t n;
    int F;
    double r2;      /* r^2 */
    double eps1;    /* stop when the squared displacement of v falls below this */
    int64_t max_it; /* iteration cap */
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

/* Acceptance (Algorithm 4, lines 10-12) in start order: a converged end point
 * is a new prototype when its squared distance to every prototype already
 * accepted exceeds eps2. v: count x F end points; proto receives the accepted
 * ones (room for count x F); from[j] = the start that gave prototype j (may be
 * NULL). Returns the number accepted. */
int64_t mu_fm_accept(const double *v, const mu_fm_stat *stat, int64_t count, int F, double eps2,
                     double *proto, int64_t *from);

#endif
