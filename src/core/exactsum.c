#include "core/exactsum.h"

#include <math.h>

/* The fast path of mu_xsum_add_array, for a block of at most 256 values whose
 * largest magnitude is below 2^(E+1). Error-free extraction against anchors
 * (as in Demmel and Nguyen's reproducible summation): with M = 1.5 2^(E+6),
 * h = (x + M) - M is x rounded to a multiple of 2^(E-46), exactly, and x - h is
 * exact; 64 such h per lane sum exactly (|sum| <= 2^(E+7) on that grid). A
 * second anchor 47 binades lower takes the remainder, a third the next; a value
 * within 41 (88) binades of the largest is used up by two (three) levels. The
 * lane sums are exact doubles and go to the words one by one. This needs
 * round-to-nearest-free exactness only (any rounding mode) and no
 * reassociation: never build this file with -ffast-math. */
typedef double v2d __attribute__((vector_size(16)));
enum { BLOCK = 256, LANES = 4 };

static inline uint64_t max_bits(uint64_t m, uint64_t b) {
    b &= 0x7FFFFFFFFFFFFFFFull;
    return b > m ? b : m;
}

static inline uint64_t min_nonzero_bits(uint64_t m, uint64_t b) {
    b &= 0x7FFFFFFFFFFFFFFFull;
    b = b ? b : UINT64_MAX;
    return b < m ? b : m;
}

static int add_block(mu_xsum *s, const double *x, int k) {
    /* Largest and smallest nonzero magnitude, on the bits (their order is the
     * values' order); four chains so the scan is not latency-bound. */
    uint64_t h0 = 0, h1 = 0, h2 = 0, h3 = 0, l0 = UINT64_MAX, l1 = l0, l2 = l0, l3 = l0;
    int i = 0;
    for (; i + LANES <= k; i += LANES) {
        uint64_t b[LANES];
        memcpy(b, x + i, sizeof b);
        h0 = max_bits(h0, b[0]);
        h1 = max_bits(h1, b[1]);
        h2 = max_bits(h2, b[2]);
        h3 = max_bits(h3, b[3]);
        l0 = min_nonzero_bits(l0, b[0]);
        l1 = min_nonzero_bits(l1, b[1]);
        l2 = min_nonzero_bits(l2, b[2]);
        l3 = min_nonzero_bits(l3, b[3]);
    }
    for (; i < k; i++) {
        uint64_t b;
        memcpy(&b, x + i, sizeof b);
        h0 = max_bits(h0, b);
        l0 = min_nonzero_bits(l0, b);
    }
    uint64_t hi = max_bits(max_bits(h0, h1), max_bits(h2, h3));
    uint64_t lo = min_nonzero_bits(min_nonzero_bits(l0, l1), min_nonzero_bits(l2, l3));
    int emax = (int)(hi >> 52), emin = (int)(lo >> 52);
    int levels = emin >= emax - 41 ? 2 : emin >= emax - 88 ? 3 : 0;
    /* NaN/Inf, values too spread out, or too near the ends of the range: no fast path. */
    if (hi >= 0x7FF0000000000000ull || !levels || emax > 1023 + 1017 || emax < 1023 - 872) return 0;
    int e = emax - 1023, n4 = k - k % LANES;
    double m1 = ldexp(1.5, e + 6), m2 = ldexp(1.5, e - 41), m3 = ldexp(1.5, e - 88);
    v2d M1 = {m1, m1}, M2 = {m2, m2}, M3 = {m3, m3}, z = {0, 0};
    v2d a1 = z, a2 = z, a3 = z, b1 = z, b2 = z, b3 = z;
    if (levels == 2) {
        for (i = 0; i < n4; i += LANES) {
            v2d v, w;
            memcpy(&v, x + i, sizeof v);
            memcpy(&w, x + i + 2, sizeof w);
            v2d h = (v + M1) - M1, g = (w + M1) - M1;
            v -= h;
            w -= g;
            a1 += h;
            b1 += g;
            a2 += (v + M2) - M2;
            b2 += (w + M2) - M2;
        }
    } else {
        for (i = 0; i < n4; i += LANES) {
            v2d v, w;
            memcpy(&v, x + i, sizeof v);
            memcpy(&w, x + i + 2, sizeof w);
            v2d h = (v + M1) - M1, g = (w + M1) - M1;
            v -= h;
            w -= g;
            a1 += h;
            b1 += g;
            h = (v + M2) - M2;
            g = (w + M2) - M2;
            v -= h;
            w -= g;
            a2 += h;
            b2 += g;
            a3 += (v + M3) - M3;
            b3 += (w + M3) - M3;
        }
    }
    double t[12];
    memcpy(t, &a1, sizeof a1);
    memcpy(t + 2, &b1, sizeof b1);
    memcpy(t + 4, &a2, sizeof a2);
    memcpy(t + 6, &b2, sizeof b2);
    memcpy(t + 8, &a3, sizeof a3);
    memcpy(t + 10, &b3, sizeof b3);
    for (int l = 0; l < 12; l++) mu_xsum_add(s, t[l]);
    for (i = n4; i < k; i++) mu_xsum_add(s, x[i]);
    return 1;
}

void mu_xsum_add_array(mu_xsum *s, const double *v, int64_t n) {
    for (int64_t c = 0; c < n; c += BLOCK) {
        int k = n - c < BLOCK ? (int)(n - c) : BLOCK;
        if (!add_block(s, v + c, k))
            for (int i = 0; i < k; i++) mu_xsum_add(s, v[c + i]);
    }
}

void mu_xsum_allreduce(mu_xsum *s, int count, MPI_Comm comm) {
    /* Normalized words are below 2^32, so the sum over any realistic rank count fits. */
    for (int i = 0; i < count; i++) mu_xsum_normalize(&s[i]);
    MPI_Allreduce(MPI_IN_PLACE, s, count * MU_XSUM_WORDS, MPI_INT64_T, MPI_SUM, comm);
}

const char *mu_xsum_status_name(mu_xsum_status st) {
    switch (st) {
    case MU_XSUM_HAS_NAN:
        return "NaN";
    case MU_XSUM_HAS_INF:
        return "Inf";
    case MU_XSUM_OVERFLOW:
        return "overflow";
    default:
        return "finite";
    }
}
