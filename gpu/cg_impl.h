/* Internal to gpu/cg_*.cu: the exact dot-product accumulator in device code,
 * correctly rounded arithmetic (gpu/rn.h), the iterate status, and the SpMV
 * launcher that cg_spmv.cu gives cg_gpu.cu. */
#ifndef MU_GPU_CG_IMPL_H
#define MU_GPU_CG_IMPL_H
#include <cstdint>
#include <cuda_runtime.h>

#include "core/cg_stop.h"
#include "core/exactsum.h"
#include "gpu/cg_gpu.h"
#include "gpu/cg_round.h"
#include "gpu/rn.h" /* add_rn, sub_rn, mul_rn: never contracted, the CPU reference's bits */

namespace mu_cg {

constexpr int THREADS = 256;
constexpr int NWORDS = MU_XSUM_WORDS;
constexpr unsigned FULL = 0xffffffffu;
constexpr int EMPTY = -8; /* window base of an empty window: no k in 0.. is EMPTY or EMPTY + 1 */

/* The status of mu_gpu_cg_iterate on the device (see cg_gpu.cu). */
struct dev_status {
    double rz, rr, alpha, beta, tol;
    long long done, limit;
    int stop;    /* MU_GPU_CG_* (RUNNING: go on) */
    int pending; /* x += alpha p and p = z + beta p of the last iteration are still to do */
    int cur;     /* which p buffer holds p: always 0, the caller's (k_finish, cg_gpu.cu) */
    int jacobi;
    unsigned ticket[2]; /* blocks done: [0] the SpMV, [1] the update (see last_block) */
};

/* A dot-product term as the CPU forms it: (double)x * (double)y. */
template <typename T> __device__ __forceinline__ double term(T x, T y) {
    return __dmul_rn((double)x, (double)y);
}

/* ---- exact accumulation ----
 * A thread keeps a window of four words (digits base .. base + 3) in registers:
 * a term split into digits k, k+1, k+2 (mu_xsum_split) goes into it when k is
 * base or base + 1, else the window is spilled into the block's shared words
 * with atomics and re-based at k. Terms of one vector mostly share their
 * exponent range, so spills are rare. At the end each warp sums its windows
 * with shuffles when they share a base (else every lane spills), the block's
 * shared words go to the global words with one atomic each, and all of it is
 * integer addition: exact and in any order. A thread adds fewer than 2^31
 * terms and a word gets less than 2^32 per term: no int64 overflows for
 * blocks of up to 2^31 rows. */
struct xwin {
    long long w0, w1, w2, w3;
    int base;
};

__device__ __forceinline__ void xwin_init(xwin &a) {
    a.w0 = a.w1 = a.w2 = a.w3 = 0;
    a.base = EMPTY;
}

__device__ __forceinline__ void xwin_spill(xwin &a, unsigned long long *sh) {
    if (a.base >= 0) {
        if (a.w0) atomicAdd(sh + a.base, (unsigned long long)a.w0);
        if (a.w1) atomicAdd(sh + a.base + 1, (unsigned long long)a.w1);
        if (a.w2) atomicAdd(sh + a.base + 2, (unsigned long long)a.w2);
        if (a.w3) atomicAdd(sh + a.base + 3, (unsigned long long)a.w3);
    }
    xwin_init(a);
}

__device__ __forceinline__ void xwin_add(xwin &a, double v, unsigned long long *sh) {
    int k = 0;
    int64_t d[3];
    const int what = mu_xsum_split(v, &k, d);
    if (what == 1) {
        if (k == a.base) {
            a.w0 += d[0];
            a.w1 += d[1];
            a.w2 += d[2];
        } else if (k == a.base + 1) {
            a.w1 += d[0];
            a.w2 += d[1];
            a.w3 += d[2];
        } else {
            xwin_spill(a, sh);
            a.base = k;
            a.w0 = d[0];
            a.w1 = d[1];
            a.w2 = d[2];
        }
    } else if (what) {
        atomicAdd(sh + what, 1ull); /* NaN, +Inf or -Inf: counted */
    }
}

/* Called by all 32 lanes of the warp. */
__device__ __forceinline__ void xwin_flush_warp(xwin &a, unsigned long long *sh) {
    const unsigned have = __ballot_sync(FULL, a.base >= 0);
    if (!have) return;
    const int b0 = __shfl_sync(FULL, a.base, __ffs(have) - 1);
    if (__all_sync(FULL, a.base < 0 || a.base == b0)) {
        long long w0 = a.w0, w1 = a.w1, w2 = a.w2, w3 = a.w3;
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            w0 += __shfl_xor_sync(FULL, w0, off);
            w1 += __shfl_xor_sync(FULL, w1, off);
            w2 += __shfl_xor_sync(FULL, w2, off);
            w3 += __shfl_xor_sync(FULL, w3, off);
        }
        xwin_init(a);
        if ((threadIdx.x & 31) == 0) {
            a.base = b0;
            a.w0 = w0;
            a.w1 = w1;
            a.w2 = w2;
            a.w3 = w3;
            xwin_spill(a, sh);
        }
    } else {
        xwin_spill(a, sh);
    }
}

/* Zero the block's shared words (all threads, before any add). */
__device__ __forceinline__ void xacc_begin(unsigned long long *sh) {
    for (int t = threadIdx.x; t < NWORDS; t += blockDim.x) sh[t] = 0;
    __syncthreads();
}

/* After every warp has flushed: the block's words into the global words. */
__device__ __forceinline__ void xacc_end(const unsigned long long *sh, long long *global) {
    __syncthreads();
    for (int t = threadIdx.x; t < NWORDS; t += blockDim.x) {
        const unsigned long long v = sh[t];
        if (v) atomicAdd((unsigned long long *)global + t, v);
    }
}

/* ---- the scalar steps of iterate, in the last block of a grid ----
 * Every block calls last_block after adding its words (xacc_end); the one
 * that finds all others done (a ticket, after a fence: the classic pattern)
 * gets true, resets the ticket for the next launch and then reads the words,
 * complete, with volatile loads. It rounds them with mu_xsum_round_sparse
 * (mu_xsum_round's bits, in time for the words in use), so no scalar kernel
 * is launched between the SpMV, the update and the direction pass. */
__device__ __forceinline__ bool last_block(unsigned *ticket) {
    __shared__ int last;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
        last = atomicAdd(ticket, 1u) == gridDim.x - 1;
        if (last) *ticket = 0;
    }
    __syncthreads();
    if (last) __threadfence();
    return last;
}

/* The global words into sh (all threads of the block; zero_words clears them after). */
__device__ __forceinline__ void take_words(long long *words, mu_xsum *sh) {
    volatile long long *w = words;
    for (int t = threadIdx.x; t < NWORDS; t += blockDim.x) sh->w[t] = w[t];
    __syncthreads();
}
__device__ __forceinline__ void zero_words(long long *words) {
    for (int t = threadIdx.x; t < NWORDS; t += blockDim.x) words[t] = 0;
}

/* After the SpMV (the last block): alpha = rz / p'Ap, or stop when p'Ap is
 * not positive and finite; the SpMV before did the pending update (cur: where p is). */
static __device__ __noinline__ void step_alpha(dev_status *st, long long *pap_words, mu_xsum *sh,
                                               int cur) {
    take_words(pap_words, sh);
    zero_words(pap_words);
    if (threadIdx.x != 0) return;
    mu_xsum_status s = MU_XSUM_FINITE;
    const double pap = mu_xsum_round_sparse(sh, &s);
    st->pending = 0;
    st->cur = cur;
    if (s != MU_XSUM_FINITE || !(pap > 0)) {
        st->stop = MU_GPU_CG_PAP;
        return;
    }
    st->alpha = st->rz / pap;
}

/* After the update (the last block): beta, the new rz and rr, the count and
 * the stopping tests; a sum that is not finite stops with its words kept for
 * the host's message. */
static __device__ __noinline__ void step_beta(dev_status *st, long long *rr_words,
                                              long long *rz_words, mu_xsum *shr, mu_xsum *shz) {
    __shared__ int keep;
    const int jacobi = st->jacobi;
    take_words(rr_words, shr);
    if (jacobi) take_words(rz_words, shz);
    if (threadIdx.x == 0) {
        mu_xsum_status sr = MU_XSUM_FINITE, sz = MU_XSUM_FINITE;
        const double rr = mu_xsum_round_sparse(shr, &sr);
        double rz = rr;
        if (jacobi) rz = mu_xsum_round_sparse(shz, &sz);
        keep = 0;
        if (sr != MU_XSUM_FINITE) {
            st->stop = MU_GPU_CG_RR;
            keep = 1;
        } else if (sz != MU_XSUM_FINITE) {
            st->stop = MU_GPU_CG_RZ;
            keep = 1;
        } else {
            st->beta = rz / st->rz;
            st->rz = rz;
            st->rr = rr;
            st->done++;
            st->pending = 1;
            if (mu_cg_converged(rr, st->tol))
                st->stop = MU_GPU_CG_CONVERGED;
            else if (st->done >= st->limit)
                st->stop = MU_GPU_CG_LIMIT;
        }
    }
    __syncthreads();
    if (keep) return;
    zero_words(rr_words);
    if (jacobi) zero_words(rz_words);
}

/* ---- SpMV ---- */
struct peer_dev; /* gpu/cg_peer.h */
template <typename T> struct spmv_args {
    const int *rowptr, *col;
    const T *val;
    const int *list; /* rows to compute (NULL: rows first..first + nrows - 1) */
    int first, nrows;
    const T *x; /* plain: the vector multiplied */
    T *y;
    long long *words; /* NULL: no dot; else += x_i y_i */
    dev_status *st;   /* NULL outside iterate; else nothing when st->stop, and the
                       * last block sets alpha (step_alpha) */
    /* Always 0: lane 0 finishes a step's rows (1 would give each row its own
     * lane, the same bits, measured slower). Left a run-time argument because
     * the choice fixed when compiling made the kernel slower: code generation
     * (perf/history/RESULTS-2026-11-27.md). */
    int own_lanes;
    /* iterate: cur where p is (step_alpha; always 0), split 1 (clear pending first) */
    int cur, split;
    const peer_dev *peer; /* peer form (iterate on several ranks): S1 sums p'Ap over the ranks */
};

/* Enqueue y = A x with `lanes` lanes per row on the stream. dry: only size the
 * grid (which also loads the kernel), launch nothing. */
int launch_spmv(const spmv_args<double> &a, int lanes, cudaStream_t s, bool dry = false);
int launch_spmv(const spmv_args<float> &a, int lanes, cudaStream_t s, bool dry = false);

/* Blocks of THREADS threads for `work` threads' worth of items: at most what fits
 * on the device at once for this kernel (the kernels loop over their items). */
int grid_for(const void *kernel, long long work, int *blocks);

} // namespace mu_cg
#endif
