/* How much more memory this process may take: what a workload checks its
 * estimate against before allocating, so a claim too big for the machine is
 * refused with a message rather than a crash or the OOM killer. */
#ifndef MU_CORE_MEMORY_H
#define MU_CORE_MEMORY_H
#include <stddef.h>

/* Bytes this rank may still allocate: the node's available memory shared by
 * its local_ranks ranks, and no more than the address space left under
 * `ulimit -v` (RLIMIT_AS). */
double mu_mem_rank_available(int local_ranks);

/* Maps the whole pages of [p, p + bytes) ahead of a first write, in one call
 * instead of one page fault per page (Linux MADV_POPULATE_WRITE; a fault
 * costs about as much as writing the page again). Threads filling their own
 * parts of a fresh array each call it on their part. Nothing where the kernel
 * lacks it. */
void mu_mem_prefault(void *p, size_t bytes);

/* The most resident memory this process has held so far (Linux VmHWM), in
 * bytes; 0 where the kernel does not say. */
double mu_mem_host_peak(void);

#endif
