/* The maxsub command: 1-D maximum subarray, 2-D maximum submatrix, and the
 * hydrophobic-region application. Internal to workloads/maxsub. */
#ifndef MU_MAXSUB_H
#define MU_MAXSUB_H
#include <stdint.h>
#include "app.h"
#include "gpu/maxsub_monoid.h"
#include "core/philox_value.h"

int mu_maxsub_run_1d(mu_app *app);
int mu_maxsub_run_2d(mu_app *app);
int mu_maxsub_run_fasta(mu_app *app);

/* The solvers under the command and the library call (api/maxsub.c). */

/* This rank's shard x[0 .. hi-lo) = values [lo, hi) reduced to its summary, on
 * the rank's GPU when it has one. 0, or 1 with mu_error() (not collective). */
int mu_maxsub_reduce_shard(const mu_app *app, const int32_t *x, int64_t lo, int64_t hi,
                           int empty_allowed, mu_mss_summary *s);
/* Every rank's summary (shards in rank order) combined on rank 0 into *r. Collective. */
int mu_maxsub_combine_1d(const mu_app *app, const mu_mss_summary *mine, int empty_allowed,
                         mu_mss_summary *r);

/* Where the 2-D matrix comes from: every rank holds it (the library call),
 * rank 0 holds it (a text file: scattered block by block), or each rank
 * makes or reads its own block (Philox, the study's stream, a binary file). */
typedef enum {
    MU_MSS_SRC_ALL = 0,
    MU_MSS_SRC_ROOT,
    MU_MSS_SRC_PHILOX,
    MU_MSS_SRC_THESIS,
    MU_MSS_SRC_BIN
} mu_mss_src;

/* The 2-D input and its layout over the ranks. */
typedef struct {
    int32_t *k;         /* the input's orientation, row-major: SRC_ALL, SRC_ROOT (rank 0) */
    int64_t rows, cols; /* the input's orientation */
    mu_mss_src src;
    const char *path;    /* SRC_BIN */
    mu_philox_spec spec; /* SRC_PHILOX */
    int bands;           /* row bands of the rank grid; 0: automatic */
    double max_memory;   /* bytes a rank may use; 0: the node's available memory */
} mu_maxsub_matrix;

/* The maximum submatrix: rows [row0, row1] x columns [col0, col1] of the input's
 * orientation; empty (sum 0, indices -1) where nothing positive exists and the
 * empty one is allowed. */
typedef struct {
    int64_t rows, cols, sum, row0, row1, col0, col1;
    int empty;
} mu_maxsub_2d_answer;

/* Collective: the column-pair search over the rank grid (docs/maxsub.md;
 * chunk: the tiles of one band reduction, 0 auto). Takes m->k over (freed as
 * soon as the blocks are out, m->k set to NULL). *ans is set on rank 0. 0,
 * or 1 on every rank after an error. */
int mu_maxsub_solve_2d(const mu_app *app, mu_maxsub_matrix *m, int empty_allowed, int64_t chunk,
                       mu_maxsub_2d_answer *ans);

/* Rank 0: writes "header\nrow\n" to path (atomically) when path is set. */
int mu_maxsub_write_csv(const char *path, const char *header, const char *row);

/* The generator options shared by 1-D and 2-D: values [lo, hi) of the stream,
 * made by the rank's host threads (Philox; the study's stream is sequential). */
void mu_maxsub_generate(const mu_app *app, int64_t lo, int64_t hi, int32_t *out);
/* The Philox parameters of the options into spec; 1 when the input is Philox
 * data generated in the run (no --input or --fasta), which GPU ranks make on
 * their device. */
int mu_maxsub_philox(const mu_opts *o, mu_philox_spec *spec);

#endif
