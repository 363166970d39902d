/* The fuzzy GPU iteration (gpu/fuzzy_gpu.h) against the CPU reference
 * (src/fuzzy/fm.c): the same end points to the bit, the same iteration counts
 * and the same converged flags, start by start. Cases: 1 to 13 features (the
 * 2-D kernel and the general one), odd and even set sizes, one and several
 * summation blocks, several ranges in one launch (partitions of different
 * sizes, a range with no starts, a range of starts not at the set's start),
 * more starts than the device holds at once (threads take further starts),
 * and the iteration cap. Exit 77 (skipped) when no GPU is visible. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fuzzy/fm.h"
#include "gpu/fuzzy_gpu.h"
#include "gpu/gpu.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double uniform(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1.0p-53;
}

/* Gaussian-ish clusters (sum of uniforms) around a few centres, rounded to
 * 1/16 when `grid` (ties and duplicates, as integer data have). */
static void fill(double *x, int64_t n, int F, int grid) {
    double centre[4][16];
    for (int c = 0; c < 4; c++)
        for (int f = 0; f < F && f < 16; f++) centre[c][f] = 10.0 * uniform();
    for (int64_t i = 0; i < n; i++) {
        int c = (int)(uniform() * 4) % 4;
        for (int f = 0; f < F; f++) {
            double g = uniform() + uniform() + uniform() - 1.5;
            double v = centre[c][f % 16] + g;
            x[i * F + f] = grid ? floor(v * 16.0) / 16.0 : v;
        }
    }
}

/* Runs the ranges on the device and each on the CPU; compares start by start. */
static void compare(const char *name, const double *x, int64_t n, int F, const mu_gpu_fm_range *g,
                    int ng, double r2, double eps1, int64_t max_it, int64_t block, int64_t stride) {
    int64_t total = 0;
    for (int i = 0; i < ng; i++) total += g[i].count;
    double *vg = malloc((size_t)((total ? total : 1) * F) * sizeof *vg);
    double *vc = malloc((size_t)((total ? total : 1) * F) * sizeof *vc);
    int64_t *its = malloc((size_t)(total ? total : 1) * sizeof *its);
    int *conv = malloc((size_t)(total ? total : 1) * sizeof *conv);
    mu_fm_stat *st = malloc((size_t)(total ? total : 1) * sizeof *st);
    mu_gpu_fm *ctx = NULL;
    int rc = mu_gpu_fm_create(x, n, F, &ctx);
    CHECK(rc == 0, "%s: create: %s", name, mu_gpu_error());
    if (!rc) {
        float ms = 0;
        rc = mu_gpu_fm_run(ctx, g, ng, r2, eps1, max_it, block, vg, its, conv, &ms);
        CHECK(rc == 0, "%s: run: %s", name, mu_gpu_error());
    }
    if (!rc) {
        int64_t o = 0, bad = 0, it_sum = 0, unconv = 0;
        for (int i = 0; i < ng; i++) {
            mu_fm_set set = {x + g[i].row0 * F, g[i].rows, F, r2, eps1, max_it, block};
            /* The CPU runs every stride-th start (all when stride is 1). */
            for (int64_t k = 0; k < g[i].count; k += stride)
                mu_fm_run_cpu(&set, g[i].first + k, 1, vc + (o + k) * F, st + o + k);
            for (int64_t k = o; k < o + g[i].count; k += stride) {
                int same = memcmp(vg + k * F, vc + k * F, (size_t)F * sizeof *vg) == 0 &&
                           its[k] == st[k].iterations && conv[k] == st[k].converged;
                if (!same && bad++ < 3)
                    CHECK(0,
                          "%s: range %d start %lld: GPU (%.17g, ...) %lld it conv %d, CPU "
                          "(%.17g, ...) %lld it conv %d",
                          name, i, (long long)(k - o), vg[k * F], (long long)its[k], conv[k],
                          vc[k * F], (long long)st[k].iterations, st[k].converged);
                it_sum += st[k].iterations;
                unconv += !st[k].converged;
            }
            o += g[i].count;
        }
        CHECK(bad == 0, "%s: %lld of %lld starts differ", name, (long long)bad, (long long)total);
        printf("%s: %lld starts (CPU: every %lld), %lld iterations, %lld capped: %s\n", name,
               (long long)total, (long long)stride, (long long)it_sum, (long long)unconv,
               bad ? "DIFFER" : "bitwise equal");
    }
    mu_gpu_fm_destroy(ctx);
    free(vg);
    free(vc);
    free(its);
    free(conv);
    free(st);
}

static void whole(const char *name, int64_t n, int F, int grid, double r, int64_t block,
                  int64_t max_it, int64_t stride) {
    double *x = malloc((size_t)(n * F) * sizeof *x);
    fill(x, n, F, grid);
    mu_gpu_fm_range g = {0, n, 0, n};
    compare(name, x, n, F, &g, 1, r * r, (1e-6 / r) * (1e-6 / r), max_it, block, stride);
    free(x);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int ndev = mu_gpu_device_count();
    if (!mu_gpu_built() || ndev == 0) {
        printf("SKIP: no GPU (%s)\n", mu_gpu_built() ? mu_gpu_error() : "built without CUDA");
        MPI_Finalize();
        return 77;
    }
    mu_gpu_info info;
    if (mu_gpu_select(0, &info)) {
        printf("FAIL: select device 0: %s\n", mu_gpu_error());
        MPI_Finalize();
        return 1;
    }
    printf("device 0: %s (sm_%d%d, %d SMs)\n", info.name, info.cc_major, info.cc_minor,
           info.sm_count);
    whole("2-D, 1001 objects", 1001, 2, 0, 3.0, 0, 10000, 1);
    whole("2-D, 4000 on a 1/16 grid", 4000, 2, 1, 4.0, 0, 10000, 1);
    whole("2-D, 3001, blocks of 256", 3001, 2, 0, 3.0, 256, 10000, 1);
    whole("2-D, 2048, blocks of 512", 2048, 2, 1, 3.0, 512, 10000, 1);
    whole("2-D, capped at 3 iterations", 1500, 2, 0, 3.0, 0, 3, 1);
    whole("1-D, 777", 777, 1, 0, 5.0, 0, 10000, 1);
    whole("3-D, 1500", 1500, 3, 0, 1.5, 0, 10000, 1);
    whole("4-D, 999, blocks of 256", 999, 4, 1, 1.5, 256, 10000, 1);
    whole("5-D, 600", 600, 5, 0, 1.0, 0, 10000, 1);
    whole("13-D, 300", 300, 13, 0, 0.5, 0, 10000, 1);
    whole("32-D, 200", 200, 32, 0, 0.3, 0, 10000, 1);
    /* More starts than the device holds at once: threads take further starts. */
    whole("2-D, 600000, 2 iterations (refill)", 600000, 2, 1, 40.0, 0, 2, 997);
    {
        /* Partitions of one rank in one launch, as the partitioned mode runs them. */
        int64_t n = 5003;
        double *x = malloc((size_t)(n * 2) * sizeof *x);
        fill(x, n, 2, 0);
        mu_gpu_fm_range g[6] = {{0, 1251, 0, 1251},    {1251, 1251, 0, 1251},
                                {2502, 1250, 0, 1250}, {3752, 1251, 0, 1251},
                                {0, 5003, 100, 0},     {0, 5003, 4000, 1003}};
        compare("2-D, six ranges in one launch", x, n, 2, g, 6, 9.0, 1e-12, 10000, 0, 1);
        mu_gpu_fm_range h[3] = {{0, 2000, 0, 2000}, {2000, 1003, 3, 1000}, {3003, 2000, 0, 17}};
        compare("2-D, ranges with blocks of 256", x, n, 2, h, 3, 9.0, 1e-12, 10000, 256, 1);
        free(x);
        double *y = malloc((size_t)(n * 3) * sizeof *y);
        fill(y, n, 3, 1);
        mu_gpu_fm_range q[2] = {{0, 2500, 0, 2500}, {2500, 2503, 0, 2503}};
        compare("3-D, two ranges", y, n, 3, q, 2, 2.0, 1e-12, 10000, 0, 1);
        free(y);
    }
    /* Bad arguments are refused with a message. */
    {
        double x[8] = {0, 1, 2, 3, 4, 5, 6, 7};
        mu_gpu_fm *ctx = NULL;
        CHECK(mu_gpu_fm_create(x, 4, 33, &ctx) != 0 && !ctx, "33 features accepted");
        CHECK(mu_gpu_fm_create(x, 4, 2, &ctx) == 0, "create: %s", mu_gpu_error());
        double v[8];
        int64_t it[4];
        int cv[4];
        mu_gpu_fm_range bad = {2, 4, 0, 1};
        CHECK(mu_gpu_fm_run(ctx, &bad, 1, 1, 1e-12, 10, 0, v, it, cv, NULL) != 0,
              "a range past the rows accepted");
        mu_gpu_fm_range ok = {0, 4, 0, 4};
        CHECK(mu_gpu_fm_run(ctx, &ok, 1, 1, 1e-12, 10, 100, v, it, cv, NULL) != 0,
              "a summation block of 100 rows accepted");
        mu_gpu_fm_destroy(ctx);
    }
    printf("%s: %ld checks, %ld failed\n", failures ? "FAIL" : "PASS", checks, failures);
    MPI_Finalize();
    return failures ? 1 : 0;
}
