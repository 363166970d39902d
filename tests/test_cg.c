/* Unit tests of the cg workload's serial parts: the exact accumulator, the
 * Matrix Market reader (every bundled matrix, gzip, malformed files) and the
 * Poisson generators against an independent dense construction. */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdint.h>
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "mu_test.h"
#include "mu_test_dir.h"
#include "cg/mmio.h"
#include "cg/poisson.h"
#include "core/error.h"
#include "core/exactsum.h"
#include "core/log.h"
#include "gpu/cg_round.h"
#include "mpi/partition.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#ifndef MU_TEST_CG_INPUTS
#error "MU_TEST_CG_INPUTS (the inputs/cg folder) must be defined"
#endif

/* ---- exact summation ---------------------------------------------------- */

static uint64_t lcg_state = 88172645463325252ull;
static uint64_t next_u64(void) {
    return mu_test_u64(&lcg_state);
}

/* Mixed signs and magnitudes over exponents [lo, hi], some subnormals. */
static double random_double(int lo, int hi) {
    double m = (double)(next_u64() >> 11) / 9007199254740992.0 + 0.5;
    int e = lo + (int)(next_u64() % (uint64_t)(hi - lo + 1));
    double x = ldexp(m, e);
    return (next_u64() & 1) ? -x : x;
}

static double xsum_of(const double *v, size_t n) {
    mu_xsum s;
    mu_xsum_zero(&s);
    for (size_t i = 0; i < n; i++) mu_xsum_add(&s, v[i]);
    return mu_xsum_round(&s, NULL);
}

static void shuffle(double *v, size_t n) {
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = (size_t)(next_u64() % (i + 1));
        double t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

/* Any order and any split into partial accumulators gives the same bits. */
static void xsum_order_independent(void) {
    enum { N = 20000 };
    double *v = malloc(N * sizeof *v);
    for (int i = 0; i < N; i++) v[i] = random_double(-1080, 1000);
    for (int i = 0; i < 50; i++) v[i] = ldexp((double)(next_u64() % 1000), -1074); /* subnormals */
    double ref = xsum_of(v, N);
    for (int trial = 0; trial < 20; trial++) {
        shuffle(v, N);
        CHECK_BITS(xsum_of(v, N), ref);
        /* Split into k parts, each normalized, merged in reverse. */
        int k = 1 + trial;
        mu_xsum total, part;
        mu_xsum_zero(&total);
        for (int p = k - 1; p >= 0; p--) {
            int64_t lo, hi;
            mu_block_range(N, k, p, &lo, &hi);
            mu_xsum_zero(&part);
            for (int64_t i = lo; i < hi; i++) mu_xsum_add(&part, v[i]);
            mu_xsum_normalize(&part);
            mu_xsum_merge(&total, &part);
        }
        CHECK_BITS(mu_xsum_round(&total, NULL), ref);
    }
    free(v);
}

/* Against an independent exact reference: values m 2^e with e in [-40, 20]
 * summed as 128-bit integers in units of 2^-92, converted once (GCC rounds
 * __int128 to double to nearest, ties to even). */
static void xsum_matches_int128_reference(void) {
    for (int trial = 0; trial < 200; trial++) {
        int n = 1 + (int)(next_u64() % 2000);
        __int128 exact = 0;
        mu_xsum s;
        mu_xsum_zero(&s);
        long double kahan = 0, comp = 0;
        for (int i = 0; i < n; i++) {
            int64_t m = (int64_t)(next_u64() >> 11) * ((next_u64() & 1) ? 1 : -1);
            int e = -40 + (int)(next_u64() % 61) - 52;
            double x = ldexp((double)m, e);
            __int128 mag = (__int128)(m < 0 ? -m : m) << (e + 92);
            exact += m < 0 ? -mag : mag;
            mu_xsum_add(&s, x);
            long double y = (long double)x - comp, t = kahan + y;
            comp = (t - kahan) - y;
            kahan = t;
        }
        __int128 total = exact < 0 ? -exact : exact;
        double want = ldexp((double)total, -92) * (exact < 0 ? -1 : 1);
        double got = mu_xsum_round(&s, NULL);
        CHECK_BITS(got, want);
        /* The long-double compensated sum agrees to within an ulp or so. */
        CHECK_TRUE(fabsl((long double)got - kahan) <=
                   2 * (long double)fabs(nextafter(got, INFINITY) - got) + 1e-300L);
    }
}

static double sum3(double a, double b, double c, mu_xsum_status *st) {
    mu_xsum s;
    mu_xsum_zero(&s);
    mu_xsum_add(&s, a);
    mu_xsum_add(&s, b);
    mu_xsum_add(&s, c);
    return mu_xsum_round(&s, st);
}

static void xsum_exact_cases(void) {
    mu_xsum_status st;
    CHECK_BITS(sum3(1e300, 1.0, -1e300, &st), 1.0);
    CHECK_INT_EQ(st, MU_XSUM_FINITE);
    CHECK_BITS(sum3(1.0, 1e-300, -1.0, &st), 1e-300);
    CHECK_BITS(sum3(-1e300, -1.0, 1e300, &st), -1.0);
    CHECK_BITS(sum3(0.0, -0.0, 0.0, &st), 0.0);
    /* Ties go to even; anything beyond the tie rounds away. */
    double u = ldexp(1.0, -53);
    CHECK_BITS(sum3(1.0, u, 0.0, &st), 1.0);
    CHECK_BITS(sum3(1.0, u, ldexp(1.0, -300), &st), nextafter(1.0, 2.0));
    CHECK_BITS(sum3(nextafter(1.0, 2.0), u, 0.0, &st), nextafter(nextafter(1.0, 2.0), 2.0));
    CHECK_BITS(sum3(-1.0, -u, -ldexp(1.0, -1074), &st), -nextafter(1.0, 2.0));
    /* Subnormals, and the normal/subnormal boundary. */
    double tiny = ldexp(1.0, -1074);
    CHECK_BITS(sum3(tiny, tiny, tiny, &st), 3 * tiny);
    CHECK_BITS(sum3(DBL_MIN, -tiny, 0.0, &st), DBL_MIN - tiny);
    CHECK_BITS(sum3(DBL_MIN / 2, DBL_MIN / 2, 0.0, &st), DBL_MIN);
    /* No overflow in between: only the final sum counts. */
    CHECK_BITS(sum3(DBL_MAX, DBL_MAX, -DBL_MAX, &st), DBL_MAX);
    CHECK_INT_EQ(st, MU_XSUM_FINITE);
    double big = sum3(DBL_MAX, DBL_MAX, 0.0, &st);
    CHECK_TRUE(isinf(big) && big > 0);
    CHECK_INT_EQ(st, MU_XSUM_OVERFLOW);
    big = sum3(-DBL_MAX, -DBL_MAX, 0.0, &st);
    CHECK_TRUE(isinf(big) && big < 0);
    /* Rounding just below the overflow threshold stays finite. */
    CHECK_BITS(sum3(DBL_MAX, ldexp(1.0, 969), 0.0, &st), DBL_MAX);
    CHECK_INT_EQ(st, MU_XSUM_FINITE);
}

static void xsum_specials_flagged(void) {
    mu_xsum_status st;
    CHECK_TRUE(isnan(sum3(1.0, NAN, 2.0, &st)));
    CHECK_INT_EQ(st, MU_XSUM_HAS_NAN);
    CHECK_TRUE(isnan(sum3(INFINITY, -INFINITY, 2.0, &st)));
    CHECK_INT_EQ(st, MU_XSUM_HAS_NAN);
    double v = sum3(INFINITY, 1.0, -1e308, &st);
    CHECK_TRUE(isinf(v) && v > 0);
    CHECK_INT_EQ(st, MU_XSUM_HAS_INF);
    v = sum3(-INFINITY, 1.0, 0.0, &st);
    CHECK_TRUE(isinf(v) && v < 0);
    CHECK_INT_EQ(st, MU_XSUM_HAS_INF);
}

/* The split form (for device atomics) adds the same words as mu_xsum_add. */
static void xsum_split_matches_add(void) {
    mu_xsum a, b;
    mu_xsum_zero(&a);
    mu_xsum_zero(&b);
    for (int i = 0; i < 5000; i++) {
        double x = random_double(-1074, 1023);
        mu_xsum_add(&a, x);
        int k = -1;
        int64_t d[3] = {0, 0, 0};
        int what = mu_xsum_split(x, &k, d);
        CHECK_INT_EQ(what, 1);
        for (int j = 0; j < 3; j++) b.w[k + j] += d[j];
    }
    CHECK_MEM_EQ(a.w, b.w, sizeof a.w);
}

/* add_array against value-by-value adds on v[0..n), normalized words compared,
 * with each vector width of the fast path this processor runs. */
static void expect_array_words(const double *v, int n, const char *what) {
    mu_xsum a;
    mu_xsum_zero(&a);
    for (int i = 0; i < n; i++) mu_xsum_add(&a, v[i]);
    mu_xsum_normalize(&a);
    for (int lanes = 2; lanes <= 4; lanes += 2) {
        if (mu_xsum_lanes(lanes) != lanes) continue;
        mu_xsum b;
        mu_xsum_zero(&b);
        mu_xsum_add_array(&b, v, n);
        mu_xsum_normalize(&b);
        CHECK(memcmp(a.w, b.w, sizeof a.w) == 0, "%s, n = %d, %d lanes: words differ", what, n,
              lanes);
    }
    mu_xsum_lanes(0);
}

/* The block fast path adds exactly the same words as value-by-value adds, in
 * every regime: narrow (two levels), medium (three), wide spreads and extreme
 * exponents (value by value), zeros, subnormals, NaN and Inf, ragged lengths. */
static void xsum_array_matches_add(void) {
    const int spans[][2] = {{-3, 3},        {-40, 0},     {-80, 0},    {-200, 100}, {1000, 1023},
                            {-1074, -1000}, {-900, -860}, {980, 1016}, {0, 0}};
    for (size_t t = 0; t < sizeof spans / sizeof spans[0]; t++)
        for (int n = 0; n < 700; n += 1 + n / 3) {
            double *v = malloc((size_t)(n + 1) * sizeof *v);
            for (int i = 0; i < n; i++) {
                v[i] = random_double(spans[t][0], spans[t][1]);
                if (next_u64() % 17 == 0) v[i] = 0.0;
                if (next_u64() % 5 == 0) v[i] = fabs(v[i]);
            }
            if (n > 10 && t == 3) v[n / 2] = ldexp(1.0, -1074);
            if (n > 10 && t == 8) v[n / 3] = (n % 2) ? NAN : INFINITY;
            char what[64];
            snprintf(what, sizeof what, "span [%d, %d]", spans[t][0], spans[t][1]);
            expect_array_words(v, n, what);
            free(v);
        }
}

/* The block fast path at its limits: the largest mantissa at the block's top
 * exponent, the last values two and three levels take whole and the first they
 * cannot, the ends of the exponent range it accepts, signed zeros (a -0
 * remainder is no remainder), NaN among zeros, Inf, exact cancellation; in every
 * rounding mode and with subnormals flushed (where the fast path must step aside). */
static void xsum_array_edges(void) {
    enum { N = 300 };
    static const int modes[] = {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
    static const int tops[] = {-882, -881, -880, -879, -500, 0, 1013, 1014, 1015, 1023};
    static const int gaps[] = {1, 36, 37, 38, 39, 81, 82, 83, 84, 120};
    double v[N];
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        CHECK_INT_EQ(fesetround(modes[m]), 0);
        for (size_t t = 0; t < sizeof tops / sizeof tops[0]; t++)
            for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++)
                for (int n = 250; n <= N; n += 7) {
                    int e = tops[t];
                    for (int i = 0; i < n; i++) {
                        /* mantissas from 1 to 2 - 2^-52, exponents from e - gap to e */
                        double mant = i % 3 ? 2.0 - ldexp(1.0, -52) : 1.0 + ldexp(1.0, -52) * i;
                        int ei = e - (int)(next_u64() % (uint64_t)(gaps[g] + 1));
                        v[i] = ldexp(mant, ei);
                        if (i % 2) v[i] = -v[i];
                        if (i % 11 == 0) v[i] = -0.0;
                    }
                    v[n / 2] = ldexp(2.0 - ldexp(1.0, -52), e); /* the top itself */
                    expect_array_words(v, n, "spread");
                    for (int i = 0; i + 1 < n; i += 2) v[i + 1] = -v[i]; /* sum exactly zero */
                    expect_array_words(v, n, "cancellation");
                }
        for (int n = 1; n <= N; n += 13) {
            for (int i = 0; i < n; i++) v[i] = i % 2 ? -0.0 : 0.0;
            expect_array_words(v, n, "zeros");
            v[n / 3] = NAN;
            expect_array_words(v, n, "NaN among zeros");
            for (int i = 0; i < n; i++) v[i] = random_double(-3, 3);
            v[n / 2] = NAN;
            expect_array_words(v, n, "NaN");
            v[n / 2] = -INFINITY;
            expect_array_words(v, n, "Inf");
        }
    }
    CHECK_INT_EQ(fesetround(FE_TONEAREST), 0);
#ifdef __SSE2__
    /* Flush-to-zero and denormals-are-zero (MXCSR): subnormals still count. */
    unsigned csr = _mm_getcsr();
    _mm_setcsr(csr | 0x8040u);
    for (int n = 4; n <= N; n += 37) {
        for (int i = 0; i < n; i++) v[i] = random_double(-1074, -1000);
        expect_array_words(v, n, "subnormals, FTZ/DAZ");
        for (int i = 0; i < n; i++) v[i] = random_double(-900, -860);
        expect_array_words(v, n, "small normals, FTZ/DAZ");
    }
    _mm_setcsr(csr);
#endif
}

/* Many large terms: carries grow into the top words and come back. */
static void xsum_many_terms(void) {
    mu_xsum s;
    mu_xsum_zero(&s);
    for (int i = 0; i < 1 << 20; i++) mu_xsum_add(&s, ldexp(1.0, 1000));
    mu_xsum_normalize(&s);
    for (int i = 0; i < 1 << 20; i++) mu_xsum_add(&s, -ldexp(1.0, 1000));
    mu_xsum_add(&s, 0.1);
    CHECK_BITS(mu_xsum_round(&s, NULL), 0.1);
}

/* ---- Matrix Market ------------------------------------------------------ */

static char tmpdir[256];

static const char *write_file(const char *name, const char *text) {
    return mu_test_write(tmpdir, name, text);
}

/* Every bundled matrix: n and nnz (both triangles) as in the data README. */
/* The GPU iterations' rounding (gpu/cg_round.h) gives mu_xsum_round's double and
 * status for accumulators of every shape: sums of random terms of one sign or
 * mixed (cancelling to small values, to zero, to negative), wide and narrow
 * exponent ranges, subnormals, values near the overflow limit, halfway cases
 * (ties), and raw words with large signed digits anywhere in the window. */
static void xsum_expect_sparse(const mu_xsum *s, const char *what, int k) {
    mu_xsum a = *s, b = *s;
    mu_xsum_status sa = MU_XSUM_FINITE, sb = MU_XSUM_FINITE;
    const double ra = mu_xsum_round(&a, &sa), rb = mu_xsum_round_sparse(&b, &sb);
    uint64_t ba, bb;
    memcpy(&ba, &ra, 8);
    memcpy(&bb, &rb, 8);
    CHECK(ba == bb && sa == sb,
          "%s #%d: sparse rounding %a (status %d), mu_xsum_round %a (status %d)", what, k, rb,
          (int)sb, ra, (int)sa);
}

static double random_term(int emin, int emax, int sign) {
    double m = 1.0 + (double)(next_u64() >> 12) * 0x1p-52;
    int e = emin + (int)(next_u64() % (uint64_t)(emax - emin + 1));
    double v = ldexp(m, e);
    if (sign == 0) sign = (next_u64() & 1) ? 1 : -1;
    return sign * v;
}

static void xsum_sparse_round_matches(void) {
    static const int ranges[][2] = {{-3, 3},      {-60, 60},   {-1074, -1020}, {-1080, -900},
                                    {1000, 1023}, {-400, 400}, {-1074, 1023},  {0, 0}};
    for (int k = 0; k < 4000; k++) {
        mu_xsum s;
        mu_xsum_zero(&s);
        const int *r = ranges[k % 8];
        const int sign = k % 3 == 0 ? 1 : k % 3 == 1 ? -1 : 0;
        const int n = 1 + (int)(next_u64() % 200);
        double first = 0;
        for (int j = 0; j < n; j++) {
            double v = random_term(r[0], r[1], sign);
            if (j == 0) first = v;
            mu_xsum_add(&s, v);
        }
        if (k % 5 == 0) mu_xsum_add(&s, -first); /* exact cancellation of one term */
        if (k % 7 == 0) mu_xsum_normalize(&s);
        xsum_expect_sparse(&s, "random terms", k);
    }
    /* Cancellation to exact zero, to +-tiny, and ties. */
    for (int k = 0; k < 2000; k++) {
        mu_xsum s;
        mu_xsum_zero(&s);
        double a = random_term(-1074, 1020, 0), b = random_term(-1074, 1020, 0);
        mu_xsum_add(&s, a);
        mu_xsum_add(&s, b);
        mu_xsum_add(&s, -a);
        if (k % 2) mu_xsum_add(&s, -b); /* zero */
        xsum_expect_sparse(&s, "cancellation", k);
        /* x + half an ulp of x (a tie), and just above / below it. */
        mu_xsum_zero(&s);
        double x = random_term(-1000, 1000, 0), u = ldexp(fabs(x), -53);
        mu_xsum_add(&s, x);
        mu_xsum_add(&s, u);
        if (k % 3 == 1) mu_xsum_add(&s, ldexp(u, -60));
        if (k % 3 == 2) mu_xsum_add(&s, -ldexp(u, -60));
        xsum_expect_sparse(&s, "tie", k);
    }
    /* Near the top: sums past DBL_MAX overflow; just under it do not. */
    for (int k = 0; k < 200; k++) {
        mu_xsum s;
        mu_xsum_zero(&s);
        const int n = 1 + k % 5;
        for (int j = 0; j < n; j++) mu_xsum_add(&s, (k & 1 ? -1 : 1) * DBL_MAX * (0.3 + 0.1 * j));
        xsum_expect_sparse(&s, "near overflow", k);
    }
    /* Raw words: large signed digits at random places (what many adds leave). */
    for (int k = 0; k < 20000; k++) {
        mu_xsum s;
        mu_xsum_zero(&s);
        const int nw = 1 + (int)(next_u64() % 6), base = (int)(next_u64() % 66);
        for (int j = 0; j < nw; j++) {
            int at = base + (int)(next_u64() % 4) - 1;
            if (at < 0) at = 0;
            if (at > 65) at = 65;
            int64_t v = (int64_t)(next_u64() >> (2 + next_u64() % 60));
            if (next_u64() & 1) v = -v;
            s.w[at] += v;
        }
        xsum_expect_sparse(&s, "raw words", k);
    }
    /* Specials go through mu_xsum_round itself. */
    mu_xsum s;
    mu_xsum_zero(&s);
    mu_xsum_add(&s, 1.0);
    mu_xsum_add(&s, INFINITY);
    xsum_expect_sparse(&s, "inf", 0);
    mu_xsum_add(&s, NAN);
    xsum_expect_sparse(&s, "nan", 0);
    mu_xsum_zero(&s);
    xsum_expect_sparse(&s, "zero", 0);
}

static void mm_bundled_matrices(void) {
    static const struct {
        const char *name;
        int64_t n, stored, full;
    } table[] = {{"494_bus", 494, 1080, 1666},
                 {"662_bus", 662, 1568, 2474},
                 {"bcsstk26", 1922, 16129, 30336},
                 {"bcsstm25", 15439, 15439, 15439},
                 {"gr_30_30", 900, 4322, 7744},
                 {"LF10", 18, 50, 82},
                 {"LFAT5", 14, 30, 46},
                 {"mesh1e1", 48, 177, 306},
                 {"nos1", 237, 627, 1017},
                 {"nos5", 468, 2820, 5172},
                 {"nos7", 729, 2673, 4617},
                 {"Trefethen_2000", 2000, 21953, 41906}};
    for (size_t t = 0; t < sizeof table / sizeof table[0]; t++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s.mtx", MU_TEST_CG_INPUTS, table[t].name);
        cg_mm m;
        CHECK(cg_mm_read(path, &m) == 0, "%s: %s", path, mu_error_message());
        CHECK_INT_EQ(m.n, table[t].n);
        CHECK_INT_EQ(m.entries, table[t].stored);
        CHECK_INT_EQ(m.nnz, table[t].full);
        CHECK_INT_EQ(m.symmetric, 1);
        CHECK_INT_EQ(m.duplicates, 0);
        int64_t r, c;
        CHECK_INT_EQ(cg_mm_asymmetry(&m, &r, &c), 0);
        for (int64_t i = 0; i < m.n; i++)
            for (int64_t p = m.rowptr[i] + 1; p < m.rowptr[i + 1]; p++)
                CHECK_TRUE(m.col[p - 1] < m.col[p]);
        if (!strcmp(table[t].name, "Trefethen_2000")) CHECK_STR_EQ(m.field, "integer");
        cg_mm_free(&m);
    }
}

/* A gzip copy made here reads into the same matrix. */
static void mm_gzip(void) {
    char src[512], gz[512];
    snprintf(src, sizeof src, "%s/nos5.mtx", MU_TEST_CG_INPUTS);
    snprintf(gz, sizeof gz, "%s/nos5.mtx.gz", tmpdir);
    FILE *in = fopen(src, "rb");
    gzFile out = gzopen(gz, "wb");
    CHECK_TRUE(in != NULL);
    CHECK_TRUE(out != NULL);
    char buf[4096];
    size_t k;
    while ((k = fread(buf, 1, sizeof buf, in)) > 0) gzwrite(out, buf, (unsigned)k);
    fclose(in);
    gzclose(out);
    cg_mm a, b;
    CHECK_INT_EQ(cg_mm_read(src, &a), 0);
    CHECK_INT_EQ(cg_mm_read(gz, &b), 0);
    CHECK_INT_EQ(a.nnz, b.nnz);
    CHECK_MEM_EQ(a.rowptr, b.rowptr, (size_t)(a.n + 1) * sizeof *a.rowptr);
    CHECK_MEM_EQ(a.col, b.col, (size_t)a.nnz * sizeof *a.col);
    CHECK_ARRAY_BITS(a.val, b.val, a.nnz);
    cg_mm_free(&a);
    cg_mm_free(&b);
    /* A corrupt gzip stream is an error, not a short matrix. */
    FILE *f = fopen(gz, "r+b");
    fseek(f, 200, SEEK_SET);
    for (int i = 0; i < 64; i++) fputc(0x55, f);
    fclose(f);
    CHECK_INT_NE(cg_mm_read(gz, &a), 0);
}

/* The study's 5 x 5 example (its Figures 5.1 and 5.2): COO in arbitrary order to CSR. */
static void mm_report_example(void) {
    const char *p = write_file("ex5.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                          "% the study's example\n5 5 12\n"
                                          "5 5 12\n3 5 9\n3 3 7\n2 4 5\n1 1 1\n1 4 2\n"
                                          "4 4 11\n2 1 3\n3 1 6\n2 2 4\n3 4 8\n4 3 10\n");
    cg_mm m;
    CHECK_INT_EQ(cg_mm_read(p, &m), 0);
    const int64_t ia[] = {0, 2, 5, 9, 11, 12};
    const int32_t ja[] = {0, 3, 0, 1, 3, 0, 2, 3, 4, 2, 3, 4};
    const double aa[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    CHECK_MEM_EQ(m.rowptr, ia, sizeof ia);
    CHECK_MEM_EQ(m.col, ja, sizeof ja);
    CHECK_ARRAY_BITS(m.val, aa, sizeof aa / sizeof *aa);
    int64_t r = -1, c = -1;
    CHECK_TRUE(cg_mm_asymmetry(&m, &r, &c) > 0);
    CHECK_INT_EQ(r, 0);
    CHECK_INT_EQ(c, 3);
    cg_mm_free(&m);
}

static void mm_variants(void) {
    cg_mm m;
    /* Pattern, comments and blank lines anywhere, upper-case banner words. */
    const char *p = write_file("pat.mtx", "%%MatrixMarket MATRIX Coordinate PATTERN Symmetric\n"
                                          "%c1\n\n%c2\n3 3 4\n1 1\n\n2 1\n%mid\n2 2\n3 3\n");
    CHECK_INT_EQ(cg_mm_read(p, &m), 0);
    CHECK_INT_EQ(m.nnz, 5);
    for (int k = 0; k < 5; k++) CHECK_TRUE(m.val[k] == 1.0);
    cg_mm_free(&m);
    /* Duplicates are summed in file order; the mirror of a symmetric entry too. */
    p = write_file("dup.mtx", "%%MatrixMarket matrix coordinate real symmetric\n"
                              "2 2 4\n1 1 1.5\n2 1 -1\n2 1 -0.25\n2 2 2\n");
    CHECK_INT_EQ(cg_mm_read(p, &m), 0);
    CHECK_INT_EQ(m.nnz, 4);
    CHECK_INT_EQ(m.duplicates, 2);
    CHECK_TRUE(m.val[1] == -1.25 && m.val[2] == -1.25);
    cg_mm_free(&m);
    /* Integer field; exponents and signs in real values. */
    p = write_file("int.mtx", "%%MatrixMarket matrix coordinate integer general\n"
                              "2 2 2\n1 1 7\n2 2 -3\n");
    CHECK_INT_EQ(cg_mm_read(p, &m), 0);
    CHECK_TRUE(m.val[0] == 7 && m.val[1] == -3);
    cg_mm_free(&m);
    p = write_file("real.mtx", "%%MatrixMarket matrix coordinate real general\n"
                               "1 1 1\n 1   1   -2.5E+03  \r\n");
    CHECK_INT_EQ(cg_mm_read(p, &m), 0);
    CHECK_TRUE(m.val[0] == -2500);
    cg_mm_free(&m);
}

/* Each malformed file: an error naming the file, the line and the problem. */
static void mm_malformed(void) {
    static const struct {
        const char *name, *text, *want;
    } cases[] = {
        {"empty.mtx", "", "empty.mtx:1: empty file"},
        {"banner.mtx", "%%MatrixMarkt matrix coordinate real general\n1 1 1\n1 1 1\n",
         "banner.mtx:1: not a Matrix Market file"},
        {"short.mtx", "%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n",
         "short.mtx:1: incomplete banner"},
        {"array.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n0\n0\n1\n",
         "array.mtx:1: format 'array' is not supported"},
        {"complex.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
         "complex.mtx:1: field 'complex' is not supported"},
        {"herm.mtx", "%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n",
         "herm.mtx:1: symmetry 'hermitian' is not supported"},
        {"skew.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 1\n",
         "skew.mtx:1: symmetry 'skew-symmetric' is not supported"},
        {"vector.mtx", "%%MatrixMarket vector coordinate real general\n1 1 1\n1 1 1\n",
         "vector.mtx:1: object 'vector' is not supported"},
        {"nosize.mtx", "%%MatrixMarket matrix coordinate real general\n% only comments\n",
         "nosize.mtx:3: end of file before the size line"},
        {"badsize.mtx", "%%MatrixMarket matrix coordinate real general\n3 3\n",
         "badsize.mtx:2: expected the size line"},
        {"rect.mtx", "%%MatrixMarket matrix coordinate real general\n3 4 1\n1 1 1\n",
         "rect.mtx:2: the matrix is 3 x 4; CG needs a square matrix"},
        {"few.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n2 2 1\n",
         "few.mtx:5: end of file after 2 of the 3 entries declared on line 2"},
        {"many.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n2 2 1\n",
         "many.mtx:4: more entries than the 1 declared on line 2"},
        {"row0.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n0 1 1\n",
         "row0.mtx:3: row index 0 is out of range 1..2"},
        {"col3.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 3 1\n",
         "col3.mtx:4: column index 3 is out of range 1..2"},
        {"nonnum.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 x4\n",
         "nonnum.mtx:4: 'x4' is not a number"},
        {"nan.mtx", "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 nan\n",
         "nan.mtx:3: value 'nan' is not a finite number"},
        {"intval.mtx", "%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 2.5\n",
         "intval.mtx:3: '2.5' is not an integer"},
        {"fields.mtx", "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1\n",
         "fields.mtx:3: expected 'row column value'"},
        {"extra.mtx", "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1 1\n",
         "extra.mtx:3: expected 'row column value'"},
        {"badidx.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1.5 1 1\n",
         "badidx.mtx:3: row '1.5' is not an integer"},
        {"upper.mtx",
         "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 4\n1 3 -1\n3 3 4\n",
         "upper.mtx:4: entry (1, 3) lies above the diagonal"},
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        const char *p = write_file(cases[t].name, cases[t].text);
        cg_mm m;
        mu_error_clear();
        CHECK(cg_mm_read(p, &m) != 0, "%s: accepted", cases[t].name);
        CHECK(strstr(mu_error_message(), cases[t].want) != NULL, "%s: message '%s' lacks '%s'",
              cases[t].name, mu_error_message(), cases[t].want);
        CHECK_TRUE(m.rowptr == NULL);
    }
    char path[600];
    snprintf(path, sizeof path, "%s/none.mtx", tmpdir);
    cg_mm m;
    CHECK_INT_NE(cg_mm_read(path, &m), 0);
    CHECK_TRUE(strstr(mu_error_message(), "cannot open matrix") != NULL);
    /* A line too long for the reader. */
    char *longline = malloc(3000);
    snprintf(longline, 3000,
             "%%%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 %02000d\n", 1);
    const char *p = write_file("long.mtx", longline);
    free(longline);
    CHECK_INT_NE(cg_mm_read(p, &m), 0);
    CHECK_TRUE(strstr(mu_error_message(), "long.mtx:3: line longer than") != NULL);
}

/* The block reader (1, 2, 3 threads) and the line-by-line reader agree on
 * path: the same status and message, or the same matrix. */
static void mm_agree(const char *path, const char *what) {
    cg_mm ref, m;
    mu_error_clear();
    int rc = cg_mm_read_lines(path, &ref);
    char msg[1200];
    snprintf(msg, sizeof msg, "%s", rc ? mu_error_message() : "");
    for (int threads = 1; threads <= 3; threads++) {
        mu_error_clear();
        int got = cg_mm_read_threads(path, threads, &m);
        CHECK(got == rc, "%s (%d threads): status %d, line reader %d (%s)", what, threads, got, rc,
              msg);
        if (got != rc) continue;
        if (rc) {
            CHECK(strcmp(mu_error_message(), msg) == 0, "%s: message '%s', line reader '%s'", what,
                  mu_error_message(), msg);
            continue;
        }
        CHECK(m.n == ref.n && m.nnz == ref.nnz && m.entries == ref.entries &&
                  m.duplicates == ref.duplicates && m.symmetric == ref.symmetric,
              "%s: sizes differ", what);
        if (m.n == ref.n && m.nnz == ref.nnz) {
            CHECK_MEM_EQ(m.rowptr, ref.rowptr, (size_t)(m.n + 1) * sizeof *m.rowptr);
            CHECK_MEM_EQ(m.col, ref.col, (size_t)m.nnz * sizeof *m.col);
            CHECK_ARRAY_BITS(m.val, ref.val, m.nnz);
        }
        cg_mm_free(&m);
    }
    if (!rc) cg_mm_free(&ref);
}

static const char *write_bytes(const char *name, const char *data, size_t len) {
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    CHECK_TRUE(f != NULL);
    fwrite(data, 1, len, f);
    fclose(f);
    return path;
}

/* Lines the block reader takes, lines it leaves to the line reader (which
 * accepts some, rejects others), and every bundled matrix. */
static void mm_block_reader(void) {
    static const char *head = "%%MatrixMarket matrix coordinate real general\n3 3 4\n";
    static const char *bodies[] = {
        "1 1 1\n2 2 2\n3 3 3\n3 1 -1\n",
        "1 1 1\r\n2 2 2\r\n3 3 3\r\r\n3 1 -1\r\n",
        "1\t1\t1 \t\n  2   2  2  \n%c\n\n \t\n\r\n3 3 3\n3 1 -1",
        "01 001 1\n2 2 2e0\n3 3 .5\n3 1 -1E-2\n",
        "+1 1 1\n2 2 2\n3 3 3\n3 1 -1\n",
        "1 1 \v1\n2 2 2\n3 3 3\n3 1 -1\n",
        "1 1 1\n2 2 2\n3 3 3\n 3 1 1e-320\n",
        "1 1 1\n2 2 2\n3 3 3\n %3 1 1\n",
        "1 1 1\n2 2 2\n3 3 3\n",
        "1 1 1\n2 2 2\n3 3 3\n3 1 -1\n1 1 1\n",
        "1 1 1\n2 2 2\n3 3 3\n3 1\r1\n",
        "1 1 1\n2 2 2\n3 3 3\n3 1 1 1\n",
        "1 1 1\n2 2 2\n3 3 3\n4 1 1\n",
        "1 1 1\n2 2 2\n3 3 3\n3 0 1\n",
        "1 1 1\n2 2 2\n3 3 3\n3 1 inf\n",
        "1 1 1\n2 2 2\n3 3 3\n3 1 0x1p-3\n",
        "1 1 1\n2 2 2\n3 3 3\n3 1 -0\n",
        "1 1 1\n2 2 2\n3 3 3\n99999999999 1 1\n",
    };
    char text[4096], name[64];
    for (size_t b = 0; b < sizeof bodies / sizeof *bodies; b++) {
        snprintf(text, sizeof text, "%s%s", head, bodies[b]);
        snprintf(name, sizeof name, "agree%zu.mtx", b);
        mm_agree(write_file(name, text), name);
    }
    /* Integer and pattern fields, symmetric storage (an upper entry is an error). */
    mm_agree(write_file("ai.mtx", "%%MatrixMarket matrix coordinate integer symmetric\n2 2 3\n"
                                  "1 1 4\n2 1 -9223372036854775807\n2 2 5\n"),
             "integer");
    mm_agree(write_file("ab.mtx", "%%MatrixMarket matrix coordinate integer general\n1 1 1\n"
                                  "1 1 99999999999999999999\n"),
             "integer out of range");
    mm_agree(write_file("ap.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n"
                                  "1 1\n2 1\n3 3\n"),
             "pattern");
    mm_agree(write_file("au.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n"
                                  "1 1\n1 2\n3 3\n"),
             "pattern upper");
    /* A NUL byte in an entry line. */
    static const char nul[] = "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1\0 1\n";
    mm_agree(write_bytes("anul.mtx", nul, sizeof nul - 1), "NUL");
    /* A line longer than the block reader takes, still valid. */
    snprintf(text, sizeof text, "%s1 1 1\n2 2 2\n3 3 3\n3 1 %0700d\n", head, 1);
    mm_agree(write_file("along.mtx", text), "long line");
    for (const char *const *n = (const char *const[]){"bcsstk26", "Trefethen_2000", "nos5", NULL};
         *n; n++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s.mtx", MU_TEST_CG_INPUTS, *n);
        mm_agree(path, *n);
    }
}

/* A file over one block (16 MB): lines cut by the block ends, read whole. */
static void mm_block_ends(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/big.mtx", tmpdir);
    FILE *f = fopen(path, "w");
    CHECK_TRUE(f != NULL);
    const int64_t n = 250000, entries = 3 * n - 3;
    fprintf(f, "%%%%MatrixMarket matrix coordinate real symmetric\n%lld %lld %lld\n", (long long)n,
            (long long)n, (long long)entries);
    for (int64_t r = 1; r <= n; r++) {
        fprintf(f, "%lld %lld %.17g\n", (long long)r, (long long)r, 4.0 + 1.0 / (double)r);
        if (r > 1) fprintf(f, "%lld %lld -1.00000000000000001e0\n", (long long)r, (long long)r - 1);
        if (r > 2)
            fprintf(f, "%% comment %lld\n%lld %lld %.5e\n", (long long)r, (long long)r,
                    (long long)r - 2, -0.25 / (double)r);
    }
    fclose(f);
    cg_mm m;
    CHECK(cg_mm_read_threads(path, 2, &m) == 0, "big.mtx: %s", mu_error_message());
    CHECK_INT_EQ(m.entries, entries);
    cg_mm_free(&m);
    mm_agree(path, "big.mtx");
}

/* Values in many decimal forms (digits, signs, exponents, dots): the block
 * reader's own conversion of plain decimals gives strtod's bits. */
static void mm_decimal_values(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/decimals.mtx", tmpdir);
    FILE *f = fopen(path, "w");
    CHECK_TRUE(f != NULL);
    const int n = 60000;
    fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n", n, n, n);
    for (int r = 1; r <= n; r++) {
        uint64_t u = next_u64();
        int digits = 1 + (int)(u % 19), form = (int)((u >> 8) % 6),
            e10 = (int)((u >> 16) % 60) - 30;
        double x = ((double)(next_u64() >> 11) / 9007199254740992.0) * pow(10.0, e10);
        if ((u >> 32) & 1) x = -x;
        if (form == 0) fprintf(f, "%d %d %.*g\n", r, r, digits, x);
        if (form == 1) fprintf(f, "%d %d %.*e\n", r, r, digits, x);
        if (form == 2) fprintf(f, "%d %d %.*f\n", r, r, digits % 12, x);
        if (form == 3) fprintf(f, "%d %d %lld\n", r, r, (long long)(u >> 40) - (1ll << 23));
        if (form == 4)
            fprintf(f, "%d %d %lld.%05dE%+d\n", r, r, (long long)(u >> 44), (int)(u % 99999), e10);
        if (form == 5) fprintf(f, "%d %d +.%lldE-%d\n", r, r, (long long)(u >> 20), (int)(u % 9));
    }
    fclose(f);
    cg_mm m;
    CHECK(cg_mm_read_threads(path, 2, &m) == 0, "decimals.mtx: %s", mu_error_message());
    cg_mm_free(&m);
    mm_agree(path, "decimals.mtx");
}

/* ---- Poisson ------------------------------------------------------------ */

/* Dense reference built from the definition, independently of poisson.c. */
static double dense_entry(const cg_grid *g, int64_t r, int64_t c) {
    int64_t ri = r % g->nx, rj = (r / g->nx) % g->ny, rk = r / (g->nx * g->ny);
    int64_t ci = c % g->nx, cj = (c / g->nx) % g->ny, ck = c / (g->nx * g->ny);
    int64_t di = llabs(ri - ci), dj = llabs(rj - cj), dk = llabs(rk - ck);
    if (r == c) return g->stencil == CG_POISSON_2D5 ? 4 : g->stencil == CG_POISSON_3D7 ? 6 : 26;
    if (g->stencil == CG_POISSON_3D27) return di <= 1 && dj <= 1 && dk <= 1 ? -1 : 0;
    return di + dj + dk == 1 ? -1 : 0;
}

static void poisson_vs_dense(void) {
    const cg_grid grids[] = {{CG_POISSON_2D5, 5, 4, 1},  {CG_POISSON_2D5, 1, 6, 1},
                             {CG_POISSON_3D7, 4, 3, 5},  {CG_POISSON_3D7, 2, 2, 2},
                             {CG_POISSON_3D27, 4, 5, 3}, {CG_POISSON_3D27, 3, 1, 2}};
    for (size_t t = 0; t < sizeof grids / sizeof grids[0]; t++) {
        const cg_grid *g = &grids[t];
        int64_t n = cg_poisson_rows(g);
        double *x = malloc((size_t)n * sizeof *x);
        for (int64_t i = 0; i < n; i++) x[i] = random_double(-3, 3);
        int64_t total = 0;
        for (int64_t r = 0; r < n; r++) {
            int32_t cols[CG_POISSON_MAX_ROW];
            double vals[CG_POISSON_MAX_ROW];
            int k = cg_poisson_row(g, r, cols, vals);
            CHECK_INT_EQ(k, cg_poisson_row_nnz(g, r));
            total += k;
            /* Every nonzero of the dense row, in ascending order, and nothing else. */
            int q = 0;
            double y = 0, yd = 0;
            for (int64_t c = 0; c < n; c++) {
                double a = dense_entry(g, r, c);
                if (a == 0) continue;
                CHECK_TRUE(q < k);
                CHECK_INT_EQ(cols[q], c);
                CHECK_TRUE(vals[q] == a);
                y += vals[q] * x[cols[q]];
                yd += a * x[c];
                q++;
            }
            CHECK_INT_EQ(q, k);
            CHECK_TRUE(y == yd);
        }
        /* Streamed bounds equal mu_block_by_weight on the prefix. */
        int64_t *prefix = malloc((size_t)(n + 1) * sizeof *prefix);
        prefix[0] = 0;
        for (int64_t r = 0; r < n; r++) prefix[r + 1] = prefix[r] + cg_poisson_row_nnz(g, r);
        CHECK_INT_EQ(prefix[n], total);
        for (int parts = 1; parts <= 9; parts++) {
            int64_t a[10], b[10];
            mu_block_by_weight(prefix, n, parts, a);
            cg_poisson_bounds(g, parts, b);
            CHECK_MEM_EQ(a, b, (size_t)(parts + 1) * sizeof a[0]);
        }
        free(prefix);
        free(x);
    }
}

int main(void) {
    mu_log_init(0, 1);
    if (mu_test_dir_make(tmpdir, sizeof tmpdir, "mutirao_test_cg")) return 1;
    MU_RUN(xsum_order_independent);
    MU_RUN(xsum_matches_int128_reference);
    MU_RUN(xsum_exact_cases);
    MU_RUN(xsum_specials_flagged);
    MU_RUN(xsum_split_matches_add);
    MU_RUN(xsum_array_matches_add);
    MU_RUN(xsum_array_edges);
    MU_RUN(xsum_many_terms);
    MU_RUN(xsum_sparse_round_matches);
    MU_RUN(mm_bundled_matrices);
    MU_RUN(mm_gzip);
    MU_RUN(mm_report_example);
    MU_RUN(mm_variants);
    MU_RUN(mm_malformed);
    MU_RUN(mm_block_reader);
    MU_RUN(mm_block_ends);
    MU_RUN(mm_decimal_values);
    MU_RUN(poisson_vs_dense);
    return mu_test_dir_remove(tmpdir, mu_report("test_cg"));
}
