/* The maximum-subarray summary of a contiguous segment and its ordered combine.
 *
 * Shared by the CPU reference (workloads/maxsub) and the CUDA kernels (gpu/), so both
 * apply the same arithmetic and the same tie rule: the largest sum, then the
 * smallest end index, then the largest start index (the study's sequential rule). Sums are
 * int64; indices are global and 0-based. An empty part (allowed mode only) has
 * sum 0 and is marked by pre_end = lo - 1, suf_start = hi, best_start = -1. */
#ifndef MU_MAXSUB_MONOID_H
#define MU_MAXSUB_MONOID_H
#include <stdint.h>
#include <math.h>
#include "hd.h"

typedef struct {
    int64_t lo, hi;                     /* the segment [lo, hi); lo == hi is the identity */
    int64_t sum;                        /* total of the segment */
    int64_t pre, pre_end;               /* best prefix, shortest: ends at pre_end */
    int64_t suf, suf_start;             /* best suffix, shortest: starts at suf_start */
    int64_t best, best_start, best_end; /* best subarray under the tie rule */
} mu_mss_summary;

#define MU_MSS_NEG_INF                                                                             \
    (INT64_MIN / 4) /* far below any int64 sum of int32 data that fits memory                      \
                     */

MU_HD mu_mss_summary mu_mss_identity(int64_t at) {
    mu_mss_summary s;
    s.lo = s.hi = at;
    s.sum = 0;
    s.pre = s.suf = s.best = 0;
    s.pre_end = at - 1;
    s.suf_start = at;
    s.best_start = s.best_end = -1;
    return s;
}

/* Streaming state for one segment, fed one value at a time (a Kadane pass that
 * also keeps the best prefix; the final run is the best suffix). */
typedef struct {
    mu_mss_summary s;
    int64_t run, run_start;
} mu_mss_scan;

MU_HD void mu_mss_scan_begin(mu_mss_scan *st, int64_t lo, int empty_allowed) {
    st->s = mu_mss_identity(lo);
    st->run = 0;
    st->run_start = lo;
    if (!empty_allowed) st->s.pre = st->s.best = MU_MSS_NEG_INF;
}

MU_HD void mu_mss_scan_push(mu_mss_scan *st, int64_t x, int empty_allowed) {
    int64_t i = st->s.hi;
    if (empty_allowed) {
        /* Keep a run only while it stays positive, so ties pick the shortest. */
        int64_t t = st->run + x;
        st->run_start = st->run == 0 ? i : st->run_start;
        st->run = t > 0 ? t : 0;
    } else {
        int fresh = st->run <= 0 || i == st->s.lo;
        st->run_start = fresh ? i : st->run_start;
        st->run = fresh ? x : st->run + x;
    }
    st->s.sum += x;
    if (st->s.sum > st->s.pre) {
        st->s.pre = st->s.sum;
        st->s.pre_end = i;
    }
    if (st->run > st->s.best) {
        st->s.best = st->run;
        st->s.best_start = st->run_start;
        st->s.best_end = i;
    }
    st->s.hi = i + 1;
}

MU_HD mu_mss_summary mu_mss_scan_end(const mu_mss_scan *st, int empty_allowed) {
    mu_mss_summary s = st->s;
    if (empty_allowed && st->run == 0) {
        s.suf = 0;
        s.suf_start = s.hi;
    } else {
        s.suf = st->run;
        s.suf_start = st->run_start;
    }
    return s;
}

/* Key order of two candidate subarrays: nonzero when (sa, a0, a1) beats (sb, b0, b1). */
MU_HD int mu_mss_better(int64_t sa, int64_t a0, int64_t a1, int64_t sb, int64_t b0, int64_t b1) {
    if (sa != sb) return sa > sb;
    if (a1 != b1) return a1 < b1;
    return a0 > b0;
}

/* A side's prefix (or suffix) within one piece, v ending (starting) at `at`,
 * against the whole piece extended by the other piece's: the larger into *out,
 * *out_at; a tie keeps the shorter, within the piece. */
MU_HD void mu_mss_extend(int64_t v, int64_t at, int64_t ext, int64_t ext_at, int64_t *out,
                         int64_t *out_at) {
    int keep = v >= ext;
    *out = keep ? v : ext;
    *out_at = keep ? at : ext_at;
}

/* a followed by b (a.hi == b.lo). Associative, not commutative. */
MU_HD mu_mss_summary mu_mss_combine(mu_mss_summary a, mu_mss_summary b, int empty_allowed) {
    if (a.lo == a.hi) return b;
    if (b.lo == b.hi) return a;
    mu_mss_summary r;
    r.lo = a.lo;
    r.hi = b.hi;
    r.sum = a.sum + b.sum;
    mu_mss_extend(a.pre, a.pre_end, a.sum + b.pre, b.pre_end, &r.pre, &r.pre_end);
    mu_mss_extend(b.suf, b.suf_start, b.sum + a.suf, a.suf_start, &r.suf, &r.suf_start);
    /* a.best ends inside a, so it wins every tie against the others. */
    r.best = a.best;
    r.best_start = a.best_start;
    r.best_end = a.best_end;
    int64_t cross = a.suf + b.pre;
    int64_t c0 = a.suf_start, c1 = b.pre_end;
    int cross_real = empty_allowed ? cross > 0 : 1;
    if (cross_real && mu_mss_better(cross, c0, c1, r.best, r.best_start, r.best_end)) {
        r.best = cross;
        r.best_start = c0;
        r.best_end = c1;
    }
    if (mu_mss_better(b.best, b.best_start, b.best_end, r.best, r.best_start, r.best_end)) {
        r.best = b.best;
        r.best_start = b.best_start;
        r.best_end = b.best_end;
    }
    return r;
}

/* Upper-triangular tiles of column pairs for the 2-D problem. Pairs (g, h),
 * 0 <= g <= h < m, are grouped in MU_MSS_TILE x MU_MSS_TILE tiles (tg, th),
 * tg <= th, numbered row-major; tiles are the unit of work on CPU and GPU. */
#define MU_MSS_TILE 64

MU_HD int64_t mu_mss_tile_count(int64_t m) {
    int64_t t = (m + MU_MSS_TILE - 1) / MU_MSS_TILE;
    return t * (t + 1) / 2;
}

/* First linear id of row g in a row-major upper triangle of size t. */
MU_HD int64_t mu_mss_tri_row_start(int64_t t, int64_t g) {
    return g * (2 * t - g + 1) / 2;
}

/* Linear id -> (g, h) in integer arithmetic: a double estimate, then exact correction
 * (the study's float formula loses pairs for n >= 6144). */
MU_HD void mu_mss_tri_unrank(int64_t t, int64_t id, int64_t *g, int64_t *h) {
    double d = (double)(2 * t + 1) * (double)(2 * t + 1) - 8.0 * (double)id;
    double gg = ((double)(2 * t + 1) - (d > 0 ? sqrt(d) : 0.0)) / 2.0;
    int64_t r = (int64_t)gg;
    if (r < 0) r = 0;
    if (r > t - 1) r = t - 1;
    while (r > 0 && mu_mss_tri_row_start(t, r) > id) r--;
    while (r + 1 < t && mu_mss_tri_row_start(t, r + 1) <= id) r++;
    *g = r;
    *h = r + (id - mu_mss_tri_row_start(t, r));
}

/* Linear id of the pair (g, h) among the m(m+1)/2 pairs, lexicographic order. */
MU_HD int64_t mu_mss_pair_id(int64_t m, int64_t g, int64_t h) {
    return mu_mss_tri_row_start(m, g) + (h - g);
}

/* The Kadane summary of one column pair's strip over a band of rows, values
 * only: total, best prefix, best suffix, best run (the distributed 2-D path
 * combines the bands' in row order). Allowed mode: the empty run counts (pre,
 * suf, best >= 0); forbidden: at least one row. */
typedef struct {
    int64_t sum, pre, suf, best;
} mu_mss2d_sum;

/* The band a followed by the band b: associative, not commutative; the same
 * in both modes. */
MU_HD mu_mss2d_sum mu_mss2d_sum_combine(mu_mss2d_sum a, mu_mss2d_sum b) {
    mu_mss2d_sum r;
    r.sum = a.sum + b.sum;
    r.pre = a.pre > a.sum + b.pre ? a.pre : a.sum + b.pre;
    r.suf = b.suf > b.sum + a.suf ? b.suf : b.sum + a.suf;
    r.best = a.best > b.best ? a.best : b.best;
    if (a.suf + b.pre > r.best) r.best = a.suf + b.pre;
    return r;
}

#endif
