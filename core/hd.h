/* Marks inline helpers that compile both as C11 on the host and as CUDA device code. */
#ifndef MU_CORE_HD_H
#define MU_CORE_HD_H
#ifdef __CUDACC__
#define MU_HD __host__ __device__ __forceinline__
#else
#define MU_HD static inline
#endif
#endif
