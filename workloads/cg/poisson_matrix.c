/* A rank's rows of a generated Poisson operator built straight into the
 * working layout (cg_matrix): local columns, values, diagonal, ghosts,
 * interior and boundary rows, with no global-column copy, no sort and no
 * search. The arrays are the same, bit for bit, as cg_load_poisson followed
 * by cg_matrix_setup give (tests/test_cg_mpi.c compares them).
 *
 * A row couples only to rows within `reach` of it (the largest stencil
 * offset), so only the rows within reach of the block's ends can have ghost
 * columns, and every ghost lies in the window of `reach` rows below or above
 * the block: a scan of those edge rows marks the ghosts in two small maps
 * (window slot -> local column) and lists the boundary rows. The rows are then
 * filled by the rank's threads in contiguous chunks, each from its own offset
 * (a count per chunk first), so each thread first touches the pages it fills. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cg/cg.h"
#include "cg/poisson.h"
#include "cg/search.h"
#include "core/error.h"
#include "core/memory.h"

typedef struct {
    cg_grid g;
    int64_t row0, row1, nloc;
    int64_t lo_base, lo_len, hi_len; /* windows [lo_base, row0) and [row1, row1 + hi_len) */
    int32_t *lo_map, *hi_map;        /* local column of each window slot that is a ghost */
    double off, diag;                /* the values times --scale */
    int chunks;                      /* the rank's threads, one contiguous chunk each */
} pm_ctx;

static int64_t reach_of(const cg_grid *g) {
    int64_t sy = g->nx, sz = g->nx * g->ny;
    return g->stencil == CG_POISSON_2D5 ? sy : g->stencil == CG_POISSON_3D7 ? sz : sz + sy + 1;
}

static int64_t chunk_start(const pm_ctx *c, int t) {
    return c->nloc * t / c->chunks;
}

static int32_t local_col(const pm_ctx *c, int64_t col) {
    if (col >= c->row0 && col < c->row1) return (int32_t)(col - c->row0);
    return col < c->row0 ? c->lo_map[col - c->lo_base] : c->hi_map[col - c->row1];
}

/* Edge rows [a, b) (local): their outside columns marked in the maps (1), and
 * those with one appended to the boundary list. */
static void scan_rows(pm_ctx *c, int64_t a, int64_t b, cg_matrix *A) {
    int64_t cols[CG_POISSON_MAX_ROW];
    double vals[CG_POISSON_MAX_ROW];
    cg_point p = cg_poisson_point(&c->g, c->row0 + a);
    for (int64_t i = a; i < b; i++, cg_poisson_step(&c->g, &p)) {
        int n = cg_poisson_row_at(&c->g, &p, c->off, c->diag, cols, vals), ghost = 0;
        for (int m = 0; m < n; m++) {
            if (cols[m] < c->row0) c->lo_map[cols[m] - c->lo_base] = 1, ghost = 1;
            if (cols[m] >= c->row1) c->hi_map[cols[m] - c->row1] = 1, ghost = 1;
        }
        if (ghost) A->boundary[A->nboundary++] = (int32_t)i;
    }
}

/* Marked window slots become ghosts nloc, nloc + 1, ... in ascending global order. */
static void number_ghosts(pm_ctx *c, cg_matrix *A) {
    for (int64_t s = 0; s < c->lo_len; s++)
        if (c->lo_map[s]) {
            A->ghost[A->nghost] = c->lo_base + s;
            c->lo_map[s] = (int32_t)(c->nloc + A->nghost++);
        }
    for (int64_t s = 0; s < c->hi_len; s++)
        if (c->hi_map[s]) {
            A->ghost[A->nghost] = c->row1 + s;
            c->hi_map[s] = (int32_t)(c->nloc + A->nghost++);
        }
}

/* Ghosts and boundary rows from the edge rows (ranges merged where they meet). */
static int edges(pm_ctx *c, cg_matrix *A) {
    int64_t reach = reach_of(&c->g), n = cg_poisson_rows(&c->g);
    c->lo_base = c->row0 > reach ? c->row0 - reach : 0;
    c->lo_len = c->row0 - c->lo_base;
    c->hi_len = (n - c->row1 < reach ? n - c->row1 : reach);
    int64_t lo_end = c->lo_len ? (c->nloc < reach ? c->nloc : reach) : 0;
    int64_t hi_first = c->hi_len ? (c->nloc > reach ? c->nloc - reach : 0) : c->nloc;
    if (hi_first < lo_end) hi_first = lo_end;
    int64_t most = lo_end + (c->nloc - hi_first);
    c->lo_map = calloc((size_t)(c->lo_len ? c->lo_len : 1), sizeof *c->lo_map);
    c->hi_map = calloc((size_t)(c->hi_len ? c->hi_len : 1), sizeof *c->hi_map);
    A->boundary = malloc((size_t)(most ? most : 1) * sizeof *A->boundary);
    A->ghost =
        malloc((size_t)(c->lo_len + c->hi_len ? c->lo_len + c->hi_len : 1) * sizeof *A->ghost);
    if (!c->lo_map || !c->hi_map || !A->boundary || !A->ghost)
        return mu_error("out of memory for the ghost list");
    scan_rows(c, 0, lo_end, A);
    scan_rows(c, hi_first, c->nloc, A);
    number_ghosts(c, A);
    A->ninterior = c->nloc - A->nboundary;
    if (c->nloc + A->nghost > INT32_MAX)
        return mu_error("rank rows plus ghosts exceed 2^31 (%lld + %lld); use more ranks",
                        (long long)c->nloc, (long long)A->nghost);
    return 0;
}

static int64_t count_rows(const pm_ctx *c, int64_t a, int64_t b) {
    int64_t nnz = 0;
    cg_point p = cg_poisson_point(&c->g, c->row0 + a);
    for (int64_t i = a; i < b; i++, cg_poisson_step(&c->g, &p)) nnz += cg_poisson_nnz_at(&c->g, &p);
    return nnz;
}

/* Boundary rows before local row a (the list is ascending). */
static int64_t boundary_before(const cg_matrix *A, int64_t a) {
    return cg_lower_bound_i32(A->boundary, 0, A->nboundary, a);
}

/* The chunk's parts of the fresh arrays (rows [a, b), entries [p, q)), mapped
 * before they are written. */
static void prefault_rows(cg_matrix *A, int64_t a, int64_t b, int64_t p, int64_t q) {
    int64_t ia = a - boundary_before(A, a), ib = b - boundary_before(A, b);
    mu_mem_prefault(A->rowptr + a, (size_t)(b - a) * sizeof *A->rowptr);
    mu_mem_prefault(A->col + p, (size_t)(q - p) * sizeof *A->col);
    mu_mem_prefault(A->val + p, (size_t)(q - p) * sizeof *A->val);
    mu_mem_prefault(A->diag + a, (size_t)(b - a) * sizeof *A->diag);
    mu_mem_prefault(A->interior + ia, (size_t)(ib - ia) * sizeof *A->interior);
}

/* Rows [a, b), entries [p, q): pointers, columns, values, diagonal, and the
 * interior list's share (the rows not on the boundary list). */
static void fill_rows(const pm_ctx *c, cg_matrix *A, int64_t a, int64_t b, int64_t p, int64_t q) {
    int64_t cols[CG_POISSON_MAX_ROW], nb = boundary_before(A, a), ni = a - nb;
    prefault_rows(A, a, b, p, q);
    cg_point pt = cg_poisson_point(&c->g, c->row0 + a);
    for (int64_t i = a; i < b; i++, cg_poisson_step(&c->g, &pt)) {
        A->rowptr[i] = p;
        int n = cg_poisson_row_at(&c->g, &pt, c->off, c->diag, cols, A->val + p);
        if (cols[0] >= c->row0 && cols[n - 1] < c->row1) /* ascending: all owned */
            for (int m = 0; m < n; m++) A->col[p + m] = (int32_t)(cols[m] - c->row0);
        else
            for (int m = 0; m < n; m++) A->col[p + m] = local_col(c, cols[m]);
        p += n;
        A->diag[i] = c->diag; /* as setup's 0 + the diagonal entry: every row has one */
        if (nb < A->nboundary && A->boundary[nb] == i)
            nb++;
        else
            A->interior[ni++] = (int32_t)i;
    }
}

static int alloc_rows(cg_matrix *A) {
    size_t rows = (size_t)(A->nloc ? A->nloc : 1), nnz = (size_t)(A->nnz_loc ? A->nnz_loc : 1);
    A->rowptr = malloc((rows + 1) * sizeof *A->rowptr);
    A->col = malloc(nnz * sizeof *A->col);
    A->val = malloc(nnz * sizeof *A->val);
    A->diag = malloc(rows * sizeof *A->diag);
    A->interior = malloc(rows * sizeof *A->interior);
    if (!A->rowptr || !A->col || !A->val || !A->diag || !A->interior)
        return mu_error("out of memory for %lld rows and %lld entries", (long long)A->nloc,
                        (long long)A->nnz_loc);
    return 0;
}

/* Counts per chunk, then the chunks filled from their offsets. */
static int rows(pm_ctx *c, cg_matrix *A) {
    int64_t *off = calloc((size_t)c->chunks + 1, sizeof *off);
    if (!off) return mu_error("out of memory");
#pragma omp parallel for schedule(static) num_threads(c->chunks)
    for (int t = 0; t < c->chunks; t++)
        off[t + 1] = count_rows(c, chunk_start(c, t), chunk_start(c, t + 1));
    for (int t = 0; t < c->chunks; t++) off[t + 1] += off[t];
    A->nnz_loc = off[c->chunks];
    int rc = alloc_rows(A);
#pragma omp parallel for schedule(static) num_threads(c->chunks)
    for (int t = 0; t < (rc ? 0 : c->chunks); t++)
        fill_rows(c, A, chunk_start(c, t), chunk_start(c, t + 1), off[t], off[t + 1]);
    if (!rc) A->rowptr[A->nloc] = A->nnz_loc;
    free(off);
    return rc;
}

/* The values times scale, as scale_values makes them (no product when scale is
 * 1); every row holds its diagonal, the largest value, so it alone can overflow. */
static int values(pm_ctx *c, double scale) {
    c->off = -1.0;
    c->diag = cg_poisson_diag(c->g.stencil);
    if (scale == 1.0) return 0;
    c->off *= scale;
    c->diag *= scale;
    if (c->nloc > 0 && !isfinite(c->diag))
        return mu_error("Poisson operator: value in row %lld times --scale=%g is not finite",
                        (long long)(c->row0 + 1), scale);
    return 0;
}

static int build(mu_app *app, pm_ctx *c, double scale, cg_matrix *A) {
    A->bounds = malloc((size_t)(app->size + 1) * sizeof *A->bounds);
    if (!A->bounds) return mu_error("out of memory");
    cg_poisson_bounds(&c->g, app->size, A->bounds);
    A->row0 = c->row0 = A->bounds[app->rank];
    c->row1 = A->bounds[app->rank + 1];
    A->nloc = c->nloc = c->row1 - c->row0;
    char why[256];
    c->chunks = mu_threads_per_rank(&app->dev, 0, why, sizeof why);
    MU_TRY(values(c, scale));
    MU_TRY(cg_matrix_fingerprint_init(A));
    MU_TRY(edges(c, A));
    return rows(c, A);
}

int cg_poisson_matrix(mu_app *app, int stencil, int64_t nx, int64_t ny, int64_t nz, double scale,
                      cg_matrix *A) {
    memset(A, 0, sizeof *A);
    pm_ctx c;
    memset(&c, 0, sizeof c);
    c.g = (cg_grid){(cg_stencil)stencil, nx, ny, stencil == CG_POISSON_2D5 ? 1 : nz};
    A->n = cg_poisson_rows(&c.g);
    if (A->n > INT32_MAX - 1)
        return mu_error_collective(app->comm, mu_error("Poisson grid of %lld rows: at most 2^31 "
                                                       "- 2 are supported",
                                                       (long long)A->n));
    int rc = build(app, &c, scale, A);
    free(c.lo_map);
    free(c.hi_map);
    int64_t nnz_loc = rc ? 0 : A->nnz_loc;
    MPI_Allreduce(&nnz_loc, &A->nnz, 1, MPI_INT64_T, MPI_SUM, app->comm);
    if (mu_error_collective(app->comm, rc) ||
        mu_halo_create(app->comm, A->bounds, A->ghost, A->nghost, &A->halo)) {
        cg_matrix_free(A);
        return 1;
    }
    return 0;
}
