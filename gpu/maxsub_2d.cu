/* 2-D maximum submatrix on the GPU: Kadane over the rows for every column pair
 * (g, h), with the strip value of row i taken from the exclusive row prefix sums
 * V: c_i = V[i][h+1] - V[i][g] (the study's prefix-sum differences).
 *
 * One block per 64 x 64 tile of pairs (the tiles of maxsub_monoid.h): 256
 * threads, each with a 4 x 4 register tile of pairs (consecutive g, consecutive
 * h), so a row costs each thread two 16-byte shared loads for 16 updates. Rows
 * of the tile's 64 + 64 prefix columns are staged through shared memory in
 * bands, double-buffered: the next band's global loads are in flight while the
 * current band is computed. Pairs with g > h (diagonal tiles) or h >= cols
 * (the last tile column) are computed on clamped columns and ignored.
 * Each block writes (best, smallest pair id) of its tile; a one-block kernel
 * reduces the records by (larger value, smaller id), which is deterministic.
 *
 * int32 fast path (exact when proven): with B = max_i sum_j |k_ij| < 2^30 every
 * V and every c lies in [-B, B]; a run can only overflow after the pair's best
 * exceeded INT32_MAX - B, and bests only grow, so a final int32 best <=
 * INT32_MAX - B proves that no counted pair overflowed. Otherwise the tiles are
 * run again in int64.
 *
 * int32 update (sm_90 DPX), chosen per mode by measurement (perf/history/):
 *  - allowed mode, one row at a time: c = vh - vg on the FMA pipe (IMAD), then
 *    best = max(run + c, best) and run = max(run + c, 0), two VIADDMNMX on the
 *    integer pipe per update;
 *  - nonempty mode, rows in pairs: a = max(run + c1, c1) (= max(run, 0) + c1),
 *    b = max(a + c2, c2), best = max(best, a, b): two VIADDMNMX and one VIMNMX3
 *    for two updates. (In allowed mode ptxas turns the paired form into IADD3 +
 *    VIMNMX on the integer pipe, which is slower than one row at a time.)
 * For benchmarks: MUTIRAO_MSS2D_INT64=1 forces int64; MUTIRAO_MSS2D_KERNEL=pairs
 * or rows forces one int32 kernel for both modes. */
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#include "gpu/maxsub_gpu.h"
#include "gpu/check.h"
#include "core/knobs.h"

namespace {

constexpr int THREADS = 256;
constexpr int TILE = MU_MSS_TILE; /* 64 */
static_assert(TILE == 64, "the register tiling assumes 64 x 64 tiles");
constexpr long long CHUNK_TILES = 1LL << 20; /* tiles per launch */
constexpr unsigned FULL = 0xffffffffu;

struct rec {
    long long val, id; /* id -1: no pair */
};

__host__ __device__ __forceinline__ bool rec_better(long long v1, long long i1, long long v2,
                                                    long long i2) {
    if (i1 < 0) return false;
    if (i2 < 0) return true;
    return v1 > v2 || (v1 == v2 && i1 < i2);
}

/* The warp's best record (value, pair id) into lane 0's bv, bid, by shuffles. */
__device__ __forceinline__ void warp_best(long long &bv, long long &bid) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const long long ov = __shfl_down_sync(FULL, bv, o), oid = __shfl_down_sync(FULL, bid, o);
        if (rec_better(ov, oid, bv, bid)) {
            bv = ov;
            bid = oid;
        }
    }
}

/* ---- prefix sums ---- */

/* One warp per row: V[i][0] = 0, V[i][j+1] = V[i][j] + K[i][j]; rowabs[i] = sum_j |K[i][j]|. */
__global__ void prefix_rows(const int *__restrict__ K, long long rows, long long cols,
                            long long *__restrict__ V, long long *__restrict__ rowabs) {
    const int lane = threadIdx.x & 31;
    const long long nw = (long long)gridDim.x * (blockDim.x / 32);
    for (long long i = (long long)blockIdx.x * (blockDim.x / 32) + (threadIdx.x >> 5); i < rows;
         i += nw) {
        const int *k = K + i * cols;
        long long *v = V + i * (cols + 1);
        if (lane == 0) v[0] = 0;
        long long carry = 0, absacc = 0;
        for (long long j0 = 0; j0 < cols; j0 += 32) {
            const long long j = j0 + lane;
            long long x = j < cols ? k[j] : 0;
            absacc += x < 0 ? -x : x;
#pragma unroll
            for (int o = 1; o < 32; o <<= 1) {
                long long y = __shfl_up_sync(FULL, x, o);
                if (lane >= o) x += y;
            }
            if (j < cols) v[j + 1] = carry + x;
            carry += __shfl_sync(FULL, x, 31);
        }
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) absacc += __shfl_down_sync(FULL, absacc, o);
        if (lane == 0) rowabs[i] = absacc;
    }
}

__global__ void narrow_to_int32(const long long *__restrict__ src, int *__restrict__ dst,
                                long long n) {
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        dst[i] = (int)src[i];
}

/* ---- the tile kernel ---- */

template <typename T> struct lim;
template <> struct lim<int> {
    static __device__ __forceinline__ int lowest() { return INT_MIN; }
};
template <> struct lim<long long> {
    static __device__ __forceinline__ long long lowest() { return MU_MSS_NEG_INF; }
};

/* Kernel variants of the int32 path (the int64 path has one). VAR_AUTO: rows in
 * allowed mode, pairs in nonempty mode. */
enum { VAR_PAIRS = 0, VAR_ROWS = 1, VAR_AUTO = 2 };

/* One Kadane update of a pair: c = vh - vg. */
template <bool ALLOWED, int VAR>
__device__ __forceinline__ void update(int &run, int &best, int vh, int vg) {
    /* Unsigned adds: wrap-around instead of undefined behaviour; the overflow test
     * on the host rejects any result an overflow could have touched. */
    const int c = (int)((unsigned)vh - (unsigned)vg);
    if (ALLOWED) {
        best = __viaddmax_s32(run, c, best);  /* max(best, run + c) (best >= 0) */
        run = __viaddmax_s32_relu(run, c, 0); /* max(run + c, 0) */
    } else {
        run = __viaddmax_s32(run, c, c); /* max(run, 0) + c = max(run + c, c) */
        best = max(best, run);
    }
}

/* Two rows of one pair: c1 then c2. */
template <bool ALLOWED>
__device__ __forceinline__ void update2(int &run, int &best, int vh1, int vg1, int vh2, int vg2) {
    const int c1 = (int)((unsigned)vh1 - (unsigned)vg1);
    const int c2 = (int)((unsigned)vh2 - (unsigned)vg2);
    int a, b;
    if (ALLOWED) {
        a = __viaddmax_s32_relu(run, c1, 0);
        b = __viaddmax_s32_relu(a, c2, 0);
    } else {
        a = __viaddmax_s32(run, c1, c1);
        b = __viaddmax_s32(a, c2, c2);
    }
    best = __vimax3_s32(best, a, b);
    run = b;
}

template <bool ALLOWED, int VAR>
__device__ __forceinline__ void update(long long &run, long long &best, long long vh,
                                       long long vg) {
    const long long c = vh - vg;
    if (ALLOWED) {
        const long long t = run + c;
        run = t > 0 ? t : 0;
        best = best > t ? best : t;
    } else {
        run = (run > 0 ? run : 0) + c;
        best = best > run ? best : run;
    }
}

template <typename T> __device__ __forceinline__ void load4(const T *p, T (&v)[4]);
template <> __device__ __forceinline__ void load4<int>(const int *p, int (&v)[4]) {
    const int4 q = *(const int4 *)p;
    v[0] = q.x;
    v[1] = q.y;
    v[2] = q.z;
    v[3] = q.w;
}
template <>
__device__ __forceinline__ void load4<long long>(const long long *p, long long (&v)[4]) {
    const longlong2 q0 = *(const longlong2 *)p, q1 = *(const longlong2 *)(p + 2);
    v[0] = q0.x;
    v[1] = q0.y;
    v[2] = q1.x;
    v[3] = q1.y;
}

template <typename T, int RB> struct band_smem {
    T g[2][RB][TILE];
    T h[2][RB][TILE];
};

template <typename T, bool ALLOWED, int VAR, int RB>
__device__ __forceinline__ void one_row(const band_smem<T, RB> &sm, int buf, int r, int a, int b,
                                        T (&run)[16], T (&best)[16]) {
    T vg[4], vh[4];
    load4<T>(&sm.g[buf][r][4 * a], vg);
    load4<T>(&sm.h[buf][r][4 * b], vh);
#pragma unroll
    for (int x = 0; x < 4; x++)
#pragma unroll
        for (int y = 0; y < 4; y++)
            update<ALLOWED, VAR>(run[4 * x + y], best[4 * x + y], vh[y], vg[x]);
}

template <bool ALLOWED, int RB>
__device__ __forceinline__ void two_rows(const band_smem<int, RB> &sm, int buf, int r, int a, int b,
                                         int (&run)[16], int (&best)[16]) {
    int vg[4], vh[4], wg[4], wh[4];
    load4<int>(&sm.g[buf][r][4 * a], vg);
    load4<int>(&sm.h[buf][r][4 * b], vh);
    load4<int>(&sm.g[buf][r + 1][4 * a], wg);
    load4<int>(&sm.h[buf][r + 1][4 * b], wh);
#pragma unroll
    for (int x = 0; x < 4; x++)
#pragma unroll
        for (int y = 0; y < 4; y++)
            update2<ALLOWED>(run[4 * x + y], best[4 * x + y], vh[y], vg[x], wh[y], wg[x]);
}

template <typename T, bool ALLOWED, int VAR, int RB>
__device__ __forceinline__ void band_rows(const band_smem<T, RB> &sm, int buf, int nr, int a, int b,
                                          T (&run)[16], T (&best)[16]) {
    if constexpr (sizeof(T) == 4 && VAR == VAR_PAIRS) {
        static_assert(RB % 2 == 0, "rows go in pairs");
        if (nr == RB) {
#pragma unroll 4
            for (int r = 0; r < RB; r += 2) two_rows<ALLOWED, RB>(sm, buf, r, a, b, run, best);
        } else {
            int r = 0;
            for (; r + 1 < nr; r += 2) two_rows<ALLOWED, RB>(sm, buf, r, a, b, run, best);
            if (r < nr) one_row<T, ALLOWED, VAR_ROWS, RB>(sm, buf, r, a, b, run, best);
        }
    } else {
        if (nr == RB) {
#pragma unroll 8
            for (int r = 0; r < RB; r++) one_row<T, ALLOWED, VAR, RB>(sm, buf, r, a, b, run, best);
        } else {
            for (int r = 0; r < nr; r++) one_row<T, ALLOWED, VAR, RB>(sm, buf, r, a, b, run, best);
        }
    }
}

/* A block pair's geometry: pairs (g, h), g in block G (prefix columns
 * loG .. loG + wG at VG, row stride ldG), h in block H; diag: G is H and only
 * g <= h counts; tiles numbered as mu_mss2d_block_tile does (a triangle of
 * tG x tG tiles when diag, else tG x tH row-major). Pair ids are global over
 * cols columns. The whole matrix is the pair (V, V) with lo 0, w cols, diag. */
struct geom {
    long long rows, cols, ldG, ldH, wG, wH, loG, loH, tG, tH;
    int diag;
};

__host__ __device__ __forceinline__ void tile_of(const geom &q, long long id, long long &tg,
                                                 long long &th) {
    if (q.diag) {
        int64_t a, b;
        mu_mss_tri_unrank(q.tG, id, &a, &b);
        tg = a;
        th = b;
    } else {
        tg = id / q.tH;
        th = id % q.tH;
    }
}

/* The staging of a tile: thread tid loads prefix column j = tid % 128 of the
 * tile's 128 (64 for g, 64 for h + 1), clamped inside its block (pairs on a
 * clamped column are ignored). */
template <typename T> struct stage_src {
    const T *base;
    long long ld;
};

template <typename T>
__device__ __forceinline__ stage_src<T> stage_column(const T *VG, const T *VH, const geom &q,
                                                     long long g0, long long h0, int j) {
    long long col = j < TILE ? g0 + j : h0 + (j - TILE) + 1;
    const long long lim = j < TILE ? q.wG : q.wH;
    col = col < lim ? col : lim;
    return j < TILE ? stage_src<T>{VG + col, q.ldG} : stage_src<T>{VH + col, q.ldH};
}

/* Pair (g, h) of the block pair (local columns) counts. */
__device__ __forceinline__ bool pair_in(const geom &q, long long g, long long h) {
    return g < q.wG && h < q.wH && (!q.diag || g <= h);
}

template <typename T, bool ALLOWED, int VAR, int RB>
__global__ void __launch_bounds__(THREADS)
    mss2d_tiles(const T *__restrict__ VG, const T *__restrict__ VH, geom q, long long tile_first,
                rec *__restrict__ out) {
    static_assert(RB % 2 == 0, "two rows per pass of the staging loads");
    constexpr int PF = RB / 2; /* staged values per thread per band */
    __shared__ __align__(16) band_smem<T, RB> sm;
    __shared__ rec wrec[THREADS / 32];

    long long tg, th;
    tile_of(q, tile_first + blockIdx.x, tg, th);
    const long long g0 = tg * TILE, h0 = th * TILE, rows = q.rows;
    const int tid = threadIdx.x, a = tid >> 4, b = tid & 15;

    /* Staging: this thread always loads column j = tid % 128 of the tile's 128
     * prefix columns (64 for g, 64 for h + 1), rows tid / 128 + 2k of the band. */
    const int j = tid & 127, r0 = tid >> 7;
    const stage_src<T> src = stage_column<T>(VG, VH, q, g0, h0, j);
    T *const dst0 = j < TILE ? &sm.g[0][0][j] : &sm.h[0][0][j - TILE];
    const size_t bufstride = (size_t)RB * TILE; /* elements between buffer 0 and 1 */

    T run[16], best[16];
#pragma unroll
    for (int k = 0; k < 16; k++) {
        run[k] = 0;
        best[k] = ALLOWED ? (T)0 : lim<T>::lowest();
    }

    const long long nbands = (rows + RB - 1) / RB;
    T pf[PF];
    auto load_band = [&](long long band) {
#pragma unroll
        for (int k = 0; k < PF; k++) {
            const long long i = band * RB + r0 + 2 * k;
            pf[k] = i < rows ? __ldg(src.base + i * src.ld) : (T)0;
        }
    };
    auto store_band = [&](int buf) {
#pragma unroll
        for (int k = 0; k < PF; k++) dst0[buf * bufstride + (size_t)(r0 + 2 * k) * TILE] = pf[k];
    };

    load_band(0);
    store_band(0);
    __syncthreads();
    for (long long band = 0; band < nbands; band++) {
        const int buf = (int)(band & 1);
        const bool next = band + 1 < nbands;
        if (next) load_band(band + 1);
        const long long left = rows - band * RB;
        const int nr = left < RB ? (int)left : RB;
        band_rows<T, ALLOWED, VAR, RB>(sm, buf, nr, a, b, run, best);
        if (next) store_band(buf ^ 1);
        __syncthreads();
    }

    /* This thread's best counted pair: larger value, then smaller pair id. */
    long long bv = 0, bid = -1;
#pragma unroll
    for (int x = 0; x < 4; x++)
#pragma unroll
        for (int y = 0; y < 4; y++) {
            const long long g = g0 + 4 * a + x, h = h0 + 4 * b + y;
            const long long v = (long long)best[4 * x + y];
            if (!pair_in(q, g, h)) continue;
            if (ALLOWED && v <= 0) continue;
            const long long pid = mu_mss_pair_id(q.cols, q.loG + g, q.loH + h);
            if (rec_better(v, pid, bv, bid)) {
                bv = v;
                bid = pid;
            }
        }
    warp_best(bv, bid);
    if ((tid & 31) == 0) wrec[tid >> 5] = rec{bv, bid};
    __syncthreads();
    if (tid == 0) {
        rec r = wrec[0];
        for (int w = 1; w < THREADS / 32; w++)
            if (rec_better(wrec[w].val, wrec[w].id, r.val, r.id)) r = wrec[w];
        out[blockIdx.x] = r;
    }
}

/* Several bands: every pair's summary over this band's rows (int64; see
 * mu_mss2d_sum), the staging of mss2d_tiles, out in the CPU's layout: tile
 * blockIdx.x's pair (a, b) at (blockIdx.x * TILE + a) * TILE + b, zero for
 * pairs that do not count. */
template <bool ALLOWED>
__global__ void __launch_bounds__(THREADS)
    mss2d_sums(const long long *__restrict__ VG, const long long *__restrict__ VH, geom q,
               long long tile_first, mu_mss2d_sum *__restrict__ out) {
    constexpr int RB = 16, PF = RB / 2;
    __shared__ __align__(16) band_smem<long long, RB> sm;
    long long tg, th;
    tile_of(q, tile_first + blockIdx.x, tg, th);
    const long long g0 = tg * TILE, h0 = th * TILE, rows = q.rows;
    const int tid = threadIdx.x, a = tid >> 4, b = tid & 15;
    const int j = tid & 127, r0 = tid >> 7;
    const stage_src<long long> src = stage_column<long long>(VG, VH, q, g0, h0, j);
    long long *const dst0 = j < TILE ? &sm.g[0][0][j] : &sm.h[0][0][j - TILE];
    const size_t bufstride = (size_t)RB * TILE;
    const long long init = ALLOWED ? 0 : MU_MSS_NEG_INF;
    long long run[16], best[16], acc[16], pre[16];
#pragma unroll
    for (int k = 0; k < 16; k++) {
        run[k] = acc[k] = 0;
        best[k] = pre[k] = init;
    }
    const long long nbands = (rows + RB - 1) / RB;
    long long pf[PF];
    for (long long band = 0; band < nbands; band++) {
        const int buf = (int)(band & 1);
#pragma unroll
        for (int k = 0; k < PF; k++) {
            const long long i = band * RB + r0 + 2 * k;
            pf[k] = i < rows ? __ldg(src.base + i * src.ld) : 0;
        }
#pragma unroll
        for (int k = 0; k < PF; k++) dst0[buf * bufstride + (size_t)(r0 + 2 * k) * TILE] = pf[k];
        __syncthreads();
        const long long left = rows - band * RB;
        const int nr = left < RB ? (int)left : RB;
        for (int r = 0; r < nr; r++) {
            long long vg[4], vh[4];
            load4<long long>(&sm.g[buf][r][4 * a], vg);
            load4<long long>(&sm.h[buf][r][4 * b], vh);
#pragma unroll
            for (int x = 0; x < 4; x++)
#pragma unroll
                for (int y = 0; y < 4; y++) {
                    const int k = 4 * x + y;
                    const long long c = vh[y] - vg[x];
                    update<ALLOWED, VAR_ROWS>(run[k], best[k], c, (long long)0);
                    acc[k] += c;
                    pre[k] = pre[k] > acc[k] ? pre[k] : acc[k];
                }
        }
        /* The other buffer is written next band: no wait needed before it. */
    }
    mu_mss2d_sum *o = out + (size_t)blockIdx.x * TILE * TILE;
#pragma unroll
    for (int x = 0; x < 4; x++)
#pragma unroll
        for (int y = 0; y < 4; y++) {
            const int k = 4 * x + y, ga = 4 * a + x, hb = 4 * b + y;
            const bool in = pair_in(q, g0 + ga, h0 + hb);
            o[ga * TILE + hb] =
                in ? mu_mss2d_sum{acc[k], pre[k], run[k], best[k]} : mu_mss2d_sum{0, 0, 0, 0};
        }
}

/* One block of 1024 threads: the best of n records into *res. */
__global__ void __launch_bounds__(1024)
    reduce_recs(const rec *__restrict__ in, long long n, rec *__restrict__ res) {
    __shared__ rec w[32];
    long long bv = 0, bid = -1;
    for (long long i = threadIdx.x; i < n; i += blockDim.x)
        if (rec_better(in[i].val, in[i].id, bv, bid)) {
            bv = in[i].val;
            bid = in[i].id;
        }
    warp_best(bv, bid);
    if ((threadIdx.x & 31) == 0) w[threadIdx.x >> 5] = rec{bv, bid};
    __syncthreads();
    if (threadIdx.x == 0) {
        rec r = w[0];
        for (int k = 1; k < (int)(blockDim.x / 32); k++)
            if (rec_better(w[k].val, w[k].id, r.val, r.id)) r = w[k];
        *res = r;
    }
}

constexpr int RB32 = 32, RB64 = 16;

template <typename T, bool ALLOWED, int VAR, int RB>
int launch_tiles(const T *VG, const T *VH, const geom &q, long long first, long long count,
                 rec *recs) {
    mss2d_tiles<T, ALLOWED, VAR, RB><<<(unsigned)count, THREADS>>>(VG, VH, q, first, recs);
    MU_LAUNCHED();
    return 0;
}

/* A block of the row-prefix table on the device: int64, and int32 where B allows. */
struct slot {
    long long *V64;
    int *V32;
    int64_t lo, w, cap; /* cap: the widest block the buffers take */
};

} // namespace

struct mu_gpu_mss2d {
    int64_t rows, cols, tside, ntiles; /* the whole-matrix interface: slot 0 */
    slot s[3];                         /* 0: own block, 1 and 2: the ring's visitors */
    int64_t B;
    int use32, variant; /* variant: VAR_* of the int32 kernel */
    rec *recs;          /* CHUNK_TILES or fewer */
    size_t recs_cap;
    rec *res; /* one per chunk of a run */
    size_t res_cap;
    mu_mss2d_sum *sums; /* the summaries of one call */
    size_t sums_cap;
    cudaStream_t copy; /* the ring's uploads, beside the kernels (non-blocking) */
    cudaEvent_t copied;
};

extern "C" void mu_gpu_mss2d_destroy(mu_gpu_mss2d *c) {
    if (!c) return;
    int rc = 0;
    if (c->copy) {
        MU_CUDA_KEEP(cudaStreamSynchronize(c->copy));
        MU_CUDA_KEEP(cudaStreamDestroy(c->copy));
    }
    if (c->copied) MU_CUDA_KEEP(cudaEventDestroy(c->copied));
    for (int k = 0; k < 3; k++) {
        if (c->s[k].V64) MU_CUDA_KEEP(cudaFree(c->s[k].V64));
        if (c->s[k].V32) MU_CUDA_KEEP(cudaFree(c->s[k].V32));
    }
    if (c->recs) MU_CUDA_KEEP(cudaFree(c->recs));
    if (c->res) MU_CUDA_KEEP(cudaFree(c->res));
    if (c->sums) MU_CUDA_KEEP(cudaFree(c->sums));
    (void)rc;
    free(c);
}

namespace {

/* A context for an oriented rows x cols matrix (or blocks of up to cols
 * columns), before its prefix sums. */
int ctx_new(int64_t rows, int64_t cols, mu_gpu_mss2d **out) {
    if (rows < 1 || cols < 1)
        return mu_gpu_fail("mu_gpu_mss2d_create: a %lld x %lld matrix, expected at least 1 x 1",
                           (long long)rows, (long long)cols);
    if (rows > (INT64_MAX / 8) / (cols + 1))
        return mu_gpu_fail("mu_gpu_mss2d_create: %lld x %lld is too large", (long long)rows,
                           (long long)cols);
    mu_gpu_mss2d *c = (mu_gpu_mss2d *)calloc(1, sizeof *c);
    if (!c) return mu_gpu_fail("mu_gpu_mss2d_create: out of host memory");
    c->rows = rows;
    c->cols = cols;
    c->tside = (cols + TILE - 1) / TILE;
    c->ntiles = mu_mss_tile_count(cols);
    c->s[0].w = c->s[1].w = cols;
    const char *ekern = mu_knob("MUTIRAO_MSS2D_KERNEL");
    c->variant = !ekern                    ? VAR_AUTO
                 : !strcmp(ekern, "pairs") ? VAR_PAIRS
                 : !strcmp(ekern, "rows")  ? VAR_ROWS
                                           : VAR_AUTO;
    *out = c;
    return 0;
}

/* Whether the int32 kernels may run (B < 2^30 and not forced off). */
int allow32(int64_t B) {
    const char *e64 = mu_knob("MUTIRAO_MSS2D_INT64");
    return B < (1LL << 30) && !(e64 && e64[0] == '1');
}

/* The int32 copy of slot k's int64 prefix columns (n values). */
int narrow_slot(slot &k, size_t n) {
    if (!k.V32) MU_CUDA(cudaMalloc(&k.V32, n * sizeof(int)));
    narrow_to_int32<<<4096, 256>>>(k.V64, k.V32, (long long)n);
    MU_LAUNCHED();
    return 0;
}

/* The prefix sums V of the matrix dK (on the device; freed here) and the
 * int32 bound B; c is destroyed on failure. */
int ctx_prefix(mu_gpu_mss2d *c, int *dK) {
    int rc = 0;
    long long *rowabs = nullptr, *hrow = nullptr;
    const int64_t rows = c->rows, cols = c->cols;
    const size_t nv = (size_t)rows * (size_t)(cols + 1);
    slot &s0 = c->s[0];
    s0.cap = cols;
    MU_CUDA_GOTO(cudaMalloc(&s0.V64, nv * sizeof(long long)));
    MU_CUDA_GOTO(cudaMalloc(&rowabs, (size_t)rows * sizeof(long long)));
    {
        long long blocks = (rows + 7) / 8;
        if (blocks > 65536) blocks = 65536;
        prefix_rows<<<(unsigned)blocks, 256>>>(dK, rows, cols, s0.V64, rowabs);
        MU_LAUNCHED_GOTO();
    }
    MU_CUDA_GOTO(cudaMallocHost(&hrow, (size_t)rows * sizeof(long long)));
    MU_CUDA_GOTO(
        cudaMemcpy(hrow, rowabs, (size_t)rows * sizeof(long long), cudaMemcpyDeviceToHost));
    c->B = 0;
    for (int64_t i = 0; i < rows; i++)
        if (hrow[i] > c->B) c->B = hrow[i];
    MU_CUDA_GOTO(cudaFree(dK));
    dK = nullptr;
    c->use32 = allow32(c->B);
    if (c->use32 && narrow_slot(s0, nv)) {
        rc = 1;
        goto done;
    }
    MU_CUDA_GOTO(cudaDeviceSynchronize());
done:
    if (dK) MU_CUDA_KEEP(cudaFree(dK));
    if (rowabs) MU_CUDA_KEEP(cudaFree(rowabs));
    if (hrow) MU_CUDA_KEEP(cudaFreeHost(hrow));
    if (rc) mu_gpu_mss2d_destroy(c);
    return rc;
}

/* A context whose oriented matrix fill(dK) writes into device memory dK. */
template <class Fill> int create_with(int64_t rows, int64_t cols, mu_gpu_mss2d **out, Fill fill) {
    if (!out) return mu_gpu_fail("mu_gpu_mss2d_create: ctx is NULL");
    *out = nullptr;
    mu_gpu_mss2d *c = nullptr;
    if (ctx_new(rows, cols, &c)) return 1;
    int rc = 0;
    int *dK = nullptr;
    MU_CUDA_GOTO(cudaMalloc(&dK, (size_t)rows * (size_t)cols * sizeof(int)));
    rc = fill(dK);
done:
    if (rc) {
        if (dK) MU_CUDA_KEEP(cudaFree(dK));
        mu_gpu_mss2d_destroy(c);
        return rc;
    }
    if (ctx_prefix(c, dK)) return 1;
    *out = c;
    return 0;
}

} // namespace

extern "C" int mu_gpu_mss2d_create(const int32_t *k, int64_t rows, int64_t cols,
                                   mu_gpu_mss2d **out) {
    if (!k) {
        if (out) *out = nullptr;
        return mu_gpu_fail("mu_gpu_mss2d_create: the matrix is NULL");
    }
    return create_with(rows, cols, out, [&](int *dK) {
        MU_CUDA(
            cudaMemcpy(dK, k, (size_t)rows * (size_t)cols * sizeof(int), cudaMemcpyHostToDevice));
        return 0;
    });
}

extern "C" int mu_gpu_mss2d_strip_sums(const mu_gpu_mss2d *c, int64_t g, int64_t h, int64_t *out) {
    if (!c || !out || g < 0 || h < g || h >= c->cols)
        return mu_gpu_fail("mu_gpu_mss2d_strip_sums: strip (%lld, %lld)", (long long)g,
                           (long long)h);
    const size_t pitch = (size_t)(c->cols + 1) * sizeof(long long);
    long long *lo = (long long *)malloc((size_t)c->rows * sizeof *lo);
    if (!lo) return mu_gpu_fail("mu_gpu_mss2d_strip_sums: out of host memory");
    int rc = 0;
    const long long *V = c->s[0].V64;
    /* c_i = V[i][h+1] - V[i][g]: two columns of V, one strided copy each. */
    MU_CUDA_GOTO(cudaMemcpy2D(lo, sizeof *lo, V + g, pitch, sizeof *lo, (size_t)c->rows,
                              cudaMemcpyDeviceToHost));
    MU_CUDA_GOTO(cudaMemcpy2D(out, sizeof *out, V + h + 1, pitch, sizeof *out, (size_t)c->rows,
                              cudaMemcpyDeviceToHost));
    for (int64_t i = 0; i < c->rows; i++) out[i] -= lo[i];
done:
    free(lo);
    return rc;
}

extern "C" int mu_gpu_mss2d_create_philox(mu_philox_spec spec, int64_t rows, int64_t cols,
                                          int transposed, mu_gpu_mss2d **out) {
    return create_with(rows, cols, out, [&](int *dK) {
        return mu_gpu_philox_fill(spec, 0, rows, cols, transposed, dK, nullptr);
    });
}

namespace {

int ensure_recs(mu_gpu_mss2d *c, size_t need) {
    if (need <= c->recs_cap) return 0;
    if (c->recs) MU_CUDA(cudaFree(c->recs));
    c->recs = nullptr;
    c->recs_cap = 0;
    MU_CUDA(cudaMalloc(&c->recs, need * sizeof(rec)));
    c->recs_cap = need;
    return 0;
}

/* The geometry of slots sg, sh (diag: one block). */
geom geom_of(const mu_gpu_mss2d *c, int sg, int sh, int64_t cols, int diag) {
    const slot &G = c->s[sg], &H = c->s[sh];
    geom q;
    q.rows = c->rows;
    q.cols = cols;
    q.ldG = G.w + 1;
    q.ldH = H.w + 1;
    q.wG = G.w;
    q.wH = H.w;
    q.loG = G.lo;
    q.loH = H.lo;
    q.tG = (G.w + TILE - 1) / TILE;
    q.tH = (H.w + TILE - 1) / TILE;
    q.diag = diag;
    return q;
}

long long tile_count(const geom &q) {
    return q.diag ? q.tG * (q.tG + 1) / 2 : q.tG * q.tH;
}

/* One record per tile of [first, first + n) into c->recs[0..n), n <= CHUNK_TILES. */
template <typename T>
int launch_range(mu_gpu_mss2d *c, const geom &q, const T *VG, const T *VH, long long first,
                 long long n, int allowed) {
    rec *r = c->recs;
    if constexpr (sizeof(T) == 8) {
        return allowed ? launch_tiles<T, true, VAR_ROWS, RB64>(VG, VH, q, first, n, r)
                       : launch_tiles<T, false, VAR_ROWS, RB64>(VG, VH, q, first, n, r);
    } else {
        int var = c->variant;
        if (var == VAR_AUTO) var = allowed ? VAR_ROWS : VAR_PAIRS;
        switch (var) {
        case VAR_ROWS:
            return allowed ? launch_tiles<T, true, VAR_ROWS, RB32>(VG, VH, q, first, n, r)
                           : launch_tiles<T, false, VAR_ROWS, RB32>(VG, VH, q, first, n, r);
        default:
            return allowed ? launch_tiles<T, true, VAR_PAIRS, RB32>(VG, VH, q, first, n, r)
                           : launch_tiles<T, false, VAR_PAIRS, RB32>(VG, VH, q, first, n, r);
        }
    }
}

/* The best record over the tiles [first, first + count) with one kernel flavour. */
template <typename T>
int run_best(mu_gpu_mss2d *c, const geom &q, const T *VG, const T *VH, long long first,
             long long count, int allowed, rec *res_host) {
    const long long nchunks = (count + CHUNK_TILES - 1) / CHUNK_TILES;
    if ((size_t)nchunks > c->res_cap) {
        if (c->res) MU_CUDA(cudaFree(c->res));
        c->res = nullptr;
        c->res_cap = 0;
        MU_CUDA(cudaMalloc(&c->res, (size_t)nchunks * sizeof(rec)));
        c->res_cap = (size_t)nchunks;
    }
    if (ensure_recs(c, (size_t)(count < CHUNK_TILES ? count : CHUNK_TILES))) return 1;
    for (long long ch = 0; ch < nchunks; ch++) {
        const long long f = first + ch * CHUNK_TILES;
        const long long left = count - ch * CHUNK_TILES;
        const long long n = left < CHUNK_TILES ? left : CHUNK_TILES;
        if (launch_range<T>(c, q, VG, VH, f, n, allowed)) return 1;
        reduce_recs<<<1, 1024>>>(c->recs, n, c->res + ch);
        MU_LAUNCHED();
    }
    rec *h = (rec *)malloc((size_t)nchunks * sizeof(rec));
    if (!h) return mu_gpu_fail("out of host memory");
    cudaError_t e = cudaMemcpy(h, c->res, (size_t)nchunks * sizeof(rec), cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        free(h);
        return mu_gpu_cuda_failed(__FILE__, __LINE__, "cudaMemcpy", e);
    }
    rec r = {0, -1};
    for (long long ch = 0; ch < nchunks; ch++)
        if (rec_better(h[ch].val, h[ch].id, r.val, r.id)) r = h[ch];
    free(h);
    *res_host = r;
    return 0;
}

int check_tiles(long long n, int64_t tile_begin, int64_t tile_end) {
    if (tile_begin < 0 || tile_end > n || tile_begin > tile_end)
        return mu_gpu_fail("tiles [%lld, %lld) outside [0, %lld)", (long long)tile_begin,
                           (long long)tile_end, n);
    return 0;
}

/* The best of the tiles [t0, t1) of the slots' pair: int32 where proven exact. */
int pair_best(mu_gpu_mss2d *c, const geom &q, int sg, int sh, int64_t t0, int64_t t1,
              int empty_allowed, int64_t *best, int64_t *pair_id) {
    empty_allowed = empty_allowed != 0;
    *best = empty_allowed ? 0 : MU_MSS_NEG_INF;
    *pair_id = -1;
    if (t0 == t1) return 0;
    rec r = {0, -1};
    bool redo = !c->use32;
    if (c->use32) {
        if (run_best<int>(c, q, c->s[sg].V32, c->s[sh].V32, t0, t1 - t0, empty_allowed, &r))
            return 1;
        /* Exact unless a counted pair came near overflow; then redo in int64. */
        redo = r.id >= 0 && r.val > (long long)INT32_MAX - c->B;
    }
    if (redo &&
        run_best<long long>(c, q, c->s[sg].V64, c->s[sh].V64, t0, t1 - t0, empty_allowed, &r))
        return 1;
    if (r.id >= 0) {
        *best = r.val;
        *pair_id = r.id;
    }
    return 0;
}

} // namespace

extern "C" int mu_gpu_mss2d_run(mu_gpu_mss2d *c, int64_t tile_begin, int64_t tile_end,
                                int empty_allowed, int64_t *best, int64_t *pair_id) {
    if (!c || !best || !pair_id) return mu_gpu_fail("mu_gpu_mss2d_run: missing argument");
    if (check_tiles(c->ntiles, tile_begin, tile_end)) return 1;
    const geom q = geom_of(c, 0, 0, c->cols, 1);
    return pair_best(c, q, 0, 0, tile_begin, tile_end, empty_allowed, best, pair_id);
}

extern "C" int mu_gpu_mss2d_run_tiles(mu_gpu_mss2d *c, int64_t tile_begin, int64_t tile_end,
                                      int empty_allowed, int64_t *results) {
    if (!c || !results) return mu_gpu_fail("mu_gpu_mss2d_run_tiles: missing argument");
    if (check_tiles(c->ntiles, tile_begin, tile_end)) return 1;
    empty_allowed = empty_allowed != 0;
    const long long count = tile_end - tile_begin;
    if (count == 0) return 0;
    const geom q = geom_of(c, 0, 0, c->cols, 1);
    const long long step = count < CHUNK_TILES ? count : CHUNK_TILES;
    if (ensure_recs(c, (size_t)step)) return 1;
    rec *h = (rec *)malloc((size_t)step * sizeof(rec));
    if (!h) return mu_gpu_fail("out of host memory");
    int rc = 0;
    for (long long f = 0; f < count && rc == 0; f += step) {
        const long long n = count - f < step ? count - f : step;
        bool redo = !c->use32;
        if (c->use32) {
            rc =
                launch_range<int>(c, q, c->s[0].V32, c->s[0].V32, tile_begin + f, n, empty_allowed);
            if (rc) break;
            cudaError_t e = cudaMemcpy(h, c->recs, (size_t)n * sizeof(rec), cudaMemcpyDeviceToHost);
            if (e != cudaSuccess) {
                rc = mu_gpu_cuda_failed(__FILE__, __LINE__, "cudaMemcpy", e);
                break;
            }
            for (long long t = 0; t < n && !redo; t++)
                redo = h[t].id >= 0 && h[t].val > (long long)INT32_MAX - c->B;
        }
        if (redo) {
            rc = launch_range<long long>(c, q, c->s[0].V64, c->s[0].V64, tile_begin + f, n,
                                         empty_allowed);
            if (rc) break;
            cudaError_t e = cudaMemcpy(h, c->recs, (size_t)n * sizeof(rec), cudaMemcpyDeviceToHost);
            if (e != cudaSuccess) {
                rc = mu_gpu_cuda_failed(__FILE__, __LINE__, "cudaMemcpy", e);
                break;
            }
        }
        for (long long t = 0; t < n; t++) {
            const bool have = h[t].id >= 0;
            results[2 * (f + t)] = have ? h[t].val : (empty_allowed ? 0 : MU_MSS_NEG_INF);
            results[2 * (f + t) + 1] = have ? h[t].id : -1;
        }
    }
    free(h);
    return rc;
}

/* ---- the distributed path: blocks of the row-prefix table ---- */

namespace {

constexpr int NSLOTS = 3;

/* Slot k's buffers (cap + 1 columns), once. */
int slot_alloc(mu_gpu_mss2d *c, int k) {
    slot &s = c->s[k];
    if (!s.V64)
        MU_CUDA(cudaMalloc(&s.V64, (size_t)c->rows * (size_t)(s.cap + 1) * sizeof(long long)));
    return 0;
}

/* The int32 copy of slot k where B allows, on stream st. */
int slot_narrow(mu_gpu_mss2d *c, int k, cudaStream_t st) {
    slot &s = c->s[k];
    if (!c->use32) return 0;
    if (!s.V32) MU_CUDA(cudaMalloc(&s.V32, (size_t)c->rows * (size_t)(s.cap + 1) * sizeof(int)));
    narrow_to_int32<<<4096, 256, 0, st>>>(s.V64, s.V32, (long long)c->rows * (s.w + 1));
    MU_LAUNCHED();
    return 0;
}

void take_bound(mu_gpu_mss2d *c, int64_t B) {
    if (B > c->B) c->B = B;
    c->use32 = c->use32 && allow32(c->B);
}

int slot_ok(const mu_gpu_mss2d *c, int k) {
    return k >= 0 && k < NSLOTS && c->s[k].V64 && c->s[k].w >= 1;
}

/* Value (i, j) of a block made on the device: Philox value first + i si + j sj
 * (core/philox_value.h, the host generator's definition), or of host values
 * uploaded in the block's segment order. */
struct philox_src {
    mu_philox_spec s;
    long long first, si, sj;
    __device__ __forceinline__ long long operator()(long long i, long long j) const {
        return mu_philox_value(s, first + i * si + j * sj);
    }
};
struct array_src {
    const int *k;
    long long si, sj;
    __device__ __forceinline__ long long operator()(long long i, long long j) const {
        return k[i * si + j * sj];
    }
};

/* One warp per row i < rows: V[i][0] = 0, V[i][j + 1] = V[i][j] + x(i, j)
 * (row stride w + 1), tot[i] the row's total, rowabs[i] its absolute sum.
 * Integer sums: the same bits as the host's sequential row pass. */
template <class Src>
__global__ void block_prefix(Src x, long long rows, long long w, long long *__restrict__ V,
                             long long *__restrict__ tot, long long *__restrict__ rowabs) {
    const int lane = threadIdx.x & 31;
    const long long nw = (long long)gridDim.x * (blockDim.x / 32);
    for (long long i = (long long)blockIdx.x * (blockDim.x / 32) + (threadIdx.x >> 5); i < rows;
         i += nw) {
        long long *v = V + i * (w + 1);
        if (lane == 0) v[0] = 0;
        long long carry = 0, absacc = 0;
        for (long long j0 = 0; j0 < w; j0 += 32) {
            const long long j = j0 + lane;
            long long y = j < w ? x(i, j) : 0;
            absacc += y < 0 ? -y : y;
#pragma unroll
            for (int o = 1; o < 32; o <<= 1) {
                const long long t = __shfl_up_sync(FULL, y, o);
                if (lane >= o) y += t;
            }
            if (j < w) v[j + 1] = carry + y;
            carry += __shfl_sync(FULL, y, 31);
        }
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) absacc += __shfl_down_sync(FULL, absacc, o);
        if (lane == 0) {
            tot[i] = carry;
            rowabs[i] = absacc;
        }
    }
}

/* V[i][*] += off[i] over rows x ld values. */
__global__ void add_offsets(long long *__restrict__ V, long long rows, long long ld,
                            const long long *__restrict__ off) {
    const long long n = rows * ld, stride = (long long)gridDim.x * blockDim.x;
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < n; t += stride)
        V[t] += off[t / ld];
}

/* Slot 0 built from x: prefix columns lo .. lo + w (local sums), the rows'
 * totals and absolute sums into host tot, abs. */
template <class Src>
int make_block(mu_gpu_mss2d *c, Src x, int64_t lo, int64_t w, int64_t *tot, int64_t *abs) {
    slot &s = c->s[0];
    const int64_t rows = c->rows;
    long long *d = nullptr;
    int rc = 0;
    MU_CUDA_GOTO(cudaMalloc(&d, 2 * (size_t)rows * sizeof(long long)));
    {
        long long blocks = (rows + 7) / 8; /* 8 warps a block, a warp a row */
        if (blocks > 65536) blocks = 65536;
        block_prefix<Src><<<(unsigned)blocks, 256>>>(x, rows, w, s.V64, d, d + rows);
        MU_LAUNCHED_GOTO();
    }
    MU_CUDA_GOTO(cudaMemcpy(tot, d, (size_t)rows * sizeof *tot, cudaMemcpyDeviceToHost));
    MU_CUDA_GOTO(cudaMemcpy(abs, d + rows, (size_t)rows * sizeof *abs, cudaMemcpyDeviceToHost));
    s.lo = lo;
    s.w = w;
done:
    if (d) MU_CUDA_KEEP(cudaFree(d));
    return rc;
}

int make_args(mu_gpu_mss2d *c, int64_t w, const int64_t *tot, const int64_t *abs, const char *who) {
    if (!c || !tot || !abs || w < 1 || w > c->s[0].cap)
        return mu_gpu_fail("%s: a block of %lld columns (at most %lld)", who, (long long)w,
                           c ? (long long)c->s[0].cap : 0LL);
    return 0;
}

} // namespace

extern "C" int mu_gpu_mss2d_open(int64_t rows, int64_t wmax, mu_gpu_mss2d **out) {
    if (!out) return mu_gpu_fail("mu_gpu_mss2d_open: ctx is NULL");
    *out = nullptr;
    mu_gpu_mss2d *c = nullptr;
    if (ctx_new(rows, wmax, &c)) return 1;
    int rc = 0;
    for (int k = 0; k < NSLOTS; k++) {
        c->s[k].cap = wmax;
        c->s[k].w = 0;
    }
    c->use32 = 1; /* until a block's B says otherwise */
    if (slot_alloc(c, 0)) {
        rc = 1;
        goto done;
    }
    MU_CUDA_GOTO(cudaStreamCreateWithFlags(&c->copy, cudaStreamNonBlocking));
    MU_CUDA_GOTO(cudaEventCreateWithFlags(&c->copied, cudaEventDisableTiming));
done:
    if (rc) {
        mu_gpu_mss2d_destroy(c);
        return rc;
    }
    *out = c;
    return 0;
}

extern "C" int mu_gpu_mss2d_reserve(mu_gpu_mss2d *c, int nslots) {
    if (!c || nslots < 1 || nslots > NSLOTS)
        return mu_gpu_fail("mu_gpu_mss2d_reserve: %d slots", nslots);
    for (int k = 0; k < nslots; k++)
        if (slot_alloc(c, k)) return 1;
    return 0;
}

extern "C" int mu_gpu_mss2d_load(mu_gpu_mss2d *c, int k, const int64_t *V, int64_t lo, int64_t w,
                                 int64_t B) {
    if (!c || !V || k < 0 || k >= NSLOTS || w < 1 || w > c->s[k].cap)
        return mu_gpu_fail("mu_gpu_mss2d_load: slot %d, a block of %lld columns", k, (long long)w);
    if (slot_alloc(c, k)) return 1;
    slot &s = c->s[k];
    const size_t nv = (size_t)c->rows * (size_t)(w + 1);
    MU_CUDA(cudaMemcpy(s.V64, V, nv * sizeof(long long), cudaMemcpyHostToDevice));
    s.lo = lo;
    s.w = w;
    take_bound(c, B);
    return slot_narrow(c, k, 0);
}

extern "C" int mu_gpu_mss2d_make_philox(mu_gpu_mss2d *c, mu_philox_spec spec, int64_t first,
                                        int64_t si, int64_t sj, int64_t lo, int64_t w, int64_t *tot,
                                        int64_t *abs) {
    if (make_args(c, w, tot, abs, "mu_gpu_mss2d_make_philox")) return 1;
    if (first < 0 || si < 0 || sj < 0)
        return mu_gpu_fail("mu_gpu_mss2d_make_philox: value %lld + i %lld + j %lld",
                           (long long)first, (long long)si, (long long)sj);
    return make_block(c, philox_src{spec, first, si, sj}, lo, w, tot, abs);
}

extern "C" int mu_gpu_mss2d_make_values(mu_gpu_mss2d *c, const int32_t *seg, int transposed,
                                        int64_t lo, int64_t w, int64_t *tot, int64_t *abs) {
    if (make_args(c, w, tot, abs, "mu_gpu_mss2d_make_values")) return 1;
    if (!seg) return mu_gpu_fail("mu_gpu_mss2d_make_values: no values");
    const int64_t rows = c->rows;
    const size_t n = (size_t)rows * (size_t)w;
    int *dk = nullptr;
    int rc = 0;
    MU_CUDA_GOTO(cudaMalloc(&dk, n * sizeof(int)));
    MU_CUDA_GOTO(cudaMemcpy(dk, seg, n * sizeof(int), cudaMemcpyHostToDevice));
    /* Segment order: rows of w values, or transposed columns of rows values. */
    rc = make_block(c, array_src{dk, transposed ? 1 : w, transposed ? rows : 1}, lo, w, tot, abs);
done:
    if (dk) MU_CUDA_KEEP(cudaFree(dk));
    return rc;
}

extern "C" int mu_gpu_mss2d_finish(mu_gpu_mss2d *c, const int64_t *off, int64_t B) {
    if (!c || c->s[0].w < 1) return mu_gpu_fail("mu_gpu_mss2d_finish: no block made");
    slot &s = c->s[0];
    const long long ld = s.w + 1;
    long long *doff = nullptr;
    int rc = 0;
    if (off) {
        MU_CUDA_GOTO(cudaMalloc(&doff, (size_t)c->rows * sizeof(long long)));
        MU_CUDA_GOTO(
            cudaMemcpy(doff, off, (size_t)c->rows * sizeof(long long), cudaMemcpyHostToDevice));
        long long blocks = (c->rows * ld + 255) / 256;
        if (blocks > 132 * 32) blocks = 132 * 32;
        add_offsets<<<(unsigned)blocks, 256>>>(s.V64, c->rows, ld, doff);
        MU_LAUNCHED_GOTO();
    }
    take_bound(c, B);
    if (slot_narrow(c, 0, 0)) {
        rc = 1;
        goto done;
    }
    MU_CUDA_GOTO(cudaDeviceSynchronize());
done:
    if (doff) MU_CUDA_KEEP(cudaFree(doff));
    return rc;
}

extern "C" int mu_gpu_mss2d_fetch(const mu_gpu_mss2d *c, int k, int64_t *V) {
    if (!c || !V || !slot_ok(c, k)) return mu_gpu_fail("mu_gpu_mss2d_fetch: slot %d", k);
    const size_t nv = (size_t)c->rows * (size_t)(c->s[k].w + 1);
    MU_CUDA(cudaMemcpy(V, c->s[k].V64, nv * sizeof(long long), cudaMemcpyDeviceToHost));
    return 0;
}

extern "C" int mu_gpu_mss2d_column(const mu_gpu_mss2d *c, int k, int64_t j, int64_t *out) {
    if (!c || !out || !slot_ok(c, k) || j < 0 || j > c->s[k].w)
        return mu_gpu_fail("mu_gpu_mss2d_column: slot %d, column %lld", k, (long long)j);
    const slot &s = c->s[k];
    const size_t pitch = (size_t)(s.w + 1) * sizeof(long long);
    MU_CUDA(cudaMemcpy2D(out, sizeof *out, s.V64 + j, pitch, sizeof *out, (size_t)c->rows,
                         cudaMemcpyDeviceToHost));
    return 0;
}

extern "C" int mu_gpu_mss2d_upload(mu_gpu_mss2d *c, int k, const int64_t *V, int64_t lo,
                                   int64_t w) {
    if (!c || !V || k < 1 || k >= NSLOTS || w < 1 || w > c->s[k].cap)
        return mu_gpu_fail("mu_gpu_mss2d_upload: slot %d, a block of %lld columns", k,
                           (long long)w);
    if (slot_alloc(c, k)) return 1;
    slot &s = c->s[k];
    const size_t nv = (size_t)c->rows * (size_t)(w + 1);
    MU_CUDA(cudaMemcpyAsync(s.V64, V, nv * sizeof(long long), cudaMemcpyHostToDevice, c->copy));
    s.lo = lo;
    s.w = w;
    if (slot_narrow(c, k, c->copy)) return 1;
    MU_CUDA(cudaEventRecord(c->copied, c->copy));
    return 0;
}

extern "C" int mu_gpu_mss2d_upload_wait(mu_gpu_mss2d *c) {
    if (!c) return mu_gpu_fail("mu_gpu_mss2d_upload_wait: ctx is NULL");
    MU_CUDA(cudaEventSynchronize(c->copied));
    return 0;
}

extern "C" int mu_gpu_mss2d_block_best(mu_gpu_mss2d *c, int sg, int sh, int64_t cols, int diag,
                                       int64_t t0, int64_t t1, int empty_allowed, int64_t *best,
                                       int64_t *pair_id) {
    if (!c || !best || !pair_id || !slot_ok(c, sg) || !slot_ok(c, sh))
        return mu_gpu_fail("mu_gpu_mss2d_block_best: slots %d, %d", sg, sh);
    const geom q = geom_of(c, sg, sh, cols, diag != 0);
    if (check_tiles(tile_count(q), t0, t1)) return 1;
    return pair_best(c, q, sg, sh, t0, t1, empty_allowed, best, pair_id);
}

extern "C" int mu_gpu_mss2d_block_sums(mu_gpu_mss2d *c, int sg, int sh, int diag, int64_t t0,
                                       int64_t t1, int empty_allowed, mu_mss2d_sum *out) {
    if (!c || !out || !slot_ok(c, sg) || !slot_ok(c, sh))
        return mu_gpu_fail("mu_gpu_mss2d_block_sums: slots %d, %d", sg, sh);
    const geom q = geom_of(c, sg, sh, 0, diag != 0);
    if (check_tiles(tile_count(q), t0, t1)) return 1;
    const long long n = t1 - t0;
    if (n == 0) return 0;
    const size_t per = (size_t)TILE * TILE, need = (size_t)n * per;
    if (need > c->sums_cap) {
        if (c->sums) MU_CUDA(cudaFree(c->sums));
        c->sums = nullptr;
        c->sums_cap = 0;
        MU_CUDA(cudaMalloc(&c->sums, need * sizeof(mu_mss2d_sum)));
        c->sums_cap = need;
    }
    for (long long f = 0; f < n; f += CHUNK_TILES) {
        const long long m = n - f < CHUNK_TILES ? n - f : CHUNK_TILES;
        if (empty_allowed)
            mss2d_sums<true><<<(unsigned)m, THREADS>>>(c->s[sg].V64, c->s[sh].V64, q, t0 + f,
                                                       c->sums + (size_t)f * per);
        else
            mss2d_sums<false><<<(unsigned)m, THREADS>>>(c->s[sg].V64, c->s[sh].V64, q, t0 + f,
                                                        c->sums + (size_t)f * per);
        MU_LAUNCHED();
    }
    MU_CUDA(cudaMemcpy(out, c->sums, need * sizeof(mu_mss2d_sum), cudaMemcpyDeviceToHost));
    return 0;
}
