/* Exact, order-independent summation of doubles (a fixed-window integer
 * "superaccumulator"). A finite double is m * 2^(p - 1074) with a 53-bit integer
 * m and a bit position p in [0, 2045]; its bits are added, at their absolute
 * position, into 32-bit digits held in int64 words that cover the whole
 * exponent range. Integer addition is associative, so the words, and the sum
 * rounded once at the end, are the same in any order, on any number of ranks
 * (MPI_Allreduce of the words with MPI_INT64_T / MPI_SUM is exact) and on any
 * device. NaN and infinities are counted in their own words, never summed.
 *
 * Each add puts less than 2^32 into a word, so MU_XSUM_SAFE_ADDS (2^31 - 1)
 * adds into a zeroed or normalized accumulator cannot overflow; normalize
 * before adding more. Usable from C and CUDA device code. */
#ifndef MU_CORE_EXACTSUM_H
#define MU_CORE_EXACTSUM_H
#include <stdint.h>
#include <string.h>
#include "core/hd.h"

enum {
    MU_XSUM_DIGITS = 68, /* 66 cover every double, 2 hold carries of huge sums */
    MU_XSUM_NAN = MU_XSUM_DIGITS,
    MU_XSUM_PINF,
    MU_XSUM_NINF,
    MU_XSUM_WORDS /* digits plus the three special counts */
};
#define MU_XSUM_SAFE_ADDS ((1ll << 31) - 1)

typedef struct {
    int64_t w[MU_XSUM_WORDS];
} mu_xsum;

/* What a rounded sum is. */
typedef enum {
    MU_XSUM_FINITE = 0,
    MU_XSUM_HAS_NAN = 1,  /* a NaN was added, or both +Inf and -Inf */
    MU_XSUM_HAS_INF = 2,  /* an infinity was added */
    MU_XSUM_OVERFLOW = 3, /* finite terms whose exact sum is beyond the double range */
} mu_xsum_status;

MU_HD void mu_xsum_zero(mu_xsum *s) {
    for (int i = 0; i < MU_XSUM_WORDS; i++) s->w[i] = 0;
}

/* Splits a finite nonzero double into three signed digits for words k, k+1,
 * k+2 (what mu_xsum_add adds; device code may add them with atomics instead).
 * Returns 0 for zero, 1 for a finite value, or the special word (MU_XSUM_NAN,
 * MU_XSUM_PINF, MU_XSUM_NINF) to increment. */
MU_HD int mu_xsum_split(double x, int *k, int64_t d[3]) {
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    int e = (int)((b >> 52) & 0x7ff);
    uint64_t m = b & 0xFFFFFFFFFFFFFull;
    if (e == 0x7ff) return m ? MU_XSUM_NAN : (b >> 63) ? MU_XSUM_NINF : MU_XSUM_PINF;
    if (e) {
        m |= 1ull << 52;
    } else {
        if (!m) return 0;
        e = 1; /* subnormal: same scale as the smallest normal exponent */
    }
    int pos = e - 1, sh = pos & 31;
    *k = pos >> 5;
    /* m << sh spans up to 85 bits: low digit, then the rest split in two. */
    uint64_t lo = (m << sh) & 0xFFFFFFFFull, rest = m >> (32 - sh);
    int64_t neg = -(int64_t)(b >> 63); /* 0 or -1: conditional negation */
    d[0] = ((int64_t)lo ^ neg) - neg;
    d[1] = ((int64_t)(rest & 0xFFFFFFFFull) ^ neg) - neg;
    d[2] = ((int64_t)(rest >> 32) ^ neg) - neg;
    return 1;
}

MU_HD void mu_xsum_add(mu_xsum *s, double x) {
    int k = 0;
    int64_t d[3];
    int what = mu_xsum_split(x, &k, d);
    if (what == 1) {
        s->w[k] += d[0];
        s->w[k + 1] += d[1];
        s->w[k + 2] += d[2];
    } else if (what) {
        s->w[what]++;
    }
}

/* Propagates carries so every digit but the top one is in [0, 2^32); the value is unchanged. */
MU_HD void mu_xsum_normalize(mu_xsum *s) {
    int64_t carry = 0;
    for (int i = 0; i < MU_XSUM_DIGITS - 1; i++) {
        int64_t v = s->w[i] + carry;
        int64_t low = (int64_t)((uint64_t)v & 0xFFFFFFFFull);
        carry = (v - low) / 4294967296ll; /* exact: floor division by 2^32 */
        s->w[i] = low;
    }
    s->w[MU_XSUM_DIGITS - 1] += carry;
}

/* s += t, word by word (exact; both within the add limits). */
MU_HD void mu_xsum_merge(mu_xsum *s, const mu_xsum *t) {
    for (int i = 0; i < MU_XSUM_WORDS; i++) s->w[i] += t->w[i];
}

MU_HD mu_xsum_status mu_xsum_specials(const mu_xsum *s) {
    if (s->w[MU_XSUM_NAN] || (s->w[MU_XSUM_PINF] && s->w[MU_XSUM_NINF])) return MU_XSUM_HAS_NAN;
    if (s->w[MU_XSUM_PINF] || s->w[MU_XSUM_NINF]) return MU_XSUM_HAS_INF;
    return MU_XSUM_FINITE;
}

/* Bits [lo, lo + 64) of the normalized magnitude (bits below 0 read as 0). */
MU_HD uint64_t mu_xsum_window_(const int64_t *w, int lo) {
    uint64_t out = 0;
    for (int i = 63; i >= 0; i--) {
        int p = lo + i;
        uint64_t bit = p >= 0 ? ((uint64_t)w[p >> 5] >> (p & 31)) & 1u : 0u;
        out = (out << 1) | bit;
    }
    return out;
}

/* The exact sum rounded to the nearest double (ties to even), the same bits
 * whatever the order of the adds. NaN or +-Inf when such terms were added
 * (see mu_xsum_specials); +-Inf when the finite sum overflows. status may be NULL. */
MU_HD double mu_xsum_round(const mu_xsum *s, mu_xsum_status *status) {
    mu_xsum_status st = mu_xsum_specials(s);
    double out;
    if (st != MU_XSUM_FINITE) {
        uint64_t b = st == MU_XSUM_HAS_NAN ? 0x7FF8000000000000ull
                     : s->w[MU_XSUM_PINF]  ? 0x7FF0000000000000ull
                                           : 0xFFF0000000000000ull;
        memcpy(&out, &b, sizeof out);
        if (status) *status = st;
        return out;
    }
    int64_t w[MU_XSUM_DIGITS];
    mu_xsum t;
    for (int i = 0; i < MU_XSUM_WORDS; i++) t.w[i] = s->w[i];
    mu_xsum_normalize(&t);
    uint64_t sign = 0;
    if (t.w[MU_XSUM_DIGITS - 1] < 0) { /* negative: take the magnitude */
        for (int i = 0; i < MU_XSUM_DIGITS; i++) t.w[i] = -t.w[i];
        mu_xsum_normalize(&t);
        sign = 1ull << 63;
    }
    for (int i = 0; i < MU_XSUM_DIGITS; i++) w[i] = t.w[i];
    int h = MU_XSUM_DIGITS - 1;
    while (h >= 0 && w[h] == 0) h--;
    uint64_t bits;
    if (h < 0) {
        bits = 0; /* an exact zero is +0 */
    } else {
        int top = 31;
        while (!(((uint64_t)w[h] >> top) & 1u)) top--;
        int lead = 32 * h + top; /* position of the leading bit */
        if (lead <= 52) {
            /* Below 2^-1021: exactly representable; the bit pattern is the integer itself. */
            bits = (uint64_t)w[0] | ((uint64_t)w[1] << 32);
        } else {
            int lo = lead - 63;
            uint64_t win = mu_xsum_window_(w, lo);
            uint64_t mant = win >> 11, rem = win & 0x7FF;
            int sticky = 0;
            for (int p = 0; p < lo && !sticky; p++) {
                if ((p & 31) == 0 && p + 32 <= lo) {
                    sticky = w[p >> 5] != 0;
                    p += 31;
                } else {
                    sticky = (((uint64_t)w[p >> 5] >> (p & 31)) & 1u) != 0;
                }
            }
            if (rem > 0x400 || (rem == 0x400 && (sticky || (mant & 1)))) mant++;
            if (mant == (1ull << 53)) {
                mant >>= 1;
                lead++;
            }
            int64_t expo = (int64_t)lead - 51; /* biased exponent */
            if (expo >= 0x7FF) {
                st = MU_XSUM_OVERFLOW;
                bits = 0x7FF0000000000000ull;
            } else {
                bits = ((uint64_t)expo << 52) | (mant & 0xFFFFFFFFFFFFFull);
            }
        }
    }
    bits |= sign;
    memcpy(&out, &bits, sizeof out);
    if (status) *status = st;
    return out;
}

#ifndef __CUDACC__
#include <mpi.h>
/* s += v[0] + ... + v[n-1], exactly: the same value (normalized words) as adding
 * them one by one. The host fast path for long sums: blocks of 256 split exactly
 * into two or three level sums (see exactsum.c); blocks it cannot take (NaN,
 * Inf, a spread of more than about 80 binades, a rounding mode other than to
 * nearest, flushed subnormals) go value by value. */
void mu_xsum_add_array(mu_xsum *s, const double *v, int64_t n);
/* The vector width of that fast path (the words never depend on it): 0 picks
 * the widest this processor runs (the default), 2 or 4 asks for one (4 where
 * AVX2 runs, else 2). Returns the width now in use. For tests and benchmarks. */
int mu_xsum_lanes(int want);
/* Collective: sums count accumulators over comm, exactly (each normalized first). */
void mu_xsum_allreduce(mu_xsum *s, int count, MPI_Comm comm);
/* A short name for a status, for messages ("NaN", "Inf", "overflow", "finite"). */
const char *mu_xsum_status_name(mu_xsum_status st);
#endif

#endif
