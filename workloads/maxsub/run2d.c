/* 2-D: the column-pair decomposition (Perumalla-Deo, as in the study): for each
 * pair (g, h) of columns, Kadane over the strip's row sums. Pairs run over the
 * smaller dimension (the matrix is transposed when it has more columns than
 * rows), grouped in tiles that the task farm hands out; each rank computes its
 * tiles on its GPU or CPU and the master places the per-tile results by id. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "maxsub/maxsub.h"
#include "core/error.h"
#include "core/log.h"
#include "core/summary.h"
#include "core/timer.h"
#include "gpu/maxsub_gpu.h"
#include "maxsub/input.h"
#include "maxsub/strip2d.h"
#include "mpi/taskfarm.h"

typedef mu_maxsub_matrix matrix;

/* Every rank gets the whole matrix: generated locally, or read by rank 0 and broadcast. */
static int load_matrix(mu_app *app, matrix *m) {
    const mu_opts *o = app->opts;
    const char *path = mu_opt_str(o, "input");
    int rc = 0;
    int64_t dims[2] = {0, 0};
    m->k = NULL;
    if (!path) {
        dims[0] = mu_opt_set(o, "rows") ? mu_opt_int(o, "rows") : mu_opt_int(o, "n");
        dims[1] = mu_opt_set(o, "cols") ? mu_opt_int(o, "cols") : mu_opt_int(o, "n");
    } else if (mu_in_pick_format(path, mu_opt_str(o, "format")) == MU_FMT_BIN) {
        int64_t count = 0;
        if (!mu_opt_set(o, "rows") || !mu_opt_set(o, "cols"))
            rc = mu_error("%s: a binary matrix needs --rows and --cols", path);
        else if (!(rc = mu_in_binary_count(path, &count))) {
            dims[0] = mu_opt_int(o, "rows");
            dims[1] = mu_opt_int(o, "cols");
            if (dims[0] < 1 || dims[1] < 1 || dims[0] * dims[1] != count)
                rc = mu_error(
                    "%s: holds %lld int32 values, but --rows=%lld x --cols=%lld needs %lld", path,
                    (long long)count, (long long)dims[0], (long long)dims[1],
                    (long long)(dims[0] * dims[1]));
        }
    } else if (app->rank == 0) {
        rc = mu_in_read_text_2d(path, &m->k, &dims[0], &dims[1]);
    }
    if (!rc && !path && (dims[0] < 1 || dims[1] < 1))
        rc = mu_error("2-D sizes must be at least 1 (rows=%lld, cols=%lld)", (long long)dims[0],
                      (long long)dims[1]);
    MU_TRY(mu_error_collective(app->comm, rc));
    MPI_Bcast(dims, 2, MPI_INT64_T, 0, app->comm);
    m->rows = dims[0];
    m->cols = dims[1];
    if (app->dev.use_gpu && mu_maxsub_philox(o, &m->spec))
        return mu_error_collective(app->comm, 0); /* made on the device: the check of CPU ranks */
    size_t count = (size_t)(m->rows * m->cols);
    if (!m->k) m->k = malloc(count * sizeof *m->k);
    if (!m->k)
        rc = mu_error("out of memory for a %lld x %lld matrix", (long long)m->rows,
                      (long long)m->cols);
    MU_TRY(mu_error_collective(app->comm, rc));
    if (!path) {
        mu_maxsub_generate(app, 0, (int64_t)count, m->k);
    } else if (mu_in_pick_format(path, mu_opt_str(o, "format")) == MU_FMT_BIN) {
        char why[256];
        int threads = mu_threads_per_rank(&app->dev, 0, why, sizeof why);
        if (app->rank == 0)
            rc = mu_in_read_binary_range_threads(path, 0, (int64_t)count, m->k, threads);
        MU_TRY(mu_error_collective(app->comm, rc));
    }
    if (path) {
        const size_t step = (size_t)1 << 28; /* MPI counts are int */
        for (size_t off = 0; off < count; off += step)
            MPI_Bcast(m->k + off, (int)(count - off < step ? count - off : step), MPI_INT32_T, 0,
                      app->comm);
    }
    return 0;
}

static int orient(matrix *m) {
    m->transposed = m->cols > m->rows;
    if (!m->transposed) return 0;
    if (!m->k) { /* made on the device, already oriented */
        int64_t r = m->rows;
        m->rows = m->cols;
        m->cols = r;
        return 0;
    }
    int32_t *t = malloc((size_t)(m->rows * m->cols) * sizeof *t);
    if (!t) return mu_error("out of memory transposing the matrix");
    for (int64_t i = 0; i < m->rows; i++)
        for (int64_t j = 0; j < m->cols; j++) t[j * m->rows + i] = m->k[i * m->cols + j];
    free(m->k);
    m->k = t;
    int64_t r = m->rows;
    m->rows = m->cols;
    m->cols = r;
    return 0;
}

typedef struct {
    const matrix *m;
    int empty_allowed;
    int64_t *V;        /* CPU ranks: int64 prefix sums */
    mu_gpu_mss2d *gpu; /* GPU ranks */
} tile_ctx;

/* Task = one tile; result = (best, pair id) of that tile. */
static int tile_task(int64_t first, int64_t count, void *results, void *vctx) {
    tile_ctx *c = vctx;
    int64_t *out = results;
    if (c->gpu) {
        return MU_GPU(mu_gpu_mss2d_run_tiles(c->gpu, first, first + count, c->empty_allowed, out),
                      "GPU 2-D tiles %lld..%lld", (long long)first, (long long)(first + count - 1));
    }
    for (int64_t t = 0; t < count; t++)
        mu_mss2d_cpu_tiles(c->V, c->m->rows, c->m->cols, first + t, first + t + 1, c->empty_allowed,
                           &out[2 * t], &out[2 * t + 1]);
    return 0;
}

/* Kadane with indices over strip (g, h): from the matrix, or where it was made
 * on the device, from the device's prefix sums. */
static int strip_best(const matrix *m, const mu_gpu_mss2d *gpu, int64_t g, int64_t h,
                      int empty_allowed, int64_t *sum, int64_t *r0, int64_t *r1) {
    if (m->k) {
        mu_mss2d_strip(m->k, m->rows, m->cols, g, h, empty_allowed, sum, r0, r1);
        return 0;
    }
    int64_t *c = malloc((size_t)m->rows * sizeof *c);
    int rc = 0;
    if (!c)
        rc = mu_error("out of memory for %lld strip sums", (long long)m->rows);
    else if (MU_GPU(mu_gpu_mss2d_strip_sums(gpu, g, h, c), "GPU strip (%lld, %lld)", (long long)g,
                    (long long)h))
        rc = 1;
    else
        mu_mss2d_best_rows(c, m->rows, empty_allowed, sum, r0, r1);
    free(c);
    return rc;
}

static int farm_chunk(const mu_app *app, int64_t chunk) {
    if (chunk > 0) return (int)chunk;
    /* Auto: two waves of tiles per GPU chunk keep every SM busy; one tile on CPUs. */
    int mine = app->dev.use_gpu ? 2 * app->dev.info.sm_count : 1, best = 1;
    MPI_Allreduce(&mine, &best, 1, MPI_INT, MPI_MAX, app->comm);
    return best;
}

int mu_maxsub_solve_2d(const mu_app *app, mu_maxsub_matrix *mm, int empty_allowed, int64_t chunk,
                       mu_maxsub_2d_answer *ans) {
    matrix m = *mm;
    mm->k = NULL; /* taken over: freed here */
    int64_t orig_rows = m.rows, orig_cols = m.cols;
    int rc = orient(&m);
    MU_TRY(mu_error_collective(app->comm, rc));
    int64_t ntiles = mu_mss_tile_count(m.cols);
    mu_info(
        "2-D maximum submatrix of a %lld x %lld matrix: %lld column pairs over the %s, %lld tiles",
        (long long)orig_rows, (long long)orig_cols, (long long)(m.cols * (m.cols + 1) / 2),
        m.transposed ? "rows" : "columns", (long long)ntiles);

    mu_timer_begin("prefix");
    tile_ctx ctx = {&m, empty_allowed, NULL, NULL};
    if (app->dev.use_gpu) {
        rc =
            MU_GPU(m.k ? mu_gpu_mss2d_create(m.k, m.rows, m.cols, &ctx.gpu)
                       : mu_gpu_mss2d_create_philox(m.spec, m.rows, m.cols, m.transposed, &ctx.gpu),
                   "rank %d GPU 2-D setup", app->rank);
    } else {
        ctx.V = malloc((size_t)(m.rows * (m.cols + 1)) * sizeof *ctx.V);
        if (!ctx.V)
            rc = mu_error("out of memory for the prefix sums");
        else
            mu_mss2d_prefix(m.k, m.rows, m.cols, ctx.V);
    }
    mu_timer_end("prefix");
    if (mu_error_collective(app->comm, rc)) {
        mu_gpu_mss2d_destroy(ctx.gpu);
        free(ctx.V);
        free(m.k);
        return 1;
    }

    mu_timer_begin("pairs");
    int64_t *tiles = app->rank == 0 ? malloc((size_t)ntiles * 2 * sizeof *tiles) : NULL;
    mu_farm_cfg cfg = {.min_chunk = farm_chunk(app, chunk), .master_works = 1, .progress = "tiles"};
    mu_farm_stats stats;
    rc = mu_taskfarm_run(app->comm, ntiles, 2 * sizeof(int64_t), tile_task, &ctx, &cfg, tiles,
                         &stats);
    mu_timer_end("pairs");
    free(ctx.V);
    mu_debug("rank %d computed %lld tiles in %lld chunks", app->rank,
             (long long)stats.tasks_done_by_me, (long long)stats.chunks_by_me);
    if (rc) {
        mu_gpu_mss2d_destroy(ctx.gpu);
        free(tiles);
        free(m.k);
        return 1;
    }
    if (app->rank == 0) {
        /* Task order: the result cannot depend on which rank computed what. */
        int64_t best = empty_allowed ? 0 : MU_MSS_NEG_INF, pair = -1;
        for (int64_t t = 0; t < ntiles; t++)
            mu_mss2d_keep(&best, &pair, tiles[2 * t], tiles[2 * t + 1]);
        int64_t g = -1, h = -1, r0 = -1, r1 = -1, sum = 0;
        if (pair >= 0) {
            mu_mss_tri_unrank(m.cols, pair, &g, &h);
            rc = strip_best(&m, ctx.gpu, g, h, empty_allowed, &sum, &r0, &r1);
            if (!rc && sum != best)
                rc = mu_error(
                    "internal: pair (%lld,%lld) recomputes to %lld, the pair search gave %lld",
                    (long long)g, (long long)h, (long long)sum, (long long)best);
        }
        /* Back to the input's orientation: (row0, row1, col0, col1). */
        int64_t a0 = m.transposed ? g : r0, a1 = m.transposed ? h : r1;
        int64_t b0 = m.transposed ? r0 : g, b1 = m.transposed ? r1 : h;
        *ans = (mu_maxsub_2d_answer){orig_rows, orig_cols, sum, a0, a1, b0, b1, pair < 0};
    }
    mu_gpu_mss2d_destroy(ctx.gpu);
    free(tiles);
    free(m.k);
    return mu_error_collective(app->comm, rc);
}

int mu_maxsub_run_2d(mu_app *app) {
    int empty_allowed = mu_opt_is(app->opts, "empty", "allowed");
    matrix m;
    mu_timer_begin("input");
    MU_TRY(load_matrix(app, &m));
    mu_timer_end("input");
    mu_maxsub_2d_answer a;
    MU_TRY(mu_maxsub_solve_2d(app, &m, empty_allowed, mu_opt_int(app->opts, "farm-chunk"), &a));
    int rc = 0;
    if (app->rank == 0) {
        printf("maxsub: dim=2 rows=%lld cols=%lld sum=%lld row0=%lld row1=%lld col0=%lld "
               "col1=%lld%s\n",
               (long long)a.rows, (long long)a.cols, (long long)a.sum, (long long)a.row0,
               (long long)a.row1, (long long)a.col0, (long long)a.col1,
               a.empty ? " (empty submatrix)" : "");
        fflush(stdout);
        mu_summary_result_int("rows", a.rows);
        mu_summary_result_int("cols", a.cols);
        mu_summary_result_int("sum", a.sum);
        mu_summary_result_int("row0", a.row0);
        mu_summary_result_int("row1", a.row1);
        mu_summary_result_int("col0", a.col0);
        mu_summary_result_int("col1", a.col1);
        char row[160];
        snprintf(row, sizeof row, "%lld,%lld,%lld,%lld,%lld", (long long)a.sum, (long long)a.row0,
                 (long long)a.row1, (long long)a.col0, (long long)a.col1);
        rc = mu_maxsub_write_csv(mu_opt_str(app->opts, "output"), "sum,row0,row1,col0,col1", row);
    }
    return mu_error_collective(app->comm, rc);
}
