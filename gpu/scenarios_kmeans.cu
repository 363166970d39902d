/* Distance and assignment kernels of the scenario k-means (C API in
 * gpu/scenarios_kmeans.h), for the study's GPU step (its chapter 4): the M x K
 * squared distances, on whitened points, so each is a Euclidean distance in
 * O(d) (the study's Mahalanobis form costs O(d^2); whitening is this project's
 * alternative).
 *
 * Same bits as the CPU: each distance is summed over j = 0..d-1 in order with
 * __dsub_rn, __dmul_rn and __dadd_rn, which the compiler never fuses into an
 * FMA, and the decisions use the same comparisons and IEEE divisions as
 * workloads/scenarios/kmeans_cpu.c. So the aggregation takes the same decisions on
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
 *   scan      Version 2's optimal-transfer test, in the CPU's order over l,
 *             since each step compares with the running r; one int a point
 *             comes back (mu_km_move), not r1, r2 and l2.
 * Points and buffers stay on the device between calls; a call moves the k
 * centres in and only the results the CPU reads out.
 *
 * Version 2's bookkeeping (used from MU_GPU_KM_BOOK_MIN points) keeps the
 * assignment on the device ("resident"): ic1, ic2 and the candidates stay
 * there between steps and only per-cluster data crosses, once each way a step:
 *   res_scan   the scan, with kmeans_v2.c's candidates() folded in;
 *   res_qtest  the quick-transfer test, one thread per point, its two
 *              distances summed side by side in the CPU's order;
 *   res_batch  the batch's moves: when no cluster would lose all its points,
 *              the serial walk would refuse none, so they are made in
 *              parallel; else nothing moves and the host walks them itself
 *              (res_pull, res_push). Then, as res_recompute, the flagged
 *              clusters' centres and sums of squares: a stable radix sort of
 *              the points by cluster lists each cluster's members in point
 *              order; one thread per (cluster, coordinate) adds them in that
 *              order (row-major copy of the points), a thread per point its
 *              distance to its new centre, and a thread per cluster those
 *              distances in member order: the CPU's sums. Each sum is one
 *              dependent chain, so its block stages the members through
 *              shared memory with all its threads, the next tile in flight
 *              while the few adding threads work on the current one.
 * The split aggregation (ranks over points) gathers the assignment on the
 * host and uses the host-array scan and qtest.
 *
 * The points are uploaded once per context as the host has them (row-major,
 * the bookkeeping's layout) and transposed on the device.
 *
 * A destroyed context is parked (one per host thread) and reused by the next
 * create of the same sizes on the same device: the tree makes one per node,
 * and cudaMalloc/cudaFree cost more than a node's k-means at M = 1024. This
 * file is compiled with the per-thread default stream, so the host threads
 * that run a stage's nodes (workloads/scenarios/lanes.c) overlap on the device. */
#include <algorithm>
#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gpu/check.h"
#include "gpu/rn.h"
#include "gpu/scenarios_kmeans.h"
#include "gpu/scenarios_kmeans_core.h"

namespace {

constexpr int THREADS = 128; /* points per block */
constexpr int TK = 16;       /* centres per tile (registers per thread) */
constexpr int JC = 64;       /* coordinates staged at a time */
constexpr int SELECT = 64;   /* threads per block of the per-point selections */

struct scan_args {
    const int *ic1, *ic2, *nc;
    const double *an1, *an2;
    const unsigned char *live;
    int *move;
    /* resident form: kmeans_v2.c's candidates() too, cand[i] and the new
     * second choice of a point that stays (into ic2, which it alone reads) */
    int *cand, *ic2w;
};

/* The scan's outcome mv of point i, as the pass reads it. */
__device__ void scan_emit(const scan_args &sa, int i, int mv) {
    if (!sa.cand) {
        sa.move[i] = mv;
        return;
    }
    sa.cand[i] = mv >= 0 ? mv : -1;
    if (mv <= -2) sa.ic2w[i] = -2 - mv;
}

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
    mu_km_near2 n = mu_km_near2_start(row[0], k > 1 ? row[1] : row[0], k);
    for (int l = 2; l < k; l++) mu_km_near2_offer(&n, l, row[l]);
    o1[i] = n.c1;
    o2[i] = n.c2;
}

/* Version 2's optimal-transfer test from the distance rows (mu_km_scan_cpu). */
__global__ void scan_kernel(const double *__restrict__ dist, int m, int k, scan_args sa) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m) return;
    const double *row = dist + (size_t)i * k;
    const int l1 = sa.ic1[i], own2 = sa.ic2[i];
    if (sa.nc[l1] == 1) {
        scan_emit(sa, i, -1);
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
    scan_emit(sa, i, mu_km_move(__dmul_rn(row[l1], sa.an1[l1]), r, best));
}

/* Version 2's quick-transfer test (mu_km_qtest_cpu). */
__global__ void qtest_kernel(const double *__restrict__ pt, int m, int d,
                             const double *__restrict__ c, const int *__restrict__ ic1,
                             const int *__restrict__ ic2, const int *__restrict__ nc,
                             const double *__restrict__ an1, const double *__restrict__ an2,
                             const unsigned char *__restrict__ qchg, int *__restrict__ cand) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m) return;
    const int l1 = ic1[i], l2 = ic2[i];
    int out = -1;
    if (nc[l1] != 1 && (qchg[l1] || qchg[l2])) {
        const double *c1 = c + (size_t)l1 * d, *c2 = c + (size_t)l2 * d;
        double s1 = 0.0, s2 = 0.0;
        for (int j = 0; j < d; j++) {
            const double a = pt[(size_t)j * m + i];
            double u = __dsub_rn(a, c1[j]), v = __dsub_rn(a, c2[j]);
            s1 = __dadd_rn(s1, __dmul_rn(u, u));
            s2 = __dadd_rn(s2, __dmul_rn(v, v));
        }
        const double r1 = __dmul_rn(s1, an1[l1]);
        if (s2 < __ddiv_rn(r1, an2[l2])) out = l2;
    }
    cand[i] = out;
}

/* The in-order sums of the bookkeeping are latency chains, so what bounds
 * them is how many of their loads are in flight: a block stages a tile of
 * members into shared memory with all its threads (the next tile's loads
 * issued before the current tile is added), and a few threads add the staged
 * values in member order, each its own chain. */
constexpr int SUMT = 256; /* threads per block of the staged sums */
/* Coordinates per centre block (its adding threads) and members per centre
 * tile: each tile costs a wait on its gathered loads and a barrier, so the
 * chains run faster through fewer, longer tiles (2 x 1024 was the fastest of
 * 8 x 256, 4 x 512 and 2 x 1024 at NEWAVE scale, perf/history/). */
constexpr int CJ = 2;
constexpr int CM = 1024;
constexpr int WM = 1024; /* members per tile of the sums of squares */

/* Adding thread w < W of the block: the sum, in member order, of get(p, w)
 * for members p = 0 .. n-1, staged MT members at a time through tile (2 x
 * MT x W): the next tile's loads are issued before the current one is added. */
template <int MT, int W, class Get> __device__ double staged_sum(Get get, int n, double *tile) {
    constexpr int PER = MT * W / SUMT;
    const int tid = threadIdx.x;
    double v[PER], s = 0.0;
    auto fetch = [&](int t0) {
#pragma unroll
        for (int q = 0; q < PER; q++) {
            const int e = tid + q * SUMT;
            v[q] = get(t0 + e / W, e % W);
        }
    };
    auto stash = [&](int b) {
#pragma unroll
        for (int q = 0; q < PER; q++) tile[b * MT * W + tid + q * SUMT] = v[q];
    };
    fetch(0);
    stash(0);
    __syncthreads();
    for (int t0 = 0, b = 0; t0 < n; t0 += MT, b ^= 1) {
        if (t0 + MT < n) fetch(t0 + MT);
        if (tid < W) {
            const int top = n - t0 < MT ? n - t0 : MT;
            const double *tb = tile + b * MT * W;
            s = mu_ordered_add(s, tb + tid, top, W);
        }
        if (t0 + MT < n) stash(b ^ 1);
        __syncthreads();
    }
    return s;
}

/* Centre rows of the flagged clusters, block (l, coordinates j0 .. j0+CJ-1):
 * members list[start[l] .. start[l+1]) in point order, added one by one. */
__global__ void __launch_bounds__(SUMT)
    centre_kernel(const double *__restrict__ prow, int d, const int *__restrict__ list,
                  const int *__restrict__ start, const int *__restrict__ nc,
                  const unsigned char *__restrict__ flag, double *__restrict__ c) {
    __shared__ double tile[2 * CM * CJ];
    const int l = blockIdx.x, j0 = blockIdx.y * CJ, tid = threadIdx.x;
    if (!flag[l]) return;
    const int p0 = start[l], n = start[l + 1] - p0;
    auto get = [&](int p, int w) {
        const int j = j0 + w;
        return p < n && j < d ? prow[(size_t)list[p0 + p] * d + j] : 0.0;
    };
    const double s = staged_sum<CM, CJ>(get, n, tile);
    if (tid < CJ && j0 + tid < d)
        c[(size_t)l * d + j0 + tid] = nc[l] > 0 ? __ddiv_rn(s, (double)nc[l]) : 0.0;
}

/* dd[i] = distance from point i to its (new) centre, for flagged clusters. */
__global__ void own_kernel(const double *__restrict__ pt, int m, int d,
                           const double *__restrict__ c, const int *__restrict__ ic1,
                           const unsigned char *__restrict__ flag, double *__restrict__ dd) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m) return;
    const int l = ic1[i];
    if (!flag[l]) return;
    const double *cl = c + (size_t)l * d;
    double s = 0.0;
    for (int j = 0; j < d; j++) {
        double u = __dsub_rn(pt[(size_t)j * m + i], cl[j]);
        s = __dadd_rn(s, __dmul_rn(u, u));
    }
    dd[i] = s;
}

/* cw[l] = the flagged cluster's dd in member (point) order (block l). */
__global__ void __launch_bounds__(SUMT)
    wss_kernel(const int *__restrict__ list, const int *__restrict__ start,
               const unsigned char *__restrict__ flag, const double *__restrict__ dd,
               double *__restrict__ cw) {
    __shared__ double tile[2 * WM];
    const int l = blockIdx.x;
    if (!flag[l]) return;
    const int p0 = start[l], n = start[l + 1] - p0;
    auto get = [&](int p, int) { return p < n ? dd[list[p0 + p]] : 0.0; };
    const double s = staged_sum<WM, 1>(get, n, tile);
    if (threadIdx.x == 0) cw[l] = s;
}

/* The resident form's batch (kmeans_v2.c's apply without its serial walk):
 * leave[l] = the candidates leaving cluster l. */
__global__ void leave_kernel(const int *__restrict__ cand, const int *__restrict__ ic1, int m,
                             int k, int *__restrict__ leave) {
    extern __shared__ int cnt[];
    for (int l = threadIdx.x; l < k; l += blockDim.x) cnt[l] = 0;
    __syncthreads();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m && cand[i] >= 0) atomicAdd(&cnt[ic1[i]], 1);
    __syncthreads();
    for (int l = threadIdx.x; l < k; l += blockDim.x)
        if (cnt[l]) atomicAdd(&leave[l], cnt[l]);
}

/* Every candidate moves when no cluster would lose all its points: then the
 * serial walk would refuse none (each cluster's running count stays above
 * nc - leave >= 1), so the moves are independent. Otherwise nothing moves and
 * *bad tells the host to walk them itself. */
__global__ void apply_kernel(const int *__restrict__ cand, int *__restrict__ ic1,
                             int *__restrict__ ic2, int m, int k, const int *__restrict__ nc,
                             const int *__restrict__ leave, unsigned char *__restrict__ touched,
                             int *__restrict__ moved, int *__restrict__ bad) {
    __shared__ int ok, cnt;
    if (threadIdx.x == 0) ok = 1, cnt = 0;
    __syncthreads();
    for (int l = threadIdx.x; l < k; l += blockDim.x)
        if (nc[l] <= leave[l]) ok = 0;
    __syncthreads();
    if (!ok) {
        if (blockIdx.x == 0 && threadIdx.x == 0) *bad = 1;
        return;
    }
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int to = i < m ? cand[i] : -1;
    if (to >= 0) {
        const int l1 = ic1[i];
        ic1[i] = to;
        ic2[i] = l1;
        touched[l1] = touched[to] = 1;
        atomicAdd(&cnt, 1);
    }
    __syncthreads();
    if (threadIdx.x == 0 && cnt) atomicAdd(moved, cnt);
}

__global__ void iota_kernel(int *v, int m) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) v[i] = i;
}

/* start[l] = the first of cluster l's members in the sorted keys, nc[l] their
 * number (l < k; start[k] = m). */
__global__ void bounds_kernel(const int *__restrict__ keys, int m, int k, int *__restrict__ start,
                              int *__restrict__ nc) {
    const int l = blockIdx.x * blockDim.x + threadIdx.x;
    if (l > k) return;
    auto lower = [&](int v) {
        int lo = 0, hi = m;
        while (lo < hi) {
            const int mid = (lo + hi) / 2;
            if (keys[mid] < v)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo;
    };
    const int s0 = lower(l);
    start[l] = s0;
    if (l < k) nc[l] = lower(l + 1) - s0;
}

/* pt (d x m) = the transpose of prow (m x d), by 32 x 32 tiles through shared
 * memory so that both sides are read and written coalesced. */
__global__ void transpose_kernel(const double *__restrict__ prow, int m, int d,
                                 double *__restrict__ pt) {
    __shared__ double t[32][33];
    const int i0 = blockIdx.x * 32, j0 = blockIdx.y * 32;
    for (int r = threadIdx.y; r < 32; r += blockDim.y) {
        const int i = i0 + r, j = j0 + threadIdx.x;
        if (i < m && j < d) t[r][threadIdx.x] = prow[(size_t)i * d + j];
    }
    __syncthreads();
    for (int r = threadIdx.y; r < 32; r += blockDim.y) {
        const int j = j0 + r, i = i0 + threadIdx.x;
        if (i < m && j < d) pt[(size_t)j * m + i] = t[threadIdx.x][r];
    }
}

} // namespace

struct mu_gpu_km {
    int m, d, kmax, dev;
    int dcap; /* the buffers hold up to dcap coordinates a point (d <= dcap) */
    double *pt, *c, *dist;
    int *ic1, *ic2, *move;
    /* Version 2's bookkeeping: row-major points (as uploaded), per-point and
     * per-cluster sums, candidates. */
    double *prow, *dd, *cw;
    int *cand;
    /* The resident form: ic1 and ic2 as saved before a batch; the member lists
     * (a stable sort of the points by cluster: keys, and iota sorted into
     * list), cluster starts and counts; per-cluster leaving counts, the
     * batch's flags and moved / bad; the sort's scratch; and the pinned
     * results (moved, bad, nc, flags, centres, sums of squares). */
    int *save1, *save2, *keys, *iota, *list, *start, *ncd, *ncv, *leave, *small;
    unsigned char *tch;
    void *sort_tmp;
    size_t sort_bytes;
    char *res_h;
    /* the tests' inputs in one upload each (up, staged in pinned up_h); the
     * host-array scan's and qtest's results downloaded through pinned dn_h */
    char *up, *up_h, *dn_h;
    size_t up_bytes;
    cudaEvent_t up_done; /* the last upload from up_h has been read */
    /* mu_gpu_km_group_means's sums (xm_cap doubles), made at its first call */
    double *xm;
    size_t xm_cap;
};

/* The pinned results of a resident step, for k clusters of d coordinates:
 * moved and bad, nc (k), flags (k bytes, padded), centres (k x d), sums of
 * squares (k). */
struct res_offsets {
    size_t nc, flag, c, cw, bytes;
};
static res_offsets res_layout(int k, int d) {
    res_offsets o;
    o.nc = 2 * sizeof(int);
    o.flag = o.nc + (size_t)k * sizeof(int);
    o.c = (o.flag + (size_t)k + sizeof(double) - 1) / sizeof(double) * sizeof(double);
    o.cw = o.c + (size_t)k * d * sizeof(double);
    o.bytes = o.cw + (size_t)k * sizeof(double);
    return o;
}

/* One parked context per host thread (see the top). */
static thread_local mu_gpu_km *parked;

static void release(mu_gpu_km *g) {
    int rc = 0;
    void *bufs[] = {g->pt,    g->c,    g->dist, g->move,  g->ic1,   g->ic2,  g->prow,     g->dd,
                    g->cw,    g->cand, g->up,   g->save1, g->save2, g->keys, g->iota,     g->list,
                    g->start, g->ncd,  g->ncv,  g->leave, g->small, g->tch,  g->sort_tmp, g->xm};
    for (void *b : bufs)
        if (b) MU_CUDA_KEEP(cudaFree(b));
    for (void *b : {(void *)g->up_h, (void *)g->dn_h, (void *)g->res_h})
        if (b) MU_CUDA_KEEP(cudaFreeHost(b));
    if (g->up_done) MU_CUDA_KEEP(cudaEventDestroy(g->up_done));
    (void)rc;
    free(g);
}

extern "C" void mu_gpu_km_destroy(mu_gpu_km *g) {
    if (!g) return;
    if (parked) release(parked);
    parked = g;
}

/* The resident form's buffers (see the struct). */
static int allocate_resident(mu_gpu_km *g) {
    const size_t m = (size_t)g->m, kk = (size_t)g->kmax;
    for (int **b : {&g->save1, &g->save2, &g->keys, &g->iota, &g->list})
        MU_CUDA(cudaMalloc(b, m * sizeof(int)));
    for (int **b : {&g->start, &g->ncd, &g->ncv, &g->leave})
        MU_CUDA(cudaMalloc(b, (kk + 1) * sizeof(int)));
    MU_CUDA(cudaMalloc(&g->small, 2 * sizeof(int)));
    MU_CUDA(cudaMalloc(&g->tch, kk));
    MU_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, g->sort_bytes, g->ic1, g->keys, g->iota,
                                            g->list, g->m, 0, 32, cudaStreamPerThread));
    MU_CUDA(cudaMalloc(&g->sort_tmp, g->sort_bytes));
    MU_CUDA(cudaMallocHost(&g->res_h, res_layout(g->kmax, g->dcap).bytes));
    iota_kernel<<<(g->m + SELECT - 1) / SELECT, SELECT>>>(g->iota, g->m);
    MU_LAUNCHED();
    return 0;
}

/* The buffers of a new context of these sizes (host scratch and device). */
static int allocate(mu_gpu_km *g, int m, int d, int kmax) {
    g->m = m;
    g->d = g->dcap = d;
    g->kmax = kmax;
    size_t md = (size_t)m * d;
    MU_CUDA(cudaMalloc(&g->pt, md * sizeof(double)));
    MU_CUDA(cudaMalloc(&g->prow, md * sizeof(double)));
    MU_CUDA(cudaMalloc(&g->c, (size_t)kmax * d * sizeof(double)));
    MU_CUDA(cudaMalloc(&g->dist, (size_t)m * kmax * sizeof(double)));
    MU_CUDA(cudaMalloc(&g->move, (size_t)m * sizeof(int)));
    MU_CUDA(cudaMallocHost(&g->dn_h, (size_t)m * sizeof(int)));
    /* centres, an1, an2 (doubles), nc (ints), flags (bytes, padded), ic1, ic2 */
    g->up_bytes = ((size_t)kmax * d + 2 * (size_t)kmax) * sizeof(double) +
                  (2 * (size_t)m + (size_t)kmax + 1) * sizeof(int) + (size_t)kmax;
    MU_CUDA(cudaMalloc(&g->up, g->up_bytes));
    MU_CUDA(cudaMallocHost(&g->up_h, g->up_bytes));
    MU_CUDA(cudaEventCreateWithFlags(&g->up_done, cudaEventDisableTiming));
    MU_CUDA(cudaMalloc(&g->ic1, (size_t)m * sizeof(int)));
    MU_CUDA(cudaMalloc(&g->ic2, (size_t)m * sizeof(int)));
    MU_CUDA(cudaMalloc(&g->dd, (size_t)m * sizeof(double)));
    MU_CUDA(cudaMalloc(&g->cw, (size_t)kmax * sizeof(double)));
    MU_CUDA(cudaMalloc(&g->cand, (size_t)m * sizeof(int)));
    return allocate_resident(g);
}

/* A new context for up to m points of d coordinates and kmax centres, on the
 * current device: the parked one where it is large enough, else a fresh one. */
static int obtain(int m, int d, int kmax, mu_gpu_km **out) {
    int dev = 0;
    MU_CUDA(cudaGetDevice(&dev));
    if (parked && parked->m == m && parked->dcap >= d && parked->kmax >= kmax &&
        parked->dev == dev) {
        *out = parked; /* large enough: only the points change */
        parked = NULL;
        (*out)->d = d;
        return 0;
    }
    mu_gpu_km *g = (mu_gpu_km *)calloc(1, sizeof *g);
    if (!g) return mu_gpu_fail("k-means on the GPU: out of host memory");
    g->dev = dev;
    if (allocate(g, m, d, kmax)) {
        release(g);
        return 1;
    }
    *out = g;
    return 0;
}

extern "C" int mu_gpu_km_reserve(int m, int d, int kmax) {
    if (m < 1 || d < 1 || kmax < 1)
        return mu_gpu_fail("k-means on the GPU: bad sizes m %d, d %d, k %d", m, d, kmax);
    mu_gpu_km *g = NULL;
    if (obtain(m, d, kmax, &g)) return 1;
    mu_gpu_km_destroy(g); /* parks it */
    return 0;
}

extern "C" int mu_gpu_km_create(const double *pts, int m, int d, int kmax, mu_gpu_km **out) {
    *out = NULL;
    if (m < 1 || d < 1 || kmax < 1)
        return mu_gpu_fail("k-means on the GPU: bad sizes m %d, d %d, k %d", m, d, kmax);
    int rc = 0;
    mu_gpu_km *g = NULL;
    if (obtain(m, d, kmax, &g)) return 1;
    /* The points as they are (row-major, the bookkeeping's layout), transposed
     * on the device for the per-point kernels; pts may be on the host or on
     * this device (cudaMemcpyDefault tells which). */
    MU_CUDA_GOTO(cudaMemcpy(g->prow, pts, (size_t)m * d * sizeof(double), cudaMemcpyDefault));
    transpose_kernel<<<dim3((m + 31) / 32, (d + 31) / 32), dim3(32, 8)>>>(g->prow, m, d, g->pt);
    MU_LAUNCHED_GOTO();
done:
    if (rc) {
        release(g);
        return rc;
    }
    *out = g;
    return 0;
}

static int check_k(const mu_gpu_km *g, int k) {
    if (!g || k < 1 || k > g->kmax)
        return mu_gpu_fail("k-means on the GPU: %d clusters for a context of at most %d", k,
                           g ? g->kmax : 0);
    return 0;
}

/* Every distance of the k centres into g->dist (device). */
static int distances(mu_gpu_km *g, const double *c, int k) {
    if (check_k(g, k)) return 1;
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

/* The per-point tests' inputs, uploaded at once through the pinned staging:
 * centres, an1, an2, nc and a byte per cluster (live or qchg), then ic1 and
 * ic2 unless they are the resident ones (NULL: g->ic1, g->ic2). */
struct staged {
    const double *c, *an1, *an2;
    const int *ic1, *ic2, *nc;
    const unsigned char *flag;
};

static int stage(mu_gpu_km *g, const double *c, int k, const int *ic1, const int *ic2,
                 const int *nc, const double *an1, const double *an2, const unsigned char *flag,
                 staged *st) {
    if (check_k(g, k)) return 1;
    const size_t m = (size_t)g->m, kk = (size_t)k, kd = kk * g->d;
    const size_t o_an1 = kd * sizeof(double), o_an2 = o_an1 + kk * sizeof(double),
                 o_nc = o_an2 + kk * sizeof(double), o_flag = o_nc + kk * sizeof(int),
                 o_ic1 = (o_flag + kk + sizeof(int) - 1) / sizeof(int) * sizeof(int),
                 o_ic2 = o_ic1 + m * sizeof(int), bytes = ic1 ? o_ic2 + m * sizeof(int) : o_ic1;
    char *h = g->up_h, *u = g->up;
    MU_CUDA(cudaEventSynchronize(g->up_done)); /* the last upload has left h */
    memcpy(h, c, kd * sizeof(double));
    memcpy(h + o_an1, an1, kk * sizeof(double));
    memcpy(h + o_an2, an2, kk * sizeof(double));
    memcpy(h + o_nc, nc, kk * sizeof(int));
    memcpy(h + o_flag, flag, kk);
    if (ic1) {
        memcpy(h + o_ic1, ic1, m * sizeof(int));
        memcpy(h + o_ic2, ic2, m * sizeof(int));
    }
    /* queued, not waited for: the kernels after it are in the same stream */
    MU_CUDA(cudaMemcpyAsync(u, h, bytes, cudaMemcpyHostToDevice, cudaStreamPerThread));
    MU_CUDA(cudaEventRecord(g->up_done, cudaStreamPerThread));
    *st = staged{(const double *)u,
                 (const double *)(u + o_an1),
                 (const double *)(u + o_an2),
                 ic1 ? (const int *)(u + o_ic1) : g->ic1,
                 ic1 ? (const int *)(u + o_ic2) : g->ic2,
                 (const int *)(u + o_nc),
                 (const unsigned char *)(u + o_flag)};
    return 0;
}

/* A per-point int result of the host-array forms, through the pinned dn_h. */
static int pull_points(mu_gpu_km *g, const int *dev, int *host) {
    const size_t bytes = (size_t)g->m * sizeof(int);
    MU_CUDA(cudaMemcpy(g->dn_h, dev, bytes, cudaMemcpyDeviceToHost));
    memcpy(host, g->dn_h, bytes);
    return 0;
}

/* The optimal-transfer test; with cand, the resident form (candidates on
 * the device, ic2 updated there). */
static int scan_step(mu_gpu_km *g, const staged &st, int k, int *cand) {
    dim3 grid((g->m + THREADS - 1) / THREADS, (k + TK - 1) / TK);
    dist_kernel<<<grid, THREADS>>>(g->pt, g->m, g->d, st.c, k, g->dist);
    MU_LAUNCHED();
    scan_args sa{st.ic1, st.ic2, st.nc, st.an1, st.an2, st.flag, g->move, cand, g->ic2};
    scan_kernel<<<(g->m + SELECT - 1) / SELECT, SELECT>>>(g->dist, g->m, k, sa);
    MU_LAUNCHED();
    return 0;
}

static int qtest_step(mu_gpu_km *g, const staged &st) {
    qtest_kernel<<<(g->m + SELECT - 1) / SELECT, SELECT>>>(g->pt, g->m, g->d, st.c, st.ic1, st.ic2,
                                                           st.nc, st.an1, st.an2, st.flag, g->cand);
    MU_LAUNCHED();
    return 0;
}

/* Version 2's per-point tests on the staged inputs, the optimal-transfer
 * test (scan) or the quick-transfer test: the host-array forms (out given)
 * bring the result (move, cand) back into out; the resident forms (out NULL)
 * leave it on the device (the candidates in g->cand, ic2 updated there). */
static int point_test(mu_gpu_km *g, bool scan, const double *c, int k, const int *ic1,
                      const int *ic2, const int *nc, const double *an1, const double *an2,
                      const unsigned char *flag, int *out) {
    staged st{}; /* set by stage: zeroed only for GCC's -Wmaybe-uninitialized */
    if (stage(g, c, k, ic1, ic2, nc, an1, an2, flag, &st)) return 1;
    if (scan ? scan_step(g, st, k, out ? NULL : g->cand) : qtest_step(g, st)) return 1;
    return out ? pull_points(g, scan ? g->move : g->cand, out) : 0;
}

extern "C" int mu_gpu_km_scan(mu_gpu_km *g, const double *c, int k, const int *ic1, const int *ic2,
                              const int *nc, const double *an1, const double *an2,
                              const unsigned char *live, int *move) {
    return point_test(g, true, c, k, ic1, ic2, nc, an1, an2, live, move);
}

extern "C" int mu_gpu_km_qtest(mu_gpu_km *g, const double *c, int k, const int *ic1, const int *ic2,
                               const int *nc, const double *an1, const double *an2,
                               const unsigned char *qchg, int *cand) {
    return point_test(g, false, c, k, ic1, ic2, nc, an1, an2, qchg, cand);
}

extern "C" int mu_gpu_km_res_scan(mu_gpu_km *g, const double *c, int k, const int *nc,
                                  const double *an1, const double *an2, const unsigned char *live) {
    return point_test(g, true, c, k, NULL, NULL, nc, an1, an2, live, NULL);
}

extern "C" int mu_gpu_km_res_qtest(mu_gpu_km *g, const double *c, int k, const int *nc,
                                   const double *an1, const double *an2,
                                   const unsigned char *qchg) {
    return point_test(g, false, c, k, NULL, NULL, nc, an1, an2, qchg, NULL);
}

/* The member lists of the k clusters of g->ic1: a stable sort of the points
 * by cluster (list: each cluster's members in point order), the clusters'
 * starts and counts. */
static int member_lists(mu_gpu_km *g, int k) {
    const int m = g->m;
    int bits = 1;
    while ((1 << bits) < k) bits++;
    size_t need = 0;
    MU_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, need, g->ic1, g->keys, g->iota, g->list, m, 0,
                                            bits, cudaStreamPerThread));
    if (need > g->sort_bytes)
        return mu_gpu_fail("k-means on the GPU: the sort needs %zu bytes of scratch, not %zu", need,
                           g->sort_bytes);
    MU_CUDA(cub::DeviceRadixSort::SortPairs(g->sort_tmp, need, g->ic1, g->keys, g->iota, g->list, m,
                                            0, bits, cudaStreamPerThread));
    bounds_kernel<<<(k + SELECT) / SELECT, SELECT>>>(g->keys, m, k, g->start, g->ncd);
    MU_LAUNCHED();
    return 0;
}

/* The flagged clusters' centres and sums of squares from the resident ic1
 * (members in point order through member_lists), every count, and the
 * results brought back; the flags are in g->tch. */
static int recompute_step(mu_gpu_km *g, int k, res_offsets *o) {
    const int m = g->m, d = g->d;
    if (member_lists(g, k)) return 1;
    centre_kernel<<<dim3(k, (d + CJ - 1) / CJ), SUMT>>>(g->prow, d, g->list, g->start, g->ncd,
                                                        g->tch, g->c);
    MU_LAUNCHED();
    own_kernel<<<(m + SELECT - 1) / SELECT, SELECT>>>(g->pt, m, d, g->c, g->ic1, g->tch, g->dd);
    MU_LAUNCHED();
    wss_kernel<<<k, SUMT>>>(g->list, g->start, g->tch, g->dd, g->cw);
    MU_LAUNCHED();
    *o = res_layout(k, d);
    char *h = g->res_h;
    const cudaStream_t s = cudaStreamPerThread;
    MU_CUDA(cudaMemcpyAsync(h, g->small, 2 * sizeof(int), cudaMemcpyDeviceToHost, s));
    MU_CUDA(cudaMemcpyAsync(h + o->nc, g->ncd, (size_t)k * sizeof(int), cudaMemcpyDeviceToHost, s));
    MU_CUDA(cudaMemcpyAsync(h + o->flag, g->tch, (size_t)k, cudaMemcpyDeviceToHost, s));
    MU_CUDA(
        cudaMemcpyAsync(h + o->c, g->c, (size_t)k * d * sizeof(double), cudaMemcpyDeviceToHost, s));
    MU_CUDA(
        cudaMemcpyAsync(h + o->cw, g->cw, (size_t)k * sizeof(double), cudaMemcpyDeviceToHost, s));
    MU_CUDA(cudaStreamSynchronize(s));
    return 0;
}

/* The flagged rows of c and entries of cw, every count, and the flags. */
static void recompute_out(const mu_gpu_km *g, int k, const res_offsets &o, unsigned char *touched,
                          double *c, double *cw, int *nc) {
    const char *h = g->res_h;
    const unsigned char *fl = (const unsigned char *)(h + o.flag);
    const double *hc = (const double *)(h + o.c), *hw = (const double *)(h + o.cw);
    const size_t d = (size_t)g->d;
    memcpy(nc, h + o.nc, (size_t)k * sizeof(int));
    if (touched) memcpy(touched, fl, (size_t)k);
    for (int l = 0; l < k; l++)
        if (fl[l]) {
            memcpy(c + l * d, hc + l * d, d * sizeof(double));
            cw[l] = hw[l];
        }
}

extern "C" int mu_gpu_km_res_recompute(mu_gpu_km *g, int k, const unsigned char *touched, double *c,
                                       double *cw, int *nc) {
    if (check_k(g, k)) return 1;
    if (touched)
        MU_CUDA(cudaMemcpy(g->tch, touched, (size_t)k, cudaMemcpyHostToDevice));
    else
        MU_CUDA(cudaMemsetAsync(g->tch, 1, (size_t)k, cudaStreamPerThread));
    res_offsets o;
    if (recompute_step(g, k, &o)) return 1;
    recompute_out(g, k, o, NULL, c, cw, nc);
    return 0;
}

extern "C" int mu_gpu_km_res_batch(mu_gpu_km *g, int k, const int *nc, int *applied, int *moved,
                                   unsigned char *touched, double *c, double *cw, int *nc_out) {
    if (check_k(g, k)) return 1;
    const size_t m = (size_t)g->m;
    const cudaStream_t s = cudaStreamPerThread;
    /* the counts go up through the pinned results' nc, which the results
     * overwrite only after this copy in the same stream: nothing waits here */
    const res_offsets o = res_layout(k, g->d);
    memcpy(g->res_h + o.nc, nc, (size_t)k * sizeof(int));
    MU_CUDA(cudaMemcpyAsync(g->ncv, g->res_h + o.nc, (size_t)k * sizeof(int),
                            cudaMemcpyHostToDevice, s));
    MU_CUDA(cudaMemcpyAsync(g->save1, g->ic1, m * sizeof(int), cudaMemcpyDeviceToDevice, s));
    MU_CUDA(cudaMemcpyAsync(g->save2, g->ic2, m * sizeof(int), cudaMemcpyDeviceToDevice, s));
    MU_CUDA(cudaMemsetAsync(g->leave, 0, (size_t)k * sizeof(int), s));
    MU_CUDA(cudaMemsetAsync(g->tch, 0, (size_t)k, s));
    MU_CUDA(cudaMemsetAsync(g->small, 0, 2 * sizeof(int), s));
    const int blocks = (g->m + SELECT - 1) / SELECT;
    leave_kernel<<<blocks, SELECT, (size_t)k * sizeof(int)>>>(g->cand, g->ic1, g->m, k, g->leave);
    MU_LAUNCHED();
    apply_kernel<<<blocks, SELECT>>>(g->cand, g->ic1, g->ic2, g->m, k, g->ncv, g->leave, g->tch,
                                     g->small, g->small + 1);
    MU_LAUNCHED();
    res_offsets ro;
    if (recompute_step(g, k, &ro)) return 1;
    const int *counts = (const int *)g->res_h;
    *moved = counts[0];
    *applied = !counts[1];
    recompute_out(g, k, ro, touched, c, cw, nc_out);
    return 0;
}

extern "C" int mu_gpu_km_res_restore(mu_gpu_km *g) {
    const size_t bytes = (size_t)g->m * sizeof(int);
    MU_CUDA(
        cudaMemcpyAsync(g->ic1, g->save1, bytes, cudaMemcpyDeviceToDevice, cudaStreamPerThread));
    MU_CUDA(
        cudaMemcpyAsync(g->ic2, g->save2, bytes, cudaMemcpyDeviceToDevice, cudaStreamPerThread));
    return 0;
}

extern "C" int mu_gpu_km_res_pull(mu_gpu_km *g, int *ic1, int *ic2, int *cand) {
    const size_t bytes = (size_t)g->m * sizeof(int);
    MU_CUDA(cudaMemcpy(ic1, g->ic1, bytes, cudaMemcpyDeviceToHost));
    if (ic2) MU_CUDA(cudaMemcpy(ic2, g->ic2, bytes, cudaMemcpyDeviceToHost));
    if (cand) MU_CUDA(cudaMemcpy(cand, g->cand, bytes, cudaMemcpyDeviceToHost));
    return 0;
}

extern "C" int mu_gpu_km_res_push(mu_gpu_km *g, const int *ic1, const int *ic2) {
    const size_t bytes = (size_t)g->m * sizeof(int);
    MU_CUDA(cudaMemcpy(g->ic1, ic1, bytes, cudaMemcpyHostToDevice));
    MU_CUDA(cudaMemcpy(g->ic2, ic2, bytes, cudaMemcpyHostToDevice));
    return 0;
}

extern "C" int mu_gpu_km_own(mu_gpu_km *g, const double *c, int k, const int *ic1, double *dd) {
    if (check_k(g, k)) return 1;
    const size_t m = (size_t)g->m;
    MU_CUDA(cudaMemcpy(g->c, c, (size_t)k * g->d * sizeof(double), cudaMemcpyHostToDevice));
    MU_CUDA(cudaMemcpy(g->ic1, ic1, m * sizeof(int), cudaMemcpyHostToDevice));
    MU_CUDA(cudaMemsetAsync(g->tch, 1, (size_t)k, cudaStreamPerThread));
    own_kernel<<<(g->m + SELECT - 1) / SELECT, SELECT>>>(g->pt, g->m, g->d, g->c, g->ic1, g->tch,
                                                         g->dd);
    MU_LAUNCHED();
    MU_CUDA(cudaMemcpy(dd, g->dd, m * sizeof(double), cudaMemcpyDeviceToHost));
    return 0;
}

extern "C" int mu_gpu_km_group_means(mu_gpu_km *g, const int *grp, int k, const double *x, int d,
                                     double *out) {
    if (check_k(g, k)) return 1;
    const size_t kd = (size_t)k * d;
    if (kd > g->xm_cap) {
        double *old = g->xm; /* forgotten first: a failed free leaves nothing to free twice */
        g->xm = nullptr;
        g->xm_cap = 0;
        if (old) MU_CUDA(cudaFree(old));
        MU_CUDA(cudaMalloc(&g->xm, kd * sizeof(double)));
        g->xm_cap = kd;
    }
    MU_CUDA(cudaMemcpy(g->ic1, grp, (size_t)g->m * sizeof(int), cudaMemcpyHostToDevice));
    MU_CUDA(cudaMemsetAsync(g->tch, 1, (size_t)k, cudaStreamPerThread));
    if (member_lists(g, k)) return 1;
    centre_kernel<<<dim3(k, (d + CJ - 1) / CJ), SUMT>>>(x, d, g->list, g->start, g->ncd, g->tch,
                                                        g->xm);
    MU_LAUNCHED();
    MU_CUDA(cudaMemcpy(out, g->xm, kd * sizeof(double), cudaMemcpyDeviceToHost));
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
