/* The fast form of the fuzzy GPU iteration (mu_gpu_fm_set_fast, --arith=fast):
 *  - layout independence: the starts of a range in one launch, in three
 *    launches of parts of it, and with other ranges beside them give the same
 *    end points, iteration counts and flags, bit for bit (each start's sums
 *    are split the same way whatever the launch);
 *  - against the bitwise form (itself the CPU's bits): every end point within
 *    1e-4/r, converged flags the same, iteration counts within 2 on at least
 *    99 % of the starts; 2-D (its own kernel) and 3-D and 5-D (the general one);
 *  - back to the bitwise form after set_fast(0): the bitwise bits again;
 *  - ranges sharing only part of their rows are refused (each range is moved
 *    to its own centre).
 * Exit 77 (skipped) when no GPU is visible. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mu_test.h"
#include "gpu_test.h"
#include "gpu/fuzzy_gpu.h"
#include "gpu/gpu.h"

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static double uniform(void) {
    return mu_test_uniform(&rng);
}

/* Clusters around four centres far from the origin (the centring matters). */
static double *clusters(int64_t n, int F) {
    double *x = malloc((size_t)(n * F) * sizeof *x), centre[4][8];
    for (int c = 0; c < 4; c++)
        for (int f = 0; f < F; f++) centre[c][f] = 1000.0 + 10.0 * uniform();
    for (int64_t i = 0; i < n; i++) {
        int c = (int)(uniform() * 4) % 4;
        for (int f = 0; f < F; f++)
            x[i * F + f] = centre[c][f] + uniform() + uniform() + uniform() - 1.5;
    }
    return x;
}

typedef struct {
    double *v;
    int64_t *its;
    int *conv;
} ends;

static ends run(mu_gpu_fm *ctx, const mu_gpu_fm_range *g, int ng, int64_t total, int F, double r2,
                double eps1) {
    ends e = {malloc((size_t)(total * F) * sizeof(double)), malloc((size_t)total * 8),
              malloc((size_t)total * sizeof(int))};
    CHECK(mu_gpu_fm_run(ctx, g, ng, r2, eps1, 10000, 0, e.v, e.its, e.conv, NULL) == 0, "run: %s",
          mu_gpu_error());
    return e;
}

static void ends_free(ends *e) {
    free(e->v);
    free(e->its);
    free(e->conv);
}

static int same(const ends *a, int64_t ia, const ends *b, int64_t ib, int64_t count, int F) {
    return !memcmp(a->v + ia * F, b->v + ib * F, (size_t)(count * F) * sizeof(double)) &&
           !memcmp(a->its + ia, b->its + ib, (size_t)count * 8) &&
           !memcmp(a->conv + ia, b->conv + ib, (size_t)count * sizeof(int));
}

static void case_f(int F, int64_t n, double r) {
    double *x = clusters(n, F), r2 = r * r, eps1 = (1e-6 / r) * (1e-6 / r);
    mu_gpu_fm *ctx = NULL;
    CHECK(mu_gpu_fm_create(x, n, F, &ctx) == 0, "create: %s", mu_gpu_error());
    if (!ctx) return;
    mu_gpu_fm_range whole = {0, n, 0, n};
    ends bit = run(ctx, &whole, 1, n, F, r2, eps1);
    CHECK(mu_gpu_fm_set_fast(ctx, 1) == 0, "set_fast: %s", mu_gpu_error());
    ends fast = run(ctx, &whole, 1, n, F, r2, eps1);
    /* The same starts in three launches, and beside another range. */
    int64_t a = n / 3, b = 2 * n / 3;
    mu_gpu_fm_range p1 = {0, n, 0, a}, p2 = {0, n, a, b - a}, p3 = {0, n, b, n - b};
    ends e1 = run(ctx, &p1, 1, a, F, r2, eps1), e2 = run(ctx, &p2, 1, b - a, F, r2, eps1);
    ends e3 = run(ctx, &p3, 1, n - b, F, r2, eps1);
    CHECK(same(&fast, 0, &e1, 0, a, F) && same(&fast, a, &e2, 0, b - a, F) &&
              same(&fast, b, &e3, 0, n - b, F),
          "%d-D: the fast form differs between one launch and three", F);
    mu_gpu_fm_range two[2] = {{0, n, a, b - a}, {0, n, 0, a}};
    ends e4 = run(ctx, two, 2, b, F, r2, eps1);
    CHECK(same(&fast, a, &e4, 0, b - a, F) && same(&fast, 0, &e4, b - a, a, F),
          "%d-D: the fast form differs with two ranges in a launch", F);
    /* Against the bitwise form. */
    double worst = 0;
    int64_t flags = 0, far_its = 0;
    for (int64_t k = 0; k < n; k++) {
        for (int f = 0; f < F; f++) worst = fmax(worst, fabs(fast.v[k * F + f] - bit.v[k * F + f]));
        flags += fast.conv[k] != bit.conv[k];
        far_its += llabs((long long)(fast.its[k] - bit.its[k])) > 2;
    }
    printf("%d-D, n %lld: fast against bitwise: end points within %.3g (1/r = %.3g), %lld flags "
           "differ, %lld iteration counts differ by more than 2\n",
           F, (long long)n, worst, 1 / r, (long long)flags, (long long)far_its);
    CHECK(worst <= 1e-4 / r, "%d-D: end points %.3g apart, limit %.3g", F, worst, 1e-4 / r);
    CHECK(flags == 0, "%d-D: %lld converged flags differ", F, (long long)flags);
    CHECK(far_its <= n / 100, "%d-D: %lld iteration counts differ by more than 2", F,
          (long long)far_its);
    CHECK(mu_gpu_fm_set_fast(ctx, 0) == 0, "set_fast(0)");
    ends back = run(ctx, &whole, 1, n, F, r2, eps1);
    CHECK(same(&bit, 0, &back, 0, n, F), "%d-D: the bitwise form changed after the fast one", F);
    ends_free(&bit);
    ends_free(&fast);
    ends_free(&e1);
    ends_free(&e2);
    ends_free(&e3);
    ends_free(&e4);
    ends_free(&back);
    mu_gpu_fm_destroy(ctx);
    free(x);
}

static void overlap_refused(void) {
    double *x = clusters(100, 2);
    mu_gpu_fm *ctx = NULL;
    CHECK(mu_gpu_fm_create(x, 100, 2, &ctx) == 0 && mu_gpu_fm_set_fast(ctx, 1) == 0, "create");
    double v[400];
    int64_t its[200];
    int conv[200];
    mu_gpu_fm_range part[2] = {{0, 60, 0, 10}, {40, 60, 0, 10}};
    CHECK(mu_gpu_fm_run(ctx, part, 2, 1.0, 1e-12, 100, 0, v, its, conv, NULL) != 0,
          "ranges sharing part of their rows accepted");
    mu_gpu_fm_range fine[3] = {{0, 50, 0, 10}, {50, 50, 0, 10}, {0, 50, 10, 5}};
    CHECK(mu_gpu_fm_run(ctx, fine, 3, 1.0, 1e-12, 100, 0, v, its, conv, NULL) == 0,
          "equal and disjoint ranges refused: %s", mu_gpu_error());
    mu_gpu_fm_destroy(ctx);
    free(x);
}

int main(int argc, char **argv) {
    mu_gpu_info info;
    gpu_test_begin(&argc, &argv, &info);
    case_f(2, 6007, 2.0);
    case_f(3, 3001, 1.5);
    case_f(5, 2003, 1.0);
    overlap_refused();
    return gpu_test_end("test_gpu_fuzzy_fast");
}
