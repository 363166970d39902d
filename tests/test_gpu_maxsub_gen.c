/* maxsub's Philox data made on the device against the host generator: the
 * values themselves (several seeds, ranges, both distributions, odd offsets,
 * the transposed 2-D layout), the 1-D summary of generated data across the
 * device's 2^28-value chunks against a CPU scan, and the 2-D search on a matrix
 * made on the device against the one uploaded from the host, with the strip
 * row sums from the device's prefix sums against the host strip. And the
 * distributed path's blocks: a rank's block made on the device (Philox by
 * position, or uploaded values) in both orientations, its row totals,
 * absolute sums and prefix columns with band offsets against the host's
 * block generator and row pass, its prefix columns one by one, the pair
 * search on it against the CPU's, and a neighbour block uploaded on the copy
 * stream. Exit 77 (skipped) when no GPU is visible. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "gpu/maxsub_gpu.h"
#include "maxsub/block2d.h"
#include "maxsub/gen.h"
#include "maxsub/strip2d.h"
#include "mu_test.h"
#include "gpu_test.h"

static const mu_philox_spec specs[] = {
    {1, 0, -1000, 1000}, {3, 1, -1000, 1000}, {1ull << 40 | 7, 0, INT32_MIN, INT32_MAX},
    {99, 1, -5, 3},      {5, 0, 0, 0},
};
#define NSPECS (int)(sizeof specs / sizeof specs[0])

static void test_values(void) {
    static const int64_t sizes[] = {1, 2, 3, 1000, 65537, (1 << 20) + 3};
    static const int64_t bases[] = {0, 1, 12345, (int64_t)1 << 33};
    int32_t *host = malloc(sizeof(int32_t) * ((1 << 20) + 3));
    int32_t *dev = malloc(sizeof(int32_t) * ((1 << 20) + 3));
    for (int s = 0; s < NSPECS; s++)
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
            for (size_t b = 0; b < sizeof bases / sizeof *bases; b++) {
                int64_t n = sizes[i], base = bases[b];
                mu_gen_philox(specs[s], base, base + n, host);
                int rc = mu_gpu_philox_to_host(specs[s], base, 1, n, 0, dev);
                CHECK(rc == 0, "fill: %s", mu_gpu_error());
                int64_t bad = -1;
                for (int64_t t = 0; t < n && bad < 0; t++)
                    if (host[t] != dev[t]) bad = t;
                CHECK(bad < 0,
                      "spec %d n=%lld base=%lld: value %lld is %d on the GPU, %d on the host", s,
                      (long long)n, (long long)base, (long long)bad, bad < 0 ? 0 : dev[bad],
                      bad < 0 ? 0 : host[bad]);
            }
    /* Transposed: out (rows x cols) is the transpose of the cols x rows source. */
    const int64_t rows = 53, cols = 37;
    mu_gen_philox(specs[1], 0, rows * cols, host);
    CHECK(mu_gpu_philox_to_host(specs[1], 0, rows, cols, 1, dev) == 0, "%s", mu_gpu_error());
    long bad = 0;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) bad += dev[i * cols + j] != host[j * rows + i];
    CHECK(bad == 0, "transposed fill: %ld values differ", bad);
    free(host);
    free(dev);
}

static void test_1d(void) {
    /* The last size crosses the device's 2^28-value chunks. */
    static const int64_t ranges[][2] = {
        {0, 1}, {5, 1006}, {0, 1 << 20}, {777, (1 << 22) + 777}, {3, ((int64_t)1 << 28) + 4099}};
    for (int s = 0; s < 2; s++)
        for (size_t r = 0; r < sizeof ranges / sizeof *ranges; r++)
            for (int empty = 0; empty < 2; empty++) {
                int64_t lo = ranges[r][0], hi = ranges[r][1];
                int32_t *x = malloc(sizeof(int32_t) * (size_t)(hi - lo));
                if (!x) {
                    CHECK(0, "out of host memory for %lld values", (long long)(hi - lo));
                    return;
                }
                mu_gen_philox(specs[s], lo, hi, x);
                mu_mss_summary want = mu_mss_scan_array(x, hi - lo, lo, empty), got;
                free(x);
                int rc = mu_gpu_mss1d_philox(specs[s], lo, hi, empty, &got);
                CHECK(rc == 0, "1-D: %s", mu_gpu_error());
                CHECK(!rc && !memcmp(&want, &got, sizeof want),
                      "1-D spec %d [%lld, %lld) empty=%d: best %lld [%lld, %lld], want %lld "
                      "[%lld, %lld]",
                      s, (long long)lo, (long long)hi, empty, (long long)got.best,
                      (long long)got.best_start, (long long)got.best_end, (long long)want.best,
                      (long long)want.best_start, (long long)want.best_end);
            }
}

static void test_2d(void) {
    static const int64_t shapes[][2] = {{1, 1}, {70, 65}, {300, 129}, {1000, 200}};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
        for (int tr = 0; tr < 2; tr++) {
            int64_t rows = shapes[i][0], cols = shapes[i][1], n = rows * cols;
            int32_t *src = malloc(sizeof(int32_t) * (size_t)n),
                    *k = malloc(sizeof(int32_t) * (size_t)n);
            mu_gen_philox(specs[0], 0, n, src);
            for (int64_t a = 0; a < rows; a++) /* the oriented matrix, as orient() makes it */
                for (int64_t b = 0; b < cols; b++)
                    k[a * cols + b] = tr ? src[b * rows + a] : src[a * cols + b];
            mu_gpu_mss2d *up = NULL, *made = NULL;
            CHECK(mu_gpu_mss2d_create(k, rows, cols, &up) == 0, "%s", mu_gpu_error());
            CHECK(mu_gpu_mss2d_create_philox(specs[0], rows, cols, tr, &made) == 0, "%s",
                  mu_gpu_error());
            int64_t nt = mu_mss_tile_count(cols), b1 = 0, p1 = -1, b2 = 1, p2 = -2;
            if (up && made) {
                CHECK(mu_gpu_mss2d_run(up, 0, nt, 0, &b1, &p1) == 0, "%s", mu_gpu_error());
                CHECK(mu_gpu_mss2d_run(made, 0, nt, 0, &b2, &p2) == 0, "%s", mu_gpu_error());
                CHECK(b1 == b2 && p1 == p2,
                      "2-D %lldx%lld tr=%d: (%lld, %lld) from the device's "
                      "matrix, (%lld, %lld) from the host's",
                      (long long)rows, (long long)cols, tr, (long long)b2, (long long)p2,
                      (long long)b1, (long long)p1);
                int64_t g = 0, h = 0, s1, r0, r1, s2, q0, q1;
                if (p1 >= 0) mu_mss_tri_unrank(cols, p1, &g, &h);
                int64_t *c = malloc(sizeof(int64_t) * (size_t)rows);
                mu_mss2d_strip(k, rows, cols, g, h, 0, &s1, &r0, &r1);
                CHECK(mu_gpu_mss2d_strip_sums(made, g, h, c) == 0, "%s", mu_gpu_error());
                mu_mss2d_best_rows(c, rows, 0, &s2, &q0, &q1);
                CHECK(s1 == s2 && r0 == q0 && r1 == q1 && s1 == b1,
                      "strip (%lld, %lld): %lld [%lld, %lld] from device sums, %lld [%lld, %lld]",
                      (long long)g, (long long)h, (long long)s2, (long long)q0, (long long)q1,
                      (long long)s1, (long long)r0, (long long)r1);
                free(c);
            }
            mu_gpu_mss2d_destroy(up);
            mu_gpu_mss2d_destroy(made);
            free(src);
            free(k);
        }
}

/* Block (r, c) of an R x C oriented matrix on a pr x pc grid, host side: its
 * values as the host's block generator makes them (block2d.c's segments), the
 * row pass, and offsets off (an arbitrary band scan's) added into Vo. */
typedef struct {
    int64_t i0, nr, lo, w;
    mu_mss2d_segs sg;
    int32_t *seg;
    int64_t *V, *tot, *abs, *off, *Vo;
} host_block;

static int host_block_make(mu_philox_spec spec, int64_t R, int64_t C, int pr, int pc, int r, int c,
                           int tr, host_block *b) {
    mu_mss2d_grid g = {.rows = R, .cols = C};
    mu_mss2d_split(R, pr, r, &b->i0, &b->nr);
    mu_mss2d_split(C, pc, c, &b->lo, &b->w);
    b->sg = mu_mss2d_segments(&g, tr, b->i0, b->nr, b->lo, b->w);
    const size_t n = (size_t)(b->nr * b->w), nv = (size_t)(b->nr * (b->w + 1));
    b->seg = malloc(n * sizeof *b->seg);
    b->V = malloc(nv * sizeof *b->V);
    b->Vo = malloc(nv * sizeof *b->Vo);
    b->tot = malloc((size_t)b->nr * sizeof *b->tot);
    b->abs = malloc((size_t)b->nr * sizeof *b->abs);
    b->off = malloc((size_t)b->nr * sizeof *b->off);
    if (!b->seg || !b->V || !b->Vo || !b->tot || !b->abs || !b->off) return 1;
    for (int64_t q = 0; q < b->sg.count; q++) {
        int64_t a = b->sg.first + q * b->sg.stride;
        mu_gen_philox(spec, a, a + b->sg.len, b->seg + q * b->sg.len);
    }
    mu_mss2d_prefix_rows(b->seg, b->nr, b->w, tr, b->V, b->tot, b->abs);
    for (int64_t i = 0; i < b->nr; i++)
        b->off[i] = c == 0 ? 0 : (int64_t)((i * 7919 + 13 * c) % 2001) - 1000;
    for (int64_t i = 0; i < b->nr; i++)
        for (int64_t j = 0; j <= b->w; j++)
            b->Vo[i * (b->w + 1) + j] = b->V[i * (b->w + 1) + j] + b->off[i];
    return 0;
}

static void host_block_free(host_block *b) {
    free(b->seg);
    free(b->V);
    free(b->Vo);
    free(b->tot);
    free(b->abs);
    free(b->off);
}

static int64_t diff64(const int64_t *a, const int64_t *b, int64_t n) {
    for (int64_t t = 0; t < n; t++)
        if (a[t] != b[t]) return t;
    return -1;
}

/* One block made on the device (how: 0 Philox, 1 uploaded values) against the host's. */
static void block_case(mu_philox_spec spec, int64_t R, int64_t C, int pr, int pc, int r, int c,
                       int tr, int how) {
    host_block h = {0}, h2 = {0};
    char what[160];
    snprintf(what, sizeof what, "block (%d,%d) of %lldx%lld on %dx%d, tr=%d, %s, seed %llu", r, c,
             (long long)R, (long long)C, pr, pc, tr, how ? "values" : "philox",
             (unsigned long long)spec.seed);
    const int next = c + 1 < pc; /* a neighbour block to upload */
    if (host_block_make(spec, R, C, pr, pc, r, c, tr, &h) ||
        (next && host_block_make(spec, R, C, pr, pc, r, c + 1, tr, &h2))) {
        CHECK(0, "%s: out of host memory", what);
        host_block_free(&h);
        host_block_free(&h2);
        return;
    }
    const int64_t nr = h.nr, w = h.w, nv = nr * (w + 1);
    int64_t *tot = malloc((size_t)nr * sizeof *tot), *abs = malloc((size_t)nr * sizeof *abs);
    int64_t *got = malloc((size_t)nv * sizeof *got), *col = malloc((size_t)nr * sizeof *col);
    mu_gpu_mss2d *ctx = NULL;
    int64_t wmax = next && h2.w > w ? h2.w : w;
    int rc = mu_gpu_mss2d_open(nr, wmax, &ctx);
    CHECK(rc == 0, "%s: open: %s", what, mu_gpu_error());
    if (!rc) {
        rc = how ? mu_gpu_mss2d_make_values(ctx, h.seg, tr, h.lo, w, tot, abs)
                 : mu_gpu_mss2d_make_philox(ctx, spec, h.sg.first, tr ? 1 : h.sg.stride,
                                            tr ? h.sg.stride : 1, h.lo, w, tot, abs);
        CHECK(rc == 0, "%s: make: %s", what, mu_gpu_error());
    }
    if (!rc) {
        int64_t bt = diff64(tot, h.tot, nr), ba = diff64(abs, h.abs, nr);
        CHECK(bt < 0, "%s: row %lld's total %lld on the GPU, %lld on the host", what, (long long)bt,
              bt < 0 ? 0LL : (long long)tot[bt], bt < 0 ? 0LL : (long long)h.tot[bt]);
        CHECK(ba < 0, "%s: row %lld's absolute sum differs", what, (long long)ba);
        /* Local sums first (no offsets), then the band's offsets added. */
        int64_t B = 0;
        for (int64_t i = 0; i < nr; i++) {
            int64_t o = h.off[i] < 0 ? -h.off[i] : h.off[i];
            if (h.abs[i] + o > B) B = h.abs[i] + o;
            if (next && h2.abs[i] + o + h.abs[i] > B) B = h2.abs[i] + o + h.abs[i];
        }
        rc = mu_gpu_mss2d_finish(ctx, c > 0 ? h.off : NULL, B) || mu_gpu_mss2d_fetch(ctx, 0, got);
        CHECK(rc == 0, "%s: finish: %s", what, mu_gpu_error());
        int64_t bv = rc ? 0 : diff64(got, h.Vo, nv);
        CHECK(bv < 0, "%s: prefix value %lld (row %lld, column %lld) is %lld, want %lld", what,
              (long long)bv, (long long)(bv / (w + 1)), (long long)(bv % (w + 1)),
              bv < 0 ? 0LL : (long long)got[bv], bv < 0 ? 0LL : (long long)h.Vo[bv]);
        for (int64_t j = 0; !rc && j <= w; j += (j < 3 || j + 3 > w) ? 1 : w / 4 + 1) {
            rc = mu_gpu_mss2d_column(ctx, 0, j, col);
            CHECK(rc == 0, "%s: column %lld: %s", what, (long long)j, mu_gpu_error());
            for (int64_t i = 0; !rc && i < nr; i++)
                if (col[i] != h.Vo[i * (w + 1) + j]) {
                    CHECK(0, "%s: column %lld row %lld is %lld, want %lld", what, (long long)j,
                          (long long)i, (long long)col[i], (long long)h.Vo[i * (w + 1) + j]);
                    break;
                }
        }
        /* The pairs of the block (diagonal) against the CPU's. */
        mu_mss2d_block G = {h.Vo, h.lo, w};
        int64_t nt = mu_mss2d_block_tile_count(w, w, 1);
        for (int empty = 0; !rc && empty < 2; empty++) {
            int64_t cb = 0, cp = -1, gb = 1, gp = -2;
            mu_mss2d_block_best(&G, &G, nr, C, 1, 0, nt, empty, &cb, &cp);
            rc = mu_gpu_mss2d_block_best(ctx, 0, 0, C, 1, 0, nt, empty, &gb, &gp);
            CHECK(rc == 0 && gb == cb && gp == cp,
                  "%s: diagonal pairs empty=%d: (%lld, %lld), CPU (%lld, %lld) %s", what, empty,
                  (long long)gb, (long long)gp, (long long)cb, (long long)cp,
                  rc ? mu_gpu_error() : "");
        }
        /* The next block of the band uploaded on the copy stream into slot
         * 1 or 2 (page-locked host memory, as the ring's), then the pairs of both. */
        for (int k = 1; next && !rc && k <= 2; k++) {
            const int64_t nv2 = nr * (h2.w + 1);
            int locked = 0;
            int64_t *pin = mu_gpu_host_alloc((size_t)nv2 * sizeof *pin, &locked);
            if (!pin) {
                CHECK(0, "%s: out of host memory", what);
                break;
            }
            for (int64_t i = 0; i < nr; i++) /* its offsets: this block's plus its totals */
                for (int64_t j = 0; j <= h2.w; j++)
                    pin[i * (h2.w + 1) + j] = h2.V[i * (h2.w + 1) + j] + h.off[i] + h.tot[i];
            rc = mu_gpu_mss2d_upload(ctx, k, pin, h2.lo, h2.w) || mu_gpu_mss2d_upload_wait(ctx);
            CHECK(rc == 0, "%s: upload to slot %d: %s", what, k, mu_gpu_error());
            mu_mss2d_block H = {pin, h2.lo, h2.w};
            int64_t nt2 = mu_mss2d_block_tile_count(w, h2.w, 0);
            for (int empty = 0; !rc && empty < 2; empty++) {
                int64_t cb = 0, cp = -1, gb = 1, gp = -2;
                mu_mss2d_block_best(&G, &H, nr, C, 0, 0, nt2, empty, &cb, &cp);
                rc = mu_gpu_mss2d_block_best(ctx, 0, k, C, 0, 0, nt2, empty, &gb, &gp);
                CHECK(rc == 0 && gb == cb && gp == cp,
                      "%s: pairs with the next block in slot %d, empty=%d: (%lld, %lld), CPU "
                      "(%lld, %lld) %s",
                      what, k, empty, (long long)gb, (long long)gp, (long long)cb, (long long)cp,
                      rc ? mu_gpu_error() : "");
            }
            mu_gpu_host_free(pin, locked);
        }
    }
    mu_gpu_mss2d_destroy(ctx);
    free(tot);
    free(abs);
    free(got);
    free(col);
    host_block_free(&h);
    host_block_free(&h2);
}

static void test_blocks(void) {
    /* R x C oriented, pr x pc: one block, blocks of a band, uneven splits,
     * blocks narrower than a tile and wider than a warp's 32 columns. */
    static const int64_t grids[][4] = {{300, 200, 1, 1}, {300, 200, 2, 3}, {1000, 129, 3, 2},
                                       {70, 65, 1, 4},   {5, 3, 2, 3},     {257, 250, 4, 2},
                                       {600, 400, 1, 2}};
    static const int pick[] = {0, 1, 2};
    for (size_t q = 0; q < sizeof grids / sizeof *grids; q++)
        for (int tr = 0; tr < 2; tr++)
            for (int how = 0; how < 2; how++) {
                const int64_t R = grids[q][0], C = grids[q][1];
                const int pr = (int)grids[q][2], pc = (int)grids[q][3];
                const mu_philox_spec spec = specs[pick[(q + (size_t)tr + (size_t)how) % 3]];
                /* The first and the last band, every block. */
                for (int r = 0; r<pr; r += pr> 1 ? pr - 1 : 1)
                    for (int c = 0; c < pc; c++) block_case(spec, R, C, pr, pc, r, c, tr, how);
            }
}

int main(int argc, char **argv) {
    mu_gpu_info info;
    gpu_test_begin(&argc, &argv, &info);
    test_values();
    test_1d();
    test_2d();
    test_blocks();
    return gpu_test_end("test_gpu_maxsub_gen");
}
