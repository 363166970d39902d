/* Binary search in the ascending index lists of the cg matrices: a row's
 * columns (int32), the ghost list (int64) and the boundary rows (int32). */
#ifndef MU_CG_SEARCH_H
#define MU_CG_SEARCH_H
#include <stdint.h>

/* name(a, lo, hi, key): the first index in [lo, hi) whose value is not below
 * key, or hi. One body for each element type. */
#define CG_LOWER_BOUND(name, type)                                                                 \
    static inline int64_t name(const type *a, int64_t lo, int64_t hi, int64_t key) {               \
        while (lo < hi) {                                                                          \
            int64_t mid = (lo + hi) / 2;                                                           \
            if (a[mid] < key)                                                                      \
                lo = mid + 1;                                                                      \
            else                                                                                   \
                hi = mid;                                                                          \
        }                                                                                          \
        return lo;                                                                                 \
    }
CG_LOWER_BOUND(cg_lower_bound_i32, int32_t)
CG_LOWER_BOUND(cg_lower_bound_i64, int64_t)
#endif
