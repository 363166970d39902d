/* The fuzzy run, collective: input, moments and r (exact reductions), the FM
 * iteration from every start (exact: the whole set replicated, starts handed
 * out by the task farm; partitioned: the study's dealt partitions spread over
 * the ranks), acceptance, the merge, memberships, and the outputs. Every
 * floating-point sum that steers the run is exact or done in a fixed order on
 * one rank, so the answer is bitwise the same on any number of ranks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzzy/run_state.h"
#include "core/error.h"
#include "core/log.h"
#include "core/signals.h"
#include "core/summary.h"
#include "core/timer.h"
#include "gpu/fuzzy_gpu.h"
#include "mpi/wait.h"

/* --arith=fast: the fast form on every rank's GPU, or the bitwise form on all
 * (a start's answer must not depend on which rank ran it). Collective. */
static int set_arith_fast(mu_app *app, fm_ctx *ctx, int gpus) {
    if (gpus < app->size) {
        if (app->rank == 0)
            mu_warn("fuzzy: --arith=fast needs a GPU on every rank (%d of %d have one): the "
                    "bitwise form runs",
                    gpus, app->size);
        mu_summary_str("arith", "bitwise");
        return 0;
    }
    int rc = MU_GPU(mu_gpu_fm_set_fast(ctx->gpu, 1), "the fast FM iteration on the GPU");
    if (mu_error_collective(app->comm, rc)) return 1;
    ctx->fast = 1;
    mu_info("fuzzy: --arith=fast: fused multiply-adds, a refined approximate reciprocal, sums "
            "split over %d threads a start; not the CPU's bits",
            MU_GPU_FM_FAST_LANES);
    mu_summary_str("arith", "fast");
    return 0;
}

/* Mean, covariance, optional z-scores, log det C and r. */
static int model(mu_app *app, const mu_fz_cfg *c, fz_state *s, double *logdet) {
    int F = s->F;
    int repl = c->exact && !s->ring; /* every rank holds the whole set */
    s->mean = malloc((size_t)F * sizeof *s->mean);
    s->cov = malloc((size_t)(F * F) * sizeof *s->cov);
    int rc = !s->mean || !s->cov ? mu_error("out of memory") : 0;
    MU_TRY(mu_error_collective(app->comm, rc));
    mu_timer_begin("moments");
    MU_TRY(
        mu_fz_moments(s->x + s->sum0 * F, s->sum1 - s->sum0, F, s->n, app->comm, s->mean, s->cov));
    if (c->zscore) {
        s->shift = malloc((size_t)F * sizeof *s->shift);
        s->scale = malloc((size_t)F * sizeof *s->scale);
        if (!s->shift || !s->scale) rc = mu_error("out of memory");
        /* Exact: the replicated set gets a z-scored copy (rank 0 keeps the input
         * units for the outputs); partitioned: each rank's rows change in place. */
        double *src = s->x;
        if (!rc && repl && !(s->x = malloc((size_t)(s->n * F) * sizeof *s->x))) {
            s->x = src;
            rc = mu_error("out of memory for the z-scores");
        }
        if (!rc && !repl && app->rank == 0 && !(s->z = malloc((size_t)(s->n * F) * sizeof *s->z)))
            rc = mu_error("out of memory for the z-scores");
        MU_TRY(mu_error_collective(app->comm, rc));
        for (int f = 0; f < F; f++) {
            s->shift[f] = s->mean[f];
            s->scale[f] = sqrt(s->cov[f * F + f]);
        }
        /* The same arithmetic on every copy, so every rank holds the same values. */
        for (int64_t i = 0; i < s->nloc; i++)
            for (int f = 0; f < F; f++)
                s->x[i * F + f] = (src[i * F + f] - s->shift[f]) / s->scale[f];
        if (repl) {
            s->z = s->x;
            if (app->rank != 0) { /* the input units serve rank 0's outputs only */
                free(s->d.x);
                s->d.x = NULL;
            }
        } else if (app->rank == 0) {
            for (int64_t i = 0; i < s->n; i++)
                for (int f = 0; f < F; f++)
                    s->z[i * F + f] = (s->d.x[i * F + f] - s->shift[f]) / s->scale[f];
        }
        MU_TRY(mu_fz_moments(s->x + s->sum0 * F, s->sum1 - s->sum0, F, s->n, app->comm, s->mean,
                             s->cov));
    } else {
        s->z = repl ? s->x : s->d.x;
    }
    int bad = -1;
    rc = mu_fz_logdet(s->cov, F, logdet, &bad);
    mu_timer_end("moments");
    if (rc) {
        /* Every rank has the same covariance: the same failure everywhere. */
        char name[128] = "";
        if (app->rank == 0 && s->d.names) snprintf(name, sizeof name, " ('%s')", s->d.names[bad]);
        int over = !isfinite(s->cov[(int64_t)bad * F + bad]);
        rc = over ? mu_error("%s: the covariance of the %lld objects overflows the double range "
                             "in column %d%s: its values are too large",
                             fz_data_name(c), (long long)s->n, bad + 1, name)
                  : mu_error("%s: the covariance of the %lld objects is singular: column %d%s is "
                             "a linear combination of the columns before it (Cholesky pivot not "
                             "positive)",
                             fz_data_name(c), (long long)s->n, bad + 1, name);
        return mu_error_collective(app->comm, rc);
    }
    mu_info("fuzzy: %lld objects, %d feature(s), log det C = %.10g%s", (long long)s->n, F, *logdet,
            c->zscore ? " (z-scored)" : "");

    mu_timer_begin("factor r");
    if (c->r_fixed > 0) {
        s->r = c->r_fixed;
        mu_info("fuzzy: r = %.10g (given by --r)", s->r);
    } else {
        int64_t count = s->sum1 - s->sum0;
        double *d2 = malloc((size_t)(count ? count : 1) * sizeof *d2);
        rc = d2 ? 0 : mu_error("out of memory");
        MU_TRY(mu_error_collective(app->comm, rc));
        for (int64_t i = 0; i < count; i++) {
            const double *xi = s->x + (s->sum0 + i) * F;
            double t = 0;
            for (int f = 0; f < F; f++) {
                double dd = xi[f] - s->mean[f];
                t += dd * dd;
            }
            d2[i] = t;
        }
        mu_fz_rinfo info;
        char why[128];
        int threads = mu_threads_per_rank(&app->dev, 0, why, sizeof why);
        rc = mu_fz_solve_r(d2, count, s->n, F, *logdet, c->norm, c->r_tol, threads, app->comm,
                           &info);
        free(d2);
        if (rc) return 1; /* the same path on every rank: every rank failed alike */
        s->r = info.r;
        mu_info("fuzzy: r = %.10g (%s form; %d Newton steps, %d reductions, g = %.2g)", s->r,
                c->norm == MU_FZ_R_PRINTED ? "printed" : "density", info.steps, info.evals,
                info.resid);
        mu_summary_int("r_newton_steps", info.steps);
        mu_summary_int("r_reductions", info.evals);
    }
    mu_timer_end("factor r");
    return 0;
}

/* The partitions' warnings (partitioned mode). */
static void partition_warnings(const mu_app *app, const mu_fz_cfg *c, const fz_state *s) {
    if (!c->exact && s->p < app->size)
        mu_warn("fuzzy: %d partition(s) on %d ranks: ranks %d..%d have no partition", s->p,
                app->size, s->p, app->size - 1);
    if (!c->exact && (double)s->n / s->p < 0.1 * (double)s->n)
        mu_warn("fuzzy: %d partitions hold under 10%% of the data each (the study keeps p <= 8)",
                s->p);
}

/* eps1 and eps2 as squared distances in the space FM runs in; logged and summarized. */
static void tolerances(const mu_fz_cfg *c, const fz_state *s, double logdet, double *eps1,
                       double *eps2) {
    double inv_r2 = 1.0 / (s->r * s->r);
    *eps1 = c->units_abs ? c->eps1 : c->eps1 * c->eps1 * inv_r2;
    *eps2 = c->units_abs ? c->eps2 : c->eps2 * c->eps2 * inv_r2;
    mu_info("fuzzy: %s, eps1 = %.4g, eps2 = %.4g (squared distances), max-it %lld",
            c->exact ? "exact FM over the whole set"
                     : "the study's partitioned FM with a single-linkage merge",
            *eps1, *eps2, (long long)c->max_it);
    mu_summary_real("log_det_cov", logdet);
    mu_summary_real("eps1_squared", *eps1);
    mu_summary_real("eps2_squared", *eps2);
}

/* The FM context over this rank's rows: the device takes them once (the ring
 * runs on the CPU); the signal handlers installed where *signals (a library
 * call leaves the caller's alone; cleared where they could not be). Collective. */
static int ctx_open(mu_app *app, const mu_fz_cfg *c, const fz_state *s, double eps1, int *signals,
                    fm_ctx *ctx) {
    ctx->set = (mu_fm_set){s->x, s->nloc, s->F, s->r * s->r, eps1, c->max_it, c->sum_block};
    int want_gpu = app->dev.use_gpu && !s->ring && s->nloc > 0;
    if (want_gpu && s->F > MU_GPU_FM_MAX_FEATURES) {
        if (app->rank == 0)
            mu_warn("fuzzy: %d features: the GPU iteration takes at most %d; it runs on the CPU",
                    s->F, MU_GPU_FM_MAX_FEATURES);
        want_gpu = 0;
    }
    int rc = 0;
    mu_timer_begin("device copy");
    if (want_gpu)
        rc =
            MU_GPU(mu_gpu_fm_create(s->x, s->nloc, s->F, &ctx->gpu), "the FM iteration on the GPU");
    mu_timer_end("device copy");
    if (!rc && *signals && mu_signals_install()) rc = 1;
    if (rc) *signals = 0;
    MU_TRY(mu_error_collective(app->comm, rc));
    int on_gpu = ctx->gpu != NULL, gpus = 0;
    MPI_Allreduce(&on_gpu, &gpus, 1, MPI_INT, MPI_SUM, app->comm);
    if (gpus)
        mu_info("fuzzy: the FM iteration runs on the GPU of %d of %d rank(s)", gpus, app->size);
    else if (app->dev.use_gpu && s->ring)
        mu_info("fuzzy: the ring runs on the CPU of every rank");
    if (!c->arith_fast) mu_summary_str("arith", "bitwise");
    if (c->arith_fast) MU_TRY(set_arith_fast(app, ctx, gpus));
    return 0;
}

/* The device's kernel time reported and the device copy freed. */
static void ctx_close(const mu_app *app, fm_ctx *ctx) {
    if (!ctx->gpu) return;
    mu_debug("fuzzy: GPU kernel time %.3f ms on rank %d", ctx->gpu_ms, app->rank);
    if (app->rank == 0) {
        mu_info("fuzzy: the FM kernels took %.6f s on rank 0's GPU", ctx->gpu_ms * 1e-3);
        mu_summary_real("gpu_kernel_seconds_rank0", ctx->gpu_ms * 1e-3);
    }
    mu_gpu_fm_destroy(ctx->gpu);
    ctx->gpu = NULL;
}

int mu_fz_run(mu_app *app, const mu_fz_cfg *c) {
    fz_state s;
    fm_ctx ctx;
    memset(&s, 0, sizeof s);
    memset(&ctx, 0, sizeof ctx);
    mu_wait_configure(app->dev.local_size);
    int signals = c->exact && !c->out, stopped = 0;
    double logdet = 0, eps1, eps2;

    mu_timer_begin("input");
    int rc = fz_load(app, c, &s);
    mu_timer_end("input");
    if (rc) goto done;
    partition_warnings(app, c, &s);
    MU_TRY_GOTO(model(app, c, &s, &logdet));
    tolerances(c, &s, logdet, &eps1, &eps2);
    MU_TRY_GOTO(ctx_open(app, c, &s, eps1, &signals, &ctx));
    mu_timer_begin("fm");
    rc = c->exact ? fz_fm_exact(app, c, &s, &ctx, eps2, &stopped)
                  : fz_fm_partitioned(app, &s, &ctx, eps2);
    mu_timer_end("fm");
    ctx_close(app, &ctx);
    if (signals) mu_signals_restore();
    signals = 0;
    if (!rc && stopped) {
        app->exit_status = 3; /* stopped by a signal after its checkpoint */
        goto done;
    }
    if (!rc && app->rank == 0 && s.m_raw == 0)
        rc = mu_error("no start converged within --max-it=%lld: no prototype (raise --max-it or "
                      "--eps1)",
                      (long long)c->max_it);
    if (!rc && app->rank == 0) rc = fz_finish(c, &s);
    rc = mu_error_collective(app->comm, rc);
done:
    mu_gpu_fm_destroy(ctx.gpu);
    if (signals) mu_signals_restore();
    fz_state_free(&s);
    return rc;
}
