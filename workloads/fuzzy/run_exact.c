/* The fuzzy run's exact mode: the whole set on every rank (or around a
 * ring), the starts handed out by the task farm in rounds with checkpoints,
 * accepted on rank 0. */
#include <stdlib.h>
#include <string.h>
#include "fuzzy/run_state.h"
#include "core/error.h"
#include "core/log.h"
#include "core/signals.h"
#include "mpi/taskfarm.h"

/* Rank 0: the records of all n starts -> statistics and accepted prototypes.
 * Exact mode accepts on the host: its end points come from the task farm's
 * ranks (or the ring) in chunks, and the checkpoint records need them anyway;
 * the partitioned mode, whose partitions each run whole on one rank, accepts
 * on the device (fz_gpu_ranges with fm_dev_accept). */
static int accept_records(fz_state *s, const double *rec, double eps2) {
    int F = s->F;
    double *v = malloc((size_t)(s->n * F) * sizeof *v);
    mu_fm_stat *st = malloc((size_t)s->n * sizeof *st);
    s->raw = malloc((size_t)(s->n * F) * sizeof *s->raw);
    s->raw_start = malloc((size_t)s->n * sizeof *s->raw_start);
    s->raw_part = calloc((size_t)s->n, sizeof *s->raw_part);
    int rc = 0;
    if (!v || !st || !s->raw || !s->raw_start || !s->raw_part) {
        rc = mu_error("out of memory");
    } else {
        for (int64_t k = 0; k < s->n; k++) {
            memcpy(v + k * F, rec + k * (F + 2), (size_t)F * sizeof *v);
            st[k].iterations = (int64_t)rec[k * (F + 2) + F];
            st[k].converged = rec[k * (F + 2) + F + 1] != 0;
            s->it_total += st[k].iterations;
            if (st[k].iterations > s->it_max) s->it_max = st[k].iterations;
            s->unconverged += !st[k].converged;
        }
        s->m_raw = mu_fm_accept(v, st, s->n, F, eps2, s->raw, s->raw_start);
    }
    free(v);
    free(st);
    return rc;
}

/* Exact mode: the starts in rounds (each handed out by the task farm, or run
 * around the ring); between rounds a stop signal or --checkpoint-every writes
 * the records so far. *stopped: 1 when a signal ended the run early. */
int fz_fm_exact(mu_app *app, const mu_fz_cfg *c, fz_state *s, fm_ctx *ctx, double eps2,
                int *stopped) {
    int F = s->F;
    const int64_t n = s->n;
    *stopped = 0;
    double *rec = app->rank == 0 ? malloc((size_t)(n * (F + 2)) * sizeof *rec) : NULL;
    int rc = app->rank == 0 && !rec ? mu_error("out of memory for %lld results", (long long)n) : 0;
    MU_TRY(mu_error_collective(app->comm, rc));
    uint64_t fp = 0;
    int64_t done = 0;
    if (app->rank == 0) fp = mu_fz_fingerprint(s->z, n, F, &ctx->set);
    if (ctx->fast) fp ^= 0x6661737466617374ULL; /* a fast run's checkpoint is not a bitwise one's */
    if (c->restart) {
        if (app->rank == 0)
            rc = mu_fz_ckpt_read(c->checkpoint, n, F, fp, ctx->set.max_it, &done, rec);
        if (mu_error_collective(app->comm, rc)) {
            free(rec);
            return 1;
        }
        MPI_Bcast(&done, 1, MPI_INT64_T, 0, app->comm);
        mu_info("fuzzy: restarting from %s: %lld of %lld starts done", c->checkpoint,
                (long long)done, (long long)n);
    }
    /* Chunks: each launch waits for its slowest start, and a card runs its
     * starts best all in one launch (fewer starts a launch leave it idle
     * longer), so GPU ranks take one even share of a round each. */
    int gpu = ctx->gpu != NULL, all_gpu = 0;
    MPI_Allreduce(&gpu, &all_gpu, 1, MPI_INT, MPI_MIN, app->comm);
    int64_t round = c->checkpoint_every > 0 ? c->checkpoint_every : all_gpu ? (1 << 20) : 4096;
    int64_t span = round < n ? round : n;
    int64_t chunk = c->farm_chunk > 0 ? c->farm_chunk
                    : !all_gpu        ? 1
                                      : (span + app->size - 1) / app->size;
    mu_farm_cfg fc = {.min_chunk = chunk, .master_works = 1, .progress = "starts"};
    mu_farm_stats fs = {0, 0};
    while (done < n && !rc) {
        int64_t end = n - done < round ? n : done + round;
        if (s->ring) {
            rc = mu_fz_ring(app->comm, &ctx->set, n, s->ring0, s->nloc, rec);
            end = n; /* the ring runs every start in one sweep of the data */
        } else {
            ctx->base = done;
            rc = mu_taskfarm_run(app->comm, end - done, (size_t)(F + 2) * sizeof(double),
                                 fz_farm_task, ctx, &fc, rec ? rec + done * (F + 2) : NULL, &fs);
        }
        if (rc) break;
        done = end;
        int sig = mu_signals_any(app->comm);
        if (done < n && (sig || c->checkpoint_every > 0)) {
            if (app->rank == 0) rc = mu_fz_ckpt_write(c->checkpoint, n, F, fp, done, rec);
            rc = mu_error_collective(app->comm, rc);
            if (!rc) mu_debug("fuzzy: checkpoint %s: %lld starts", c->checkpoint, (long long)done);
        }
        if (!rc && sig && done < n) {
            if (app->rank == 0)
                mu_warn("fuzzy: stopped by %s after %lld of %lld starts: checkpoint written to "
                        "%s; resume with --restart (exit status 3)",
                        mu_signals_pending() ? mu_signals_name(mu_signals_pending())
                                             : "a signal on another rank",
                        (long long)done, (long long)n, c->checkpoint);
            *stopped = 1;
            break;
        }
    }
    mu_debug("fuzzy: rank %d ran %lld starts in %lld chunks", app->rank,
             (long long)fs.tasks_done_by_me, (long long)fs.chunks_by_me);
    if (!rc && !*stopped && app->rank == 0) rc = accept_records(s, rec, eps2);
    free(rec);
    return mu_error_collective(app->comm, rc);
}
