/* 1-D maximum subarray on the GPU: one pass over the data, bandwidth bound.
 *
 * Layout of the work (this project's design):
 *  - the data is cut into pieces of 32 elements: a body of whole, 16-byte
 *    aligned pieces, plus the few elements before it (when the pointer is not
 *    16-byte aligned) and after it, which the last block scans;
 *  - each warp owns a contiguous range of pieces and walks it in tiles; in a
 *    tile each lane owns up to `rounds` consecutive pieces, one per round, so a
 *    lane's segment is contiguous and the lanes' segments are in lane order;
 *  - a round is loaded with coalesced 16-byte loads (8 lanes per 128-byte
 *    piece) one round ahead, and transposed through shared memory (rows padded
 *    by 16 bytes: no bank conflicts) so each lane gets its own piece;
 *  - a lane scans its piece and folds it into its running state (prefix-min
 *    form of Kadane: the best subarray ending at j starts at the latest minimum
 *    of the prefix sums before it); at the end of a tile the lanes' summaries
 *    are combined in lane order by warp shuffles (left before right: the
 *    combine is not commutative), and lane 0 adds the tile to the warp's total;
 *  - the block combines its warps in order (shuffle tree in warp 0) and writes
 *    its summary; the last block to finish (a fenced atomic counter) combines
 *    the blocks in order with the head and tail elements: one launch per call.
 *
 * Bandwidth-bound: measured near the device-to-device copy's bandwidth (bytes
 * read / t against cudaMemcpy's bytes read + written; perf/RESULTS.md).
 *
 * Fast path: when every value of a round lies in [-32768, 32767], a piece is
 * scanned in int32 with each index packed into the low bits of its key:
 *   min-prefix key  P[k]*1024 - k            (smaller P, then later k)
 *   prefix key      P[j+1]*1024 + (31-j)*32  (larger P, then earlier j)
 *   best key        (P[j+1]-P[k])*1024 + (31-j)*32 + k
 * |P| <= 32 * 32768 = 2^20, so every key fits int32 exactly; max/min of keys
 * applies the tie rule of maxsub_monoid.h. Other rounds take the int64 path.
 *
 * Tuning, for benchmarks only: MUTIRAO_MSS1D_ROUNDS (pieces per lane per tile,
 * default 16) and MUTIRAO_MSS1D_FAST=0 (int64 path everywhere). */
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cuda_runtime.h>

#include "gpu/maxsub_gpu.h"
#include "gpu/pipeline.h"
#include "gpu/check.h"
#include "core/knobs.h"

namespace {

constexpr int THREADS = 256;
constexpr int WARPS = THREADS / 32;
constexpr int ROW = 9; /* int4 per shared-memory row: 8 of data + 1 of padding */
constexpr unsigned FULL = 0xffffffffu;

/* Unrolling in the helpers that also compile for the host (a host compiler warns on the pragma). */
#ifdef __CUDA_ARCH__
#define MU_UNROLL _Pragma("unroll")
#else
#define MU_UNROLL
#endif

/* A lane's running state over its segment; positions are relative to the segment. */
struct lane_state {
    long long S;    /* sum so far */
    long long pre;  /* best prefix sum; pe its end (-1: empty, allowed mode) */
    long long mn;   /* minimum prefix sum P[k] over the starts k seen; mk the latest k */
    long long best; /* best subarray; bs, be its start and end (-1: empty) */
    int pe, mk, bs, be;
};

template <bool ALLOWED> MU_HD void state_begin(lane_state &st) {
    st.S = 0;
    st.pre = ALLOWED ? 0 : MU_MSS_NEG_INF;
    st.pe = -1;
    st.mn = 0;
    st.mk = 0;
    st.best = ALLOWED ? 0 : MU_MSS_NEG_INF;
    st.bs = st.be = -1;
}

/* One value at position pos, int64 (the general path). */
template <bool ALLOWED> MU_HD void state_push(lane_state &st, long long x, int pos) {
    if (st.S <= st.mn) { /* a new (latest) minimum of the prefix sums: start here */
        st.mn = st.S;
        st.mk = pos;
    }
    st.S += x;
    long long d = st.S - st.mn; /* best subarray ending at pos */
    if (d > st.best) {          /* strict: an earlier end wins ties */
        st.best = d;
        st.bs = st.mk;
        st.be = pos;
    }
    if (st.S > st.pre) {
        st.pre = st.S;
        st.pe = pos;
    }
}

template <bool ALLOWED> MU_HD void piece_slow(lane_state &st, const int4 *row, int off) {
    MU_UNROLL
    for (int q = 0; q < 8; q++) {
        int4 v = row[q];
        state_push<ALLOWED>(st, v.x, off + 4 * q + 0);
        state_push<ALLOWED>(st, v.y, off + 4 * q + 1);
        state_push<ALLOWED>(st, v.z, off + 4 * q + 2);
        state_push<ALLOWED>(st, v.w, off + 4 * q + 3);
    }
}

/* Candidate order: larger value, then smaller end, then larger start. */
MU_HD bool beats(long long va, int sa, int ea, long long vb, int sb, int eb) {
    if (va != vb) return va > vb;
    if (ea != eb) return ea < eb;
    return sa > sb;
}

template <bool ALLOWED> MU_HD void fast_step(int x, int j, int &ss, int &kmin, int &bk, int &pk) {
    if (j > 0) kmin = __viaddmin_s32(ss, -j, kmin);    /* min(kmin, P[j]*1024 - j) */
    ss = (int)((unsigned)ss + ((unsigned)x << 10));    /* P[j+1]*1024 */
    bk = __viaddmax_s32(ss - kmin, (31 - j) * 32, bk); /* best key */
    pk = __viaddmax_s32(ss, (31 - j) * 32, pk);        /* prefix key */
}

template <bool ALLOWED> MU_HD void piece_fast(lane_state &st, const int4 *row, int off) {
    int ss = 0, kmin = 0; /* k = 0: P[0] = 0 */
    int bk = ALLOWED ? 1023 : INT_MIN, pk = ALLOWED ? 1023 : INT_MIN;
    MU_UNROLL
    for (int q = 0; q < 8; q++) {
        int4 v = row[q];
        fast_step<ALLOWED>(v.x, 4 * q + 0, ss, kmin, bk, pk);
        fast_step<ALLOWED>(v.y, 4 * q + 1, ss, kmin, bk, pk);
        fast_step<ALLOWED>(v.z, 4 * q + 2, ss, kmin, bk, pk);
        fast_step<ALLOWED>(v.w, 4 * q + 3, ss, kmin, bk, pk);
    }
    /* Decode (arithmetic shifts: the low bits of each key are >= 0). */
    const long long Sp = ss >> 10;
    const int mkp = (-kmin) & 1023;
    const long long mnp = (kmin + mkp) >> 10;
    const bool pre_ok = !ALLOWED || pk != 1023;
    const bool best_ok = !ALLOWED || bk != 1023;

    /* Best candidate ending in this piece: either starting before it (cross:
     * the lane's minimum prefix so far, up to the piece's best prefix) or inside. */
    bool have = false;
    long long cv = 0;
    int cs = 0, ce = 0;
    if (pre_ok) {
        const long long prep = pk >> 10;
        const int pep = 31 - ((pk >> 5) & 31);
        cv = st.S + prep - st.mn;
        cs = st.mk;
        ce = off + pep;
        have = !ALLOWED || cv > 0;
        if (st.S + prep > st.pre) {
            st.pre = st.S + prep;
            st.pe = off + pep;
        }
    }
    if (best_ok) {
        const long long bv = bk >> 10;
        const int be = off + 31 - ((bk >> 5) & 31);
        const int bs = off + (bk & 31);
        if (!have || beats(bv, bs, be, cv, cs, ce)) {
            cv = bv;
            cs = bs;
            ce = be;
            have = true;
        }
    }
    /* Every candidate here ends after the current best: it must be strictly larger. */
    if (have && cv > st.best) {
        st.best = cv;
        st.bs = cs;
        st.be = ce;
    }
    if (st.S + mnp <= st.mn) {
        st.mn = st.S + mnp;
        st.mk = off + mkp;
    }
    st.S += Sp;
}

template <bool ALLOWED>
MU_HD mu_mss_summary state_summary(const lane_state &st, long long lo, long long len) {
    if (len == 0) return mu_mss_identity(lo);
    mu_mss_summary s;
    s.lo = lo;
    s.hi = lo + len;
    s.sum = st.S;
    if (st.pe >= 0) {
        s.pre = st.pre;
        s.pre_end = lo + st.pe;
    } else {
        s.pre = 0;
        s.pre_end = lo - 1;
    }
    const long long v = st.S - st.mn;
    if (ALLOWED && v <= 0) {
        s.suf = 0;
        s.suf_start = s.hi;
    } else {
        s.suf = v;
        s.suf_start = lo + st.mk;
    }
    if (st.be >= 0) {
        s.best = st.best;
        s.best_start = lo + st.bs;
        s.best_end = lo + st.be;
    } else {
        s.best = 0;
        s.best_start = s.best_end = -1;
    }
    return s;
}

__device__ __forceinline__ mu_mss_summary shfl_down(const mu_mss_summary &s, int off) {
    mu_mss_summary r;
    r.lo = __shfl_down_sync(FULL, s.lo, off);
    r.hi = __shfl_down_sync(FULL, s.hi, off);
    r.sum = __shfl_down_sync(FULL, s.sum, off);
    r.pre = __shfl_down_sync(FULL, s.pre, off);
    r.pre_end = __shfl_down_sync(FULL, s.pre_end, off);
    r.suf = __shfl_down_sync(FULL, s.suf, off);
    r.suf_start = __shfl_down_sync(FULL, s.suf_start, off);
    r.best = __shfl_down_sync(FULL, s.best, off);
    r.best_start = __shfl_down_sync(FULL, s.best_start, off);
    r.best_end = __shfl_down_sync(FULL, s.best_end, off);
    return r;
}

/* Ordered combine over lanes [0, LANES): lane 0 gets lane 0 (+) lane 1 (+) ... All 32
 * lanes take part; lanes other than 0 end with partial results that nobody reads. */
template <bool ALLOWED, int LANES = 32>
__device__ __forceinline__ mu_mss_summary warp_combine(mu_mss_summary s) {
#pragma unroll
    for (int off = 1; off < LANES; off <<= 1) {
        mu_mss_summary r = shfl_down(s, off);
        s = mu_mss_combine(s, r, ALLOWED);
    }
    return s;
}

/* A summary another block wrote in this launch: read through L2 (after the fence). */
__device__ __forceinline__ mu_mss_summary load_cg(const mu_mss_summary *p) {
    mu_mss_summary s;
    s.lo = __ldcg((const long long *)&p->lo);
    s.hi = __ldcg((const long long *)&p->hi);
    s.sum = __ldcg((const long long *)&p->sum);
    s.pre = __ldcg((const long long *)&p->pre);
    s.pre_end = __ldcg((const long long *)&p->pre_end);
    s.suf = __ldcg((const long long *)&p->suf);
    s.suf_start = __ldcg((const long long *)&p->suf_start);
    s.best = __ldcg((const long long *)&p->best);
    s.best_start = __ldcg((const long long *)&p->best_start);
    s.best_end = __ldcg((const long long *)&p->best_end);
    return s;
}

/* Summary of dev[i0, i1) (a few elements: the head before the aligned body, the tail). */
template <bool ALLOWED>
__device__ mu_mss_summary scan_few(const int *dev, long long i0, long long i1, long long base) {
    if (i0 >= i1) return mu_mss_identity(base + i0);
    mu_mss_scan st;
    mu_mss_scan_begin(&st, base + i0, ALLOWED);
    for (long long i = i0; i < i1; i++) mu_mss_scan_push(&st, dev[i], ALLOWED);
    return mu_mss_scan_end(&st, ALLOWED);
}

/* Where round (tile t, round u) of a warp lies: the tile's first piece, its size
 * in pieces and the pieces per lane. */
struct tile_geo {
    long long p0;
    int size, per;
};

MU_HD tile_geo tile_at(long long wp0, long long wp1, long long t, int rounds) {
    tile_geo g;
    g.p0 = wp0 + t * 32 * rounds;
    long long left = wp1 - g.p0;
    g.size = (int)(left < 32LL * rounds ? left : 32LL * rounds);
    g.per = (g.size + 31) / 32;
    return g;
}

/* The whole reduction in one launch: blocks write their summaries; the last block
 * to finish (counter `done`, reset to 0 on the way out) combines them in block
 * order with the head dev[0, head) and the tail after the last whole piece. */
template <bool ALLOWED, bool FASTOK>
__global__ void __launch_bounds__(THREADS, 2)
    mss1d_body(const int *__restrict__ dev, long long n, long long head, long long base, int rounds,
               mu_mss_summary *__restrict__ blk_out, unsigned *__restrict__ done,
               mu_mss_summary *__restrict__ out) {
    __shared__ int4 stage[WARPS][32 * ROW];
    __shared__ mu_mss_summary wsum[WARPS];
    __shared__ mu_mss_summary ends[2]; /* head and tail, last block */
    __shared__ int is_last;
    const int4 *__restrict__ body = (const int4 *)(dev + head); /* 16-byte aligned */
    const long long np = (n - head) / 32, gbase = base + head;
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    const int rsub = lane >> 3, csub = lane & 7;
    const long long nw = (long long)gridDim.x * WARPS;
    const long long gw = (long long)blockIdx.x * WARPS + wid;
    /* This warp's contiguous range of pieces, balanced to one piece. */
    const long long wp0 = gw * np / nw, wp1 = (gw + 1) * np / nw;
    int4 *my = stage[wid];
    if (lane == 0) wsum[wid] = mu_mss_identity(gbase + wp0 * 32);

    int4 cur[8];
    long long t = 0;
    int u = 0;
    tile_geo g = tile_at(wp0, wp1, 0, rounds);
    const bool any = wp1 > wp0;
    if (any) {
#pragma unroll
        for (int q = 0; q < 8; q++) {
            int o = q * 4 + rsub;
            bool ok = o * g.per + u < g.size;
            cur[q] = ok ? __ldcs(body + (g.p0 + o * g.per + u) * 8 + csub) : make_int4(0, 0, 0, 0);
        }
    }
    lane_state st;
    state_begin<ALLOWED>(st);
    while (any) {
        bool fast = false;
        if (FASTOK) {
            unsigned bad = 0;
#pragma unroll
            for (int q = 0; q < 8; q++)
                bad |= ((unsigned)cur[q].x + 32768u) | ((unsigned)cur[q].y + 32768u) |
                       ((unsigned)cur[q].z + 32768u) | ((unsigned)cur[q].w + 32768u);
            fast = __all_sync(FULL, (bad >> 16) == 0);
        }
#pragma unroll
        for (int q = 0; q < 8; q++) my[(q * 4 + rsub) * ROW + csub] = cur[q];

        /* Next round (maybe of the next tile): issue its loads now. */
        long long nt = t;
        int nu = u + 1;
        if (nu == g.per) {
            nt = t + 1;
            nu = 0;
        }
        tile_geo ng = nt == t ? g : tile_at(wp0, wp1, nt, rounds);
        const bool more = ng.p0 < wp1;
        if (more) {
#pragma unroll
            for (int q = 0; q < 8; q++) {
                int o = q * 4 + rsub;
                bool ok = o * ng.per + nu < ng.size;
                cur[q] = ok ? __ldcs(body + (ng.p0 + o * ng.per + nu) * 8 + csub)
                            : make_int4(0, 0, 0, 0);
            }
        }
        __syncwarp();
        if (lane * g.per + u < g.size) {
            const int4 *row = my + lane * ROW;
            if (fast)
                piece_fast<ALLOWED>(st, row, u * 32);
            else
                piece_slow<ALLOWED>(st, row, u * 32);
        }
        __syncwarp();

        if (nu == 0) { /* the tile is complete: combine the lanes in order */
            int mine = g.size - lane * g.per;
            mine = mine < 0 ? 0 : (mine > g.per ? g.per : mine);
            mu_mss_summary s = state_summary<ALLOWED>(
                st, gbase + (g.p0 + (long long)lane * g.per) * 32, 32LL * mine);
            s = warp_combine<ALLOWED>(s);
            if (lane == 0) wsum[wid] = mu_mss_combine(wsum[wid], s, ALLOWED);
            state_begin<ALLOWED>(st);
        }
        if (!more) break;
        t = nt;
        u = nu;
        g = ng;
    }
    __syncthreads();
    if (wid == 0) {
        mu_mss_summary r =
            warp_combine<ALLOWED, WARPS>(lane < WARPS ? wsum[lane] : mu_mss_identity(0));
        if (lane == 0) {
            blk_out[blockIdx.x] = r;
            __threadfence();
            is_last = atomicAdd(done, 1u) == gridDim.x - 1;
        }
    }
    __syncthreads();
    if (!is_last) return;

    /* The last block: every block summary is written and fenced. */
    __threadfence();
    const int nblk = (int)gridDim.x;
    const int per = (nblk + THREADS - 1) / THREADS;
    const int b0 = threadIdx.x * per, b1 = b0 + per < nblk ? b0 + per : nblk;
    mu_mss_summary s = mu_mss_identity(0);
    for (int b = b0; b < b1; b++) s = mu_mss_combine(s, load_cg(blk_out + b), ALLOWED);
    s = warp_combine<ALLOWED>(s);
    if (lane == 0) wsum[wid] = s;
    if (threadIdx.x == 32) {
        ends[0] = scan_few<ALLOWED>(dev, 0, head, base);
        ends[1] = scan_few<ALLOWED>(dev, head + np * 32, n, base);
    }
    __syncthreads();
    if (wid == 0) {
        mu_mss_summary r =
            warp_combine<ALLOWED, WARPS>(lane < WARPS ? wsum[lane] : mu_mss_identity(0));
        if (lane == 0) {
            r = mu_mss_combine(ends[0], r, ALLOWED);
            *out = mu_mss_combine(r, ends[1], ALLOWED);
            *done = 0;
        }
    }
}

struct tuning {
    int rounds;
    bool fast;
};

/* Read on every call (a getenv is cheap next to a launch), so a benchmark can sweep. */
tuning get_tuning() {
    tuning tu = {mu_knob_int("MUTIRAO_MSS1D_ROUNDS", 16),
                 mu_knob_flag("MUTIRAO_MSS1D_FAST", 1) != 0};
    return tu;
}

/* The body's four forms, [ALLOWED][FASTOK]. */
using body_kernel = void (*)(const int *, long long, long long, long long, int, mu_mss_summary *,
                             unsigned *, mu_mss_summary *);
const body_kernel bodies[2][2] = {{mss1d_body<false, false>, mss1d_body<false, true>},
                                  {mss1d_body<true, false>, mss1d_body<true, true>}};

/* Most blocks of the main kernel resident at once on the current device. */
int block_cap(int *cap) {
    static int cached_dev = -1, cached_cap = 0;
    int dev;
    MU_CUDA(cudaGetDevice(&dev));
    if (dev != cached_dev) {
        int sms = 0, occ = 1 << 30;
        MU_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        for (const auto &forms : bodies)
            for (body_kernel k : forms) {
                int o = 0;
                MU_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o, k, THREADS, 0));
                if (o < occ) occ = o;
            }
        if (occ < 1) occ = 1;
        cached_cap = sms * occ;
        cached_dev = dev;
    }
    *cap = cached_cap;
    return 0;
}

/* Enqueues the summary of dev[0..n) (first global index base) into *out_dev on
 * stream; blk has room for cap block summaries; *done is 0 (and left 0). */
int mss1d_enqueue(const int32_t *dev, int64_t n, int64_t base, int allowed, mu_mss_summary *blk,
                  int cap, unsigned *done, mu_mss_summary *out_dev, cudaStream_t stream) {
    const uintptr_t a = (uintptr_t)dev;
    if (a % 4 != 0)
        return mu_gpu_fail("device array %p is not aligned to 4 bytes", (const void *)dev);
    long long head = (long long)((16 - a % 16) % 16 / 4);
    if (head > n) head = n;
    const long long np = (n - head) / 32;
    int nblk = 1;
    if (np > 0) {
        long long want = (np + WARPS * 32 - 1) / (WARPS * 32);
        nblk = (int)(want < cap ? want : cap);
    }
    const tuning tu = get_tuning();
    const int *d = (const int *)dev;
    bodies[allowed != 0][tu.fast]<<<nblk, THREADS, 0, stream>>>(d, n, head, base, tu.rounds, blk,
                                                                done, out_dev);
    MU_LAUNCHED();
    return 0;
}

mu_mss_summary empty_summary(int64_t base, int allowed) {
    mu_mss_scan st;
    mu_mss_scan_begin(&st, base, allowed);
    return mu_mss_scan_end(&st, allowed);
}

struct host_ctx {
    int allowed;
    int cap;
    mu_mss_summary *blk;  /* cap per chunk */
    mu_mss_summary *outs; /* one per chunk */
    unsigned *done;       /* one per chunk, zeroed */
};

int host_launch(const void *dev, size_t count, size_t index, int64_t offset, void *stream,
                void *ctx) {
    host_ctx *c = (host_ctx *)ctx;
    return mss1d_enqueue((const int32_t *)dev, (int64_t)count, offset, c->allowed,
                         c->blk + index * (size_t)c->cap, c->cap, c->done + index, c->outs + index,
                         (cudaStream_t)stream);
}

} // namespace

extern "C" int mu_gpu_mss1d_device(const int32_t *dev, int64_t n, int64_t base, int empty_allowed,
                                   mu_mss_summary *out, float *kernel_ms) {
    if (!out) return mu_gpu_fail("mu_gpu_mss1d_device: out is NULL");
    if (n < 0) return mu_gpu_fail("mu_gpu_mss1d_device: n = %lld", (long long)n);
    empty_allowed = empty_allowed != 0;
    if (kernel_ms) *kernel_ms = 0.0f;
    if (n == 0) {
        *out = empty_summary(base, empty_allowed);
        return 0;
    }
    if (!dev) return mu_gpu_fail("mu_gpu_mss1d_device: dev is NULL");
    int cap = 0;
    if (block_cap(&cap)) return 1;
    int rc = 0;
    mu_mss_summary *scratch = nullptr;
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    /* [result][cap block summaries][counter]; the counter starts at 0 and the kernel leaves it 0.
     */
    MU_CUDA_GOTO(cudaMalloc(&scratch, sizeof(mu_mss_summary) * ((size_t)cap + 2)));
    MU_CUDA_GOTO(cudaMemset(scratch + 1 + cap, 0, sizeof(unsigned)));
    MU_CUDA_GOTO(cudaEventCreate(&e0));
    MU_CUDA_GOTO(cudaEventCreate(&e1));
    MU_CUDA_GOTO(cudaEventRecord(e0, 0));
    if (mss1d_enqueue(dev, n, base, empty_allowed, scratch + 1, cap,
                      (unsigned *)(scratch + 1 + cap), scratch, 0)) {
        rc = 1;
        goto done;
    }
    MU_CUDA_GOTO(cudaEventRecord(e1, 0));
    MU_CUDA_GOTO(cudaEventSynchronize(e1));
    if (kernel_ms) MU_CUDA_GOTO(cudaEventElapsedTime(kernel_ms, e0, e1));
    MU_CUDA_GOTO(cudaMemcpy(out, scratch, sizeof *out, cudaMemcpyDeviceToHost));
done:
    if (e0) MU_CUDA_KEEP(cudaEventDestroy(e0));
    if (e1) MU_CUDA_KEEP(cudaEventDestroy(e1));
    if (scratch) MU_CUDA_KEEP(cudaFree(scratch));
    return rc;
}

extern "C" int mu_gpu_mss1d_host(const int32_t *host, int64_t n, int64_t base, int empty_allowed,
                                 mu_mss_summary *out) {
    if (!out) return mu_gpu_fail("mu_gpu_mss1d_host: out is NULL");
    if (n < 0) return mu_gpu_fail("mu_gpu_mss1d_host: n = %lld", (long long)n);
    empty_allowed = empty_allowed != 0;
    if (n == 0) {
        *out = empty_summary(base, empty_allowed);
        return 0;
    }
    if (!host) return mu_gpu_fail("mu_gpu_mss1d_host: host is NULL");
    const size_t chunk = (size_t)1 << 22; /* 4 Mi elements, 16 MiB per staging buffer */
    const size_t nchunks = ((size_t)n + chunk - 1) / chunk;
    int cap = 0;
    if (block_cap(&cap)) return 1;
    host_ctx c = {empty_allowed, cap, nullptr, nullptr, nullptr};
    mu_mss_summary *hs = nullptr;
    int rc = 0;
    mu_pipeline_cfg cfg = {chunk, 3};
    MU_CUDA_GOTO(cudaMalloc(&c.blk, sizeof(mu_mss_summary) * (size_t)cap * nchunks));
    MU_CUDA_GOTO(cudaMalloc(&c.outs, sizeof(mu_mss_summary) * nchunks));
    MU_CUDA_GOTO(cudaMalloc(&c.done, sizeof(unsigned) * nchunks));
    MU_CUDA_GOTO(cudaMemset(c.done, 0, sizeof(unsigned) * nchunks));
    /* The pipeline's streams are non-blocking: they do not wait for the legacy stream. */
    MU_CUDA_GOTO(cudaStreamSynchronize(0));
    if (mu_pipeline_run(host, (size_t)n, sizeof(int32_t), base, &cfg, host_launch, &c)) {
        rc = 1;
        goto done;
    }
    MU_CUDA_GOTO(cudaMallocHost(&hs, sizeof(mu_mss_summary) * nchunks));
    MU_CUDA_GOTO(cudaMemcpy(hs, c.outs, sizeof(mu_mss_summary) * nchunks, cudaMemcpyDeviceToHost));
    {
        mu_mss_summary r = hs[0];
        for (size_t i = 1; i < nchunks; i++) r = mu_mss_combine(r, hs[i], empty_allowed);
        *out = r;
    }
done:
    if (hs) MU_CUDA_KEEP(cudaFreeHost(hs));
    if (c.done) MU_CUDA_KEEP(cudaFree(c.done));
    if (c.outs) MU_CUDA_KEEP(cudaFree(c.outs));
    if (c.blk) MU_CUDA_KEEP(cudaFree(c.blk));
    return rc;
}

extern "C" int mu_gpu_mss1d_philox(mu_philox_spec spec, int64_t lo, int64_t hi, int empty_allowed,
                                   mu_mss_summary *out) {
    if (!out) return mu_gpu_fail("mu_gpu_mss1d_philox: out is NULL");
    if (hi < lo)
        return mu_gpu_fail("mu_gpu_mss1d_philox: [%lld, %lld)", (long long)lo, (long long)hi);
    empty_allowed = empty_allowed != 0;
    *out = empty_summary(lo, empty_allowed);
    if (hi == lo) return 0;
    /* Chunks of at most 2^28 values (1 GiB): generated, then reduced, in stream order. */
    const int64_t chunk = (int64_t)1 << 28, n = hi - lo;
    const int64_t len = n < chunk ? n : chunk, nchunks = (n + chunk - 1) / chunk;
    int cap = 0;
    if (block_cap(&cap)) return 1;
    int rc = 0;
    int32_t *buf = nullptr;
    mu_mss_summary *scratch = nullptr, *sums = nullptr;
    MU_CUDA_GOTO(cudaMalloc(&buf, (size_t)len * sizeof *buf));
    /* [nchunks results][cap block summaries][counter, left 0 by each reduction] */
    MU_CUDA_GOTO(cudaMalloc(&scratch, sizeof(mu_mss_summary) * ((size_t)(nchunks + cap) + 1)));
    MU_CUDA_GOTO(cudaMemset(scratch + nchunks + cap, 0, sizeof(unsigned)));
    for (int64_t c = 0; c < nchunks; c++) {
        int64_t a = lo + c * chunk, m = hi - a < chunk ? hi - a : chunk;
        if (mu_gpu_philox_fill(spec, a, 1, m, 0, buf, nullptr) ||
            mss1d_enqueue(buf, m, a, empty_allowed, scratch + nchunks, cap,
                          (unsigned *)(scratch + nchunks + cap), scratch + c, 0)) {
            rc = 1;
            goto done;
        }
    }
    sums = (mu_mss_summary *)malloc((size_t)nchunks * sizeof *sums);
    if (!sums) {
        rc = mu_gpu_fail("mu_gpu_mss1d_philox: out of host memory");
        goto done;
    }
    MU_CUDA_GOTO(cudaMemcpy(sums, scratch, (size_t)nchunks * sizeof *sums, cudaMemcpyDeviceToHost));
    *out = sums[0];
    for (int64_t c = 1; c < nchunks; c++) *out = mu_mss_combine(*out, sums[c], empty_allowed);
done:
    free(sums);
    if (buf) MU_CUDA_KEEP(cudaFree(buf));
    if (scratch) MU_CUDA_KEEP(cudaFree(scratch));
    return rc;
}
