#define _POSIX_C_SOURCE 200809L
#include "bench_util.h"
#include <time.h>

void bench_fail(const char *prefix, const char *file, int line, const char *call, const char *why) {
    fprintf(stderr, "%s%s:%d: %s failed: %s\n", prefix, file, line, call, why);
    exit(1);
}

double bench_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double bench_median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double bench_copy_bandwidth(int reps, double *median_s) {
    const size_t bytes = (size_t)1 << 30;
    void *a, *b;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    CK(cudaMemset(a, 0x37, bytes)); /* never time on zeros */
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int i = 0; i < 3; i++) CK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
    double *t = malloc(sizeof(double) * (size_t)reps);
    if (!t) exit(1);
    for (int i = 0; i < reps; i++) {
        CK(cudaEventRecord(e0, 0));
        CK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
        CK(cudaEventRecord(e1, 0));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        t[i] = ms * 1e-3;
    }
    double tm = bench_median(t, reps);
    free(t);
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    CK(cudaFree(a));
    CK(cudaFree(b));
    if (median_s) *median_s = tm;
    return 2.0 * (double)bytes / tm;
}
