/* maxsub CPU reference: the study's worked examples, reference answers computed
 * independently of this code, and brute force on small inputs with ties. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "mu_test.h"
#include "gpu/maxsub_monoid.h"
#include "maxsub/gen.h"
#include "maxsub/strip2d.h"

/* Answer (sum, start, end) by enumeration, tie rule spelled out: largest sum,
 * then smallest end, then largest start; allowed mode counts only sums > 0. */
static void brute1d(const int32_t *x, int n, int empty, int64_t out[3]) {
    int have = 0;
    int64_t bs = 0, b0 = -1, b1 = -1;
    for (int j = 0; j < n; j++)
        for (int i = j; i >= 0; i--) {
            int64_t s = 0;
            for (int k = i; k <= j; k++) s += x[k];
            if (empty && s <= 0) continue;
            if (!have || s > bs || (s == bs && (j < b1 || (j == b1 && i > b0)))) {
                have = 1;
                bs = s;
                b0 = i;
                b1 = j;
            }
        }
    out[0] = bs;
    out[1] = b0;
    out[2] = b1;
}

static uint64_t rng_state = 88172645463325252ull;
static int32_t rnd(int32_t lo, int32_t hi) {
    return lo + (int32_t)(mu_test_u64(&rng_state) % (uint64_t)(hi - lo + 1));
}

static void study_example(void) {
    const int32_t x[] = {3, 5, 10, -5, -30, 5, 7, 2, -3, 10, -7, 5};
    mu_mss_summary s = mu_mss_scan_array(x, 12, 0, 1);
    CHECK_INT_EQ(s.best, 21);
    CHECK_INT_EQ(s.best_start, 5);
    CHECK_INT_EQ(s.best_end, 9);
    /* Split tests: p = 1, 2, 3 all combine to 21. */
    for (int p = 1; p <= 3; p++) {
        mu_mss_summary r = mu_mss_identity(0);
        for (int k = 0; k < p; k++)
            r = mu_mss_combine(r, mu_mss_scan_array(x + k * (12 / p), 12 / p, k * (12 / p), 1), 1);
        CHECK_INT_EQ(r.best, 21);
        CHECK_INT_EQ(r.best_start, 5);
        CHECK_INT_EQ(r.best_end, 9);
    }
}

/* Figure 4.2: five values (6, -9, 14, -12, 9) map to the four of the associative form. */
static void figure_4_2(void) {
    const int32_t y[] = {5, -3, -1, 5, -9, 3, 2, 8, 1, -9, 3, -6, 3, -1, 0, 3, -3, 0, 7};
    const int64_t tp = 6, tn1 = -9, tm = 14, tn2 = -12, ts = 9;
    mu_mss_summary s = mu_mss_scan_array(y, 19, 0, 1);
    CHECK_INT_EQ(s.sum, tp + tn1 + tm + tn2 + ts);
    CHECK_INT_EQ(s.best, tm);
    CHECK_INT_EQ(s.best_start, 5);
    CHECK_INT_EQ(s.best_end, 8);
    CHECK_INT_EQ(s.pre, tp > tp + tn1 + tm ? tp : tp + tn1 + tm);
    CHECK_INT_EQ(s.suf, ts > tm + tn2 + ts ? ts : tm + tn2 + ts);
    /* The order test: the segment twice gives 22 (the study's misordered tuples give 31). */
    mu_mss_summary two = mu_mss_combine(s, mu_mss_scan_array(y, 19, 19, 1), 1);
    CHECK_INT_EQ(two.best, 22);
    int32_t yy[38];
    memcpy(yy, y, sizeof y);
    memcpy(yy + 19, y, sizeof y);
    int64_t b[3];
    brute1d(yy, 38, 1, b);
    CHECK_INT_EQ(two.best_start, b[1]);
    CHECK_INT_EQ(two.best_end, b[2]);
}

static void sequential_trap_and_negatives(void) {
    const int32_t trap[] = {-5, 1, -2, -4, 4, -3, 3, 1, 4, -5};
    mu_mss_summary s = mu_mss_scan_array(trap, 10, 0, 1);
    CHECK_INT_EQ(s.best, 9);
    CHECK_INT_EQ(s.best_start, 4);
    CHECK_INT_EQ(s.best_end, 8);
    const int32_t neg[] = {-3, -1, -4, -1, -5, -9, -2, -6};
    mu_mss_summary a =
        mu_mss_combine(mu_mss_scan_array(neg, 4, 0, 1), mu_mss_scan_array(neg + 4, 4, 4, 1), 1);
    CHECK_INT_EQ(a.best, 0);
    CHECK_INT_EQ(a.best_start, -1);
    mu_mss_summary f =
        mu_mss_combine(mu_mss_scan_array(neg, 4, 0, 0), mu_mss_scan_array(neg + 4, 4, 4, 0), 0);
    CHECK_INT_EQ(f.best, -1);
    CHECK_INT_EQ(f.best_start, 1);
    CHECK_INT_EQ(f.best_end, 1);
}

/* Random arrays with many ties, split at random points: scan, combine and brute force agree. */
static void brute_force_1d(void) {
    for (int trial = 0; trial < 20000; trial++) {
        int n = 1 + rnd(0, 17), empty = trial % 2;
        int32_t range = 1 + rnd(0, 4), x[18];
        for (int i = 0; i < n; i++) x[i] = rnd(-range, range);
        if (trial % 7 == 0)
            for (int i = 0; i < n; i++) x[i] = -abs(x[i]);
        int64_t want[3];
        brute1d(x, n, empty, want);
        mu_mss_summary direct = mu_mss_scan_array(x, n, 0, empty);
        mu_mss_summary r = mu_mss_identity(0);
        for (int lo = 0; lo < n;) {
            int len = 1 + rnd(0, n - lo - 1);
            r = mu_mss_combine(r, mu_mss_scan_array(x + lo, len, lo, empty), empty);
            lo += len;
        }
        int64_t got[2][3] = {{direct.best, direct.best_start, direct.best_end},
                             {r.best, r.best_start, r.best_end}};
        for (int k = 0; k < 2; k++) {
            if (empty && got[k][0] == 0) got[k][1] = got[k][2] = -1;
            CHECK_INT_EQ(got[k][0], want[0]);
            CHECK_INT_EQ(got[k][1], want[1]);
            CHECK_INT_EQ(got[k][2], want[2]);
        }
        CHECK_INT_EQ(r.sum, direct.sum);
        CHECK_INT_EQ(r.pre, direct.pre);
        CHECK_INT_EQ(r.suf, direct.suf);
    }
}

static void overflow_needs_int64(void) {
    int32_t x[64];
    for (int i = 0; i < 64; i++) x[i] = INT32_MAX;
    mu_mss_summary s = mu_mss_scan_array(x, 64, 0, 1);
    CHECK_TRUE(s.best == 64 * (int64_t)INT32_MAX);
    for (int i = 0; i < 64; i++) x[i] = INT32_MIN;
    s = mu_mss_scan_array(x, 64, 0, 0);
    CHECK_TRUE(s.best == (int64_t)INT32_MIN);
    CHECK_TRUE(s.sum == 64 * (int64_t)INT32_MIN);
}

/* The study's generator: glibc rand() never seeded. */
static void thesis_generator(void) {
    const int32_t first[] = {680, -211, 566, 596, 823, -604, -329, 536, -444, 107};
    int32_t got[10];
    mu_gen_thesis(0, 10, got);
    CHECK_MEM_EQ(got, first, sizeof first);
    int32_t mid[5], whole[15];
    mu_gen_thesis(10, 15, mid);
    mu_gen_thesis(0, 15, whole);
    CHECK_MEM_EQ(mid, whole + 10, sizeof mid);
#ifdef __GLIBC__
    srand(1);
    mu_glibc_rand g;
    mu_glibc_rand_seed(&g, 1);
    for (int i = 0; i < 100000; i++) CHECK_INT_EQ(mu_glibc_rand_next(&g), rand());
#endif
}

/* Independent reference answers on the study's 1-D inputs. */
static void thesis_1d_references(void) {
    const struct {
        int64_t n, sum, start, end;
    } ref[] = {{100000, 220221, 47667, 94959},       {200000, 323778, 47667, 104040},
               {500000, 682654, 47667, 366549},      {1000000, 682654, 47667, 366549},
               {2000000, 682654, 47667, 366549},     {5000000, 991974, 2812785, 3868425},
               {10000000, 1720456, 2812785, 7936134}};
    int32_t *x = malloc(10000000 * sizeof *x);
    mu_gen_thesis(0, 10000000, x);
    for (size_t k = 0; k < sizeof ref / sizeof ref[0]; k++) {
        mu_mss_summary s = mu_mss_scan_array(x, ref[k].n, 0, 1);
        CHECK_INT_EQ(s.best, ref[k].sum);
        CHECK_INT_EQ(s.best_start, ref[k].start);
        CHECK_INT_EQ(s.best_end, ref[k].end);
    }
    free(x);
}

/* The whole 2-D path as the command runs it on one rank (cols <= rows). */
static void solve2d(const int32_t *k, int64_t rows, int64_t cols, int empty, int64_t out[5]) {
    int64_t *V = malloc((size_t)(rows * (cols + 1)) * sizeof *V);
    mu_mss2d_prefix(k, rows, cols, V);
    int64_t best, pair;
    mu_mss2d_cpu_tiles(V, rows, cols, 0, mu_mss_tile_count(cols), empty, &best, &pair);
    free(V);
    if (pair < 0) {
        out[0] = 0;
        out[1] = out[2] = out[3] = out[4] = -1;
        return;
    }
    int64_t g, h, sum, r0, r1;
    mu_mss_tri_unrank(cols, pair, &g, &h);
    mu_mss2d_strip(k, rows, cols, g, h, empty, &sum, &r0, &r1);
    CHECK_INT_EQ(sum, best);
    out[0] = sum;
    out[1] = r0;
    out[2] = r1;
    out[3] = g;
    out[4] = h;
}

static const int32_t K5[25] = {
    -10, -10, 20, -20, -30, /* row 0 */
    5,   -20, 10, 40,  10,  /* row 1 */
    30,  -40, 20, -10, -15, /* row 2 */
    -20, 4,   -5, 50,  10,  /* row 3 */
    10,  -20, 10, -40, 10,  /* row 4 */
};

static void study_matrix(void) {
    int64_t r[5];
    solve2d(K5, 5, 5, 1, r);
    int64_t want[5] = {110, 1, 3, 2, 4};
    CHECK_MEM_EQ(r, want, sizeof want);
    /* The study's 5 x 5 example: all 15 pairs (id order) with their maxima and rows. */
    const int64_t table[15][3] = {{35, 1, 2},  {0, -1, -1}, {10, 2, 2}, {64, 1, 3}, {69, 1, 3},
                                  {4, 3, 3},   {10, 0, 0},  {49, 3, 3}, {59, 3, 3}, {55, 0, 4},
                                  {105, 1, 3}, {110, 1, 3}, {80, 1, 3}, {85, 1, 3}, {20, 3, 4}};
    for (int id = 0; id < 15; id++) {
        int64_t g, h, s, a, b;
        mu_mss_tri_unrank(5, id, &g, &h);
        CHECK_INT_EQ(mu_mss_pair_id(5, g, h), id);
        mu_mss2d_strip(K5, 5, 5, g, h, 1, &s, &a, &b);
        CHECK_INT_EQ(s, table[id][0]);
        CHECK_INT_EQ(a, table[id][1]);
        CHECK_INT_EQ(b, table[id][2]);
    }
    int64_t g, h;
    mu_mss_tri_unrank(5, 7, &g, &h);
    CHECK_TRUE(g == 1 && h == 3);
    mu_mss_tri_unrank(5, 11, &g, &h);
    CHECK_TRUE(g == 2 && h == 4);
}

/* Integer-exact pair mapping: every id for small n, row boundaries for large n. */
static void pair_mapping(void) {
    for (int64_t t = 1; t <= 300; t++) {
        int64_t id = 0;
        for (int64_t g = 0; g < t; g++)
            for (int64_t h = g; h < t; h++, id++) {
                int64_t a, b;
                mu_mss_tri_unrank(t, id, &a, &b);
                CHECK_TRUE(a == g && b == h);
            }
    }
    const int64_t big[] = {6144, 15360, 23171, 100000, 3037000};
    for (size_t k = 0; k < sizeof big / sizeof big[0]; k++) {
        int64_t t = big[k];
        for (int64_t g = 0; g < t; g += 1 + g / 3) {
            const int64_t hs[] = {g, g + 1, t - 2, t - 1};
            for (int q = 0; q < 4; q++) {
                if (hs[q] < g || hs[q] >= t) continue;
                int64_t a, b;
                mu_mss_tri_unrank(t, mu_mss_pair_id(t, g, hs[q]), &a, &b);
                CHECK_TRUE(a == g && b == hs[q]);
            }
        }
    }
}

/* Brute force over every submatrix: largest sum, then (col0, col1) lexicographic,
 * then the 1-D rule on the rows. */
static void brute2d(const int32_t *k, int rows, int cols, int empty, int64_t out[5]) {
    int have = 0;
    int64_t best[5] = {0, -1, -1, -1, -1};
    for (int g = 0; g < cols; g++)
        for (int h = g; h < cols; h++)
            for (int r1 = 0; r1 < rows; r1++)
                for (int r0 = r1; r0 >= 0; r0--) {
                    int64_t s = 0;
                    for (int i = r0; i <= r1; i++)
                        for (int j = g; j <= h; j++) s += k[i * cols + j];
                    if (empty && s <= 0) continue;
                    int better = !have || s > best[0];
                    if (have && s == best[0]) {
                        if (g != best[3] || h != best[4])
                            better = g < best[3] || (g == best[3] && h < best[4]);
                        else
                            better = r1 < best[2] || (r1 == best[2] && r0 > best[1]);
                    }
                    if (better) {
                        have = 1;
                        int64_t v[5] = {s, r0, r1, g, h};
                        memcpy(best, v, sizeof v);
                    }
                }
    memcpy(out, best, sizeof best);
}

static void brute_force_2d(void) {
    for (int trial = 0; trial < 1500; trial++) {
        int cols = 1 + rnd(0, 5), rows = cols + rnd(0, 3), empty = trial % 2;
        int32_t k[81], range = 1 + rnd(0, 3);
        for (int i = 0; i < rows * cols; i++) k[i] = rnd(-range, range);
        if (trial % 9 == 0)
            for (int i = 0; i < rows * cols; i++) k[i] = -abs(k[i]);
        int64_t want[5], got[5];
        brute2d(k, rows, cols, empty, want);
        solve2d(k, rows, cols, empty, got);
        CHECK_MEM_EQ(got, want, sizeof want);
    }
    /* More than one tile: 70 columns span two tiles per side. */
    for (int trial = 0; trial < 4; trial++) {
        int rows = 75, cols = 70;
        int32_t *k = malloc((size_t)(rows * cols) * sizeof *k);
        for (int i = 0; i < rows * cols; i++) k[i] = rnd(-9, 9);
        int64_t got[5];
        solve2d(k, rows, cols, trial % 2, got);
        int64_t check = 0;
        for (int64_t i = got[1]; i <= got[2]; i++)
            for (int64_t j = got[3]; j <= got[4]; j++) check += k[i * cols + j];
        CHECK_INT_EQ(check, got[0]);
        /* No single row strip or column strip beats it. */
        for (int g = 0; g < cols; g++)
            for (int h = g; h < cols; h++) {
                int64_t s, a, b;
                mu_mss2d_strip(k, rows, cols, g, h, trial % 2, &s, &a, &b);
                CHECK_TRUE(s <= got[0]);
            }
        free(k);
    }
}

/* Independent reference answers on the study's 2-D inputs (row-major from a fresh stream). */
static void thesis_2d_references(void) {
    const struct {
        int64_t n, sum, r0, r1, c0, c1;
    } ref[] = {{512, 491682, 40, 453, 175, 426},
#ifndef MUTIRAO_SANITIZE
               {1024, 1048459, 131, 1017, 182, 480}
#endif
    };
    for (size_t q = 0; q < sizeof ref / sizeof ref[0]; q++) {
        int64_t n = ref[q].n;
        int32_t *k = malloc((size_t)(n * n) * sizeof *k);
        mu_gen_thesis(0, n * n, k);
        int64_t got[5];
        solve2d(k, n, n, 1, got);
        int64_t want[5] = {ref[q].sum, ref[q].r0, ref[q].r1, ref[q].c0, ref[q].c1};
        CHECK_MEM_EQ(got, want, sizeof want);
        free(k);
    }
}

/* The strip (g, h)'s summary over rows [a, b) by enumeration: total, best
 * prefix, best suffix, best run (allowed: the empty one counts as 0). */
static mu_mss2d_sum brute_sum(const int32_t *k, int cols, int g, int h, int a, int b, int empty) {
    int64_t c[96];
    for (int i = a; i < b; i++) {
        c[i - a] = 0;
        for (int j = g; j <= h; j++) c[i - a] += k[i * cols + j];
    }
    int n = b - a;
    int64_t lo = empty ? 0 : MU_MSS_NEG_INF;
    mu_mss2d_sum s = {0, lo, lo, lo};
    for (int i = 0; i < n; i++) s.sum += c[i];
    for (int x = 0; x < n; x++)
        for (int y = x; y < n; y++) {
            int64_t t = 0;
            for (int i = x; i <= y; i++) t += c[i];
            if (t > s.best) s.best = t;
            if (x == 0 && t > s.pre) s.pre = t;
            if (y == n - 1 && t > s.suf) s.suf = t;
        }
    return s;
}

/* A block of columns [lo, lo + w) of rows [a, b): global prefix columns lo .. lo + w. */
static int64_t *block_prefix(const int32_t *k, int cols, int lo, int w, int a, int b) {
    int64_t *V = malloc((size_t)((b - a) * (w + 1)) * sizeof *V);
    for (int i = a; i < b; i++) {
        int64_t s = 0;
        for (int j = 0; j < lo; j++) s += k[i * cols + j];
        for (int j = 0; j <= w; j++) {
            V[(i - a) * (w + 1) + j] = s;
            if (j < w) s += k[i * cols + lo + j];
        }
    }
    return V;
}

/* The distributed 2-D path's pieces: block-pair tiles against the whole
 * matrix's, and band summaries (each band's against brute force, combined in
 * row order against the whole strip's) for random splits, both conventions. */
static void band_summaries(void) {
    enum { T = MU_MSS_TILE };
    for (int trial = 0; trial < 300; trial++) {
        int cols = 2 + rnd(0, 140), rows = 1 + rnd(0, 40), empty = trial % 2;
        int32_t *k = malloc((size_t)(rows * cols) * sizeof *k);
        for (int i = 0; i < rows * cols; i++) k[i] = rnd(-4, trial % 3 ? 4 : -1);
        int cut = 1 + rnd(0, cols - 2), bcut = rnd(0, rows - 1); /* blocks [0, cut), [cut, cols) */
        int lo[2] = {0, cut}, w[2] = {cut, cols - cut};
        int64_t *V[2] = {block_prefix(k, cols, 0, cut, 0, rows),
                         block_prefix(k, cols, cut, cols - cut, 0, rows)};
        /* Block pairs (0,0), (0,1), (1,1) cover every pair: the best equals the whole's. */
        int64_t *W = malloc((size_t)(rows * (cols + 1)) * sizeof *W), wb, wp, best, pair;
        mu_mss2d_prefix(k, rows, cols, W);
        mu_mss2d_cpu_tiles(W, rows, cols, 0, mu_mss_tile_count(cols), empty, &wb, &wp);
        best = empty ? 0 : MU_MSS_NEG_INF;
        pair = -1;
        for (int G = 0; G < 2; G++)
            for (int H = G; H < 2; H++) {
                mu_mss2d_block bg = {V[G], lo[G], w[G]}, bh = {V[H], lo[H], w[H]};
                int64_t nt = mu_mss2d_block_tile_count(w[G], w[H], G == H), half = nt / 2, b, p;
                mu_mss2d_block_best(&bg, &bh, rows, cols, G == H, 0, half, empty, &b, &p);
                mu_mss2d_keep(&best, &pair, b, p);
                mu_mss2d_block_best(&bg, &bh, rows, cols, G == H, half, nt, empty, &b, &p);
                mu_mss2d_keep(&best, &pair, b, p);
            }
        CHECK_INT_EQ(best, wb);
        CHECK_INT_EQ(pair, wp);
        /* Bands [0, bcut) and [bcut, rows) of the pair (block 0, block 1). */
        mu_mss2d_block b0[2], b1[2];
        int64_t *P[2][2];
        int bands[3] = {0, bcut, rows}, nb = bcut > 0 ? 2 : 1, first = bcut > 0 ? 0 : 1;
        for (int q = first; q < 2; q++)
            for (int B = 0; B < 2; B++)
                P[q][B] = block_prefix(k, cols, lo[B], w[B], bands[q], bands[q + 1]);
        int64_t nt = mu_mss2d_block_tile_count(w[0], w[1], 0);
        mu_mss2d_sum *s[2], *all = malloc((size_t)nt * T * T * sizeof *all);
        for (int q = first; q < 2; q++) {
            b0[q] = (mu_mss2d_block){P[q][0], lo[0], w[0]};
            b1[q] = (mu_mss2d_block){P[q][1], lo[1], w[1]};
            s[q] = malloc((size_t)nt * T * T * sizeof *s[q]);
            mu_mss2d_block_sums(&b0[q], &b1[q], bands[q + 1] - bands[q], 0, 0, nt, empty, s[q]);
        }
        for (int64_t x = 0; x < nt * T * T; x++)
            all[x] = nb == 2 ? mu_mss2d_sum_combine(s[0][x], s[1][x]) : s[1][x];
        for (int64_t id = 0; id < nt; id++) {
            int64_t tg, th;
            mu_mss2d_block_tile(w[0], w[1], 0, id, &tg, &th);
            for (int a = 0; a < T; a++)
                for (int b = 0; b < T; b++) {
                    int g = (int)(tg * T + a), h = (int)(th * T + b);
                    if (g >= w[0] || h >= w[1] || (a + b) % 7) continue; /* a sample */
                    mu_mss2d_sum want = brute_sum(k, cols, g, cut + h, 0, rows, empty);
                    const mu_mss2d_sum *got = &all[(id * T + a) * T + b];
                    CHECK_INT_EQ(got->sum, want.sum);
                    CHECK_INT_EQ(got->pre, want.pre);
                    CHECK_INT_EQ(got->suf, want.suf);
                    CHECK_INT_EQ(got->best, want.best);
                    if (nb == 2) {
                        mu_mss2d_sum top = brute_sum(k, cols, g, cut + h, 0, bcut, empty);
                        CHECK_INT_EQ(s[0][(id * T + a) * T + b].best, top.best);
                    }
                }
        }
        int64_t kb = empty ? 0 : MU_MSS_NEG_INF, kp = -1;
        mu_mss2d_sums_keep(all, w[0], w[1], 0, cut, cols, 0, 0, nt, empty, &kb, &kp);
        int64_t cb, cp;
        mu_mss2d_block bw0 = {V[0], 0, w[0]}, bw1 = {V[1], cut, w[1]};
        mu_mss2d_block_best(&bw0, &bw1, rows, cols, 0, 0, nt, empty, &cb, &cp);
        CHECK_INT_EQ(kb, cb);
        CHECK_INT_EQ(kp, cp);
        for (int q = first; q < 2; q++) {
            free(P[q][0]);
            free(P[q][1]);
            free(s[q]);
        }
        free(all);
        free(W);
        free(V[0]);
        free(V[1]);
        free(k);
    }
}

int main(void) {
    MU_RUN(study_example);
    MU_RUN(figure_4_2);
    MU_RUN(sequential_trap_and_negatives);
    MU_RUN(brute_force_1d);
    MU_RUN(overflow_needs_int64);
    MU_RUN(thesis_generator);
    MU_RUN(thesis_1d_references);
    MU_RUN(study_matrix);
    MU_RUN(pair_mapping);
    MU_RUN(brute_force_2d);
    MU_RUN(thesis_2d_references);
    MU_RUN(band_summaries);
    return mu_report("test_maxsub_cpu");
}
