/* bench_kmeans: the scenario aggregation's k-means, iteration time against the
 * arithmetic of its distance step, on the CPU and (CUDA builds with a device)
 * the GPU.
 *
 * Cases: the 12 monthly cases of the study's Table 3-2 (M = 1024 scenarios into
 * K = 136, 116, 143, 143, 193, 267, 513, 353, 303, 251, 228, 152) and the NEWAVE
 * scale (M = 100000 into K = 20), d = 64 stations. The scenarios are synthetic
 * correlated lognormal vectors (a fixed xorshift seed), whitened as
 * mu_agg_cluster does; the starting centres are K distinct scenarios.
 *
 * For each case and path it prints: iterations, time per iteration, total time, the time inside the
 * whole distance steps (backend calls: M x K distances each) and the rest (the
 * serial Hartigan-Wong part: OPTRA/QTRAN bookkeeping, centre updates, the
 * distances the CPU evaluates itself for centres changed during a pass), the
 * share of each, one distance step's time and its rate in GFLOP/s counting
 * 3 d flops per distance (subtract, multiply, add; no FMA, by design), and
 * whether the groups equal those of the CPU path. Paths:
 *   hw-cpu      AS 136 as published: distances on demand, live set, early exit
 *               (no separate distance step: its share is not separable);
 *   hw-cpu-ws   the same decisions, every distance of a pass computed first on
 *               the CPU (the GPU's shape, for the split);
 *   hw-gpu      the same with the device computing the steps;
 *   v2-cpu / v2-gpu   Version 2 (kmeans_v2.c), its scan on the CPU / device,
 *               one quick-transfer sweep per pass (the default);
 *   v2-*-q50    the same with up to 50 sweeps per pass (fewer passes, more
 *               serial work).
 *
 * Each path runs --reps times (the NEWAVE case once) and the run with the
 * median total is shown. Then the distance step alone: the CPU loop (one
 * thread), the device kernel by CUDA events, and kernel + copy to the host.
 *
 * A closing markdown table gives each case's totals next to the study's
 * (Table 3-2: serial Versions 1 and 2; Table 5-3: Version 2 on its GPU).
 *
 * Options: --cases=pmo,newave (default both)  --no-cpu  --no-gpu  --d=64
 *          --only=hw-gpu,v2-gpu (just these paths)
 *          --book-min=N: Version 2's bookkeeping on the device from N points
 *          (default MU_GPU_KM_BOOK_MIN = 8192, as the aggregation; 0: always)
 *          --maxit=200  --reps=3  --seed=N */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/message.h"
#include "gpu/gpu.h"
#include "gpu/scenarios_kmeans.h"
#include "scenarios/kmeans.h"
#include "core/whiten.h"
#include "bench_args.h"

static uint64_t rng = 88172645463325252ull;
static double unif(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void) {
    return sqrt(-2.0 * log(unif())) * cos(6.283185307179586 * unif());
}

/* Correlated lognormal scenarios: exp(0.4 (z A)) with A near the identity. */
static double *scenarios(int m, int d) {
    double *a = malloc(sizeof(double) * d * d), *x = malloc(sizeof(double) * (size_t)m * d);
    double *z = malloc(sizeof(double) * d);
    for (int p = 0; p < d * d; p++) a[p] = (p / d == p % d ? 1.0 : 0.0) + 0.15 * gauss();
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < d; j++) z[j] = gauss();
        for (int j = 0; j < d; j++) {
            double s = 0.0;
            for (int p = 0; p < d; p++) s += z[p] * a[p * d + j];
            x[(size_t)i * d + j] = 100.0 * (1.0 + j % 7) * exp(0.4 * s);
        }
    }
    free(a);
    free(z);
    return x;
}

typedef struct {
    int m, k;
    const char *name;
    /* The study's Table 3-2 (serial Fortran, 6-core 2.0 GHz Xeon, N = 58
     * stations, Mahalanobis) and Table 5-3 (Version 2, sh_float on a Quadro K600). */
    double v1_s, v2_s, v2gpu_s;
    int v1_it, v2_it;
} bcase;

/* One row of the closing table per case: totals and passes of each path. */
#define NPATHS 7
static struct {
    bcase bc;
    char name[64]; /* bc.name points at the caller's buffer */
    double tot[NPATHS], share[NPATHS];
    int it[NPATHS];
} summary[16];
static int nsummary;

static const char *only;                  /* --only=path[,path]: run just these paths */
static int book_min = MU_GPU_KM_BOOK_MIN; /* --book-min: device bookkeeping from this M */

/* A k-means path: Hartigan-Wong (v2 0) or Version 2 (1; 2 with more quick-transfer
 * sweeps), its distance steps on be (NULL: AS 136 as published). */
typedef struct {
    const char *name;
    int v2, on, sweeps;
    const mu_km_backend *be;
} kpath;

/* A case's whitened points y (r columns), its starting centres c0, and what a
 * run works in: c, and the groups ic1 with their sizes nc. */
typedef struct {
    const double *y, *c0;
    double *c;
    int m, k, r;
    int *ic1, *nc;
} kdata;

/* Whether --only names the path: whole names in a comma list. */
static int only_names(const char *path) {
    size_t n = strlen(path);
    const char *q = only;
    int hit = 0;
    while ((q = strstr(q, path)) != NULL) {
        if ((q == only || q[-1] == ',') && (q[n] == ',' || q[n] == '\0')) hit = 1;
        q += n;
    }
    return hit;
}

/* reps runs of the path from c0 (16 at most); *med: the one with the median total
 * time. Returns the last run's fault (MU_KM_BACKEND: a run failed, and no more). */
static int median_run(const kdata *kd, const kpath *path, int maxit, int reps, mu_km_out *med) {
    int m = kd->m, k = kd->k, r = kd->r;
    mu_km_out runs[16];
    int f = 0, nr = reps < 16 ? reps : 16;
    for (int q = 0; q < nr; q++) {
        memcpy(kd->c, kd->c0, sizeof(double) * k * r);
        mu_km_out o = {0};
        o.ic1 = kd->ic1;
        o.nc = kd->nc;
        f = path->v2 ? mu_km_version2(kd->y, m, r, kd->c, k, maxit, path->sweeps, path->be, &o)
                     : mu_km_hartigan_wong(kd->y, m, r, kd->c, k, maxit, 0, path->be, &o);
        if (f == MU_KM_BACKEND) return f;
        int at = q;
        while (at > 0 && runs[at - 1].total_s > o.total_s) {
            runs[at] = runs[at - 1];
            at--;
        }
        runs[at] = o;
    }
    *med = runs[nr / 2];
    return f;
}

/* The path's line; same: its groups against the first path of its kind. */
static void print_path(const kpath *path, const mu_km_out *o, double flops, const char *same,
                       int f) {
    /* distance steps: the initial one plus one per pass */
    int steps = o->iter + 1;
    double step = o->dist_s / steps;
    if (path->be)
        printf("  %-10s %5d %8.3f %9.4f %9.4f %9.4f %5.1f%% %10.3f %8.1f %12lld %s%s\n", path->name,
               o->iter, 1e3 * o->total_s / o->iter, o->total_s, o->dist_s, o->total_s - o->dist_s,
               100.0 * o->dist_s / o->total_s, 1e3 * step, flops / step * 1e-9, o->dist_evals, same,
               f ? " (not converged)" : "");
    else
        printf("  %-10s %5d %8.3f %9.4f %9s %9s %6s %10s %8s %12lld %s%s\n", path->name, o->iter,
               1e3 * o->total_s / o->iter, o->total_s, "-", "-", "-", "-", "-", o->dist_evals, same,
               f ? " (not converged)" : "");
    fflush(stdout);
}

/* The distance step alone: the CPU loop, and the device kernel (CUDA events)
 * and kernel + copy of the matrix to the host. */
static void distance_step_alone(const kdata *kd, double flops, int cpu, mu_gpu_km *g) {
    int m = kd->m, k = kd->k;
    double *dist = malloc(sizeof(double) * (size_t)m * k);
    if (cpu) {
        double best = 1e30;
        for (int q = 0; q < (m > 50000 ? 1 : 3); q++) {
            double t1 = mu_km_now();
            mu_km_all_cpu(kd->y, m, kd->r, kd->c0, k, dist);
            t1 = mu_km_now() - t1;
            if (t1 < best) best = t1;
        }
        printf("  distance step alone, CPU (1 thread): %.3f ms = %.2f GFLOP/s\n", 1e3 * best,
               flops / best * 1e-9);
    }
    if (g) {
        double kms, best = 1e30;
        if (mu_gpu_km_kernel_ms(g, kd->c0, k, 20, &kms) == 0)
            printf("  distance step alone, GPU kernel: %.4f ms = %.1f GFLOP/s (median of 20)\n",
                   kms, flops / (kms * 1e-3) * 1e-9);
        for (int q = 0; q < 5; q++) {
            double t1 = mu_km_now();
            if (mu_gpu_km_all(g, kd->c0, k, dist)) break;
            t1 = mu_km_now() - t1;
            if (t1 < best) best = t1;
        }
        printf("  distance step, GPU kernel + %.1f MB to the host: %.3f ms\n", 8e-6 * (double)m * k,
               1e3 * best);
    }
    free(dist);
}

static void run_case(const bcase *bc, int d, int maxit, int reps, int cpu, int gpu) {
    int m = bc->m, k = bc->k, r;
    int row = nsummary++;
    summary[row].bc = *bc;
    snprintf(summary[row].name, sizeof summary[row].name, "%s", bc->name);
    for (int p = 0; p < NPATHS; p++) summary[row].tot[p] = -1.0;
    double *x = scenarios(m, d), *y = malloc(sizeof(double) * (size_t)m * d);
    double t = mu_km_now();
    if (mu_whiten(x, m, d, y, &r)) {
        fprintf(stderr, "bench_kmeans: %s\n", mu_error_message());
        exit(1);
    }
    t = mu_km_now() - t;
    for (int i = 1; i < m; i++) memmove(y + (size_t)i * r, y + (size_t)i * d, sizeof(double) * r);
    double *c0 = malloc(sizeof(double) * k * r), *c = malloc(sizeof(double) * k * r);
    for (int l = 0; l < k; l++) /* distinct with probability 1 (continuous data) */
        memcpy(c0 + (size_t)l * r, y + (size_t)l * (m / k) * r, sizeof(double) * r);
    double flops = 3.0 * (double)m * k * r;
    printf("\n%s: M %d, K %d, d %d (rank %d); whitening %.3f s; one distance step = %.3g "
           "GFLOP\n",
           bc->name, m, k, d, r, t, flops * 1e-9);
    printf("  %-10s %5s %8s %9s %9s %9s %6s %10s %8s %12s %s\n", "path", "iter", "iter_ms",
           "total_s", "dist_s", "serial_s", "dist%", "step_ms", "GFLOP/s", "cpu_dists", "groups");
    int *ref = malloc(sizeof(int) * m), *ic1 = malloc(sizeof(int) * m),
        *nc = malloc(sizeof(int) * k);
    int have_ref[3] = {0, 0, 0};
    mu_gpu_km *g = NULL;
    if (gpu && mu_gpu_km_create(y, m, r, k, &g)) {
        printf("  gpu: %s\n", mu_gpu_error());
        g = NULL;
    }
    mu_km_points pts = {y, m, r};
    /* Version 2's bookkeeping on the device from MU_GPU_KM_BOOK_MIN points, as
     * mu_agg_cluster does (then in the dist_s column). */
    int book = m >= book_min;
    mu_km_backend cbe = mu_km_cpu_backend(&pts), gbe = mu_km_gpu_backend(g, 0, book);
    cbe.qtest = NULL; /* v2-cpu: the bookkeeping stays in the serial column */
    cbe.recompute = NULL;
    const kpath paths[] = {{"hw-cpu", 0, cpu, 0, NULL},           {"hw-cpu-ws", 0, cpu, 0, &cbe},
                           {"hw-gpu", 0, g != NULL, 0, &gbe},     {"v2-cpu", 1, cpu, 0, &cbe},
                           {"v2-gpu", 1, g != NULL, 0, &gbe},     {"v2-cpu-q50", 2, cpu, 50, &cbe},
                           {"v2-gpu-q50", 2, g != NULL, 50, &gbe}};
    int *refs[3] = {ref, malloc(sizeof(int) * m), malloc(sizeof(int) * m)};
    const kdata kd = {y, c0, c, m, k, r, ic1, nc};
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        if (!paths[p].on) continue;
        if (only && !only_names(paths[p].name)) continue;
        /* reps runs; the one with the median total time is shown */
        mu_km_out o;
        int f = median_run(&kd, &paths[p], maxit, reps, &o);
        if (f == MU_KM_BACKEND) {
            printf("  %-10s failed: %s\n", paths[p].name, mu_gpu_error());
            continue;
        }
        summary[row].tot[p] = o.total_s;
        summary[row].it[p] = o.iter;
        summary[row].share[p] = paths[p].be ? o.dist_s / o.total_s : -1.0;
        int v = paths[p].v2;
        const char *same = "reference";
        if (have_ref[v])
            same = memcmp(refs[v], ic1, sizeof(int) * m) ? "DIFFER" : "same";
        else {
            memcpy(refs[v], ic1, sizeof(int) * m);
            have_ref[v] = 1;
        }
        print_path(&paths[p], &o, flops, same, f);
    }
    distance_step_alone(&kd, flops, cpu, g);
    mu_gpu_km_destroy(g);
    free(refs[1]);
    free(refs[2]);
    free(x), free(y), free(c0), free(c), free(ref), free(ic1), free(nc);
}

/* --seed=N: the generator's state (odd). */
static int take_seed(const char *value, void *to) {
    *(uint64_t *)to = strtoull(value, NULL, 10) | 1;
    return 0;
}

/* --cases=pmo,newave: the cases the list names. */
typedef struct {
    int pmo, newave;
} which_cases;
static int take_cases(const char *list, void *to) {
    which_cases *w = to;
    w->pmo = strstr(list, "pmo") != NULL;
    w->newave = strstr(list, "newave") != NULL;
    return 0;
}

int main(int argc, char **argv) {
    int d = 64, maxit = 200, reps = 3, cpu = 1, gpu = 1;
    which_cases cases = {1, 1};
    const bench_arg rows[] = {{"--d=", bench_int, &d},
                              {"--maxit=", bench_int, &maxit},
                              {"--book-min=", bench_int, &book_min},
                              {"--only=", bench_text, &only},
                              {"--reps=", bench_int, &reps},
                              {"--seed=", take_seed, &rng},
                              {"--no-cpu", bench_off, &cpu},
                              {"--no-gpu", bench_off, &gpu},
                              {"--cases=", take_cases, &cases}};
    if (BENCH_ARGS(argc, argv, rows)) {
        fprintf(stderr,
                "usage: bench_kmeans [--cases=pmo,newave] [--no-cpu] [--no-gpu] "
                "[--d=64] [--only=path,...] [--book-min=N] [--maxit=200] [--reps=3] [--seed=N]\n");
        return 2;
    }
    if (reps < 1) reps = 1;
    if (gpu && mu_gpu_device_count() < 1) {
        printf("no CUDA device (%s): CPU paths only\n",
               mu_gpu_built() ? "none visible" : "CPU-only build");
        gpu = 0;
    }
    if (gpu) {
        mu_gpu_info info;
        if (mu_gpu_select(0, &info)) {
            fprintf(stderr, "bench_kmeans: %s\n", mu_gpu_error());
            return 1;
        }
        printf("device: %s (%d SMs), CUDA %s\n", info.name, info.sm_count, mu_gpu_versions());
    }
    static const char *months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    static const int ks[] = {136, 116, 143, 143, 193, 267, 513, 353, 303, 251, 228, 152};
    static const double v1s[] = {27.87, 20.45, 22.69, 22.71, 31.41, 34.93,
                                 47.07, 41.16, 36.66, 33.87, 31.60, 30.46};
    static const int v1it[] = {9, 6, 6, 6, 9, 7, 6, 7, 6, 6, 6, 10};
    static const double v2s[] = {31.45,  27.67,  34.23, 34.33, 54.97, 70.04,
                                 186.62, 119.03, 88.16, 74.58, 61.19, 35.55};
    static const int v2it[] = {8, 10, 9, 9, 15, 14, 21, 21, 18, 15, 13, 9};
    static const double gpus[] = {1.491, 1.753, 1.722, 1.896, 1.906, 2.044,
                                  4.502, 2.212, 2.43,  1.925, 1.971, 1.573};
    if (cases.pmo)
        for (int t = 0; t < 12; t++) {
            char name[64];
            snprintf(name, sizeof name, "Table 3-2 %s", months[t]);
            bcase bc = {1024, ks[t], name, v1s[t], v2s[t], gpus[t], v1it[t], v2it[t]};
            run_case(&bc, d, maxit, reps, cpu, gpu);
        }
    if (cases.newave) {
        bcase bc = {100000, 20, "NEWAVE selective sampling", 0, 0, 0, 0, 0};
        run_case(&bc, d, maxit, 1, cpu, gpu); /* one run each: seconds on the CPU */
    }
    /* Closing table: seconds (passes) per path; the study's figures for the
     * same K (its d = 58 and its Mahalanobis O(d^2) distances; ours d = 64, whitened). */
    printf("\n| case | M | K | hw-cpu s (it) | hw-gpu s | v2-cpu s (it) | v2-gpu s | v2-gpu "
           "distance share | study V1 s (it) | study V2 s (it) | study V2 GPU s |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int q = 0; q < nsummary; q++) {
        char cell[5][48];
        const int col[5] = {0, 2, 3, 4, 4};
        for (int u = 0; u < 4; u++) {
            int p = col[u];
            if (summary[q].tot[p] < 0)
                snprintf(cell[u], sizeof cell[u], "-");
            else if (u == 0 || u == 2)
                snprintf(cell[u], sizeof cell[u], "%.4f (%d)", summary[q].tot[p], summary[q].it[p]);
            else
                snprintf(cell[u], sizeof cell[u], "%.4f", summary[q].tot[p]);
        }
        if (summary[q].tot[4] < 0)
            snprintf(cell[4], sizeof cell[4], "-");
        else
            snprintf(cell[4], sizeof cell[4], "%.0f%%", 100.0 * summary[q].share[4]);
        const bcase *b = &summary[q].bc;
        if (b->v1_s > 0)
            printf("| %s | %d | %d | %s | %s | %s | %s | %s | %.2f (%d) | %.2f (%d) | %.3f |\n",
                   summary[q].name, b->m, b->k, cell[0], cell[1], cell[2], cell[3], cell[4],
                   b->v1_s, b->v1_it, b->v2_s, b->v2_it, b->v2gpu_s);
        else
            printf("| %s | %d | %d | %s | %s | %s | %s | %s | - | - | - |\n", summary[q].name, b->m,
                   b->k, cell[0], cell[1], cell[2], cell[3], cell[4]);
    }
    return 0;
}
