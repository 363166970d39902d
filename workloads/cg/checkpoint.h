/* Solver checkpoints: one file holding the iteration number and three vectors
 * in global row order (as doubles, so float vectors round-trip exactly), with a
 * fingerprint of the matrix and of the options that shape the iterates, so a
 * restart on a different problem is refused. Each rank writes and reads its
 * own rows at their offset (MPI-IO), so a restart may use another rank count.
 * The file is written under PATH.tmp and renamed when complete. */
#ifndef MU_CG_CHECKPOINT_H
#define MU_CG_CHECKPOINT_H
#include <stdint.h>
#include "cg/cg.h"
#include "cg/kernels.h"

enum { CG_CKPT_VECTORS = 3, CG_CKPT_TEXT = 448 };

typedef struct {
    int64_t n, nnz;
    uint64_t matrix_hash, options_hash;
    char options[CG_CKPT_TEXT]; /* the options behind options_hash, for messages */
    int64_t iteration;
} cg_ckpt;

/* Collective. The matrix fingerprint comes from A (cg_matrix_fingerprint),
 * not from meta->matrix_hash. */
int cg_checkpoint_write(mu_app *app, const char *path, const cg_ckpt *meta, const cg_matrix *A,
                        cg_backend *b, void *const vecs[CG_CKPT_VECTORS]);
/* Collective: checks the file against want (n, nnz, options hash; the matrix
 * fingerprint, set into want, from A), reads the vectors and sets
 * want->iteration. */
int cg_checkpoint_read(mu_app *app, const char *path, cg_ckpt *want, const cg_matrix *A,
                       cg_backend *b, void *vecs[CG_CKPT_VECTORS]);

#endif
