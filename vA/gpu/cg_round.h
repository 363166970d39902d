/* mu_xsum_round's result (the same double and status, bit for bit) in time
 * that grows with the span of nonzero words instead of the whole 68-word
 * window, bit by bit: the form the cg device iterations use, where one
 * thread rounds each reduced sum on the critical path of every iteration.
 * Plain C and CUDA (MU_HD); checked against mu_xsum_round in tests/test_cg.c.
 *
 * How: the words are normalized only from the lowest nonzero digit up to
 * where the carry settles (0: nonnegative, -1: negative with every higher
 * digit 0xFFFFFFFF, as a full normalization would make them); a negative
 * sum is negated on the same span; the leading bit's 64-bit window comes
 * from the top three digits and the sticky bit from the rest. */
#ifndef MU_GPU_CG_ROUND_H
#define MU_GPU_CG_ROUND_H
#include <stdint.h>
#include "core/exactsum.h"

/* Leading bit of a nonzero 32-bit digit. */
MU_HD int mu_xsum_top_bit_(uint64_t d) {
    int top = 31;
    while (!((d >> top) & 1u)) top--;
    return top;
}

/* s is used as scratch (its digits are left normalized or negated). */
MU_HD double mu_xsum_round_sparse(mu_xsum *s, mu_xsum_status *status) {
    const mu_xsum_status sp = mu_xsum_specials(s);
    uint64_t bits;
    double out;
    if (sp != MU_XSUM_FINITE) { /* as mu_xsum_round: NaN, else the infinity added */
        bits = sp == MU_XSUM_HAS_NAN ? 0x7FF8000000000000ull
               : s->w[MU_XSUM_PINF]  ? 0x7FF0000000000000ull
                                     : 0xFFF0000000000000ull;
        if (status) *status = sp;
        memcpy(&out, &bits, sizeof out);
        return out;
    }
    int64_t *w = s->w;
    const int D = MU_XSUM_DIGITS;
    int lo = 0, hi = D - 1;
    while (lo < D && w[lo] == 0) lo++;
    if (status) *status = MU_XSUM_FINITE;
    if (lo == D) return 0.0; /* +0, as mu_xsum_round */
    while (w[hi] == 0) hi--;
    /* Normalize lo.. until the carry settles above hi. */
    int64_t carry = 0;
    int i = lo;
    for (; i < D - 1; i++) {
        if (i > hi && (carry == 0 || carry == -1)) break;
        const int64_t v = w[i] + carry;
        const int64_t low = (int64_t)((uint64_t)v & 0xFFFFFFFFull);
        carry = (v - low) / 4294967296ll;
        w[i] = low;
    }
    /* value = sum_{lo <= j < i} w[j] 2^(32 j) + top 2^(32 i). */
    int64_t top = carry;
    if (i == D - 1) top += w[D - 1];
    uint64_t sign = 0;
    if (top < 0) { /* magnitude: negate the span and normalize it again */
        sign = 1ull << 63;
        carry = 0;
        for (int j = lo; j < i; j++) {
            const int64_t v = -w[j] + carry;
            const int64_t low = (int64_t)((uint64_t)v & 0xFFFFFFFFull);
            carry = (v - low) / 4294967296ll;
            w[j] = low;
        }
        top = -top + carry;
    }
    /* Digits lo..i-1 are in [0, 2^32); top sits at digit i. */
    int h;
    if (top != 0) {
        h = i;
    } else {
        h = i - 1;
        while (h >= lo && w[h] == 0) h--;
        if (h < lo) return 0.0; /* an exact zero (never negative): +0 */
    }
    if (h >= D - 2 || (h == i && (uint64_t)top >> 32)) {
        /* Beyond 2^1038 and more: past the double range, as mu_xsum_round finds. */
        bits = 0x7FF0000000000000ull | sign;
        if (status) *status = MU_XSUM_OVERFLOW;
    } else {
#define MU_XD_(j) ((j) == i ? (uint64_t)top : ((j) >= lo && (j) < i ? (uint64_t)w[j] : 0u))
        const uint64_t dh = MU_XD_(h), d1 = h >= 1 ? MU_XD_(h - 1) : 0u,
                       d2 = h >= 2 ? MU_XD_(h - 2) : 0u;
        const int tb = mu_xsum_top_bit_(dh);
        int lead = 32 * h + tb;
        if (lead <= 52) {
            bits = MU_XD_(0) | (MU_XD_(1) << 32);
        } else {
            const uint64_t hi64 = (dh << 32) | d1;
            /* Bits lead - 63 .. lead of the magnitude; below them, the sticky bit. */
            const uint64_t win = (hi64 << (31 - tb)) | (d2 >> (tb + 1));
            uint64_t mant = win >> 11;
            const uint64_t rem = win & 0x7FF;
            int sticky = (d2 & ((1ull << (tb + 1)) - 1)) != 0;
            for (int j = lo; j < h - 2 && !sticky; j++) sticky = MU_XD_(j) != 0;
            if (rem > 0x400 || (rem == 0x400 && (sticky || (mant & 1)))) mant++;
            if (mant == (1ull << 53)) {
                mant >>= 1;
                lead++;
            }
            const int64_t expo = (int64_t)lead - 51;
            if (expo >= 0x7FF) {
                bits = 0x7FF0000000000000ull;
                if (status) *status = MU_XSUM_OVERFLOW;
            } else {
                bits = ((uint64_t)expo << 52) | (mant & 0xFFFFFFFFFFFFFull);
            }
        }
#undef MU_XD_
        bits |= sign;
    }
    memcpy(&out, &bits, sizeof out);
    return out;
}

#endif
