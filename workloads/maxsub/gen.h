/* Input generators for maxsub. Both give the same values whatever the number
 * of ranks: Philox values are a function of (seed, index); the study's
 * generator is one sequential stream, so a rank produces the stream up to the
 * end of its block and keeps its part. */
#ifndef MU_MAXSUB_GEN_H
#define MU_MAXSUB_GEN_H
#include <stdint.h>
#include "core/philox_value.h"

/* glibc's rand() (TYPE_3 additive feedback, seed 1 unless reseeded), as used by
 * the study: x = (int)(rand() / (RAND_MAX + 1.0) * 2000) - 1000. Written out
 * here so that the reference answers hold on any C library. */
typedef struct {
    uint32_t r[34];
    int64_t k;
} mu_glibc_rand;

void mu_glibc_rand_seed(mu_glibc_rand *g, uint32_t seed);
int32_t mu_glibc_rand_next(mu_glibc_rand *g); /* 0 .. 2^31-1, like rand() */
int32_t mu_thesis_value(int32_t rand_value);  /* the study's mapping to [-1000, 999] */

/* Values [lo, hi) of the generated sequence into out[0 .. hi-lo). */
void mu_gen_thesis(int64_t lo, int64_t hi, int32_t *out);
void mu_gen_philox(mu_philox_spec spec, int64_t lo, int64_t hi, int32_t *out);
/* Segments k = 0 .. count-1 of the study's stream, values [first + k * stride,
 * first + k * stride + len), into out[k * len ..] (len <= stride): one pass
 * over the stream up to the last segment, nothing else kept. */
void mu_gen_thesis_segments(int64_t first, int64_t stride, int64_t count, int64_t len,
                            int32_t *out);

#endif
