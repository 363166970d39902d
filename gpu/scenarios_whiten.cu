/* Whitening on the device (C API in gpu/scenarios_whiten.h), the same steps
 * and bits as core/whiten.c:
 *   transpose  x (m x d, as uploaded) to d x m, so that a station's values are
 *              contiguous; the first non-finite value (lowest row-major index,
 *              the one the CPU reports) is kept by atomicMin;
 *   colsum     per station, the sum of its values, then of its squared
 *              deviations from the mean (one block each);
 *   zscore     z = (x - mean) / sd of the kept stations (q x m);
 *   corr       per lower-triangle entry (s, u), the sum of z_s z_u (one block
 *              each);
 *   solve      per point, y = L^-1 (z in pivot order) by forward substitution
 *              (rk x m), then transposed to the compact m x rk the host reads.
 * Each sum is one dependent chain over the points in order, as the CPU's: the
 * block's threads form CH terms at a time in shared memory (coalesced loads,
 * separately rounded products), one thread adds them in order while the
 * next CH are loaded. The kept
 * stations and the pivoted Cholesky are decided on the host by whiten.c's own
 * functions from the downloaded sums.
 *
 * Buffers are kept per host thread (grown when a call needs more), since the
 * stages call this once each with the same sizes. Compiled with the
 * per-thread default stream, as the other scenario kernels: every copy and
 * launch of a call is ordered on the calling thread's stream. */
#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include "gpu/check.h"
#include "gpu/gpu.h"
#include "gpu/rn.h"
#include "gpu/scenarios_whiten.h"

extern "C" {
#include "core/message.h"
#include "core/whiten.h"
}

namespace {

constexpr int TB = 256;    /* threads of the sum blocks */
constexpr int CH = 1024;   /* terms staged at a time by a sum block */
constexpr int TT = 32;     /* transpose tile */
constexpr int TR = 8;      /* transpose rows per pass */
constexpr int SOLVE = 128; /* points per block of the substitution */
static_assert(CH % TB == 0, "a sum block forms whole tiles");

enum { SUM = 0, SQDEV = 1, PROD = 2 };

/* b (cols x rows) = a (rows x cols) transposed, one TT x TT tile a block (a
 * one-dimensional grid, so either side may be long); bad (if not null) gets
 * the lowest row-major index of a non-finite value of a. */
__global__ void transpose_kernel(const double *__restrict__ a, int rows, int cols,
                                 double *__restrict__ b, unsigned long long *bad) {
    __shared__ double tile[TT][TT + 1];
    const int ti = (rows + TT - 1) / TT;
    const int i0 = (int)(blockIdx.x % ti) * TT, j0 = (int)(blockIdx.x / ti) * TT;
    for (int k = threadIdx.y; k < TT; k += TR) {
        int i = i0 + k, j = j0 + threadIdx.x;
        if (i < rows && j < cols) {
            double v = a[(size_t)i * cols + j];
            if (bad && !isfinite(v)) atomicMin(bad, (unsigned long long)i * cols + j);
            tile[k][threadIdx.x] = v;
        }
    }
    __syncthreads();
    for (int k = threadIdx.y; k < TT; k += TR) {
        int j = j0 + k, i = i0 + threadIdx.x;
        if (i < rows && j < cols) b[(size_t)j * rows + i] = tile[threadIdx.x][k];
    }
}

/* *out = the running sum over i = 0..m-1, in order from 0.0, of a[i] (SUM),
 * (a[i] - mu)^2 (SQDEV) or a[i] b[i] (PROD). Called by a whole block of TB
 * threads: each forms CH / TB terms of a tile, thread 0 adds the tile in
 * order while the next tile's loads are in flight (two tiles in turn). */
__device__ void chain_sum(const double *__restrict__ a, const double *__restrict__ b, double mu,
                          int mode, int m, double *out) {
    constexpr int PER = CH / TB;
    __shared__ double tile[2 * CH];
    const int tid = threadIdx.x;
    double v[PER], s = 0.0;
    auto fetch = [&](int i0) {
#pragma unroll
        for (int q = 0; q < PER; q++) {
            const int i = i0 + tid + q * TB;
            double x = i < m ? a[i] : 0.0;
            if (mode == SQDEV) {
                double u = __dsub_rn(x, mu);
                x = __dmul_rn(u, u);
            } else if (mode == PROD) {
                x = __dmul_rn(x, i < m ? b[i] : 0.0);
            }
            v[q] = x;
        }
    };
    auto stash = [&](int buf) {
#pragma unroll
        for (int q = 0; q < PER; q++) tile[buf * CH + tid + q * TB] = v[q];
    };
    fetch(0);
    stash(0);
    __syncthreads();
    for (int i0 = 0, buf = 0; i0 < m; i0 += CH, buf ^= 1) {
        if (i0 + CH < m) fetch(i0 + CH);
        if (tid == 0) {
            const int n = m - i0 < CH ? m - i0 : CH;
            s = mu_ordered_add(s, tile + buf * CH, n, 1);
        }
        if (i0 + CH < m) stash(buf ^ 1);
        __syncthreads();
    }
    if (tid == 0) *out = s;
}

/* Station blockIdx.x of xt (d x m): SUM into out, or SQDEV about sum[j] / m. */
__global__ void __launch_bounds__(TB)
    colsum_kernel(const double *__restrict__ xt, int m, int mode, const double *__restrict__ sum,
                  double *__restrict__ out) {
    const int j = blockIdx.x;
    const double mu = mode == SQDEV ? __ddiv_rn(sum[j], (double)m) : 0.0;
    chain_sum(xt + (size_t)j * m, nullptr, mu, mode, m, out + j);
}

/* zt[s][i] = (xt[keep[s]][i] - mean[keep[s]]) / sd[keep[s]]. */
__global__ void zscore_kernel(const double *__restrict__ xt, int m, int q,
                              const int *__restrict__ keep, const double *__restrict__ mean,
                              const double *__restrict__ sd, double *__restrict__ zt) {
    const size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= (size_t)q * m) return;
    const int s = (int)(e / m), j = keep[s];
    const size_t i = e % m;
    zt[e] = __ddiv_rn(__dsub_rn(xt[(size_t)j * m + i], mean[j]), sd[j]);
}

/* r[s*q + u] for the lower-triangle entry blockIdx.x (row by row). */
__global__ void __launch_bounds__(TB)
    corr_kernel(const double *__restrict__ zt, int m, int q, double *__restrict__ r) {
    const int t = blockIdx.x;
    int s = 0;
    while ((s + 1) * (s + 2) / 2 <= t) s++;
    const int u = t - s * (s + 1) / 2;
    chain_sum(zt + (size_t)s * m, zt + (size_t)u * m, 0.0, PROD, m, r + (size_t)s * q + u);
}

/* yt[s][i] = (zt[piv[s]][i] - sum_{u<s} L[s][u] yt[u][i]) / L[s][s], the
 * subtractions in the order u = 0..s-1 as whiten.c's whiten_block. yt is read
 * back by the thread that wrote it. */
__global__ void __launch_bounds__(SOLVE)
    solve_kernel(const double *__restrict__ zt, int m, const double *__restrict__ L, int q,
                 const int *__restrict__ piv, int rk, double *yt) {
    const int i = blockIdx.x * SOLVE + threadIdx.x;
    if (i >= m) return;
    for (int s = 0; s < rk; s++) {
        const double *ls = L + (size_t)s * q;
        double v = zt[(size_t)piv[s] * m + i];
        for (int u = 0; u < s; u++) v = __dsub_rn(v, __dmul_rn(ls[u], yt[(size_t)u * m + i]));
        yt[(size_t)s * m + i] = __ddiv_rn(v, ls[s]);
    }
}

/* key[i] = a hash of row i of y (m x r) consistent with == on its values
 * (-0.0 and +0.0 alike): equal rows, equal keys. */
__global__ void row_key_kernel(const double *__restrict__ y, int m, int r,
                               unsigned long long *__restrict__ key) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m) return;
    const double *row = y + (size_t)i * r;
    unsigned long long a = 0x243f6a8885a308d3ull ^ (unsigned long long)r, b = 0x13198a2e03707344ull;
    for (int j = 0; j < r; j++) {
        const double v = row[j];
        const unsigned long long w = v == 0.0 ? 0ull : (unsigned long long)__double_as_longlong(v);
        a = (a ^ w) * 0x9fb21c651e98df25ull;
        a ^= a >> 28;
        b += w + (b << 7);
    }
    key[i] = a ^ (b * 0xc2b2ae3d27d4eb4full);
}

/* *same = 1 when two neighbours of the sorted keys are equal. */
__global__ void same_key_kernel(const unsigned long long *__restrict__ key, int m,
                                unsigned long long *__restrict__ same) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
    if (i < m && key[i] == key[i - 1]) *same = 1;
}

/* Device and host buffers of one host thread's calls. */
struct wh_bufs {
    size_t cap_md = 0, cap_d = 0;
    double *x = nullptr, *xt = nullptr, *zt = nullptr;                    /* m x d each */
    double *sum = nullptr, *ss = nullptr, *mean = nullptr, *sd = nullptr; /* d each */
    double *r = nullptr;                                                  /* d x d */
    int *keep = nullptr, *piv = nullptr;                                  /* d each */
    unsigned long long *bad = nullptr;
    /* y on the host (m x d), kept between calls so that its pages stay mapped:
     * pinned, or pageable where pinning fails (yh_pageable) */
    double *yh = nullptr;
    int yh_pageable = 0;
    int dev = -1;
    const double *y = nullptr;  /* the last call's y on the device (zt's buffer), or null */
    const double *in = nullptr; /* the last call's x on the device (x's buffer), or null */
    double *mean_h = nullptr;   /* the last call's mean of x (host, d) */
};

thread_local wh_bufs bufs;

int bufs_free(wh_bufs *b) {
    int rc = 0;
    for (double *p : {b->x, b->xt, b->zt, b->sum, b->ss, b->mean, b->sd, b->r})
        if (p) MU_CUDA_KEEP(cudaFree(p));
    if (b->keep) MU_CUDA_KEEP(cudaFree(b->keep));
    if (b->piv) MU_CUDA_KEEP(cudaFree(b->piv));
    if (b->bad) MU_CUDA_KEEP(cudaFree(b->bad));
    mu_gpu_host_free(b->yh, !b->yh_pageable);
    free(b->mean_h);
    *b = wh_bufs();
    return rc;
}

/* The thread's buffers, large enough for m x d. */
int bufs_get(int m, int d, wh_bufs **out) {
    wh_bufs *b = &bufs;
    size_t md = (size_t)m * d, dd = (size_t)d;
    int dev;
    MU_CUDA(cudaGetDevice(&dev));
    if (md > b->cap_md || dd > b->cap_d || dev != b->dev) {
        if (bufs_free(b)) return 1;
        MU_CUDA(cudaMalloc(&b->x, md * sizeof(double)));
        MU_CUDA(cudaMalloc(&b->xt, md * sizeof(double)));
        MU_CUDA(cudaMalloc(&b->zt, md * sizeof(double)));
        MU_CUDA(cudaMalloc(&b->sum, dd * sizeof(double)));
        MU_CUDA(cudaMalloc(&b->ss, dd * sizeof(double)));
        MU_CUDA(cudaMalloc(&b->mean, dd * sizeof(double)));
        MU_CUDA(cudaMalloc(&b->sd, dd * sizeof(double)));
        MU_CUDA(cudaMalloc(&b->r, dd * dd * sizeof(double)));
        MU_CUDA(cudaMalloc(&b->keep, dd * sizeof(int)));
        MU_CUDA(cudaMalloc(&b->piv, dd * sizeof(int)));
        MU_CUDA(cudaMalloc(&b->bad, sizeof(unsigned long long)));
        int locked = 0;
        b->yh = (double *)mu_gpu_host_alloc(md * sizeof(double), &locked);
        b->yh_pageable = !locked;
        if (!b->yh) return mu_gpu_fail("out of host memory for %zu whitened values", md);
        b->mean_h = (double *)malloc(dd * sizeof(double));
        if (!b->mean_h) return mu_gpu_fail("out of host memory for %zu means", dd);
        b->cap_md = md;
        b->cap_d = dd;
        b->dev = dev;
    }
    *out = b;
    return 0;
}

unsigned transpose_grid(int rows, int cols) {
    return (unsigned)((rows + TT - 1) / TT) * (unsigned)((cols + TT - 1) / TT);
}

/* Upload and transpose x; *bad = the first non-finite index, or ULLONG_MAX. */
int upload(wh_bufs *b, const double *x, int m, int d, unsigned long long *bad) {
    MU_CUDA(cudaMemcpy(b->x, x, (size_t)m * d * sizeof(double), cudaMemcpyHostToDevice));
    MU_CUDA(cudaMemset(b->bad, 0xff, sizeof(unsigned long long)));
    transpose_kernel<<<transpose_grid(m, d), dim3(TT, TR)>>>(b->x, m, d, b->xt, b->bad);
    MU_LAUNCHED();
    MU_CUDA(cudaMemcpy(bad, b->bad, sizeof *bad, cudaMemcpyDeviceToHost));
    return 0;
}

/* mean (host) and sd (host: the standard deviations), the kept stations; z of
 * the kept ones on the device. */
int moments(wh_bufs *b, int m, int d, double *mean, double *sd, int *keep, int *q) {
    colsum_kernel<<<d, TB>>>(b->xt, m, SUM, nullptr, b->sum);
    MU_LAUNCHED();
    colsum_kernel<<<d, TB>>>(b->xt, m, SQDEV, b->sum, b->ss);
    MU_LAUNCHED();
    MU_CUDA(cudaMemcpy(mean, b->sum, (size_t)d * sizeof(double), cudaMemcpyDeviceToHost));
    MU_CUDA(cudaMemcpy(sd, b->ss, (size_t)d * sizeof(double), cudaMemcpyDeviceToHost));
    for (int j = 0; j < d; j++) mean[j] /= m;
    *q = mu_whiten_keep(m, d, mean, sd, keep);
    if (*q == 0) return 0;
    MU_CUDA(cudaMemcpy(b->mean, mean, (size_t)d * sizeof(double), cudaMemcpyHostToDevice));
    MU_CUDA(cudaMemcpy(b->sd, sd, (size_t)d * sizeof(double), cudaMemcpyHostToDevice));
    MU_CUDA(cudaMemcpy(b->keep, keep, (size_t)*q * sizeof(int), cudaMemcpyHostToDevice));
    size_t n = (size_t)*q * m;
    zscore_kernel<<<(unsigned)((n + TB - 1) / TB), TB>>>(b->xt, m, *q, b->keep, b->mean, b->sd,
                                                         b->zt);
    MU_LAUNCHED();
    return 0;
}

/* The correlation sums (lower triangle) into r (host, q x q, zero elsewhere). */
int correlation(wh_bufs *b, int m, int q, double *r) {
    MU_CUDA(cudaMemset(b->r, 0, (size_t)q * q * sizeof(double)));
    corr_kernel<<<q *(q + 1) / 2, TB>>>(b->zt, m, q, b->r);
    MU_LAUNCHED();
    MU_CUDA(cudaMemcpy(r, b->r, (size_t)q * q * sizeof(double), cudaMemcpyDeviceToHost));
    return 0;
}

/* y (host, m x rk; and zt on the device, which the substitution has read)
 * from the factor L (host, q x q) and the pivots; x stays as uploaded. */
int substitute(wh_bufs *b, int m, int q, const double *L, const int *piv, int rk, double *y) {
    MU_CUDA(cudaMemcpy(b->r, L, (size_t)q * q * sizeof(double), cudaMemcpyHostToDevice));
    MU_CUDA(cudaMemcpy(b->piv, piv, (size_t)rk * sizeof(int), cudaMemcpyHostToDevice));
    solve_kernel<<<(m + SOLVE - 1) / SOLVE, SOLVE>>>(b->zt, m, b->r, q, b->piv, rk, b->xt);
    MU_LAUNCHED();
    transpose_kernel<<<transpose_grid(rk, m), dim3(TT, TR)>>>(b->xt, rk, m, b->zt, nullptr);
    MU_LAUNCHED();
    MU_CUDA(cudaMemcpy(y, b->zt, (size_t)m * rk * sizeof(double), cudaMemcpyDeviceToHost));
    return 0;
}

/* The device steps: 0, or 1 after mu_error (a device failure through MU_GPU,
 * a non-finite value). h: host scratch of 2d doubles, 2d ints, d x d doubles. */
int whiten_steps(const double *x, int m, int d, const double **y, int *rank, double *h, int *hi) {
    wh_bufs *b;
    unsigned long long bad;
    bufs.y = bufs.in = nullptr;
    MU_TRY(MU_GPU(bufs_get(m, d, &b) || upload(b, x, m, d, &bad), "whitening on the GPU"));
    if (bad != ULLONG_MAX)
        return mu_error("scenario %llu, station %llu is not a finite number",
                        bad / (unsigned long long)d, bad % (unsigned long long)d);
    double *mean = h, *sd = h + d, *r = h + 2 * (size_t)d;
    int *keep = hi, *piv = hi + d, q, rk = 0;
    MU_TRY(MU_GPU(moments(b, m, d, mean, sd, keep, &q), "whitening on the GPU"));
    memcpy(b->mean_h, mean, (size_t)d * sizeof *mean);
    if (q > 0) {
        MU_TRY(MU_GPU(correlation(b, m, q, r), "whitening on the GPU"));
        rk = mu_whiten_factor(r, m, q, piv);
        if (rk > 0) MU_TRY(MU_GPU(substitute(b, m, q, r, piv, rk, b->yh), "whitening on the GPU"));
    }
    b->y = rk > 0 ? b->zt : nullptr;
    b->in = b->x;
    *y = b->yh;
    *rank = rk;
    return 0;
}

} // namespace

extern "C" int mu_gpu_whiten_reserve(int m, int d) {
    wh_bufs *b = nullptr;
    return m < 2 || d < 1 ? 0 : bufs_get(m, d, &b);
}

extern "C" int mu_gpu_whiten(const double *x, int m, int d, const double **y, int *rank) {
    static thread_local double none[1]; /* rank 0: no row is written */
    *rank = 0;
    *y = nullptr;
    bufs.y = bufs.in = nullptr;
    if (m < 2 || d < 1) { /* mu_whiten's checks, rank 0, no device */
        *y = none;
        return mu_whiten(x, m, d, none, rank);
    }
    double *h = (double *)malloc(sizeof(double) * (2 * (size_t)d + (size_t)d * d));
    int *hi = (int *)malloc(sizeof(int) * 2 * (size_t)d);
    int rc = !h || !hi ? mu_error("out of memory whitening %d x %d scenarios", m, d)
                       : whiten_steps(x, m, d, y, rank, h, hi);
    free(h);
    free(hi);
    return rc;
}

extern "C" const double *mu_gpu_whiten_rows(void) {
    return bufs.y;
}

extern "C" const double *mu_gpu_whiten_input(const double **mean) {
    *mean = bufs.in ? bufs.mean_h : nullptr;
    return bufs.in;
}

extern "C" int mu_gpu_whiten_distinct(int m, int r, int *all) {
    *all = 0;
    wh_bufs *b = &bufs;
    if (!b->y || m < 2 || (size_t)m * r > b->cap_md) return 0;
    /* after the whitening, xt (m x d doubles) is free scratch: the keys, the
     * sorted keys and the sort's own */
    if (b->cap_md < 2 * (size_t)m) return 0;
    unsigned long long *key = (unsigned long long *)b->xt, *sorted = key + m;
    void *tmp = sorted + m;
    size_t room = (b->cap_md - 2 * (size_t)m) * sizeof(double), need = 0;
    const cudaStream_t st = cudaStreamPerThread;
    MU_CUDA(cub::DeviceRadixSort::SortKeys(nullptr, need, key, sorted, m, 0, 64, st));
    if (need > room) return 0; /* no room: the caller compares the rows itself */
    row_key_kernel<<<(m + TB - 1) / TB, TB>>>(b->y, m, r, key);
    MU_LAUNCHED();
    MU_CUDA(cub::DeviceRadixSort::SortKeys(tmp, need, key, sorted, m, 0, 64, st));
    MU_CUDA(cudaMemsetAsync(b->bad, 0, sizeof *b->bad, st));
    same_key_kernel<<<(m - 1 + TB - 1) / TB, TB>>>(sorted, m, b->bad);
    MU_LAUNCHED();
    unsigned long long same = 1;
    MU_CUDA(cudaMemcpy(&same, b->bad, sizeof same, cudaMemcpyDeviceToHost));
    *all = same == 0;
    return 0;
}
