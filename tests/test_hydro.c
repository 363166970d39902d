/* Unit tests for the hydrophobic-region workload: the FASTA reader, the
 * Kyte-Doolittle scores and Ruzzo-Tompa all maximal scoring subsequences. */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mu_test.h"
#include "core/error.h"
#include "maxsub/fasta.h"
#include "maxsub/hydro.h"

#ifndef MU_TEST_PROTEINS
#define MU_TEST_PROTEINS "inputs/maxsub/proteins.fasta"
#endif

/* ---------------------------------------------------------------- helpers */

static char tmp_path[256];

static const char *write_temp(const char *content, size_t len) {
    const char *dir = getenv("TMPDIR");
    snprintf(tmp_path, sizeof tmp_path, "%s/mu_hydro_XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(tmp_path);
    CHECK_TRUE(fd >= 0);
    CHECK_INT_EQ(write(fd, content, len), (ssize_t)len);
    close(fd);
    return tmp_path;
}

static void check_contains(const char *haystack, const char *needle) {
    CHECK(strstr(haystack, needle) != NULL, "message \"%s\" does not contain \"%s\"", haystack,
          needle);
}

/* Writes content (len bytes) to a temp file and reads it back with
 * mu_fasta_read, which must succeed: its records, *count of them. */
static mu_fasta_record *read_good(const char *content, size_t len, int64_t *count) {
    const char *path = write_temp(content, len);
    mu_fasta_record *recs = NULL;
    *count = 0;
    mu_error_clear();
    int rc = mu_fasta_read(path, &recs, count);
    unlink(path);
    CHECK(rc == 0, "%s", mu_error_message());
    return recs;
}

/* Writes content to a temp file, expects mu_fasta_read to fail, and checks that
 * the message starts with "PATH:LOC" (LOC like "3:" or "3:5:"; NULL for none)
 * and contains each of the NULL-terminated needles. */
static void expect_fasta_error(const char *content, const char *loc, ...) {
    const char *path = write_temp(content, strlen(content));
    mu_fasta_record *recs = (mu_fasta_record *)1;
    int64_t count = -1;
    mu_error_clear();
    int rc = mu_fasta_read(path, &recs, &count);
    const char *msg = mu_error_message();
    unlink(path);
    CHECK(rc != 0, "mu_fasta_read accepted bad input: \"%s\"", content);
    CHECK_TRUE(recs == NULL);
    CHECK_INT_EQ(count, 0);
    char prefix[320];
    snprintf(prefix, sizeof prefix, "%s:%s", path, loc ? loc : "");
    CHECK(strncmp(msg, prefix, strlen(prefix)) == 0, "message \"%s\" does not start with \"%s\"",
          msg, prefix);
    va_list ap;
    va_start(ap, loc);
    for (const char *s; (s = va_arg(ap, const char *));) check_contains(msg, s);
    va_end(ap);
}

/* xorshift64* */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void) {
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}
static int32_t rng_range(int32_t lo, int32_t hi) {
    return lo + (int32_t)(rng() % (uint64_t)(hi - lo + 1));
}

/* ------------------------------------------------------- reference models */

/* The recursive definition: take the highest-scoring non-empty subsequence with a
 * positive score (ties: the shortest, then the leftmost), then recurse on the parts
 * to its left and right. x[lo, hi). Appends in increasing start order. O(n^3). */
static int64_t ref_maximal(const int32_t *x, int64_t lo, int64_t hi, mu_segment *out, int64_t k) {
    if (hi - lo <= 0) return k;
    int64_t best = 0, bs = -1, be = -1;
    for (int64_t i = lo; i < hi; i++) {
        int64_t s = 0;
        for (int64_t j = i; j < hi; j++) {
            s += x[j];
            if (s <= 0) continue;
            if (bs < 0 || s > best ||
                (s == best && (j - i < be - bs || (j - i == be - bs && i < bs)))) {
                best = s;
                bs = i;
                be = j;
            }
        }
    }
    if (bs < 0) return k;
    k = ref_maximal(x, lo, bs, out, k);
    out[k].start = bs;
    out[k].end = be;
    out[k].score = best;
    k++;
    return ref_maximal(x, be + 1, hi, out, k);
}

/* Ruzzo & Tompa's characterisation: I is maximal iff (P1) every proper
 * subsequence of I scores strictly lower than I, and (P2) no proper supersequence
 * of I satisfies P1. Only intervals with a positive score are reported. O(n^4). */
static int64_t ref_p1p2(const int32_t *x, int64_t n, mu_segment *out) {
    int64_t *pre = malloc((size_t)(n + 1) * sizeof *pre);
    char *p1 = calloc((size_t)(n * n + 1), 1);
    CHECK_TRUE(pre != NULL);
    CHECK_TRUE(p1 != NULL);
    pre[0] = 0;
    for (int64_t i = 0; i < n; i++) pre[i + 1] = pre[i] + x[i];
#define SUM(a, b) (pre[(b) + 1] - pre[(a)])
    for (int64_t a = 0; a < n; a++)
        for (int64_t b = a; b < n; b++) {
            int ok = 1;
            for (int64_t c = a; c <= b && ok; c++)
                for (int64_t d = c; d <= b && ok; d++)
                    if ((c != a || d != b) && SUM(c, d) >= SUM(a, b)) ok = 0;
            p1[a * n + b] = (char)ok;
        }
    int64_t k = 0;
    for (int64_t a = 0; a < n; a++)
        for (int64_t b = a; b < n; b++) {
            if (!p1[a * n + b] || SUM(a, b) <= 0) continue;
            int p2 = 1;
            for (int64_t c = 0; c <= a && p2; c++)
                for (int64_t d = b; d < n && p2; d++)
                    if ((c != a || d != b) && p1[c * n + d]) p2 = 0;
            if (p2) {
                out[k].start = a;
                out[k].end = b;
                out[k].score = SUM(a, b);
                k++;
            }
        }
#undef SUM
    free(pre);
    free(p1);
    return k;
}

/* 1-D maximum subarray by brute force with the project's tie rule (that of the
 * study's sequential code): largest sum, then smallest end, then largest start. Non-empty. */
static void ref_max_subarray(const int32_t *x, int64_t n, int64_t *best, int64_t *bs, int64_t *be) {
    *bs = *be = -1;
    *best = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t s = 0;
        for (int64_t j = i; j < n; j++) {
            s += x[j];
            if (*bs < 0 || s > *best || (s == *best && (j < *be || (j == *be && i > *bs)))) {
                *best = s;
                *bs = i;
                *be = j;
            }
        }
    }
}

static void check_segments_equal(const mu_segment *a, int64_t na, const mu_segment *b, int64_t nb,
                                 const int32_t *x, int64_t n) {
    int same = na == nb;
    for (int64_t t = 0; same && t < na; t++)
        same = a[t].start == b[t].start && a[t].end == b[t].end && a[t].score == b[t].score;
    if (!same) {
        fprintf(stderr, "x =");
        for (int64_t i = 0; i < n; i++) fprintf(stderr, " %d", (int)x[i]);
        fprintf(stderr, "\ngot %lld:", (long long)na);
        for (int64_t t = 0; t < na; t++)
            fprintf(stderr, " [%lld,%lld]=%lld", (long long)a[t].start, (long long)a[t].end,
                    (long long)a[t].score);
        fprintf(stderr, "\nwant %lld:", (long long)nb);
        for (int64_t t = 0; t < nb; t++)
            fprintf(stderr, " [%lld,%lld]=%lld", (long long)b[t].start, (long long)b[t].end,
                    (long long)b[t].score);
        fprintf(stderr, "\n");
    }
    CHECK(same, "segments differ");
}

/* ------------------------------------------------------------ FASTA tests */

static void test_fasta_good(void) {
    static const char content[] = "\n"
                                  ">sp|P1|A_HUMAN First protein  \r\n"
                                  "ACDEF ghikl\r\n"
                                  "\tMNPQR\n"
                                  "\n"
                                  "STVWY*\n"
                                  ">id2\n"
                                  "bz\n"
                                  ">  id3   spaced   desc \t\n"
                                  "M\n"
                                  "I *";
    int64_t count;
    mu_fasta_record *recs = read_good(content, sizeof content - 1, &count);
    CHECK_INT_EQ(count, 3);
    CHECK_STR_EQ(recs[0].id, "sp|P1|A_HUMAN");
    CHECK_STR_EQ(recs[0].desc, "First protein");
    CHECK_STR_EQ(recs[0].seq, "ACDEFGHIKLMNPQRSTVWY");
    CHECK_INT_EQ(recs[0].len, 20);
    CHECK_INT_EQ(recs[0].line, 2);
    CHECK_STR_EQ(recs[1].id, "id2");
    CHECK_STR_EQ(recs[1].desc, "");
    CHECK_STR_EQ(recs[1].seq, "BZ");
    CHECK_INT_EQ(recs[1].len, 2);
    CHECK_INT_EQ(recs[1].line, 7);
    CHECK_STR_EQ(recs[2].id, "id3");
    CHECK_STR_EQ(recs[2].desc, "spaced   desc");
    CHECK_STR_EQ(recs[2].seq, "MI");
    CHECK_INT_EQ(recs[2].len, 2);
    CHECK_INT_EQ(recs[2].line, 9);
    mu_fasta_free(recs, count);
    mu_fasta_free(NULL, 0);
}

static void test_fasta_bom(void) {
    static const char content[] = "\xEF\xBB\xBF>a\nAC\n";
    int64_t count;
    mu_fasta_record *recs = read_good(content, sizeof content - 1, &count);
    CHECK_INT_EQ(count, 1);
    CHECK_STR_EQ(recs[0].id, "a");
    CHECK_STR_EQ(recs[0].seq, "AC");
    mu_fasta_free(recs, count);
}

static void test_fasta_missing_file(void) {
    const char *path = "/nonexistent-mu-hydro-dir/proteins.fa";
    mu_fasta_record *recs = (mu_fasta_record *)1;
    int64_t count = -1;
    mu_error_clear();
    CHECK_INT_NE(mu_fasta_read(path, &recs, &count), 0);
    CHECK_TRUE(recs == NULL);
    CHECK_INT_EQ(count, 0);
    check_contains(mu_error_message(), path);
    check_contains(mu_error_message(), strerror(ENOENT));
}

static void test_fasta_directory(void) {
    mu_fasta_record *recs = NULL;
    int64_t count = 0;
    mu_error_clear();
    CHECK_INT_NE(mu_fasta_read("/", &recs, &count), 0);
    CHECK_TRUE(recs == NULL);
    check_contains(mu_error_message(), "/:");
}

static void test_fasta_empty(void) {
    expect_fasta_error("", " ", "empty file", NULL);
    expect_fasta_error("\n  \n\t\r\n", " ", "only blank lines", NULL);
}

static void test_fasta_before_header(void) {
    expect_fasta_error("\nACDE\n>x\nAC\n", "2: ", "before the first header", "'>'", NULL);
}

static void test_fasta_empty_sequence(void) {
    expect_fasta_error(">a\nAC\n>b desc\n\n>c\nMM\n", "3: ", "'b'", "empty sequence", NULL);
    expect_fasta_error(">a\nAC\n>last\n", "3: ", "'last'", "empty sequence", NULL);
    expect_fasta_error(">star\n*\n", "1: ", "'star'", "empty sequence", NULL);
}

static void test_fasta_no_id(void) {
    expect_fasta_error(">a\nAC\n>\nAC\n", "3: ", "no identifier", NULL);
    expect_fasta_error(">a\nAC\n> \t\nAC\n", "3: ", "no identifier", NULL);
}

static void test_fasta_invalid_characters(void) {
    expect_fasta_error(">sp|P02699|OPSD_BOVIN Rhodopsin\nMNGTE\nGPJNF\n", "3:3: ", "'J'",
                       "'sp|P02699|OPSD_BOVIN'", "20 amino-acid letters", NULL);
    expect_fasta_error(">a\nMN\n>b\nAC1D\n", "4:3: ", "unexpected character '1'", "'b'", NULL);
    expect_fasta_error(">a\nAC-D\n", "2:3: ", "gap character '-'", NULL);
    expect_fasta_error(">a\n  acx\n", "2:5: ", "'x'", "Kyte-Doolittle", NULL);
    expect_fasta_error(">a\nAC\x01\n", "2:3: ", "byte 0x01", NULL);
    expect_fasta_error(">a\nAC\n;comment\n", "3:1: ", "';'", NULL);
    expect_fasta_error(">a\nAC*\nDE\n", "2:3: ", "'*'", "line 3 column 1", NULL);
    expect_fasta_error(">a\nAC**\n", "2:3: ", "'*'", NULL);
}

/* -------------------------------------------------------------- KD tests */

static void test_kd_scale(void) {
    /* Kyte & Doolittle 1982, times ten. */
    static const char letters[] = "IVLFCMAGTSWYPHEQDNKR";
    static const int32_t values[] = {45, 42,  38,  28,  25,  19,  18,  -4,  -7,  -8,
                                     -9, -13, -16, -32, -35, -35, -35, -35, -39, -45};
    for (int i = 0; i < 20; i++) {
        CHECK_INT_EQ(mu_kd_tenths(letters[i]), values[i]);
        CHECK_INT_EQ(mu_kd_tenths(letters[i] - 'A' + 'a'), values[i]);
    }
    CHECK_INT_EQ(mu_kd_tenths('B'), (mu_kd_tenths('D') + mu_kd_tenths('N')) / 2);
    CHECK_INT_EQ(mu_kd_tenths('Z'), (mu_kd_tenths('E') + mu_kd_tenths('Q')) / 2);
    const char *none = "XJUOxjuo*-. 1\n";
    for (const char *p = none; *p; p++) CHECK_INT_EQ(mu_kd_tenths(*p), MU_KD_NONE);
    CHECK_INT_EQ(mu_kd_tenths(0), MU_KD_NONE);
    CHECK_INT_EQ(mu_kd_tenths(200), MU_KD_NONE);
}

static void test_kd_scores(void) {
    int32_t out[8];
    CHECK_INT_EQ(mu_kd_scores("IRbz", 4, -10, out), 0);
    CHECK_INT_EQ(out[0], 35);
    CHECK_INT_EQ(out[1], -55);
    CHECK_INT_EQ(out[2], -45);
    CHECK_INT_EQ(out[3], -45);
    CHECK_INT_EQ(mu_kd_scores("A", 0, 0, out), 0);
    mu_error_clear();
    CHECK_INT_NE(mu_kd_scores("ACXD", 4, 0, out), 0);
    check_contains(mu_error_message(), "residue 3");
    check_contains(mu_error_message(), "'X'");
    mu_error_clear();
    CHECK_INT_NE(mu_kd_scores("AC-D", 4, 0, out), 0);
    check_contains(mu_error_message(), "residue 3");
    mu_error_clear();
    CHECK_INT_NE(mu_kd_scores("A", 1, INT32_MAX, out), 0);
    check_contains(mu_error_message(), "offset");
}

/* ---------------------------------------------------- Ruzzo-Tompa tests */

static void check_rt(const int32_t *x, int64_t n) {
    mu_segment got[64], want[64];
    CHECK_TRUE(n <= 64);
    int64_t ng = mu_ruzzo_tompa(x, n, got);
    int64_t nw = ref_maximal(x, 0, n, want, 0);
    CHECK_TRUE(ng >= 0);
    check_segments_equal(got, ng, want, nw, x, n);
}

static void test_rt_examples(void) {
    /* The study's example: the maximum subsequence is (5, 7, 2, -3, 10) = 21. */
    static const int32_t thesis[] = {3, 5, 10, -5, -30, 5, 7, 2, -3, 10, -7, 5};
    mu_segment s[12];
    CHECK_INT_EQ(mu_ruzzo_tompa(thesis, 12, s), 3);
    mu_segment want[] = {{0, 2, 18}, {5, 9, 21}, {11, 11, 5}};
    check_segments_equal(s, 3, want, 3, thesis, 12);
    /* The example of Ruzzo & Tompa: (4), (3) and (1, 2, -2, 2, -2, 1, 5). */
    static const int32_t rtex[] = {4, -5, 3, -3, 1, 2, -2, 2, -2, 1, 5};
    mu_segment want2[] = {{0, 0, 4}, {2, 2, 3}, {4, 10, 7}};
    CHECK_INT_EQ(mu_ruzzo_tompa(rtex, 11, s), 3);
    check_segments_equal(s, 3, want2, 3, rtex, 11);
    /* Edge cases. */
    CHECK_INT_EQ(mu_ruzzo_tompa(NULL, 0, s), 0);
    static const int32_t neg[] = {-1, 0, -3, 0};
    CHECK_INT_EQ(mu_ruzzo_tompa(neg, 4, s), 0);
    static const int32_t pos[] = {1, 2, 3};
    CHECK_INT_EQ(mu_ruzzo_tompa(pos, 3, s), 1);
    CHECK_INT_EQ(s[0].start, 0);
    CHECK_INT_EQ(s[0].end, 2);
    CHECK_INT_EQ(s[0].score, 6);
    static const int32_t ties[] = {0, 1, -1, 1, 0};
    check_rt(ties, 5); /* [1] and [3], not [1..3] */
    CHECK_INT_EQ(mu_ruzzo_tompa(ties, 5, s), 2);
    mu_error_clear();
    CHECK_INT_EQ(mu_ruzzo_tompa(pos, -1, s), -1);
    check_contains(mu_error_message(), "negative");
}

static void test_rt_random_vs_recursive(void) {
    int32_t x[40];
    static const int32_t ranges[][2] = {{-3, 3}, {-1, 1}, {-10, 10}, {-55, 35}, {-5, 2}, {0, 3}};
    for (int iter = 0; iter < 30000; iter++) {
        int64_t n = (int64_t)(rng() % 41);
        const int32_t *r = ranges[iter % 6];
        for (int64_t i = 0; i < n; i++) x[i] = rng_range(r[0], r[1]);
        check_rt(x, n);
    }
}

static void test_rt_random_vs_p1p2(void) {
    int32_t x[14];
    mu_segment got[14], want[14], rec[14];
    for (int iter = 0; iter < 3000; iter++) {
        int64_t n = (int64_t)(rng() % 15);
        int32_t lo = iter % 2 ? -3 : -2, hi = iter % 3 ? 2 : 3;
        for (int64_t i = 0; i < n; i++) x[i] = rng_range(lo, hi);
        int64_t ng = mu_ruzzo_tompa(x, n, got);
        int64_t nw = ref_p1p2(x, n, want);
        int64_t nr = ref_maximal(x, 0, n, rec, 0);
        check_segments_equal(got, ng, want, nw, x, n);
        check_segments_equal(rec, nr, want, nw, x, n);
    }
}

/* Invariants on a long random input: disjoint, non-adjacent, increasing, scores
 * equal to the sums, positive ends, and the top one is the maximum subarray. */
static void test_rt_large(void) {
    const int64_t n = 2000000;
    int32_t *x = malloc((size_t)n * sizeof *x);
    int64_t *pre = malloc((size_t)(n + 1) * sizeof *pre);
    mu_segment *s = malloc((size_t)n * sizeof *s);
    CHECK_TRUE(x != NULL);
    CHECK_TRUE(pre != NULL);
    CHECK_TRUE(s != NULL);
    pre[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        x[i] = rng_range(-55, 35);
        pre[i + 1] = pre[i] + x[i];
    }
    int64_t m = mu_ruzzo_tompa(x, n, s);
    CHECK_TRUE(m > 0);
    int64_t top = 0;
    for (int64_t t = 0; t < m; t++) {
        CHECK_TRUE(s[t].start <= s[t].end);
        if (t) CHECK_TRUE(s[t].start > s[t - 1].end + 1);
        CHECK_INT_EQ(s[t].score, pre[s[t].end + 1] - pre[s[t].start]);
        CHECK_TRUE(x[s[t].start] > 0 && x[s[t].end] > 0);
        if (s[t].score > s[top].score) top = t;
    }
    /* Kadane with the tie rule: largest sum, smallest end, largest start. */
    int64_t best = INT64_MIN, bs = -1, be = -1, run = 0, rs = 0;
    for (int64_t j = 0; j < n; j++) {
        if (run <= 0) {
            run = x[j];
            rs = j;
        } else {
            run += x[j];
        }
        /* Resetting on run <= 0 leaves every proper prefix of the run positive,
         * so rs is the largest start for this end; '>' keeps the smallest end. */
        if (run > best) {
            best = run;
            bs = rs;
            be = j;
        }
    }
    CHECK_INT_EQ(s[top].score, best);
    CHECK_INT_EQ(s[top].end, be);
    CHECK_INT_EQ(s[top].start, bs);
    free(x);
    free(pre);
    free(s);
}

static void test_segments_filter(void) {
    mu_segment s[] = {{0, 4, 50}, {6, 6, 200}, {8, 30, 99}, {40, 59, 100}};
    CHECK_INT_EQ(mu_segments_filter(s, 4, 100, 5), 1);
    CHECK_INT_EQ(s[0].start, 40);
    mu_segment t[] = {{0, 4, 50}, {6, 6, 200}};
    CHECK_INT_EQ(mu_segments_filter(t, 2, 0, 0), 2);
    CHECK_INT_EQ(mu_segments_filter(t, 2, 0, 2), 1);
    CHECK_INT_EQ(t[0].score, 50);
}

/* ------------------------------------------------- the bundled proteins */

static void test_proteins(void) {
    mu_fasta_record *recs = NULL;
    int64_t count = 0;
    mu_error_clear();
    CHECK(mu_fasta_read(MU_TEST_PROTEINS, &recs, &count) == 0, "%s", mu_error_message());
    CHECK_INT_EQ(count, 3);
    CHECK_STR_EQ(recs[0].id, "sp|P02699|OPSD_BOVIN");
    CHECK_INT_EQ(recs[0].len, 348);
    CHECK_STR_EQ(recs[1].id, "sp|P02945|BACR_HALSA");
    CHECK_INT_EQ(recs[1].len, 262);
    CHECK_STR_EQ(recs[2].id, "sp|P01308|INS_HUMAN");
    CHECK_INT_EQ(recs[2].len, 110);
    const int32_t offset = MU_HYDRO_DEFAULT_OFFSET;
    for (int64_t r = 0; r < count; r++) {
        int64_t n = recs[r].len;
        int32_t *x = malloc((size_t)n * sizeof *x);
        mu_segment *got = malloc((size_t)n * sizeof *got);
        mu_segment *want = malloc((size_t)n * sizeof *want);
        CHECK_TRUE(x != NULL);
        CHECK_TRUE(got != NULL);
        CHECK_TRUE(want != NULL);
        CHECK_INT_EQ(mu_kd_scores(recs[r].seq, n, offset, x), 0);
        int64_t ng = mu_ruzzo_tompa(x, n, got);
        int64_t nw = ref_maximal(x, 0, n, want, 0);
        check_segments_equal(got, ng, want, nw, x, n);
        /* The top maximal segment (leftmost among equal scores) is the 1-D maximum
         * subarray under the tie rule. */
        int64_t best, bs, be, top = 0;
        ref_max_subarray(x, n, &best, &bs, &be);
        CHECK_TRUE(ng > 0);
        for (int64_t t = 1; t < ng; t++)
            if (got[t].score > got[top].score) top = t;
        CHECK_INT_EQ(got[top].score, best);
        CHECK_INT_EQ(got[top].start, bs);
        CHECK_INT_EQ(got[top].end, be);
        /* The convenience wrapper agrees with the pieces. */
        mu_segment *f = NULL;
        int64_t nf = 0;
        CHECK_INT_EQ(mu_hydro_segments(recs[r].seq, n, offset, MU_HYDRO_DEFAULT_MIN_SCORE,
                                       MU_HYDRO_DEFAULT_MIN_LEN, &f, &nf),
                     0);
        int64_t nk =
            mu_segments_filter(got, ng, MU_HYDRO_DEFAULT_MIN_SCORE, MU_HYDRO_DEFAULT_MIN_LEN);
        check_segments_equal(f, nf, got, nk, x, n);
        printf("%s (%lld aa), offset %d, min score %d, min length %d: %lld of %lld "
               "maximal segments\n",
               recs[r].id, (long long)n, (int)offset, (int)MU_HYDRO_DEFAULT_MIN_SCORE,
               (int)MU_HYDRO_DEFAULT_MIN_LEN, (long long)nf, (long long)ng);
        for (int64_t t = 0; t < nf; t++)
            printf("  %4lld-%-4lld len %3lld score %6.1f  %.*s\n", (long long)f[t].start + 1,
                   (long long)f[t].end + 1, (long long)(f[t].end - f[t].start + 1),
                   (double)f[t].score / 10.0, (int)(f[t].end - f[t].start + 1),
                   recs[r].seq + f[t].start);
        free(f);
        free(x);
        free(got);
        free(want);
    }
    mu_fasta_free(recs, count);
}

int main(void) {
    MU_RUN(test_fasta_good);
    MU_RUN(test_fasta_bom);
    MU_RUN(test_fasta_missing_file);
    MU_RUN(test_fasta_directory);
    MU_RUN(test_fasta_empty);
    MU_RUN(test_fasta_before_header);
    MU_RUN(test_fasta_empty_sequence);
    MU_RUN(test_fasta_no_id);
    MU_RUN(test_fasta_invalid_characters);
    MU_RUN(test_kd_scale);
    MU_RUN(test_kd_scores);
    MU_RUN(test_rt_examples);
    MU_RUN(test_rt_random_vs_recursive);
    MU_RUN(test_rt_random_vs_p1p2);
    MU_RUN(test_rt_large);
    MU_RUN(test_segments_filter);
    MU_RUN(test_proteins);
    return mu_report("test_hydro");
}
