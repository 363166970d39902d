/* A program built on the installed mutirao: three Gaussian blobs in the plane
 * (centres (0,0), (10,0), (5,8), standard deviation 1), spread over the ranks
 * by rows, clustered with mutirao_fuzzy_cluster. Rank 0 prints the prototypes
 * as `mutirao fuzzy --output` writes them (less the merged column) and checks
 * them against the blobs' centres; every rank checks that its labels are the
 * largest of its memberships.
 *   mpiexec -n 3 ./fuzzy_blobs [n] [device] [data.csv]
 * With data.csv, rank 0 also writes the objects for the command. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <mutirao/mutirao.h>
#include "example.h"

static const double centre[3][2] = {{0, 0}, {10, 0}, {5, 8}};

/* A uniform in (0, 1) from a hash of (i, k): the same on any layout. */
static double uniform(uint64_t i, uint64_t k) {
    uint64_t x = i * 0x9E3779B97F4A7C15ull + k * 0xD1B54A32D192ED03ull + 7;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    x ^= x >> 31;
    return ((double)(x >> 11) + 0.5) / 9007199254740992.0;
}

/* Object i: blob i mod 3 plus a Box-Muller normal pair. */
static void object(int64_t i, double *p) {
    double r = sqrt(-2 * log(uniform((uint64_t)i, 0))),
           t = 6.283185307179586 * uniform((uint64_t)i, 1);
    p[0] = centre[i % 3][0] + r * cos(t);
    p[1] = centre[i % 3][1] + r * sin(t);
}

/* Each label is the prototype of the largest membership (the lowest on ties). */
static int labels_agree(const mutirao_fuzzy_result *res, int64_t nloc) {
    if (!res->memberships) return 1;
    for (int64_t i = 0; i < nloc; i++) {
        int64_t best = 0;
        for (int64_t j = 1; j < res->m; j++)
            if (res->memberships[i * res->m + j] > res->memberships[i * res->m + best]) best = j;
        if (best != res->labels[i]) return 0;
    }
    return 1;
}

/* Rank 0: the prototypes, one per blob, each within 0.3 of its centre. */
static int report(const mutirao_fuzzy_result *res, const int64_t *objects) {
    printf("prototype,x1,x2,objects\n");
    int bad = res->m != 3;
    for (int64_t j = 0; j < res->m; j++) {
        const double *v = res->prototypes + j * 2;
        printf("%lld,%.17g,%.17g,%lld\n", (long long)j, v[0], v[1], (long long)objects[j]);
        double near = INFINITY;
        for (int c = 0; c < 3; c++)
            near = fmin(near, hypot(v[0] - centre[c][0], v[1] - centre[c][1]));
        bad |= near > 0.3;
    }
    if (bad) fprintf(stderr, "fuzzy_blobs: the prototypes are not the three centres\n");
    return bad;
}

int main(int argc, char **argv) {
    int rank, size;
    example_begin(&argc, &argv, &rank, &size);
    int64_t n = argc > 1 ? atoll(argv[1]) : 600;
    int64_t row0 = n * rank / size, nloc = n * (rank + 1) / size - row0;
    double *x = malloc((size_t)(2 * nloc + 2) * sizeof *x);
    for (int64_t i = 0; i < nloc; i++) object(row0 + i, x + 2 * i);
    if (rank == 0 && argc > 3) {
        FILE *f = fopen(argv[3], "w");
        if (f) fprintf(f, "x1,x2\n");
        for (int64_t i = 0; f && i < n; i++) {
            double p[2];
            object(i, p);
            fprintf(f, "%.17g,%.17g\n", p[0], p[1]);
        }
        if (f) fclose(f);
    }
    mutirao_fuzzy_options opt;
    mutirao_fuzzy_options_default(&opt);
    if (argc > 2) opt.device = argv[2];
    mutirao_fuzzy_result res;
    if (mutirao_fuzzy_cluster(MPI_COMM_WORLD, nloc, 2, x, &opt, &res))
        return example_failed("fuzzy_blobs", rank);
    int64_t *mine = calloc((size_t)res.m, sizeof *mine), *all = calloc((size_t)res.m, sizeof *all);
    for (int64_t i = 0; i < nloc; i++) mine[res.labels[i]]++;
    MPI_Reduce(mine, all, (int)res.m, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    int ok = labels_agree(&res, nloc), all_ok = 0, rc = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0) {
        rc = report(&res, all) || !all_ok;
        if (!all_ok) fprintf(stderr, "fuzzy_blobs: a label is not the largest membership\n");
        if (!rc) printf("centres: agree (r = %.10g, %d rank(s))\n", res.r, size);
    }
    rc = example_verdict(rc);
    mutirao_fuzzy_result_free(&res);
    free(mine);
    free(all);
    free(x);
    MPI_Finalize();
    return rc;
}
