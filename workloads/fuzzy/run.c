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
#include "fuzzy/run.h"
#include "core/error.h"
#include "core/free.h"
#include "core/memory.h"
#include "core/log.h"
#include "core/signals.h"
#include "core/summary.h"
#include "core/timer.h"
#include "fuzzy/fm.h"
#include "gpu/fuzzy_gpu.h"
#include "gpu/gpu.h"
#include "mpi/binding.h"
#include "mpi/partition.h"
#include "mpi/taskfarm.h"
#include "mpi/wait.h"

/* The largest membership table kept (doubles): 1 GiB. */
#define MU_FZ_MAX_MEMBERSHIPS ((int64_t)1 << 27)

/* ---- the kernel seam ---------------------------------------------------------- */

typedef struct {
    mu_fm_set set;
    mu_gpu_fm *gpu; /* the device copy of this rank's rows, or NULL: the CPU */
    int64_t row0;   /* the set's first row in the device copy */
    int64_t base;   /* task farm: task t is start base + t */
    double gpu_ms;  /* kernel time on this rank */
    int fast;       /* --arith=fast in force (every rank on a GPU) */
} fm_ctx;

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

/* Runs the device over ranges and turns its outputs into mu_fm_stat. With
 * proto, the acceptance runs on the device too (the same prototypes as
 * mu_fm_accept, to the bit): only the prototypes, packed in range order, their
 * starts and the counts per range come back; else the end points, into v. */
typedef struct {
    double eps2, *proto;
    int64_t *from, *nproto;
} fm_dev_accept;

static int gpu_ranges(fm_ctx *c, const mu_gpu_fm_range *g, int ng, int64_t total, double *v,
                      const fm_dev_accept *acc, mu_fm_stat *st) {
    int64_t *its = malloc((size_t)(total ? total : 1) * sizeof *its);
    int *conv = malloc((size_t)(total ? total : 1) * sizeof *conv);
    float ms = 0;
    int rc = 0;
    if (!its || !conv) MU_TRY_GOTO(mu_error("out of memory for %lld starts", (long long)total));
    if (!acc)
        MU_TRY_GOTO(MU_GPU(mu_gpu_fm_run(c->gpu, g, ng, c->set.r2, c->set.eps1, c->set.max_it,
                                         c->set.sum_block, v, its, conv, &ms),
                           "the FM iteration on the GPU"));
    else
        MU_TRY_GOTO(MU_GPU(mu_gpu_fm_run_accept(c->gpu, g, ng, c->set.r2, c->set.eps1,
                                                c->set.max_it, c->set.sum_block, acc->eps2,
                                                acc->proto, acc->from, acc->nproto, its, conv, &ms),
                           "the FM iteration and acceptance on the GPU"));
    c->gpu_ms += ms;
    for (int64_t k = 0; k < total; k++) {
        st[k].iterations = its[k];
        st[k].converged = conv[k];
    }
done:
    free(its);
    free(conv);
    return rc;
}

/* The FM iteration for starts [first, first + count) of the set: on the device
 * when this rank has one (the same bits, see gpu/fuzzy_gpu.h), else the CPU. */
static int fm_starts(fm_ctx *c, int64_t first, int64_t count, double *v, mu_fm_stat *st) {
    if (!c->gpu) return mu_fm_run_cpu(&c->set, first, count, v, st);
    mu_gpu_fm_range g = {c->row0, c->set.n, first, count};
    return gpu_ranges(c, &g, 1, count, v, NULL, st);
}

/* Task farm record per start: v (F doubles), iterations, converged. */
static int farm_task(int64_t first, int64_t count, void *results, void *vctx) {
    fm_ctx *c = vctx;
    int F = c->set.F;
    double *v = malloc((size_t)(count * F) * sizeof *v);
    mu_fm_stat *st = malloc((size_t)count * sizeof *st);
    int rc = 0;
    if (!v || !st) MU_TRY_GOTO(mu_error("out of memory for %lld starts", (long long)count));
    MU_TRY_GOTO(fm_starts(c, c->base + first, count, v, st));
    double *out = results;
    for (int64_t k = 0; k < count; k++) {
        memcpy(out + k * (F + 2), v + k * F, (size_t)F * sizeof *out);
        out[k * (F + 2) + F] = (double)st[k].iterations;
        out[k * (F + 2) + F + 1] = st[k].converged;
    }
done:
    free(v);
    free(st);
    return rc;
}

/* ---- the whole run ------------------------------------------------------------- */

typedef struct {
    /* everywhere */
    int64_t n;
    int F;
    double *x;          /* this rank's rows: all (exact) or its partitions' (partitioned) */
    int64_t nloc;       /* rows in x */
    int64_t sum0, sum1; /* the rows of x this rank adds to reductions (a block in exact mode) */
    int ring;           /* exact mode with the data around a ring: x holds whole summation */
    int64_t ring0;      /* blocks, from global row ring0 */
    double *mean, *cov, *shift, *scale;
    double r;
    /* partitioned */
    int p;
    int64_t *pstart; /* p + 1 dealt offsets */
    int pa, pb;      /* this rank's partitions [pa, pb) */
    /* rank 0 */
    mu_fz_data d;   /* input units */
    double *z;      /* n x F in the space FM runs in (aliases d.x without zscore) */
    int64_t *order; /* partitioned: dealt position -> object */
    int64_t m_raw;
    double *raw; /* m_raw x F */
    int64_t *raw_part, *raw_start;
    int64_t unconverged, it_total, it_max;
} fz_state;

static void state_free(fz_state *s) {
    if (s->z != s->d.x && s->z != s->x) free(s->z);
    if (s->x != s->d.x) free(s->x);
    mu_fz_free(&s->d);
    MU_FREE(s->mean, s->cov, s->shift, s->scale, s->pstart, s->order, s->raw, s->raw_part,
            s->raw_start);
}

/* What messages call the data. */
static const char *data_name(const mu_fz_cfg *c) {
    return c->input ? c->input : c->given ? "mutirao_fuzzy_cluster" : "generated data";
}

/* Rank 0 reads or generates the data and checks it; every rank learns its
 * shape, then whether the model's memory fits. */
static int load_data(mu_app *app, const mu_fz_cfg *c, fz_state *s) {
    int rc = 0;
    if (app->rank == 0 && c->given) {
        s->d = *c->given; /* taken over */
        memset(c->given, 0, sizeof *c->given);
    } else if (app->rank == 0) {
        rc = c->input         ? mu_fz_read(c->input, c->header, c->label_column, &s->d)
             : c->gen_schools ? mu_fz_gen_schools(c->n, c->seed, &s->d)
                              : mu_fz_gen_blobs(c->n, c->seed, c->centers, c->sigma, &s->d);
    }
    if (app->rank == 0) {
        if (!rc) rc = mu_fz_check_columns(data_name(c), &s->d);
        if (!rc && !c->exact && c->partitions > s->d.n)
            rc = mu_error("--partitions=%d: more partitions than the %lld objects", c->partitions,
                          (long long)s->d.n);
        if (!rc) rc = mu_fz_check_shape(data_name(c), &s->d);
    }
    MU_TRY(mu_error_collective(app->comm, rc));
    int64_t hdr[2] = {s->d.n, s->d.F};
    MPI_Bcast(hdr, 2, MPI_INT64_T, 0, app->comm);
    s->n = hdr[0];
    s->F = (int)hdr[1];
    /* The model's memory, before the copies and the sums take it. */
    double need = mu_fz_model_bytes(s->F), have = mu_mem_rank_available(app->dev.local_size);
    if (need > have)
        rc = mu_error("%s: %d columns: the covariance's exact sums need %.3g GiB per rank, more "
                      "than the %.3g GiB this rank may use (available memory over the node's "
                      "ranks, and ulimit -v)",
                      data_name(c), s->F, need / 1073741824.0, have / 1073741824.0);
    return mu_error_collective(app->comm, rc);
}

/* Exact mode around a ring: whole summation blocks per rank, dealt like
 * partitions (no sort). */
static int load_ring(mu_app *app, const mu_fz_cfg *c, fz_state *s, double bytes) {
    int64_t B = c->sum_block > 0 && c->sum_block < s->n ? c->sum_block : s->n;
    int64_t nb = (s->n + B - 1) / B;
    if (nb > INT32_MAX) return mu_error_collective(app->comm, mu_error("too many blocks"));
    s->p = (int)nb;
    mu_info("fuzzy: the ring: %lld objects (%.3g MiB) in %lld summation block(s) of %lld rows "
            "over %d rank(s)%s",
            (long long)s->n, bytes / 1048576.0, (long long)nb, (long long)B, app->size,
            c->ring_mode == 2 ? " (the set exceeds --mem-limit)" : "");
    if (nb < app->size)
        mu_warn("fuzzy: %lld summation block(s) for %d ranks: some ranks hold no data (lower "
                "--sum-block)",
                (long long)nb, app->size);
    return 0;
}

/* Rank 0: the partitions' offsets, and (partitioned mode) the rows sorted and
 * dealt into *dealt. Returns rank 0's local status. */
static int load_deal(const mu_fz_cfg *c, fz_state *s, double **dealt) {
    int F = s->F;
    if (s->ring) {
        int64_t B = c->sum_block > 0 && c->sum_block < s->n ? c->sum_block : s->n;
        for (int j = 0; j <= s->p; j++) s->pstart[j] = (int64_t)j * B < s->n ? j * B : s->n;
    } else {
        s->order = malloc((size_t)s->n * sizeof *s->order);
        *dealt = malloc((size_t)(s->n * F) * sizeof **dealt);
        if (!s->order || !*dealt)
            return mu_error("out of memory dealing %lld objects", (long long)s->n);
        MU_TRY(mu_fz_deal(s->d.x, s->n, F, s->p, s->order, s->pstart));
        for (int64_t k = 0; k < s->n; k++)
            memcpy(*dealt + k * F, s->d.x + s->order[k] * F, (size_t)F * sizeof **dealt);
    }
    return 0;
}

/* Rank 0 sends each rank its partitions' rows from src. MPI counts are int,
 * so large sets go in several rounds. */
static void load_scatter(mu_app *app, fz_state *s, const double *src) {
    int F = s->F;
    int *counts = app->rank == 0 ? malloc((size_t)app->size * sizeof *counts) : NULL;
    const int64_t step = ((int64_t)1 << 26) / F;
    int64_t rounds = 1;
    for (int k = 0; k < app->size; k++) {
        int64_t a, b;
        mu_block_range(s->p, app->size, k, &a, &b);
        int64_t rows = s->pstart[b] - s->pstart[a];
        if ((rows + step - 1) / step > rounds) rounds = (rows + step - 1) / step;
    }
    for (int64_t round = 0; round < rounds; round++) {
        if (app->rank == 0)
            for (int k = 0; k < app->size; k++) {
                int64_t a, b;
                mu_block_range(s->p, app->size, k, &a, &b);
                int64_t r0 = s->pstart[a], rows = s->pstart[b] - r0;
                int64_t off = round * step, take = rows - off;
                take = take < 0 ? 0 : take > step ? step : take;
                counts[k] = (int)(take * F);
            }
        /* Point to point from each rank's base: offsets may exceed an int. */
        int64_t off = round * step, mine = s->nloc - off;
        mine = mine < 0 ? 0 : mine > step ? step : mine;
        if (app->rank == 0) {
            MPI_Request *req = malloc((size_t)app->size * sizeof *req);
            int nreq = 0;
            for (int k = 1; k < app->size; k++) {
                int64_t a, b;
                mu_block_range(s->p, app->size, k, &a, &b);
                if (counts[k] > 0)
                    MPI_Isend(src + (s->pstart[a] + off) * F, counts[k], MPI_DOUBLE, k, 7301,
                              app->comm, &req[nreq++]);
            }
            if (mine > 0)
                memcpy(s->x + off * F, src + (s->pstart[s->pa] + off) * F,
                       (size_t)(mine * F) * sizeof *s->x);
            mu_waitall(nreq, req, MPI_STATUSES_IGNORE);
            free(req);
        } else if (mine > 0) {
            MPI_Recv(s->x + off * F, (int)(mine * F), MPI_DOUBLE, 0, 7301, app->comm,
                     MPI_STATUS_IGNORE);
        }
    }
    free(counts);
}

static int load(mu_app *app, const mu_fz_cfg *c, fz_state *s) {
    MU_TRY(load_data(app, c, s));
    s->p = c->partitions;
    double bytes = (double)s->n * s->F * sizeof(double);
    s->ring = c->exact && (c->ring_mode == 1 || (c->ring_mode == 2 && bytes > c->mem_limit));
    if (s->ring) MU_TRY(load_ring(app, c, s, bytes));
    if (c->exact && !s->ring) {
        /* The whole set on every rank. */
        MU_TRY(mu_fz_bcast(app->comm, &s->d));
        s->x = s->d.x;
        s->nloc = s->n;
        mu_block_range(s->n, app->size, app->rank, &s->sum0, &s->sum1);
        return 0;
    }
    /* Partitioned: rank 0 sorts and deals; each rank receives its partitions' rows. */
    int F = s->F, rc = 0;
    s->pstart = malloc((size_t)(s->p + 1) * sizeof *s->pstart);
    double *dealt = NULL;
    if (!s->pstart) rc = mu_error("out of memory");
    if (!rc && app->rank == 0) rc = load_deal(c, s, &dealt);
    const double *src = s->ring ? s->d.x : dealt;
    if (mu_error_collective(app->comm, rc)) {
        free(dealt);
        return 1;
    }
    MPI_Bcast(s->pstart, s->p + 1, MPI_INT64_T, 0, app->comm);
    int64_t lo, hi;
    mu_block_range(s->p, app->size, app->rank, &lo, &hi);
    s->pa = (int)lo;
    s->pb = (int)hi;
    s->nloc = s->pstart[s->pb] - s->pstart[s->pa];
    s->sum0 = 0;
    s->sum1 = s->nloc;
    s->x = malloc((size_t)((s->nloc ? s->nloc : 1) * F) * sizeof *s->x);
    rc = s->x ? 0 : mu_error("out of memory for %lld objects", (long long)s->nloc);
    if (mu_error_collective(app->comm, rc)) {
        free(dealt);
        return 1;
    }
    load_scatter(app, s, src);
    free(dealt);
    if (s->ring) { /* the blocks were only a way to deal the rows */
        s->ring0 = s->pstart[s->pa];
        s->p = 1;
    }
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
                             data_name(c), (long long)s->n, bad + 1, name)
                  : mu_error("%s: the covariance of the %lld objects is singular: column %d%s is "
                             "a linear combination of the columns before it (Cholesky pivot not "
                             "positive)",
                             data_name(c), (long long)s->n, bad + 1, name);
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

/* Rank 0: the records of all n starts -> statistics and accepted prototypes.
 * Exact mode accepts on the host: its end points come from the task farm's
 * ranks (or the ring) in chunks, and the checkpoint records need them anyway;
 * the partitioned mode, whose partitions each run whole on one rank, accepts
 * on the device (gpu_ranges with fm_dev_accept). */
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
static int fm_exact(mu_app *app, const mu_fz_cfg *c, fz_state *s, fm_ctx *ctx, double eps2,
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
        if (app->rank == 0) rc = mu_fz_ckpt_read(c->checkpoint, n, F, fp, &done, rec);
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
            rc = mu_taskfarm_run(app->comm, end - done, (size_t)(F + 2) * sizeof(double), farm_task,
                                 ctx, &fc, rec ? rec + done * (F + 2) : NULL, &fs);
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

/* Per partition: count, unconverged, iterations total and max. */
enum { PMETA = 4 };

/* This rank's share of the partitioned run: per partition, its meta (PMETA
 * numbers), its accepted prototypes and the dealt positions they start from. */
typedef struct {
    int mine;      /* partitions */
    int64_t total; /* prototypes */
    int64_t *meta;
    double *protos;
    int64_t *from;
} fz_part;

/* Every start of this rank's partitions: on the device, all partitions in
 * one launch with their acceptance (so only prototypes come back); on the
 * CPU, partition by partition, accepted below. Returns the local status. */
static int part_starts(fz_state *s, fm_ctx *base, double eps2, fz_part *pt, double *v,
                       mu_fm_stat *st, mu_gpu_fm_range *g, int64_t *dev_m) {
    int F = s->F, mine = pt->mine, rc = 0;
    for (int j = s->pa; j < s->pb && !rc; j++) {
        int64_t off = s->pstart[j] - s->pstart[s->pa], np = s->pstart[j + 1] - s->pstart[j];
        g[j - s->pa] = (mu_gpu_fm_range){off, np, 0, np};
        if (!base->gpu) {
            fm_ctx ctx = *base;
            ctx.set.x = s->x + off * F;
            ctx.set.n = np;
            rc = fm_starts(&ctx, 0, np, v + off * F, st + off);
        }
    }
    if (!rc && base->gpu && mine > 0)
        rc = gpu_ranges(base, g, mine, s->nloc, NULL,
                        &(fm_dev_accept){eps2, pt->protos, pt->from, dev_m}, st);
    for (int j = s->pa; j < s->pb && !rc; j++) {
        int64_t off = s->pstart[j] - s->pstart[s->pa], np = s->pstart[j + 1] - s->pstart[j];
        int64_t *m = pt->meta + (j - s->pa) * PMETA;
        for (int64_t k = 0; k < np; k++) {
            m[1] += !st[off + k].converged;
            m[2] += st[off + k].iterations;
            if (st[off + k].iterations > m[3]) m[3] = st[off + k].iterations;
        }
        m[0] = base->gpu ? dev_m[j - s->pa]
                         : mu_fm_accept(v + off * F, st + off, np, F, eps2,
                                        pt->protos + pt->total * F, pt->from + pt->total);
        /* Starts as dealt positions; rank 0 maps them to objects. */
        for (int64_t k = 0; k < m[0]; k++) pt->from[pt->total + k] += s->pstart[j];
        pt->total += m[0];
        mu_debug("fuzzy: partition %d: %lld objects, %lld prototypes", j, (long long)np,
                 (long long)m[0]);
    }
    return rc;
}

/* Rank 0: the gathered prototypes' partitions and objects, and the statistics. */
static void part_place(fz_state *s, const int64_t *allmeta) {
    int64_t q = 0;
    for (int j = 0; j < s->p; j++) {
        const int64_t *m = allmeta + j * PMETA;
        for (int64_t k = 0; k < m[0]; k++, q++) {
            s->raw_part[q] = j;
            s->raw_start[q] = s->order[s->raw_start[q]];
        }
        s->unconverged += m[1];
        s->it_total += m[2];
        if (m[3] > s->it_max) s->it_max = m[3];
        mu_log(s->p <= 16 ? MU_LOG_INFO : MU_LOG_DEBUG,
               "fuzzy: partition %d: %lld objects, %lld prototype(s)%s", j,
               (long long)(s->pstart[j + 1] - s->pstart[j]), (long long)m[0],
               m[1] ? ", some starts did not converge" : "");
    }
}

/* Gather on rank 0 in rank order = partition order. */
static void part_gather(mu_app *app, fz_state *s, const fz_part *pt) {
    int size = app->size, F = s->F;
    int *cnt = NULL, *dsp = NULL;
    int64_t *allmeta = NULL;
    int64_t mycount[2] = {pt->mine, pt->total}, *counts = NULL;
    if (app->rank == 0) {
        cnt = malloc((size_t)size * sizeof *cnt);
        dsp = malloc((size_t)size * sizeof *dsp);
        counts = malloc((size_t)(2 * size) * sizeof *counts);
        allmeta = malloc((size_t)(s->p * PMETA) * sizeof *allmeta);
    }
    MPI_Gather(mycount, 2, MPI_INT64_T, counts, 2, MPI_INT64_T, 0, app->comm);
    if (app->rank == 0) {
        for (int k = 0, o = 0; k < size; k++) {
            cnt[k] = (int)(counts[2 * k] * PMETA);
            dsp[k] = o;
            o += cnt[k];
        }
    }
    MPI_Gatherv(pt->meta, pt->mine * PMETA, MPI_INT64_T, allmeta, cnt, dsp, MPI_INT64_T, 0,
                app->comm);
    if (app->rank == 0) {
        s->m_raw = 0;
        for (int k = 0; k < size; k++) s->m_raw += counts[2 * k + 1];
        s->raw = malloc((size_t)((s->m_raw ? s->m_raw : 1) * F) * sizeof *s->raw);
        s->raw_start = malloc((size_t)(s->m_raw ? s->m_raw : 1) * sizeof *s->raw_start);
        s->raw_part = malloc((size_t)(s->m_raw ? s->m_raw : 1) * sizeof *s->raw_part);
        for (int k = 0, o = 0; k < size; k++) {
            cnt[k] = (int)(counts[2 * k + 1] * F);
            dsp[k] = o;
            o += cnt[k];
        }
    }
    MPI_Gatherv(pt->protos, (int)(pt->total * F), MPI_DOUBLE, s->raw, cnt, dsp, MPI_DOUBLE, 0,
                app->comm);
    if (app->rank == 0)
        for (int k = 0, o = 0; k < size; k++) {
            cnt[k] = (int)counts[2 * k + 1];
            dsp[k] = o;
            o += cnt[k];
        }
    MPI_Gatherv(pt->from, (int)pt->total, MPI_INT64_T, s->raw_start, cnt, dsp, MPI_INT64_T, 0,
                app->comm);
    if (app->rank == 0) part_place(s, allmeta);
    free(cnt);
    free(dsp);
    free(counts);
    free(allmeta);
}

static int fm_partitioned(mu_app *app, fz_state *s, fm_ctx *base, double eps2) {
    int F = s->F, mine = s->pb - s->pa;
    fz_part pt = {.mine = mine, .total = 0};
    pt.meta = calloc((size_t)(mine ? mine : 1) * PMETA, sizeof *pt.meta);
    pt.protos = malloc((size_t)((s->nloc ? s->nloc : 1) * F) * sizeof *pt.protos);
    pt.from = malloc((size_t)(s->nloc ? s->nloc : 1) * sizeof *pt.from);
    double *v = malloc((size_t)((s->nloc ? s->nloc : 1) * F) * sizeof *v);
    mu_fm_stat *st = malloc((size_t)(s->nloc ? s->nloc : 1) * sizeof *st);
    mu_gpu_fm_range *g = malloc((size_t)(mine ? mine : 1) * sizeof *g);
    int rc = !pt.meta || !pt.protos || !pt.from || !v || !st || !g ? mu_error("out of memory") : 0;
    int64_t *dev_m = calloc((size_t)(mine ? mine : 1), sizeof *dev_m);
    if (!rc && !dev_m) rc = mu_error("out of memory");
    if (!rc) rc = part_starts(s, base, eps2, &pt, v, st, g, dev_m);
    free(v);
    free(st);
    free(g);
    free(dev_m);
    int failed = mu_error_collective(app->comm, rc);
    if (!failed) part_gather(app, s, &pt);
    free(pt.meta);
    free(pt.protos);
    free(pt.from);
    return failed;
}

static const char *norm_name(const mu_fz_cfg *c) {
    return c->r_fixed > 0 ? "given" : c->norm == MU_FZ_R_PRINTED ? "printed" : "density";
}

static void fmt_point(char *buf, size_t len, const double *v, int F) {
    size_t o = 0;
    o += (size_t)snprintf(buf + o, len - o, "(");
    for (int f = 0; f < F && o < len; f++)
        o += (size_t)snprintf(buf + o, len - o, "%s%.6g", f ? ", " : "", v[f]);
    if (o < len) snprintf(buf + o, len - o, ")");
}

/* What finish makes, freed together at its end. */
typedef struct {
    int64_t m; /* prototypes after the merge */
    int64_t *group;
    mu_fz_merge *merges;
    double *proto, *mu, *top, *in_units;
    int64_t *merged, *objects;
    int32_t *labels;
} fz_tables;

static void tables_free(fz_tables *t) {
    MU_FREE(t->group, t->merges, t->proto, t->merged, t->mu, t->top, t->labels, t->objects,
            t->in_units);
}

/* The raw prototypes cut into groups (or each its own), and the groups' means. */
static int finish_merge(const mu_fz_cfg *c, fz_state *s, fz_tables *t) {
    int F = s->F, rc = 0;
    int64_t m_raw = s->m_raw;
    t->m = m_raw;
    if (c->merge && m_raw > 1) {
        t->merges = malloc((size_t)(m_raw - 1) * sizeof *t->merges);
        if (!t->merges) rc = mu_error("out of memory");
        if (!rc) rc = mu_fz_linkage(s->raw, m_raw, F, t->merges);
        double value = c->cut_value;
        if (c->cut == MU_FZ_CUT_THRESHOLD && !c->units_abs) value /= s->r;
        if (!rc) t->m = mu_fz_cut(t->merges, m_raw, c->cut, value, t->group);
        if (!rc && c->cut == MU_FZ_CUT_K && (int64_t)c->cut_value > m_raw)
            mu_warn("fuzzy: --k=%lld but only %lld raw prototypes: nothing merged",
                    (long long)c->cut_value, (long long)m_raw);
    } else {
        for (int64_t i = 0; i < m_raw; i++) t->group[i] = i;
    }
    int64_t m = t->m;
    t->proto = malloc((size_t)(m * F) * sizeof *t->proto);
    t->merged = malloc((size_t)m * sizeof *t->merged);
    if (!rc && (!t->proto || !t->merged)) rc = mu_error("out of memory");
    if (!rc) mu_fz_group_means(s->raw, m_raw, F, t->group, m, t->proto, t->merged);
    return rc;
}

/* Each object's memberships (the full n x m table only when it is reasonable,
 * 1 GiB), its label and the objects per prototype. */
static int finish_memberships(fz_state *s, fz_tables *t) {
    int F = s->F;
    int64_t m = t->m;
    int keep_mu = (double)s->n * (double)m <= (double)MU_FZ_MAX_MEMBERSHIPS;
    t->mu = keep_mu ? malloc((size_t)(s->n * m) * sizeof *t->mu) : NULL;
    t->top = malloc((size_t)s->n * sizeof *t->top);
    t->labels = malloc((size_t)s->n * sizeof *t->labels);
    t->objects = calloc((size_t)m, sizeof *t->objects);
    if ((keep_mu && !t->mu) || !t->top || !t->labels || !t->objects)
        return mu_error("out of memory for %lld x %lld memberships", (long long)s->n, (long long)m);
    mu_fz_memberships(s->z, s->n, F, t->proto, (int)m, s->r, t->mu, t->labels, t->top);
    for (int64_t i = 0; i < s->n; i++) t->objects[t->labels[i]]++;
    if (!keep_mu)
        mu_warn("fuzzy: %lld objects x %lld prototypes: the membership table is not kept "
                "(memberships.csv is not written; labels.csv has each object's largest)",
                (long long)s->n, (long long)m);
    return 0;
}

/* The report: one line, then each prototype in input units; the log lines. */
static void finish_report(const mu_fz_cfg *c, const fz_state *s, const fz_tables *t, double ari,
                          double purity) {
    int F = s->F;
    int64_t m = t->m;
    char acc[96] = "";
    if (s->d.label) snprintf(acc, sizeof acc, " ari=%.6f purity=%.6f", ari, purity);
    printf("fuzzy: n=%lld features=%d mode=%s partitions=%d r_norm=%s r=%.10g raw=%lld "
           "prototypes=%lld unconverged=%lld%s\n",
           (long long)s->n, F, c->exact ? "exact" : "partitioned", s->p, norm_name(c), s->r,
           (long long)s->m_raw, (long long)m, (long long)s->unconverged, acc);
    for (int64_t j = 0; j < m; j++) {
        char pt[512];
        fmt_point(pt, sizeof pt, t->in_units + j * F, F);
        printf("  prototype %lld: %s objects=%lld merged=%lld\n", (long long)j, pt,
               (long long)t->objects[j], (long long)t->merged[j]);
    }
    fflush(stdout);
    if (s->unconverged)
        mu_warn("fuzzy: %lld of %lld starts did not converge within --max-it=%lld (not accepted)",
                (long long)s->unconverged, (long long)s->n, (long long)c->max_it);
    mu_info("fuzzy: iterations per start: mean %.1f, max %lld", (double)s->it_total / (double)s->n,
            (long long)s->it_max);
    if (s->d.label)
        mu_info("fuzzy: against the reference labels ('%s', %d classes): adjusted Rand index "
                "%.6f, purity %.6f",
                s->d.label_column, s->d.nlabels, ari, purity);
}

static void finish_summary(const mu_fz_cfg *c, const fz_state *s, const fz_tables *t, double ari,
                           double purity) {
    int F = s->F;
    int64_t m = t->m;
    mu_summary_result_int("n", s->n);
    mu_summary_result_int("features", F);
    mu_summary_result_str("mode", c->exact ? "exact" : "partitioned");
    mu_summary_result_int("partitions", s->p);
    mu_summary_result_str("r_norm", norm_name(c));
    mu_summary_result_int("raw_prototypes", s->m_raw);
    mu_summary_result_int("prototypes", m);
    mu_summary_result_int("unconverged", s->unconverged);
    mu_summary_result_int("iterations_total", s->it_total);
    mu_summary_result_int("iterations_max", s->it_max);
    {
        char list[4096] = "";
        mu_summary_result_real("r", s->r);
        for (int64_t j = 0, o = 0; j < m && o < (int64_t)sizeof list - 64; j++) {
            char pt[512];
            fmt_point(pt, sizeof pt, t->in_units + j * F, F);
            o += snprintf(list + o, sizeof list - (size_t)o, "%s%s", j ? " " : "", pt);
        }
        mu_summary_result_str("prototype_list", list);
    }
    mu_summary_real("r", s->r);
    if (s->d.label) {
        mu_summary_real("ari", ari);
        mu_summary_real("purity", purity);
    }
}

/* The files: prototypes, everything under --prefix, the plot. */
static int finish_files(const mu_fz_cfg *c, fz_state *s, const fz_tables *t) {
    int rc = 0;
    mu_fz_result res = {.d = &s->d,
                        .z = s->z,
                        .shift = s->shift,
                        .scale = s->scale,
                        .r = s->r,
                        .m_raw = s->m_raw,
                        .raw = s->raw,
                        .raw_part = s->raw_part,
                        .raw_start = s->raw_start,
                        .raw_group = t->group,
                        .merges = t->merges,
                        .m = t->m,
                        .proto = t->proto,
                        .merged = t->merged,
                        .mu = t->mu,
                        .top = t->top,
                        .labels = t->labels,
                        .objects = t->objects};
    mu_timer_begin("output");
    if (c->output) rc = mu_fz_write_prototypes(c->output, &res);
    if (!rc && c->prefix) rc = mu_fz_write_all(c->prefix, &res);
    mu_timer_end("output");
    if (!rc && c->plot) {
        mu_timer_begin("plot");
        rc = mu_fz_plot(c->plot, &res);
        mu_timer_end("plot");
    }
    return rc;
}

/* Rank 0: merge, memberships, accuracy, the printed report and the files. */
static int finish(const mu_fz_cfg *c, fz_state *s) {
    int F = s->F;
    int64_t m_raw = s->m_raw;
    int rc = 0;
    fz_tables t = {0};
    t.group = malloc((size_t)(m_raw ? m_raw : 1) * sizeof *t.group);
    if (!t.group) return mu_error("out of memory");

    mu_timer_begin("merge");
    rc = finish_merge(c, s, &t);
    mu_timer_end("merge");

    mu_timer_begin("memberships");
    if (!rc) rc = finish_memberships(s, &t);
    mu_timer_end("memberships");
    if (rc) goto done;

    int64_t m = t.m;
    t.in_units = malloc((size_t)(m * F) * sizeof *t.in_units);
    if (!t.in_units) MU_TRY_GOTO(mu_error("out of memory"));
    for (int64_t j = 0; j < m; j++)
        for (int f = 0; f < F; f++)
            t.in_units[j * F + f] =
                s->scale ? t.proto[j * F + f] * s->scale[f] + s->shift[f] : t.proto[j * F + f];
    if (c->out) { /* a library call: the arrays to the caller, nothing printed or written */
        *c->out = (mu_fz_out){.n = s->n,
                              .F = F,
                              .r = s->r,
                              .m_raw = m_raw,
                              .m = m,
                              .proto = t.in_units,
                              .labels = t.labels,
                              .mu = t.mu,
                              .unconverged = s->unconverged};
        t.in_units = NULL;
        t.labels = NULL;
        t.mu = NULL;
        goto done;
    }
    double ari = NAN, purity = NAN;
    if (s->d.label) {
        ari = mu_fz_ari(t.labels, (int)m, s->d.label, s->d.nlabels, s->n);
        purity = mu_fz_purity(t.labels, (int)m, s->d.label, s->d.nlabels, s->n);
    }
    finish_report(c, s, &t, ari, purity);
    finish_summary(c, s, &t, ari, purity);
    rc = finish_files(c, s, &t);
done:
    tables_free(&t);
    return rc;
}

int mu_fz_run(mu_app *app, const mu_fz_cfg *c) {
    fz_state s;
    memset(&s, 0, sizeof s);
    mu_wait_configure(app->dev.local_size);

    mu_timer_begin("input");
    int rc = load(app, c, &s);
    mu_timer_end("input");
    if (rc) {
        state_free(&s);
        return 1;
    }
    if (!c->exact && s.p < app->size)
        mu_warn("fuzzy: %d partition(s) on %d ranks: ranks %d..%d have no partition", s.p,
                app->size, s.p, app->size - 1);
    if (!c->exact && (double)s.n / s.p < 0.1 * (double)s.n)
        mu_warn("fuzzy: %d partitions hold under 10%% of the data each (the study keeps p <= 8)",
                s.p);
    double logdet = 0;
    if (model(app, c, &s, &logdet)) {
        state_free(&s);
        return 1;
    }
    double inv_r2 = 1.0 / (s.r * s.r);
    double eps1 = c->units_abs ? c->eps1 : c->eps1 * c->eps1 * inv_r2;
    double eps2 = c->units_abs ? c->eps2 : c->eps2 * c->eps2 * inv_r2;
    mu_info("fuzzy: %s, eps1 = %.4g, eps2 = %.4g (squared distances), max-it %lld",
            c->exact ? "exact FM over the whole set"
                     : "the study's partitioned FM with a single-linkage merge",
            eps1, eps2, (long long)c->max_it);
    mu_summary_real("log_det_cov", logdet);
    mu_summary_real("eps1_squared", eps1);
    mu_summary_real("eps2_squared", eps2);

    fm_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.set = (mu_fm_set){s.x, s.nloc, s.F, s.r * s.r, eps1, c->max_it, c->sum_block};
    /* The device takes this rank's rows once (the ring runs on the CPU). */
    int want_gpu = app->dev.use_gpu && !s.ring && s.nloc > 0;
    if (want_gpu && s.F > MU_GPU_FM_MAX_FEATURES) {
        if (app->rank == 0)
            mu_warn("fuzzy: %d features: the GPU iteration takes at most %d; it runs on the CPU",
                    s.F, MU_GPU_FM_MAX_FEATURES);
        want_gpu = 0;
    }
    rc = 0;
    mu_timer_begin("device copy");
    if (want_gpu)
        rc = MU_GPU(mu_gpu_fm_create(s.x, s.nloc, s.F, &ctx.gpu), "the FM iteration on the GPU");
    mu_timer_end("device copy");
    /* A library call leaves the caller's signal handlers alone. */
    int signals = c->exact && !c->out;
    if (!rc && signals && mu_signals_install()) rc = 1;
    if (mu_error_collective(app->comm, rc)) {
        mu_gpu_fm_destroy(ctx.gpu);
        state_free(&s);
        return 1;
    }
    int on_gpu = ctx.gpu != NULL, gpus = 0;
    MPI_Allreduce(&on_gpu, &gpus, 1, MPI_INT, MPI_SUM, app->comm);
    if (gpus)
        mu_info("fuzzy: the FM iteration runs on the GPU of %d of %d rank(s)", gpus, app->size);
    else if (app->dev.use_gpu && s.ring)
        mu_info("fuzzy: the ring runs on the CPU of every rank");
    if (!c->arith_fast) mu_summary_str("arith", "bitwise");
    if (c->arith_fast && set_arith_fast(app, &ctx, gpus)) {
        mu_gpu_fm_destroy(ctx.gpu);
        state_free(&s);
        return 1;
    }
    int stopped = 0;
    mu_timer_begin("fm");
    rc =
        c->exact ? fm_exact(app, c, &s, &ctx, eps2, &stopped) : fm_partitioned(app, &s, &ctx, eps2);
    mu_timer_end("fm");
    if (ctx.gpu) {
        mu_debug("fuzzy: GPU kernel time %.3f ms on rank %d", ctx.gpu_ms, app->rank);
        if (app->rank == 0) {
            mu_info("fuzzy: the FM kernels took %.6f s on rank 0's GPU", ctx.gpu_ms * 1e-3);
            mu_summary_real("gpu_kernel_seconds_rank0", ctx.gpu_ms * 1e-3);
        }
        mu_gpu_fm_destroy(ctx.gpu);
    }
    if (signals) mu_signals_restore();
    if (!rc && stopped) {
        app->exit_status = 3; /* stopped by a signal after its checkpoint */
        state_free(&s);
        return 0;
    }
    if (!rc && app->rank == 0 && s.m_raw == 0)
        rc = mu_error("no start converged within --max-it=%lld: no prototype (raise --max-it or "
                      "--eps1)",
                      (long long)c->max_it);
    if (!rc && app->rank == 0) rc = finish(c, &s);
    state_free(&s);
    return mu_error_collective(app->comm, rc);
}
