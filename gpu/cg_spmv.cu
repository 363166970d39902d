/* CSR matrix-vector products of the cg workload.
 *
 * A sub-warp of L lanes computes a row (L = 1: CSR-scalar, one thread per
 * row; L = 2..32: CSR-vector, Bell & Garland). Lane l sums the row's entries
 * l, l + L, l + 2L, ... in order, starting from 0 with every product and sum
 * rounded on its own; the lanes' sums then meet in a shuffle tree (offsets
 * L/2, ..., 1). The result depends only on the row's entries and L, never on
 * which launch, rank or position computes it; with L = 1 it is the CPU
 * reference's sequential sum, bit for bit.
 *
 * Each warp takes S = 32 / L sub-warps times R = 2 rows per step (rows of a
 * step are consecutive, so one load instruction of the warp reads S
 * consecutive rows' entries: coalesced), and steps through the rows with a
 * grid stride. The row pointers, then the first entry per lane of both rows,
 * are loaded before any is used, so both rows' loads are in flight at once;
 * longer rows loop. Lane 0 of a sub-warp finishes the step's rows (stores,
 * dot terms). (1 or 4 rows a step, four entries a lane loaded ahead, and
 * each row finished by its own lane measured slower; perf/history/.)
 * x is read through the read-only cache. */
#include <cuda_runtime.h>

#include "gpu/cg_impl.h"
#include "gpu/cg_peer.h"
#include "gpu/check.h"

namespace mu_cg {
namespace {

constexpr int R = 2; /* rows of a sub-warp per step */

template <typename T, int L>
__global__ void __launch_bounds__(THREADS) k_spmv(const spmv_args<T> a) {
    __shared__ unsigned long long sh[NWORDS];
    /* iterate: the previous direction pass applied the pending update (also
     * once stopped, so that later passes in the batch do not apply it again). */
    if (a.st && a.split && blockIdx.x == 0 && threadIdx.x == 0) a.st->pending = 0;
    if (a.st && a.st->stop) return; /* the whole grid returns: nothing waits below */
    const bool dot = a.words != nullptr;
    if (dot) xacc_begin(sh);
    xwin win;
    xwin_init(win);
    constexpr int S = 32 / L, STEP = S * R;
    const int lane = threadIdx.x & 31, sub = lane / L, l = lane % L;
    const long long warp = ((long long)blockIdx.x * THREADS + threadIdx.x) >> 5;
    const long long nwarps = ((long long)gridDim.x * THREADS) >> 5;
    /* The loop bound depends on the warp only: the shuffles below see all lanes. */
    for (long long base = warp * STEP; base < a.nrows; base += nwarps * STEP) {
        int row[R], s[R], e[R];
#pragma unroll
        for (int k = 0; k < R; k++) {
            const long long idx = base + k * S + sub;
            row[k] = idx < a.nrows ? (a.list ? __ldg(a.list + idx) : a.first + (int)idx) : -1;
        }
#pragma unroll
        for (int k = 0; k < R; k++) {
            s[k] = row[k] >= 0 ? __ldg(a.rowptr + row[k]) : 0;
            e[k] = row[k] >= 0 ? __ldg(a.rowptr + row[k] + 1) : 0;
        }
        /* The first entry of every row and lane (entry l): all loads issued
         * before the first use, the gathers of x next. */
        int c0[R];
        T v0[R], x0[R];
#pragma unroll
        for (int k = 0; k < R; k++) {
            const int p = s[k] + l;
            const bool ok = p < e[k];
            c0[k] = ok ? __ldg(a.col + p) : 0;
            v0[k] = ok ? __ldg(a.val + p) : T(0);
        }
#pragma unroll
        for (int k = 0; k < R; k++) x0[k] = s[k] + l < e[k] ? __ldg(a.x + c0[k]) : T(0);
        T sum[R];
#pragma unroll
        for (int k = 0; k < R; k++) {
            T acc = T(0);
            if (s[k] + l < e[k]) acc = add_rn(acc, mul_rn(v0[k], x0[k]));
            for (int p = s[k] + l + L; p < e[k]; p += L)
                acc = add_rn(acc, mul_rn(__ldg(a.val + p), __ldg(a.x + __ldg(a.col + p))));
            sum[k] = acc;
        }
        if (L > 1) {
#pragma unroll
            for (int k = 0; k < R; k++) {
#pragma unroll
                for (int off = L / 2; off > 0; off >>= 1)
                    sum[k] = add_rn(sum[k], __shfl_xor_sync(FULL, sum[k], off, L));
            }
        }
        /* Every lane of the sub-warp now holds each row's sum (the butterfly adds
         * the same pairs as a tree into lane 0, each add commutative): lane 0
         * finishes the rows (a.own_lanes: see spmv_args). */
        {
#pragma unroll
            for (int k = 0; k < R; k++) {
                const int i = row[k];
                if (i < 0 || (a.own_lanes ? k % L != l : l != 0)) continue;
                a.y[i] = sum[k];
                const T xi = dot ? a.x[i] : T(0);
                if (dot) xwin_add(win, term(xi, sum[k]), sh);
            }
        }
    }
    if (dot) {
        xwin_flush_warp(win, sh);
        xacc_end(sh, a.words);
        if (a.st && last_block(&a.st->ticket[0]))
            peer_step_alpha(a.peer, a.st, a.words, reinterpret_cast<mu_xsum *>(sh), a.cur);
    }
}

template <typename T, int L> int launch_l(const spmv_args<T> &a, cudaStream_t st, bool dry) {
    constexpr int STEP = (32 / L) * R;
    const void *fn = (const void *)k_spmv<T, L>;
    const long long warps = ((long long)a.nrows + STEP - 1) / STEP;
    int blocks = 0;
    if (grid_for(fn, warps * 32, &blocks)) return 1;
    if (dry) return 0;
    k_spmv<T, L><<<blocks, THREADS, 0, st>>>(a);
    MU_LAUNCHED();
    return 0;
}

template <typename T, int L = 1>
int launch_t(const spmv_args<T> &a, int lanes, cudaStream_t st, bool dry) {
    if (lanes == L) return launch_l<T, L>(a, st, dry);
    if constexpr (L < 32)
        return launch_t<T, 2 * L>(a, lanes, st, dry);
    else
        return mu_gpu_fail("cg SpMV: %d lanes per row (expected 1, 2, 4, 8, 16 or 32)", lanes);
}

} // namespace

int launch_spmv(const spmv_args<double> &a, int lanes, cudaStream_t s, bool dry) {
    if (a.nrows <= 0) return 0;
    return launch_t<double>(a, lanes, s, dry);
}

int launch_spmv(const spmv_args<float> &a, int lanes, cudaStream_t s, bool dry) {
    if (a.nrows <= 0) return 0;
    return launch_t<float>(a, lanes, s, dry);
}

} // namespace mu_cg
