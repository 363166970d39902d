/* mutirao_cg_solve: the public entry to the solver of `mutirao cg`, from the
 * caller's CSR rows to the same matrix set-up, backend and iterations. */
#include <stdlib.h>
#include <string.h>
#include "mutirao/mutirao.h"
#include "app.h"
#include "api/api.h"
#include "cg/cg.h"
#include "cg/solve.h"
#include "cg/vectors.h"
#include "core/error.h"
#include "core/log.h"

const char *mutirao_version(void) {
    return MUTIRAO_VERSION;
}

const char *mutirao_error_message(void) {
    return mu_error_message();
}

void mutirao_cg_options_default(mutirao_cg_options *opt) {
    *opt = (mutirao_cg_options){
        .rtol = 1e-8, .atol = 0, .max_it = 10000, .jacobi = 0, .fp32 = 0, .device = "auto"};
}

/* Row i's entries sorted by column (insertion: rows are short); a repeated
 * column is an error. */
static int sort_row(int32_t *col, double *val, int64_t len, int64_t row) {
    for (int64_t a = 1; a < len; a++) {
        int32_t c = col[a];
        double v = val[a];
        int64_t b = a;
        for (; b > 0 && col[b - 1] > c; b--) col[b] = col[b - 1], val[b] = val[b - 1];
        col[b] = c, val[b] = v;
    }
    for (int64_t a = 1; a < len; a++)
        if (col[a] == col[a - 1])
            return mu_error("mutirao_cg_solve: row %lld has column %d twice", (long long)row,
                            col[a]);
    return 0;
}

/* Row i's checks and copy: rowptr grows, columns in 0..n-1, sorted. */
static int copy_row(const cg_block *blk, int64_t i, int64_t base, const int64_t *cols,
                    const double *vals) {
    if (blk->rowptr[i + 1] < blk->rowptr[i])
        return mu_error("mutirao_cg_solve: rowptr decreases at row %lld",
                        (long long)(blk->row0 + i));
    for (int64_t p = blk->rowptr[i]; p < blk->rowptr[i + 1]; p++) {
        int64_t c = cols[p + base];
        if (c < 0 || c >= blk->n)
            return mu_error("mutirao_cg_solve: row %lld has column %lld, outside 0..%lld",
                            (long long)(blk->row0 + i), (long long)c, (long long)(blk->n - 1));
        blk->gcol[p] = (int32_t)c;
        blk->val[p] = vals[p + base];
    }
    return sort_row(blk->gcol + blk->rowptr[i], blk->val + blk->rowptr[i],
                    blk->rowptr[i + 1] - blk->rowptr[i], blk->row0 + i);
}

/* This rank's rows as a cg_block (copied, checked, sorted). Collective: every
 * rank takes part in each collective whatever it found. */
static int copy_rows(mu_app *app, int64_t n, int64_t nloc, const int64_t *rowptr,
                     const int64_t *cols, const double *vals, cg_block *blk) {
    memset(blk, 0, sizeof *blk);
    blk->n = n;
    blk->nloc = nloc;
    int64_t nnz = nloc > 0 ? rowptr[nloc] - rowptr[0] : 0;
    blk->bounds = malloc((size_t)(app->size + 1) * sizeof *blk->bounds);
    int rc = blk->bounds ? 0 : mu_error("mutirao_cg_solve: out of memory for the row bounds");
    MU_TRY(mu_error_collective(app->comm, rc)); /* the library never exits */
    MPI_Allgather(&nloc, 1, MPI_INT64_T, blk->bounds + 1, 1, MPI_INT64_T, app->comm);
    blk->bounds[0] = 0;
    for (int r = 0; r < app->size; r++) blk->bounds[r + 1] += blk->bounds[r];
    blk->row0 = blk->bounds[app->rank];
    if (blk->bounds[app->size] != n)
        rc = mu_error("mutirao_cg_solve: the ranks' rows add up to %lld, n is %lld",
                      (long long)blk->bounds[app->size], (long long)n);
    else if (nnz < 0)
        rc = mu_error("mutirao_cg_solve: rowptr[nloc] < rowptr[0]");
    if (!rc) {
        blk->rowptr = malloc((size_t)(nloc + 1) * sizeof *blk->rowptr);
        blk->gcol = malloc((size_t)(nnz ? nnz : 1) * sizeof *blk->gcol);
        blk->val = malloc((size_t)(nnz ? nnz : 1) * sizeof *blk->val);
        if (!blk->rowptr || !blk->gcol || !blk->val)
            rc = mu_error("mutirao_cg_solve: out of memory for %lld rows", (long long)nloc);
    }
    if (!rc) blk->rowptr[0] = 0; /* a rank may hold no rows (and no rowptr) */
    for (int64_t i = 1; !rc && i <= nloc; i++) blk->rowptr[i] = rowptr[i] - rowptr[0];
    for (int64_t i = 0; !rc && i < nloc; i++) rc = copy_row(blk, i, rowptr[0], cols, vals);
    if (rc) nnz = 0;
    MPI_Allreduce(&nnz, &blk->nnz, 1, MPI_INT64_T, MPI_SUM, app->comm);
    return rc;
}

/* The command's solve on a set-up matrix: backend, vectors, iterations, the
 * true residual, the solution back into x. */
static int solve_matrix(mu_app *app, const cg_matrix *A, const double *b_in, double *x_out,
                        const mutirao_cg_options *opt, mutirao_cg_info *info) {
    cg_backend *be;
    void *b, *x;
    int rc = 0;
    MU_TRY_GOTO(cg_backend_open(app, A, opt->fp32, opt->jacobi, &be, &b, &x));
    be->vec_set(be, b, b_in);
    cg_config cfg = {.variant = CG_STANDARD,
                     .jacobi = opt->jacobi,
                     .rtol = opt->rtol,
                     .atol = opt->atol,
                     .max_it = opt->max_it};
    cfg.meta.n = A->n;
    cfg.meta.nnz = A->nnz;
    cg_result res;
    MU_TRY_GOTO(cg_solve_standard(app, &cfg, A, be, b, x, &res));
    double bn = res.bnorm > 0 ? res.bnorm : 1.0;
    info->converged = res.outcome == CG_CONVERGED;
    info->iterations = res.iterations;
    info->residual = res.rnorm / bn;
    info->true_residual = cg_true_residual(app, be, b, x) / bn;
    be->vec_get(be, x, x_out);
done:
    cg_backend_close(be, b, x);
    return rc;
}

/* This rank's arrays before any use: rowptr from 0 or more, never
 * decreasing; no NULL array where there are rows or entries. */
static int check_arrays(int64_t n, int64_t nloc, const int64_t *rowptr, const int64_t *cols,
                        const double *vals, const double *b, const double *x) {
    if (nloc < 0 || nloc > n)
        return mu_error("mutirao_cg_solve: nloc = %lld: expected 0 to n = %lld", (long long)nloc,
                        (long long)n);
    if (nloc == 0) return 0;
    if (!rowptr || !b || !x)
        return mu_error("mutirao_cg_solve: %lld rows but a NULL array (rowptr %s, b %s, x %s)",
                        (long long)nloc, rowptr ? "given" : "NULL", b ? "given" : "NULL",
                        x ? "given" : "NULL");
    if (rowptr[0] < 0)
        return mu_error("mutirao_cg_solve: rowptr[0] = %lld: expected 0 or more",
                        (long long)rowptr[0]);
    for (int64_t i = 0; i < nloc; i++)
        if (rowptr[i + 1] < rowptr[i])
            return mu_error("mutirao_cg_solve: rowptr decreases at local row %lld (rowptr[%lld] "
                            "= %lld, rowptr[%lld] = %lld): it must be monotone, ending at the "
                            "rank's entry count",
                            (long long)i, (long long)i, (long long)rowptr[i], (long long)(i + 1),
                            (long long)rowptr[i + 1]);
    int64_t nnz = rowptr[nloc] - rowptr[0];
    if (nnz > nloc * n)
        return mu_error("mutirao_cg_solve: %lld entries on %lld rows of %lld columns",
                        (long long)nnz, (long long)nloc, (long long)n);
    if (nnz > 0 && (!cols || !vals))
        return mu_error("mutirao_cg_solve: %lld entries but cols %s, vals %s", (long long)nnz,
                        cols ? "given" : "NULL", vals ? "given" : "NULL");
    return 0;
}

static int check_options(const mutirao_cg_options *opt, int64_t n) {
    const char *dev = opt->device ? opt->device : "auto";
    if (strcmp(dev, "auto") && strcmp(dev, "cpu") && strcmp(dev, "gpu"))
        return mu_error("mutirao_cg_solve: device '%s': expected auto, cpu or gpu", dev);
    if (!(opt->rtol >= 0) || !(opt->atol >= 0) || opt->max_it < 0)
        return mu_error("mutirao_cg_solve: rtol %g, atol %g, max_it %lld: none may be negative",
                        opt->rtol, opt->atol, (long long)opt->max_it);
    if (n < 1 || n > INT32_MAX - 1)
        return mu_error("mutirao_cg_solve: n = %lld: expected 1 to 2^31 - 2", (long long)n);
    return 0;
}

int mutirao_cg_solve(MPI_Comm comm, int64_t n, int64_t nloc, const int64_t *rowptr,
                     const int64_t *cols, const double *vals, const double *b, double *x,
                     const mutirao_cg_options *opt, mutirao_cg_info *info) {
    MU_API_ARGS(mutirao_cg, opt, info);
    mu_app app = {.comm = comm, .command = "cg"};
    MPI_Comm_rank(comm, &app.rank);
    MPI_Comm_size(comm, &app.size);
    mu_log_init(app.rank, app.size); /* rank 0 speaks for the call */
    mu_api_fp fp;
    mu_api_fp_init(&fp);
    mu_api_fp_int(&fp, n);
    mu_api_fp_real(&fp, opt->rtol);
    mu_api_fp_real(&fp, opt->atol);
    mu_api_fp_int(&fp, opt->max_it);
    mu_api_fp_int(&fp, opt->jacobi);
    mu_api_fp_int(&fp, opt->fp32);
    mu_api_fp_str(&fp, opt->device);
    int rc =
        !info ? mu_error("mutirao_cg_solve: info (the result) is NULL") : check_options(opt, n);
    if (!rc) rc = check_arrays(n, nloc, rowptr, cols, vals, b, x);
    MU_TRY(mu_api_agree(comm, "mutirao_cg_solve", &fp, rc));
    MU_TRY(mu_device_bind(comm, opt->device ? opt->device : "auto", &app.dev));
    cg_block blk;
    rc = mu_error_collective(comm, copy_rows(&app, n, nloc, rowptr, cols, vals, &blk));
    if (rc) {
        cg_block_free(&blk);
        return 1;
    }
    cg_matrix A;
    MU_TRY(cg_matrix_setup(&app, &blk, &A));
    rc = solve_matrix(&app, &A, b, x, opt, info);
    int gpu = app.dev.use_gpu;
    MPI_Allreduce(&gpu, &info->gpu_ranks, 1, MPI_INT, MPI_SUM, comm);
    cg_matrix_free(&A);
    return rc;
}
