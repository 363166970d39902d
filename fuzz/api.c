/* The library's entry points (include/mutirao/), one rank (MPI_COMM_SELF),
 * with their arguments decoded from the fuzzer's bytes: the call, sizes
 * (small, or wild), NULL or real arrays, every option (numbers as raw bits,
 * strings from a table of good, bad, empty and NULL values) and the array
 * values themselves. A call must return 0 or an error, never crash, leak or
 * hang; the sizes stay small enough for a run of a few milliseconds. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_file.h"
#include "mutirao/mutirao.h"

typedef struct {
    const uint8_t *p;
    size_t n;
} bytes;

static uint64_t take(bytes *b, int k) {
    uint64_t v = 0;
    for (int i = 0; i < k; i++) {
        v = v << 8 | (b->n ? *b->p : 0);
        if (b->n) {
            b->p++;
            b->n--;
        }
    }
    return v;
}
static double take_double(bytes *b) {
    uint64_t u = take(b, 8);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}
/* A size: mostly small, sometimes wild (negative, huge). */
static int64_t take_size(bytes *b, int64_t small) {
    uint8_t k = (uint8_t)take(b, 1);
    if (k < 240) return k % (small + 1);
    return (int64_t)take(b, 8);
}
static const char *take_str(bytes *b, const char *const *good, int ngood) {
    static const char *const bad[] = {NULL, "", "nonsense", "1,", ",", "-1", "1e999", "auto"};
    uint8_t k = (uint8_t)take(b, 1);
    if (k < 192) return good[k % ngood];
    return bad[k % (sizeof bad / sizeof *bad)];
}

static void maxsub(bytes *b, int two) {
    mutirao_maxsub_options o;
    mutirao_maxsub_options_default(&o);
    static const char *const dev[] = {"cpu", "auto"};
    o.device = take_str(b, dev, 2);
    o.empty_allowed = (int)take(b, 1) % 3 - (take(b, 1) == 7);
    o.farm_chunk = take_size(b, 4);
    int64_t rows = take_size(b, 8), cols = two ? take_size(b, 8) : 1;
    int null_a = take(b, 1) == 0;
    int32_t a[64];
    for (int i = 0; i < 64; i++) a[i] = (int32_t)take(b, 4);
    /* A wild size goes with a NULL array: the library must refuse it, not read past a. */
    const int fits = rows >= 0 && cols >= 0 && rows <= 64 && cols <= 64 && rows * cols <= 64;
    const int32_t *x = null_a || !fits ? NULL : a;
    if (two) {
        mutirao_maxsub_2d_result r;
        mutirao_maxsub_2d(MPI_COMM_SELF, rows, cols, x, &o, take(b, 1) == 1 ? NULL : &r);
    } else {
        mutirao_maxsub_1d_result r;
        mutirao_maxsub_1d(MPI_COMM_SELF, rows, x, &o, take(b, 1) == 1 ? NULL : &r);
    }
}

static void cg(bytes *b) {
    mutirao_cg_options o;
    mutirao_cg_options_default(&o);
    static const char *const dev[] = {"cpu"};
    o.device = take_str(b, dev, 1);
    if (take(b, 1) & 1) o.rtol = take_double(b);
    if (take(b, 1) & 1) o.atol = take_double(b);
    o.max_it = take_size(b, 50);
    o.jacobi = (int)take(b, 1) % 3;
    o.fp32 = (int)take(b, 1) % 3;
    int64_t n = take_size(b, 6);
    int64_t nloc = take(b, 1) & 1 ? n : take_size(b, 6);
    int64_t rowptr[8], cols[32];
    double vals[32], rhs[8], x[8];
    for (int i = 0; i < 8; i++) rowptr[i] = (int64_t)(take(b, 1) % 40) - 2;
    for (int i = 0; i < 32; i++) cols[i] = (int64_t)(take(b, 1) % 10) - 1;
    for (int i = 0; i < 32; i++) vals[i] = (take(b, 1) & 1) ? take_double(b) : (double)(i % 5);
    for (int i = 0; i < 8; i++) rhs[i] = x[i] = (double)(take(b, 1) % 7);
    int ok = nloc >= 0 && nloc <= 7, nul = (int)take(b, 1);
    if (ok) { /* within the arrays: the values, not the bounds, are the test */
        for (int i = 0; i <= nloc; i++)
            if (rowptr[i] < 0 || rowptr[i] > 32) rowptr[i] = i;
    }
    mutirao_cg_info info;
    mutirao_cg_solve(MPI_COMM_SELF, n, ok ? nloc : 0, nul == 1 ? NULL : rowptr,
                     nul == 2 ? NULL : cols, nul == 3 ? NULL : vals, nul == 4 ? NULL : rhs,
                     nul == 5 ? NULL : x, nul == 6 ? NULL : &o, nul == 7 ? NULL : &info);
}

static void fuzzy(bytes *b) {
    mutirao_fuzzy_options o;
    mutirao_fuzzy_options_default(&o);
    static const char *const mode[] = {"exact", "partitioned"},
                             *const norm[] = {"density", "printed"},
                             *const units[] = {"r", "absolute"},
                             *const merge[] = {"auto", "yes", "no"}, *const dev[] = {"cpu"};
    o.mode = take_str(b, mode, 2);
    o.partitions = take_size(b, 4);
    o.zscore = (int)take(b, 1) % 3;
    o.r_norm = take_str(b, norm, 2);
    if (take(b, 1) & 1) o.r = take_double(b);
    if (take(b, 1) & 1) o.eps1 = take_double(b);
    if (take(b, 1) & 1) o.eps2 = take_double(b);
    o.units = take_str(b, units, 2);
    o.max_it = take_size(b, 30);
    o.merge = take_str(b, merge, 3);
    if (take(b, 1) & 1) o.threshold = take_double(b);
    o.k = take_size(b, 4);
    o.farm_chunk = take_size(b, 4);
    if (take(b, 1) & 1) o.sum_block = (int64_t)((uint64_t)take_size(b, 255) * 256);
    o.device = take_str(b, dev, 1);
    int64_t nloc = take_size(b, 12);
    int F = (int)take_size(b, 3);
    double x[36];
    for (int i = 0; i < 36; i++) x[i] = (take(b, 1) & 1) ? take_double(b) : (double)(i % 7);
    int ok = nloc >= 0 && nloc <= 36 && F >= 0 && F <= 36 && nloc * F <= 36, nul = (int)take(b, 1);
    mutirao_fuzzy_result r;
    memset(&r, 0, sizeof r);
    if (!mutirao_fuzzy_cluster(MPI_COMM_SELF, ok ? nloc : 0, ok ? F : (int)take(b, 4),
                               nul == 1 || !ok ? NULL : x, nul == 2 ? NULL : &o,
                               nul == 3 ? NULL : &r))
        mutirao_fuzzy_result_free(&r);
}

static void scenarios(bytes *b) {
    mutirao_scenarios_options o;
    mutirao_scenarios_options_default(&o);
    static const char *const tree[] = {"1,2", "1,2,2", "1,3"}, *const start[] = {NULL, "1961-01"},
                             *const den[] = {"n", "n-1"}, *const acf[] = {"n", "pairs"},
                             *const method[] = {"v2", "hw"},
                             *const rep[] = {"centroid", "nearest", "scaled"},
                             *const corr[] = {"normal", "lognormal"},
                             *const split[] = {"auto", "on", "off"}, *const dev[] = {"cpu"};
    o.tree = take_str(b, tree, 3);
    o.m = take_size(b, 16);
    o.start = take_str(b, start, 2);
    o.pmax = take_size(b, 3);
    if (take(b, 1) & 1) o.pacf_conf = take_double(b);
    o.sd_denominator = take_str(b, den, 2);
    o.acf_denominator = take_str(b, acf, 2);
    o.min_years = take_size(b, 12);
    o.seed = (int64_t)take(b, 2);
    o.method = take_str(b, method, 2);
    o.representative = take_str(b, rep, 3);
    o.max_iter = take_size(b, 10);
    if (take(b, 1) & 1) o.delta_min = take_double(b);
    o.corr = take_str(b, corr, 2);
    o.split = take_str(b, split, 3);
    o.threads = take_size(b, 2);
    o.device = take_str(b, dev, 1);
    int nyears = (int)take_size(b, 12), nst = (int)take_size(b, 2);
    static double q[12 * 12 * 2];
    for (int i = 0; i < 12 * 12 * 2; i++)
        q[i] = (take(b, 1) & 1) ? take_double(b) : 50 + (i * 37 % 101);
    const char *const names[] = {"a", "b"};
    int ok = nyears >= 0 && nyears <= 12 && nst >= 0 && nst <= 2, nul = (int)take(b, 1);
    mutirao_scenarios_tree t;
    memset(&t, 0, sizeof t);
    if (!mutirao_scenarios_tree_build(MPI_COMM_SELF, ok ? nyears : 0, ok ? nst : 0, 1950,
                                      nul == 1 ? NULL : q, nul == 2 ? NULL : names,
                                      nul == 3 ? NULL : &o, nul == 4 ? NULL : &t))
        mutirao_scenarios_tree_free(&t);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fz_mpi_once();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    bytes b = {data, size};
    switch (take(&b, 1) % 5) {
    case 0:
        maxsub(&b, 0);
        break;
    case 1:
        maxsub(&b, 1);
        break;
    case 2:
        cg(&b);
        break;
    case 3:
        fuzzy(&b);
        break;
    default:
        scenarios(&b);
        break;
    }
    return 0;
}
