/* mutirao's Conjugate Gradient as a library call: solve A x = b for a
 * symmetric positive definite A distributed over the ranks of a communicator
 * by contiguous blocks of rows, on each rank's GPU where it has one and on its
 * CPU otherwise. It is the solver of `mutirao cg` (standard CG, optional Jacobi
 * preconditioner, the same checks), so the iterations and the bits of x are the
 * same on any number of ranks. Link with -lmutirao (pkg-config mutirao, or
 * find_package(mutirao) and the target mutirao::mutirao). */
#ifndef MUTIRAO_CG_H
#define MUTIRAO_CG_H
#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double rtol;        /* stop at ||r|| <= max(rtol ||b||, atol) [1e-8] */
    double atol;        /* [0] */
    int64_t max_it;     /* iteration limit [10000] */
    int jacobi;         /* 1: Jacobi preconditioner (the diagonal must be positive) [0] */
    int fp32;           /* 1: the matrix and vectors in single precision [0] */
    const char *device; /* "auto" (GPU where present), "cpu" or "gpu" [auto] */
} mutirao_cg_options;

typedef struct {
    int converged;        /* 1: the tolerance was met; 0: max_it reached */
    int64_t iterations;   /* matrix-vector products of the loop */
    double residual;      /* the recursive ||r|| / ||b|| at the end */
    double true_residual; /* ||b - A x|| / ||b||, computed afresh */
    int gpu_ranks;        /* ranks that solved on a GPU */
} mutirao_cg_info;

/* The defaults above. */
void mutirao_cg_options_default(mutirao_cg_options *opt);

/* Collective over comm. This rank holds rows [row0, row0 + nloc) of the n x n
 * matrix, where row0 is the sum of nloc over the lower ranks: CSR with
 * rowptr[0 .. nloc] (any base: rowptr[0] is subtracted), 0-based global column
 * indices cols[] and values vals[] (a row's columns in any order, none twice);
 * b and x hold the same rows; x receives the solution (CG starts from 0). Returns 0 when the solve
 * ran (converged or not: see info), 1 after an error on any rank (a message
 * from mutirao_error_message(), the same on every rank's return value): bad
 * sizes or indices, a non-positive diagonal with Jacobi, a breakdown (A not
 * SPD), no GPU for device "gpu", out of memory. n is below 2^31. */
int mutirao_cg_solve(MPI_Comm comm, int64_t n, int64_t nloc, const int64_t *rowptr,
                     const int64_t *cols, const double *vals, const double *b, double *x,
                     const mutirao_cg_options *opt, mutirao_cg_info *info);

/* The last error of this rank ("" when none). */
const char *mutirao_error_message(void);

#ifdef __cplusplus
}
#endif
#endif
