/* Matrix Market reader (coordinate; real, integer or pattern; general or
 * symmetric), through zlib so .mtx.gz files are read directly (plain files too).
 * The whole matrix is read by one process (rank 0) into a CSR with both
 * triangles, each row's columns ascending and duplicate entries summed in file
 * order, so every later step sees one canonical matrix whatever the layout. */
#ifndef MU_CG_MMIO_H
#define MU_CG_MMIO_H
#include <stdint.h>

typedef struct {
    int64_t n, nnz;     /* square n x n; nnz with both triangles */
    int64_t *rowptr;    /* [n + 1] */
    int32_t *col;       /* [nnz] 0-based, ascending in each row */
    double *val;        /* [nnz] */
    int symmetric;      /* the file declared 'symmetric' (lower triangle stored) */
    char field[16];     /* real, integer or pattern */
    int64_t entries;    /* entry lines in the file */
    int64_t duplicates; /* entries merged into an earlier one (summed) */
    int64_t duplicate_row, duplicate_col; /* the first such (0-based) */
} cg_mm;

/* Returns 0, or 1 with mu_error("path:line: problem"). On failure m holds nothing. */
int cg_mm_read(const char *path, cg_mm *m);
/* The same, the entry lines parsed by up to `threads` threads (the same
 * entries, values and messages). */
int cg_mm_read_threads(const char *path, int threads, cg_mm *m);
/* The line-by-line reader alone: the reference the block reader falls back
 * on, for the tests that compare the two. */
int cg_mm_read_lines(const char *path, cg_mm *m);
void cg_mm_free(cg_mm *m);

/* Entries (i, j) whose mirror (j, i) is missing or has another value: the
 * count, and the first such pair (0-based). For files declared 'general'. */
int64_t cg_mm_asymmetry(const cg_mm *m, int64_t *row, int64_t *col);

#endif
