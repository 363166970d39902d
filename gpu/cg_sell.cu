/* The SELL-32 copy of a cg matrix block (see sell_mat in gpu/cg_impl.h),
 * built on the device from the CSR arrays already there: the slices' widths
 * on the device, their offsets on the host (one scan at setup), then one
 * thread per row copies its entries into the slice's columns. */
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>

#include "gpu/cg_impl.h"
#include "gpu/check.h"

namespace mu_cg {
namespace {

constexpr int SLICE = 32;

/* Row lengths (as bytes, 255 at most: else *bad) and each slice's width. */
__global__ void k_sell_widths(const int *rowptr, long long nrows, unsigned char *len, int *width,
                              int *bad) {
    const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= nrows) return;
    const int n = rowptr[r + 1] - rowptr[r];
    if (n > 255) atomicExch(bad, 1);
    len[r] = (unsigned char)(n > 255 ? 255 : n);
    atomicMax(width + r / SLICE, n);
}

template <typename T>
__global__ void k_sell_fill(const int *rowptr, const int *col, const T *val, long long nrows,
                            const int *off, int *scol, T *sval) {
    const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= nrows) return;
    const int s = rowptr[r], n = rowptr[r + 1] - s;
    const long long at = off[r / SLICE] + r % SLICE;
    for (int j = 0; j < n; j++) {
        scol[at + (long long)SLICE * j] = col[s + j];
        sval[at + (long long)SLICE * j] = val[s + j];
    }
}

int blocks_for(long long n) {
    return (int)((n + 255) / 256);
}

} // namespace

void sell_free(sell_mat *m) {
    void *p[] = {m->val, m->col, m->off, m->len};
    for (void *d : p)
        if (d) (void)cudaFree(d); /* teardown: a failure here changes nothing */
    *m = sell_mat{};
}

int sell_build(const int *rowptr, const int *col, const void *val, long long nrows, int fp32,
               sell_mat *m) {
    *m = sell_mat{};
    if (nrows <= 0) return 0;
    const long long slices = (nrows + SLICE - 1) / SLICE;
    const size_t es = fp32 ? sizeof(float) : sizeof(double);
    int *width = nullptr, *bad = nullptr;
    std::vector<int> w((size_t)slices), off((size_t)slices);
    int bad_h = 0;
    long long total = 0;
    MU_CUDA(cudaMalloc(&m->len, (size_t)nrows));
    MU_CUDA(cudaMalloc(&width, (size_t)slices * sizeof(int) + sizeof(int)));
    bad = width + slices;
    MU_CUDA(cudaMemset(width, 0, (size_t)slices * sizeof(int) + sizeof(int)));
    k_sell_widths<<<blocks_for(nrows), 256>>>(rowptr, nrows, m->len, width, bad);
    MU_LAUNCHED();
    MU_CUDA(cudaMemcpy(w.data(), width, (size_t)slices * sizeof(int), cudaMemcpyDeviceToHost));
    MU_CUDA(cudaMemcpy(&bad_h, bad, sizeof(int), cudaMemcpyDeviceToHost));
    MU_CUDA(cudaFree(width));
    for (long long k = 0; k < slices; k++) {
        off[(size_t)k] = (int)total;
        total += (long long)SLICE * w[(size_t)k];
        if (total > 0x7fffffffLL) bad_h = 1;
    }
    if (bad_h) { /* rows too long or too many entries: the CSR kernels only */
        sell_free(m);
        return 0;
    }
    const size_t n = (size_t)(total ? total : 1);
    if (cudaMalloc(&m->val, n * es) != cudaSuccess ||
        cudaMalloc(&m->col, n * sizeof(int)) != cudaSuccess ||
        cudaMalloc(&m->off, (size_t)slices * sizeof(int)) != cudaSuccess) {
        (void)cudaGetLastError(); /* out of memory: the CSR kernels only */
        sell_free(m);
        return 0;
    }
    MU_CUDA(cudaMemcpy(m->off, off.data(), (size_t)slices * sizeof(int), cudaMemcpyHostToDevice));
    if (fp32)
        k_sell_fill<float><<<blocks_for(nrows), 256>>>(rowptr, col, (const float *)val, nrows,
                                                       m->off, m->col, (float *)m->val);
    else
        k_sell_fill<double><<<blocks_for(nrows), 256>>>(rowptr, col, (const double *)val, nrows,
                                                        m->off, m->col, (double *)m->val);
    MU_LAUNCHED();
    MU_CUDA(cudaDeviceSynchronize());
    m->rows = nrows;
    m->entries = total;
    return 0;
}

} // namespace mu_cg
