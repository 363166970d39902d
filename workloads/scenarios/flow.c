/* The whole scenarios run: record, fit, tree, comb or openings, statistics sample, outputs. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scenarios/run.h"
#include "scenarios/kmeans.h"
#include "mpi/binding.h"
#include "core/error.h"
#include "core/memory.h"
#include "core/log.h"
#include "core/output.h"
#include "core/signals.h"
#include "core/summary.h"
#include "core/timer.h"
#include "gpu/gpu.h"
#include "gpu/scenarios_kmeans.h"
#include "gpu/scenarios_whiten.h"

enum { STATS_BATCH = 256 };

/* Leaves out of h the stations flagged in drop (every rank holds h and drops
 * the same ones: each fitted the same record). */
static void drop_stations(mu_sc_hist *h, const unsigned char *drop) {
    int kept = 0;
    for (int i = 0; i < h->nst; i++) {
        if (drop[i]) {
            free(h->names[i]);
            continue;
        }
        h->names[kept++] = h->names[i];
    }
    int64_t rows = (int64_t)h->nyears * 12;
    for (int64_t r = 0; r < rows; r++) {
        int k = 0;
        for (int i = 0; i < h->nst; i++)
            if (!drop[i]) h->q[r * kept + k++] = h->q[r * h->nst + i];
    }
    h->nst = kept;
}

/* --drop-dependent: the stations that are linear combinations of others in
 * some month's residuals are left out and the model fitted again, until none
 * is (a station dropped can change which others depend). */
static int refit_independent(mu_sc_hist *h, const mu_sc_fit_cfg *fc, mu_sc_model *md) {
    int rc = 0;
    while (!rc && md->dependent) {
        char names[512] = "";
        int o = 0, n = 0;
        for (int i = 0; i < h->nst; i++)
            if (md->dependent[i]) {
                n++;
                if (o < (int)sizeof names - 64)
                    o += snprintf(names + o, sizeof names - (size_t)o, "%s%s", o ? ", " : "",
                                  h->names[i]);
            }
        if (n == 0 || n == h->nst) break;
        mu_info("scenarios: --drop-dependent: leaving out %d station(s) that are linear "
                "combinations of others: %s",
                n, names);
        unsigned char *drop = md->dependent;
        md->dependent = NULL;
        drop_stations(h, drop);
        free(drop);
        mu_sc_model_free(md);
        rc = mu_sc_fit(h, fc, md);
    }
    return rc;
}

/* The record, read on rank 0 and sent to every rank. Collective. */
static int load(mu_app *app, const mu_sc_cfg *c, mu_sc_hist *h) {
    int rc = 0;
    mu_timer_begin("input");
    if (app->rank == 0 && c->given) {
        *h = *c->given; /* taken over */
        memset(c->given, 0, sizeof *c->given);
    } else if (app->rank == 0) {
        rc = mu_sc_read(c->input, &c->sel, h);
        if (!rc && h->nst > 1024)
            rc = mu_error("%s: %d stations: at most 1024 (choose with --stations or --nstations)",
                          c->input, h->nst);
    }
    rc = mu_error_collective(app->comm, rc);
    if (!rc) rc = mu_sc_hist_bcast(app->comm, h);
    mu_timer_end("input");
    return rc;
}

/* The PAR(p) model of the record. Local status. */
static int fit_model(const mu_sc_cfg *c, int quiet, int threads, mu_sc_hist *h, mu_sc_model *md) {
    mu_sc_fit_cfg fc = c->fit;
    fc.quiet = quiet;
    fc.threads = threads;
    int rc = mu_sc_fit(h, &fc, md);
    if (!rc && fc.drop_dependent) rc = refit_independent(h, &fc, md);
    return rc;
}

static void log_fit(const mu_sc_hist *h, const mu_sc_model *md) {
    int hist[13] = {0}, nst = md->nst;
    for (int k = 0; k < 12 * nst; k++) hist[md->order[k]]++;
    char buf[256];
    int o = 0;
    for (int p = 0; p <= md->pmax; p++)
        o += snprintf(buf + o, sizeof buf - (size_t)o, "%s%d:%d", p ? " " : "", p, hist[p]);
    mu_info("scenarios: PAR(p) fit of %d station(s) on %d years (%d-%d); orders (p:count of "
            "station-months) %s; %d non-stationary, %d month(s) with a non-positive-definite "
            "residual correlation",
            nst, h->nyears, h->first_year, h->first_year + h->nyears - 1, buf, md->nonstationary,
            md->nonpd);
    for (int s = 0; s < nst && s < 8; s++) {
        o = 0;
        for (int m = 0; m < 12; m++)
            o += snprintf(buf + o, sizeof buf - (size_t)o, "%s%d", m ? "," : "",
                          md->order[m * nst + s]);
        mu_info("scenarios:   %-8s orders by month %s", h->names[s], buf);
    }
    if (nst > 8) mu_info("scenarios:   (%d more stations in the model JSON)", nst - 8);
}

/* lock: Z page-locked (and touched) for the device's copies. */
static int make_scratch(mu_sc_ctx *x, int nst, int pmax, int64_t rows, int use_gpu, int lock) {
    const size_t zbytes = (size_t)rows * nst * sizeof *x->buf.Z;
    x->buf.z_locked = 0;
    x->buf.Z = lock ? mu_gpu_host_alloc(zbytes, &x->buf.z_locked) : malloc(zbytes);
    x->buf.zpast = malloc((size_t)rows * pmax * nst * sizeof *x->buf.zpast);
    int rc = !x->buf.Z || !x->buf.zpast
                 ? mu_error("out of memory for %lld scenarios", (long long)rows)
                 : 0;
    if (!rc && use_gpu)
        rc = MU_GPU(mu_sc_gpu_create(nst, pmax, rows, 1, &x->buf.gpu), "scenarios: GPU buffers");
    return rc;
}

/* The rank's scratch (made already where warm_up succeeded). Collective. */
static int alloc_scratch(mu_app *app, mu_sc_ctx *x, int64_t rows) {
    int rc = x->buf.Z ? 0 : make_scratch(x, x->md->nst, x->md->pmax, rows, x->use_gpu, 0);
    return mu_error_collective(app->comm, rc);
}

static void free_scratch(mu_sc_ctx *x) {
    mu_sc_lanes_close(x);
    mu_sc_bufs_free(&x->buf); /* the rank's own */
}

/* The scratch, its host rows touched, this thread's whitening buffers and a
 * k-means context of kmax centres, for the root node; on a failure nothing is
 * kept (alloc_scratch and the node make them again, and report). */
static void warm_up(mu_sc_ctx *x, int nst, int pmax, int64_t rows, int m, int kmax) {
    if (make_scratch(x, nst, pmax, rows, 1, 1) || mu_gpu_whiten_reserve(m, nst)) {
        mu_sc_bufs_free(&x->buf); /* the rank's own: the lanes are other threads' now */
        return;
    }
    (void)mu_gpu_km_reserve(m, nst, kmax);
}

/* The lanes the tree's largest stage gives this rank (at most threads), and
 * the largest K of any stage into *kmax. */
static int tree_lanes(const mu_sc_cfg *c, int threads, int nranks, int *kmax) {
    int64_t nodes = 1, most = 1;
    *kmax = 1;
    if (c->openings) { /* the stages, side by side */
        int64_t share = ((int64_t)c->horizon + nranks - 1) / nranks;
        *kmax = c->openings;
        return share < threads ? (int)share : threads;
    }
    for (int s = 0; s < c->nstages; s++) {
        if (c->open[s] > *kmax) *kmax = c->open[s];
        if (most < nodes) most = nodes;
        if (nodes < (int64_t)threads * nranks) nodes *= c->open[s];
    }
    int64_t share = (most + nranks - 1) / nranks;
    return share < threads ? (int)share : threads;
}

/* The fit. On a GPU rank whose root node whitens on the device, the fit (host
 * only) runs on a second thread while this one makes the root's buffers
 * (warm_up) and the other threads the lanes' of the later stages
 * (mu_sc_lane_warm): made during the tree, on many threads at once, they
 * slowed its nodes' device steps. Not with --drop-dependent, which can change
 * the stations the buffers are sized by. Collective. */
static int fit(mu_app *app, const mu_sc_cfg *c, mu_sc_hist *h, mu_sc_model *md, mu_sc_ctx *x,
               int64_t rows) {
    const int quiet = app->rank != 0;
    const int warm =
        app->dev.use_gpu && !c->comb && !c->fit.drop_dependent && c->m >= MU_GPU_KM_BOOK_MIN;
    int kmax = 1, lanes = warm ? tree_lanes(c, x->threads, app->size, &kmax) : 0;
    if (lanes > 1 && mu_sc_lanes_open(x, lanes, h->nst, c->fit.pmax)) {
        lanes = 0; /* made at the stage then, which reports a failure */
        mu_error_clear();
    }
    double t0 = mu_km_now(), fit_s = 0;
    int rc = 0, done = 0;
    char msg[1024] = "";
    const int levels = mu_sc_nest(warm); /* the fit's months on the threads that make no buffers */
#pragma omp parallel num_threads(lanes > 2 ? lanes : 2) if (warm)
    {
        const int t = omp_get_thread_num();
        if (t == 0 && warm) {
            warm_up(x, h->nst, c->fit.pmax, rows, c->m, kmax);
            if (lanes > 1) mu_sc_lane_scratch(&x->lanes[0]);
        } else if (t == 1) { /* its message is this thread's */
            rc = fit_model(c, quiet, x->threads, h, md);
            if (rc) snprintf(msg, sizeof msg, "%s", mu_error_message());
            fit_s = mu_km_now() - t0;
            done = 1;
            if (!rc && lanes > 1) mu_sc_lane_warm(x, 1, kmax);
        } else if (t < lanes) {
            mu_sc_lane_warm(x, t, kmax);
        }
    }
    omp_set_max_active_levels(levels);
    if (!done) { /* one thread: the fit here, after the buffers */
        t0 = mu_km_now();
        rc = fit_model(c, quiet, x->threads, h, md);
        fit_s = mu_km_now() - t0;
    } else if (rc) {
        rc = mu_error("%s", msg);
    }
    double beyond = done ? mu_km_now() - t0 - fit_s : 0; /* the buffers outlasting the fit */
    mu_timer_add("fit", fit_s, 1);
    if (beyond > 0) mu_timer_add("buffers", beyond, 1);
    return mu_error_collective(app->comm, rc);
}

static int write_comb(const char *path, const mu_sc_hist *h, const double *out, int64_t S, int H,
                      int64_t hist_end) {
    mu_output o;
    MU_TRY(mu_output_open(&o, path));
    fprintf(o.f, "series,stage,year,month");
    for (int s = 0; s < h->nst; s++) fprintf(o.f, ",%s", h->names[s]);
    fprintf(o.f, "\n");
    for (int64_t k = 0; k < S; k++)
        for (int t = 0; t < H; t++) {
            int64_t a = hist_end + t;
            fprintf(o.f, "%lld,%d,%d,%d", (long long)k, t + 1, h->first_year + (int)(a / 12),
                    (int)(a % 12) + 1);
            for (int s = 0; s < h->nst; s++) fprintf(o.f, ",%.10g", out[(k * H + t) * h->nst + s]);
            fprintf(o.f, "\n");
        }
    return mu_output_commit(&o);
}

/* The tree's sizes multiplied with overflow checks, and a tree no rank can
 * hold refused up front, before the fit and any output: every rank holds the
 * tree (a parent, stage, iterations, two probabilities, and the inflows and
 * sample means of every station, a node), one stage's node records (as
 * mu_sc_rec_doubles counts them), and a lane's M scenarios of every station a
 * host thread. Local status. */
static int tree_fits(const mu_app *app, const mu_sc_cfg *c, int64_t nst, int threads) {
    int64_t nodes = 1, total = 1;
    double records = 0;
    for (int st = 0; st < c->nstages; st++) {
        double rd = 2.0 + (double)nst + (double)c->open[st] * (1.0 + (double)nst) +
                    (c->node_scenarios ? (double)c->m * (double)nst : 0);
        if ((double)nodes * rd * 8 > records) records = (double)nodes * rd * 8;
        if (__builtin_mul_overflow(nodes, (int64_t)c->open[st], &nodes) ||
            __builtin_add_overflow(total, nodes, &total))
            return mu_error("--tree=%s: over 2^63 nodes", c->tree_text);
    }
    double need = (double)total * (32.0 + 16.0 * (double)nst) + records +
                  (double)threads * c->m * (double)nst * 8;
    double have = mu_mem_rank_available(app->dev.local_size);
    if (need > have)
        return mu_error("--tree=%s --m=%d with %lld station(s): %lld nodes, about %.3g GB a rank, "
                        "more than the %.3g GB a rank may use here: a smaller --tree or --m",
                        c->tree_text, c->m, (long long)nst, (long long)total, need / 1e9,
                        have / 1e9);
    return 0;
}

/* The tree, and with --node-scenarios rank 0's file of the nodes' scenarios
 * (written stage by stage, kept only when the tree is complete). */
static int build_tree(mu_app *app, mu_sc_ctx *x) {
    mu_output o;
    int rc = 0, dump = app->rank == 0 && x->c->node_scenarios;
    if (dump && !(rc = mu_output_open(&o, x->c->node_scenarios))) {
        x->dump = o.f;
        mu_sc_dump_header(o.f, x->h);
    }
    if (mu_error_collective(app->comm, rc)) return 1;
    mu_timer_begin("tree");
    /* A library call leaves the caller's signal handlers alone. */
    int library = x->c->out != NULL;
    int sig_rc = library ? 0 : mu_signals_install();
    rc = sig_rc ? sig_rc : mu_sc_build_tree(app, x);
    if (!sig_rc && !library) mu_signals_restore();
    mu_timer_end("tree");
    x->dump = NULL;
    if (dump && rc) mu_output_abort(&o);
    if (dump && !rc) rc = mu_output_commit(&o);
    return rc;
}

/* The tree's worst differences: the log and the summary (finite ones only). */
static void report_diff(const mu_sc_tree_diff *d, int with_sample, const char *path) {
    if (isfinite(d->node_mean))
        mu_info("scenarios: tree stages against the scenarios their parents generated: largest "
                "relative difference of a stage mean %.3g",
                d->node_mean);
    else /* a restart: the checkpoint keeps the tree, not the nodes' sample means */
        mu_info("scenarios: tree stages against the scenarios their parents generated: not "
                "known after a restart");
    if (with_sample) {
        mu_info("scenarios: tree stages against the sample: largest relative difference of a "
                "stage mean %.4f, of a standard deviation %.4f; largest difference of a lag-1 "
                "correlation %.4f, of a cross-station correlation %.4f (%s)",
                d->mean, d->std, d->lag1, d->corr, path);
        mu_info("scenarios: tree stages against the record's month: mean %.4f, standard "
                "deviation %.4f (relative), lag-1 %.4f, cross-station %.4f",
                d->h_mean, d->h_std, d->h_lag1, d->h_corr);
    }
    const char *keys[] = {"tree_node_mean_rel",   "tree_sample_mean_rel", "tree_sample_std_rel",
                          "tree_sample_lag1_abs", "tree_sample_corr_abs", "tree_hist_mean_rel",
                          "tree_hist_std_rel",    "tree_hist_lag1_abs",   "tree_hist_corr_abs"};
    double v[] = {d->node_mean, d->mean,  d->std,    d->lag1,  d->corr,
                  d->h_mean,    d->h_std, d->h_lag1, d->h_corr};
    for (int i = 0; i < 9; i++)
        if (isfinite(v[i]) && (i == 0 || with_sample)) mu_summary_result_real(keys[i], v[i]);
}

/* The first generated month (given, or the month after the record) into
 * *hist_end; the record must hold p_max months before it. Local status. */
static int start_month(const mu_sc_cfg *c, const mu_sc_hist *h, const mu_sc_model *md,
                       int64_t *hist_end) {
    int64_t rec_months = (int64_t)h->nyears * 12;
    *hist_end =
        c->start_year ? ((int64_t)c->start_year - h->first_year) * 12 + c->start_month : rec_months;
    int rc = 0;
    if (*hist_end < md->pmax || *hist_end > rec_months)
        rc = mu_error("--start=%d-%02d: the record (%d-01 to %d-12) must hold the %d months "
                      "before it (p_max) and reach the month before it",
                      c->start_year, c->start_month + 1, h->first_year,
                      h->first_year + h->nyears - 1, md->pmax);
    /* --mode=openings: stage 2's past ends earliest, 11 months before the start. */
    const int64_t first = mu_sc_opening_past_end(*hist_end, c->horizon > 1);
    if (!rc && c->openings && first < md->pmax)
        rc = mu_error("--mode=openings: stage 2's past ends %lld months into the record, which "
                      "holds fewer than p_max = %d months before it: start later (--start)",
                      (long long)first, md->pmax);
    return rc;
}

/* What the rank's lanes need before the fit makes them (x->c, h, use_gpu and
 * threads: the host threads per rank on a stage's nodes). */
static void lanes_setup(mu_app *app, const mu_sc_cfg *c, const mu_sc_hist *h, mu_sc_ctx *x) {
    x->c = c;
    x->h = h;
    x->use_gpu = app->dev.use_gpu;
    char why[256];
    x->threads = mu_threads_per_rank(&app->dev, c->threads, why, sizeof why);
    if (x->use_gpu && !c->threads && x->threads > MU_SC_GPU_LANES) {
        /* A GPU rank's lanes share its device: the 6000-leaf tree's 30
         * second-stage nodes took as long on 8 and 16 lanes as on 32, whose
         * contention spread the stage's time more from run to run. */
        x->threads = MU_SC_GPU_LANES;
        size_t n = strlen(why);
        snprintf(why + n, sizeof why - n,
                 "; at most %d on a GPU rank, whose nodes share the device", MU_SC_GPU_LANES);
    }
    if (!c->comb)
        mu_info("scenarios: %d host thread(s) per rank on a stage's nodes (%s)", x->threads, why);
    mu_summary_int("threads_per_rank", x->threads);
}

/* The run's context, its log and summary lines, and the model's JSON.
 * Local status. */
static int setup(mu_app *app, const mu_sc_cfg *c, mu_sc_hist *h, mu_sc_model *md, mu_sc_tree *tree,
                 int64_t hist_end, mu_sc_ctx *x) {
    int rc = 0;
    if (app->rank == 0) log_fit(h, md);
    x->md = md; /* x->c and x->h: lanes_setup */
    x->hist_end = hist_end;
    x->start_m = (int)(hist_end % 12);
    x->tree = tree;
    mu_summary_int("stations", h->nst);
    mu_summary_int("record_years", h->nyears);
    if (app->rank == 0 && c->model_json) {
        mu_timer_begin("output");
        rc = mu_sc_write_model(c->model_json, h, md, &c->fit);
        mu_timer_end("output");
    }
    return rc;
}

/* The comb's and the statistics' steps return 1 when the run stops there, and
 * leave in *rc this rank's own status, which the run returns. */

/* --comb: independent series from the start month, into *comb on rank 0 and its CSV. */
/* Rank 0's buffer of series x months x stations doubles (*out), refused with a
 * message when it is more than the rank may use (checked before allocating). */
static int rank0_buffer(mu_app *app, int64_t series, int months, int nst, const char *what,
                        double **out) {
    int rc = 0;
    if (app->rank == 0) {
        double need = (double)series * months * nst * sizeof **out;
        double have = mu_mem_rank_available(app->dev.local_size);
        if (need > have)
            rc = mu_error("the %s needs %.3g GiB on rank 0, more than the %.3g GiB it may use "
                          "(available memory over the node's ranks, and ulimit -v)",
                          what, need / 1073741824.0, have / 1073741824.0);
        else if (!(*out = malloc((size_t)need)))
            rc = mu_error("out of memory for the %s", what);
    }
    return mu_error_collective(app->comm, rc);
}

static int run_comb(mu_app *app, mu_sc_ctx *x, double **comb, int *rc) {
    const mu_sc_cfg *c = x->c;
    const mu_sc_hist *h = x->h;
    int64_t hist_end = x->hist_end;
    int sy = (int)((hist_end) / 12) + h->first_year, sm = (int)(hist_end % 12);
    mu_info("scenarios: comb: %lld independent series over %d months from %d-%02d",
            (long long)c->series, c->horizon, sy, sm + 1);
    if (rank0_buffer(app, c->series, c->horizon, h->nst, "comb", comb)) return 1;
    mu_timer_begin("comb");
    *rc = mu_sc_comb(app, x, c->series, c->horizon, 0, *comb);
    mu_timer_end("comb");
    if (*rc) return 1;
    if (app->rank == 0 && c->out_csv) {
        mu_timer_begin("output");
        *rc = write_comb(c->out_csv, h, *comb, c->series, c->horizon, hist_end);
        mu_timer_end("output");
    }
    return mu_error_collective(app->comm, *rc);
}

/* --mode=openings: every stage's record into *all on rank 0, and its CSV. */
static int run_openings(mu_app *app, mu_sc_ctx *x, double **all, int *rc) {
    const mu_sc_cfg *c = x->c;
    const mu_sc_hist *h = x->h;
    const int sy = (int)(x->hist_end / 12) + h->first_year, sm = (int)(x->hist_end % 12);
    mu_info("scenarios: openings: %d monthly stage(s) from %d-%02d, M=%d into %d each "
            "(stage t from the record's latest months before its month)",
            c->horizon, sy, sm + 1, c->m, c->openings);
    if (rank0_buffer(app, c->horizon, 1, (int)mu_sc_rec_doubles(x, c->openings), "openings", all))
        return 1;
    mu_timer_begin("openings");
    *rc = mu_sc_openings(app, x, *all);
    mu_timer_end("openings");
    if (*rc) return 1;
    if (app->rank == 0 && c->out_csv) {
        mu_timer_begin("output");
        *rc = mu_sc_write_openings(c->out_csv, x, *all);
        mu_timer_end("output");
    }
    return mu_error_collective(app->comm, *rc);
}

/* The statistics sample: S comb series of H months into *sample on rank 0. */
static int run_stats(mu_app *app, mu_sc_ctx *x, int64_t S, int H, double **sample, int *rc) {
    if (rank0_buffer(app, S, H, x->h->nst, "statistics sample", sample)) return 1;
    mu_timer_begin("statistics");
    *rc = mu_sc_comb(app, x, S, H, 1, *sample);
    mu_timer_end("statistics");
    return *rc != 0;
}

/* Rank 0: the openings' answer line and summary (every stage's probabilities
 * add up to one, to rounding). */
static void report_openings(const mu_sc_ctx *x, const double *all, int64_t clamped) {
    const mu_sc_cfg *c = x->c;
    const int nst = x->h->nst;
    const size_t rd = mu_sc_rec_doubles(x, c->openings);
    double worst = 0;
    int64_t groups = 0;
    for (int t = 0; t < c->horizon; t++) {
        const double *rec = all + (size_t)t * rd;
        double psum = 0;
        for (int g = 0; g < (int)rec[0]; g++) psum += MU_SC_REC_CHILD(rec, nst, g)[0];
        groups += (int64_t)rec[0];
        if (fabs(psum - 1) > worst) worst = fabs(psum - 1);
    }
    printf("scenarios: openings: %d stages x M=%d into %d, %lld openings, stations=%d, "
           "largest |probability sum - 1|=%.3g, clamped draws=%lld\n",
           c->horizon, c->m, c->openings, (long long)groups, nst, worst, (long long)clamped);
    mu_summary_result_int("stages", c->horizon);
    mu_summary_result_int("openings", groups);
    mu_summary_result_int("clamped", clamped);
    mu_summary_result_real("probability_sum_error", worst);
}

/* Rank 0: the answer line, the summary, the files and the tree's differences.
 * Returns rank 0's local status. */
static int report(const mu_sc_ctx *x, const mu_sc_tree *tree, const double *opens, int64_t clamped,
                  const double *sample, int64_t S, int H) {
    const mu_sc_cfg *c = x->c;
    const mu_sc_hist *h = x->h;
    const int is_tree = !c->comb && !c->openings;
    int rc = 0;
    mu_timer_begin("output");
    if (c->openings) {
        report_openings(x, opens, clamped);
    } else if (is_tree) {
        double psum = 0;
        int64_t leaves = tree->n - tree->stage_first[c->nstages];
        for (int64_t v = tree->stage_first[c->nstages]; v < tree->n; v++) psum += tree->pprob[v];
        printf("scenarios: tree %s: %lld nodes, %lld leaves, M=%d, stations=%d, "
               "leaf probability sum=%.15f, clamped draws=%lld\n",
               c->tree_text, (long long)tree->n, (long long)leaves, c->m, h->nst, psum,
               (long long)clamped);
        mu_summary_result_int("nodes", tree->n);
        mu_summary_result_int("leaves", leaves);
        mu_summary_result_int("clamped", clamped);
        mu_summary_result_real("leaf_probability_sum", psum);
        if (c->out_csv || c->out_json)
            rc = mu_sc_write_tree(c->out_csv, c->out_json, h, tree, (int)x->hist_end);
    } else {
        printf("scenarios: comb: %lld series x %d months, stations=%d, clamped draws=%lld\n",
               (long long)c->series, c->horizon, h->nst, (long long)clamped);
        mu_summary_result_int("series", c->series);
        mu_summary_result_int("clamped", clamped);
    }
    if (!rc && sample)
        rc = mu_sc_write_stats(c->stats_path, h, x->md, sample, S, H, 12, x->start_m);
    if (!rc && is_tree) {
        mu_sc_tree_diff d;
        mu_sc_tree_node_diff(tree, c->nstages, h->nst, &d);
        /* Appended after the atomic write: the file is complete either way. */
        if (sample)
            rc = mu_sc_tree_stats(c->stats_path, h, tree, c->nstages, x->start_m, sample, S, H, &d);
        if (!rc) report_diff(&d, sample != NULL, c->stats_path);
    }
    mu_timer_end("output");
    if (!rc && c->plot && is_tree) {
        mu_timer_begin("plot");
        rc = mu_sc_plot(c->plot, h, tree, c->plot_stations, (int)x->hist_end);
        mu_timer_end("plot");
    }
    fflush(stdout);
    return rc;
}

int mu_sc_run(mu_app *app, const mu_sc_cfg *c) {
    mu_sc_hist h;
    mu_sc_model md;
    memset(&h, 0, sizeof h);
    memset(&md, 0, sizeof md);
    mu_sc_tree tree;
    memset(&tree, 0, sizeof tree);
    mu_sc_ctx x;
    memset(&x, 0, sizeof x);
    double *comb = NULL, *sample = NULL, *opens = NULL;
    int64_t rows = c->comb ? STATS_BATCH : c->m;
    if (rows < STATS_BATCH) rows = STATS_BATCH;
    int rc = mu_error_collective(app->comm, load(app, c, &h));
    if (!rc) lanes_setup(app, c, &h, &x);
    if (!rc && !c->comb && !c->openings)
        rc = mu_error_collective(app->comm, tree_fits(app, c, h.nst, x.threads));
    if (!rc) rc = fit(app, c, &h, &md, &x, rows);
    if (rc) {
        free_scratch(&x);
        mu_sc_model_free(&md);
        mu_sc_hist_free(&h);
        return 1;
    }
    int64_t hist_end = 0;
    rc = start_month(c, &h, &md, &hist_end);
    if (mu_error_collective(app->comm, rc)) goto out;
    rc = setup(app, c, &h, &md, &tree, hist_end, &x);
    if (mu_error_collective(app->comm, rc)) goto out;

    /* The failures below are agreed by every rank: each returns 1. */
    if (alloc_scratch(app, &x, rows)) {
        rc = 1;
        goto out;
    }
    if (c->comb) {
        if (run_comb(app, &x, &comb, &rc)) {
            rc = 1;
            goto out;
        }
    } else if (c->openings) {
        mu_info("scenarios: representatives: %s", mu_sc_rep_name(c->rep));
        if (run_openings(app, &x, &opens, &rc)) {
            rc = 1;
            goto out;
        }
    } else {
        mu_info("scenarios: representatives: %s", mu_sc_rep_name(c->rep));
        rc = build_tree(app, &x);
        if (rc == MU_SC_STOPPED) { /* the checkpoint is the result; no outputs */
            app->exit_status = 3;
            rc = 0;
            goto out;
        }
        if (rc) goto out;
    }
    /* The statistics sample: stats_series comb series of stats_years years after a
     * year of burn-in (they start from the record's last months). */
    int64_t S = c->stats_series;
    int H = 12 * (c->stats_years + 1);
    free(x.buf.Dnode); /* the statistics sample uses each month's own factor */
    x.buf.Dnode = NULL;
    if (S > 0 && c->stats_path && run_stats(app, &x, S, H, &sample, &rc)) {
        rc = 1;
        goto out;
    }
    int64_t clamped = 0;
    MPI_Reduce(&x.clamped, &clamped, 1, MPI_INT64_T, MPI_SUM, 0, app->comm);
    if (c->out) { /* a library call: the tree to the caller, nothing printed or written */
        *c->out = (mu_sc_out){.tree = tree,
                              .hist_end = hist_end,
                              .clamped = clamped,
                              .nonstationary = md.nonstationary,
                              .nonpd = md.nonpd};
        memset(&tree, 0, sizeof tree);
        goto out;
    }
    if (app->rank == 0) rc = report(&x, &tree, opens, clamped, sample, S, H);
    rc = mu_error_collective(app->comm, rc);
out:
    free_scratch(&x);
    free(comb);
    free(opens);
    free(sample);
    mu_sc_tree_free(&tree);
    mu_sc_model_free(&md);
    mu_sc_hist_free(&h);
    return rc ? 1 : 0;
}
