/* 1-D: each rank reduces its contiguous shard to a summary (on its GPU when it
 * has one), rank 0 combines the summaries in rank order (the CGM algorithm of
 * Alves, Caceres and Song with the associative form of its five values). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "maxsub/maxsub.h"
#include "core/error.h"
#include "core/log.h"
#include "core/memory.h"
#include "core/summary.h"
#include "core/timer.h"
#include "gpu/maxsub_gpu.h"
#include "maxsub/input.h"
#include "maxsub/strip2d.h"
#include "mpi/partition.h"

/* Loads this rank's shard [lo, hi) of the input; n is the global length. */
static int load_shard(mu_app *app, int32_t **shard, int64_t *n, int64_t *lo, int64_t *hi) {
    const mu_opts *o = app->opts;
    const char *path = mu_opt_str(o, "input");
    char why[256];
    *shard = NULL;
    int rc = 0;
    if (!path) {
        *n = mu_opt_int(o, "n");
        mu_block_range(*n, app->size, app->rank, lo, hi);
        /* Refused up front against the memory a rank may use: its shard of int32 values. */
        double need = 4.0 * (double)(*hi - *lo + 1),
               have = mu_mem_rank_available(app->dev.local_size);
        if (need > have)
            rc = mu_error("--n=%lld: %.3g GB of values a rank on %d rank(s), more than the %.3g "
                          "GB a rank may use here: use more ranks or a smaller --n",
                          (long long)*n, need / 1e9, app->size, have / 1e9);
        else if (!(*shard = malloc((size_t)(*hi - *lo + 1) * sizeof **shard)))
            rc = mu_error("out of memory for %lld values", (long long)(*hi - *lo));
        else
            mu_maxsub_generate(app, *lo, *hi, *shard);
        return mu_error_collective(app->comm, rc);
    }
    if (mu_in_pick_format(path, mu_opt_str(o, "format")) == MU_FMT_BIN) {
        rc = mu_in_binary_count(path, n);
        MU_TRY(mu_error_collective(app->comm, rc));
        mu_block_range(*n, app->size, app->rank, lo, hi);
        *shard = malloc((size_t)(*hi - *lo + 1) * sizeof **shard);
        if (!*shard)
            rc = mu_error("out of memory for %lld values", (long long)(*hi - *lo));
        else
            rc = mu_in_read_binary_range_threads(
                path, *lo, *hi, *shard, mu_threads_per_rank(&app->dev, 0, why, sizeof why));
        return mu_error_collective(app->comm, rc);
    }
    /* Text has no fixed record size: rank 0 parses and scatters. */
    int32_t *all = NULL;
    if (app->rank == 0) rc = mu_in_read_text_1d(path, &all, n);
    MU_TRY(mu_error_collective(app->comm, rc));
    MPI_Bcast(n, 1, MPI_INT64_T, 0, app->comm);
    mu_block_range(*n, app->size, app->rank, lo, hi);
    int *counts = NULL, *displs = NULL;
    if (*n > INT32_MAX)
        rc = mu_error("%s: text input above 2^31 values; convert it to binary", path);
    MU_TRY(mu_error_collective(app->comm, rc));
    if (app->rank == 0) {
        counts = malloc((size_t)app->size * sizeof *counts);
        displs = malloc((size_t)app->size * sizeof *displs);
        for (int r = 0; r < app->size; r++) {
            int64_t a, b;
            mu_block_range(*n, app->size, r, &a, &b);
            counts[r] = (int)(b - a);
            displs[r] = (int)a;
        }
    }
    *shard = malloc((size_t)(*hi - *lo + 1) * sizeof **shard);
    MPI_Scatterv(all, counts, displs, MPI_INT32_T, *shard, (int)(*hi - *lo), MPI_INT32_T, 0,
                 app->comm);
    free(all);
    free(counts);
    free(displs);
    return 0;
}

int mu_maxsub_reduce_shard(const mu_app *app, const int32_t *x, int64_t lo, int64_t hi,
                           int empty_allowed, mu_mss_summary *s) {
    if (app->dev.use_gpu && hi > lo) {
        return MU_GPU(mu_gpu_mss1d_host(x, hi - lo, lo, empty_allowed, s),
                      "rank %d GPU 1-D reduction", app->rank);
    }
    *s = mu_mss_scan_array(x, hi - lo, lo, empty_allowed);
    return 0;
}

/* A GPU rank's shard of generated Philox data: made and reduced on the device. */
static int reduce_on_device(mu_app *app, const mu_philox_spec *spec, int empty_allowed, int64_t *n,
                            mu_mss_summary *s) {
    int64_t lo, hi;
    *n = mu_opt_int(app->opts, "n");
    mu_block_range(*n, app->size, app->rank, &lo, &hi);
    return MU_GPU(mu_gpu_mss1d_philox(*spec, lo, hi, empty_allowed, s),
                  "rank %d GPU 1-D reduction of generated data", app->rank);
}

/* Every rank's summary of its shard. */
/* spec: Philox data to make on this rank's device, or NULL. */
static int shard_summary(mu_app *app, int empty_allowed, const mu_philox_spec *on_device,
                         int64_t *n, mu_mss_summary *mine) {
    if (on_device) {
        MU_TRY(mu_error_collective(app->comm, 0)); /* load_shard's check on CPU ranks */
        mu_timer_begin("reduce");
        int rc = reduce_on_device(app, on_device, empty_allowed, n, mine);
        MU_TRY(mu_error_collective(app->comm, rc));
        mu_timer_end("reduce");
        return 0;
    }
    int32_t *shard;
    int64_t lo, hi;
    mu_timer_begin("input");
    MU_TRY(load_shard(app, &shard, n, &lo, &hi));
    mu_timer_end("input");
    mu_timer_begin("reduce");
    int rc = mu_maxsub_reduce_shard(app, shard, lo, hi, empty_allowed, mine);
    free(shard);
    MU_TRY(mu_error_collective(app->comm, rc));
    mu_timer_end("reduce");
    return 0;
}

int mu_maxsub_combine_1d(const mu_app *app, const mu_mss_summary *mine, int empty_allowed,
                         mu_mss_summary *r) {
    /* One round: every shard's summary to rank 0, combined in rank order. */
    mu_mss_summary *all = app->rank == 0 ? malloc((size_t)app->size * sizeof *all) : NULL;
    int rc = app->rank == 0 && !all ? mu_error("out of memory for %d summaries", app->size) : 0;
    MU_TRY(mu_error_collective(app->comm, rc));
    MPI_Gather(mine, (int)sizeof *mine, MPI_BYTE, all, (int)sizeof *mine, MPI_BYTE, 0, app->comm);
    *r = mu_mss_identity(0);
    if (app->rank == 0)
        for (int k = 0; k < app->size; k++) *r = mu_mss_combine(*r, all[k], empty_allowed);
    free(all);
    return 0;
}

int mu_maxsub_run_1d(mu_app *app) {
    int empty_allowed = mu_opt_is(app->opts, "empty", "allowed");
    mu_philox_spec spec;
    int on_device = app->dev.use_gpu && mu_maxsub_philox(app->opts, &spec);
    int64_t n;
    mu_mss_summary mine;
    MU_TRY(shard_summary(app, empty_allowed, on_device ? &spec : NULL, &n, &mine));
    mu_info("1-D maximum subarray of %lld values, %d shard(s), empty %s%s", (long long)n, app->size,
            empty_allowed ? "allowed" : "forbidden", on_device ? ", generated on the GPU" : "");

    mu_mss_summary r;
    mu_timer_begin("combine");
    int rc = mu_maxsub_combine_1d(app, &mine, empty_allowed, &r);
    mu_timer_end("combine");
    if (rc) return 1;
    if (app->rank != 0) return mu_error_collective(app->comm, 0);

    int empty = empty_allowed && r.best <= 0;
    printf("maxsub: dim=1 n=%lld sum=%lld start=%lld end=%lld%s\n", (long long)n, (long long)r.best,
           (long long)(empty ? -1 : r.best_start), (long long)(empty ? -1 : r.best_end),
           empty ? " (empty subarray)" : "");
    fflush(stdout);
    mu_summary_result_int("n", n);
    mu_summary_result_int("sum", r.best);
    mu_summary_result_int("start", empty ? -1 : r.best_start);
    mu_summary_result_int("end", empty ? -1 : r.best_end);
    char row[128];
    snprintf(row, sizeof row, "%lld,%lld,%lld", (long long)r.best,
             (long long)(empty ? -1 : r.best_start), (long long)(empty ? -1 : r.best_end));
    rc = mu_maxsub_write_csv(mu_opt_str(app->opts, "output"), "sum,start,end", row);
    return mu_error_collective(app->comm, rc);
}
