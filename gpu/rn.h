/* Device code's correctly rounded +, - and *, for double and float alike: each
 * one IEEE round-to-nearest operation (the _rn intrinsics), which nvcc never
 * contracts into an FMA, so that kernels written with them give the CPU
 * reference's bits. Used by the cg and fuzzy kernels. */
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

#endif
