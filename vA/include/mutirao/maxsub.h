/* mutirao's maximum subarray and maximum submatrix as library calls: the
 * solvers of `mutirao maxsub --dim=1` and `--dim=2` on the caller's integers,
 * on each rank's GPU where it has one and on its CPU otherwise. Sums are
 * exact (64-bit), and the answer (sum and indices, with the command's tie
 * rule) is the same on any number of ranks. Link with -lmutirao (pkg-config
 * mutirao, or find_package(mutirao) and the target mutirao::mutirao). */
#ifndef MUTIRAO_MAXSUB_H
#define MUTIRAO_MAXSUB_H
#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int empty_allowed;  /* 1: the empty subarray (sum 0) counts, as in the study; 0: at
                           least one element [1] (--empty=allowed|forbidden) */
    int64_t farm_chunk; /* 2-D: smallest tile range the task farm hands out, 0: auto [0] */
    const char *device; /* "auto" (GPU where present), "cpu" or "gpu" [auto] */
} mutirao_maxsub_options;

typedef struct {
    int64_t n;          /* the array's length (sum of nloc) */
    int64_t sum;        /* the largest sum */
    int64_t start, end; /* its elements, 0-based global indices, inclusive; -1 when empty */
    int empty;          /* 1: the empty subarray (no positive sum, empty allowed) */
    int gpu_ranks;      /* ranks that reduced their shard on a GPU */
} mutirao_maxsub_1d_result;

typedef struct {
    int64_t sum;        /* the largest sum */
    int64_t row0, row1; /* its rows, 0-based, inclusive; -1 when empty */
    int64_t col0, col1; /* its columns */
    int empty;          /* 1: the empty submatrix (no positive sum, empty allowed) */
    int gpu_ranks;      /* ranks that searched column pairs on a GPU */
} mutirao_maxsub_2d_result;

/* The defaults above. */
void mutirao_maxsub_options_default(mutirao_maxsub_options *opt);

/* Collective over comm: the maximum subarray of the array whose elements
 * [lo, lo + nloc) this rank holds in x, lo being the sum of nloc over the lower
 * ranks (a rank may hold none). Every rank gets the result. Returns 0, or 1
 * after an error on any rank (message from mutirao_error_message()): an empty
 * array, a NULL x with nloc > 0, no GPU for device "gpu". */
int mutirao_maxsub_1d(MPI_Comm comm, int64_t nloc, const int32_t *x,
                      const mutirao_maxsub_options *opt, mutirao_maxsub_1d_result *res);

/* Collective over comm: the maximum submatrix of the rows x cols matrix a
 * (row-major), read on rank 0 only (other ranks may pass NULL; every rank
 * passes the same rows and cols). Column pairs (or row pairs, whichever
 * dimension is smaller) are shared out by a task farm. Every rank gets the
 * result. Returns 0, or 1 after an error on any rank: sizes below 1 or that
 * differ between ranks, a NULL matrix on rank 0, out of memory. */
int mutirao_maxsub_2d(MPI_Comm comm, int64_t rows, int64_t cols, const int32_t *a,
                      const mutirao_maxsub_options *opt, mutirao_maxsub_2d_result *res);

#ifdef __cplusplus
}
#endif
#endif
