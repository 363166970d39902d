/* `mutirao maxsub --dim=2`: the source of the matrix (made or read by each
 * rank for its own block, or a text file read by rank 0 and scattered), the
 * distributed solve (maxsub/solve2d.c) and the answer. */
#include <stdio.h>
#include <stdlib.h>
#include "maxsub/maxsub.h"
#include "core/error.h"
#include "core/summary.h"
#include "core/timer.h"
#include "maxsub/input.h"

typedef mu_maxsub_matrix matrix;

/* The sizes and where the values come from; a text file is read by rank 0. */
static int pick_source(mu_app *app, matrix *m) {
    const mu_opts *o = app->opts;
    const char *path = mu_opt_str(o, "input");
    int rc = 0;
    int64_t dims[2] = {0, 0};
    *m = (matrix){.bands = (int)mu_opt_int(o, "bands"),
                  .max_memory = (double)mu_opt_int(o, "max-memory") * 1048576.0};
    if (!path) {
        dims[0] = mu_opt_set(o, "rows") ? mu_opt_int(o, "rows") : mu_opt_int(o, "n");
        dims[1] = mu_opt_set(o, "cols") ? mu_opt_int(o, "cols") : mu_opt_int(o, "n");
        m->src = mu_maxsub_philox(o, &m->spec) ? MU_MSS_SRC_PHILOX : MU_MSS_SRC_THESIS;
    } else if (mu_in_pick_format(path, mu_opt_str(o, "format")) == MU_FMT_BIN) {
        int64_t count = 0;
        m->src = MU_MSS_SRC_BIN;
        m->path = path;
        if (!mu_opt_set(o, "rows") || !mu_opt_set(o, "cols"))
            rc = mu_error("%s: a binary matrix needs --rows and --cols", path);
        else if (!(rc = mu_in_binary_count(path, &count))) {
            dims[0] = mu_opt_int(o, "rows");
            dims[1] = mu_opt_int(o, "cols");
            int64_t need = 0;
            if (dims[0] < 1 || dims[1] < 1 || __builtin_mul_overflow(dims[0], dims[1], &need) ||
                need != count)
                rc = mu_error(
                    "%s: holds %lld int32 values, but --rows=%lld x --cols=%lld needs %.17g", path,
                    (long long)count, (long long)dims[0], (long long)dims[1],
                    (double)dims[0] * (double)dims[1]);
        }
    } else {
        m->src = MU_MSS_SRC_ROOT;
        if (app->rank == 0) rc = mu_in_read_text_2d(path, &m->k, &dims[0], &dims[1]);
    }
    if (!rc && !path && (dims[0] < 1 || dims[1] < 1))
        rc = mu_error("2-D sizes must be at least 1 (rows=%lld, cols=%lld)", (long long)dims[0],
                      (long long)dims[1]);
    int64_t cells = 0;
    if (!rc && !path && (__builtin_mul_overflow(dims[0], dims[1], &cells) || cells > INT64_MAX / 8))
        rc = mu_error("%s: a %lld x %lld matrix has over 2^60 values (its byte count would "
                      "overflow int64)",
                      mu_opt_set(o, "rows") || mu_opt_set(o, "cols") ? "--rows x --cols" : "--n",
                      (long long)dims[0], (long long)dims[1]);
    if (!rc && (m->bands < 0 || m->max_memory < 0))
        rc = mu_error("--bands and --max-memory must be >= 0");
    MU_TRY(mu_error_collective(app->comm, rc));
    MPI_Bcast(dims, 2, MPI_INT64_T, 0, app->comm);
    m->rows = dims[0];
    m->cols = dims[1];
    return 0;
}

static int report(mu_app *app, const mu_maxsub_2d_answer *a) {
    printf("maxsub: dim=2 rows=%lld cols=%lld sum=%lld row0=%lld row1=%lld col0=%lld "
           "col1=%lld%s\n",
           (long long)a->rows, (long long)a->cols, (long long)a->sum, (long long)a->row0,
           (long long)a->row1, (long long)a->col0, (long long)a->col1,
           a->empty ? " (empty submatrix)" : "");
    fflush(stdout);
    mu_summary_result_int("rows", a->rows);
    mu_summary_result_int("cols", a->cols);
    mu_summary_result_int("sum", a->sum);
    mu_summary_result_int("row0", a->row0);
    mu_summary_result_int("row1", a->row1);
    mu_summary_result_int("col0", a->col0);
    mu_summary_result_int("col1", a->col1);
    char row[160];
    snprintf(row, sizeof row, "%lld,%lld,%lld,%lld,%lld", (long long)a->sum, (long long)a->row0,
             (long long)a->row1, (long long)a->col0, (long long)a->col1);
    return mu_maxsub_write_csv(mu_opt_str(app->opts, "output"), "sum,row0,row1,col0,col1", row);
}

int mu_maxsub_run_2d(mu_app *app) {
    int empty_allowed = mu_opt_is(app->opts, "empty", "allowed");
    matrix m;
    mu_timer_begin("input");
    int rc = pick_source(app, &m);
    mu_timer_end("input");
    MU_TRY(rc);
    mu_maxsub_2d_answer a;
    MU_TRY(mu_maxsub_solve_2d(app, &m, empty_allowed, mu_opt_int(app->opts, "farm-chunk"), &a));
    rc = app->rank == 0 ? report(app, &a) : 0;
    return mu_error_collective(app->comm, rc);
}
