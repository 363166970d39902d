/* Helpers shared by the GPU benchmarks: checked CUDA calls, a wall clock,
 * medians, and the device-to-device copy bandwidth that every benchmark
 * reports its figures against. */
#ifndef MU_PERF_BENCH_UTIL_H
#define MU_PERF_BENCH_UTIL_H
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

/* Ends the benchmark (exit 1) with "PREFIXfile:line: CALL failed: WHY". */
void bench_fail(const char *prefix, const char *file, int line, const char *call, const char *why);

/* A library call (its text, then the call) that returns a status of `type`:
 * any status but `ok` ends the benchmark, why(status) saying what it was. */
#define BENCH_CHECK(type, ok, why, prefix, text, call)                                             \
    do {                                                                                           \
        type s_ = (call);                                                                          \
        if (s_ != (ok)) bench_fail(prefix, __FILE__, __LINE__, text, why(s_));                     \
    } while (0)
#define CK(call) BENCH_CHECK(cudaError_t, cudaSuccess, cudaGetErrorString, "", #call, call)

/* Monotonic wall clock in seconds. */
double bench_now(void);
/* Median of v[0..n) (sorts v). */
double bench_median(double *v, int n);
/* cudaMemcpy device to device of 1 GiB, `reps` times after 3 warm-ups: returns
 * (bytes read + bytes written) / median time, and the median time in *median_s. */
double bench_copy_bandwidth(int reps, double *median_s);

#endif
