#include "mpi/taskfarm.h"
#include "core/error.h"
#include "core/progress.h"
#include "core/summary.h"
#include <stdlib.h>
#include <string.h>

enum { TAG_WORK = 7101, TAG_ASSIGN = 7102 };
enum { HDR = 3 }; /* first, count, status */

static int64_t guided_chunk(const mu_farm_cfg *cfg, int64_t remaining, int size) {
    int64_t c = remaining / (2 * (int64_t)size);
    if (c < cfg->min_chunk) c = cfg->min_chunk;
    if (cfg->max_chunk > 0 && c > cfg->max_chunk) c = cfg->max_chunk;
    return c < remaining ? c : remaining;
}

static int run_worker(MPI_Comm comm, size_t result_size, mu_task_fn fn, void *ctx,
                      mu_farm_stats *stats) {
    int rc = 0;
    int64_t hdr[HDR] = {0, 0, 0};
    char *msg = malloc(sizeof hdr);
    memcpy(msg, hdr, sizeof hdr);
    MPI_Send(msg, (int)sizeof hdr, MPI_BYTE, 0, TAG_WORK, comm);
    for (;;) {
        int64_t job[2];
        MPI_Recv(job, 2, MPI_INT64_T, 0, TAG_ASSIGN, comm, MPI_STATUS_IGNORE);
        if (job[1] == 0) break;
        size_t bytes = sizeof hdr + (size_t)job[1] * result_size;
        char *grown = realloc(msg, bytes);
        if (!grown) {
            rc = mu_error("out of memory for %lld task results", (long long)job[1]);
            bytes = sizeof hdr;
        } else {
            msg = grown;
            rc = fn(job[0], job[1], msg + sizeof hdr, ctx);
            if (rc) bytes = sizeof hdr;
            stats->tasks_done_by_me += job[1];
            stats->chunks_by_me++;
        }
        int64_t out[HDR] = {job[0], rc ? 0 : job[1], rc};
        memcpy(msg, out, sizeof out);
        MPI_Send(msg, (int)bytes, MPI_BYTE, 0, TAG_WORK, comm);
    }
    free(msg);
    return rc;
}

static int run_master(MPI_Comm comm, int size, int64_t ntasks, size_t result_size, mu_task_fn fn,
                      void *ctx, const mu_farm_cfg *cfg, char *results, mu_farm_stats *stats) {
    int64_t next = 0, placed = 0;
    /* busy: workers holding a range. The master works only while every
     * active worker is busy: a worker without a range has sent (or is about
     * to send) a message, and one MPI_Iprobe need not see it (MPI promises
     * only that repeated probes eventually do), so an idle worker is waited
     * for, not left idle while the master takes chunk after chunk. */
    int active = size - 1, busy = 0, failed = 0, stopped = 0;
    char *buf = NULL;
    size_t cap = 0;
    mu_progress prog;
    if (cfg->progress) mu_progress_begin(&prog, cfg->progress, "tasks", (double)ntasks);
    while (active > 0 || (next < ntasks && !failed && !stopped)) {
        if (!stopped && cfg->stop && cfg->stop(ctx)) stopped = 1;
        if (stopped && active == 0) break;
        int flag = 0;
        MPI_Status st;
        if (active > 0) MPI_Iprobe(MPI_ANY_SOURCE, TAG_WORK, comm, &flag, &st);
        int own = !flag && next < ntasks && !failed && !stopped && busy == active &&
                  (cfg->master_works || active == 0);
        if (own) {
            int64_t c = cfg->min_chunk < ntasks - next ? cfg->min_chunk : ntasks - next;
            if (active == 0) c = guided_chunk(cfg, ntasks - next, 1);
            if (fn(next, c, results + (size_t)next * result_size, ctx)) failed = 1;
            stats->tasks_done_by_me += c;
            stats->chunks_by_me++;
            next += c;
            placed += c;
        } else {
            if (!flag) MPI_Probe(MPI_ANY_SOURCE, TAG_WORK, comm, &st);
            int bytes;
            MPI_Get_count(&st, MPI_BYTE, &bytes);
            if ((size_t)bytes > cap) {
                char *grown = realloc(buf, (size_t)bytes);
                if (!grown) abort(); /* cannot even drain the message */
                buf = grown;
                cap = (size_t)bytes;
            }
            MPI_Recv(buf, bytes, MPI_BYTE, st.MPI_SOURCE, TAG_WORK, comm, MPI_STATUS_IGNORE);
            int64_t hdr[HDR];
            memcpy(hdr, buf, sizeof hdr);
            if (hdr[2]) failed = 1;
            if (hdr[1] > 0 || hdr[2]) busy--; /* a range's answer (not a first request) */
            if (hdr[1] > 0) {
                memcpy(results + (size_t)hdr[0] * result_size, buf + sizeof hdr,
                       (size_t)hdr[1] * result_size);
                placed += hdr[1];
            }
            int64_t job[2] = {next, 0};
            if (!failed && !stopped && next < ntasks) {
                job[1] = guided_chunk(cfg, ntasks - next, size);
                next += job[1];
                busy++;
            } else {
                active--;
            }
            MPI_Send(job, 2, MPI_INT64_T, st.MPI_SOURCE, TAG_ASSIGN, comm);
        }
        if (cfg->progress) mu_progress_update(&prog, (double)placed);
    }
    if (cfg->progress) mu_progress_end(&prog, (double)placed);
    free(buf);
    return failed;
}

/* Who did the work, in the run's summary: tasks and chunks of each rank, so a
 * reader (and the multi-node tests) can see every worker took part. Only for a
 * farm over the whole world, whose ranks are the summary's. */
static void record_stats(MPI_Comm comm, int rank, int size, const char *phase,
                         const mu_farm_stats *local) {
    int same = MPI_UNEQUAL;
    MPI_Comm_compare(comm, MPI_COMM_WORLD, &same);
    if (same != MPI_IDENT && same != MPI_CONGRUENT) return;
    int64_t mine[2] = {local->tasks_done_by_me, local->chunks_by_me};
    int64_t *all = rank == 0 ? malloc((size_t)size * sizeof mine) : NULL;
    MPI_Gather(mine, 2, MPI_INT64_T, all, 2, MPI_INT64_T, 0, comm);
    if (rank == 0 && all) mu_summary_farm(phase ? phase : "tasks", all, size);
    free(all);
}

int mu_taskfarm_run(MPI_Comm comm, int64_t ntasks, size_t result_size, mu_task_fn fn, void *ctx,
                    const mu_farm_cfg *cfg_in, void *all_results, mu_farm_stats *stats) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    mu_error_clear();
    mu_farm_cfg cfg = *cfg_in;
    if (cfg.min_chunk < 1) cfg.min_chunk = 1;
    mu_farm_stats local = {0, 0};
    int rc;
    if (rank == 0)
        rc = run_master(comm, size, ntasks, result_size, fn, ctx, &cfg, all_results, &local);
    else
        rc = run_worker(comm, result_size, fn, ctx, &local);
    if (stats) *stats = local;
    /* A worker's own failure is its message; the master only stopped handing out work. */
    if (rank == 0 && rc && !mu_error_message()[0]) rc = 0;
    rc = mu_error_collective(comm, rc);
    record_stats(comm, rank, size, cfg.progress, &local);
    return rc;
}
