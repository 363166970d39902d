/* The Fuzzy Minimals iteration on a device, as a C API (the fuzzy workload's
 * GPU path; the CPU reference is workloads/fuzzy/fm.c).
 *
 * One thread per start, the set tiled through shared memory (N-body style),
 * FP64, with the CPU's arithmetic in the CPU's order: no fused multiply-add,
 * IEEE division, the same lanes and summation blocks. So each start's
 * trajectory is bitwise the CPU's and ends after the same number of
 * iterations. A thread whose start has converged takes the next start of its
 * range (a counter per range), so the device stays busy until the last start.
 * Several ranges (the partitions of a rank) run in one launch, each over its
 * own rows, with many blocks per range. mu_gpu_fm_run_accept also accepts the
 * prototypes on the device (mu_fm_accept's rule, the same list in the same
 * order), so only the prototypes and the per-start statistics come back. */
#ifndef MU_GPU_FUZZY_GPU_H
#define MU_GPU_FUZZY_GPU_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Features above this run on the CPU (the per-thread state lives in registers). */
#define MU_GPU_FM_MAX_FEATURES 32
/* Threads that share a start's sums in the fast form. */
#define MU_GPU_FM_FAST_LANES 8
/* Summation blocks must be a multiple of this (the tile of rows in shared memory). */
#define MU_GPU_FM_TILE 256

typedef struct mu_gpu_fm mu_gpu_fm;

/* One range of work: starts row0 + first .. row0 + first + count - 1, each
 * summing over the rows [row0, row0 + rows) of the device copy. */
typedef struct {
    int64_t row0, rows;
    int64_t first, count;
} mu_gpu_fm_range;

/* Copies x (n x F, row-major) to the device bound to this process. */
int mu_gpu_fm_create(const double *x, int64_t n, int F, mu_gpu_fm **ctx);

/* Runs the ranges in one launch. r2 = r^2; a start stops when its squared step
 * is below eps1 or after max_it iterations; sum_block: rows per summation block
 * (a multiple of MU_GPU_FM_TILE, or <= 0 for one block per range). Outputs, in
 * range order then start order: v (F doubles per start), iterations, converged
 * (1 or 0). kernel_ms (may be NULL): the kernel's time. */
int mu_gpu_fm_run(mu_gpu_fm *ctx, const mu_gpu_fm_range *ranges, int nranges, double r2,
                  double eps1, int64_t max_it, int64_t sum_block, double *v, int64_t *iterations,
                  int *converged, float *kernel_ms);

/* mu_gpu_fm_run, then acceptance on the device, range by range, as
 * mu_fm_accept (workloads/fuzzy/fm.h) with eps2 over each range's end points in
 * start order: the same prototypes in the same order, to the bit. Outputs:
 * nproto[i] = the prototypes of range i; proto (room for F doubles per start)
 * and from (room for one per start: the start within its range that gave the
 * prototype) packed in range order; iterations and converged per start as
 * mu_gpu_fm_run. */
int mu_gpu_fm_run_accept(mu_gpu_fm *ctx, const mu_gpu_fm_range *ranges, int nranges, double r2,
                         double eps1, int64_t max_it, int64_t sum_block, double eps2, double *proto,
                         int64_t *from, int64_t *nproto, int64_t *iterations, int *converged,
                         float *kernel_ms);

/* The device acceptance alone over a given list of count end points (F as
 * the context's) and their converged flags: *m prototypes to proto and from,
 * as mu_fm_accept. For tests of the rule on chosen candidates. */
int mu_gpu_fm_accept(mu_gpu_fm *ctx, const double *v, const int *converged, int64_t count,
                     double eps2, double *proto, int64_t *from, int64_t *m);

/* fast != 0: the fast form from now on (workloads/fuzzy's --arith=fast; see
 * gpu/fuzzy_fast.h): fused multiply-adds, an approximate reciprocal refined
 * once, each range moved to its centre, each start over kLanes threads. Not
 * the CPU's bits; a start's trajectory still depends only on the data and the
 * device. sum_block is then ignored. 0: back to the bitwise form. */
int mu_gpu_fm_set_fast(mu_gpu_fm *ctx, int fast);

/* NULL is accepted. */
void mu_gpu_fm_destroy(mu_gpu_fm *ctx);

#ifdef __cplusplus
}
#endif
#endif
