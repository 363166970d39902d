/* The CG iterations. Both variants stop on every rank at the same iteration
 * for the same reason: every decision is taken from exactly reduced values. */
#ifndef MU_CG_SOLVE_H
#define MU_CG_SOLVE_H
#include "cg/checkpoint.h"
#include "cg/kernels.h"

typedef enum { CG_STANDARD = 0, CG_THESIS = 1 } cg_variant;

typedef struct {
    cg_variant variant;
    int jacobi;
    double rtol, atol; /* standard: ||r|| <= max(rtol ||b||, atol); thesis: ||r|| < atol */
    int64_t max_it;
    int64_t replace_every; /* r = b - A x every k iterations (0: never) */
    const char *checkpoint;
    int64_t checkpoint_every; /* 0: only on a signal */
    int restart;
    cg_ckpt meta; /* fingerprints for the checkpoint */
} cg_config;

typedef enum {
    CG_CONVERGED = 0,
    CG_MAX_IT = 1,    /* not converged within max_it */
    CG_SIGNALLED = 2, /* stopped by SIGTERM/SIGUSR1 after writing a checkpoint */
} cg_outcome;

typedef struct {
    cg_outcome outcome;
    int64_t iterations;       /* matrix-vector products of the loop, restarts included */
    int64_t first_iteration;  /* where this run started (restart) */
    double rnorm, bnorm, tol; /* final recursive residual norm, ||b||, the threshold */
    int signal;               /* the signal, when this rank saw it (else 0) */
    int64_t checkpoints;      /* written by this run */
    /* The iterations' own time: the loop's, less the checkpoints written and
     * the backend's one-off set-up inside it (cg_backend.setup_seconds); 0
     * where the variant does not measure it. */
    double loop_seconds;
    double checkpoint_seconds;
} cg_result;

/* Collective. b is the right-hand side, x receives the solution (both backend
 * vectors). Returns 0 (see res->outcome) or 1 after mu_error() on every rank
 * (breakdown, I/O). */
int cg_solve_standard(mu_app *app, const cg_config *cfg, const cg_matrix *A, cg_backend *be,
                      void *b, void *x, cg_result *res);
int cg_solve_thesis(mu_app *app, const cg_config *cfg, const cg_matrix *A, cg_backend *be, void *b,
                    void *x, cg_result *res);

/* Full y = A x: halo started, interior rows while it flies, halo finished,
 * boundary rows. xy += x_i y_i (NULL: skip). x needs ghost slots. */
void cg_spmv(cg_backend *be, void *x, void *y, mu_xsum *xy);

/* Helpers shared by the variants (solve_util.c). */
typedef struct {
    mu_xsum acc[3];
    int64_t flag; /* stop requests, folded into the same reduction */
} cg_reduction;
/* Sums n accumulators and this rank's pending-signal flag over all ranks, in
 * one MPI_Allreduce; returns the number of ranks that saw a signal. */
int64_t cg_reduce(MPI_Comm comm, cg_reduction *red, int n);
/* A reduced dot product as a double; a NaN or Inf is reported by name. */
int cg_value(const mu_xsum *s, double *v, const char *what, int64_t it);
/* Writes the checkpoint for iteration it (counted). */
int cg_save(mu_app *app, const cg_config *cfg, const cg_matrix *A, cg_backend *be, int64_t it,
            void *v0, void *v1, void *v2, cg_result *res);
/* Progress lines: iterations with rate and an ETA from the residual decay. */
typedef struct cg_progress cg_progress;
cg_progress *cg_progress_begin(int64_t first, int64_t max_it, double r0, double tol);
void cg_progress_update(cg_progress *p, int64_t it, double rnorm, double bnorm);
void cg_progress_end(cg_progress *p, int64_t it);

#endif
