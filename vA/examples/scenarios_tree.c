/* A program built on the installed mutirao: a monthly inflow record of three
 * stations (30 years from 1991, seasonal with lognormal year-to-year noise),
 * made on rank 0, the PAR(p) fit and a 1 -> 4 -> 3 tree from
 * mutirao_scenarios_tree_build. Rank 0 prints the tree as `mutirao scenarios
 * --output` writes it and checks that each node's children's probabilities,
 * and the leaves' path probabilities, add up to 1.
 *   mpiexec -n 3 ./scenarios_tree [device] [record.csv] [tree]
 * With record.csv, rank 0 also writes the record for the command; tree is
 * the shape (1,4,3 by default). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <mutirao/mutirao.h>
#include "example.h"

enum { YEARS = 30, NST = 3, FIRST = 1991 };

/* A standard normal from a hash of (i, k) (Box-Muller). */
static double normal(uint64_t i, uint64_t k) {
    double u[2];
    for (int j = 0; j < 2; j++) {
        uint64_t x = i * 0x9E3779B97F4A7C15ull + (2 * k + (uint64_t)j) * 0xD1B54A32D192ED03ull;
        x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
        x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
        u[j] = ((double)((x ^ (x >> 31)) >> 11) + 0.5) / 9007199254740992.0;
    }
    return sqrt(-2 * log(u[0])) * cos(6.283185307179586 * u[1]);
}

/* q[(year * 12 + month) * NST + s]: a seasonal mean per station times a
 * lognormal noise with month-to-month memory. */
static void record(double *q) {
    const double base[NST] = {800, 1500, 300};
    double z[NST] = {0};
    for (int t = 0; t < YEARS * 12; t++)
        for (int s = 0; s < NST; s++) {
            z[s] = 0.6 * z[s] + 0.5 * normal((uint64_t)t, (uint64_t)s);
            double season = 1 + 0.6 * sin(6.283185307179586 * (t % 12 + s) / 12.0);
            q[t * NST + s] = base[s] * season * exp(z[s]);
        }
}

static void write_record(const char *path, const double *q) {
    FILE *f = fopen(path, "w");
    if (!f) return;
    fprintf(f, "year,month,s1,s2,s3\n");
    for (int t = 0; t < YEARS * 12; t++)
        fprintf(f, "%d,%d,%.17g,%.17g,%.17g\n", FIRST + t / 12, t % 12 + 1, q[t * NST],
                q[t * NST + 1], q[t * NST + 2]);
    fclose(f);
}

/* The tree as the command's CSV: node, parent, stage, year, month, probabilities, inflows. */
static void print_tree(const mutirao_scenarios_tree *t) {
    printf("node,parent,stage,year,month,probability,path_probability,s1,s2,s3\n");
    for (int64_t v = 0; v < t->nodes; v++) {
        int a = (t->first_year * 12 + t->first_month - 1) - 1 + t->stage[v];
        printf("%lld,%lld,%d,%d,%d,%.17g,%.17g", (long long)v, (long long)t->parent[v], t->stage[v],
               a / 12, a % 12 + 1, t->prob[v], t->path_prob[v]);
        for (int s = 0; s < t->stations; s++) printf(",%.17g", t->q[v * t->stations + s]);
        printf("\n");
    }
}

/* Each node's children's probabilities and the leaves' path probabilities add to 1. */
static int check(const mutirao_scenarios_tree *t) {
    double *sum = calloc((size_t)t->nodes, sizeof *sum), leaves = 0;
    for (int64_t v = 1; v < t->nodes; v++) sum[t->parent[v]] += t->prob[v];
    int bad = 0;
    for (int64_t v = 0; v < t->first_leaf; v++) bad |= fabs(sum[v] - 1) > 1e-12;
    for (int64_t v = t->first_leaf; v < t->nodes; v++) leaves += t->path_prob[v];
    bad |= fabs(leaves - 1) > 1e-12 || t->nodes != 1 + 4 + 12;
    free(sum);
    if (bad) fprintf(stderr, "scenarios_tree: probabilities do not add up to 1\n");
    return bad;
}

int main(int argc, char **argv) {
    int rank, size;
    example_begin(&argc, &argv, &rank, &size);
    double *q = NULL;
    if (rank == 0) {
        q = malloc(YEARS * 12 * NST * sizeof *q);
        record(q);
        if (argc > 2 && *argv[2]) write_record(argv[2], q);
    }
    mutirao_scenarios_options opt;
    mutirao_scenarios_options_default(&opt);
    opt.tree = "1,4,3";
    opt.m = 64;
    opt.seed = 7;
    if (argc > 1) opt.device = argv[1];
    if (argc > 3) opt.tree = argv[3];
    mutirao_scenarios_tree t;
    int rc = mutirao_scenarios_tree_build(MPI_COMM_WORLD, YEARS, NST, FIRST, q, NULL, &opt, &t);
    if (rc) return example_failed("scenarios_tree", rank);
    if (rank == 0) {
        print_tree(&t);
        rc = check(&t);
        if (!rc) printf("probabilities: add up (%d rank(s))\n", size);
    }
    rc = example_verdict(rc);
    mutirao_scenarios_tree_free(&t);
    free(q);
    MPI_Finalize();
    return rc;
}
