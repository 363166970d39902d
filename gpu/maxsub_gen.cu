/* maxsub's Philox input made on the device (workloads/core/philox_value.h: the
 * host generator's own definition of a value, so the bits are the host's).
 * One thread a value; an oriented 2-D matrix is written transposed on the fly. */
#include <cstdint>
#include <cuda_runtime.h>
#include "gpu/maxsub_gpu.h"
#include "gpu/check.h"

namespace {

/* out[t] for t < rows * cols: value base + t, or of the transposed matrix
 * (out is rows x cols, the source cols x rows). */
__global__ void k_philox_fill(mu_philox_spec s, long long base, long long rows, long long cols,
                              int transposed, int *out) {
    const long long n = rows * cols, stride = (long long)gridDim.x * blockDim.x;
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < n; t += stride) {
        long long src = transposed ? (t % cols) * rows + t / cols : t;
        out[t] = mu_philox_value(s, base + src);
    }
}

} // namespace

extern "C" int mu_gpu_philox_fill(mu_philox_spec spec, int64_t base, int64_t rows, int64_t cols,
                                  int transposed, int32_t *dev, void *stream) {
    if (rows < 0 || cols < 0)
        return mu_gpu_fail("mu_gpu_philox_fill: %lld x %lld", (long long)rows, (long long)cols);
    long long n = (long long)rows * cols;
    if (n == 0) return 0;
    long long blocks = (n + 255) / 256;
    if (blocks > 132 * 32) blocks = 132 * 32;
    k_philox_fill<<<(unsigned)blocks, 256, 0, (cudaStream_t)stream>>>(spec, base, rows, cols,
                                                                      transposed, (int *)dev);
    MU_LAUNCHED();
    return 0;
}

extern "C" int mu_gpu_philox_to_host(mu_philox_spec spec, int64_t base, int64_t rows, int64_t cols,
                                     int transposed, int32_t *host) {
    int rc = 0;
    int32_t *dev = nullptr;
    const size_t bytes = (size_t)rows * (size_t)cols * sizeof *host;
    if (bytes == 0) return 0;
    MU_CUDA_GOTO(cudaMalloc(&dev, bytes));
    if (mu_gpu_philox_fill(spec, base, rows, cols, transposed, dev, nullptr)) {
        rc = 1;
        goto done;
    }
    MU_CUDA_GOTO(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
done:
    if (dev) MU_CUDA_KEEP(cudaFree(dev));
    return rc;
}
