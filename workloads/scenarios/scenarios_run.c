/* The scenarios run, collective: the record (rank 0 reads, every rank gets a
 * copy), the PAR(p) fit (every rank, same bits), then the tree stage by stage
 * or the comb. In a tree stage the task farm hands out the stage's nodes (in
 * chunks of at least one node per host thread; lanes.c runs a chunk's nodes
 * side by side); a task generates the node's M scenarios conditioned on its path (GPU or CPU:
 * the same numbers) and aggregates them (scenarios/aggregate.h); rank 0 places
 * the children in node order and broadcasts them, so every rank holds the same
 * tree whatever the number of ranks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scenarios/run.h"
#include "core/error.h"
#include "core/free.h"
#include "core/log.h"
#include "core/summary.h"
#include "core/signals.h"
#include "core/timer.h"
#include "gpu/gpu.h"
#include "mpi/partition.h"
#include "mpi/taskfarm.h"
#include "scenarios/kmeans.h"

void mu_sc_tree_free(mu_sc_tree *t) {
    MU_FREE(t->parent, t->stage, t->prob, t->pprob, t->q, t->iters, t->gmean);
    memset(t, 0, sizeof *t);
}

static int tree_reserve(mu_sc_tree *t, int64_t n, int nst) {
    if (n <= t->cap) return 0;
    int64_t cap = t->cap ? t->cap : 64;
    while (cap < n) cap *= 2;
    int64_t *p = realloc(t->parent, (size_t)cap * sizeof *p);
    if (p) t->parent = p;
    int *st = realloc(t->stage, (size_t)cap * sizeof *st);
    if (st) t->stage = st;
    double *pr = realloc(t->prob, (size_t)cap * sizeof *pr);
    if (pr) t->prob = pr;
    double *pp = realloc(t->pprob, (size_t)cap * sizeof *pp);
    if (pp) t->pprob = pp;
    double *q = realloc(t->q, (size_t)cap * nst * sizeof *q);
    if (q) t->q = q;
    int *it = realloc(t->iters, (size_t)cap * sizeof *it);
    if (it) t->iters = it;
    /* A tree restored from a checkpoint has no sample means: unknown (NaN). */
    int64_t known = t->gmean ? t->cap : 0;
    double *gm = realloc(t->gmean, (size_t)cap * nst * sizeof *gm);
    if (gm) {
        t->gmean = gm;
        for (int64_t i = known * nst; i < cap * nst; i++) gm[i] = NAN;
    }
    if (!p || !st || !pr || !pp || !q || !it || !gm)
        return mu_error("out of memory for %lld tree nodes", (long long)n);
    t->cap = cap;
    return 0;
}

void mu_sc_node_past(const mu_sc_ctx *x, int64_t v, double *zp) {
    const mu_sc_tree *t = x->tree;
    int nst = x->md->nst, pmax = x->md->pmax, sv = t->stage[v];
    int64_t cur = v;
    for (int i = 0; i < pmax; i++) {
        const double *q;
        int m;
        if (cur > 0) { /* a generated month on the path */
            q = t->q + cur * nst;
            m = (x->start_m + t->stage[cur] - 1) % 12;
            cur = t->parent[cur];
        } else { /* the record: i - sv months before its last one used */
            int64_t back = x->hist_end - 1 - (i - sv);
            q = x->h->q + back * nst;
            m = (int)(back % 12);
        }
        mu_sc_standardize(x->md, q, m, zp + i * nst);
    }
}

void mu_sc_record_past(const mu_sc_ctx *x, int64_t end, double *zp) {
    const int nst = x->md->nst;
    for (int i = 0; i < x->md->pmax; i++) {
        const int64_t back = end - 1 - i;
        mu_sc_standardize(x->md, x->h->q + back * nst, (int)(back % 12), zp + i * nst);
    }
}

int mu_sc_generate(mu_sc_ctx *x, int month, const mu_sc_gen_draw *d, double *Z) {
    mu_sc_gen_month g;
    mu_sc_month_args(x->md, month, &g);
    g.delta_min = x->c->delta_min;
    if (x->buf.Dnode) { /* the node's lognormal-space factor (mu_sc_lognormal_factor) */
        g.D = x->buf.Dnode;
        g.lower = x->lower_node;
    }
    if (x->use_gpu)
        return MU_GPU(mu_sc_gpu_generate(x->buf.gpu, &g, d, Z, &x->clamped, NULL),
                      "scenarios: GPU generation");
    mu_sc_gen_cpu(&g, d, Z, &x->clamped);
    return 0;
}

uint64_t mu_sc_node_key(uint64_t seed, int64_t node) {
    uint32_t r[4];
    mu_rng4(seed, (1ull << 61) | (uint64_t)node, 0, r);
    return ((uint64_t)r[0] << 32) | r[1];
}

size_t mu_sc_rec_doubles(const mu_sc_ctx *x, int K) {
    size_t nst = (size_t)x->md->nst;
    return 2 + nst + (size_t)K * (1 + nst) + (x->c->node_scenarios ? (size_t)x->c->m * nst : 0);
}

/* A phase's seconds since t0, returned and added to the timers, or to the lane's own
 * sums (lanes.c). */
static double phase_time(mu_sc_ctx *x, const char *phase, double t0) {
    double s = mu_km_now() - t0;
    if (!x->lane)
        mu_timer_add(phase, s, 1);
    else if (!strcmp(phase, "generate"))
        x->gen_s += s;
    else
        x->agg_s += s;
    return s;
}

/* Where a node's time went (--log=debug), from whichever rank ran it. */
static void log_node(int64_t v, int stage, const mu_agg_result *ar, double gen_s, double agg_s,
                     double children_s) {
    mu_log_all(MU_LOG_DEBUG,
               "scenarios: node %lld (stage %d): generation %.4f s, aggregation %.4f s: "
               "whitening %.4f, duplicates %.4f, device set-up %.4f, k-means %.4f (distance "
               "steps %.4f), representatives %.4f; children's inflows %.4f s; %d iterations",
               (long long)v, stage + 1, gen_s, agg_s, ar->whiten_s, ar->distinct_s, ar->device_s,
               ar->kmeans_s, ar->dist_s, ar->rep_s, children_s, ar->iterations);
}

/* The aggregation's children into the node's record (rec_doubles). */
static int put_children(mu_sc_ctx *x, const mu_agg_result *ar, int K, double *rec) {
    int nst = x->md->nst, M = x->c->m, k = ar->k < K ? ar->k : K;
    double *val = malloc((size_t)ar->k * nst * sizeof *val);
    if (!val) return mu_error("out of memory for the representatives");
    if (mu_sc_represent(x->c->rep, x->buf.Z, M, nst, ar, val, rec + 2)) {
        free(val);
        return 1;
    }
    rec[0] = k;
    rec[1] = ar->iterations;
    for (int g = 0; g < k; g++) {
        MU_SC_REC_CHILD(rec, nst, g)[0] = ar->prob[g];
        memcpy(MU_SC_REC_CHILD(rec, nst, g) + 1, val + (size_t)g * nst, (size_t)nst * sizeof *rec);
    }
    if (x->c->node_scenarios)
        memcpy(MU_SC_REC_CHILD(rec, nst, K), x->buf.Z, (size_t)M * nst * sizeof *rec);
    free(val);
    return 0;
}

int mu_sc_node_record(mu_sc_ctx *x, const mu_sc_node_id *id, double *rec, MPI_Comm comm) {
    const mu_sc_cfg *c = x->c;
    const int64_t v = id->node;
    int nst = x->md->nst, K = id->K, M = c->m, month = id->month;
    int nranks = 1, rank = 0;
    if (comm != MPI_COMM_NULL) {
        MPI_Comm_size(comm, &nranks);
        MPI_Comm_rank(comm, &rank);
    }
    int64_t lo = 0, hi = M;
    if (nranks > 1) mu_block_range(M, nranks, rank, &lo, &hi);
    memset(rec, 0, mu_sc_rec_doubles(x, K) * sizeof *rec);
    mu_sc_gen_draw d = {c->seed, id->stream, lo, hi - lo, x->buf.zpast, 0};
    double t0 = mu_km_now();
    int rc = 0;
    if (c->corr_lognormal) {
        mu_sc_gen_month g;
        mu_sc_month_args(x->md, month, &g);
        g.delta_min = c->delta_min;
        x->buf.Dnode =
            x->buf.Dnode ? x->buf.Dnode : malloc((size_t)nst * nst * sizeof *x->buf.Dnode);
        if (!x->buf.Dnode || mu_sc_lognormal_factor(&g, x->md->corr + (size_t)month * nst * nst,
                                                    x->buf.zpast, x->buf.Dnode, &x->lower_node))
            rc = mu_error("out of memory for the lognormal correlation");
    }
    if (!rc && hi > lo) rc = mu_sc_generate(x, month, &d, x->buf.Z + lo * nst);
    if (nranks > 1) { /* shared_stage makes the error collective */
        int *cnt = rc ? NULL : malloc(2 * sizeof(int) * (size_t)nranks);
        if (!rc && !cnt) rc = mu_error("out of memory for the shared node");
        int any = 0;
        MPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MAX, comm);
        if (any) {
            phase_time(x, "generate", t0);
            free(cnt);
            return rc ? rc
                      : mu_error("scenarios: node %lld: generation failed on another rank",
                                 (long long)v);
        }
        for (int r = 0; r < nranks; r++) {
            int64_t a, b;
            mu_block_range(M, nranks, r, &a, &b);
            cnt[r] = (int)((b - a) * nst);
            cnt[nranks + r] = (int)(a * nst);
        }
        MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, x->buf.Z, cnt, cnt + nranks, MPI_DOUBLE,
                       comm);
        free(cnt);
    }
    double gen_s = phase_time(x, "generate", t0);
    MU_TRY(rc);
    mu_agg_result ar;
    memset(&ar, 0, sizeof ar);
    t0 = mu_km_now();
    rc = mu_agg_cluster_shared(x->buf.Z, M, nst, K, c->method, c->max_iter, id->key, x->use_gpu,
                               comm, &ar);
    const double agg_s = phase_time(x, "aggregate", t0);
    x->km_s += ar.kmeans_s;
    x->km_dist_s += ar.dist_s;
    if (rc) /* the node and stage in front of the aggregation's message */
        return mu_error_cause(mu_error_message(), "scenarios: node %lld (stage %d): aggregation",
                              (long long)v, id->stage);
    t0 = mu_km_now();
    rc = put_children(x, &ar, K, rec);
    log_node(v, id->stage, &ar, gen_s, agg_s, mu_km_now() - t0);
    mu_agg_result_free(&ar);
    return rc;
}

/* Tree node v (of the stage being built): its past from the tree, then its record. */
static int node_work(mu_sc_ctx *x, int64_t v, double *rec, MPI_Comm comm) {
    const mu_sc_node_id id = {v,
                              (uint64_t)v,
                              mu_sc_node_key(x->c->seed, v),
                              (x->start_m + x->stage) % 12,
                              x->c->open[x->stage],
                              x->stage};
    mu_sc_node_past(x, v, x->buf.zpast);
    return mu_sc_node_record(x, &id, rec, comm);
}

/* Farm task j of the stage (x->todo maps it to a node): its record, or
 * rec[0] = -1 (not done) once a stop signal is pending, so that a stop comes
 * within about a node's time (every rank checks before each node). */
static int node_alone(mu_sc_ctx *x, int64_t j, double *rec) {
    if (mu_signals_pending()) {
        rec[0] = -1;
        return 0;
    }
    const int64_t v = x->tree->stage_first[x->stage] + (x->todo ? x->todo[j] : j);
    return node_work(x, v, rec, MPI_COMM_NULL);
}

/* A farm chunk of the stage's nodes, side by side on the rank's host threads. */
static int node_task(int64_t first, int64_t count, void *results, void *vctx) {
    mu_sc_ctx *x = vctx;
    size_t rd = mu_sc_rec_doubles(x, x->c->open[x->stage]);
    return mu_sc_lanes_run(x, first, count, results, rd, node_alone);
}

/* The farm's master hands out no more nodes once rank 0 has a stop signal. */
static int stage_stop(void *vctx) {
    (void)vctx;
    return mu_signals_pending() != 0;
}

/* A stage with fewer nodes than ranks: all ranks on each node in turn (where
 * it pays: see mu_sc_split_stage). Every rank ends with the whole stage. */
static int shared_stage(mu_app *app, mu_sc_ctx *x, int64_t ntodo, size_t rd, double *all) {
    for (int64_t i = 0; i < ntodo; i++) {
        if (mu_signals_any(app->comm)) return 0; /* the rest stay not done */
        int64_t j = x->todo ? x->todo[i] : i, v = x->tree->stage_first[x->stage] + j;
        int rc = node_work(x, v, all + j * rd, app->comm);
        /* node_work's errors after the generation are the aggregation's, the
         * same on every rank (same data, same decisions); make them collective. */
        if (mu_error_collective(app->comm, rc)) return 1;
    }
    return 0;
}

mu_farm_cfg mu_sc_stage_farm(int threads, int64_t nodes, int nranks, const char *progress) {
    /* Chunks of a node per host thread, but no more than a rank's share: a
     * stage of fewer nodes than threads still reaches every rank. */
    int64_t share = (nodes + nranks - 1) / nranks;
    mu_farm_cfg fc = {.min_chunk = threads < share ? threads : share,
                      .max_chunk = 0,
                      .master_works = 1,
                      .progress = progress};
    return fc;
}

int mu_sc_split_stage(const mu_sc_cfg *c, int use_gpu, int64_t nodes, int nranks) {
    if (nranks < 2 || nodes >= nranks || c->split == 0) return 0;
    /* auto: on CPU ranks. GPU ranks share devices (often one), where a pass's
     * step is a fraction of a millisecond and the gathers would cost more. */
    return c->split == 1 || !use_gpu;
}

/* The stage's node records, all (nodes x rd on every rank): those restored
 * from p, then the others through the farm (or shared, node by node); a
 * record not done (a stop) keeps rec[0] = -1. Collective; 0 or 1. */
static int stage_records(mu_app *app, mu_sc_ctx *x, int64_t nodes, size_t rd, double *all,
                         const mu_sc_partial *p, const char *phase) {
    for (int64_t j = 0; j < nodes; j++) all[j * rd] = -1;
    int64_t nd = p ? p->ndone : 0, ntodo = nodes - nd;
    for (int64_t i = 0; i < nd; i++) {
        double *rec = all + p->index[i] * rd;
        memset(rec, 0, rd * sizeof *rec);
        memcpy(rec, p->rec + i * p->stride, p->stride * sizeof *rec);
    }
    int64_t *todo = NULL;
    double *res = all;
    int rc = 0;
    if (nd > 0) {
        todo = malloc((size_t)(ntodo ? ntodo : 1) * sizeof *todo);
        res = app->rank == 0 ? malloc((size_t)(ntodo ? ntodo : 1) * rd * sizeof *res) : NULL;
        if (!todo || (app->rank == 0 && !res)) rc = mu_error("out of memory for the stage's nodes");
        for (int64_t j = 0, i = 0; !rc && j < nodes; j++)
            if (all[j * rd] < 0) todo[i++] = j;
        for (int64_t i = 0; !rc && res && i < ntodo; i++) res[i * rd] = -1;
    }
    if (mu_error_collective(app->comm, rc)) {
        free(todo);
        if (res != all) free(res);
        return 1;
    }
    x->todo = todo;
    if (mu_sc_split_stage(x->c, x->use_gpu, ntodo, app->size)) {
        rc = shared_stage(app, x, ntodo, rd, all);
    } else {
        mu_farm_cfg fc = mu_sc_stage_farm(x->threads, ntodo, app->size, phase);
        fc.stop = stage_stop;
        mu_farm_stats fs = {0, 0};
        rc = mu_taskfarm_run(app->comm, ntodo, rd * sizeof(double), node_task, x, &fc,
                             app->rank == 0 ? res : NULL, &fs);
        if (!rc && todo && app->rank == 0)
            for (int64_t i = 0; i < ntodo; i++)
                memcpy(all + todo[i] * rd, res + i * rd, rd * sizeof *all);
        if (!rc) MPI_Bcast(all, (int)(nodes * (int64_t)rd), MPI_DOUBLE, 0, app->comm);
    }
    x->todo = NULL;
    free(todo);
    if (res != all) free(res);
    return rc;
}

/* Stopped in stage st with some of its nodes not done: the checkpoint of the
 * stages done and the stage's nodes done (rank 0), collective. */
static int stop_in_stage(mu_app *app, mu_sc_ctx *x, uint64_t fp, int64_t nodes, size_t rd,
                         const double *all) {
    const mu_sc_cfg *c = x->c;
    int st = x->stage;
    mu_sc_partial p = {c->open[st], 0, NULL, NULL, rd};
    int rc = 0;
    if (app->rank == 0) {
        p.index = malloc((size_t)(nodes ? nodes : 1) * sizeof *p.index);
        p.rec = malloc((size_t)(nodes ? nodes : 1) * rd * sizeof *p.rec);
        if (!p.index || !p.rec) rc = mu_error("out of memory for the checkpoint");
        for (int64_t j = 0; !rc && j < nodes; j++)
            if (all[j * rd] > 0) {
                p.index[p.ndone] = j;
                memcpy(p.rec + p.ndone * rd, all + j * rd, rd * sizeof *p.rec);
                p.ndone++;
            }
        if (!rc) rc = mu_sc_checkpoint_write(c->checkpoint, fp, st, x->tree, x->md->nst, &p);
    }
    int64_t ndone = p.ndone;
    mu_sc_partial_free(&p);
    MU_TRY(mu_error_collective(app->comm, rc));
    MPI_Bcast(&ndone, 1, MPI_INT64_T, 0, app->comm);
    int sig = mu_signals_pending();
    mu_info("scenarios: checkpoint in stage %d (%lld of %lld node(s) done) written to %s", st + 1,
            (long long)ndone, (long long)nodes, c->checkpoint);
    if (app->rank == 0)
        mu_warn("scenarios: stopped by %s in stage %d of %d after %lld of %lld node(s): "
                "checkpoint written to %s; resume with --restart (exit status 3)",
                sig ? mu_signals_name(sig) : "a signal on another rank", st + 1, c->nstages,
                (long long)ndone, (long long)nodes, c->checkpoint);
    return MU_SC_STOPPED;
}

int mu_sc_build_tree(mu_app *app, mu_sc_ctx *x) {
    const mu_sc_cfg *c = x->c;
    int nst = x->md->nst, st0 = 0;
    mu_sc_tree *t = x->tree;
    mu_sc_partial part = {0};
    uint64_t fp = mu_sc_fingerprint(c, x->h, x->hist_end);
    if (c->restart) {
        MU_TRY(mu_sc_checkpoint_read(app->comm, c->checkpoint, fp, c, nst, t, &st0, &part));
        mu_info("scenarios: restarting from %s after stage %d (%lld nodes; %lld node(s) of stage "
                "%d done)",
                c->checkpoint, st0, (long long)t->n, (long long)part.ndone, st0 + 1);
    } else {
        MU_TRY(tree_reserve(t, 1, nst));
        t->n = 1;
        t->parent[0] = -1;
        t->stage[0] = 0;
        t->prob[0] = t->pprob[0] = 1;
        t->iters[0] = -1;
        memcpy(t->q, x->h->q + (x->hist_end - 1) * nst, (size_t)nst * sizeof *t->q);
        t->stage_first[0] = 0;
        t->stage_first[1] = 1;
    }
    int rc = 0;
    for (int st = st0; st < c->nstages; st++) {
        x->stage = st;
        int K = c->open[st];
        int64_t n0 = t->stage_first[st], nodes = t->stage_first[st + 1] - n0;
        size_t rd = mu_sc_rec_doubles(x, K);
        double *all = malloc((size_t)nodes * rd * sizeof *all);
        rc = all ? 0 : mu_error("out of memory for stage %d", st + 1);
        if (mu_error_collective(app->comm, rc)) {
            free(all);
            break;
        }
        char phase[64], timer[32]; /* a timer a stage, few (the phase table is small) */
        snprintf(phase, sizeof phase, "stage %d", st + 1);
        if (st < 8)
            snprintf(timer, sizeof timer, "stage %d", st + 1);
        else
            snprintf(timer, sizeof timer, "stages 9-");
        mu_timer_begin(timer);
        rc = stage_records(app, x, nodes, rd, all, st == st0 ? &part : NULL, phase);
        mu_sc_partial_free(&part);
        int64_t missing = 0;
        for (int64_t j = 0; !rc && j < nodes; j++) missing += all[j * rd] < 0;
        if (!rc && missing) rc = stop_in_stage(app, x, fp, nodes, rd, all);
        /* Children in node order, then group order. */
        int64_t kids = 0;
        for (int64_t j = 0; !rc && j < nodes; j++) kids += (int64_t)all[j * rd];
        if (!rc) rc = mu_error_collective(app->comm, tree_reserve(t, t->n + kids, nst));
        if (rc) {
            free(all);
            mu_timer_end(timer);
            return rc == MU_SC_STOPPED ? rc : 1;
        }
        int64_t itsum = 0, itmax = 0, fewer = 0;
        for (int64_t j = 0; j < nodes; j++) {
            const double *rec = all + j * rd;
            int k = (int)rec[0];
            int64_t v = n0 + j;
            t->iters[v] = (int)rec[1];
            itsum += (int64_t)rec[1];
            if (rec[1] > itmax) itmax = (int64_t)rec[1];
            fewer += k < K;
            memcpy(t->gmean + v * nst, rec + 2, (size_t)nst * sizeof *t->gmean);
            for (int g = 0; g < k; g++) {
                int64_t u = t->n++;
                t->parent[u] = v;
                t->stage[u] = st + 1;
                t->prob[u] = MU_SC_REC_CHILD(rec, nst, g)[0];
                t->pprob[u] = t->pprob[v] * t->prob[u];
                t->iters[u] = -1;
                memcpy(t->q + u * nst, MU_SC_REC_CHILD(rec, nst, g) + 1,
                       (size_t)nst * sizeof *t->q);
            }
            if (x->dump) mu_sc_dump_node(x->dump, v, MU_SC_REC_CHILD(rec, nst, K), c->m, nst);
        }
        free(all);
        mu_timer_end(timer);
        t->stage_first[st + 2] = t->n;
        mu_info("scenarios: stage %d (%d-%02d): %lld node(s) x M=%d -> %lld children; k-means "
                "iterations mean %.1f, max %lld%s",
                st + 1, x->h->first_year + (int)((x->hist_end + st) / 12),
                (int)((x->hist_end + st) % 12) + 1, (long long)nodes, c->m, (long long)kids,
                (double)itsum / (double)nodes, (long long)itmax,
                fewer ? " (some nodes formed fewer groups than asked)" : "");
        /* Between stages every rank holds the same tree: a safe point to stop. */
        int done = st + 1;
        if (done == c->nstages) break;
        int sig = mu_signals_any(app->comm);
        if (sig || (c->checkpoint_every > 0 && done % c->checkpoint_every == 0)) {
            const mu_sc_partial none = {c->open[done], 0, NULL, NULL, 0};
            rc =
                app->rank == 0 ? mu_sc_checkpoint_write(c->checkpoint, fp, done, t, nst, &none) : 0;
            MU_TRY(mu_error_collective(app->comm, rc));
            mu_info("scenarios: checkpoint after stage %d written to %s", done, c->checkpoint);
        }
        if (sig) {
            int mine = mu_signals_pending();
            if (app->rank == 0)
                mu_warn("scenarios: stopped by %s after stage %d of %d: checkpoint written to %s; "
                        "resume with --restart (exit status 3)",
                        mine ? mu_signals_name(mine) : "a signal on another rank", done, c->nstages,
                        c->checkpoint);
            return MU_SC_STOPPED;
        }
    }
    mu_sc_partial_free(&part);
    return rc;
}

/* ---- the comb (and the statistics sample) --------------------------------------- */

typedef struct {
    mu_sc_ctx *x;
    int horizon, stats;
} comb_ctx;

enum { COMB_BATCH = 256 };

static int comb_task(int64_t first, int64_t count, void *results, void *vctx) {
    comb_ctx *cc = vctx;
    mu_sc_ctx *x = cc->x;
    int nst = x->md->nst, pmax = x->md->pmax, H = cc->horizon;
    double *out = results, *zp = x->buf.zpast;
    /* The shared start: the record's last pmax months, for every series. */
    mu_sc_tree root = {0};
    int64_t par = -1;
    int st0 = 0;
    root.parent = &par;
    root.stage = &st0;
    mu_sc_tree *saved = x->tree;
    x->tree = &root;
    mu_sc_node_past(x, 0, zp);
    x->tree = saved;
    for (int64_t k = 1; k < count; k++)
        memcpy(zp + k * pmax * nst, zp, (size_t)pmax * nst * sizeof *zp);
    for (int t = 0; t < H; t++) {
        int month = (x->start_m + t) % 12;
        uint64_t stream = cc->stats ? MU_SC_STATS_STREAM(t) : MU_SC_COMB_STREAM(t);
        mu_sc_gen_draw d = {x->c->seed, stream, first, count, zp, (int64_t)pmax * nst};
        mu_timer_begin("generate");
        int rc = mu_sc_generate(x, month, &d, x->buf.Z);
        mu_timer_end("generate");
        MU_TRY(rc);
        for (int64_t k = 0; k < count; k++) {
            const double *q = x->buf.Z + k * nst;
            memcpy(out + (k * H + t) * nst, q, (size_t)nst * sizeof *out);
            double *z = zp + k * pmax * nst;
            memmove(z + nst, z, (size_t)(pmax - 1) * nst * sizeof *z);
            mu_sc_standardize(x->md, q, month, z);
        }
    }
    return 0;
}

int mu_sc_comb(mu_app *app, mu_sc_ctx *x, int64_t nser, int horizon, int stats, double *out) {
    comb_ctx cc = {x, horizon, stats};
    mu_farm_cfg fc = {.min_chunk = COMB_BATCH,
                      .max_chunk = COMB_BATCH,
                      .master_works = 1,
                      .progress = stats ? "statistics sample" : "comb"};
    mu_farm_stats fs = {0, 0};
    return mu_taskfarm_run(app->comm, nser, (size_t)horizon * x->md->nst * sizeof(double),
                           comb_task, &cc, &fc, app->rank == 0 ? out : NULL, &fs);
}
