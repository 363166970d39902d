/* mutirao_maxsub_1d and mutirao_maxsub_2d: the caller's arrays handed to the
 * shard reduction and the column-pair search of `mutirao maxsub`. */
#include <stdlib.h>
#include <string.h>
#include "mutirao/mutirao.h"
#include "api/api.h"
#include "core/error.h"
#include "core/memory.h"
#include "maxsub/maxsub.h"

void mutirao_maxsub_options_default(mutirao_maxsub_options *opt) {
    *opt = (mutirao_maxsub_options){.empty_allowed = 1, .farm_chunk = 0, .device = "auto"};
}

static void options_fp(const mutirao_maxsub_options *opt, mu_api_fp *fp) {
    mu_api_fp_init(fp);
    mu_api_fp_int(fp, opt->empty_allowed != 0);
    mu_api_fp_int(fp, opt->farm_chunk);
    mu_api_fp_str(fp, opt->device);
}

int mutirao_maxsub_1d(MPI_Comm comm, int64_t nloc, const int32_t *x,
                      const mutirao_maxsub_options *opt, mutirao_maxsub_1d_result *res) {
    MU_API_ARGS(mutirao_maxsub, opt, res);
    mu_api_fp fp;
    options_fp(opt, &fp);
    int rc = 0;
    if (!res)
        rc = mu_error("mutirao_maxsub_1d: res (the result) is NULL");
    else if (nloc < 0 || (nloc > 0 && !x))
        rc = mu_error("mutirao_maxsub_1d: nloc = %lld with %s x", (long long)nloc,
                      x ? "an" : "a NULL");
    MU_TRY(mu_api_agree(comm, "mutirao_maxsub_1d", &fp, rc));
    mu_app app;
    MU_TRY(mu_api_open(comm, "maxsub", "mutirao_maxsub_1d", opt->device, rc, &app));
    int64_t lo = 0, n = 0;
    MPI_Exscan(&nloc, &lo, 1, MPI_INT64_T, MPI_SUM, comm);
    if (app.rank == 0) lo = 0; /* MPI_Exscan leaves rank 0's undefined */
    MPI_Allreduce(&nloc, &n, 1, MPI_INT64_T, MPI_SUM, comm);
    if (n < 1) return mu_error_collective(comm, mu_error("mutirao_maxsub_1d: the array is empty"));
    int empty_allowed = opt->empty_allowed != 0;
    mu_mss_summary mine, r;
    rc = mu_maxsub_reduce_shard(&app, x, lo, lo + nloc, empty_allowed, &mine);
    MU_TRY(mu_error_collective(comm, rc));
    MU_TRY(mu_maxsub_combine_1d(&app, &mine, empty_allowed, &r));
    MPI_Bcast(&r, (int)sizeof r, MPI_BYTE, 0, comm);
    res->n = n;
    res->sum = r.best;
    res->empty = empty_allowed && r.best <= 0;
    res->start = res->empty ? -1 : r.best_start;
    res->end = res->empty ? -1 : r.best_end;
    res->gpu_ranks = mu_api_gpu_ranks(&app);
    return 0;
}

/* The sizes checked against rank 0's, and rank 0's matrix copied to every rank. */
static int share_matrix(const mu_app *app, int64_t rows, int64_t cols, const int32_t *a,
                        mu_maxsub_matrix *m) {
    memset(m, 0, sizeof *m);
    int64_t dims[2] = {rows, cols};
    MPI_Bcast(dims, 2, MPI_INT64_T, 0, app->comm);
    int rc = 0;
    if (dims[0] != rows || dims[1] != cols)
        rc =
            mu_error("mutirao_maxsub_2d: rank %d passed %lld x %lld, rank 0 %lld x %lld", app->rank,
                     (long long)rows, (long long)cols, (long long)dims[0], (long long)dims[1]);
    else if (rows < 1 || cols < 1)
        rc = mu_error("mutirao_maxsub_2d: a %lld x %lld matrix: sizes must be at least 1",
                      (long long)rows, (long long)cols);
    else if (rows > (int64_t)(SIZE_MAX / sizeof *m->k) / cols ||
             (double)rows * (double)cols * sizeof *m->k >
                 mu_mem_rank_available(app->dev.local_size))
        rc = mu_error("mutirao_maxsub_2d: a %lld x %lld matrix (%.3g bytes a rank) is more than "
                      "this rank's memory (%.3g bytes)",
                      (long long)rows, (long long)cols, (double)rows * (double)cols * sizeof *m->k,
                      mu_mem_rank_available(app->dev.local_size));
    else if (app->rank == 0 && !a)
        rc = mu_error("mutirao_maxsub_2d: rank 0 passed a NULL matrix");
    else if (!(m->k = malloc((size_t)(rows * cols) * sizeof *m->k)))
        rc = mu_error("mutirao_maxsub_2d: out of memory for a %lld x %lld matrix", (long long)rows,
                      (long long)cols);
    if (mu_error_collective(app->comm, rc)) {
        free(m->k);
        m->k = NULL;
        return 1;
    }
    m->rows = rows;
    m->cols = cols;
    size_t count = (size_t)(rows * cols);
    if (app->rank == 0) memcpy(m->k, a, count * sizeof *m->k);
    const size_t step = (size_t)1 << 28; /* MPI counts are int */
    for (size_t off = 0; off < count; off += step)
        MPI_Bcast(m->k + off, (int)(count - off < step ? count - off : step), MPI_INT32_T, 0,
                  app->comm);
    return 0;
}

int mutirao_maxsub_2d(MPI_Comm comm, int64_t rows, int64_t cols, const int32_t *a,
                      const mutirao_maxsub_options *opt, mutirao_maxsub_2d_result *res) {
    MU_API_ARGS(mutirao_maxsub, opt, res);
    mu_api_fp fp;
    options_fp(opt, &fp);
    mu_api_fp_int(&fp, rows);
    mu_api_fp_int(&fp, cols);
    int rc = !res                  ? mu_error("mutirao_maxsub_2d: res (the result) is NULL")
             : opt->farm_chunk < 0 ? mu_error("mutirao_maxsub_2d: farm_chunk must be >= 0")
                                   : 0;
    MU_TRY(mu_api_agree(comm, "mutirao_maxsub_2d", &fp, rc));
    mu_app app;
    MU_TRY(mu_api_open(comm, "maxsub", "mutirao_maxsub_2d", opt->device, rc, &app));
    mu_maxsub_matrix m;
    MU_TRY(share_matrix(&app, rows, cols, a, &m));
    mu_maxsub_2d_answer ans;
    MU_TRY(mu_maxsub_solve_2d(&app, &m, opt->empty_allowed != 0, opt->farm_chunk, &ans));
    MPI_Bcast(&ans, (int)sizeof ans, MPI_BYTE, 0, comm);
    *res = (mutirao_maxsub_2d_result){.sum = ans.sum,
                                      .row0 = ans.row0,
                                      .row1 = ans.row1,
                                      .col0 = ans.col0,
                                      .col1 = ans.col1,
                                      .empty = ans.empty,
                                      .gpu_ranks = mu_api_gpu_ranks(&app)};
    return 0;
}
