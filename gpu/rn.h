/* Device code's correctly rounded +, - and *, for double and float alike: each
 * one IEEE round-to-nearest operation (the _rn intrinsics), which nvcc never
 * contracts into an FMA, so that kernels written with them give the CPU
 * reference's bits. Used by the cg, fuzzy and scenario kernels. */
#ifndef MU_GPU_RN_H
#define MU_GPU_RN_H
#include <cuda_runtime.h>

/* name(a, b) for double (dop) and float (fop). */
#define MU_RN_OP(name, dop, fop)                                                                   \
    __device__ __forceinline__ double name(double a, double b) {                                   \
        return dop(a, b);                                                                          \
    }                                                                                              \
    __device__ __forceinline__ float name(float a, float b) {                                      \
        return fop(a, b);                                                                          \
    }
MU_RN_OP(add_rn, __dadd_rn, __fadd_rn)
MU_RN_OP(sub_rn, __dsub_rn, __fsub_rn)
MU_RN_OP(mul_rn, __dmul_rn, __fmul_rn)
#undef MU_RN_OP

/* s + a[0] + a[stride] + ... + a[(n - 1) stride], added one by one in that
 * order (the CPU's bits), a a run in shared memory: each eight values are
 * loaded while the eight before them are added, so that the chain waits on
 * the adds' latency alone, not on a load's. */
__device__ __forceinline__ double mu_ordered_add(double s, const double *a, int n, int stride) {
    int t = 0;
    if (n >= 8) {
        double v[8];
#pragma unroll
        for (int u = 0; u < 8; u++) v[u] = a[u * stride];
        for (t = 8; t + 8 <= n; t += 8) {
            double next[8];
#pragma unroll
            for (int u = 0; u < 8; u++) next[u] = a[(t + u) * stride];
#pragma unroll
            for (int u = 0; u < 8; u++) s = __dadd_rn(s, v[u]);
#pragma unroll
            for (int u = 0; u < 8; u++) v[u] = next[u];
        }
#pragma unroll
        for (int u = 0; u < 8; u++) s = __dadd_rn(s, v[u]);
    }
    for (; t < n; t++) s = __dadd_rn(s, a[t * stride]);
    return s;
}

#endif
