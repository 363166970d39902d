#define _GNU_SOURCE /* sysconf(_SC_AVPHYS_PAGES) */
#include "core/memory.h"
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

/* MemAvailable (free memory plus reclaimable cache), else the free pages. */
static double node_available(void) {
    FILE *f = fopen("/proc/meminfo", "r");
    char key[64];
    double kib;
    while (f && fscanf(f, "%63s %lf kB", key, &kib) == 2)
        if (!strcmp(key, "MemAvailable:")) {
            fclose(f);
            return kib * 1024.0;
        }
    if (f) fclose(f);
    return (double)sysconf(_SC_AVPHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
}

/* Address space left under RLIMIT_AS; -1 when unlimited. */
static double address_space_left(void) {
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return -1;
    double used = 0, pages;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f && fscanf(f, "%lf", &pages) == 1) used = pages * (double)sysconf(_SC_PAGESIZE);
    if (f) fclose(f);
    double left = (double)rl.rlim_cur - used;
    return left > 0 ? left : 0;
}

double mu_mem_rank_available(int local_ranks) {
    double bytes = node_available() / (local_ranks > 0 ? local_ranks : 1);
    double as = address_space_left();
    return as >= 0 && as < bytes ? as : bytes;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older kernels refuse it (EINVAL) */
#endif

void mu_mem_prefault(void *p, size_t bytes) {
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t a = ((uintptr_t)p + page - 1) / page * page, e = ((uintptr_t)p + bytes) / page * page;
    if (e > a) (void)madvise((void *)a, e - a, MADV_POPULATE_WRITE); /* a hint: failure is fine */
}

double mu_mem_host_peak(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double kib = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %lf kB", &kib) == 1) break;
    if (f) fclose(f);
    return kib * 1024.0;
}
