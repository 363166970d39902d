/* A program built on the installed mutirao: the maximum subarray of an array
 * spread over the ranks by blocks and the maximum submatrix of a matrix held
 * by rank 0, each checked on rank 0 against a brute-force search over every
 * range (and the range's own sum against the answer's).
 *   mpiexec -n 3 ./maxsub_check [n] [rows] [cols] [device] [dir]
 * prints the answers in the form of `mutirao maxsub`'s lines; with dir, rank 0
 * also writes the data as dir/array.txt and dir/matrix.txt for the command. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <mutirao/mutirao.h>
#include "example.h"

/* Value i of the data: a hash of i in [-100, 100], the same on any layout. */
static int32_t value(uint64_t i) {
    uint64_t x = i * 0x9E3779B97F4A7C15ull + 12345;
    x = (x ^ (x >> 31)) * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return (int32_t)(x % 201) - 100;
}

/* The largest sum over every non-empty range of a[0 .. n), O(n^2). */
static int64_t brute_1d(const int32_t *a, int64_t n) {
    int64_t best = INT64_MIN;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = i, s = 0; j < n; j++)
            if ((s += a[j]) > best) best = s;
    return best;
}

/* The largest sum over every non-empty submatrix, by column sums of each row range. */
static int64_t brute_2d(const int32_t *a, int64_t rows, int64_t cols) {
    int64_t best = INT64_MIN, *col = malloc((size_t)cols * sizeof *col);
    for (int64_t r0 = 0; r0 < rows; r0++) {
        for (int64_t c = 0; c < cols; c++) col[c] = 0;
        for (int64_t r1 = r0; r1 < rows; r1++) {
            for (int64_t c = 0; c < cols; c++) col[c] += a[r1 * cols + c];
            for (int64_t c0 = 0; c0 < cols; c0++)
                for (int64_t c1 = c0, s = 0; c1 < cols; c1++)
                    if ((s += col[c1]) > best) best = s;
        }
    }
    free(col);
    return best;
}

static void write_data(const char *dir, const int32_t *x, int64_t n, const int32_t *a, int64_t rows,
                       int64_t cols) {
    char path[1024];
    snprintf(path, sizeof path, "%s/array.txt", dir);
    FILE *f = fopen(path, "w");
    for (int64_t i = 0; f && i < n; i++) fprintf(f, "%d\n", x[i]);
    if (f) fclose(f);
    snprintf(path, sizeof path, "%s/matrix.txt", dir);
    f = fopen(path, "w");
    for (int64_t i = 0; f && i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            fprintf(f, "%d%c", a[i * cols + j], j + 1 < cols ? ' ' : '\n');
    if (f) fclose(f);
}

/* Rank 0: the answers against brute force; 0 when they agree. */
static int check(const int32_t *x, int64_t n, const mutirao_maxsub_1d_result *r1, const int32_t *a,
                 int64_t rows, int64_t cols, const mutirao_maxsub_2d_result *r2) {
    int bad = 0;
    int64_t want = brute_1d(x, n), got = 0;
    if (want < 0) want = 0; /* the empty subarray is allowed (the default) */
    for (int64_t i = r1->start; !r1->empty && i <= r1->end; i++) got += x[i];
    if (r1->sum != want || got != want) {
        fprintf(stderr, "maxsub_check: 1-D sum %lld, its range sums to %lld, brute force %lld\n",
                (long long)r1->sum, (long long)got, (long long)want);
        bad = 1;
    }
    want = brute_2d(a, rows, cols);
    if (want < 0) want = 0;
    got = 0;
    for (int64_t i = r2->row0; !r2->empty && i <= r2->row1; i++)
        for (int64_t j = r2->col0; j <= r2->col1; j++) got += a[i * cols + j];
    if (r2->sum != want || got != want) {
        fprintf(stderr, "maxsub_check: 2-D sum %lld, its block sums to %lld, brute force %lld\n",
                (long long)r2->sum, (long long)got, (long long)want);
        bad = 1;
    }
    return bad;
}

int main(int argc, char **argv) {
    int rank, size;
    example_begin(&argc, &argv, &rank, &size);
    int64_t n = argc > 1 ? atoll(argv[1]) : 3000;
    int64_t rows = argc > 2 ? atoll(argv[2]) : 24, cols = argc > 3 ? atoll(argv[3]) : 40;
    mutirao_maxsub_options opt;
    mutirao_maxsub_options_default(&opt);
    if (argc > 4) opt.device = argv[4];

    /* The whole array on every rank (for the check); each passes its block. */
    int32_t *x = malloc((size_t)(n + 1) * sizeof *x), *a = NULL;
    for (int64_t i = 0; i < n; i++) x[i] = value((uint64_t)i);
    int64_t lo = n * rank / size, hi = n * (rank + 1) / size;
    if (rank == 0) {
        a = malloc((size_t)(rows * cols) * sizeof *a);
        for (int64_t i = 0; i < rows * cols; i++) a[i] = value((uint64_t)(n + i));
        if (argc > 5) write_data(argv[5], x, n, a, rows, cols);
    }
    mutirao_maxsub_1d_result r1;
    mutirao_maxsub_2d_result r2;
    int rc = mutirao_maxsub_1d(MPI_COMM_WORLD, hi - lo, x + lo, &opt, &r1);
    if (!rc) rc = mutirao_maxsub_2d(MPI_COMM_WORLD, rows, cols, a, &opt, &r2);
    if (rc) return example_failed("maxsub_check", rank);
    if (rank == 0) {
        printf("maxsub: dim=1 n=%lld sum=%lld start=%lld end=%lld%s\n", (long long)r1.n,
               (long long)r1.sum, (long long)r1.start, (long long)r1.end,
               r1.empty ? " (empty subarray)" : "");
        printf("maxsub: dim=2 rows=%lld cols=%lld sum=%lld row0=%lld row1=%lld col0=%lld "
               "col1=%lld%s\n",
               (long long)rows, (long long)cols, (long long)r2.sum, (long long)r2.row0,
               (long long)r2.row1, (long long)r2.col0, (long long)r2.col1,
               r2.empty ? " (empty submatrix)" : "");
        rc = check(x, n, &r1, a, rows, cols, &r2);
        if (!rc) printf("brute force: agrees\n");
    }
    rc = example_verdict(rc);
    free(x);
    free(a);
    MPI_Finalize();
    return rc;
}
