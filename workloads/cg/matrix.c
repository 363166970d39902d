/* From global columns to a rank's working matrix: owned columns first, ghosts
 * after them in ascending global order, rows split into interior (no ghost
 * column) and boundary, the halo lists, the diagonal and a fingerprint. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "cg/cg.h"
#include "cg/search.h"
#include "core/error.h"
#include "core/free.h"

void cg_matrix_free(cg_matrix *A) {
    MU_FREE(A->bounds, A->rowptr, A->col, A->val, A->ghost, A->interior, A->boundary, A->diag,
            A->fingerprint);
    mu_halo_destroy(A->halo);
    memset(A, 0, sizeof *A);
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* SplitMix64's finaliser: a well-mixed 64-bit hash of one word. */
static uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Summed over entries (mod 2^64), so the same on any layout. */
static uint64_t entry_hash(int64_t row, int64_t col, double v) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return mix64(mix64((uint64_t)row * 0x9E3779B97F4A7C15ull + (uint64_t)col) ^ bits);
}

/* Row i's local columns (owned first, then ghosts by their place in the
 * ascending list of u ghosts) and its diagonal; 1 if it has a ghost column. */
static int renumber_row(const cg_block *b, cg_matrix *A, int64_t u, int64_t i) {
    int64_t row1 = b->row0 + b->nloc;
    int has_ghost = 0;
    for (int64_t p = b->rowptr[i]; p < b->rowptr[i + 1]; p++) {
        int64_t c = b->gcol[p];
        if (c >= b->row0 && c < row1) {
            A->col[p] = (int32_t)(c - b->row0);
            if (c == b->row0 + i) A->diag[i] += b->val[p];
            continue;
        }
        /* c is in the ghost list: its place among the first u - 1 */
        A->col[p] = (int32_t)(b->nloc + cg_lower_bound_i64(A->ghost, 0, u - 1, c));
        has_ghost = 1;
    }
    return has_ghost;
}

/* Is global column c outside the rows [row0, row1)? */
static int outside(int64_t c, int64_t row0, int64_t row1) {
    return c < row0 || c >= row1;
}

/* The ghost entries of rows [a, b) (global columns outside the block, with
 * repeats) into g, or only counted when g is NULL. */
static int64_t ghost_entries(const cg_block *b, int64_t a, int64_t e, int64_t *g) {
    int64_t row1 = b->row0 + b->nloc, count = 0;
    for (int64_t p = b->rowptr[a]; p < b->rowptr[e]; p++)
        if (outside(b->gcol[p], b->row0, row1)) {
            if (g) g[count] = b->gcol[p];
            count++;
        }
    return count;
}

/* Every ghost entry, gathered by the rank's threads over row chunks; *count
 * receives their number. */
static int64_t *gather_ghosts(const cg_block *b, int threads, int64_t *count) {
    int64_t *off = calloc((size_t)threads + 1, sizeof *off), *g = NULL;
    if (!off) return NULL;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int t = 0; t < threads; t++)
        off[t + 1] = ghost_entries(b, b->nloc * t / threads, b->nloc * (t + 1) / threads, NULL);
    for (int t = 0; t < threads; t++) off[t + 1] += off[t];
    *count = off[threads];
    g = malloc((size_t)(off[threads] ? off[threads] : 1) * sizeof *g);
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int t = 0; t < (g ? threads : 0); t++)
        ghost_entries(b, b->nloc * t / threads, b->nloc * (t + 1) / threads, g + off[t]);
    free(off);
    return g;
}

static int local_numbering(cg_block *b, cg_matrix *A, int threads) {
    int64_t nnz = b->rowptr[b->nloc], nghost = 0;
    int64_t *g = gather_ghosts(b, threads, &nghost);
    if (!g) return mu_error("out of memory for the ghost list");
    qsort(g, (size_t)nghost, sizeof *g, cmp_i64);
    int64_t u = 0;
    for (int64_t k = 0; k < nghost; k++)
        if (!u || g[k] != g[u - 1]) g[u++] = g[k];
    A->nghost = u;
    A->ghost = realloc(g, (size_t)(u ? u : 1) * sizeof *g);
    if (b->nloc + u > INT32_MAX)
        return mu_error("rank rows plus ghosts exceed 2^31 (%lld + %lld); use more ranks",
                        (long long)b->nloc, (long long)u);
    A->col = malloc((size_t)(nnz ? nnz : 1) * sizeof *A->col);
    A->diag = calloc((size_t)(b->nloc ? b->nloc : 1), sizeof *A->diag);
    A->interior = malloc((size_t)(b->nloc ? b->nloc : 1) * sizeof *A->interior);
    A->boundary = malloc((size_t)(b->nloc ? b->nloc : 1) * sizeof *A->boundary);
    if (!A->col || !A->diag || !A->interior || !A->boundary) return mu_error("out of memory");
    /* Rows are renumbered by the rank's threads; the lists keep row order. */
    unsigned char *ghosted = malloc((size_t)(b->nloc ? b->nloc : 1));
    if (!ghosted) return mu_error("out of memory");
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t i = 0; i < b->nloc; i++) ghosted[i] = renumber_row(b, A, u, i);
    for (int64_t i = 0; i < b->nloc; i++) {
        if (ghosted[i])
            A->boundary[A->nboundary++] = (int32_t)i;
        else
            A->interior[A->ninterior++] = (int32_t)i;
    }
    free(ghosted);
    return 0;
}

int cg_matrix_fingerprint_init(cg_matrix *A) {
    A->fingerprint = calloc(1, sizeof *A->fingerprint);
    return A->fingerprint ? 0 : mu_error("out of memory");
}

/* Rows [a, b)'s share of the fingerprint, from the local layout. */
static uint64_t rows_hash(const cg_matrix *A, int64_t a, int64_t b) {
    uint64_t h = 0;
    for (int64_t i = a; i < b; i++)
        for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
            int64_t c = A->col[p];
            c = c < A->nloc ? A->row0 + c : A->ghost[c - A->nloc];
            h += entry_hash(A->row0 + i, c, A->val[p]);
        }
    return h;
}

uint64_t cg_matrix_fingerprint(mu_app *app, const cg_matrix *A) {
    if (A->fingerprint && A->fingerprint->known) return A->fingerprint->value;
    char why[256];
    int threads = mu_threads_per_rank(&app->dev, 0, why, sizeof why);
    uint64_t h = 0, all = 0; /* a sum mod 2^64: the same in any order, so threads may share it */
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : h)
    for (int t = 0; t < threads; t++)
        h += rows_hash(A, A->nloc * t / threads, A->nloc * (t + 1) / threads);
    MPI_Allreduce(&h, &all, 1, MPI_UINT64_T, MPI_SUM, app->comm);
    all ^= mix64((uint64_t)A->n) ^ mix64((uint64_t)A->nnz + 1);
    if (A->fingerprint) {
        A->fingerprint->value = all;
        A->fingerprint->known = 1;
    }
    return all;
}

int cg_matrix_setup(mu_app *app, cg_block *b, cg_matrix *A) {
    memset(A, 0, sizeof *A);
    A->n = b->n;
    A->nnz = b->nnz;
    A->row0 = b->row0;
    A->nloc = b->nloc;
    A->nnz_loc = b->rowptr[b->nloc];
    int rc = b->nloc > INT32_MAX ? mu_error("rank %d holds over 2^31 rows", app->rank) : 0;
    char why[256];
    int threads = mu_threads_per_rank(&app->dev, 0, why, sizeof why);
    if (!rc) rc = local_numbering(b, A, threads);
    if (!rc) rc = cg_matrix_fingerprint_init(A);
    /* The block's arrays move over; only the global columns go. */
    A->bounds = b->bounds;
    A->rowptr = b->rowptr;
    A->val = b->val;
    free(b->gcol);
    memset(b, 0, sizeof *b);
    if (mu_error_collective(app->comm, rc)) {
        cg_matrix_free(A);
        return 1;
    }
    if (mu_halo_create(app->comm, A->bounds, A->ghost, A->nghost, &A->halo)) {
        cg_matrix_free(A);
        return 1;
    }
    return 0;
}

int cg_check_diagonal(mu_app *app, const cg_matrix *A) {
    int rc = 0;
    for (int64_t i = 0; i < A->nloc && !rc; i++)
        if (!(A->diag[i] > 0))
            rc = mu_error("row %lld has diagonal %g: --pc=jacobi needs a positive diagonal (the "
                          "matrix is not SPD)",
                          (long long)(A->row0 + i + 1), A->diag[i]);
    return mu_error_collective(app->comm, rc);
}
