/* The one assertion helper of the C tests (tests/test_*.c, tests/gpu_test.h).
 *
 * Every check is counted; a failed one prints "FAIL file:line: what" (the
 * first 40 of a program) and makes mu_report return exit code 1, which ctest reads.
 *
 *   CHECK(cond, fmt, ...)      cond true; on failure, the printf-style message
 *   CHECK_TRUE(cond)           cond true; the message is cond's text
 *   CHECK_INT_EQ(a, b)         integers equal (as intmax_t), both values printed
 *   CHECK_INT_NE(a, b)         integers not equal
 *   CHECK_STR_EQ(a, b)         strings equal
 *   CHECK_MEM_EQ(a, b, bytes)  the same bytes; the first differing byte printed
 *   CHECK_BITS(a, b)           doubles with the same bits (-0 is not 0, NaN as stored)
 *   CHECK_REL(a, b, tol)       doubles equal or |a - b| <= tol max(|a|, |b|)
 *   CHECK_ARRAY_BITS(a, b, n)  n doubles each with the same bits; the first
 *                              differing index and both values printed
 *
 * Each returns 1 when the check passed and 0 when it failed. Inside MU_RUN (a
 * test function run by name) the first failure ends that test function, as an
 * assertion does; elsewhere (a test's own main, the GPU and MPI programs) the
 * program goes on and the failures are counted. mu_report prints the totals
 * and gives main's return value (mu_report_all: over the ranks of an MPI program). */
#ifndef MU_TESTS_MU_TEST_H
#define MU_TESTS_MU_TEST_H
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static long mu_checks, mu_failures;
static jmp_buf *mu_stop; /* set while MU_RUN runs a test function */

__attribute__((format(printf, 4, 5))) static inline int mu_check(int ok, const char *file, int line,
                                                                 const char *fmt, ...) {
    mu_checks++;
    if (ok) return 1;
    if (++mu_failures <= 40) {
        printf("FAIL %s:%d: ", file, line);
        va_list ap;
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        printf("\n");
        fflush(stdout);
    }
    if (mu_stop) longjmp(*mu_stop, 1);
    return 0;
}

/* The index of the first of n elements of `size` bytes that differ, or -1. */
static inline int64_t mu_first_diff(const void *a, const void *b, int64_t n, size_t size) {
    const unsigned char *p = a, *q = b;
    if (n == 0 || memcmp(p, q, (size_t)n * size) == 0) return -1;
    for (int64_t i = 0; i < n; i++)
        if (memcmp(p + i * size, q + i * size, size) != 0) return i;
    return -1;
}

static inline int mu_same_bits(double a, double b) {
    return memcmp(&a, &b, sizeof a) == 0;
}

static inline int mu_close_rel(double a, double b, double tol) {
    return a == b || fabs(a - b) <= tol * fmax(fabs(a), fabs(b));
}

#define CHECK(cond, ...) mu_check(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define CHECK_TRUE(cond) CHECK(cond, "%s", #cond)

#define CHECK_INT_EQ(a, b) mu_check_int(1, (intmax_t)(a), (intmax_t)(b), #a, #b, __FILE__, __LINE__)
#define CHECK_INT_NE(a, b) mu_check_int(0, (intmax_t)(a), (intmax_t)(b), #a, #b, __FILE__, __LINE__)
static inline int mu_check_int(int eq, intmax_t a, intmax_t b, const char *ta, const char *tb,
                               const char *file, int line) {
    return mu_check((a == b) == eq, file, line, "%s %s %s: %jd and %jd", ta, eq ? "==" : "!=", tb,
                    a, b);
}

#define CHECK_STR_EQ(a, b) mu_check_str((a), (b), #a, #b, __FILE__, __LINE__)
static inline int mu_check_str(const char *a, const char *b, const char *ta, const char *tb,
                               const char *file, int line) {
    return mu_check(strcmp(a, b) == 0, file, line, "%s == %s: \"%s\" and \"%s\"", ta, tb, a, b);
}

#define CHECK_MEM_EQ(a, b, bytes)                                                                  \
    mu_check_mem((a), (b), (int64_t)(bytes), #a, #b, __FILE__, __LINE__)
static inline int mu_check_mem(const void *a, const void *b, int64_t bytes, const char *ta,
                               const char *tb, const char *file, int line) {
    int64_t at = mu_first_diff(a, b, bytes, 1);
    return mu_check(at < 0, file, line, "%s and %s (%jd bytes) differ from byte %jd", ta, tb,
                    (intmax_t)bytes, (intmax_t)at);
}

#define CHECK_BITS(a, b) mu_check_bits(0, (a), (b), 0, #a, #b, __FILE__, __LINE__)
#define CHECK_REL(a, b, tol) mu_check_bits(1, (a), (b), (tol), #a, #b, __FILE__, __LINE__)
static inline int mu_check_bits(int rel, double a, double b, double tol, const char *ta,
                                const char *tb, const char *file, int line) {
    if (rel)
        return mu_check(mu_close_rel(a, b, tol), file, line,
                        "%s, %s: %.17g and %.17g, more than %g apart relative", ta, tb, a, b, tol);
    return mu_check(mu_same_bits(a, b), file, line, "%s, %s: %.17g (%a) and %.17g (%a)", ta, tb, a,
                    a, b, b);
}

#define CHECK_ARRAY_BITS(a, b, n)                                                                  \
    mu_check_doubles((a), (b), (int64_t)(n), #a, #b, __FILE__, __LINE__)
static inline int mu_check_doubles(const double *a, const double *b, int64_t n, const char *ta,
                                   const char *tb, const char *file, int line) {
    int64_t i = mu_first_diff(a, b, n, sizeof *a);
    return mu_check(i < 0, file, line, "%s, %s: element %jd of %jd differs: %.17g and %.17g", ta,
                    tb, (intmax_t)i, (intmax_t)n, i < 0 ? 0 : a[i], i < 0 ? 0 : b[i]);
}

/* Runs one test function, stopped by its first failed check, and prints its outcome. */
#define MU_RUN(fn) mu_run(#fn, fn)
static inline void mu_run(const char *name, void (*fn)(void)) {
    jmp_buf stop;
    volatile long before = mu_failures;
    mu_stop = &stop;
    if (!setjmp(stop)) fn();
    mu_stop = NULL;
    printf("[%s] %s\n", mu_failures > before ? "FAILED" : "  OK  ", name);
    fflush(stdout);
}

/* The tests' seeded generator (xorshift64): the same values on every machine. */
static inline uint64_t mu_test_u64(uint64_t *state) {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}
/* Uniform in [0, 1), from the generator's top 53 bits. */
static inline double mu_test_uniform(uint64_t *state) {
    return (double)(mu_test_u64(state) >> 11) * 0x1.0p-53;
}

/* text written to the file dir/name; its path, in a buffer the next call reuses. */
static inline const char *mu_test_write(const char *dir, const char *name, const char *text) {
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK_TRUE(f != NULL);
    fputs(text, f);
    fclose(f);
    return path;
}

/* Prints "name: N checks, M failed" (nothing when name is NULL); 0, or 1 after a failure. */
static inline int mu_report(const char *name) {
    if (name) printf("%s: %ld checks, %ld failed\n", name, mu_checks, mu_failures);
    return mu_failures ? 1 : 0;
}

/* mpi.h came first: the totals over the ranks of comm, printed by its rank 0. */
#ifdef MPI_VERSION
static inline int mu_report_all(const char *name, MPI_Comm comm) {
    int rank;
    MPI_Comm_rank(comm, &rank);
    MPI_Allreduce(MPI_IN_PLACE, &mu_checks, 1, MPI_LONG, MPI_SUM, comm);
    MPI_Allreduce(MPI_IN_PLACE, &mu_failures, 1, MPI_LONG, MPI_SUM, comm);
    return mu_report(rank == 0 ? name : NULL);
}
#endif
#endif
