/* Getting each rank its rows: rank 0 reads a Matrix Market file and sends the
 * blocks (never the whole matrix to every rank), or every rank generates its
 * own rows of a Poisson operator. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cg/cg.h"
#include "cg/mmio.h"
#include "cg/poisson.h"
#include "core/error.h"
#include "core/log.h"
#include "core/memory.h"
#include "mpi/partition.h"

void cg_block_free(cg_block *b) {
    free(b->bounds);
    free(b->rowptr);
    free(b->gcol);
    free(b->val);
    memset(b, 0, sizeof *b);
}

static int alloc_rows(cg_block *b, int64_t nnz_loc) {
    b->rowptr = malloc((size_t)(b->nloc + 1) * sizeof *b->rowptr);
    b->gcol = malloc((size_t)(nnz_loc ? nnz_loc : 1) * sizeof *b->gcol);
    b->val = malloc((size_t)(nnz_loc ? nnz_loc : 1) * sizeof *b->val);
    if (!b->rowptr || !b->gcol || !b->val)
        return mu_error("out of memory for %lld rows and %lld entries", (long long)b->nloc,
                        (long long)nnz_loc);
    return 0;
}

static int scale_values(cg_block *b, double scale, const char *what) {
    if (scale == 1.0) return 0;
    int64_t nnz = b->rowptr[b->nloc];
    for (int64_t p = 0; p < nnz; p++) {
        b->val[p] *= scale;
        if (!isfinite(b->val[p]))
            return mu_error("%s: value in row %lld times --scale=%g is not finite", what,
                            (long long)(b->row0 + 1), scale);
    }
    return 0;
}

/* Rank 0's block is the start of the whole matrix: its arrays are kept, cut
 * to the block (no copy of the matrix). */
static void take_first_rows(cg_block *b, cg_mm *m, int64_t nnz_loc) {
    size_t e = (size_t)(nnz_loc ? nnz_loc : 1);
    int64_t *rowptr = realloc(m->rowptr, (size_t)(b->nloc + 1) * sizeof *rowptr);
    int32_t *col = realloc(m->col, e * sizeof *col);
    double *val = realloc(m->val, e * sizeof *val);
    /* Shrinking keeps the contents; where it fails, the larger array serves. */
    b->rowptr = rowptr ? rowptr : m->rowptr;
    b->gcol = col ? col : m->col;
    b->val = val ? val : m->val;
    m->rowptr = NULL;
    m->col = NULL;
    m->val = NULL;
}

/* Rank 0 parses, then sends each rank its block (point to point: counts per
 * rank fit an int, offsets into the whole matrix need not). */
int cg_load_file(mu_app *app, const char *path, double scale, cg_block *blk) {
    memset(blk, 0, sizeof *blk);
    cg_mm m;
    memset(&m, 0, sizeof m);
    int rc = 0;
    int64_t head[2] = {0, 0};
    if (app->rank == 0) {
        char why[256];
        rc = cg_mm_read_threads(path, mu_threads_per_rank(&app->dev, 0, why, sizeof why), &m);
        if (!rc) {
            head[0] = m.n;
            head[1] = m.nnz;
            mu_info("%s: %lld x %lld, %s %s, %lld entries stored, %lld nonzeros with both "
                    "triangles",
                    path, (long long)m.n, (long long)m.n, m.field,
                    m.symmetric ? "symmetric" : "general", (long long)m.entries, (long long)m.nnz);
            if (m.duplicates)
                mu_warn("%s: %lld duplicate entries summed (the first at row %lld, column %lld)",
                        path, (long long)m.duplicates, (long long)m.duplicate_row + 1,
                        (long long)m.duplicate_col + 1);
            int64_t ar = 0, ac = 0, bad = m.symmetric ? 0 : cg_mm_asymmetry(&m, &ar, &ac);
            if (bad)
                mu_warn("%s: declared 'general' and not symmetric: %lld entries differ from "
                        "their mirror, the first at (%lld, %lld); CG needs a symmetric positive "
                        "definite matrix",
                        path, (long long)bad, (long long)ar + 1, (long long)ac + 1);
        }
    }
    MU_TRY(mu_error_collective(app->comm, rc));
    MPI_Bcast(head, 2, MPI_INT64_T, 0, app->comm);
    blk->n = head[0];
    blk->nnz = head[1];
    blk->bounds = malloc((size_t)(app->size + 1) * sizeof *blk->bounds);
    rc = blk->bounds ? 0 : mu_error("out of memory for %d ranks' row bounds", app->size);
    if (mu_error_collective(app->comm, rc)) {
        cg_mm_free(&m);
        return 1;
    }
    if (app->rank == 0) mu_block_by_weight(m.rowptr, m.n, app->size, blk->bounds);
    MPI_Bcast(blk->bounds, app->size + 1, MPI_INT64_T, 0, app->comm);
    blk->row0 = blk->bounds[app->rank];
    blk->nloc = blk->bounds[app->rank + 1] - blk->row0;

    if (app->rank == 0)
        for (int r = 0; r < app->size && !rc; r++) {
            int64_t a = blk->bounds[r], b = blk->bounds[r + 1];
            if (m.rowptr[b] - m.rowptr[a] > INT_MAX)
                rc = mu_error("%s: rank %d would hold over 2^31 entries; use more ranks", path, r);
        }
    MU_TRY(mu_error_collective(app->comm, rc));

    /* Every rank learns its entry count and makes room before any block is sent. */
    int64_t nnz_loc = 0,
            *counts = app->rank == 0 ? malloc((size_t)app->size * sizeof *counts) : NULL;
    if (app->rank == 0 && !counts) rc = mu_error("out of memory for %d ranks' counts", app->size);
    for (int r = 0; counts && r < app->size; r++)
        counts[r] = m.rowptr[blk->bounds[r + 1]] - m.rowptr[blk->bounds[r]];
    rc = mu_error_collective(app->comm, rc);
    if (!rc) MPI_Scatter(counts, 1, MPI_INT64_T, &nnz_loc, 1, MPI_INT64_T, 0, app->comm);
    free(counts);
    if (!rc && app->rank != 0) rc = alloc_rows(blk, nnz_loc); /* agreed on before any message */
    if (!rc) rc = mu_error_collective(app->comm, rc);
    if (rc) {
        cg_mm_free(&m);
        cg_block_free(blk);
        return rc;
    }
    if (app->rank == 0) {
        for (int r = 1; r < app->size; r++) {
            int64_t a = blk->bounds[r], b = blk->bounds[r + 1], off = m.rowptr[a];
            int cnt = (int)(m.rowptr[b] - off);
            MPI_Send(m.rowptr + a, (int)(b - a + 1), MPI_INT64_T, r, 1, app->comm);
            MPI_Send(m.col + off, cnt, MPI_INT32_T, r, 2, app->comm);
            MPI_Send(m.val + off, cnt, MPI_DOUBLE, r, 3, app->comm);
        }
        take_first_rows(blk, &m, nnz_loc);
    } else {
        MPI_Recv(blk->rowptr, (int)(blk->nloc + 1), MPI_INT64_T, 0, 1, app->comm,
                 MPI_STATUS_IGNORE);
        int64_t off = blk->rowptr[0];
        for (int64_t i = 0; i <= blk->nloc; i++) blk->rowptr[i] -= off;
        MPI_Recv(blk->gcol, (int)nnz_loc, MPI_INT32_T, 0, 2, app->comm, MPI_STATUS_IGNORE);
        MPI_Recv(blk->val, (int)nnz_loc, MPI_DOUBLE, 0, 3, app->comm, MPI_STATUS_IGNORE);
    }
    if (!rc) rc = scale_values(blk, scale, path);
    rc = mu_error_collective(app->comm, rc);
    if (rc) cg_block_free(blk);
    return rc;
}

int cg_load_poisson(mu_app *app, int stencil, int64_t nx, int64_t ny, int64_t nz, double scale,
                    cg_block *blk) {
    memset(blk, 0, sizeof *blk);
    cg_grid g = {(cg_stencil)stencil, nx, ny, stencil == CG_POISSON_2D5 ? 1 : nz};
    if (nx < 1 || g.ny < 1 || g.nz < 1 || nx > INT32_MAX || g.ny > INT32_MAX / nx ||
        g.nz > (INT32_MAX - 1) / (nx * g.ny))
        return mu_error_collective(app->comm,
                                   mu_error("Poisson grid %lld x %lld x %lld: at most 2^31 - 2 "
                                            "rows are supported",
                                            (long long)nx, (long long)g.ny, (long long)g.nz));
    int64_t n = cg_poisson_rows(&g);
    /* Refused up front against the memory a rank may use: its rows' matrix
     * (a column and a value an entry, 27 at most), the row offsets and the
     * solver's vectors (about ten), on the rank holding the most rows. */
    int per_row = stencil == CG_POISSON_2D5 ? 5 : stencil == CG_POISSON_3D7 ? 7 : 27;
    double rows = ceil((double)n / app->size), need = rows * (per_row * 12.0 + 8 + 10 * 8);
    double have = mu_mem_rank_available(app->dev.local_size);
    int big = need > have;
    MPI_Allreduce(MPI_IN_PLACE, &big, 1, MPI_INT, MPI_MAX, app->comm);
    if (big)
        return mu_error_collective(
            app->comm, mu_error("Poisson grid of %lld rows needs about %.3g GB a rank on %d "
                                "rank(s); a rank may use %.3g GB here: use more ranks or a "
                                "smaller grid",
                                (long long)n, need / 1e9, app->size, have / 1e9));
    blk->n = n;
    blk->bounds = malloc((size_t)(app->size + 1) * sizeof *blk->bounds);
    cg_poisson_bounds(&g, app->size, blk->bounds);
    blk->row0 = blk->bounds[app->rank];
    blk->nloc = blk->bounds[app->rank + 1] - blk->row0;
    int64_t nnz_loc = 0;
    for (int64_t i = 0; i < blk->nloc; i++) nnz_loc += cg_poisson_row_nnz(&g, blk->row0 + i);
    int rc = alloc_rows(blk, nnz_loc);
    if (!rc) {
        blk->rowptr[0] = 0;
        for (int64_t i = 0; i < blk->nloc; i++)
            blk->rowptr[i + 1] = blk->rowptr[i] + cg_poisson_row_nnz(&g, blk->row0 + i);
        /* Rows are independent once their offsets are known: the rank's threads fill them. */
        char why[256];
        int threads = mu_threads_per_rank(&app->dev, 0, why, sizeof why);
#pragma omp parallel for schedule(static) num_threads(threads)
        for (int64_t i = 0; i < blk->nloc; i++) {
            int64_t p = blk->rowptr[i];
            cg_poisson_row(&g, blk->row0 + i, blk->gcol + p, blk->val + p);
        }
        rc = scale_values(blk, scale, "Poisson operator");
    }
    MPI_Allreduce(&nnz_loc, &blk->nnz, 1, MPI_INT64_T, MPI_SUM, app->comm);
    rc = mu_error_collective(app->comm, rc);
    if (rc) cg_block_free(blk);
    return rc;
}
