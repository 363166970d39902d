/* The problem's vectors around the solve: the right-hand side, the checks of
 * the answer, and the solution file. All collective. */
#ifndef MU_CG_VECTORS_H
#define MU_CG_VECTORS_H
#include "cg/kernels.h"

typedef enum { CG_RHS_ONES = 0, CG_RHS_AONES = 1, CG_RHS_RANDOM = 2 } cg_rhs;

/* b = 1, b = A 1 (so x = 1 solves it), or uniform in (-1, 1) from Philox keyed
 * by (seed, global row). scratch: a vector of the backend free for now (e.g.
 * the solution's, which the solver sets before use), or NULL: one is made. */
int cg_make_rhs(mu_app *app, const cg_matrix *A, cg_backend *be, cg_rhs kind, uint64_t seed,
                void *b, void *scratch);
/* ||b - A x||, recomputed (x needs ghost slots). */
double cg_true_residual(mu_app *app, cg_backend *be, void *b, void *x);
/* ||x - 1|| / ||1||, for b = A 1. */
double cg_error_vs_ones(mu_app *app, const cg_matrix *A, cg_backend *be, const void *x);
/* Both checks with one scratch vector, the same values: ||b - A x|| into
 * true_res and, unless error is NULL, ||x - 1|| / ||1|| (one SpMV and a few
 * vector passes on the backend; float vectors add x copied to the host). */
void cg_check(mu_app *app, const cg_matrix *A, cg_backend *be, void *b, void *x, double *true_res,
              double *error);
/* The solution, one value per line (%.17g) in global row order; a .csv name
 * gets the header line "x". Rank 0 writes it, atomically. */
int cg_write_solution(mu_app *app, const cg_matrix *A, cg_backend *be, const void *x,
                      const char *path);

/* Collective: the diagonal checked for Jacobi, the backend of this rank's device
 * (GPU or CPU) and two zeroed vectors b and x; 0, or 1 on every rank. */
int cg_backend_open(mu_app *app, const cg_matrix *A, int fp32, int jacobi, cg_backend **be,
                    void **b, void **x);
/* Frees what cg_backend_open made (be may be NULL). */
void cg_backend_close(cg_backend *be, void *b, void *x);

#endif
