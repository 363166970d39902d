#define _POSIX_C_SOURCE 200809L
/* The task farm on any number of ranks: every task computed exactly once, the
 * results placed by task id, uneven costs balanced, and a failure in one task
 * reported on every rank. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "core/error.h"
#include "mpi/taskfarm.h"
#include "mu_test.h"

typedef struct {
    int64_t fail_at; /* task id that fails, or -1 */
    int rank;
} farm_ctx;

static int64_t value_of(int64_t id) {
    return id * 2654435761ll % 1000003ll;
}

static int square_tasks(int64_t first, int64_t count, void *results, void *vctx) {
    farm_ctx *c = vctx;
    int64_t *out = results;
    for (int64_t t = 0; t < count; t++) {
        int64_t id = first + t;
        if (id == c->fail_at) return mu_error("task %lld failed on purpose", (long long)id);
        /* Uneven work: every 7th task is slow. */
        if (id % 7 == 0) {
            struct timespec ts = {0, 200000};
            nanosleep(&ts, NULL);
        }
        out[2 * t] = value_of(id);
        out[2 * t + 1] = c->rank;
    }
    return 0;
}

/* Tasks of 20 ms each: long against a message, as a tree node's aggregation. */
static int slow_tasks(int64_t first, int64_t count, void *results, void *vctx) {
    const struct timespec ts = {0, 20000000};
    for (int64_t t = 0; t < count; t++) nanosleep(&ts, NULL);
    return square_tasks(first, count, results, vctx);
}

int main(int argc, char **argv) {
    int provided; /* as the command: host threads beside MPI */
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int64_t ntasks = 1001;
    int64_t *res = rank == 0 ? malloc(ntasks * 2 * sizeof *res) : NULL;
    if (res)
        for (int64_t i = 0; i < 2 * ntasks; i++) res[i] = -1;

    for (int master_works = 0; master_works <= 1; master_works++) {
        farm_ctx ctx = {-1, rank};
        mu_farm_cfg cfg = {.min_chunk = 3, .max_chunk = 50, .master_works = master_works};
        mu_farm_stats st;
        int rc = mu_taskfarm_run(MPI_COMM_WORLD, ntasks, 2 * sizeof(int64_t), square_tasks, &ctx,
                                 &cfg, res, &st);
        CHECK(rc == 0, "farm run returned an error");
        int64_t done = 0;
        MPI_Reduce(&st.tasks_done_by_me, &done, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            CHECK(done == ntasks, "every task computed exactly once");
            for (int64_t i = 0; i < ntasks; i++)
                CHECK(res[2 * i] == value_of(i), "result placed by task id");
            if (size > 1 && !master_works)
                for (int64_t i = 0; i < ntasks; i++)
                    CHECK(res[2 * i + 1] != 0, "master computes nothing when told not to");
        }
        if (!master_works && size > 1)
            CHECK(rank == 0 ? st.tasks_done_by_me == 0 : 1, "master idle");
    }

    /* Few long tasks, the master working too (a tree stage of 12 nodes in
     * chunks of 6): every worker gets a range, none waits while the master
     * takes chunk after chunk. */
    if (size > 1) {
        const int64_t nfew = 2 * (int64_t)size;
        farm_ctx ctx = {-1, rank};
        mu_farm_cfg cfg = {.min_chunk = 2, .master_works = 1};
        mu_farm_stats st;
        int rc = mu_taskfarm_run(MPI_COMM_WORLD, nfew, 2 * sizeof(int64_t), slow_tasks, &ctx, &cfg,
                                 res, &st);
        CHECK(rc == 0, "few long tasks: farm run returned an error");
        int64_t least = 0;
        MPI_Allreduce(&st.tasks_done_by_me, &least, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
        CHECK_INT_EQ(least, 2); /* every rank one chunk of 2 */
    }

    /* A failing task: every rank gets a non-zero return and the same message. */
    farm_ctx ctx = {500, rank};
    mu_farm_cfg cfg = {.min_chunk = 2, .master_works = 1};
    int rc = mu_taskfarm_run(MPI_COMM_WORLD, ntasks, 2 * sizeof(int64_t), square_tasks, &ctx, &cfg,
                             res, NULL);
    CHECK(rc != 0, "failure reported on every rank");
    CHECK(strstr(mu_error_message(), "task 500 failed") != NULL, "failure message shared");

    /* Zero tasks. */
    rc = mu_taskfarm_run(MPI_COMM_WORLD, 0, 8, square_tasks, &ctx, &cfg, res, NULL);
    CHECK(rc == 0, "zero tasks");

    char name[64];
    snprintf(name, sizeof name, "test_taskfarm on %d rank(s)", size);
    const int status = mu_report_all(name, MPI_COMM_WORLD);
    free(res);
    MPI_Finalize();
    return status;
}
