/* bench_maxsub: GPU maxsub kernels against the device's own copy bandwidth and
 * the CPU reference (GPU machines only).
 *
 *  (a) cudaMemcpy device-to-device bandwidth, counted as bytes read + written;
 *  (b) 1-D on resident data (kernel time by CUDA events, median): effective read
 *      bandwidth (bytes read / t) and its ratio to (a); end to end from pageable
 *      host memory through the stream pipeline; one CPU thread running the
 *      reference scan; GPU == CPU on the full summary;
 *  (c) 2-D on n x n matrices: time over all tiles, updates/s = n * n(n+1)/2 / t;
 *      the winning pair's strip recomputed in int64 on the CPU; single tiles
 *      compared with the CPU reference; a full CPU comparison at --check2d.
 *
 * Options: --sizes1d=28,30 (log2 n)  --sizes2d=4096,8192,16384  --reps=20
 *          --reps2d=3  --check2d=2048 (0: none)  --sweep1d=8,16,32 (rounds per
 *          tile to compare)  --variants2d (also the int64, one-row and non-DPX kernels)
 *          --no1d  --no2d  --no-e2e  --no-cpu  --seed=N */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu/gpu.h"
#include "gpu/maxsub_gpu.h"
#include "maxsub/strip2d.h"
#include "bench_args.h"
#include "bench_util.h"

#define GPU(call)                                                                                  \
    do {                                                                                           \
        if (call) {                                                                                \
            fprintf(stderr, "bench_maxsub: %s:%d: %s\n", __FILE__, __LINE__, mu_gpu_error());      \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static uint64_t rng = 1;
static inline uint64_t xs(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
/* Uniform in [lo, hi] by multiply-shift. */
static inline int32_t draw(int64_t lo, int64_t hi) {
    uint64_t span = (uint64_t)(hi - lo) + 1;
    return (int32_t)(lo + (int64_t)(((xs() >> 32) * span) >> 32));
}

/* A list option's values: --sizes1d=28,30 (at most 8; the list replaced). */
typedef struct {
    long long v[8];
    int n;
} list;
static int parse_list(const char *s, void *to) {
    list *l = to;
    l->n = 0;
    while (*s && l->n < 8) {
        char *end;
        l->v[l->n++] = strtoll(s, &end, 10);
        if (end == s) break;
        s = *end == ',' ? end + 1 : end;
    }
    return 0;
}

/* The final table, printed last. */
static char table[16384];
static size_t tlen;
static void row(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void row(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(table + tlen, sizeof table - tlen, fmt, ap);
    va_end(ap);
    if (k > 0) tlen += (size_t)k < sizeof table - tlen ? (size_t)k : sizeof table - tlen - 1;
}

static int mismatches;

/* ---- (a) ---- */
static double bench_copy(int reps) {
    double tm, bw = bench_copy_bandwidth(reps, &tm);
    printf("(a) D2D copy of 1 GiB: median %.3f ms, %.1f GB/s (read + written)\n", tm * 1e3,
           bw / 1e9);
    row("(a) cudaMemcpy D2D, 1 GiB, median of %d     %9.3f ms   %8.1f GB/s (read+written)\n", reps,
        tm * 1e3, bw / 1e9);
    return bw;
}

/* Median kernel time of the resident 1-D kernel, checked against ref. */
static double time_1d(const int32_t *d, int64_t n, int empty, int reps, const mu_mss_summary *ref,
                      const char *what) {
    mu_mss_summary s;
    float ms;
    for (int i = 0; i < 3; i++) GPU(mu_gpu_mss1d_device(d, n, 0, empty, &s, &ms));
    double *t = malloc(sizeof(double) * (size_t)reps);
    for (int i = 0; i < reps; i++) {
        GPU(mu_gpu_mss1d_device(d, n, 0, empty, &s, &ms));
        t[i] = ms * 1e-3;
        if (ref && !mu_mss_same(&s, ref)) {
            mismatches++;
            printf("MISMATCH 1-D %s n=%lld: gpu best %lld [%lld,%lld], cpu %lld [%lld,%lld]\n",
                   what, (long long)n, (long long)s.best, (long long)s.best_start,
                   (long long)s.best_end, (long long)ref->best, (long long)ref->best_start,
                   (long long)ref->best_end);
            ref = NULL;
        }
    }
    double tm = bench_median(t, reps);
    free(t);
    return tm;
}

static void bench_1d(double copy_bw, long long *lg, int nlg, int reps, int e2e, int cpu,
                     long long *sweep, int nsweep) {
    int lgmax = 0;
    for (int i = 0; i < nlg; i++)
        if (lg[i] > lgmax) lgmax = (int)lg[i];
    const int64_t nmax = (int64_t)1 << lgmax;
    int32_t *h = malloc(sizeof(int32_t) * (size_t)nmax);
    if (!h) {
        fprintf(stderr, "bench_maxsub: no memory for 2^%d ints\n", lgmax);
        exit(1);
    }
    double t0 = bench_now();
    for (int64_t i = 0; i < nmax; i++) h[i] = draw(-1000, 1000);
    printf("(b) generated 2^%d values in [-1000, 1000] in %.1f s\n", lgmax, bench_now() - t0);
    int32_t *d;
    CK(cudaMalloc((void **)&d, sizeof(int32_t) * (size_t)nmax));
    CK(cudaMemcpy(d, h, sizeof(int32_t) * (size_t)nmax, cudaMemcpyHostToDevice));
    row("(b) 1-D, values in [-1000,1000], empty allowed; read GB/s = 4n/t, vs (a) = read GB/s / "
        "copy GB/s\n");
    row("    %-34s %10s %10s %10s %9s\n", "case", "n", "time ms", "read GB/s", "vs (a)");
    for (int k = 0; k < nlg; k++) {
        const int64_t n = (int64_t)1 << lg[k];
        mu_mss_summary ref;
        double tc = 0;
        if (cpu) {
            t0 = bench_now();
            ref = mu_mss_scan_array(h, n, 0, 1);
            tc = bench_now() - t0;
        }
        double tg = time_1d(d, n, 1, reps, cpu ? &ref : NULL, "resident");
        double gbs = 4.0 * (double)n / tg;
        printf("    1-D n=2^%lld kernel median %.3f ms, %.1f GB/s read, %.1f%% of copy\n", lg[k],
               tg * 1e3, gbs / 1e9, 100.0 * gbs / copy_bw);
        row("    %-34s %10lld %10.3f %10.1f %8.1f%%\n", "GPU kernels, resident", (long long)n,
            tg * 1e3, gbs / 1e9, 100.0 * gbs / copy_bw);
        if (!cpu) {
            mu_mss_summary s;
            GPU(mu_gpu_mss1d_device(d, n, 0, 1, &s, NULL));
            ref = s;
        }
        /* Forbidden mode (nonempty), checked against the CPU at the smaller sizes. */
        {
            mu_mss_summary rf;
            int chk = cpu && lg[k] <= 28;
            if (chk) rf = mu_mss_scan_array(h, n, 0, 0);
            double tf = time_1d(d, n, 0, reps / 2 > 3 ? reps / 2 : 3, chk ? &rf : NULL, "nonempty");
            row("    %-34s %10lld %10.3f %10.1f %8.1f%%\n", "GPU kernels, nonempty mode",
                (long long)n, tf * 1e3, 4.0 * (double)n / tf / 1e9,
                100.0 * 4.0 * (double)n / tf / copy_bw);
        }
        for (int si = 0; si < nsweep; si++) {
            char v[16];
            snprintf(v, sizeof v, "%lld", sweep[si]);
            setenv("MUTIRAO_MSS1D_ROUNDS", v, 1);
            double ts = time_1d(d, n, 1, reps, &ref, "sweep");
            char label[64];
            snprintf(label, sizeof label, "  rounds per tile = %lld", sweep[si]);
            row("    %-34s %10lld %10.3f %10.1f %8.1f%%\n", label, (long long)n, ts * 1e3,
                4.0 * (double)n / ts / 1e9, 100.0 * 4.0 * (double)n / ts / copy_bw);
            unsetenv("MUTIRAO_MSS1D_ROUNDS");
        }
        if (nsweep) {
            setenv("MUTIRAO_MSS1D_FAST", "0", 1);
            double ts = time_1d(d, n, 1, reps, &ref, "int64 path");
            row("    %-34s %10lld %10.3f %10.1f %8.1f%%\n", "  int64 path forced", (long long)n,
                ts * 1e3, 4.0 * (double)n / ts / 1e9, 100.0 * 4.0 * (double)n / ts / copy_bw);
            unsetenv("MUTIRAO_MSS1D_FAST");
        }
        if (e2e) {
            double te[3];
            for (int i = 0; i < 3; i++) {
                mu_mss_summary s;
                t0 = bench_now();
                GPU(mu_gpu_mss1d_host(h, n, 0, 1, &s));
                te[i] = bench_now() - t0;
                if (!mu_mss_same(&s, &ref)) {
                    mismatches++;
                    printf("MISMATCH 1-D host pipeline n=%lld\n", (long long)n);
                }
            }
            double tm = bench_median(te, 3);
            row("    %-34s %10lld %10.3f %10.1f %9s\n", "end to end from pageable host",
                (long long)n, tm * 1e3, 4.0 * (double)n / tm / 1e9, "-");
        }
        if (cpu)
            row("    %-34s %10lld %10.3f %10.1f %9s\n", "CPU scan, 1 thread (reference)",
                (long long)n, tc * 1e3, 4.0 * (double)n / tc / 1e9, "-");
        printf("    answer: best %lld [%lld, %lld]%s\n", (long long)ref.best,
               (long long)ref.best_start, (long long)ref.best_end,
               cpu ? " (GPU == CPU checked)" : "");
        fflush(stdout);
    }
    /* The int64 path: values over the whole int32 range. */
    {
        const int64_t n = nmax < ((int64_t)1 << 28) ? nmax : ((int64_t)1 << 28);
        for (int64_t i = 0; i < n; i++) h[i] = draw(INT32_MIN, INT32_MAX);
        CK(cudaMemcpy(d, h, sizeof(int32_t) * (size_t)n, cudaMemcpyHostToDevice));
        mu_mss_summary ref = mu_mss_scan_array(h, n, 0, 1);
        double tg = time_1d(d, n, 1, reps, &ref, "full range");
        row("    %-34s %10lld %10.3f %10.1f %8.1f%%\n", "GPU, full int32 range (int64 path)",
            (long long)n, tg * 1e3, 4.0 * (double)n / tg / 1e9,
            100.0 * 4.0 * (double)n / tg / copy_bw);
    }
    CK(cudaFree(d));
    free(h);
}

/* ---- (c) ---- */

/* Kadane of strip (g, h) straight from K, int64. */
static int64_t strip_best(const int32_t *k, int64_t n, int64_t g, int64_t h, int empty) {
    mu_mss_scan st;
    mu_mss_scan_begin(&st, 0, empty);
    for (int64_t i = 0; i < n; i++) {
        int64_t c = 0;
        const int32_t *r = k + i * n;
        for (int64_t j = g; j <= h; j++) c += r[j];
        mu_mss_scan_push(&st, c, empty);
    }
    return mu_mss_scan_end(&st, empty).best;
}

static double time_2d(mu_gpu_mss2d *ctx, int64_t nt, int empty, int reps, int64_t *best,
                      int64_t *id) {
    double *t = malloc(sizeof(double) * (size_t)reps);
    for (int i = 0; i < reps; i++) {
        double t0 = bench_now();
        GPU(mu_gpu_mss2d_run(ctx, 0, nt, empty, best, id));
        t[i] = bench_now() - t0;
    }
    double tm = bench_median(t, reps);
    free(t);
    return tm;
}

/* Full comparison with the CPU tiles: allowed mode at n = check, nonempty at check / 2. */
static void check_2d(long long check) {
    for (int empty = 1; empty >= 0 && check > 0; empty--) {
        const int64_t n = empty ? check : check / 2;
        if (n < 1) break;
        int32_t *k = malloc(sizeof(int32_t) * (size_t)(n * n));
        int64_t *V = malloc(sizeof(int64_t) * (size_t)(n * (n + 1)));
        if (!k || !V) {
            fprintf(stderr, "bench_maxsub: no memory for the CPU check\n");
            exit(1);
        }
        for (int64_t i = 0; i < n * n; i++) k[i] = draw(-1000, 1000);
        mu_mss2d_prefix(k, n, n, V);
        mu_gpu_mss2d *ctx;
        GPU(mu_gpu_mss2d_create(k, n, n, &ctx));
        const int64_t nt = mu_mss_tile_count(n);
        int64_t gb, gi, cb, ci;
        double t0 = bench_now();
        mu_mss2d_cpu_tiles(V, n, n, 0, nt, empty, &cb, &ci);
        double tc = bench_now() - t0;
        double tg = time_2d(ctx, nt, empty, 3, &gb, &gi);
        int ok = gb == cb && gi == ci;
        if (!ok) mismatches++;
        double upd = (double)n * (double)n * (double)(n + 1) / 2.0;
        row("    %-30s %7lld %10.3f %12.3e %10s\n",
            empty ? "GPU, all tiles (vs CPU)" : "GPU, nonempty (vs CPU)", (long long)n, tg * 1e3,
            upd / tg, ok ? "== CPU" : "MISMATCH");
        row("    %-30s %7lld %10.3f %12.3e %10s\n", "CPU tiles, 1 thread", (long long)n, tc * 1e3,
            upd / tc, "-");
        printf("    2-D n=%lld empty=%d: gpu %lld id %lld, cpu %lld id %lld\n", (long long)n, empty,
               (long long)gb, (long long)gi, (long long)cb, (long long)ci);
        fflush(stdout);
        mu_gpu_mss2d_destroy(ctx);
        free(V);
        free(k);
    }
}

/* A run's answer: the best sum and the pair id of its strip. */
typedef struct {
    int64_t best, id;
} mss2d_answer;

/* The nonempty mode over all tiles, its winning strip recomputed in int64 from K. */
static mss2d_answer nonempty_2d(mu_gpu_mss2d *ctx, const int32_t *k, int64_t n, int64_t nt,
                                int reps, double upd) {
    mss2d_answer a;
    double tf = time_2d(ctx, nt, 0, reps, &a.best, &a.id);
    int64_t fg = 0, fh = 0;
    if (a.id >= 0) mu_mss_tri_unrank(n, a.id, &fg, &fh);
    int fok = a.id >= 0 && strip_best(k, n, fg, fh, 0) == a.best;
    if (!fok) mismatches++;
    row("    %-30s %7lld %10.3f %12.3e %10s\n", "GPU, nonempty mode", (long long)n, tf * 1e3,
        upd / tf, fok ? "strip ok" : "BAD STRIP");
    return a;
}

/* Single tiles against the CPU reference (skipped when its prefix sums do not fit). */
static void single_tiles_2d(mu_gpu_mss2d *ctx, const int32_t *k, int64_t n, int64_t nt) {
    int64_t *V = malloc(sizeof(int64_t) * (size_t)(n * (n + 1)));
    int bad = 0;
    if (!V) return;
    mu_mss2d_prefix(k, n, n, V);
    for (int q = 0; q < 4; q++) {
        int64_t t = (nt - 1) * q / 3, cb, ci, gb, gi;
        mu_mss2d_cpu_tiles(V, n, n, t, t + 1, q & 1, &cb, &ci);
        GPU(mu_gpu_mss2d_run(ctx, t, t + 1, q & 1, &gb, &gi));
        if (cb != gb || ci != gi) bad++;
    }
    free(V);
    if (bad) mismatches++;
    row("    %-30s %7lld %10s %12s %10s\n", "  4 single tiles vs CPU", (long long)n, "-", "-",
        bad ? "MISMATCH" : "== CPU");
}

/* Each kernel forced for both modes (the default picks per mode), against the
 * default's answers in the allowed and the nonempty mode. */
static void variants_2d(const int32_t *k, int64_t n, int64_t nt, int reps, double upd,
                        const mss2d_answer *all, const mss2d_answer *nonempty) {
    static const char *names[3] = {"int64 kernel", "int32, rows in pairs",
                                   "int32, one row at a time"};
    static const char *var[3] = {"MUTIRAO_MSS2D_INT64", "MUTIRAO_MSS2D_KERNEL",
                                 "MUTIRAO_MSS2D_KERNEL"};
    static const char *val[3] = {"1", "pairs", "rows"};
    for (int v = 0; v < 3; v++) {
        mu_gpu_mss2d *ctx;
        setenv(var[v], val[v], 1);
        GPU(mu_gpu_mss2d_create(k, n, n, &ctx));
        unsetenv(var[v]);
        for (int empty = 1; empty >= 0; empty--) {
            int64_t vb, vi;
            double tv = time_2d(ctx, nt, empty, v == 0 ? 1 : reps, &vb, &vi);
            const mss2d_answer *want = empty ? all : nonempty;
            int vok = vb == want->best && vi == want->id;
            if (!vok) mismatches++;
            char label[64];
            snprintf(label, sizeof label, "  %s, %s", names[v], empty ? "allowed" : "nonempty");
            row("    %-30s %7lld %10.3f %12.3e %10s\n", label, (long long)n, tv * 1e3, upd / tv,
                vok ? "same" : "DIFFERENT");
        }
        mu_gpu_mss2d_destroy(ctx);
    }
}

/* One n x n matrix: all tiles in both modes (the winners' strips recomputed),
 * single tiles against the CPU and, with variants, the other kernels. */
static void size_2d(int64_t n, int reps, int variants) {
    int32_t *k = malloc(sizeof(int32_t) * (size_t)(n * n));
    if (!k) {
        fprintf(stderr, "bench_maxsub: no memory for n = %lld\n", (long long)n);
        exit(1);
    }
    for (int64_t i = 0; i < n * n; i++) k[i] = draw(-1000, 1000);
    mu_gpu_mss2d *ctx;
    double t0 = bench_now();
    GPU(mu_gpu_mss2d_create(k, n, n, &ctx));
    double tcreate = bench_now() - t0;
    const int64_t nt = mu_mss_tile_count(n);
    const double upd = (double)n * (double)n * (double)(n + 1) / 2.0;
    int64_t best, id;
    GPU(mu_gpu_mss2d_run(ctx, 0, nt < 64 ? nt : 64, 1, &best, &id)); /* warm-up */
    double tg = time_2d(ctx, nt, 1, reps, &best, &id);
    /* The winner, recomputed in int64 from K. */
    int64_t g = 0, h = 0;
    if (id >= 0) mu_mss_tri_unrank(n, id, &g, &h);
    int64_t sb = id >= 0 ? strip_best(k, n, g, h, 1) : 0;
    int ok = id >= 0 && sb == best;
    if (!ok) mismatches++;
    row("    %-30s %7lld %10.3f %12.3e %10s\n", "GPU, all tiles (allowed)", (long long)n, tg * 1e3,
        upd / tg, ok ? "strip ok" : "BAD STRIP");
    printf("    2-D n=%lld: create %.1f ms, run %.3f ms, %.3e updates/s, best %lld at pair "
           "%lld (g %lld, h %lld), strip %lld\n",
           (long long)n, tcreate * 1e3, tg * 1e3, upd / tg, (long long)best, (long long)id,
           (long long)g, (long long)h, (long long)sb);
    fflush(stdout);
    const mss2d_answer all = {best, id}, nonempty = nonempty_2d(ctx, k, n, nt, reps, upd);
    single_tiles_2d(ctx, k, n, nt);
    mu_gpu_mss2d_destroy(ctx);
    if (variants && n >= 8192) variants_2d(k, n, nt, reps, upd, &all, &nonempty);
    free(k);
}

static void bench_2d(long long *sizes, int nsizes, int reps, long long check, int variants) {
    row("(c) 2-D, n x n values in [-1000,1000]; updates = n * n(n+1)/2 pair-rows; time = whole "
        "run, median\n");
    row("    %-30s %7s %10s %12s %10s\n", "case", "n", "time ms", "updates/s", "check");
    check_2d(check);
    for (int s = 0; s < nsizes; s++) size_2d(sizes[s], reps, variants);
}

int main(int argc, char **argv) {
    list lg = {{28, 30}, 2}, s2 = {{4096, 8192, 16384}, 3}, sweep = {{0}, 0};
    int reps = 20, reps2d = 3, do1 = 1, do2 = 1, e2e = 1, cpu = 1, variants = 0;
    int64_t check = 2048, seed = 20240607;
    printf("command:");
    for (int i = 0; i < argc; i++) printf(" %s", argv[i]);
    printf("\n");
    const bench_arg rows[] = {
        {"--sizes1d=", parse_list, &lg},    {"--sizes2d=", parse_list, &s2},
        {"--sweep1d=", parse_list, &sweep}, {"--reps=", bench_int, &reps},
        {"--reps2d=", bench_int, &reps2d},  {"--check2d=", bench_i64, &check},
        {"--seed=", bench_i64, &seed},      {"--variants2d", bench_on, &variants},
        {"--no1d", bench_off, &do1},        {"--no2d", bench_off, &do2},
        {"--no-e2e", bench_off, &e2e},      {"--no-cpu", bench_off, &cpu}};
    const char *bad = BENCH_ARGS(argc, argv, rows);
    if (bad) {
        fprintf(stderr,
                "bench_maxsub: unknown option %s (see the comment at the top of "
                "perf/bench_maxsub.c)\n",
                bad);
        return 2;
    }
    if (reps < 10) reps = 10;
    if (reps2d < 1) reps2d = 1;
    rng = (uint64_t)seed * 0x9E3779B97F4A7C15ull + 1;
    if (mu_gpu_device_count() == 0) {
        printf("bench_maxsub: no GPU (%s)\n", mu_gpu_error());
        return 77;
    }
    mu_gpu_info info;
    GPU(mu_gpu_select(0, &info));
    printf("device: %s, sm_%d%d, %d SMs, %.1f GiB, CUDA %s\n", info.name, info.cc_major,
           info.cc_minor, info.sm_count, info.mem_gib, mu_gpu_versions());
    row("device: %s (%d SMs, %.1f GiB), CUDA runtime/driver %s\n", info.name, info.sm_count,
        info.mem_gib, mu_gpu_versions());
    double bw = bench_copy(reps);
    if (do1) bench_1d(bw, lg.v, lg.n, reps, e2e, cpu, sweep.v, sweep.n);
    if (do2) bench_2d(s2.v, s2.n, reps2d, check, variants);
    printf("\n%s", table);
    printf("%s\n", mismatches ? "RESULT: MISMATCHES (see above)" : "RESULT: all answers checked");
    return mismatches ? 1 : 0;
}
