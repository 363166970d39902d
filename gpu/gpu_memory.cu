/* The device memory a process holds: every cudaMalloc and cudaFree of gpu/
 * (through gpu/check.h) adds or removes its bytes, and the high point is kept
 * for the run's summary. A pointer's size is kept in a small open-addressing
 * table; the scenario lanes allocate from host threads, hence the lock. */
#define MU_GPU_COUNTING_IMPL
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include "gpu/check.h"
#include "gpu/gpu.h"

typedef struct {
    void *p;
    size_t bytes;
} block;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static block *table;
static size_t slots, used, held, peak;
#define GONE ((void *)1) /* a freed slot: lookups go on past it */

static size_t slot_of(void *p, size_t n) {
    return (size_t)(((uintptr_t)p >> 8) * 0x9E3779B97F4A7C15ull) & (n - 1);
}

/* Room for one more pointer: the table doubles (and drops freed slots) at half full. */
static int make_room(void) {
    if (2 * (used + 1) <= slots) return 0;
    size_t n = slots ? 2 * slots : 1024;
    block *t = (block *)calloc(n, sizeof *t);
    if (!t) return 1;
    used = 0;
    for (size_t i = 0; i < slots; i++) {
        if (!table[i].p || table[i].p == GONE) continue;
        size_t k = slot_of(table[i].p, n);
        while (t[k].p) k = (k + 1) & (n - 1);
        t[k] = table[i];
        used++;
    }
    free(table);
    table = t;
    slots = n;
    return 0;
}

cudaError_t mu_gpu_counted_malloc(void **p, size_t bytes) {
    cudaError_t e = cudaMalloc(p, bytes);
    if (e != cudaSuccess || !*p) return e;
    pthread_mutex_lock(&lock);
    if (!make_room()) { /* without room, the block is simply not counted */
        size_t k = slot_of(*p, slots);
        while (table[k].p && table[k].p != GONE) k = (k + 1) & (slots - 1);
        if (!table[k].p) used++;
        table[k] = (block){*p, bytes};
        held += bytes;
        if (held > peak) peak = held;
    }
    pthread_mutex_unlock(&lock);
    return e;
}

cudaError_t mu_gpu_counted_free(void *p) {
    if (p) {
        pthread_mutex_lock(&lock);
        for (size_t k = slots ? slot_of(p, slots) : 0; slots && table[k].p;
             k = (k + 1) & (slots - 1))
            if (table[k].p == p) {
                held -= table[k].bytes;
                table[k].p = GONE;
                break;
            }
        pthread_mutex_unlock(&lock);
    }
    return cudaFree(p);
}

extern "C" size_t mu_gpu_mem_peak(void) {
    pthread_mutex_lock(&lock);
    size_t bytes = peak;
    pthread_mutex_unlock(&lock);
    return bytes;
}
