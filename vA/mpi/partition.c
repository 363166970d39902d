#include "mpi/partition.h"

void mu_block_range(int64_t n, int parts, int part, int64_t *lo, int64_t *hi) {
    int64_t base = n / parts, extra = n % parts;
    *lo = part * base + (part < extra ? part : extra);
    *hi = *lo + base + (part < extra ? 1 : 0);
}

void mu_block_by_weight(const int64_t *prefix, int64_t n, int parts, int64_t *bounds) {
    int64_t total = prefix[n] - prefix[0];
    bounds[0] = 0;
    int64_t i = 0;
    for (int p = 1; p < parts; p++) {
        /* Exact target in 128-bit-free form: weight * parts >= p * total. */
        while (i < n && (prefix[i] - prefix[0]) * (int64_t)parts < (int64_t)p * total) i++;
        bounds[p] = i < bounds[p - 1] ? bounds[p - 1] : i;
    }
    bounds[parts] = n;
}
