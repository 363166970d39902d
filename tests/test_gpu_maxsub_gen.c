/* maxsub's Philox data made on the device against the host generator: the
 * values themselves (several seeds, ranges, both distributions, odd offsets,
 * the transposed 2-D layout), the 1-D summary of generated data across the
 * device's 2^28-value chunks against a CPU scan, and the 2-D search on a matrix
 * made on the device against the one uploaded from the host, with the strip
 * row sums from the device's prefix sums against the host strip.
 * Exit 77 (skipped) when no GPU is visible. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "gpu/maxsub_gpu.h"
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

int main(int argc, char **argv) {
    mu_gpu_info info;
    gpu_test_begin(&argc, &argv, &info);
    test_values();
    test_1d();
    test_2d();
    return gpu_test_end("test_gpu_maxsub_gen");
}
