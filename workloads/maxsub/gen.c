#include "maxsub/gen.h"

void mu_glibc_rand_seed(mu_glibc_rand *g, uint32_t seed) {
    /* The state recurrence of glibc's srandom_r: r[i] = 16807 r[i-1] mod (2^31 - 1). */
    int32_t r[34];
    r[0] = (int32_t)(seed ? seed : 1);
    for (int i = 1; i < 31; i++) {
        int64_t v = (16807LL * r[i - 1]) % 2147483647LL;
        if (v < 0) v += 2147483647LL;
        r[i] = (int32_t)v;
    }
    for (int i = 31; i < 34; i++) r[i] = r[i - 31];
    for (int i = 0; i < 34; i++) g->r[i] = (uint32_t)r[i];
    g->k = 34;
    /* glibc discards the first 310 outputs after seeding. */
    for (int i = 0; i < 310; i++) mu_glibc_rand_next(g);
}

int32_t mu_glibc_rand_next(mu_glibc_rand *g) {
    /* r[k] = r[k-31] + r[k-3] (mod 2^32), output r[k] >> 1; ring of 34 entries. */
    int64_t k = g->k;
    uint32_t v = g->r[(k - 31) % 34] + g->r[(k - 3) % 34];
    g->r[k % 34] = v;
    g->k = k + 1;
    return (int32_t)(v >> 1);
}

int32_t mu_thesis_value(int32_t rand_value) {
    /* C's conversion truncates toward zero, as the study's int assignment did. */
    return (int32_t)(rand_value / (2147483647.0 + 1.0) * 2000 - 1000);
}

void mu_gen_thesis(int64_t lo, int64_t hi, int32_t *out) {
    mu_glibc_rand g;
    mu_glibc_rand_seed(&g, 1);
    for (int64_t i = 0; i < lo; i++) mu_glibc_rand_next(&g);
    for (int64_t i = lo; i < hi; i++) out[i - lo] = mu_thesis_value(mu_glibc_rand_next(&g));
}

void mu_gen_philox(mu_philox_spec spec, int64_t lo, int64_t hi, int32_t *out) {
    uint32_t w[4];
    int64_t have = -1;
    for (int64_t i = lo; i < hi; i++) {
        int64_t block = i / 2; /* two values a block: draw it once */
        if (block != have) {
            mu_rng4(spec.seed, 0, (uint64_t)block, w);
            have = block;
        }
        out[i - lo] = mu_philox_pick(spec, w[2 * (i % 2)], w[2 * (i % 2) + 1]);
    }
}

void mu_gen_thesis_segments(int64_t first, int64_t stride, int64_t count, int64_t len,
                            int32_t *out) {
    mu_glibc_rand g;
    mu_glibc_rand_seed(&g, 1);
    int64_t at = 0;
    for (int64_t k = 0; k < count; k++) {
        for (int64_t start = first + k * stride; at < start; at++) mu_glibc_rand_next(&g);
        for (int64_t t = 0; t < len; t++, at++)
            out[k * len + t] = mu_thesis_value(mu_glibc_rand_next(&g));
    }
}
