/* The fuzzy GPU iteration (gpu/fuzzy_gpu.h) against the CPU reference
 * (workloads/fuzzy/fm.c): the same end points to the bit, the same iteration counts
 * and the same converged flags, start by start. Cases: 1 to 13 features (the
 * 2-D kernel and the general one), odd and even set sizes, one and several
 * summation blocks, several ranges in one launch (partitions of different
 * sizes, a range with no starts, a range of starts not at the set's start),
 * more starts than the device holds at once (threads take further starts),
 * and the iteration cap. The device acceptance (mu_gpu_fm_run_accept,
 * mu_gpu_fm_accept) against mu_fm_accept: the same prototypes in the same
 * order, bitwise, after real runs and on chosen candidate lists (chains of
 * near-duplicates at distances just under, at and just over eps2, where a
 * pairwise filter would differ from the rule in start order; duplicates,
 * unconverged and NaN candidates; lists across the kernel's windows). Exit 77
 * (skipped) when no GPU is visible. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mu_test.h"
#include "gpu_test.h"
#include "fuzzy/fm.h"
#include "gpu/fuzzy_gpu.h"
#include "gpu/gpu.h"
#include "core/free.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double uniform(void) {
    return mu_test_uniform(&rng);
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
    MU_FREE(vg, vc, its, conv, st);
}

/* A set run whole, every row a start: n rows of F features, radius r; on the
 * 1/16 grid when grid; a field of the rest left 0 takes the value of most
 * cases: no summation blocks, a cap of 10000 iterations, every start checked
 * on the CPU. */
typedef struct {
    const char *name;
    int64_t n;
    int F;
    double r;
    int grid;
    int64_t block, max_it, stride;
} whole_case;

static void whole(const whole_case *c) {
    const double r = c->r;
    const int64_t n = c->n, max_it = c->max_it ? c->max_it : 10000;
    double *x = malloc((size_t)(n * c->F) * sizeof *x);
    fill(x, n, c->F, c->grid);
    mu_gpu_fm_range g = {0, n, 0, n};
    compare(c->name, x, n, c->F, &g, 1, r * r, (1e-6 / r) * (1e-6 / r), max_it, c->block,
            c->stride ? c->stride : 1);
    free(x);
}

/* The whole-set cases, in this order (their data come from one random stream):
 * the 2-D kernel's base case with one or two things changed, the general
 * kernel from 1 to 32 features, then more starts than the device holds at
 * once (threads take further starts). */
static const whole_case wholes[] = {
    {"2-D, 1001 objects", 1001, 2, .r = 3.0},
    {"2-D, 4000 on a 1/16 grid", 4000, 2, .r = 4.0, .grid = 1},
    {"2-D, 3001, blocks of 256", 3001, 2, .r = 3.0, .block = 256},
    {"2-D, 2048, blocks of 512", 2048, 2, .r = 3.0, .grid = 1, .block = 512},
    {"2-D, capped at 3 iterations", 1500, 2, .r = 3.0, .max_it = 3},
    {"1-D, 777", 777, 1, .r = 5.0},
    {"3-D, 1500", 1500, 3, .r = 1.5},
    {"4-D, 999, blocks of 256", 999, 4, .r = 1.5, .grid = 1, .block = 256},
    {"5-D, 600", 600, 5, .r = 1.0},
    {"13-D, 300", 300, 13, .r = 0.5},
    {"32-D, 200", 200, 32, .r = 0.3},
    {"2-D, 600000, 2 iterations (refill)", 600000, 2, .r = 40.0, .grid = 1, .max_it = 2,
     .stride = 997},
};

/* mu_fm_accept and the device's acceptance of the same list: equal counts,
 * starts and prototype bits. */
static void same_accept(const char *name, mu_gpu_fm *ctx, const double *v, const int *conv,
                        int64_t count, int F, double eps2) {
    size_t room = (size_t)((count ? count : 1) * F);
    double *pc = malloc(room * sizeof *pc), *pg = malloc(room * sizeof *pg);
    int64_t *fc = malloc((size_t)(count ? count : 1) * sizeof *fc);
    int64_t *fg = malloc((size_t)(count ? count : 1) * sizeof *fg);
    mu_fm_stat *st = malloc((size_t)(count ? count : 1) * sizeof *st);
    for (int64_t k = 0; k < count; k++) st[k] = (mu_fm_stat){1, conv[k]};
    int64_t mc = mu_fm_accept(v, st, count, F, eps2, pc, fc), mg = -1;
    int rc = mu_gpu_fm_accept(ctx, v, conv, count, eps2, pg, fg, &mg);
    CHECK(rc == 0, "%s: device acceptance: %s", name, mu_gpu_error());
    int same = !rc && mg == mc && memcmp(fg, fc, (size_t)mc * sizeof *fc) == 0 &&
               memcmp(pg, pc, (size_t)(mc * F) * sizeof *pc) == 0;
    CHECK(same, "%s: device accepts %lld, mu_fm_accept %lld (or other starts or bits)", name,
          (long long)mg, (long long)mc);
    printf("%s: %lld candidates, %lld prototypes: %s\n", name, (long long)count, (long long)mc,
           same ? "same list" : "DIFFER");
    MU_FREE(pc, pg, fc, fg, st);
}

/* Chosen candidate lists in F dimensions (F >= 2). */
static void adversarial(int F) {
    double x0[64] = {0};
    mu_gpu_fm *ctx = NULL;
    CHECK(mu_gpu_fm_create(x0, 1, F, &ctx) == 0, "create %d-D: %s", F, mu_gpu_error());
    if (!ctx) return;
    const int64_t n = 1000; /* several windows of the kernel */
    double *v = calloc((size_t)(n * F), sizeof *v);
    int *conv = malloc((size_t)n * sizeof *conv);
    char name[128];
    /* A chain at exact steps s on the first axis: |x_i - x_i+1|^2 = s^2 exactly.
     * eps2 just under s^2: all fresh; at s^2 (not > eps2) and just over: every
     * other link (a pairwise "no near earlier candidate" filter keeps only the
     * first). Chains restart every 300 (across window boundaries). */
    const double s = 0.125;
    for (int64_t i = 0; i < n; i++) {
        v[i * F] = (double)(i % 300) * s;
        v[i * F + 1] = (double)(i / 300) * 1000.0;
        conv[i] = 1;
    }
    const double e[3] = {nextafter(s * s, 0), s * s, nextafter(s * s, 1)};
    for (int t = 0; t < 3; t++) {
        snprintf(name, sizeof name, "%d-D exact chain, eps2 %s s^2", F,
                 t == 0   ? "just under"
                 : t == 1 ? "at"
                          : "just over");
        same_accept(name, ctx, v, conv, n, F, e[t]);
    }
    /* Chains of steps jittered around sqrt(eps2) by a few ulps in every
     * direction, with duplicates, unconverged and NaN candidates mixed in. */
    const double eps2 = 1e-6, h = sqrt(eps2);
    for (int rep = 0; rep < 4; rep++) {
        double pos[32] = {0};
        for (int64_t i = 0; i < n; i++) {
            double u = uniform();
            if (i > 0 && u < 0.05) { /* an exact duplicate of an earlier candidate */
                int64_t j = (int64_t)(uniform() * (double)i);
                memcpy(v + i * F, v + j * F, (size_t)F * sizeof *v);
            } else {
                int f = (int)(uniform() * F) % F;
                pos[f] += h * (1.0 + (uniform() - 0.5) * 8e-16) / (rep == 3 ? 1.4 : 1.0);
                memcpy(v + i * F, pos, (size_t)F * sizeof *v);
            }
            if (u > 0.995) v[i * F] = NAN;
            conv[i] = uniform() > 0.1;
        }
        snprintf(name, sizeof name, "%d-D jittered chain %d", F, rep);
        same_accept(name, ctx, v, conv, n, F, eps2);
    }
    /* Random points, eps2 = 0 (every distinct converged point) and large. */
    for (int64_t i = 0; i < n * F; i++) v[i] = floor(uniform() * 8.0) / 4.0;
    for (int64_t i = 0; i < n; i++) conv[i] = 1;
    snprintf(name, sizeof name, "%d-D grid points, eps2 0", F);
    same_accept(name, ctx, v, conv, n, F, 0.0);
    snprintf(name, sizeof name, "%d-D grid points, eps2 0.3", F);
    same_accept(name, ctx, v, conv, n, F, 0.3);
    snprintf(name, sizeof name, "%d-D one candidate", F);
    same_accept(name, ctx, v, conv, 1, F, 0.3);
    free(v);
    free(conv);
    mu_gpu_fm_destroy(ctx);
}

/* mu_gpu_fm_run_accept over ranges against the CPU iteration and
 * mu_fm_accept range by range: same counts, starts, prototype bits, stats. */
static void run_accept(const char *name, const double *x, int64_t n, int F,
                       const mu_gpu_fm_range *g, int ng, double r2, double eps1, double eps2) {
    int64_t total = 0;
    for (int i = 0; i < ng; i++) total += g[i].count;
    size_t t1 = (size_t)(total ? total : 1);
    double *pg = malloc(t1 * F * sizeof *pg), *pc = malloc(t1 * F * sizeof *pc);
    double *vc = malloc(t1 * F * sizeof *vc);
    int64_t *fg = malloc(t1 * sizeof *fg), *fc = malloc(t1 * sizeof *fc);
    int64_t *its = malloc(t1 * sizeof *its), *mg = malloc((size_t)ng * sizeof *mg);
    int *conv = malloc(t1 * sizeof *conv);
    mu_fm_stat *st = malloc(t1 * sizeof *st);
    mu_gpu_fm *ctx = NULL;
    int rc = mu_gpu_fm_create(x, n, F, &ctx);
    CHECK(rc == 0, "%s: create: %s", name, mu_gpu_error());
    if (!rc) {
        rc =
            mu_gpu_fm_run_accept(ctx, g, ng, r2, eps1, 10000, 0, eps2, pg, fg, mg, its, conv, NULL);
        CHECK(rc == 0, "%s: run and accept: %s", name, mu_gpu_error());
    }
    if (!rc) {
        int64_t o = 0, out = 0, bad = 0, protos = 0;
        for (int i = 0; i < ng; i++) {
            mu_fm_set set = {x + g[i].row0 * F, g[i].rows, F, r2, eps1, 10000, 0};
            mu_fm_run_cpu(&set, g[i].first, g[i].count, vc + o * F, st + o);
            for (int64_t k = o; k < o + g[i].count; k++)
                bad += its[k] != st[k].iterations || conv[k] != st[k].converged;
            int64_t m = mu_fm_accept(vc + o * F, st + o, g[i].count, F, eps2, pc, fc);
            int same = m == mg[i] && memcmp(fg + out, fc, (size_t)m * sizeof *fc) == 0 &&
                       memcmp(pg + out * F, pc, (size_t)(m * F) * sizeof *pc) == 0;
            CHECK(same, "%s: range %d: device %lld prototypes, CPU %lld (or other bits)", name, i,
                  (long long)mg[i], (long long)m);
            bad += !same;
            protos += m;
            out += mg[i];
            o += g[i].count;
        }
        CHECK(bad == 0, "%s: %lld differences", name, (long long)bad);
        printf("%s: %lld starts, %lld prototypes: %s\n", name, (long long)total, (long long)protos,
               bad ? "DIFFER" : "same lists");
    }
    mu_gpu_fm_destroy(ctx);
    MU_FREE(pg, pc, vc, fg, fc, its, mg, conv, st);
}

int main(int argc, char **argv) {
    mu_gpu_info info;
    gpu_test_begin(&argc, &argv, &info);
    for (size_t i = 0; i < sizeof wholes / sizeof *wholes; i++) whole(&wholes[i]);
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
    /* Acceptance on the device. */
    adversarial(2);
    adversarial(3);
    adversarial(7);
    {
        int64_t n = 5003;
        double *x = malloc((size_t)(n * 2) * sizeof *x);
        fill(x, n, 2, 1);
        mu_gpu_fm_range g[5] = {{0, 1251, 0, 1251},
                                {1251, 1251, 0, 1251},
                                {2502, 1250, 0, 0},
                                {2502, 2501, 0, 2501},
                                {0, 5003, 4000, 1003}};
        run_accept("2-D run+accept, five ranges", x, n, 2, g, 5, 9.0, 1e-12, 1e-6);
        run_accept("2-D run+accept, eps2 0", x, n, 2, g, 5, 9.0, 1e-12, 0.0);
        run_accept("2-D run+accept, eps2 0.05", x, n, 2, g, 5, 9.0, 1e-12, 0.05);
        free(x);
        double *y = malloc((size_t)(n * 4) * sizeof *y);
        fill(y, n, 4, 0);
        mu_gpu_fm_range q[2] = {{0, 2500, 0, 2500}, {2500, 2503, 0, 2503}};
        run_accept("4-D run+accept, two ranges", y, n, 4, q, 2, 2.0, 1e-12, 1e-4);
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
    return gpu_test_end("test_gpu_fuzzy");
}
