/* The CG state of the cg benchmarks (bench_cg, bench_cg_ranks) on a backend:
 * the vectors, the iteration's scalars, and the start of the iterations. */
#ifndef MU_PERF_BENCH_CG_STATE_H
#define MU_PERF_BENCH_CG_STATE_H
#include <mpi.h>
#include <stdint.h>
#include "cg/kernels.h"
#include "cg/solve.h"

typedef struct {
    void *b, *x, *r, *p, *q;
    double rz, rr;
    int64_t k;
} bench_cg_state;

/* The five vectors on be: 0, or 1 when one of them could not be made. */
int bench_cg_state_new(cg_backend *be, bench_cg_state *s);
/* x = 0, r = b, p = r, rz = rr = r'r summed over comm (no preconditioner). */
void bench_cg_state_reset(cg_backend *be, bench_cg_state *s, MPI_Comm comm);
void bench_cg_state_free(cg_backend *be, bench_cg_state *s);
/* The solver (cg_solve_standard, no preconditioner) to rtol 1e-8, at most 5000
 * iterations, from s's b into s's x on app's ranks (the checkpoint file is
 * written only if a signal stops it): cg_solve_standard's 0 or 1, and after
 * 0 its result, its seconds (the slowest rank's) and ||x - 1|| / ||1||. */
int bench_cg_solve(mu_app *app, const cg_matrix *A, cg_backend *be, bench_cg_state *s,
                   const char *checkpoint, cg_result *res, double *seconds, double *err);

#endif
