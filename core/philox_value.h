/* The Philox input of maxsub, value by value, for host and device code alike:
 * one definition, so data generated on a GPU is bitwise what the host makes. */
#ifndef MU_MAXSUB_PHILOX_VALUE_H
#define MU_MAXSUB_PHILOX_VALUE_H
#include <stdint.h>
#include "core/hd.h"
#include "core/philox.h"

typedef struct {
    uint64_t seed;
    int sparse; /* mostly negative with rare positives (needs vmin < 0 < vmax) */
    int32_t vmin, vmax;
} mu_philox_spec;

/* A value from its two Philox words: u picks the value, v the sign class. */
MU_HD int32_t mu_philox_pick(mu_philox_spec s, uint32_t u, uint32_t v) {
    if (s.sparse && s.vmin < 0 && s.vmax > 0)
        return (int32_t)((v % 20u) == 0 ? mu_rng_range(u, 1, s.vmax) : mu_rng_range(u, s.vmin, -1));
    return (int32_t)mu_rng_range(u, s.vmin, s.vmax);
}

/* Value i of the sequence: block i / 2 of the stream gives two values. */
MU_HD int32_t mu_philox_value(mu_philox_spec s, int64_t i) {
    uint32_t w[4];
    mu_rng4(s.seed, 0, (uint64_t)(i / 2), w);
    return mu_philox_pick(s, w[2 * (i % 2)], w[2 * (i % 2) + 1]);
}
#endif
