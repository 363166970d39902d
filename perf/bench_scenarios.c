/* Benchmark of `mutirao scenarios` (issue 4), one process, through the
 * workload's own code (record, fit, task-farm tree on one rank, generation
 * kernel, mu_agg_cluster):
 *   tree    the study's 6000-leaf tree 1 -> 30 -> 200, M = 1024, 64 real stations
 *           (study: 3210.7 s serial, 122.4 s CUDA, 74.9 s with 3 ranks + GPU)
 *   newave  12 monthly stages, M = 100000 generated vectors clustered into 20
 *           (issue 22: < 2 s on one H100)
 *   table   the 12 monthly cases of Table 3-2, M = 1024 into K = 136, 116, ... 152
 *   rate    generation alone: scenario-months per second, against the bytes
 *           written and the normals drawn (the memory and random-number limits)
 * usage: bench_scenarios [--device=gpu|cpu] [--case=all|tree|newave|table|rate]
 *                        [--input=inputs/scenarios/ons_inflows_64.csv] [--method=v2|hw]
 *                        [--newave-m=100000] [--newave-stages=12] [--newave-budget=90]
 * [--newave-farm=0|1]
 *                        [--tree-m=1024] [--threads=N]
 *                        [--representative=centroid|nearest|scaled] (the command's default)
 * --threads: host threads per rank on a stage's nodes, and on the newave
 * stages (0: the command's rule, mu_threads_per_rank and at most 16 on a GPU
 * rank; 1: one node or stage at a time on the calling thread); with several,
 * the phase seconds below are per thread (summed over the threads, or each
 * stage's own lane), so they add up to more than the wall.
 * Under mpirun with several ranks it runs the tree case (by default) or the
 * newave case, their nodes or stages farmed over the ranks through the
 * command's task farm, each rank on its node-local GPU as the command binds
 * it; rank 0 reports (the tree: its own share of the generation and
 * aggregation). --newave-farm=1 runs newave through the farm on one rank too
 * (the baseline of a scaling series).
 * Each case prints as it finishes (stdout line-buffered). The aggregation is
 * split into the k-means' distance steps (the device's on the GPU), its serial
 * part (the rest of the k-means call) and the rest (whitening, duplicates,
 * centre draw, representatives, device buffers).
 * newave: the stages are independent (each one's past is the record's last
 * months), so they run side by side as the command runs a tree stage's nodes
 * (mu_sc_lanes_run: one lane a host thread, its own scratch and GPU buffers,
 * kernels on per-thread default streams), --threads stages at a time; the
 * headline is the wall time of the stages. It runs twice at --newave-m: the
 * first pass allocates each lane thread's device and pinned buffers (as a
 * command's first stage on its lanes does), the second finds them kept; each
 * stops after the batch of stages that passes --newave-budget seconds (it
 * then says so and gives the per-stage mean).
 * Each stage prints a check line (group sizes, a hash of the assignment and of
 * the representative members' bits) to compare runs: --threads must not
 * change it.
 * The CPU path on many ranks is the command itself, e.g.
 *   mpiexec -n 16 mutirao scenarios --device=cpu --input=... --tree=1,30,200 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <mpi.h>
#include "app.h"
#include "core/error.h"
#include "core/log.h"
#include "core/timer.h"
#include "gpu/gpu.h"
#include "gpu/scenarios_gen.h"
#include "scenarios/run.h"
#include "mpi/binding.h"
#include "mpi/taskfarm.h"
#ifdef MU_BENCH_CUDA
#include "bench_util.h"
#endif

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static const char *arg(int argc, char **argv, const char *key, const char *def) {
    size_t n = strlen(key);
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], key, n) && argv[i][n] == '=') return argv[i] + n + 1;
    return def;
}

static void die(const char *what) {
    fprintf(stderr, "bench_scenarios: %s: %s\n", what, mu_error_message());
    exit(1);
}

typedef struct {
    mu_sc_hist h;
    mu_sc_model md;
    mu_sc_cfg c;
    int use_gpu;
    int threads; /* host threads on a stage's nodes (--threads; 0: the command's auto) */
} bench;

static void setup_ctx(bench *b, mu_sc_ctx *x, mu_sc_tree *t, int64_t hist_end, int64_t rows,
                      int per_scen) {
    memset(x, 0, sizeof *x);
    x->c = &b->c;
    x->h = &b->h;
    x->md = &b->md;
    x->hist_end = hist_end;
    x->start_m = (int)(hist_end % 12);
    x->tree = t;
    x->use_gpu = b->use_gpu;
    x->threads = b->threads;
    int nst = b->md.nst, P = b->md.pmax;
    x->buf.Z = malloc((size_t)rows * nst * sizeof *x->buf.Z);
    x->buf.zpast = malloc((size_t)(per_scen ? rows : 1) * P * nst * sizeof *x->buf.zpast);
    if (!x->buf.Z || !x->buf.zpast) {
        fprintf(stderr, "bench_scenarios: out of memory\n");
        exit(1);
    }
    if (b->use_gpu && mu_sc_gpu_create(nst, P, rows, per_scen, &x->buf.gpu)) {
        fprintf(stderr, "bench_scenarios: GPU buffers: %s\n", mu_gpu_error());
        exit(1);
    }
}

static void free_ctx(mu_sc_ctx *x) {
    mu_sc_lanes_close(x);
    mu_sc_bufs_free(&x->buf);
}

/* One tree through the workload's stage loop (task farm on one rank). */
static double run_tree(bench *b, mu_app *app, const int *open, int nstages, int m, int64_t hist_end,
                       double *gen_s, double *agg_s, int64_t *leaves, double *iters, double km[2]) {
    b->c.nstages = nstages;
    for (int i = 0; i < nstages; i++) b->c.open[i] = open[i];
    b->c.m = m;
    mu_sc_tree t;
    memset(&t, 0, sizeof t);
    mu_sc_ctx x;
    setup_ctx(b, &x, &t, hist_end, m < 256 ? 256 : m, 0);
    double g0 = mu_timer_seconds("generate"), a0 = mu_timer_seconds("aggregate");
    double t0 = now();
    if (mu_sc_build_tree(app, &x)) die("tree");
    double wall = now() - t0;
    *gen_s = mu_timer_seconds("generate") - g0;
    *agg_s = mu_timer_seconds("aggregate") - a0;
    *leaves = t.n - t.stage_first[nstages];
    km[0] = x.km_dist_s;
    km[1] = x.km_s - x.km_dist_s;
    double it = 0;
    int64_t inner = 0;
    for (int64_t v = 0; v < t.stage_first[nstages]; v++, inner++) it += t.iters[v];
    *iters = it / (double)inner;
    free_ctx(&x);
    mu_sc_tree_free(&t);
    return wall;
}

/* ---- NEWAVE scale: independent stages side by side ----------------------------- */

enum { NEWAVE_K = 20 };

/* A stage's outcome, handed back through its lane record (mu_sc_lanes_run's
 * records are doubles: copied in and out whole). */
typedef struct {
    double gen_s, agg_s; /* the stage's own lane (thread) seconds */
    mu_agg_result a;     /* its counts and seconds (the arrays left out: NULL) */
    int size[NEWAVE_K];  /* group sizes */
    uint64_t hash;       /* of the assignment and the representative members' bits */
} stage_rec;
#define STAGE_RD ((sizeof(stage_rec) + sizeof(double) - 1) / sizeof(double))

static uint64_t fnv1a(uint64_t h, const void *p, size_t n) {
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 0x100000001b3ull;
    return h;
}

/* The check of a stage: group sizes, and a hash of every scenario's group and
 * of the representatives (indices, probabilities, the scenarios' bits). */
static void stage_check(const mu_agg_result *ar, const double *Z, int m, int nst, stage_rec *r) {
    for (int i = 0; i < m; i++)
        if (ar->group[i] < NEWAVE_K) r->size[ar->group[i]]++;
    uint64_t h = fnv1a(0xcbf29ce484222325ull, &ar->k, sizeof ar->k);
    h = fnv1a(h, ar->group, (size_t)m * sizeof *ar->group);
    h = fnv1a(h, ar->rep, (size_t)ar->k * sizeof *ar->rep);
    h = fnv1a(h, ar->prob, (size_t)ar->k * sizeof *ar->prob);
    for (int g = 0; g < ar->k; g++)
        h = fnv1a(h, Z + (size_t)ar->rep[g] * nst, (size_t)nst * sizeof *Z);
    r->hash = h;
}

/* Stage v as a lane's node (mu_sc_node_fn): its past is the record's last
 * months (selective sampling of each month's noise, one backward opening set
 * a stage), its M noise vectors are clustered into 20. Nothing depends on the
 * lane: same record whatever the threads. */
static int newave_stage(mu_sc_ctx *x, int64_t v, double *rec) {
    const mu_sc_cfg *c = x->c;
    const mu_sc_model *md = x->md;
    int nst = md->nst, m = c->m, month = (int)(v % 12);
    mu_sc_record_past(x, x->hist_end - 12 + month, x->buf.zpast);
    mu_sc_gen_draw d = {c->seed, MU_SC_COMB_STREAM(v), 0, m, x->buf.zpast, 0};
    double t1 = now();
    MU_TRY(mu_sc_generate(x, month, &d, x->buf.Z));
    double t2 = now();
    mu_agg_result ar;
    memset(&ar, 0, sizeof ar);
    if (mu_agg_cluster(x->buf.Z, m, nst, NEWAVE_K, c->method, c->max_iter, 77 + (uint64_t)v,
                       x->use_gpu, &ar))
        return mu_error_cause(mu_error_message(), "newave stage %d", (int)v + 1);
    stage_rec r;
    memset(&r, 0, sizeof r);
    r.gen_s = t2 - t1;
    r.agg_s = now() - t2;
    stage_check(&ar, x->buf.Z, m, nst, &r);
    r.a = ar;
    r.a.rep = r.a.group = NULL;
    r.a.prob = NULL;
    mu_agg_result_free(&ar);
    memcpy(rec, &r, sizeof r);
    return 0;
}

/* A stage's lines: its phases, and its check (grep "check" to compare runs). */
static void stage_print(int st, int m, const stage_rec *r) {
    printf("  stage %2d: generation %.3f s, aggregation %.3f s (distances %.3f, serial %.3f, "
           "rest %.3f: whitening %.3f, duplicates %.3f, device points %.3f, "
           "representatives %.3f), %d iterations%s\n",
           st + 1, r->gen_s, r->agg_s, r->a.dist_s, r->a.kmeans_s - r->a.dist_s,
           r->agg_s - r->a.kmeans_s, r->a.whiten_s, r->a.distinct_s, r->a.device_s, r->a.rep_s,
           r->a.iterations, r->a.converged ? "" : " (max_iter)");
    char sizes[NEWAVE_K * 12] = "";
    size_t n = 0;
    for (int g = 0; g < r->a.k && g < NEWAVE_K; g++)
        n += (size_t)snprintf(sizes + n, sizeof sizes - n, " %d", r->size[g]);
    printf("  check M=%d stage %2d: %d groups, sizes%s; hash %016llx\n", m, st + 1, r->a.k, sizes,
           (unsigned long long)r->hash);
}

/* NEWAVE scale: stages monthly stages, each M generated noise vectors clustered
 * into 20, through the command's lanes (--threads stages at a time, side by
 * side); the lines of each batch as it finishes; stops after the batch that
 * passes budget seconds of wall time. */
static int newave(bench *b, int64_t rec, int m, int stages, double budget) {
    b->c.m = m; /* the lanes' scratch size */
    mu_sc_tree t;
    memset(&t, 0, sizeof t);
    mu_sc_ctx x;
    setup_ctx(b, &x, &t, rec, m, 0);
    int batch = b->threads < stages ? b->threads : stages;
    double *recs = calloc((size_t)stages * STAGE_RD, sizeof *recs);
    if (!recs) {
        fprintf(stderr, "bench_scenarios: out of memory\n");
        exit(1);
    }
    printf("NEWAVE scale: %d stages x M=%d into %d (%s), %d stage(s) side by side on %d host "
           "thread(s)%s\n",
           stages, m, NEWAVE_K, b->c.method == MU_AGG_HARTIGAN_WONG ? "hw" : "v2", batch, batch,
           batch > 1 ? " (a stage's seconds below are its own thread's: they overlap)" : "");
    double wall = 0, lanes0 = mu_timer_seconds("stage lanes");
    double tg = 0, ta = 0, td = 0, tk = 0;
    uint64_t all = 0xcbf29ce484222325ull;
    int itsum = 0, st = 0;
    while (st < stages) {
        int n = stages - st < batch ? stages - st : batch;
        double t0 = now();
        int rc = mu_sc_lanes_run(&x, st, n, recs + (size_t)st * STAGE_RD, STAGE_RD, newave_stage);
        wall += now() - t0;
        if (rc) {
            fprintf(stderr, "bench_scenarios: %s\n", mu_error_message());
            free(recs);
            free_ctx(&x);
            return 1;
        }
        for (int j = st; j < st + n; j++) {
            stage_rec r;
            memcpy(&r, recs + (size_t)j * STAGE_RD, sizeof r);
            stage_print(j, m, &r);
            tg += r.gen_s;
            ta += r.agg_s;
            td += r.a.dist_s;
            tk += r.a.kmeans_s;
            itsum += r.a.iterations;
            all = fnv1a(all, &r.hash, sizeof r.hash);
        }
        st += n;
        if (wall > budget && st < stages) break;
    }
    double tot = tg + ta;
    char lanes[64] = ""; /* the lanes' buffers, opened in the first batch: in the wall */
    if (batch > 1)
        snprintf(lanes, sizeof lanes, "; opening the lanes %.3f s of it",
                 mu_timer_seconds("stage lanes") - lanes0);
    printf("NEWAVE M=%d: %d of %d stages in %.3f s wall on %d thread(s) (%.3f s per stage%s); "
           "%sgeneration %.1f%%, k-means distance steps %.1f%%, k-means serial part %.1f%%, rest "
           "of the aggregation %.1f%%; %.1f k-means iterations per stage%s\n",
           m, st, stages, wall, batch, wall / st, lanes,
           batch > 1 ? "of the stages' thread-seconds: " : "", 100 * tg / tot, 100 * td / tot,
           100 * (tk - td) / tot, 100 * (ta - tk) / tot, (double)itsum / st,
           st < stages ? " (stopped at the time budget: the full case takes about stages x the "
                         "per-stage time)"
                       : "");
    printf("  check M=%d: %d stages, hash %016llx\n", m, st, (unsigned long long)all);
    free(recs);
    free_ctx(&x);
    return 0;
}

/* The farm's task for newave_farm: stages [first, first + count) side by side
 * on the rank's lanes, as the command's node_task runs a stage's nodes. */
static int newave_task(int64_t first, int64_t count, void *results, void *ctx) {
    return mu_sc_lanes_run(ctx, first, count, results, STAGE_RD, newave_stage);
}

/* NEWAVE scale through the command's task farm (mu_taskfarm_run, its chunks
 * as mu_sc_build_tree makes them for a stage's nodes), each rank's chunks on
 * its lanes: the stages over the ranks and their GPUs. Rank 0 prints the wall
 * time from a barrier to the records gathered, and the checks. */
static int newave_farm(bench *b, mu_app *app, int64_t rec, int m, int stages) {
    b->c.m = m;
    mu_sc_tree t;
    memset(&t, 0, sizeof t);
    mu_sc_ctx x;
    setup_ctx(b, &x, &t, rec, m, 0);
    double *recs = calloc((size_t)stages * STAGE_RD, sizeof *recs);
    if (!recs) die("out of memory");
    mu_farm_cfg fc = mu_sc_stage_farm(b->threads, stages, app->size, NULL);
    mu_farm_stats fs = {0, 0};
    MPI_Barrier(app->comm);
    double t0 = now();
    int rc = mu_taskfarm_run(app->comm, stages, STAGE_RD * sizeof(double), newave_task, &x, &fc,
                             app->rank == 0 ? recs : NULL, &fs);
    double wall = now() - t0;
    free_ctx(&x);
    if (rc) die("newave farm");
    uint64_t all = 0xcbf29ce484222325ull;
    for (int j = 0; j < stages; j++) {
        stage_rec r;
        memcpy(&r, recs + (size_t)j * STAGE_RD, sizeof r);
        if (app->rank == 0) stage_print(j, m, &r);
        all = fnv1a(all, &r.hash, sizeof r.hash);
    }
    printf("NEWAVE M=%d: %d stages farmed over %d rank(s) x %d thread(s) in %.3f s wall (rank 0 "
           "ran %lld of them)\n",
           m, stages, app->size, b->threads, wall, (long long)fs.tasks_done_by_me);
    printf("  check M=%d: %d stages, hash %016llx\n", m, stages, (unsigned long long)all);
    free(recs);
    return 0;
}

/* --device=gpu: the rank's device as the command binds it ((node-local rank)
 * mod (GPUs on the node), mpi/binding.c); 1 when there is none. */
static int open_gpu(bench *b, mu_app *app) {
    if (mu_device_bind(app->comm, "gpu", &app->dev) || !app->dev.use_gpu) {
        fprintf(stderr, "bench_scenarios: no GPU (%s); use --device=cpu\n", mu_error_message());
        return 1;
    }
    b->use_gpu = 1;
    const mu_gpu_info *info = &app->dev.info;
    printf("device: %s (%d SMs, %.1f GiB)\n", info->name, info->sm_count, info->mem_gib);
    return 0;
}

/* The record and its PAR(p) fit, and the command's settings with the options';
 * 1 on a bad --representative. */
static int setup_bench(bench *b, mu_app *app, int argc, char **argv, const char *input,
                       const char *method) {
    mu_sc_select sel = {"all", 0, 0, 10};
    if (mu_sc_read(input, &sel, &b->h)) die("input");
    mu_sc_fit_cfg fc = {.pmax = 6, .pacf_conf = 1.96, .quiet = 1};
    double t0 = now();
    if (mu_sc_fit(&b->h, &fc, &b->md)) die("fit");
    printf("record: %s, %d stations, %d years; PAR(p) fit %.3f s\n", input, b->h.nst, b->h.nyears,
           now() - t0);
    b->c.seed = 2016;
    b->c.method = !strcmp(method, "hw") ? MU_AGG_HARTIGAN_WONG : MU_AGG_VERSION2;
    b->c.max_iter = 50;
    int rep = mu_sc_rep_parse(arg(argc, argv, "--representative", "centroid"));
    if (rep < 0) {
        fprintf(stderr, "bench_scenarios: --representative: nearest, centroid or scaled\n");
        return 1;
    }
    b->c.rep = (mu_sc_rep)rep;
    char why[256];
    mu_cpu_share(MPI_COMM_WORLD, &app->dev);
    int req = atoi(arg(argc, argv, "--threads", "0"));
    b->threads = mu_threads_per_rank(&app->dev, req, why, sizeof why);
    if (b->use_gpu && !req && b->threads > MU_SC_GPU_LANES) { /* the command's cap (flow.c) */
        b->threads = MU_SC_GPU_LANES;
        size_t n = strlen(why);
        snprintf(why + n, sizeof why - n, "; at most %d on a GPU rank", MU_SC_GPU_LANES);
    }
    printf("threads: %d a rank (%s)\n", b->threads, why);
    b->c.delta_min = 0.05;
    return 0;
}

/* The study's 6000-leaf tree 1 -> 30 -> 200 with M = tm: a warm-up, then the
 * best of 3. */
static void tree_case(bench *b, mu_app *app, int tm, const char *method, int64_t rec) {
    const int open[2] = {30, 200};
    double g, a, it, km[2], bkm[2] = {0, 0};
    int64_t leaves;
    double w0 = run_tree(b, app, open, 2, tm, rec, &g, &a, &leaves, &it, km);
    printf("tree warm-up run: %.4f s\n", w0);
    double best = INFINITY, bg = 0, ba = 0;
    for (int r = 0; r < 3; r++) {
        double w = run_tree(b, app, open, 2, tm, rec, &g, &a, &leaves, &it, km);
        if (w < best) {
            best = w;
            bg = g;
            ba = a;
            bkm[0] = km[0];
            bkm[1] = km[1];
        }
    }
    printf("tree 1,30,200 M=%d %s, %s representatives, %d rank(s) x %d thread(s): %lld "
           "leaves, %d stations: %.4f s "
           "(best of 3; "
           "rank 0 (thread-seconds): generation %.4f s = %.1f%%, aggregation %.4f s = %.1f%%: "
           "k-means distance "
           "steps "
           "%.4f s = %.1f%%, k-means serial part %.4f s = %.1f%%, rest %.4f s; "
           "k-means iterations %.1f per node); "
           "study: 3210.7 s serial, 122.4 s CUDA, 74.9 s 3 ranks + GPU\n",
           tm, method, mu_sc_rep_name(b->c.rep), app->size, b->threads, (long long)leaves, b->h.nst,
           best, bg, 100 * bg / best, ba, 100 * ba / best, bkm[0], 100 * bkm[0] / best, bkm[1],
           100 * bkm[1] / best, ba - bkm[0] - bkm[1], it);
}

/* The 12 monthly cases of Table 3-2: M = 1024 into the study's K, one stage. */
static void table_case(bench *b, mu_app *app, const char *method, int64_t rec) {
    static const char *mon[12] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    static const int K[12] = {136, 116, 143, 143, 193, 267, 513, 353, 303, 251, 228, 152};
    static const double v2_s[12] = {31.45,  27.67,  34.23, 34.33, 54.97, 70.04,
                                    186.62, 119.03, 88.16, 74.58, 61.19, 35.55};
    printf("Table 3-2 cases, M=1024 %s (first generated month = the case's month of %d):\n", method,
           b->h.first_year + b->h.nyears - 1);
    double total = 0;
    for (int m = 0; m < 12; m++) {
        double g, a, it, km[2];
        int64_t leaves;
        int64_t hist_end = rec - 12 + m;
        double w = run_tree(b, app, &K[m], 1, 1024, hist_end, &g, &a, &leaves, &it, km);
        total += w;
        printf("  %s K=%3d: %.4f s (generation %.4f, aggregation %.4f: distances %.4f, "
               "serial %.4f), %d iterations, %lld groups; study serial V2 %.2f s\n",
               mon[m], K[m], w, g, a, km[0], km[1], (int)it, (long long)leaves, v2_s[m]);
    }
    printf("  12 cases: %.4f s\n", total);
}

/* Generation alone on the device, 2^20 scenarios of months 1 and 7 (best of 5),
 * against the copy bandwidth and the FP64 rate; 1 when the buffers fail. */
static int rate_gpu(bench *b) {
    const int64_t n = 1 << 20;
    int nst = b->h.nst;
    mu_sc_gpu *g = NULL;
    double *zp = calloc((size_t)b->md.pmax * nst, sizeof *zp);
    if (mu_sc_gpu_create(nst, b->md.pmax, n, 0, &g)) {
        fprintf(stderr, "bench_scenarios: %s\n", mu_gpu_error());
        return 1;
    }
    /* The limits: the device's copy bandwidth (read + write) for the bytes
     * written, its FP64 rate for the factor product (each multiply and add
     * separately rounded: no FMA, by design). */
    double bw = 0;
#ifdef MU_BENCH_CUDA
    double bw_s;
    bw = bench_copy_bandwidth(5, &bw_s);
    printf("rate limits: device-to-device copy %.0f GB/s (read + write); FP64 without FMA: "
           "half of the documented 34 TFLOP/s (H100 SXM, CUDA cores)\n",
           bw * 1e-9);
#endif
    for (int m = 0; m < 12; m += 6) {
        mu_sc_gen_month gm;
        mu_sc_month_args(&b->md, m, &gm);
        gm.delta_min = 0.05;
        float ms = 0, best = INFINITY;
        for (int r = 0; r < 5; r++) {
            mu_sc_gen_draw d = {1, (uint64_t)r, 0, n, zp, 0};
            if (mu_sc_gpu_generate_device(g, &gm, &d, &ms)) die("rate");
            if (ms < best) best = ms;
        }
        double s = best * 1e-3, vals = (double)n * nst;
        double flops = (double)n * nst * (gm.lower ? (nst + 1) / 2.0 : nst) * 2;
        printf("rate: %lld scenarios x %d stations, month %d (%s factor): %.3f ms = %.3g "
               "scenario-months/s, %.3g normals/s (Philox 4x32-10 + Box-Muller each), "
               "%.1f GB/s written, %.1f GFLOP/s in the factor product\n",
               (long long)n, nst, m + 1, gm.lower ? "Cholesky" : "eigen", best, n / s, vals / s,
               vals * 8 / s * 1e-9, flops / s * 1e-9);
        if (bw > 0)
            printf("rate: written bytes at %.1f%% of the copy bandwidth; factor product at "
                   "%.1f%% of 17 TFLOP/s; per scenario-month %.1f ns of device time for %d "
                   "normals\n",
                   100.0 * vals * 8 / s / bw, 100.0 * flops / s / 17e12, 1e9 * s / n, nst);
    }
    mu_sc_gpu_destroy(g);
    free(zp);
    return 0;
}

/* Generation alone on one core, 2^14 scenarios of month 1. */
static void rate_cpu(bench *b) {
    const int64_t n = 1 << 14;
    int nst = b->h.nst;
    double *zp = calloc((size_t)b->md.pmax * nst, sizeof *zp),
           *Z = malloc((size_t)n * nst * sizeof *Z);
    mu_sc_gen_month gm;
    mu_sc_month_args(&b->md, 0, &gm);
    gm.delta_min = 0.05;
    mu_sc_gen_draw d = {1, 0, 0, n, zp, 0};
    double t1 = now();
    mu_sc_gen_cpu(&gm, &d, Z, NULL);
    double s = now() - t1;
    printf("rate (CPU, one core): %.3g scenario-months/s, %.3g normals/s\n", n / s,
           (double)n * nst / s);
    free(zp);
    free(Z);
}

int main(int argc, char **argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    int wrank = 0, wsize = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    mu_log_init(wrank, wsize);
    if (wrank > 0 && !freopen("/dev/null", "w", stdout)) return 1; /* rank 0 reports */
    mu_log_set_level("warn");
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *dev = arg(argc, argv, "--device", "gpu"), *which = arg(argc, argv, "--case", "all");
    const char *input = arg(argc, argv, "--input", "inputs/scenarios/ons_inflows_64.csv");
    const char *method = arg(argc, argv, "--method", "v2");
    int newave_m = atoi(arg(argc, argv, "--newave-m", "100000"));
    bench b;
    memset(&b, 0, sizeof b);
    mu_app app;
    memset(&app, 0, sizeof app);
    app.comm = MPI_COMM_WORLD;
    app.size = wsize;
    app.rank = wrank;
    if (strcmp(dev, "gpu")) {
        printf("device: CPU\n");
    } else if (open_gpu(&b, &app)) {
        MPI_Finalize();
        return 77;
    }
    if (setup_bench(&b, &app, argc, argv, input, method)) return 1;
    int64_t rec = (int64_t)b.h.nyears * 12;
    int all = !strcmp(which, "all");
    int farm = wsize > 1 || atoi(arg(argc, argv, "--newave-farm", "0"));
    if (wsize > 1) {
        printf("%d ranks (each on its node-local GPU, as the command binds them): the tree and "
               "newave cases only\n",
               wsize);
        if (strcmp(which, "tree") && strcmp(which, "newave") && !all) {
            MPI_Finalize();
            return 0;
        }
        if (all) which = "tree";
        all = 0;
    }

    if (all || !strcmp(which, "tree"))
        tree_case(&b, &app, atoi(arg(argc, argv, "--tree-m", "1024")), method, rec);
    if (all || !strcmp(which, "table")) table_case(&b, &app, method, rec);
    if (all || !strcmp(which, "newave")) {
        int stages = atoi(arg(argc, argv, "--newave-stages", "12"));
        double budget = atof(arg(argc, argv, "--newave-budget", "90"));
        /* Twice: the first pass allocates each lane thread's device and pinned
         * buffers, as the first stage of a command run does; the second finds them. */
        printf("newave pass 1 (each lane's buffers allocated in it):\n");
        if (farm ? newave_farm(&b, &app, rec, newave_m, stages)
                 : newave(&b, rec, newave_m, stages, budget))
            return 1;
        printf("newave pass 2 (the buffers kept):\n");
        if (farm ? newave_farm(&b, &app, rec, newave_m, stages)
                 : newave(&b, rec, newave_m, stages, budget))
            return 1;
    }
    if ((all || !strcmp(which, "rate")) && b.use_gpu && rate_gpu(&b)) return 1;
    if ((all || !strcmp(which, "rate")) && !b.use_gpu) rate_cpu(&b);
    mu_sc_model_free(&b.md);
    mu_sc_hist_free(&b.h);
    MPI_Finalize();
    return 0;
}
