/* Philox 4x32-10 (Salmon et al., SC'11): a counter-based generator, so any
 * value is a pure function of (seed, stream, index) and no layout of ranks or
 * devices changes the numbers drawn. Usable from C and CUDA device code. */
#ifndef MU_CORE_PHILOX_H
#define MU_CORE_PHILOX_H
#include <stdint.h>
#include "core/hd.h"

MU_HD void mu_philox4x32_10(const uint32_t ctr_in[4], const uint32_t key_in[2], uint32_t out[4]) {
    uint32_t c0 = ctr_in[0], c1 = ctr_in[1], c2 = ctr_in[2], c3 = ctr_in[3];
    uint32_t k0 = key_in[0], k1 = key_in[1];
    for (int round = 0; round < 10; round++) {
        uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c0 = n0;
        c1 = (uint32_t)p1;
        c2 = n2;
        c3 = (uint32_t)p0;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

/* Four 32-bit words for (seed, stream, index): key = seed, counter = (index, stream). */
MU_HD void mu_rng4(uint64_t seed, uint64_t stream, uint64_t index, uint32_t out[4]) {
    uint32_t ctr[4] = {(uint32_t)index, (uint32_t)(index >> 32), (uint32_t)stream,
                       (uint32_t)(stream >> 32)};
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    mu_philox4x32_10(ctr, key, out);
}

/* Uniform in (0, 1): never 0, so logarithms are safe. */
MU_HD double mu_rng_open01(uint32_t hi, uint32_t lo) {
    uint64_t bits = ((uint64_t)hi << 21) ^ (uint64_t)(lo >> 11);
    return ((double)(bits & ((1ull << 53) - 1)) + 0.5) * (1.0 / 9007199254740992.0);
}

/* Integer in [lo, hi] by multiply-shift (bias below 2^-32 per draw for small ranges). */
MU_HD int64_t mu_rng_range(uint32_t u, int64_t lo, int64_t hi) {
    uint64_t span = (uint64_t)(hi - lo) + 1;
    return lo + (int64_t)(((uint64_t)u * span) >> 32);
}
#endif
