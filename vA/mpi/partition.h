/* Static partitioners. */
#ifndef MU_MPI_PARTITION_H
#define MU_MPI_PARTITION_H
#include <stdint.h>

/* Contiguous block `part` of n items over `parts`: sizes differ by at most one,
 * the larger blocks first. */
void mu_block_range(int64_t n, int parts, int part, int64_t *lo, int64_t *hi);

/* Contiguous blocks balanced by weight: prefix[i] is the total weight of items
 * [0, i) (n+1 entries, non-decreasing). Fills bounds[0..parts] with bounds[0] = 0,
 * bounds[parts] = n, each cut at the item where the prefix first reaches
 * part * total / parts (e.g. CSR rows balanced by nonzeros: prefix = row_ptr). */
void mu_block_by_weight(const int64_t *prefix, int64_t n, int parts, int64_t *bounds);

#endif
