/* Helpers shared by the GPU benchmarks: checked CUDA calls, a wall clock,
 * medians, and the device-to-device copy bandwidth that every benchmark
 * reports its figures against. */
#ifndef MU_PERF_BENCH_UTIL_H
#define MU_PERF_BENCH_UTIL_H
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,                   \
                    cudaGetErrorString(e_));                                                       \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* Monotonic wall clock in seconds. */
double bench_now(void);
/* Median of v[0..n) (sorts v). */
double bench_median(double *v, int n);
/* cudaMemcpy device to device of 1 GiB, `reps` times after 3 warm-ups: returns
 * (bytes read + bytes written) / median time, and the median time in *median_s. */
double bench_copy_bandwidth(int reps, double *median_s);

#endif
