/* Benchmark of `mutirao scenarios` (issue 4), one process, through the
 * workload's own code (record, fit, task-farm tree on one rank, generation
 * kernel, mu_agg_cluster):
 *   tree    the study's 6000-leaf tree 1 -> 30 -> 200, M = 1024, 64 real stations
 *           (study: 3210.7 s serial, 122.4 s CUDA, 74.9 s with 3 ranks + GPU)
 *   newave  12 monthly stages, M = 100000 generated vectors clustered into 20
 *   table   the 12 monthly cases of Table 3-2, M = 1024 into K = 136, 116, ... 152
 *   rate    generation alone: scenario-months per second, against the bytes
 *           written and the normals drawn (the memory and random-number limits)
 * usage: bench_scenarios [--device=gpu|cpu] [--case=all|tree|newave|table|rate]
 *                        [--input=inputs/scenarios/ons_inflows_64.csv] [--method=v2|hw]
 *                        [--newave-m=100000] [--newave-stages=12] [--newave-budget=90]
 *                        [--tree-m=1024] [--threads=N]
 *                        [--representative=centroid|nearest|scaled] (the command's default)
 * --threads: host threads per rank on a stage's nodes (0: as the command's auto);
 * with several, the phase seconds below are summed over the threads.
 * Under mpirun with several ranks it runs the tree case only, its nodes farmed
 * over the ranks (with --device=gpu every rank uses device 0); rank 0 reports
 * (its own share of the generation and aggregation).
 * Each case prints as it finishes (stdout line-buffered). The aggregation is
 * split into the k-means' distance steps (the device's on the GPU), its serial
 * part (the rest of the k-means call) and the rest (whitening, duplicates,
 * centre draw, representatives, device buffers). newave runs M = 20000 first
 * (12 stages), then --newave-m, stage by stage, stopping after the stage that
 * passes --newave-budget seconds (it then says so and gives the per-stage mean).
 * The CPU path on many ranks is the command itself, e.g.
 *   mpiexec -n 16 mutirao scenarios --device=cpu --input=... --tree=1,30,200 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
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
    x->Z = malloc((size_t)rows * nst * sizeof *x->Z);
    x->zpast = malloc((size_t)(per_scen ? rows : 1) * P * nst * sizeof *x->zpast);
    if (!x->Z || !x->zpast) {
        fprintf(stderr, "bench_scenarios: out of memory\n");
        exit(1);
    }
    if (b->use_gpu && mu_sc_gpu_create(nst, P, rows, per_scen, &x->gpu)) {
        fprintf(stderr, "bench_scenarios: GPU buffers: %s\n", mu_gpu_error());
        exit(1);
    }
}

static void free_ctx(mu_sc_ctx *x) {
    mu_sc_lanes_close(x);
    free(x->Z);
    free(x->zpast);
    mu_sc_gpu_destroy(x->gpu);
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

/* NEWAVE scale: stages monthly stages, each M generated noise vectors clustered
 * into 20 (selective sampling), one line per stage as it finishes; stops after
 * the stage that passes budget seconds. */
static int newave(bench *b, int64_t rec, int m, int stages, double budget) {
    mu_sc_tree t;
    memset(&t, 0, sizeof t);
    mu_sc_ctx x;
    setup_ctx(b, &x, &t, rec, m, 0);
    int nst = b->md.nst;
    double tg = 0, ta = 0, td = 0, tk = 0;
    int itsum = 0, st;
    printf("NEWAVE scale: %d stages x M=%d into 20 (%s)\n", stages, m,
           b->c.method == MU_AGG_HARTIGAN_WONG ? "hw" : "v2");
    for (st = 0; st < stages; st++) {
        int month = st % 12;
        int64_t hist_end = rec - 12 + month;
        /* The past of every stage: the record's last months (selective sampling
         * of the noise of each month, one backward opening set per stage). */
        for (int i = 0; i < b->md.pmax; i++)
            for (int s = 0; s < nst; s++) {
                int64_t tt = hist_end - 1 - i;
                int mm = (int)(tt % 12);
                x.zpast[i * nst + s] =
                    (b->h.q[tt * nst + s] - b->md.mu[mm * nst + s]) / b->md.sd[mm * nst + s];
            }
        mu_sc_gen_draw d = {b->c.seed, MU_SC_COMB_STREAM(st), 0, m, x.zpast, 0};
        double t1 = now();
        if (mu_sc_generate(&x, month, &d, x.Z)) die("generate");
        double t2 = now();
        mu_agg_result ar;
        memset(&ar, 0, sizeof ar);
        if (mu_agg_cluster(x.Z, m, nst, 20, b->c.method, b->c.max_iter, 77 + st, b->use_gpu, &ar)) {
            fprintf(stderr, "bench_scenarios: newave stage %d: %s\n", st + 1, mu_error_message());
            free_ctx(&x);
            return 1;
        }
        double t3 = now();
        tg += t2 - t1;
        ta += t3 - t2;
        td += ar.dist_s;
        tk += ar.kmeans_s;
        itsum += ar.iterations;
        printf("  stage %2d: generation %.3f s, aggregation %.3f s (distances %.3f, serial %.3f, "
               "rest %.3f: whitening %.3f, duplicates %.3f, device points %.3f, "
               "representatives %.3f), %d iterations%s\n",
               st + 1, t2 - t1, t3 - t2, ar.dist_s, ar.kmeans_s - ar.dist_s, t3 - t2 - ar.kmeans_s,
               ar.whiten_s, ar.distinct_s, ar.device_s, ar.rep_s, ar.iterations,
               ar.converged ? "" : " (max_iter)");
        mu_agg_result_free(&ar);
        if (tg + ta > budget && st + 1 < stages) {
            st++;
            break;
        }
    }
    double tot = tg + ta;
    printf("NEWAVE M=%d: %d of %d stages in %.3f s (%.3f s per stage); generation %.1f%%, "
           "k-means distance steps %.1f%%, k-means serial part %.1f%%, rest of the aggregation "
           "%.1f%%; %.1f k-means iterations per stage%s\n",
           m, st, stages, tot, tot / st, 100 * tg / tot, 100 * td / tot, 100 * (tk - td) / tot,
           100 * (ta - tk) / tot, (double)itsum / st,
           st < stages ? " (stopped at the time budget: the full case takes about stages x the "
                         "per-stage time)"
                       : "");
    free_ctx(&x);
    return 0;
}

/* --device=gpu: device 0 for b and app; 1 when there is none. */
static int open_gpu(bench *b, mu_app *app) {
    mu_gpu_info info;
    if (mu_gpu_device_count() < 1 || mu_gpu_select(0, &info)) {
        fprintf(stderr, "bench_scenarios: no GPU (%s); use --device=cpu\n", mu_gpu_error());
        return 1;
    }
    b->use_gpu = 1;
    app->dev.use_gpu = 1;
    printf("device: %s (%d SMs, %.1f GiB)\n", info.name, info.sm_count, info.mem_gib);
    return 0;
}

/* The record and its PAR(p) fit, and the command's settings with the options';
 * 1 on a bad --representative. */
static int setup_bench(bench *b, mu_app *app, int argc, char **argv, const char *input,
                       const char *method) {
    mu_sc_select sel = {"all", 0, 0, 10};
    if (mu_sc_read(input, &sel, &b->h)) die("input");
    mu_sc_fit_cfg fc = {0, 0, 6, 1.96, 1, 0};
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
    b->threads =
        mu_threads_per_rank(&app->dev, atoi(arg(argc, argv, "--threads", "0")), why, sizeof why);
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
    if (wsize > 1) {
        printf("%d ranks (all on device 0 with --device=gpu): the tree case only\n", wsize);
        if (strcmp(which, "tree") && !all) {
            MPI_Finalize();
            return 0;
        }
        which = "tree";
        all = 0;
    }

    if (all || !strcmp(which, "tree"))
        tree_case(&b, &app, atoi(arg(argc, argv, "--tree-m", "1024")), method, rec);
    if (all || !strcmp(which, "table")) table_case(&b, &app, method, rec);
    if (all || !strcmp(which, "newave")) {
        int stages = atoi(arg(argc, argv, "--newave-stages", "12"));
        double budget = atof(arg(argc, argv, "--newave-budget", "90"));
        if (newave_m != 20000 && newave(&b, rec, 20000, stages, 1e30)) return 1;
        if (newave(&b, rec, newave_m, stages, budget)) return 1;
    }
    if ((all || !strcmp(which, "rate")) && b.use_gpu && rate_gpu(&b)) return 1;
    if ((all || !strcmp(which, "rate")) && !b.use_gpu) rate_cpu(&b);
    mu_sc_model_free(&b.md);
    mu_sc_hist_free(&b.h);
    MPI_Finalize();
    return 0;
}
