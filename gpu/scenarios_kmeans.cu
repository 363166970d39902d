/* Distance and assignment kernels of the scenario k-means (C API in
 * gpu/scenarios_kmeans.h), for the study's GPU step (report 6.3): the M x K
 * squared distances, on whitened points, so each is a Euclidean distance in
 * O(d) (the study's Mahalanobis form costs O(d^2); report 6.3.3's whitening
 * alternative).
 *
 * Same bits as the CPU: each distance is summed over j = 0..d-1 in order with
 * __dsub_rn, __dmul_rn and __dadd_rn, which the compiler never fuses into an
 * FMA, and the decisions use the same comparisons and IEEE divisions as
 * src/scenarios/kmeans_cpu.c. So the aggregation takes the same decisions on
 * either side, whatever the ties.
 *
 * Layout: the points are kept transposed (d x m), so the threads of a warp (one
 * point each) read coalesced; a tile of TK centres is staged through shared
 * memory JC coordinates at a time and read by broadcast; each thread keeps its
 * TK running sums in registers. One kernel, three uses:
 *   ALL       one tile of centres per block (grid y), writes dist[i*k + l];
 *   NEAREST2  each block walks all tiles in order, keeping AS 136's nearest
 *             and second nearest (strict comparisons: ties keep the lower l);
 *   SCAN      Version 2's optimal-transfer test of each point (r1, r2, l2).
 * Points and buffers stay on the device between calls; a call moves the k
 * centres in and only the results the CPU reads out. */
#include <cuda_runtime.h>
#include <cstdlib>
#include <cstring>

#include "gpu/check.h"
#include "gpu/scenarios_kmeans.h"

namespace {

constexpr int THREADS = 128; /* points per block */
constexpr int TK = 16;       /* centres per tile (registers per thread) */
constexpr int JC = 64;       /* coordinates staged at a time */

enum { ALL = 0, NEAREST2 = 1, SCAN = 2 };

struct scan_args {
    const int *ic1, *ic2, *nc;
    const double *an1, *an2;
    const unsigned char *live;
    double *r1, *r2;
    int *l2;
};

__device__ __forceinline__ double d2_direct(const double *__restrict__ pt, int m, int d, int i,
                                            const double *__restrict__ c) {
    double s = 0.0;
    for (int j = 0; j < d; j++) {
        double t = __dsub_rn(pt[(size_t)j * m + i], c[j]);
        s = __dadd_rn(s, __dmul_rn(t, t));
    }
    return s;
}

template <int MODE>
__global__ void __launch_bounds__(THREADS)
    km_kernel(const double *__restrict__ pt, int m, int d, const double *__restrict__ c, int k,
              double *__restrict__ dist, int *__restrict__ o1, int *__restrict__ o2, scan_args sa) {
    __shared__ double cs[TK][JC];
    const int i = blockIdx.x * THREADS + threadIdx.x;
    const bool in = i < m;
    /* Per-point state of NEAREST2 and SCAN. */
    double dt1 = 0.0, dt2 = 0.0, r = 0.0;
    int c1 = 0, c2 = 0, best = -1, l1 = 0, own2 = 0;
    bool l1live = false, single = false;
    if (MODE == NEAREST2 && in) {
        dt1 = d2_direct(pt, m, d, i, c);
        dt2 = k > 1 ? d2_direct(pt, m, d, i, c + d) : dt1;
        c2 = k > 1 ? 1 : 0;
        if (dt1 > dt2) {
            double t = dt1;
            dt1 = dt2;
            dt2 = t;
            c1 = 1;
            c2 = 0;
        }
    }
    if (MODE == SCAN && in) {
        l1 = sa.ic1[i];
        own2 = sa.ic2[i];
        single = sa.nc[l1] == 1;
        l1live = sa.live[l1] != 0;
        best = own2;
        r = __dmul_rn(d2_direct(pt, m, d, i, c + (size_t)own2 * d), sa.an2[own2]);
    }
    const int tiles = (k + TK - 1) / TK;
    const int t0 = MODE == ALL ? blockIdx.y : 0, t1 = MODE == ALL ? blockIdx.y + 1 : tiles;
    for (int tile = t0; tile < t1; tile++) {
        const int lbase = tile * TK;
        double s[TK];
#pragma unroll
        for (int t = 0; t < TK; t++) s[t] = 0.0;
        for (int jc = 0; jc < d; jc += JC) {
            const int jn = d - jc < JC ? d - jc : JC;
            __syncthreads();
            for (int e = threadIdx.x; e < TK * JC; e += THREADS) {
                int t = e / JC, j = e % JC, l = lbase + t;
                cs[t][j] = (l < k && j < jn) ? c[(size_t)l * d + jc + j] : 0.0;
            }
            __syncthreads();
            if (in)
                for (int j = 0; j < jn; j++) {
                    const double a = pt[(size_t)(jc + j) * m + i];
#pragma unroll
                    for (int t = 0; t < TK; t++) {
                        double u = __dsub_rn(a, cs[t][j]);
                        s[t] = __dadd_rn(s[t], __dmul_rn(u, u));
                    }
                }
        }
        if (!in) continue;
#pragma unroll
        for (int t = 0; t < TK; t++) {
            const int l = lbase + t;
            if (l >= k) break;
            if (MODE == ALL) {
                dist[(size_t)i * k + l] = s[t];
            } else if (MODE == NEAREST2) {
                if (l < 2 || s[t] >= dt2) continue;
                if (s[t] < dt1) {
                    dt2 = dt1;
                    c2 = c1;
                    dt1 = s[t];
                    c1 = l;
                } else {
                    dt2 = s[t];
                    c2 = l;
                }
            } else {
                if (single || (!l1live && !sa.live[l]) || l == l1 || l == own2) continue;
                if (s[t] < __ddiv_rn(r, sa.an2[l])) {
                    r = __dmul_rn(s[t], sa.an2[l]);
                    best = l;
                }
            }
        }
    }
    if (!in) return;
    if (MODE == NEAREST2) {
        o1[i] = c1;
        o2[i] = c2;
    }
    if (MODE == SCAN) {
        if (single) {
            sa.r1[i] = 0.0;
            sa.r2[i] = 0.0;
            sa.l2[i] = -1;
        } else {
            sa.r1[i] = __dmul_rn(d2_direct(pt, m, d, i, c + (size_t)l1 * d), sa.an1[l1]);
            sa.r2[i] = r;
            sa.l2[i] = best;
        }
    }
}

} // namespace

struct mu_gpu_km {
    int m, d, kmax;
    double *pt, *c, *dist, *an1, *an2, *r1, *r2;
    int *ic1, *ic2, *nc, *l2;
    unsigned char *live;
};

extern "C" void mu_gpu_km_destroy(mu_gpu_km *g) {
    if (!g) return;
    int rc = 0;
    void *bufs[] = {g->pt, g->c,   g->dist, g->an1, g->an2, g->r1,
                    g->r2, g->ic1, g->ic2,  g->nc,  g->l2,  g->live};
    for (void *b : bufs)
        if (b) MU_CUDA_KEEP(cudaFree(b));
    (void)rc;
    free(g);
}

extern "C" int mu_gpu_km_create(const double *pts, int m, int d, int kmax, mu_gpu_km **out) {
    *out = NULL;
    if (m < 1 || d < 1 || kmax < 1)
        return mu_gpu_fail("k-means on the GPU: bad sizes m %d, d %d, k %d", m, d, kmax);
    int rc = 0;
    size_t md = (size_t)m * d;
    double *tr = NULL;
    mu_gpu_km *g = (mu_gpu_km *)calloc(1, sizeof *g);
    if (!g) return mu_gpu_fail("k-means on the GPU: out of host memory");
    g->m = m;
    g->d = d;
    g->kmax = kmax;
    tr = (double *)malloc(md * sizeof(double));
    if (!tr) {
        rc = mu_gpu_fail("k-means on the GPU: out of host memory");
        goto done;
    }
    for (int i = 0; i < m; i++)
        for (int j = 0; j < d; j++) tr[(size_t)j * m + i] = pts[(size_t)i * d + j];
    MU_CUDA_GOTO(cudaMalloc(&g->pt, md * sizeof(double)));
    MU_CUDA_GOTO(cudaMalloc(&g->c, (size_t)kmax * d * sizeof(double)));
    MU_CUDA_GOTO(cudaMalloc(&g->dist, (size_t)m * kmax * sizeof(double)));
    MU_CUDA_GOTO(cudaMalloc(&g->an1, (size_t)kmax * sizeof(double)));
    MU_CUDA_GOTO(cudaMalloc(&g->an2, (size_t)kmax * sizeof(double)));
    MU_CUDA_GOTO(cudaMalloc(&g->r1, (size_t)m * sizeof(double)));
    MU_CUDA_GOTO(cudaMalloc(&g->r2, (size_t)m * sizeof(double)));
    MU_CUDA_GOTO(cudaMalloc(&g->ic1, (size_t)m * sizeof(int)));
    MU_CUDA_GOTO(cudaMalloc(&g->ic2, (size_t)m * sizeof(int)));
    MU_CUDA_GOTO(cudaMalloc(&g->l2, (size_t)m * sizeof(int)));
    MU_CUDA_GOTO(cudaMalloc(&g->nc, (size_t)kmax * sizeof(int)));
    MU_CUDA_GOTO(cudaMalloc(&g->live, (size_t)kmax));
    MU_CUDA_GOTO(cudaMemcpy(g->pt, tr, md * sizeof(double), cudaMemcpyHostToDevice));
done:
    free(tr);
    if (rc) {
        mu_gpu_km_destroy(g);
        return rc;
    }
    *out = g;
    return 0;
}

static int put_centres(mu_gpu_km *g, const double *c, int k) {
    if (!g || k < 1 || k > g->kmax)
        return mu_gpu_fail("k-means on the GPU: %d centres for a context of at most %d", k,
                           g ? g->kmax : 0);
    MU_CUDA(cudaMemcpy(g->c, c, (size_t)k * g->d * sizeof(double), cudaMemcpyHostToDevice));
    return 0;
}

extern "C" int mu_gpu_km_all(mu_gpu_km *g, const double *c, int k, double *dist) {
    if (put_centres(g, c, k)) return 1;
    dim3 grid((g->m + THREADS - 1) / THREADS, (k + TK - 1) / TK);
    km_kernel<ALL><<<grid, THREADS>>>(g->pt, g->m, g->d, g->c, k, g->dist, NULL, NULL, scan_args{});
    MU_LAUNCHED();
    MU_CUDA(cudaMemcpy(dist, g->dist, (size_t)g->m * k * sizeof(double), cudaMemcpyDeviceToHost));
    return 0;
}

extern "C" int mu_gpu_km_nearest2(mu_gpu_km *g, const double *c, int k, int *ic1, int *ic2) {
    if (put_centres(g, c, k)) return 1;
    km_kernel<NEAREST2><<<(g->m + THREADS - 1) / THREADS, THREADS>>>(
        g->pt, g->m, g->d, g->c, k, NULL, g->ic1, g->ic2, scan_args{});
    MU_LAUNCHED();
    MU_CUDA(cudaMemcpy(ic1, g->ic1, (size_t)g->m * sizeof(int), cudaMemcpyDeviceToHost));
    MU_CUDA(cudaMemcpy(ic2, g->ic2, (size_t)g->m * sizeof(int), cudaMemcpyDeviceToHost));
    return 0;
}

extern "C" int mu_gpu_km_scan(mu_gpu_km *g, const double *c, int k, const int *ic1, const int *ic2,
                              const int *nc, const double *an1, const double *an2,
                              const unsigned char *live, double *r1, double *r2, int *l2) {
    if (put_centres(g, c, k)) return 1;
    size_t m = (size_t)g->m;
    MU_CUDA(cudaMemcpy(g->ic1, ic1, m * sizeof(int), cudaMemcpyHostToDevice));
    MU_CUDA(cudaMemcpy(g->ic2, ic2, m * sizeof(int), cudaMemcpyHostToDevice));
    MU_CUDA(cudaMemcpy(g->nc, nc, (size_t)k * sizeof(int), cudaMemcpyHostToDevice));
    MU_CUDA(cudaMemcpy(g->an1, an1, (size_t)k * sizeof(double), cudaMemcpyHostToDevice));
    MU_CUDA(cudaMemcpy(g->an2, an2, (size_t)k * sizeof(double), cudaMemcpyHostToDevice));
    MU_CUDA(cudaMemcpy(g->live, live, (size_t)k, cudaMemcpyHostToDevice));
    scan_args sa{g->ic1, g->ic2, g->nc, g->an1, g->an2, g->live, g->r1, g->r2, g->l2};
    km_kernel<SCAN><<<(g->m + THREADS - 1) / THREADS, THREADS>>>(g->pt, g->m, g->d, g->c, k, NULL,
                                                                 NULL, NULL, sa);
    MU_LAUNCHED();
    MU_CUDA(cudaMemcpy(r1, g->r1, m * sizeof(double), cudaMemcpyDeviceToHost));
    MU_CUDA(cudaMemcpy(r2, g->r2, m * sizeof(double), cudaMemcpyDeviceToHost));
    MU_CUDA(cudaMemcpy(l2, g->l2, m * sizeof(int), cudaMemcpyDeviceToHost));
    return 0;
}
