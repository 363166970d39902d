/* The public calls against careless and hostile callers (issue 48), on any
 * number of ranks: options or sizes that differ between ranks, a rowptr that
 * is not monotone, NULL arrays and NULL results, an empty option string, 0
 * objects with 5e7 features. Each case: the call returns 1 on every rank (no
 * hang, no abort, no crash) with one message in the API's words naming the
 * cause; then a good call still works. Usage: test_api_hostile. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include "mutirao/mutirao.h"
#include "mu_test.h"

static int rank, size;

/* rc is 1 on this rank, and on every rank; the message holds want (and not
 * the command line's "command line: option"). */
#define EXPECT_REFUSED(rc, want)                                                                   \
    do {                                                                                           \
        int r_ = (rc), all_ = 0;                                                                   \
        MPI_Allreduce(&r_, &all_, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);                            \
        CHECK(r_ == 1 && all_ == 1, "%s: rc %d here, min over ranks %d", want, r_, all_);          \
        const char *m_ = mutirao_error_message();                                                  \
        CHECK(m_ &&strstr(m_, want), "message '%s' lacks '%s'", m_ ? m_ : "(none)", want);         \
        CHECK(m_ && !strstr(m_, "command line"), "message '%s' cites the command line", m_);       \
    } while (0)

/* A 1-D Laplacian of n rows, this rank's block (rows lo..hi) in CSR. */
typedef struct {
    int64_t n, nloc, *rowptr, *cols;
    double *vals, *b, *x;
} csr;

static void laplace(int64_t n, csr *a) {
    int64_t lo = n * rank / size, hi = n * (rank + 1) / size;
    a->n = n;
    a->nloc = hi - lo;
    a->rowptr = calloc((size_t)a->nloc + 1, sizeof *a->rowptr);
    a->cols = calloc((size_t)(3 * a->nloc + 1), sizeof *a->cols);
    a->vals = calloc((size_t)(3 * a->nloc + 1), sizeof *a->vals);
    a->b = calloc((size_t)a->nloc + 1, sizeof *a->b);
    a->x = calloc((size_t)a->nloc + 1, sizeof *a->x);
    int64_t k = 0;
    for (int64_t i = 0; i < a->nloc; i++) {
        int64_t g = lo + i;
        for (int64_t c = g - 1; c <= g + 1; c++)
            if (c >= 0 && c < n) {
                a->cols[k] = c;
                a->vals[k++] = c == g ? 2.0 : -1.0;
            }
        a->rowptr[i + 1] = k;
        a->b[i] = 1.0;
    }
}

static void csr_free(csr *a) {
    free(a->rowptr), free(a->cols), free(a->vals), free(a->b), free(a->x);
}

static void cg_cases(void) {
    csr a;
    laplace(40, &a);
    mutirao_cg_options opt;
    mutirao_cg_options_default(&opt);
    opt.device = "cpu";
    mutirao_cg_info info;
    /* Options that differ between ranks: rtol 1e-2 on rank 0, 1e-12 elsewhere. */
    if (size > 1) {
        opt.rtol = rank == 0 ? 1e-2 : 1e-12;
        EXPECT_REFUSED(mutirao_cg_solve(MPI_COMM_WORLD, a.n, a.nloc, a.rowptr, a.cols, a.vals, a.b,
                                        a.x, &opt, &info),
                       "mutirao_cg_solve: the options or sizes differ between ranks");
        opt.rtol = 1e-8;
        /* The global size differing. */
        EXPECT_REFUSED(mutirao_cg_solve(MPI_COMM_WORLD, rank == 0 ? a.n : a.n + 1, a.nloc, a.rowptr,
                                        a.cols, a.vals, a.b, a.x, &opt, &info),
                       "differ between ranks");
    }
    /* A rowptr that is not monotone (the n = 4 case on rank 0; the
     * other ranks pass no rows). */
    {
        int64_t rp[5] = {0, 5000, 2, 3, 4}, cols[4] = {0, 1, 2, 3};
        double vals[4] = {1, 1, 1, 1}, b[4] = {1, 1, 1, 1}, x[4];
        int64_t nloc = rank == 0 ? 4 : 0;
        EXPECT_REFUSED(mutirao_cg_solve(MPI_COMM_WORLD, 4, nloc, rp, cols, vals, b, x, &opt, &info),
                       "mutirao_cg_solve: rowptr decreases at local row 1");
        /* rowptr past the entries: ends beyond n x nloc */
        int64_t rp2[5] = {0, 1, 2, 3, 1000};
        EXPECT_REFUSED(
            mutirao_cg_solve(MPI_COMM_WORLD, 4, nloc, rp2, cols, vals, b, x, &opt, &info),
            "mutirao_cg_solve: 1000 entries on 4 rows");
    }
    /* NULL arrays with rows, NULL result. */
    if (a.nloc > 0 || size == 1) {
        EXPECT_REFUSED(mutirao_cg_solve(MPI_COMM_WORLD, a.n, a.nloc, a.rowptr, NULL, a.vals, a.b,
                                        a.x, &opt, &info),
                       "cols NULL");
    }
    EXPECT_REFUSED(mutirao_cg_solve(MPI_COMM_WORLD, a.n, a.nloc, a.rowptr, a.cols, a.vals, a.b, a.x,
                                    &opt, NULL),
                   "mutirao_cg_solve: info (the result) is NULL");
    /* and the good call after them */
    CHECK(mutirao_cg_solve(MPI_COMM_WORLD, a.n, a.nloc, a.rowptr, a.cols, a.vals, a.b, a.x, &opt,
                           &info) == 0 &&
              info.converged,
          "good cg solve: %s", mutirao_error_message());
    csr_free(&a);
}

static void scenarios_cases(void) {
    enum { YEARS = 12, NST = 2 };
    static double q[YEARS * 12 * NST];
    for (int y = 0; y < YEARS; y++) /* the record of tests/scenarios_bad_input.sh */
        for (int m = 1; m <= 12; m++) {
            int year = 1950 + y;
            q[(y * 12 + m - 1) * NST] = 100 + m + (year * 7 + m * 3) % 11;
            q[(y * 12 + m - 1) * NST + 1] = 90 + 2 * m + (year * 5 + m) % 13;
        }
    mutirao_scenarios_options opt;
    mutirao_scenarios_options_default(&opt);
    opt.device = "cpu";
    opt.m = 64;
    mutirao_scenarios_tree t;
    opt.tree = "";
    EXPECT_REFUSED(
        mutirao_scenarios_tree_build(MPI_COMM_WORLD, YEARS, NST, 1950, q, NULL, &opt, &t),
        "mutirao_scenarios_tree_build: option 'tree' needs a value, got an empty one");
    if (size > 1) {
        opt.tree = rank == 0 ? "1,4,3" : "1,5";
        EXPECT_REFUSED(
            mutirao_scenarios_tree_build(MPI_COMM_WORLD, YEARS, NST, 1950, q, NULL, &opt, &t),
            "mutirao_scenarios_tree_build: the options or sizes differ between ranks");
        opt.tree = "1,4,3";
        opt.seed = rank == 0 ? 1 : 2;
        EXPECT_REFUSED(
            mutirao_scenarios_tree_build(MPI_COMM_WORLD, YEARS, NST, 1950, q, NULL, &opt, &t),
            "differ between ranks");
        opt.seed = 1;
    }
    opt.tree = "1,4,3";
    EXPECT_REFUSED(
        mutirao_scenarios_tree_build(MPI_COMM_WORLD, YEARS, NST, 1950, q, NULL, &opt, NULL),
        "mutirao_scenarios_tree_build: tree (the result) is NULL");
    opt.min_years = 4294967306LL;
    EXPECT_REFUSED(
        mutirao_scenarios_tree_build(MPI_COMM_WORLD, YEARS, NST, 1950, q, NULL, &opt, &t),
        "--min-years=4294967306: must be 3..100000");
    opt.min_years = 10;
    CHECK(mutirao_scenarios_tree_build(MPI_COMM_WORLD, YEARS, NST, 1950, q, NULL, &opt, &t) == 0 &&
              t.nodes == 1 + 4 + 12,
          "good tree: %s", mutirao_error_message());
    mutirao_scenarios_tree_free(&t);
}

static void fuzzy_cases(void) {
    mutirao_fuzzy_options opt;
    mutirao_fuzzy_options_default(&opt);
    opt.device = "cpu";
    mutirao_fuzzy_result res;
    double t0 = MPI_Wtime();
    EXPECT_REFUSED(mutirao_fuzzy_cluster(MPI_COMM_WORLD, 0, 50000000, NULL, &opt, &res),
                   "mutirao_fuzzy_cluster: nloc = 0, features = 50000000");
    CHECK(MPI_Wtime() - t0 < 5, "0 objects x 5e7 features took %.1f s", MPI_Wtime() - t0);
    double x[2 * 8];
    for (int i = 0; i < 16; i++) x[i] = (i % 2 ? 10.0 : 0.0) + (double)(i / 2 % 4) * 0.1 + rank;
    if (size > 1) {
        opt.eps1 = rank == 0 ? 1e-6 : 1e-3;
        EXPECT_REFUSED(mutirao_fuzzy_cluster(MPI_COMM_WORLD, 8, 2, x, &opt, &res),
                       "mutirao_fuzzy_cluster: the options or sizes differ between ranks");
        opt.eps1 = 1e-6;
    }
    EXPECT_REFUSED(mutirao_fuzzy_cluster(MPI_COMM_WORLD, 8, 2, x, &opt, NULL),
                   "mutirao_fuzzy_cluster: res (the result) is NULL");
    EXPECT_REFUSED(mutirao_fuzzy_cluster(MPI_COMM_WORLD, 8, 2, NULL, &opt, &res), "x NULL");
    opt.mode = "";
    EXPECT_REFUSED(mutirao_fuzzy_cluster(MPI_COMM_WORLD, 8, 2, x, &opt, &res),
                   "mutirao_fuzzy_cluster: option 'mode'");
    opt.mode = "exact";
    /* No objects on any rank: said so, not "span at most -1 dimension(s)". */
    mutirao_fuzzy_result none;
    int rc0 = mutirao_fuzzy_cluster(MPI_COMM_WORLD, 0, 2, x, &opt, &none);
    CHECK(rc0 == 1 && !strstr(mutirao_error_message(), "-1 dimension"), "0 objects: rc %d, '%s'",
          rc0, mutirao_error_message());
}

static void maxsub_cases(void) {
    mutirao_maxsub_options opt;
    mutirao_maxsub_options_default(&opt);
    opt.device = "cpu";
    int32_t v[4] = {1, -2, 3, 4};
    mutirao_maxsub_1d_result r1;
    mutirao_maxsub_2d_result r2;
    if (size > 1) {
        opt.empty_allowed = rank == 0;
        EXPECT_REFUSED(mutirao_maxsub_1d(MPI_COMM_WORLD, 4, v, &opt, &r1),
                       "mutirao_maxsub_1d: the options or sizes differ between ranks");
        opt.empty_allowed = 1;
        EXPECT_REFUSED(mutirao_maxsub_2d(MPI_COMM_WORLD, 2, rank == 0 ? 2 : 1, v, &opt, &r2),
                       "mutirao_maxsub_2d: the options or sizes differ between ranks");
    }
    EXPECT_REFUSED(mutirao_maxsub_1d(MPI_COMM_WORLD, 4, NULL, &opt, &r1), "a NULL x");
    EXPECT_REFUSED(mutirao_maxsub_1d(MPI_COMM_WORLD, 4, v, &opt, NULL),
                   "mutirao_maxsub_1d: res (the result) is NULL");
    EXPECT_REFUSED(mutirao_maxsub_2d(MPI_COMM_WORLD, 2, 2, v, &opt, NULL),
                   "mutirao_maxsub_2d: res (the result) is NULL");
    /* 2^31 x 2^31 int32: 2^64 bytes, which wrapped to 0 (a malloc(0) then read). */
    EXPECT_REFUSED(
        mutirao_maxsub_2d(MPI_COMM_WORLD, (int64_t)1 << 31, (int64_t)1 << 31, v, &opt, &r2),
        "mutirao_maxsub_2d: a 2147483648 x 2147483648 matrix");
    EXPECT_REFUSED(
        mutirao_maxsub_2d(MPI_COMM_WORLD, (int64_t)1 << 40, (int64_t)1 << 30, v, &opt, &r2),
        "is more than this rank's memory");
    CHECK(mutirao_maxsub_1d(MPI_COMM_WORLD, 4, v, &opt, &r1) == 0 && r1.n == 4 * size &&
              r1.sum >= 7,
          "good maxsub: %s", mutirao_error_message());
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    cg_cases();
    scenarios_cases();
    fuzzy_cases();
    maxsub_cases();
    const int status = mu_report_all("test_api_hostile", MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
