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
 * point each) read coalesced; a tile of TK centres (grid y) is staged through
 * shared memory JC coordinates at a time and read by broadcast; each thread
 * keeps its TK running sums in registers and writes dist[i*k + l] (device).
 * Every call computes the whole M x K matrix this way, which keeps the device
 * busy even at M = 1024; then, per point, one thread reads its row:
 *   all       copies the matrix to the host (Hartigan-Wong's passes);
 *   nearest2  AS 136's nearest and second nearest centre (strict comparisons:
 *             ties keep the lower index);
 *   scan      Version 2's optimal-transfer test (r1, r2, l2), in the CPU's
 *             order over l, since each step compares with the running r.
 * Points and buffers stay on the device between calls; a call moves the k
 * centres in and only the results the CPU reads out. */
#include <algorithm>
#include <cuda_runtime.h>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gpu/check.h"
#include "gpu/scenarios_kmeans.h"

namespace {

constexpr int THREADS = 128; /* points per block */
constexpr int TK = 16;       /* centres per tile (registers per thread) */
constexpr int JC = 64;       /* coordinates staged at a time */
constexpr int SELECT = 64;   /* threads per block of the per-point selections */

struct scan_args {
    const int *ic1, *ic2, *nc;
    const double *an1, *an2;
    const unsigned char *live;
    double *r1, *r2;
    int *l2;
};

/* dist[i*k + l] for the centres of tile blockIdx.y. */
__global__ void __launch_bounds__(THREADS)
    dist_kernel(const double *__restrict__ pt, int m, int d, const double *__restrict__ c, int k,
                double *__restrict__ dist) {
    __shared__ double cs[TK][JC];
    const int i = blockIdx.x * THREADS + threadIdx.x;
    const int lbase = blockIdx.y * TK;
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
        if (i < m)
            for (int j = 0; j < jn; j++) {
                const double a = pt[(size_t)(jc + j) * m + i];
#pragma unroll
                for (int t = 0; t < TK; t++) {
                    double u = __dsub_rn(a, cs[t][j]);
                    s[t] = __dadd_rn(s[t], __dmul_rn(u, u));
                }
            }
    }
    if (i >= m) return;
#pragma unroll
    for (int t = 0; t < TK; t++)
        if (lbase + t < k) dist[(size_t)i * k + lbase + t] = s[t];
}

/* AS 136's first step from the distance rows: centres 0 and 1, then each
 * further centre by strict comparisons (ties keep the lower index). */
__global__ void nearest2_kernel(const double *__restrict__ dist, int m, int k, int *__restrict__ o1,
                                int *__restrict__ o2) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m) return;
    const double *row = dist + (size_t)i * k;
    double dt1 = row[0], dt2 = k > 1 ? row[1] : row[0];
    int c1 = 0, c2 = k > 1 ? 1 : 0;
    if (dt1 > dt2) {
        double t = dt1;
        dt1 = dt2;
        dt2 = t;
        c1 = 1;
        c2 = 0;
    }
    for (int l = 2; l < k; l++) {
        double db = row[l];
        if (db >= dt2) continue;
        if (db < dt1) {
            dt2 = dt1;
            c2 = c1;
            dt1 = db;
            c1 = l;
        } else {
            dt2 = db;
            c2 = l;
        }
    }
    o1[i] = c1;
    o2[i] = c2;
}

/* Version 2's optimal-transfer test from the distance rows (mu_km_scan_cpu). */
__global__ void scan_kernel(const double *__restrict__ dist, int m, int k, scan_args sa) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m) return;
    const double *row = dist + (size_t)i * k;
    const int l1 = sa.ic1[i], own2 = sa.ic2[i];
    if (sa.nc[l1] == 1) {
        sa.r1[i] = 0.0;
        sa.r2[i] = 0.0;
        sa.l2[i] = -1;
        return;
    }
    const bool l1live = sa.live[l1] != 0;
    int best = own2;
    double r = __dmul_rn(row[own2], sa.an2[own2]);
    for (int l = 0; l < k; l++) {
        if ((!l1live && !sa.live[l]) || l == l1 || l == own2) continue;
        if (row[l] < __ddiv_rn(r, sa.an2[l])) {
            r = __dmul_rn(row[l], sa.an2[l]);
            best = l;
        }
    }
    sa.r1[i] = __dmul_rn(row[l1], sa.an1[l1]);
    sa.r2[i] = r;
    sa.l2[i] = best;
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

/* Every distance of the k centres into g->dist (device). */
static int distances(mu_gpu_km *g, const double *c, int k) {
    if (!g || k < 1 || k > g->kmax)
        return mu_gpu_fail("k-means on the GPU: %d centres for a context of at most %d", k,
                           g ? g->kmax : 0);
    MU_CUDA(cudaMemcpy(g->c, c, (size_t)k * g->d * sizeof(double), cudaMemcpyHostToDevice));
    dim3 grid((g->m + THREADS - 1) / THREADS, (k + TK - 1) / TK);
    dist_kernel<<<grid, THREADS>>>(g->pt, g->m, g->d, g->c, k, g->dist);
    MU_LAUNCHED();
    return 0;
}

extern "C" int mu_gpu_km_all(mu_gpu_km *g, const double *c, int k, double *dist) {
    if (distances(g, c, k)) return 1;
    MU_CUDA(cudaMemcpy(dist, g->dist, (size_t)g->m * k * sizeof(double), cudaMemcpyDeviceToHost));
    return 0;
}

extern "C" int mu_gpu_km_nearest2(mu_gpu_km *g, const double *c, int k, int *ic1, int *ic2) {
    if (distances(g, c, k)) return 1;
    nearest2_kernel<<<(g->m + SELECT - 1) / SELECT, SELECT>>>(g->dist, g->m, k, g->ic1, g->ic2);
    MU_LAUNCHED();
    MU_CUDA(cudaMemcpy(ic1, g->ic1, (size_t)g->m * sizeof(int), cudaMemcpyDeviceToHost));
    MU_CUDA(cudaMemcpy(ic2, g->ic2, (size_t)g->m * sizeof(int), cudaMemcpyDeviceToHost));
    return 0;
}

extern "C" int mu_gpu_km_scan(mu_gpu_km *g, const double *c, int k, const int *ic1, const int *ic2,
                              const int *nc, const double *an1, const double *an2,
                              const unsigned char *live, double *r1, double *r2, int *l2) {
    if (distances(g, c, k)) return 1;
    size_t m = (size_t)g->m;
    MU_CUDA(cudaMemcpy(g->ic1, ic1, m * sizeof(int), cudaMemcpyHostToDevice));
    MU_CUDA(cudaMemcpy(g->ic2, ic2, m * sizeof(int), cudaMemcpyHostToDevice));
    MU_CUDA(cudaMemcpy(g->nc, nc, (size_t)k * sizeof(int), cudaMemcpyHostToDevice));
    MU_CUDA(cudaMemcpy(g->an1, an1, (size_t)k * sizeof(double), cudaMemcpyHostToDevice));
    MU_CUDA(cudaMemcpy(g->an2, an2, (size_t)k * sizeof(double), cudaMemcpyHostToDevice));
    MU_CUDA(cudaMemcpy(g->live, live, (size_t)k, cudaMemcpyHostToDevice));
    scan_args sa{g->ic1, g->ic2, g->nc, g->an1, g->an2, g->live, g->r1, g->r2, g->l2};
    scan_kernel<<<(g->m + SELECT - 1) / SELECT, SELECT>>>(g->dist, g->m, k, sa);
    MU_LAUNCHED();
    MU_CUDA(cudaMemcpy(r1, g->r1, m * sizeof(double), cudaMemcpyDeviceToHost));
    MU_CUDA(cudaMemcpy(r2, g->r2, m * sizeof(double), cudaMemcpyDeviceToHost));
    MU_CUDA(cudaMemcpy(l2, g->l2, m * sizeof(int), cudaMemcpyDeviceToHost));
    return 0;
}

extern "C" int mu_gpu_km_kernel_ms(mu_gpu_km *g, const double *c, int k, int reps, double *ms) {
    *ms = 0.0;
    if (reps < 1) reps = 1;
    if (distances(g, c, k)) return 1; /* uploads the centres; the warm-up launch */
    int rc = 0;
    cudaEvent_t e0 = NULL, e1 = NULL;
    std::vector<double> t((size_t)reps);
    dim3 grid((g->m + THREADS - 1) / THREADS, (k + TK - 1) / TK);
    MU_CUDA_GOTO(cudaEventCreate(&e0));
    MU_CUDA_GOTO(cudaEventCreate(&e1));
    for (int r = 0; r < reps; r++) {
        float f = 0.0f;
        MU_CUDA_GOTO(cudaEventRecord(e0));
        dist_kernel<<<grid, THREADS>>>(g->pt, g->m, g->d, g->c, k, g->dist);
        MU_LAUNCHED_GOTO();
        MU_CUDA_GOTO(cudaEventRecord(e1));
        MU_CUDA_GOTO(cudaEventSynchronize(e1));
        MU_CUDA_GOTO(cudaEventElapsedTime(&f, e0, e1));
        t[(size_t)r] = f;
    }
    std::sort(t.begin(), t.end());
    *ms = t[(size_t)reps / 2];
done:
    if (e0) MU_CUDA_KEEP(cudaEventDestroy(e0));
    if (e1) MU_CUDA_KEEP(cudaEventDestroy(e1));
    return rc;
}
