/* Freeing the many arrays of a struct or a function at once:
 * MU_FREE(s->a, s->b, ...) frees each pointer given (NULL ones as free does),
 * one list instead of a free line per array. */
#ifndef MU_CORE_FREE_H
#define MU_CORE_FREE_H
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

static inline void mu_free_n(void *const *p, size_t n) {
    for (size_t i = 0; i < n; i++) free(p[i]);
}

/* Frees the n strings of the array s, then s (NULL: nothing). */
static inline void mu_free_strings(char **s, int64_t n) {
    if (s)
        for (int64_t i = 0; i < n; i++) free(s[i]);
    free(s);
}

#define MU_FREE(...)                                                                               \
    mu_free_n((void *const[]){__VA_ARGS__}, sizeof((void *const[]){__VA_ARGS__}) / sizeof(void *))

#endif
