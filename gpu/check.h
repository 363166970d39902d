/* Internal to the CUDA sources of gpu/: checking of every CUDA runtime call and kernel launch.
 *
 * A failed call records "file:line: cudaXxx failed: <cudaGetErrorString>" in the
 * message that mu_gpu_error() returns. Three forms:
 *   MU_CUDA(call)        return 1 from the enclosing function on failure;
 *   MU_CUDA_GOTO(call)   set the local `rc = 1` and `goto done` (for cleanup paths);
 *   MU_LAUNCHED() / MU_LAUNCHED_GOTO()  the same for the launch just made
 *                        (cudaGetLastError after <<<...>>>).
 * mu_gpu_fail() records a message of our own (bad argument, size limit). */
#ifndef MU_GPU_CHECK_H
#define MU_GPU_CHECK_H
#include <cuda_runtime.h>
#include <stddef.h>

/* Every device allocation of gpu/ is counted (gpu/gpu_memory.cu), so that a
 * run's summary can say how much device memory a rank held at its high point
 * (mu_gpu_mem_peak): cudaMalloc and cudaFree below name these. */
cudaError_t mu_gpu_counted_malloc(void **p, size_t bytes);
cudaError_t mu_gpu_counted_free(void *p);
#ifndef MU_GPU_COUNTING_IMPL
#define cudaMalloc(p, bytes) mu_gpu_counted_malloc((void **)(p), (bytes))
#define cudaFree(p) mu_gpu_counted_free(p)
#endif

/* Records the failure of `what` (the call's text; its name is kept) and returns 1. */
int mu_gpu_cuda_failed(const char *file, int line, const char *what, cudaError_t err);
/* Records "file:line: message" and returns 1. */
int mu_gpu_fail_at(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define mu_gpu_fail(...) mu_gpu_fail_at(__FILE__, __LINE__, __VA_ARGS__)

#define MU_CUDA(call)                                                                              \
    do {                                                                                           \
        cudaError_t mu_e_ = (call);                                                                \
        if (mu_e_ != cudaSuccess) return mu_gpu_cuda_failed(__FILE__, __LINE__, #call, mu_e_);     \
    } while (0)

#define MU_CUDA_GOTO(call)                                                                         \
    do {                                                                                           \
        cudaError_t mu_e_ = (call);                                                                \
        if (mu_e_ != cudaSuccess) {                                                                \
            rc = mu_gpu_cuda_failed(__FILE__, __LINE__, #call, mu_e_);                             \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

#define MU_LAUNCHED()                                                                              \
    do {                                                                                           \
        cudaError_t mu_e_ = cudaGetLastError();                                                    \
        if (mu_e_ != cudaSuccess)                                                                  \
            return mu_gpu_cuda_failed(__FILE__, __LINE__, "cudaLaunchKernel", mu_e_);              \
    } while (0)

#define MU_LAUNCHED_GOTO()                                                                         \
    do {                                                                                           \
        cudaError_t mu_e_ = cudaGetLastError();                                                    \
        if (mu_e_ != cudaSuccess) {                                                                \
            rc = mu_gpu_cuda_failed(__FILE__, __LINE__, "cudaLaunchKernel", mu_e_);                \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

/* In cleanup code: run the call, keep the first failure in rc, carry on freeing. */
#define MU_CUDA_KEEP(call)                                                                         \
    do {                                                                                           \
        cudaError_t mu_e_ = (call);                                                                \
        if (mu_e_ != cudaSuccess && rc == 0)                                                       \
            rc = mu_gpu_cuda_failed(__FILE__, __LINE__, #call, mu_e_);                             \
    } while (0)

#endif
