/* GPU maxsub kernels against the CPU reference, on seeded random inputs.
 * 1-D: the full summary (sums and every index) of mu_gpu_mss1d_device (also on
 * unaligned device pointers) and of mu_gpu_mss1d_host (the stream pipeline)
 * equals mu_mss_scan over the same data. 2-D: (best, pair id) of
 * mu_gpu_mss2d_run equals mu_mss2d_cpu_tiles over all tiles and sub-ranges.
 * Exit 77 (skipped) when no GPU is visible. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu/gpu.h"
#include "gpu/maxsub_gpu.h"
#include "maxsub/strip2d.h"
#ifdef MUTIRAO_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif
#include "mu_test.h"

static uint64_t xs_state = 0x9E3779B97F4A7C15ull;
static void xs_seed(uint64_t s) {
    xs_state = s * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
}
static uint64_t xs(void) {
    return mu_test_u64(&xs_state);
}
/* Uniform in [lo, hi], any int32 bounds. */
static int32_t rnd(int64_t lo, int64_t hi) {
    uint64_t span = (uint64_t)(hi - lo) + 1;
    return (int32_t)(lo + (int64_t)(xs() % span));
}

#include "gpu_test.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void print_summary(const char *tag, const mu_mss_summary *s) {
    printf("  %s: lo %lld hi %lld sum %lld pre %lld@%lld suf %lld@%lld best %lld [%lld, %lld]\n",
           tag, (long long)s->lo, (long long)s->hi, (long long)s->sum, (long long)s->pre,
           (long long)s->pre_end, (long long)s->suf, (long long)s->suf_start, (long long)s->best,
           (long long)s->best_start, (long long)s->best_end);
}

/* ---- data ---- */

enum kind {
    K_SMALL, /* [-3, 3]: many ties */
    K_MID,   /* [-1000, 1000] */
    K_NEG,   /* all negative [-9, -1] */
    K_ZERO,  /* all zero */
    K_CONST, /* all equal positive */
    K_FULL,  /* the whole int32 range: the int64 path */
    K_MIXED, /* mostly [-3, 3], now and then +-2e9: fast and int64 rounds side by side */
    K_EDGE,  /* the bounds of the int32 fast path and just past them */
    K_WALK,  /* long positive and negative stretches: sums that cross pieces and tiles */
    K_NKINDS
};
static const char *kind_name[] = {"small", "mid",   "neg",  "zero", "const",
                                  "full",  "mixed", "edge", "walk"};

static void fill(int32_t *x, int64_t n, int kind) {
    int32_t sign = 1;
    for (int64_t i = 0; i < n; i++) {
        switch (kind) {
        case K_SMALL:
            x[i] = rnd(-3, 3);
            break;
        case K_MID:
            x[i] = rnd(-1000, 1000);
            break;
        case K_NEG:
            x[i] = rnd(-9, -1);
            break;
        case K_ZERO:
            x[i] = 0;
            break;
        case K_CONST:
            x[i] = 2;
            break;
        case K_FULL:
            x[i] = rnd(INT32_MIN, INT32_MAX);
            break;
        case K_MIXED:
            x[i] = xs() % 3000 == 0 ? rnd(-2000000000, 2000000000) : rnd(-3, 3);
            break;
        case K_EDGE: {
            static const int32_t e[] = {-32768, 32767, -32769, 32768, 0, -1, 1, 32766, -32767};
            x[i] = xs() % 50 == 0 ? e[xs() % 9] : (xs() & 1 ? 32767 : -32768);
            break;
        }
        case K_WALK:
            if (xs() % 500 == 0) sign = -sign;
            x[i] = sign * rnd(0, 20) - sign * (int32_t)(xs() % 4 == 0) * 25;
            break;
        }
    }
}

/* ---- 1-D ---- */

#ifdef MUTIRAO_HAVE_CUDA
static int32_t *dev_buf;
static int64_t dev_cap;

static int ensure_dev(int64_t n) {
    if (n + 4 <= dev_cap) return 0;
    if (dev_buf) cudaFree(dev_buf);
    dev_buf = NULL;
    dev_cap = 0;
    if (cudaMalloc((void **)&dev_buf, (size_t)(n + 4) * sizeof(int32_t)) != cudaSuccess) return 1;
    dev_cap = n + 4;
    return 0;
}
#endif

static void test1d_case(const int32_t *x, int64_t n, int64_t base, int empty, const char *what,
                        int shifts) {
    mu_mss_summary ref = mu_mss_scan_array(x, n, base, empty);
    mu_mss_summary got;
#ifdef MUTIRAO_HAVE_CUDA
    CHECK(ensure_dev(n) == 0, "cudaMalloc of %lld ints", (long long)n);
    for (int sh = 0; sh <= shifts && dev_buf; sh++) {
        if (n > 0)
            CHECK(cudaMemcpy(dev_buf + sh, x, (size_t)n * sizeof(int32_t),
                             cudaMemcpyHostToDevice) == cudaSuccess,
                  "cudaMemcpy");
        memset(&got, 0x5a, sizeof got);
        int rc = mu_gpu_mss1d_device(dev_buf + sh, n, base, empty, &got, NULL);
        CHECK(rc == 0, "device %s n=%lld: %s", what, (long long)n, mu_gpu_error());
        if (rc == 0 && !mu_mss_same(&got, &ref)) {
            CHECK(0, "device %s n=%lld base=%lld empty=%d shift=%d differs", what, (long long)n,
                  (long long)base, empty, sh);
            if (mu_failures <= 30) {
                print_summary("cpu", &ref);
                print_summary("gpu", &got);
            }
        }
    }
#else
    (void)shifts;
#endif
    memset(&got, 0x5a, sizeof got);
    int rc = mu_gpu_mss1d_host(x, n, base, empty, &got);
    CHECK(rc == 0, "host %s n=%lld: %s", what, (long long)n, mu_gpu_error());
    if (rc == 0 && !mu_mss_same(&got, &ref)) {
        CHECK(0, "host pipeline %s n=%lld base=%lld empty=%d differs", what, (long long)n,
              (long long)base, empty);
        if (mu_failures <= 30) {
            print_summary("cpu", &ref);
            print_summary("gpu", &got);
        }
    }
}

static void test1d(void) {
    static const int64_t sizes[] = {
        1,    2,     3,     4,     5,          7,          31,          32,         33,
        35,   63,    64,    65,    100,        255,        256,         257,        1000,
        1023, 1024,  1025,  1056,  4095,       4096,       4097,        8191,       8192,
        8193, 16384, 16417, 65535, 65536 + 33, 131072 + 5, 262144 + 17, 524288 - 1, 1000003};
    const int ns = (int)(sizeof sizes / sizeof sizes[0]);
    int32_t *x = malloc(sizeof(int32_t) * 20971523);
    if (!x) {
        CHECK(0, "out of memory");
        return;
    }
    double t0 = now();
    long c0 = mu_checks;
    for (int si = 0; si < ns; si++)
        for (int k = 0; k < K_NKINDS; k++)
            for (int empty = 0; empty <= 1; empty++) {
                int64_t n = sizes[si];
                xs_seed((uint64_t)(si * 131 + k * 7 + empty + 1));
                fill(x, n, k);
                int64_t base = (si + k) % 3 == 0 ? 0 : ((si + k) % 3 == 1 ? 17 : 1000000000000LL);
                char what[64];
                snprintf(what, sizeof what, "%s", kind_name[k]);
                test1d_case(x, n, base, empty, what, n < 100000 ? 3 : 1);
            }
    /* Large inputs: many blocks; 2, 3 and 6 pipeline chunks of 4 Mi (slots reused). */
    static const int64_t big[] = {4194304 + 1, 10000019, 20971523};
    static const int bigkind[] = {K_MID, K_SMALL, K_MIXED, K_WALK, K_FULL};
    for (int bi = 0; bi < 3; bi++)
        for (int k = 0; k < (bi == 2 ? 2 : 5); k++)
            for (int empty = 0; empty <= 1; empty++) {
                xs_seed((uint64_t)(1000 + bi * 10 + k * 2 + empty));
                fill(x, big[bi], bigkind[k]);
                test1d_case(x, big[bi], bi ? 5 : 0, empty, kind_name[bigkind[k]], 1);
            }
    /* n = 0: the identity of the CPU scan. */
    test1d_case(x, 0, 42, 0, "empty", 0);
    test1d_case(x, 0, 42, 1, "empty", 0);
    printf("1-D: %ld checks in %.1f s\n", mu_checks - c0, now() - t0);
    free(x);
}

/* ---- 2-D ---- */

static void fill2d(int32_t *k, int64_t n, int kind) {
    for (int64_t i = 0; i < n; i++) {
        switch (kind) {
        case 0:
            k[i] = rnd(-3, 3);
            break;
        case 1:
            k[i] = rnd(-1000, 1000);
            break;
        case 2:
            k[i] = rnd(-9, -1);
            break;
        case 3:
            k[i] = 0;
            break;
        case 4:
            k[i] = rnd(-1, 2);
            break;
        case 5:
            k[i] = rnd(-(1 << 29), 1 << 29);
            break; /* B >= 2^30: int64 from the start */
        case 6:
            k[i] = rnd(-(1 << 25), 1 << 27);
            break; /* B < 2^30 but bests overflow int32 */
        default:
            k[i] = 1;
            break;
        }
    }
}
static const char *kind2_name[] = {"small",  "mid",  "neg",          "zero",
                                   "skewed", "huge", "near-overflow"};

/* Global prefix columns lo .. lo + w of every row (the distributed path's block). */
static int64_t *block_prefix(const int64_t *V, int64_t rows, int64_t cols, int64_t lo, int64_t w) {
    int64_t *b = malloc(sizeof(int64_t) * (size_t)rows * (size_t)(w + 1));
    for (int64_t i = 0; b && i < rows; i++)
        memcpy(b + i * (w + 1), V + i * (cols + 1) + lo, sizeof(int64_t) * (size_t)(w + 1));
    return b;
}

/* One block pair on the device against the CPU: best over all tiles and over
 * halves, summaries over a few tiles. */
static void block_pair_case(mu_gpu_mss2d *ctx, const mu_mss2d_block *G, const mu_mss2d_block *H,
                            int sg, int sh, int diag, int64_t rows, int64_t cols) {
    enum { T = MU_MSS_TILE };
    const int64_t nt = mu_mss2d_block_tile_count(G->w, H->w, diag);
    for (int empty = 0; empty <= 1; empty++) {
        int64_t cuts[3][2] = {{0, nt}, {0, nt / 2}, {nt / 2, nt}};
        for (int r = 0; r < 3; r++) {
            int64_t rb, rp, gb = 5, gp = 5;
            mu_mss2d_block_best(G, H, rows, cols, diag, cuts[r][0], cuts[r][1], empty, &rb, &rp);
            int e = mu_gpu_mss2d_block_best(ctx, sg, sh, cols, diag, cuts[r][0], cuts[r][1], empty,
                                            &gb, &gp);
            CHECK(e == 0 && gb == rb && gp == rp,
                  "block pair %lldx(%lld,%lld) diag=%d empty=%d [%lld,%lld): gpu %lld id %lld, "
                  "cpu %lld id %lld (%s)",
                  (long long)rows, (long long)G->w, (long long)H->w, diag, empty,
                  (long long)cuts[r][0], (long long)cuts[r][1], (long long)gb, (long long)gp,
                  (long long)rb, (long long)rp, e ? mu_gpu_error() : "");
        }
        const int64_t t0 = nt > 1 ? (int64_t)(xs() % (uint64_t)nt) : 0;
        const int64_t t1 = t0 + 4 < nt ? t0 + 4 : nt;
        const size_t n = (size_t)(t1 - t0) * T * T;
        mu_mss2d_sum *cs = malloc(n * sizeof *cs), *gs = malloc(n * sizeof *gs);
        if (!cs || !gs) {
            free(cs);
            free(gs);
            continue;
        }
        memset(gs, 0x5a, n * sizeof *gs);
        mu_mss2d_block_sums(G, H, rows, diag, t0, t1, empty, cs);
        int e = mu_gpu_mss2d_block_sums(ctx, sg, sh, diag, t0, t1, empty, gs);
        CHECK(e == 0 && !memcmp(cs, gs, n * sizeof *cs),
              "block sums %lldx(%lld,%lld) diag=%d empty=%d tiles [%lld,%lld) differ (%s)",
              (long long)rows, (long long)G->w, (long long)H->w, diag, empty, (long long)t0,
              (long long)t1, e ? mu_gpu_error() : "");
        free(cs);
        free(gs);
    }
}

/* The matrix cut in two column blocks loaded in the two slots (and the
 * visitor slot reloaded with a block of another width, as the ring does). */
static void test2d_blocks(const int32_t *k, const int64_t *V, int64_t rows, int64_t cols) {
    if (cols < 2) return;
    const int64_t cut = 1 + (int64_t)(xs() % (uint64_t)(cols - 1));
    int64_t B = 0;
    for (int64_t i = 0; i < rows; i++) {
        int64_t a = 0;
        for (int64_t j = 0; j < cols; j++)
            a += k[i * cols + j] < 0 ? -(int64_t)k[i * cols + j] : k[i * cols + j];
        if (a > B) B = a;
    }
    int64_t *b0 = block_prefix(V, rows, cols, 0, cut),
            *b1 = block_prefix(V, rows, cols, cut, cols - cut);
    mu_gpu_mss2d *ctx = NULL;
    const int64_t wmax = cut > cols - cut ? cut : cols - cut;
    int rc = !b0 || !b1 || mu_gpu_mss2d_open(rows, wmax, &ctx) ||
             mu_gpu_mss2d_load(ctx, 0, b0, 0, cut, B) ||
             mu_gpu_mss2d_load(ctx, 1, b1, cut, cols - cut, B);
    CHECK(rc == 0, "blocks of %lldx%lld: %s", (long long)rows, (long long)cols, mu_gpu_error());
    if (!rc) {
        mu_mss2d_block G = {b0, 0, cut}, H = {b1, cut, cols - cut};
        block_pair_case(ctx, &G, &G, 0, 0, 1, rows, cols);
        block_pair_case(ctx, &G, &H, 0, 1, 0, rows, cols);
        block_pair_case(ctx, &H, &H, 1, 1, 1, rows, cols);
        /* The own block second: the visitor (slot 1) holds the lower columns. */
        rc = mu_gpu_mss2d_load(ctx, 0, b1, cut, cols - cut, B) ||
             mu_gpu_mss2d_load(ctx, 1, b0, 0, cut, B);
        CHECK(rc == 0, "reload: %s", mu_gpu_error());
        if (!rc) block_pair_case(ctx, &G, &H, 1, 0, 0, rows, cols);
    }
    mu_gpu_mss2d_destroy(ctx);
    free(b0);
    free(b1);
}

static void test2d_case(const int32_t *k, int64_t rows, int64_t cols, int kind) {
    int64_t *V = malloc(sizeof(int64_t) * (size_t)rows * (size_t)(cols + 1));
    if (!V) {
        CHECK(0, "out of memory");
        return;
    }
    mu_mss2d_prefix(k, rows, cols, V);
    mu_gpu_mss2d *ctx = NULL;
    int rc = mu_gpu_mss2d_create(k, rows, cols, &ctx);
    CHECK(rc == 0, "create %lldx%lld: %s", (long long)rows, (long long)cols, mu_gpu_error());
    if (rc) {
        free(V);
        return;
    }
    const int64_t nt = mu_mss_tile_count(cols);
    for (int empty = 0; empty <= 1; empty++) {
        int64_t ranges[6][2] = {{0, nt}, {0, 0}, {nt - 1, nt}, {0, 1}, {0, 0}, {0, 0}};
        int nr = 4;
        for (int r = 0; r < 2; r++) {
            int64_t a = (int64_t)(xs() % (uint64_t)(nt + 1)),
                    b = (int64_t)(xs() % (uint64_t)(nt + 1));
            if (a > b) {
                int64_t t = a;
                a = b;
                b = t;
            }
            ranges[nr][0] = a;
            ranges[nr][1] = b;
            nr++;
        }
        for (int r = 0; r < nr; r++) {
            int64_t rb, rp, gb = 12345, gp = 12345;
            mu_mss2d_cpu_tiles(V, rows, cols, ranges[r][0], ranges[r][1], empty, &rb, &rp);
            int e = mu_gpu_mss2d_run(ctx, ranges[r][0], ranges[r][1], empty, &gb, &gp);
            CHECK(e == 0, "run: %s", mu_gpu_error());
            CHECK(e != 0 || (gb == rb && gp == rp),
                  "2-D %s %lldx%lld empty=%d tiles [%lld,%lld): gpu %lld id %lld, cpu %lld id %lld",
                  kind2_name[kind], (long long)rows, (long long)cols, empty,
                  (long long)ranges[r][0], (long long)ranges[r][1], (long long)gb, (long long)gp,
                  (long long)rb, (long long)rp);
        }
    }
    /* Per tile (what the task farm calls): every tile of a range against the CPU. */
    for (int empty = 0; empty <= 1; empty++) {
        int64_t a = (int64_t)(xs() % (uint64_t)nt), b = nt;
        if (nt > 40) {
            const int64_t e = a + 1 + (int64_t)(xs() % 40);
            b = e < nt ? e : nt;
        }
        int64_t *res = malloc(sizeof(int64_t) * 2 * (size_t)(b - a));
        if (!res) continue;
        for (int64_t t = 0; t < 2 * (b - a); t++) res[t] = 777;
        int e = mu_gpu_mss2d_run_tiles(ctx, a, b, empty, res);
        CHECK(e == 0, "run_tiles: %s", mu_gpu_error());
        for (int64_t t = a; t < b && e == 0; t++) {
            int64_t rb, rp;
            mu_mss2d_cpu_tiles(V, rows, cols, t, t + 1, empty, &rb, &rp);
            CHECK(res[2 * (t - a)] == rb && res[2 * (t - a) + 1] == rp,
                  "run_tiles %s %lldx%lld empty=%d tile %lld: gpu %lld id %lld, cpu %lld id %lld",
                  kind2_name[kind], (long long)rows, (long long)cols, empty, (long long)t,
                  (long long)res[2 * (t - a)], (long long)res[2 * (t - a) + 1], (long long)rb,
                  (long long)rp);
        }
        free(res);
    }
    /* Out-of-range tiles are refused with a message. */
    int64_t gb, gp;
    int e = mu_gpu_mss2d_run(ctx, 0, nt + 1, 1, &gb, &gp);
    CHECK(e != 0 && mu_gpu_error()[0] != '\0', "tiles past the end accepted");
    mu_gpu_mss2d_destroy(ctx);
    test2d_blocks(k, V, rows, cols);
    free(V);
}

static void test2d(void) {
    static const int64_t shapes[][2] = {{1, 1},     {1, 2},     {2, 1},     {1, 64},   {1, 65},
                                        {3, 7},     {5, 64},    {7, 63},    {64, 64},  {65, 65},
                                        {10, 130},  {33, 128},  {100, 129}, {31, 200}, {200, 200},
                                        {257, 191}, {700, 300}, {300, 700}, {45, 33}};
    const int nshapes = (int)(sizeof shapes / sizeof shapes[0]);
    double t0 = now();
    long c0 = mu_checks;
    int32_t *k = malloc(sizeof(int32_t) * 700 * 700);
    if (!k) {
        CHECK(0, "out of memory");
        return;
    }
    for (int s = 0; s < nshapes; s++) {
        const int64_t rows = shapes[s][0], cols = shapes[s][1];
        const int big = rows * cols > 100000;
        for (int kind = 0; kind <= 4; kind++) {
            if (big && (kind == 2 || kind == 3)) continue;
            xs_seed((uint64_t)(5000 + s * 16 + kind));
            fill2d(k, rows * cols, kind);
            test2d_case(k, rows, cols, kind);
        }
    }
    /* The int64 kernel: from the start (B >= 2^30), and after a failed int32 check. */
    static const int64_t wide[][2] = {{50, 70}, {130, 90}, {3, 200}};
    for (int s = 0; s < 3; s++) {
        xs_seed((uint64_t)(7000 + s));
        fill2d(k, wide[s][0] * wide[s][1], 5);
        test2d_case(k, wide[s][0], wide[s][1], 5);
    }
    static const int64_t narrow[][2] = {{40, 7}, {300, 5}, {64, 7}};
    for (int s = 0; s < 3; s++) {
        xs_seed((uint64_t)(8000 + s));
        fill2d(k, narrow[s][0] * narrow[s][1], 6);
        test2d_case(k, narrow[s][0], narrow[s][1], 6);
    }
    printf("2-D: %ld checks in %.1f s\n", mu_checks - c0, now() - t0);
    free(k);
}

int main(int argc, char **argv) {
    mu_gpu_info info;
    gpu_test_begin(&argc, &argv, &info);
    /* --only=1d or --only=2d runs one half (for sweeps over the tuning variables). */
    int do1 = 1, do2 = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--only=1d"))
            do2 = 0;
        else if (!strcmp(argv[i], "--only=2d"))
            do1 = 0;
    }
    if (do1) test1d();
    if (do2) test2d();
#ifdef MUTIRAO_HAVE_CUDA
    if (dev_buf) cudaFree(dev_buf);
#endif
    return gpu_test_end("test_gpu_maxsub");
}
