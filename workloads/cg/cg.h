/* The cg command: distributed Conjugate Gradient. Internal to workloads/cg.
 *
 * The matrix lives in contiguous row blocks balanced by nonzeros. A rank's
 * columns are renumbered: its own rows first (0..nloc-1), then its ghosts
 * (nloc..) in ascending global order. Each row keeps its entries in ascending
 * global column order, and is always summed in that order, so a matrix-vector
 * product gives the same bits on any number of ranks; dot products go through
 * the exact accumulator (core/exactsum.h), so the whole iteration does too. */
#ifndef MU_CG_H
#define MU_CG_H
#include <stdint.h>
#include "app.h"
#include "mpi/halo.h"

/* This rank's rows with global columns, as read or generated. */
typedef struct {
    int64_t n, nnz;  /* global */
    int64_t *bounds; /* [size + 1] first row of every rank */
    int64_t row0, nloc;
    int64_t *rowptr; /* [nloc + 1], from 0 */
    int32_t *gcol;   /* global columns, ascending in each row */
    double *val;
} cg_block;

/* The matrix fingerprint, computed on first use (only checkpoints need it). */
typedef struct {
    int known;
    uint64_t value;
} cg_fingerprint;

/* This rank's rows ready to compute: local columns, ghosts and halo. */
typedef struct {
    int64_t n, nnz;  /* global */
    int64_t *bounds; /* [size + 1] */
    int64_t row0, nloc, nnz_loc;
    int64_t *rowptr; /* [nloc + 1] */
    int32_t *col;    /* local columns: owned 0..nloc-1, ghosts nloc.. */
    double *val;
    int64_t nghost;
    int64_t *ghost;    /* [nghost] global index of each ghost, ascending */
    int32_t *interior; /* rows with no ghost column: computed while the halo flies */
    int32_t *boundary; /* rows with a ghost column: computed after it lands */
    int64_t ninterior, nboundary;
    double *diag; /* [nloc] diagonal entries (0 where absent) */
    mu_halo *halo;
    cg_fingerprint *fingerprint; /* see cg_matrix_fingerprint */
} cg_matrix;

void cg_block_free(cg_block *b);
void cg_matrix_free(cg_matrix *A);

/* Collective: rank 0 reads the Matrix Market file and sends every rank its
 * rows (balanced by nonzeros); values are multiplied by scale. */
int cg_load_file(mu_app *app, const char *path, double scale, cg_block *blk);
/* Collective: each rank builds its rows of a Poisson operator (see poisson.h). */
int cg_load_poisson(mu_app *app, int stencil, int64_t nx, int64_t ny, int64_t nz, double scale,
                    cg_block *blk);
/* Collective: local numbering, ghosts, interior/boundary split, halo lists.
 * Takes the block's arrays (blk is emptied). */
int cg_matrix_setup(mu_app *app, cg_block *blk, cg_matrix *A);
/* Collective: each rank builds its rows of a Poisson operator straight into
 * the working layout, the same arrays as cg_load_poisson then cg_matrix_setup
 * (poisson_matrix.c). */
int cg_poisson_matrix(mu_app *app, int stencil, int64_t nx, int64_t ny, int64_t nz, double scale,
                      cg_matrix *A);
/* Collective: the order-free hash of (row, global column, value) over the
 * whole matrix, the same on any layout; computed on the first call (every
 * rank calls together), then kept. */
uint64_t cg_matrix_fingerprint(mu_app *app, const cg_matrix *A);
/* Allocation of A's cached fingerprint (setup); 1 after mu_error(). */
int cg_matrix_fingerprint_init(cg_matrix *A);
/* Collective: every diagonal entry positive (Jacobi; an SPD matrix has them). */
int cg_check_diagonal(mu_app *app, const cg_matrix *A);

#endif
