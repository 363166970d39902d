/* bench_fuzzy: the fuzzy workload's GPU iteration (gpu/fuzzy_gpu.h) at the
 * study's sizes, on one GPU (issue 6, Benchmarks).
 *
 *  (a) The study's test 2 analogue: 10000 Philox blobs (sigma 110, integer
 *      coordinates, centres (400,400), (400,1090), (1125,750), seed 2017), and
 *      its test 4 stand-in: 40646 points from `mutirao fuzzy --gen=schools`
 *      (seeded synthetic latitude/longitude around the five metro areas of the
 *      study's Table 5.10; the school data were not published). Density r.
 *      Partitioned with p = 1, 2, 4, 8 (the study's sort, deal, FM per
 *      partition, single-linkage merge at the widest gap) and exact (FM over
 *      the whole set). Per run: the time of the whole method as the study timed
 *      it (r, deal, copy to the device, FM, acceptance, merge; median of --reps),
 *      the kernel time, the FP64 operations (14 per object pair and iteration:
 *      the pair's arithmetic with the reciprocal counted as one) and their rate
 *      against the card's FP64 peak, next to the study's times (GTS 450, Tables
 *      5.8 and 5.12).
 *  (b) The study's accuracy table (Table 5.11): each partitioned run's hard
 *      labels against the exact run's (purity: objects in the majority exact
 *      group of their partitioned group; and the adjusted Rand index), and how
 *      far the final prototypes moved (in units of 1/r).
 *  (c) The CPU (one core) on 10000 points, p = 8 and 4 and exact, with the same
 *      prototypes to the bit as the GPU (--no-cpu skips).
 *  (d) --big[=N]: exact mode on N = 10^6 points of the school stand-in
 *      (--gen=schools: about 36 iterations per start there), the starts split
 *      evenly over the MPI ranks, one GPU each (mpiexec -n 2 for 2 GPUs); only
 *      (d) runs. --big-blobs takes the blobs instead: at 10^6 points the density
 *      r gives a kernel ten times narrower than the blobs, and the starts take
 *      about 670 iterations on average (sampled on the CPU), some 15 minutes on
 *      one H100.
 *
 * The FP64 peak is computed from the device: SMs x clock x FP64 units per SM
 * (64 on sm_90, 32 on sm_80/70/60, else 2) x 2 (an FMA is two operations).
 * NVIDIA's 67 TFLOP/s for the H100 SXM is its FP64 Tensor Core peak, which
 * this kernel cannot use; both are printed. The kernel does no FMA (it keeps
 * the CPU's rounding), so half the CUDA-core peak is its ceiling.
 *
 * --arith=fast: the GPU runs take the command's --arith=fast form (pairs in
 * single precision against a two-float centre, sums into double per tile; see
 * gpu/fuzzy_fast.h): the same 14 double-precision operations a pair are
 * counted, so the rates are the work of the bitwise form done per second, set
 * against the FP64 peak it would need; (c) then reports DIFFERENT by design.
 *
 * Options: --reps=3 --no-cpu --big[=1000000] --big-blobs --arith=bitwise|fast */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>
#include <math.h>
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_args.h"
#include "bench_util.h"
#include "fuzzy/fm.h"
#include "fuzzy/fuzzy.h"
#include "gpu/fuzzy_gpu.h"
#include "gpu/gpu.h"
#include "core/free.h"

enum { FLOPS_PER_PAIR = 14 };

static double peak_cuda = 0; /* FLOP/s, CUDA cores */
static int arith_fast = 0;   /* --arith=fast */

typedef struct {
    double total_s, kernel_s, flops;
    int64_t raw, m, it_total, it_max, unconv;
    double *proto; /* m x F */
    int32_t *labels;
} outcome;

static void outcome_free(outcome *o) {
    free(o->proto);
    free(o->labels);
    memset(o, 0, sizeof *o);
}

static void die(const char *what) {
    fprintf(stderr, "bench_fuzzy: %s: %s\n", what, mu_gpu_error());
    exit(1);
}

/* The device copy of the set, in the form the run asked for. */
static mu_gpu_fm *device_set(const double *x, int64_t n, int F) {
    mu_gpu_fm *ctx;
    if (mu_gpu_fm_create(x, n, F, &ctx)) die("create");
    if (arith_fast && mu_gpu_fm_set_fast(ctx, 1)) die("fast form");
    return ctx;
}

/* r (density form) as the command solves it; returns the seconds it took. */
static double solve_r(const double *x, int64_t n, int F, double *r) {
    double t0 = bench_now();
    double mean[16], cov[256], logdet;
    int bad;
    mu_fz_moments(x, n, F, n, MPI_COMM_NULL, mean, cov);
    if (mu_fz_logdet(cov, F, &logdet, &bad)) die("singular covariance");
    double *d2 = malloc((size_t)n * sizeof *d2);
    for (int64_t i = 0; i < n; i++) {
        double t = 0;
        for (int f = 0; f < F; f++) t += (x[i * F + f] - mean[f]) * (x[i * F + f] - mean[f]);
        d2[i] = t;
    }
    mu_fz_rinfo info;
    if (mu_fz_solve_r(d2, n, n, F, logdet, MU_FZ_R_DENSITY, 1e-12, omp_get_max_threads(),
                      MPI_COMM_NULL, &info))
        die("r");
    free(d2);
    *r = info.r;
    return bench_now() - t0;
}

/* One run of the method: p = 0 exact, else partitioned into p; on the GPU or the CPU. */
static void run(const double *x, int64_t n, int F, double r, double r_s, int p, int gpu,
                outcome *o) {
    memset(o, 0, sizeof *o);
    double t0 = bench_now();
    double r2 = r * r, eps1 = (1e-6 / r) * (1e-6 / r), eps2 = (0.5 / r) * (0.5 / r);
    int parts = p ? p : 1;
    int64_t *start = malloc((size_t)(parts + 1) * sizeof *start);
    const double *set = x;
    double *dealt = NULL;
    if (p) {
        int64_t *order = malloc((size_t)n * sizeof *order);
        dealt = malloc((size_t)(n * F) * sizeof *dealt);
        mu_fz_deal(x, n, F, p, order, start);
        for (int64_t k = 0; k < n; k++)
            memcpy(dealt + k * F, x + order[k] * F, (size_t)F * sizeof *dealt);
        free(order);
        set = dealt;
    } else {
        start[0] = 0;
        start[1] = n;
    }
    double *v = malloc((size_t)(n * F) * sizeof *v);
    mu_fm_stat *st = malloc((size_t)n * sizeof *st);
    if (gpu) {
        mu_gpu_fm *ctx = device_set(set, n, F);
        mu_gpu_fm_range *g = malloc((size_t)parts * sizeof *g);
        for (int j = 0; j < parts; j++)
            g[j] = (mu_gpu_fm_range){start[j], start[j + 1] - start[j], 0, start[j + 1] - start[j]};
        int64_t *its = malloc((size_t)n * sizeof *its);
        int *conv = malloc((size_t)n * sizeof *conv);
        float ms = 0;
        if (mu_gpu_fm_run(ctx, g, parts, r2, eps1, 10000, 65536, v, its, conv, &ms)) die("run");
        o->kernel_s = ms * 1e-3;
        for (int64_t k = 0; k < n; k++) {
            st[k].iterations = its[k];
            st[k].converged = conv[k];
        }
        mu_gpu_fm_destroy(ctx);
        free(g);
        free(its);
        free(conv);
    } else {
        for (int j = 0; j < parts; j++) {
            mu_fm_set s = {set + start[j] * F, start[j + 1] - start[j], F, r2, eps1, 10000, 65536};
            mu_fm_run_cpu(&s, 0, s.n, v + start[j] * F, st + start[j]);
        }
    }
    double *raw = malloc((size_t)(n * F) * sizeof *raw);
    for (int j = 0; j < parts; j++) {
        int64_t a = start[j], np = start[j + 1] - a;
        o->raw += mu_fm_accept(v + a * F, st + a, np, F, eps2, raw + o->raw * F, NULL);
        for (int64_t k = a; k < a + np; k++) {
            o->it_total += st[k].iterations;
            o->flops += (double)st[k].iterations * (double)np * FLOPS_PER_PAIR;
            if (st[k].iterations > o->it_max) o->it_max = st[k].iterations;
            o->unconv += !st[k].converged;
        }
    }
    int64_t *group = malloc((size_t)(o->raw ? o->raw : 1) * sizeof *group);
    o->m = o->raw;
    for (int64_t i = 0; i < o->raw; i++) group[i] = i;
    if (p > 1 && o->raw > 1) {
        mu_fz_merge *mg = malloc((size_t)(o->raw - 1) * sizeof *mg);
        mu_fz_linkage(raw, o->raw, F, mg);
        o->m = mu_fz_cut(mg, o->raw, MU_FZ_CUT_GAP, 0, group);
        free(mg);
    }
    o->proto = malloc((size_t)(o->m * F) * sizeof *o->proto);
    int64_t *members = malloc((size_t)o->m * sizeof *members);
    mu_fz_group_means(raw, o->raw, F, group, o->m, o->proto, members);
    o->total_s = bench_now() - t0 + r_s;
    o->labels = malloc((size_t)n * sizeof *o->labels);
    mu_fz_memberships(x, n, F, o->proto, (int)o->m, r, NULL, o->labels, NULL);
    MU_FREE(members, group, raw, v, st, dealt, start);
}

/* The median of reps GPU runs (the last one's outcome is kept). */
static void timed(const double *x, int64_t n, int F, double r, double r_s, int p, int reps,
                  outcome *o) {
    double tt[16], tk[16];
    for (int i = 0; i < reps; i++) {
        if (i) outcome_free(o);
        run(x, n, F, r, r_s, p, 1, o);
        tt[i] = o->total_s;
        tk[i] = o->kernel_s;
    }
    o->total_s = bench_median(tt, reps);
    o->kernel_s = bench_median(tk, reps);
}

/* Largest distance from a prototype of b to the nearest of a (units of 1/r). */
static double moved(const outcome *a, const outcome *b, int F, double r) {
    double worst = 0;
    for (int64_t j = 0; j < b->m; j++) {
        double best = INFINITY;
        for (int64_t i = 0; i < a->m; i++) {
            double d = 0;
            for (int f = 0; f < F; f++) {
                double t = b->proto[j * F + f] - a->proto[i * F + f];
                d += t * t;
            }
            if (d < best) best = d;
        }
        if (sqrt(best) > worst) worst = sqrt(best);
    }
    return worst * r;
}

static void study_set(const char *name, const double *x, int64_t n, int F, int reps,
                      const double study_gpu[4], double study_seq, const char *study_acc[4]) {
    double r;
    double r_s = solve_r(x, n, F, &r);
    printf("\n%s: n = %lld, r = %.10g (density form, %.3f s on the CPU), eps1 = (1e-6/r)^2, "
           "eps2 = (0.5/r)^2\n",
           name, (long long)n, r, r_s);
    printf("  %-13s %5s %6s %8s %7s %10s %10s %9s %8s %8s %8s %11s\n", "run", "raw", "final",
           "it mean", "it max", "time (s)", "kernel(s)", "GFLOP", "TFLOP/s", "%cores", "%of 67",
           "study GPU");
    outcome ex, part[4];
    timed(x, n, F, r, r_s, 0, reps, &ex);
    int ps[4] = {1, 2, 4, 8};
    for (int q = 0; q <= 4; q++) {
        outcome *o = q < 4 ? &part[q] : &ex;
        if (q < 4) timed(x, n, F, r, r_s, ps[q], reps, o);
        char label[32], study[32] = "-";
        if (q < 4) {
            snprintf(label, sizeof label, "partitioned %d", ps[q]);
            snprintf(study, sizeof study, "%.3f", study_gpu[q]);
        } else {
            snprintf(label, sizeof label, "exact");
            snprintf(study, sizeof study, "(seq %.1f)", study_seq);
        }
        double rate = o->flops / o->kernel_s;
        printf("  %-13s %5lld %6lld %8.1f %7lld %10.4f %10.4f %9.1f %8.2f %7.1f%% %7.1f%% %11s\n",
               label, (long long)o->raw, (long long)o->m, (double)o->it_total / n,
               (long long)o->it_max, o->total_s, o->kernel_s, o->flops * 1e-9, rate * 1e-12,
               100 * rate / peak_cuda, 100 * rate / 67e12, study);
    }
    printf("  study (GTS 450): sequential %.3f s; GPU p=1,2,4,8: %.3f, %.3f, %.3f, %.3f s; "
           "here exact is %.0fx faster than the study's sequential run and %.0fx faster "
           "than its GPU with 8 partitions\n",
           study_seq, study_gpu[0], study_gpu[1], study_gpu[2], study_gpu[3],
           study_seq / ex.total_s, study_gpu[3] / ex.total_s);
    printf("  accuracy against the exact run (Table 5.11 method: hard labels; purity = share "
           "of objects in the majority exact group of their group):\n");
    printf("    %-12s %6s %10s %10s %14s %12s\n", "run", "final", "purity %", "ARI", "moved (1/r)",
           "study acc.");
    for (int q = 0; q < 4; q++) {
        double pur = mu_fz_purity(part[q].labels, (int)part[q].m, ex.labels, (int)ex.m, n);
        double ari = mu_fz_ari(part[q].labels, (int)part[q].m, ex.labels, (int)ex.m, n);
        char label[32];
        snprintf(label, sizeof label, "partitioned %d", ps[q]);
        printf("    %-12s %6lld %10.2f %10.6f %14.4f %12s\n", label, (long long)part[q].m,
               100 * pur, ari, moved(&ex, &part[q], F, r), study_acc ? study_acc[q] : "-");
    }
    printf("    exact prototypes:");
    for (int64_t j = 0; j < ex.m && j < 12; j++)
        printf(" (%.5f, %.5f)", ex.proto[j * F], ex.proto[j * F + 1]);
    printf("%s\n", ex.m > 12 ? " ..." : "");
    for (int q = 0; q < 4; q++) outcome_free(&part[q]);
    outcome_free(&ex);
}

static void cpu_figures(const double *x, int64_t n, int F) {
    double r;
    double r_s = solve_r(x, n, F, &r);
    printf("\nCPU, one core, %lld blobs (the same arithmetic; prototypes compared with the GPU "
           "bit for bit):\n",
           (long long)n);
    int ps[3] = {8, 4, 0};
    for (int q = 0; q < 3; q++) {
        outcome c, g;
        run(x, n, F, r, r_s, ps[q], 0, &c);
        run(x, n, F, r, r_s, ps[q], 1, &g);
        int same = c.m == g.m &&
                   memcmp(c.proto, g.proto, (size_t)(c.m * F) * sizeof *c.proto) == 0 &&
                   c.it_total == g.it_total;
        char label[32];
        if (ps[q])
            snprintf(label, sizeof label, "partitioned %d", ps[q]);
        else
            snprintf(label, sizeof label, "exact");
        printf("  %-14s %8.3f s (%.3g pairs/s), %lld prototype(s); GPU %.4f s: %s\n", label,
               c.total_s, c.flops / FLOPS_PER_PAIR / (c.total_s - r_s), (long long)c.m, g.total_s,
               same ? "the same prototypes and iterations" : "DIFFERENT");
        outcome_free(&c);
        outcome_free(&g);
    }
}

/* Exact mode on n blobs, starts split evenly over the ranks (one GPU each). */
static void big(int64_t n, int blobs, int rank, int size) {
    mu_fz_data d;
    if (blobs ? mu_fz_gen_blobs(n, 2017, "400,400;400,1090;1125,750", 110, &d)
              : mu_fz_gen_schools(n, 2017, &d))
        die("data");
    const int F = 2;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), r;
    solve_r(d.x, n, F, &r);
    double r2 = r * r, eps1 = (1e-6 / r) * (1e-6 / r), eps2 = (0.5 / r) * (0.5 / r);
    int64_t a = n * rank / size, b = n * (rank + 1) / size, cnt = b - a;
    mu_gpu_fm *ctx = device_set(d.x, n, F);
    mu_gpu_fm_range g = {0, n, a, cnt};
    double *rec = malloc((size_t)(cnt * 4) * sizeof *rec), *v = malloc((size_t)(cnt * F) * 8);
    int64_t *its = malloc((size_t)cnt * sizeof *its);
    int *conv = malloc((size_t)cnt * sizeof *conv);
    float ms = 0;
    if (mu_gpu_fm_run(ctx, &g, 1, r2, eps1, 10000, 65536, v, its, conv, &ms)) die("run");
    double flops = 0, it_sum = 0, my_s = ms * 1e-3;
    for (int64_t k = 0; k < cnt; k++) {
        rec[4 * k] = v[2 * k];
        rec[4 * k + 1] = v[2 * k + 1];
        rec[4 * k + 2] = (double)its[k];
        rec[4 * k + 3] = conv[k];
        it_sum += (double)its[k];
    }
    flops = it_sum * (double)n * FLOPS_PER_PAIR;
    double *all = rank == 0 ? malloc((size_t)(n * 4) * sizeof *all) : NULL;
    int *counts = malloc((size_t)size * sizeof *counts), *displs = malloc((size_t)size * 4);
    for (int k = 0; k < size; k++) {
        counts[k] = (int)((n * (k + 1) / size - n * k / size) * 4);
        displs[k] = (int)(n * k / size * 4);
    }
    MPI_Gatherv(rec, (int)(cnt * 4), MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
    double kern_max = 0, flops_all = 0, it_all = 0;
    MPI_Reduce(&my_s, &kern_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&flops, &flops_all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&it_sum, &it_all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double *vv = malloc((size_t)(n * F) * sizeof *vv), *proto = malloc((size_t)(n * F) * 8);
        mu_fm_stat *st = malloc((size_t)n * sizeof *st);
        int64_t unconv = 0, it_max = 0;
        for (int64_t k = 0; k < n; k++) {
            vv[2 * k] = all[4 * k];
            vv[2 * k + 1] = all[4 * k + 1];
            st[k].iterations = (int64_t)all[4 * k + 2];
            st[k].converged = all[4 * k + 3] != 0;
            unconv += !st[k].converged;
            if (st[k].iterations > it_max) it_max = st[k].iterations;
        }
        int64_t m = mu_fm_accept(vv, st, n, F, eps2, proto, NULL);
        double total = MPI_Wtime() - t0;
        printf("\nexact mode, %lld %s (seed 2017), %d GPU(s), starts split evenly: r = %.10g, "
               "%lld prototype(s), %lld unconverged, iterations mean %.1f max %lld\n",
               (long long)n, blobs ? "blobs" : "school stand-in points", size, r, (long long)m,
               (long long)unconv, it_all / n, (long long)it_max);
        printf("  total %.3f s (r on the CPU, copy, kernels, gather, acceptance); slowest "
               "kernel %.3f s; %.1f TFLOP (14 per pair); %.2f TFLOP/s = %.1f%% of %d x the "
               "CUDA-core FP64 peak\n",
               total, kern_max, flops_all * 1e-12, flops_all / kern_max * 1e-12,
               100 * flops_all / kern_max / (peak_cuda * size), size);
        for (int64_t j = 0; j < m && j < 6; j++)
            printf("  prototype %lld: (%.4f, %.4f)\n", (long long)j, proto[2 * j],
                   proto[2 * j + 1]);
        free(vv);
        free(proto);
        free(st);
    }
    mu_gpu_fm_destroy(ctx);
    MU_FREE(all, counts, displs, rec, v, its, conv);
    mu_fz_free(&d);
}

/* --big[=N]: N points in (d), 10^6 without N. */
static int take_big(const char *value, void *to) {
    *(int64_t *)to = value ? atoll(value) : 1000000;
    return 0;
}

/* --arith=bitwise|fast. */
static int take_arith(const char *value, void *to) {
    const int fast = !strcmp(value, "fast");
    if (!fast && strcmp(value, "bitwise")) return 1;
    *(int *)to = fast;
    return 0;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size, reps = 3, cpu = 1;
    int64_t big_n = 0;
    int big_blobs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const bench_arg rows[] = {{"--reps=", bench_int, &reps},
                              {"--no-cpu", bench_off, &cpu},
                              {"--big[=]", take_big, &big_n},
                              {"--big-blobs", bench_on, &big_blobs},
                              {"--arith=", take_arith, &arith_fast}};
    if (BENCH_ARGS(argc, argv, rows)) {
        fprintf(stderr, "usage: bench_fuzzy [--reps=3] [--no-cpu] [--big[=N]] [--big-blobs] "
                        "[--arith=bitwise|fast]\n");
        return 2;
    }
    if (reps < 1) reps = 1;
    if (reps > 16) reps = 16;
    MPI_Comm node;
    int local = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    int ndev = mu_gpu_device_count();
    mu_gpu_info info;
    if (ndev < 1 || mu_gpu_select(local % ndev, &info)) die("no GPU");
    int clock_khz = 0;
    CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, info.ordinal));
    int cc = info.cc_major * 10 + info.cc_minor;
    int units = cc == 90 ? 64 : (cc == 80 || cc == 70 || cc == 60) ? 32 : 2;
    peak_cuda = (double)info.sm_count * clock_khz * 1e3 * units * 2;
    if (rank == 0) {
        printf("bench_fuzzy: %s (sm_%d%d, %d SMs, %.0f MHz), CUDA %s, %d rank(s)\n", info.name,
               info.cc_major, info.cc_minor, info.sm_count, clock_khz * 1e-3, mu_gpu_versions(),
               size);
        printf("FP64 peak used: %d SMs x %.3f GHz x %d FP64 units/SM x 2 = %.2f TFLOP/s (CUDA "
               "cores); the documented 67 TFLOP/s of the H100 SXM is its FP64 Tensor Core peak "
               "(%.1f%% of it = the CUDA-core peak above). %s\n",
               info.sm_count, clock_khz * 1e-6, units, peak_cuda * 1e-12, 100 * peak_cuda / 67e12,
               arith_fast ? "--arith=fast: pairs in single precision (4F + 2 instructions and "
                            "a reciprocal); 14 FP64 operations a pair counted, as in the bitwise "
                            "form, so the rate is that work per second against the FP64 peak."
                          : "No FMA here: half the CUDA-core peak is this kernel's ceiling.");
    }
    if (big_blobs && !big_n) big_n = 1000000;
    if (big_n > 0) {
        big(big_n, big_blobs, rank, size);
        MPI_Finalize();
        return 0;
    }
    if (rank == 0) {
        mu_fz_data blobs, schools;
        if (mu_fz_gen_blobs(10000, 2017, "400,400;400,1090;1125,750", 110, &blobs) ||
            mu_fz_gen_schools(40646, 2017, &schools))
            die("data");
        static const double gpu10[4] = {50.330, 10.282, 3.582, 1.706};
        static const double gpu40[4] = {133.945, 40.166, 8.963, 4.724};
        static const char *acc40[4] = {"100 %", "99.79 %", "96.67 %", "96.87 %"};
        study_set("test 2 analogue: 10000 blobs (seed 2017)", blobs.x, blobs.n, 2, reps, gpu10,
                  170.596, NULL);
        study_set("test 4 stand-in: 40646 synthetic school locations (--gen=schools, seed 2017)",
                  schools.x, schools.n, 2, reps, gpu40, 248.284, acc40);
        if (cpu) cpu_figures(blobs.x, blobs.n, 2);
        mu_fz_free(&blobs);
        mu_fz_free(&schools);
    }
    MPI_Finalize();
    return 0;
}
