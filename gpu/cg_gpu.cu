/* The cg workload on the device: the context (matrix block, streams, pinned
 * buffers), the vector kernels with exact dot products, the halo's device
 * side, and whole CG iterations with alpha and beta kept on the device.
 *
 * Streams. `work` runs every kernel but two; `halo` (high priority) runs the
 * gather of the values to send, the copies between the device and the pinned
 * halo buffers and then the boundary rows' SpMV, so the interior rows' SpMV
 * (on `work`) overlaps all of them; events order the two.
 *
 * Iterate. One batch of G iterations is captured once as a CUDA graph (for
 * fixed vectors) and replayed. Each position of the batch:
 *   A  q = A p
 *   S1 alpha = rz / p'Ap (stop if p'Ap is not positive and finite), in the
 *      last block of A (step_alpha, cg_impl.h)
 *   B  r -= alpha q; z = r / diag; r'z, r'r exact
 *   S2 beta = r'z / rz, rz, rr, count; stop when converged or at the limit, in
 *      the last block of B (step_beta)
 *   F  x += alpha p; p = z + beta p in one pass (k_finish)
 * A fused form, with F done inside the next SpMV (each p_j formed on the fly
 * into a second p buffer, one vector pass fewer), measured slower (its SpMV
 * took more registers and ran at half occupancy) and was removed.
 * Every kernel returns at once when the status says stop, so a batch queued
 * after the end costs only launches, and the vectors are always left as the
 * table path would leave them after `done` iterations.
 *
 * Peer form (several ranks, gpu/cg_peer.h): the same iteration with the halo
 * kernel H before each SpMV and the sums of S1 and S2 taken over all ranks
 * on the device, in the same last blocks. */
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#include "gpu/cg_gpu.h"
#include "gpu/cg_impl.h"
#include "gpu/cg_peer.h"
#include "gpu/check.h"
#include "core/knobs.h"

using namespace mu_cg;

namespace {

constexpr int BATCH = MU_GPU_CG_BATCH;
constexpr int NSLOTS = 5; /* word slots: 0, 1 table accumulators; 2 p'Ap, 3 r'r, 4 r'z */
constexpr int SLOT_PAP = 2, SLOT_RR = 3, SLOT_RZ = 4;

/* ---- vector kernels (grid-stride, one element per thread per step) ---- */

template <typename T>
__global__ void __launch_bounds__(THREADS) k_fill(T *v, long long n, T value) {
    for (long long i = (long long)blockIdx.x * THREADS + threadIdx.x; i < n;
         i += (long long)gridDim.x * THREADS)
        v[i] = value;
}

template <typename T>
__global__ void __launch_bounds__(THREADS)
    k_waxpby(long long n, T a, const T *x, T c, const T *y, T *w) {
    for (long long i = (long long)blockIdx.x * THREADS + threadIdx.x; i < n;
         i += (long long)gridDim.x * THREADS)
        w[i] = add_rn(mul_rn(a, x[i]), mul_rn(c, y[i]));
}

template <typename T>
__global__ void __launch_bounds__(THREADS)
    k_dot(long long n, const T *__restrict__ x, const T *__restrict__ y, long long *words) {
    __shared__ unsigned long long sh[NWORDS];
    xacc_begin(sh);
    xwin w;
    xwin_init(w);
    for (long long i = (long long)blockIdx.x * THREADS + threadIdx.x; i < n;
         i += (long long)gridDim.x * THREADS)
        xwin_add(w, term(x[i], y[i]), sh);
    xwin_flush_warp(w, sh);
    xacc_end(sh, words);
}

/* r -= alpha q (and x += alpha p when p); z = dinv r when z; r'z and r'r
 * into wz, wr (NULL: skipped). alpha from st when st (iterate), else from the
 * argument. With alpha = 0, p = q = NULL this is the preconditioner alone. */
template <typename T> struct upd_args {
    long long n;
    double alpha;
    dev_status *st;       /* iterate: its last block then makes step_beta */
    const peer_dev *peer; /* peer form: ... on the sums over all ranks (peer_allreduce) */
    const T *p, *q, *dinv;
    T *x, *r, *z;
    long long *wz, *wr;
};

/* k_update's elements a thread loaded at once: 4 measured fastest of 1, 2,
 * 4 and 8 (perf/history/). */
constexpr int UPD_AHEAD = 4;

template <typename T, bool UPD, bool DOX, bool JAC>
__global__ void __launch_bounds__(THREADS) k_update(const upd_args<T> a) {
    __shared__ unsigned long long shz[NWORDS], shr[NWORDS];
    if (a.st && a.st->stop) return;
    const bool want_z = JAC && a.wz, want_r = a.wr != nullptr;
    if (want_z) xacc_begin(shz);
    if (want_r) xacc_begin(shr);
    xwin wz, wr;
    xwin_init(wz);
    xwin_init(wr);
    const T al = (T)(a.st ? a.st->alpha : a.alpha);
    const T *__restrict__ p = a.p;
    const T *__restrict__ q = a.q;
    const T *__restrict__ dinv = a.dinv;
    T *__restrict__ x = a.x;
    T *__restrict__ r = a.r;
    T *__restrict__ z = a.z;
    /* Element i, given r_i, q_i and dinv_i. */
    auto one = [&](long long i, T ri, T qi, T di) {
        if (UPD) {
            if (DOX) x[i] = add_rn(x[i], mul_rn(al, p[i]));
            ri = sub_rn(ri, mul_rn(al, qi));
            r[i] = ri;
        }
        if (JAC) {
            const T zi = mul_rn(di, ri);
            z[i] = zi;
            if (want_z) xwin_add(wz, term(ri, zi), shz);
        }
        if (want_r) xwin_add(wr, term(ri, ri), shr);
    };
    /* UPD_AHEAD elements a thread at a time, all their loads issued before
     * the first use (the grid then has half the blocks: 62 registers). Alone
     * under Nsight Compute the kernel takes as long as with one element; in
     * the iteration's graph it is faster, most likely at its end, where the
     * last block waits for the others. The sums are exact, so their order
     * changes no bits. */
    const long long stride = (long long)gridDim.x * THREADS;
    long long i = (long long)blockIdx.x * THREADS + threadIdx.x;
    for (; i + (UPD_AHEAD - 1) * stride < a.n; i += UPD_AHEAD * stride) {
        T rv[UPD_AHEAD], qv[UPD_AHEAD], dv[UPD_AHEAD];
#pragma unroll
        for (int u = 0; u < UPD_AHEAD; u++) {
            rv[u] = r[i + u * stride];
            qv[u] = UPD ? q[i + u * stride] : T(0);
            dv[u] = JAC ? dinv[i + u * stride] : T(0);
        }
#pragma unroll
        for (int u = 0; u < UPD_AHEAD; u++) one(i + u * stride, rv[u], qv[u], dv[u]);
    }
    for (; i < a.n; i += stride) one(i, r[i], UPD ? q[i] : T(0), JAC ? dinv[i] : T(0));
    if (want_z) {
        xwin_flush_warp(wz, shz);
        xacc_end(shz, a.wz);
    }
    if (want_r) {
        xwin_flush_warp(wr, shr);
        xacc_end(shr, a.wr);
    }
    if (a.st && last_block(&a.st->ticket[1])) {
        mu_xsum *sr = reinterpret_cast<mu_xsum *>(shr), *sz = reinterpret_cast<mu_xsum *>(shz);
        if (a.peer && !peer_allreduce(a.peer, PEER_BETA, want_z ? 2 : 1, a.wr, a.wz, sr, sz)) {
            if (threadIdx.x == 0) a.st->stop = MU_GPU_CG_PEER_LOST;
            return;
        }
        step_beta(a.st, a.wr, a.wz, sr, sz);
    }
}

template <typename T>
__global__ void __launch_bounds__(THREADS)
    k_pack(long long n, const int *__restrict__ idx, const T *__restrict__ x, T *__restrict__ out) {
    for (long long k = (long long)blockIdx.x * THREADS + threadIdx.x; k < n;
         k += (long long)gridDim.x * THREADS)
        out[k] = x[idx[k]];
}

/* The next p's send values, p_i = zr_i + beta p_i (k_direction's arithmetic)
 * at the send rows, formed before k_direction overwrites p: the halo's
 * messages then fly while the direction pass and the interior rows run. */
template <typename T>
__global__ void __launch_bounds__(THREADS)
    k_pack_next(long long n, const int *__restrict__ idx, const T *__restrict__ zr,
                const T *__restrict__ p, T be, T *__restrict__ out) {
    for (long long k = (long long)blockIdx.x * THREADS + threadIdx.x; k < n;
         k += (long long)gridDim.x * THREADS) {
        const int i = idx[k];
        out[k] = add_rn(zr[i], mul_rn(be, p[i]));
    }
}

/* x += alpha p; p = zr + beta p (the table's cg_direction; k_finish's arithmetic). */
template <typename T>
__global__ void __launch_bounds__(THREADS)
    k_direction(long long n, T al, T be, const T *__restrict__ zr, T *__restrict__ p,
                T *__restrict__ x) {
    for (long long i = (long long)blockIdx.x * THREADS + threadIdx.x; i < n;
         i += (long long)gridDim.x * THREADS) {
        const T po = p[i];
        x[i] = add_rn(x[i], mul_rn(al, po));
        p[i] = add_rn(zr[i], mul_rn(be, po));
    }
}

/* ---- iterate's own kernels (alpha and beta: step_alpha, step_beta in cg_impl.h) ---- */

/* F: the last iteration's pending x += alpha p and p = z + beta p, into the caller's buffer.
 * Called with p1 = p0 (st->cur is always 0: the copy from p1 never runs). */
template <typename T>
__global__ void __launch_bounds__(THREADS)
    k_finish(const dev_status *st, long long n, T *p0, const T *p1, T *x, const T *zr) {
    const int pending = st->pending, cur = st->cur;
    if (!pending && cur == 0) return;
    const T al = (T)st->alpha, be = (T)st->beta;
    const T *pc = cur ? p1 : p0;
    for (long long i = (long long)blockIdx.x * THREADS + threadIdx.x; i < n;
         i += (long long)gridDim.x * THREADS) {
        if (pending) {
            const T po = pc[i];
            x[i] = add_rn(x[i], mul_rn(al, po));
            p0[i] = add_rn(zr[i], mul_rn(be, po));
        } else {
            p0[i] = p1[i];
        }
    }
}

/* ---- the peer form's own kernels (gpu/cg_peer.h) ---- */

/* The end of a kernel whose threads stored send values into the neighbours'
 * ghost slots (every thread; sent: this thread stored some): after a system
 * fence in each thread that stored, the last block to finish raises this
 * rank's halo flag at each neighbour it sends to and waits for the flags of
 * those it receives from. */
__device__ __forceinline__ void peer_halo_done(const peer_dev *pd, dev_status *st, bool sent) {
    __shared__ int last;
    if (sent) __threadfence_system();
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence_system();
        last = atomicAdd(&pd->mine->ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last || threadIdx.x != 0) return;
    peer_box *mine = pd->mine;
    mine->ticket = 0;
    __threadfence_system();
    const unsigned long long tag = mine->seq[PEER_HALO] + 1;
    for (int s = 0; s < pd->nseg; s++)
        peer_store(&pd->box[pd->seg_rank[s]]->flag[PEER_HALO][pd->rank], tag);
    if (peer_wait(mine, PEER_HALO, pd->recv_rank, pd->nrecv, tag))
        mine->seq[PEER_HALO] = tag;
    else
        st->stop = MU_GPU_CG_PEER_LOST;
}

/* H: p's send values into the neighbours' ghost slots, then peer_halo_done. */
template <typename T>
__global__ void __launch_bounds__(THREADS)
    k_peer_pack(const peer_dev *pd, dev_status *st, const T *__restrict__ p, long long n) {
    __shared__ long long off[PEER_MAX + 1];
    __shared__ T *dst[PEER_MAX];
    if (st->stop) return;
    const int nseg = pd->nseg;
    if (threadIdx.x <= nseg) off[threadIdx.x] = pd->seg_off[threadIdx.x];
    if (threadIdx.x < nseg) dst[threadIdx.x] = (T *)pd->seg_dst[threadIdx.x];
    __syncthreads();
    const int *__restrict__ idx = pd->send_index;
    for (long long k = (long long)blockIdx.x * THREADS + threadIdx.x; k < n;
         k += (long long)gridDim.x * THREADS) {
        int s = 0;
        while (s + 1 < nseg && k >= off[s + 1]) s++;
        dst[s][k - off[s]] = p[idx[k]];
    }
    peer_halo_done(pd, st, (long long)blockIdx.x * THREADS + threadIdx.x < n);
}

/* F with H (when every send segment is a range of rows, pd->ranges): the
 * pending x += alpha p; p = zr + beta p of k_finish (its arithmetic), each new
 * p_i of a send range also stored into the neighbour's ghost slot, then
 * peer_halo_done: the next SpMV's ghosts without a kernel of their own.
 * Nothing (no exchange either) when no update is pending: the same on every
 * rank, as all compute the same status. */
template <typename T>
__global__ void __launch_bounds__(THREADS)
    k_peer_finish(const peer_dev *pd, dev_status *st, long long n, T *__restrict__ p,
                  T *__restrict__ x, const T *__restrict__ zr) {
    __shared__ long long first[PEER_MAX], len[PEER_MAX];
    __shared__ T *dst[PEER_MAX];
    if (!st->pending) return;
    const int nseg = pd->nseg;
    if (threadIdx.x < nseg) {
        first[threadIdx.x] = pd->seg_first[threadIdx.x];
        len[threadIdx.x] = pd->seg_off[threadIdx.x + 1] - pd->seg_off[threadIdx.x];
        dst[threadIdx.x] = (T *)pd->seg_dst[threadIdx.x];
    }
    __syncthreads();
    const T al = (T)st->alpha, be = (T)st->beta;
    bool sent = false;
    for (long long i = (long long)blockIdx.x * THREADS + threadIdx.x; i < n;
         i += (long long)gridDim.x * THREADS) {
        const T po = p[i];
        x[i] = add_rn(x[i], mul_rn(al, po));
        const T pn = add_rn(zr[i], mul_rn(be, po));
        p[i] = pn;
        for (int s = 0; s < nseg; s++) {
            const unsigned long long d = (unsigned long long)(i - first[s]);
            if (d < (unsigned long long)len[s]) {
                dst[s][d] = pn;
                sent = true;
            }
        }
    }
    peer_halo_done(pd, st, sent);
}

/* ---- sizes ---- */

struct occ_entry {
    const void *fn;
    int dev, blocks;
};
occ_entry occ_cache[64];
int occ_used = 0;

} // namespace

int mu_cg::grid_for(const void *kernel, long long work, int *blocks) {
    int dev = 0;
    MU_CUDA(cudaGetDevice(&dev));
    int cap = 0;
    for (int i = 0; i < occ_used; i++)
        if (occ_cache[i].fn == kernel && occ_cache[i].dev == dev) cap = occ_cache[i].blocks;
    if (!cap) {
        int sms = 0, occ = 0;
        MU_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        MU_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, THREADS, 0));
        cap = sms * (occ > 0 ? occ : 1);
        if (occ_used < 64) occ_cache[occ_used++] = {kernel, dev, cap};
    }
    long long want = (work + THREADS - 1) / THREADS;
    if (want < 1) want = 1;
    *blocks = (int)(want < cap ? want : cap);
    return 0;
}

struct mu_gpu_cg {
    int fp32, lanes;
    size_t es; /* bytes per vector entry */
    int64_t nloc, nghost, nnz, ninterior, nboundary, nsend;
    /* A row list that is a range first..first + n - 1 (the usual case: row
     * blocks of a banded matrix) is not uploaded; the SpMV then reads no list. */
    int interior_first, boundary_first; /* -1: a list (interior, boundary) */
    int *rowptr, *col, *interior, *boundary, *send_index;
    void *val, *dinv;
    cudaStream_t work, halo;
    cudaEvent_t ev_x, ev_packed, ev_ghosts, ev_st[2], ev_take, ev_bnd, ev_read;
    int halo_open; /* halo_pack ordered the halo stream after `work`: boundary rows may run there */
    int halo_next; /* halo_pack_next packed the next p's send values: halo_pack only orders */
    int halo_device; /* MPI takes device buffers: no copies through send_pin, ghost_pin */
    void *send_dev, *send_pin, *ghost_pin;
    long long *words;            /* NSLOTS x NWORDS on the device */
    long long *words_pin;        /* 2 x NWORDS pinned */
    void *stage;                 /* pinned staging of vec_set / vec_get */
    dev_status *st_dev, *st_pin; /* st_pin: [0], [1] status copies, [2] the initial status */
    cudaGraphExec_t graph;
    const void *gkey[5];
    int gvalid;
    int gpeer;       /* the graph is of the peer form */
    peer_link *peer; /* the peer form's box and the other ranks' exports */
};

namespace {

/* The matrix reaches the device through a few small pinned buffers in turn:
 * the host fills (converts into) one while the copies of the others run, so
 * the copy runs at the pinned rate and overlaps the host's pass. Pinning a
 * buffer the size of the matrix (cudaMallocHost) cost more than the copy
 * itself, and a pageable source makes the driver stage it anyway. */
constexpr int NSTAGE = 3;
constexpr size_t STAGE_BYTES = (size_t)8 << 20;

struct stager {
    cudaStream_t s;
    void *pin[NSTAGE];
    cudaEvent_t free_ev[NSTAGE]; /* recorded after the copy out of pin[k] */
    int next;
};

int stager_open(stager *st) {
    memset(st, 0, sizeof *st);
    MU_CUDA(cudaStreamCreateWithFlags(&st->s, cudaStreamNonBlocking));
    for (int k = 0; k < NSTAGE; k++) {
        MU_CUDA(cudaMallocHost(&st->pin[k], STAGE_BYTES));
        MU_CUDA(cudaEventCreateWithFlags(&st->free_ev[k], cudaEventDisableTiming));
    }
    return 0;
}

/* Waits for the copies, then frees; 1 if a copy failed. */
int stager_close(stager *st) {
    int rc = 0;
    if (st->s) MU_CUDA_KEEP(cudaStreamSynchronize(st->s));
    for (int k = 0; k < NSTAGE; k++) {
        if (st->pin[k]) MU_CUDA_KEEP(cudaFreeHost(st->pin[k]));
        if (st->free_ev[k]) MU_CUDA_KEEP(cudaEventDestroy(st->free_ev[k]));
    }
    if (st->s) MU_CUDA_KEEP(cudaStreamDestroy(st->s));
    return rc;
}

/* n entries of D into a new device array *dst: fill(h, a, m) writes entries
 * a .. a + m - 1 into the pinned h, chunk after chunk. */
template <typename D, typename F> int stage_upload(stager *st, int64_t n, D **dst, F fill) {
    MU_CUDA(cudaMalloc((void **)dst, (size_t)(n ? n : 1) * sizeof(D)));
    const int64_t per = (int64_t)(STAGE_BYTES / sizeof(D));
    for (int64_t a = 0; a < n; a += per) {
        const int64_t m = n - a < per ? n - a : per;
        const int k = st->next;
        st->next = (k + 1) % NSTAGE;
        MU_CUDA(cudaEventSynchronize(st->free_ev[k])); /* never recorded yet: returns at once */
        fill((D *)st->pin[k], a, m);
        MU_CUDA(cudaMemcpyAsync(*dst + a, st->pin[k], (size_t)m * sizeof(D), cudaMemcpyHostToDevice,
                                st->s));
        MU_CUDA(cudaEventRecord(st->free_ev[k], st->s));
    }
    return 0;
}

template <typename T> int upload_as(stager *st, const double *src, int64_t n, void **dst) {
    T *p = nullptr;
    const int rc = stage_upload<T>(st, n, &p, [src](T *h, int64_t a, int64_t m) {
        for (int64_t i = 0; i < m; i++) h[i] = (T)src[a + i];
    });
    *dst = p;
    return rc;
}

template <typename T> int upload_dinv(stager *st, const double *diag, int64_t n, void **dst) {
    T *p = nullptr;
    const int rc = stage_upload<T>(st, n, &p, [diag](T *h, int64_t a, int64_t m) {
        for (int64_t i = 0; i < m; i++) h[i] = (T)(1.0 / diag[a + i]); /* as the CPU reference */
    });
    *dst = p;
    return rc;
}

int upload_int(stager *st, const int32_t *src, int64_t n, int **dst) {
    return stage_upload<int>(st, n, dst, [src](int *h, int64_t a, int64_t m) {
        memcpy(h, src + a, (size_t)m * sizeof(int));
    });
}

/* Row pointers to 32 bits (checked by the caller); none: all 0. */
int upload_rowptr(stager *st, const int64_t *rowptr, int64_t nloc, int **dst) {
    return stage_upload<int>(st, nloc + 1, dst, [rowptr](int *h, int64_t a, int64_t m) {
        for (int64_t i = 0; i < m; i++) h[i] = rowptr ? (int)rowptr[a + i] : 0;
    });
}

/* The matrix block's arrays (rows, entries, 1 / diag, row lists, send list). */
int upload_block(mu_gpu_cg *g, const mu_gpu_cg_desc *d, stager *st) {
    if (upload_rowptr(st, d->rowptr, d->nloc, &g->rowptr)) return 1;
    if (upload_int(st, d->col, g->nnz, &g->col)) return 1;
    if (g->fp32 ? upload_as<float>(st, d->val, g->nnz, &g->val)
                : upload_as<double>(st, d->val, g->nnz, &g->val))
        return 1;
    if (d->diag && (g->fp32 ? upload_dinv<float>(st, d->diag, d->nloc, &g->dinv)
                            : upload_dinv<double>(st, d->diag, d->nloc, &g->dinv)))
        return 1;
    if (g->interior_first < 0 && upload_int(st, d->interior, d->ninterior, &g->interior)) return 1;
    if (g->boundary_first < 0 && upload_int(st, d->boundary, d->nboundary, &g->boundary)) return 1;
    return upload_int(st, d->send_index, d->nsend, &g->send_index);
}

/* list[0] when list[0..n-1] is list[0], list[0] + 1, ...; else -1 (also for an empty list). */
int range_first(const int32_t *list, int64_t n) {
    if (n <= 0 || !list) return n <= 0 ? 0 : -1;
    for (int64_t i = 1; i < n; i++)
        if (list[i] != list[0] + i) return -1;
    return list[0];
}

int lanes_env(int fallback) {
    return mu_knob_int("MUTIRAO_CG_LANES", fallback);
}

long long *slot(mu_gpu_cg *g, int acc) {
    return acc < 0 ? nullptr : g->words + (size_t)acc * NWORDS;
}

int check_acc(int acc) {
    if (acc < -1 || acc > 1) return mu_gpu_fail("cg: accumulator %d (expected -1, 0 or 1)", acc);
    return 0;
}

/* kernel<<<blocks, THREADS, 0, s>>>(args...), a grid-stride kernel over work
 * items on the blocks grid_for gives it. */
template <typename... P, typename... A>
int launch_for(void (*kernel)(P...), long long work, cudaStream_t s, A... args) {
    int blocks = 0;
    if (grid_for((const void *)kernel, work, &blocks)) return 1;
    kernel<<<blocks, THREADS, 0, s>>>(args...);
    MU_LAUNCHED();
    return 0;
}

template <typename T> int fill_t(mu_gpu_cg *g, void *v, long long n, double value) {
    if (n <= 0) return 0;
    return launch_for(k_fill<T>, n, g->work, (T *)v, n, (T)value);
}

template <typename T>
int waxpby_t(mu_gpu_cg *g, double a, const void *x, double c, const void *y, void *w) {
    if (g->nloc <= 0) return 0;
    return launch_for(k_waxpby<T>, g->nloc, g->work, g->nloc, (T)a, (const T *)x, (T)c,
                      (const T *)y, (T *)w);
}

template <typename T>
int direction_t(mu_gpu_cg *g, double alpha, double beta, const void *zr, void *p, void *x) {
    if (g->nloc <= 0) return 0;
    return launch_for(k_direction<T>, g->nloc, g->work, g->nloc, (T)alpha, (T)beta, (const T *)zr,
                      (T *)p, (T *)x);
}

template <typename T> int dot_t(mu_gpu_cg *g, const void *x, const void *y, long long *words) {
    if (g->nloc <= 0) return 0;
    return launch_for(k_dot<T>, g->nloc, g->work, g->nloc, (const T *)x, (const T *)y, words);
}

template <typename T, bool UPD, bool DOX, bool JAC>
int update_k(const upd_args<T> &a, cudaStream_t s, bool dry) {
    int blocks = 0;
    if (grid_for((const void *)k_update<T, UPD, DOX, JAC>, a.n, &blocks)) return 1;
    if (dry) return 0;
    k_update<T, UPD, DOX, JAC><<<blocks, THREADS, 0, s>>>(a);
    MU_LAUNCHED();
    return 0;
}

/* The kernel for (update or precond only, with x, with z). */
template <typename T>
int update_t(const upd_args<T> &a, bool upd, bool dox, cudaStream_t s, bool dry = false) {
    if (a.n <= 0) return 0;
    const bool jac = a.z != nullptr;
    if (!upd)
        return jac ? update_k<T, false, false, true>(a, s, dry)
                   : update_k<T, false, false, false>(a, s, dry);
    if (dox)
        return jac ? update_k<T, true, true, true>(a, s, dry)
                   : update_k<T, true, true, false>(a, s, dry);
    return jac ? update_k<T, true, false, true>(a, s, dry)
               : update_k<T, true, false, false>(a, s, dry);
}

template <typename T> spmv_args<T> spmv_base(const mu_gpu_cg *g) {
    spmv_args<T> a;
    memset(&a, 0, sizeof a);
    a.rowptr = g->rowptr;
    a.col = g->col;
    a.val = (const T *)g->val;
    return a;
}

template <typename T> int spmv_t(mu_gpu_cg *g, int rows, const void *x, void *y, long long *w) {
    spmv_args<T> a = spmv_base<T>(g);
    if (rows == MU_GPU_CG_ALL) {
        a.nrows = (int)g->nloc;
    } else if (rows == MU_GPU_CG_INTERIOR) {
        a.nrows = (int)g->ninterior;
        if (g->interior_first >= 0)
            a.first = g->interior_first;
        else
            a.list = g->interior;
    } else {
        a.nrows = (int)g->nboundary;
        if (g->boundary_first >= 0)
            a.first = g->boundary_first;
        else
            a.list = g->boundary;
    }
    a.x = (const T *)x;
    a.y = (T *)y;
    a.words = w;
    /* Boundary rows right after the ghosts' copy, on the halo stream, so they
     * overlap the interior rows still running on `work` (other rows of y; the
     * words are integer atomics); later work waits for them. */
    if (rows == MU_GPU_CG_BOUNDARY && g->halo_open) {
        g->halo_open = 0;
        if (launch_spmv(a, g->lanes, g->halo)) return 1;
        MU_CUDA(cudaEventRecord(g->ev_bnd, g->halo));
        MU_CUDA(cudaStreamWaitEvent(g->work, g->ev_bnd, 0));
        return 0;
    }
    return launch_spmv(a, g->lanes, g->work);
}

template <typename T> int pack_next_t(mu_gpu_cg *g, const void *zr, const void *p, double beta) {
    return launch_for(k_pack_next<T>, g->nsend, g->halo, g->nsend, g->send_index, (const T *)zr,
                      (const T *)p, (T)beta, (T *)g->send_dev);
}

template <typename T> int pack_t(mu_gpu_cg *g, const void *x) {
    return launch_for(k_pack<T>, g->nsend, g->halo, g->nsend, g->send_index, (const T *)x,
                      (T *)g->send_dev);
}

/* A of iterate: q = A p over all the rows, with S1 in its last block (peer:
 * over the ranks). */
template <typename T> spmv_args<T> iter_spmv(mu_gpu_cg *g, void *p, void *q, const peer_dev *peer) {
    spmv_args<T> a = spmv_base<T>(g);
    a.nrows = (int)g->nloc;
    a.x = (const T *)p;
    a.y = (T *)q;
    a.words = slot(g, SLOT_PAP);
    a.st = g->st_dev;
    a.peer = peer;
    a.split = 1;
    return a;
}

/* B of iterate: r -= alpha q (z; r'z, r'r) with step_beta in its last block
 * (peer: over the ranks). */
template <typename T>
upd_args<T> iter_update(mu_gpu_cg *g, void *r, void *q, void *z, const peer_dev *peer) {
    upd_args<T> u;
    memset(&u, 0, sizeof u);
    u.n = g->nloc;
    u.st = g->st_dev;
    u.peer = peer;
    u.q = (const T *)q;
    u.dinv = (const T *)g->dinv;
    u.r = (T *)r;
    u.z = (T *)z;
    u.wz = slot(g, SLOT_RZ);
    u.wr = slot(g, SLOT_RR);
    return u;
}

/* One batch of iterate (see the top of the file), enqueued on g->work. dry:
 * only size the grids and load the kernels, so that nothing but launches
 * happens while the batch is captured as a graph. */
template <typename T>
int batch_t(mu_gpu_cg *g, void *x, void *r, void *p, void *q, void *z, bool dry) {
    const int64_t n = g->nloc;
    const T *zr = (const T *)(z ? z : r);
    int fblocks = 0;
    if (grid_for((const void *)k_finish<T>, n, &fblocks)) return 1;
    for (int i = 0; i < BATCH; i++) {
        /* A with S1 */
        if (launch_spmv(iter_spmv<T>(g, p, q, nullptr), g->lanes, g->work, dry)) return 1;
        /* B with S2 */
        if (update_t<T>(iter_update<T>(g, r, q, z, nullptr), true, false, g->work, dry)) return 1;
        if (dry) continue;
        /* F: x += alpha p; p = z + beta p */
        k_finish<T><<<fblocks, THREADS, 0, g->work>>>(g->st_dev, n, (T *)p, (T *)p, (T *)x, zr);
        MU_LAUNCHED();
    }
    return 0;
}

/* One batch of the peer form (gpu/cg_peer.h), enqueued on g->work; dry as batch_t. */
template <typename T>
int peer_batch_t(mu_gpu_cg *g, void *x, void *r, void *p, void *q, void *z, bool dry) {
    const peer_dev *pd = g->peer->dev;
    const int64_t n = g->nloc;
    const T *zr = (const T *)(z ? z : r);
    const bool ranges = g->peer->ranges; /* F with H: the ghosts are sent by the F before */
    int fblocks = 0, pblocks = 0;
    if (grid_for(ranges ? (const void *)k_peer_finish<T> : (const void *)k_finish<T>, n,
                 &fblocks) ||
        grid_for((const void *)k_peer_pack<T>, g->nsend, &pblocks))
        return 1;
    for (int i = 0; i < BATCH; i++) {
        if (!dry && !ranges) { /* H */
            k_peer_pack<T><<<pblocks, THREADS, 0, g->work>>>(pd, g->st_dev, (const T *)p, g->nsend);
            MU_LAUNCHED();
        }
        /* A with S1: all rows, the ghosts in place */
        if (launch_spmv(iter_spmv<T>(g, p, q, pd), g->lanes, g->work, dry)) return 1;
        /* B with S2 */
        if (update_t<T>(iter_update<T>(g, r, q, z, pd), true, false, g->work, dry)) return 1;
        if (dry) continue;
        if (ranges) /* F with H */
            k_peer_finish<T>
                <<<fblocks, THREADS, 0, g->work>>>(pd, g->st_dev, n, (T *)p, (T *)x, zr);
        else /* F */
            k_finish<T><<<fblocks, THREADS, 0, g->work>>>(g->st_dev, n, (T *)p, (T *)p, (T *)x, zr);
        MU_LAUNCHED();
    }
    return 0;
}

/* H alone, before a call's first batch when each F sends the next ghosts. */
template <typename T> int peer_pack_t(mu_gpu_cg *g, const void *p) {
    return launch_for(k_peer_pack<T>, g->nsend, g->work, g->peer->dev, g->st_dev, (const T *)p,
                      g->nsend);
}

int any_batch(mu_gpu_cg *g, void *x, void *r, void *p, void *q, void *z, bool peer, bool dry) {
    if (peer)
        return g->fp32 ? peer_batch_t<float>(g, x, r, p, q, z, dry)
                       : peer_batch_t<double>(g, x, r, p, q, z, dry);
    return g->fp32 ? batch_t<float>(g, x, r, p, q, z, dry) : batch_t<double>(g, x, r, p, q, z, dry);
}

int build_graph(mu_gpu_cg *g, void *x, void *r, void *p, void *q, void *z, bool peer) {
    if (g->gvalid) {
        MU_CUDA(cudaGraphExecDestroy(g->graph));
        g->gvalid = 0;
    }
    if (any_batch(g, x, r, p, q, z, peer, true)) return 1;
    cudaGraph_t graph = nullptr;
    MU_CUDA(cudaStreamBeginCapture(g->work, cudaStreamCaptureModeThreadLocal));
    const int brc = any_batch(g, x, r, p, q, z, peer, false);
    /* End the capture on every path, so the stream is usable again. */
    cudaError_t e = cudaStreamEndCapture(g->work, &graph);
    if (brc) {
        if (graph) (void)cudaGraphDestroy(graph);
        return 1;
    }
    if (e != cudaSuccess) return mu_gpu_cuda_failed(__FILE__, __LINE__, "cudaStreamEndCapture", e);
    e = cudaGraphInstantiate(&g->graph, graph, 0);
    (void)cudaGraphDestroy(graph);
    if (e != cudaSuccess) return mu_gpu_cuda_failed(__FILE__, __LINE__, "cudaGraphInstantiate", e);
    g->gvalid = 1;
    g->gpeer = peer;
    g->gkey[0] = x;
    g->gkey[1] = r;
    g->gkey[2] = p;
    g->gkey[3] = q;
    g->gkey[4] = z;
    return 0;
}

int stage_ready(mu_gpu_cg *g) {
    if (!g->stage) MU_CUDA(cudaMallocHost(&g->stage, (size_t)(g->nloc ? g->nloc : 1) * g->es));
    return 0;
}

template <typename T>
int update_api(mu_gpu_cg *g, bool upd, double alpha, const void *p, const void *q, void *x, void *r,
               void *z, int acc_rz, int acc_rr) {
    if (z && !g->dinv) return mu_gpu_fail("cg: Jacobi step without a diagonal in the context");
    upd_args<T> a;
    memset(&a, 0, sizeof a);
    a.n = g->nloc;
    a.alpha = alpha;
    a.p = (const T *)p;
    a.q = (const T *)q;
    a.dinv = (const T *)g->dinv;
    a.x = (T *)x;
    a.r = (T *)r;
    a.z = (T *)z;
    a.wz = z ? slot(g, acc_rz) : nullptr;
    a.wr = slot(g, acc_rr);
    return update_t<T>(a, upd, upd && p != nullptr, g->work);
}

double seconds_now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace

extern "C" {

int mu_gpu_cg_lanes(const mu_gpu_cg *g) {
    return g ? g->lanes : 0;
}

int mu_gpu_cg_set_lanes(mu_gpu_cg *g, int lanes) {
    if (!g) return mu_gpu_fail("mu_gpu_cg_set_lanes: no context");
    if (lanes != 1 && lanes != 2 && lanes != 4 && lanes != 8 && lanes != 16 && lanes != 32)
        return mu_gpu_fail("cg: %d lanes per row (expected 1, 2, 4, 8, 16 or 32)", lanes);
    g->lanes = lanes;
    if (g->gvalid) { /* the graph holds the old kernels */
        MU_CUDA(cudaGraphExecDestroy(g->graph));
        g->gvalid = 0;
    }
    return 0;
}

void mu_gpu_cg_destroy(mu_gpu_cg *g) {
    if (!g) return;
    int rc = 0;
    if (g->work) MU_CUDA_KEEP(cudaStreamSynchronize(g->work));
    if (g->halo) MU_CUDA_KEEP(cudaStreamSynchronize(g->halo));
    if (g->gvalid) MU_CUDA_KEEP(cudaGraphExecDestroy(g->graph));
    peer_destroy(g->peer);
    void *dev[] = {g->rowptr, g->col,  g->interior, g->boundary, g->send_index,
                   g->val,    g->dinv, g->send_dev, g->words,    g->st_dev};
    for (void *d : dev)
        if (d) MU_CUDA_KEEP(cudaFree(d));
    void *pin[] = {g->send_pin, g->ghost_pin, g->words_pin, g->stage, g->st_pin};
    for (void *h : pin)
        if (h) MU_CUDA_KEEP(cudaFreeHost(h));
    cudaEvent_t ev[] = {g->ev_x,     g->ev_packed, g->ev_ghosts, g->ev_st[0],
                        g->ev_st[1], g->ev_take,   g->ev_bnd,    g->ev_read};
    for (cudaEvent_t e : ev)
        if (e) MU_CUDA_KEEP(cudaEventDestroy(e));
    if (g->work) MU_CUDA_KEEP(cudaStreamDestroy(g->work));
    if (g->halo) MU_CUDA_KEEP(cudaStreamDestroy(g->halo));
    (void)rc; /* nothing to report from a teardown */
    free(g);
}

int mu_gpu_cg_create(const mu_gpu_cg_desc *d, mu_gpu_cg **out) {
    if (!out) return mu_gpu_fail("mu_gpu_cg_create: out is NULL");
    *out = nullptr;
    if (!d || d->nloc < 0 || d->nghost < 0 || (d->nloc > 0 && (!d->rowptr || !d->col || !d->val)))
        return mu_gpu_fail("mu_gpu_cg_create: incomplete matrix description");
    const int64_t nnz = d->rowptr ? d->rowptr[d->nloc] : 0;
    if (d->nloc + d->nghost > INT32_MAX || nnz > INT32_MAX || d->nsend > INT32_MAX)
        return mu_gpu_fail("cg: a rank's block of %lld rows, %lld ghosts and %lld nonzeros is "
                           "beyond the GPU path's 32-bit indices; use more ranks",
                           (long long)d->nloc, (long long)d->nghost, (long long)nnz);
    mu_gpu_cg *g = (mu_gpu_cg *)calloc(1, sizeof *g);
    if (!g) return mu_gpu_fail("cg: out of host memory");
    int rc = 0;
    g->fp32 = d->fp32 != 0;
    g->es = g->fp32 ? sizeof(float) : sizeof(double);
    g->nloc = d->nloc;
    g->nghost = d->nghost;
    g->nnz = nnz;
    g->ninterior = d->ninterior;
    g->nboundary = d->nboundary;
    g->nsend = d->nsend;
    g->lanes = lanes_env(mu_gpu_cg_lanes_for(d->mean_row));
    g->interior_first = range_first(d->interior, d->ninterior);
    g->boundary_first = range_first(d->boundary, d->nboundary);

    /* The halo stream first: its gather must not queue behind a grid-filling SpMV. */
    int prio_low = 0, prio_high = 0;
    MU_CUDA_GOTO(cudaDeviceGetStreamPriorityRange(&prio_low, &prio_high));
    MU_CUDA_GOTO(cudaStreamCreateWithFlags(&g->work, cudaStreamNonBlocking));
    MU_CUDA_GOTO(cudaStreamCreateWithPriority(&g->halo, cudaStreamNonBlocking, prio_high));
    MU_CUDA_GOTO(cudaEventCreateWithFlags(&g->ev_x, cudaEventDisableTiming));
    MU_CUDA_GOTO(cudaEventCreateWithFlags(&g->ev_packed, cudaEventDisableTiming));
    MU_CUDA_GOTO(cudaEventCreateWithFlags(&g->ev_ghosts, cudaEventDisableTiming));
    MU_CUDA_GOTO(cudaEventCreateWithFlags(&g->ev_st[0], cudaEventDisableTiming));
    MU_CUDA_GOTO(cudaEventCreateWithFlags(&g->ev_st[1], cudaEventDisableTiming));
    MU_CUDA_GOTO(cudaEventCreateWithFlags(&g->ev_take, cudaEventDisableTiming));
    MU_CUDA_GOTO(cudaEventCreateWithFlags(&g->ev_bnd, cudaEventDisableTiming));
    MU_CUDA_GOTO(cudaEventCreateWithFlags(&g->ev_read, cudaEventDisableTiming));

    {
        stager st;
        int up = stager_open(&st) || upload_block(g, d, &st);
        rc = stager_close(&st) || up;
        if (rc) goto done;
    }
    MU_CUDA_GOTO(cudaMalloc(&g->send_dev, (size_t)(d->nsend ? d->nsend : 1) * g->es));
    MU_CUDA_GOTO(cudaMallocHost(&g->send_pin, (size_t)(d->nsend ? d->nsend : 1) * g->es));
    MU_CUDA_GOTO(cudaMallocHost(&g->ghost_pin, (size_t)(d->nghost ? d->nghost : 1) * g->es));
    MU_CUDA_GOTO(cudaMalloc(&g->words, sizeof(long long) * NWORDS * NSLOTS));
    MU_CUDA_GOTO(cudaMemset(g->words, 0, sizeof(long long) * NWORDS * NSLOTS));
    MU_CUDA_GOTO(cudaMallocHost(&g->words_pin, sizeof(long long) * NWORDS * 2));
    MU_CUDA_GOTO(cudaMalloc(&g->st_dev, sizeof(dev_status)));
    MU_CUDA_GOTO(cudaMallocHost(&g->st_pin, 3 * sizeof(dev_status)));
    MU_CUDA_GOTO(cudaDeviceSynchronize());
done:
    if (rc) {
        mu_gpu_cg_destroy(g);
        return 1;
    }
    *out = g;
    return 0;
}

void *mu_gpu_cg_vec_new(mu_gpu_cg *g) {
    void *v = nullptr;
    const size_t n = (size_t)(g->nloc + g->nghost);
    cudaError_t e = cudaMalloc(&v, (n ? n : 1) * g->es);
    if (e != cudaSuccess) {
        mu_gpu_cuda_failed(__FILE__, __LINE__, "cudaMalloc", e);
        return nullptr;
    }
    e = cudaMemsetAsync(v, 0, (n ? n : 1) * g->es, g->work);
    if (e != cudaSuccess) {
        mu_gpu_cuda_failed(__FILE__, __LINE__, "cudaMemsetAsync", e);
        (void)cudaFree(v);
        return nullptr;
    }
    return v;
}

int mu_gpu_cg_vec_free(mu_gpu_cg *g, void *v) {
    if (!v) return 0;
    for (const void *k : g->gkey)
        if (g->gvalid && k == v) { /* the graph names this buffer: drop it */
            MU_CUDA(cudaGraphExecDestroy(g->graph));
            g->gvalid = 0;
        }
    if (g->peer && g->peer->p == v)
        g->peer->p = nullptr; /* the next allocation needs new exports */
    MU_CUDA(cudaStreamSynchronize(g->work));
    MU_CUDA(cudaFree(v));
    return 0;
}

int mu_gpu_cg_vec_set(mu_gpu_cg *g, void *v, const double *owned) {
    g->halo_open = 0; /* queued on `work` after the halo stream's wait */
    if (g->nloc <= 0) return 0;
    if (stage_ready(g)) return 1;
    /* The staging buffer may still feed an earlier copy. */
    MU_CUDA(cudaStreamSynchronize(g->work));
    if (g->fp32) {
        float *s = (float *)g->stage;
        for (int64_t i = 0; i < g->nloc; i++) s[i] = (float)owned[i];
    } else {
        memcpy(g->stage, owned, (size_t)g->nloc * sizeof(double));
    }
    MU_CUDA(cudaMemcpyAsync(v, g->stage, (size_t)g->nloc * g->es, cudaMemcpyHostToDevice, g->work));
    return 0;
}

int mu_gpu_cg_vec_get(mu_gpu_cg *g, const void *v, double *owned) {
    if (g->nloc <= 0) return 0;
    if (stage_ready(g)) return 1;
    MU_CUDA(cudaMemcpyAsync(g->stage, v, (size_t)g->nloc * g->es, cudaMemcpyDeviceToHost, g->work));
    MU_CUDA(cudaStreamSynchronize(g->work));
    if (g->fp32) {
        const float *s = (const float *)g->stage;
        for (int64_t i = 0; i < g->nloc; i++) owned[i] = (double)s[i];
    } else {
        memcpy(owned, g->stage, (size_t)g->nloc * sizeof(double));
    }
    return 0;
}

int mu_gpu_cg_vec_fill(mu_gpu_cg *g, void *v, double value) {
    g->halo_open = 0; /* queued on `work` after the halo stream's wait */
    const long long n = (long long)(g->nloc + g->nghost);
    return g->fp32 ? fill_t<float>(g, v, n, value) : fill_t<double>(g, v, n, value);
}

int mu_gpu_cg_vec_copy(mu_gpu_cg *g, const void *src, void *dst) {
    g->halo_open = 0; /* queued on `work` after the halo stream's wait */
    if (g->nloc <= 0 || src == dst) return 0;
    MU_CUDA(cudaMemcpyAsync(dst, src, (size_t)g->nloc * g->es, cudaMemcpyDeviceToDevice, g->work));
    return 0;
}

/* After the gather on the halo stream: the send values to pinned memory, unless
 * MPI takes them from the device; ev_packed marks them ready for MPI. */
static int send_ready(mu_gpu_cg *g) {
    if (!g->halo_device)
        MU_CUDA(cudaMemcpyAsync(g->send_pin, g->send_dev, (size_t)g->nsend * g->es,
                                cudaMemcpyDeviceToHost, g->halo));
    MU_CUDA(cudaEventRecord(g->ev_packed, g->halo));
    return 0;
}

int mu_gpu_cg_set_halo_device(mu_gpu_cg *g, int on) {
    g->halo_device = on != 0;
    return 0;
}

int mu_gpu_cg_halo_pack(mu_gpu_cg *g, const void *x) {
    /* x is written by kernels on `work`: the gather, and the boundary rows
     * after it (spmv_t), wait for them (after halo_pack_next: only the
     * ghosts' copy and the boundary rows, the send values being on their way). */
    MU_CUDA(cudaEventRecord(g->ev_x, g->work));
    MU_CUDA(cudaStreamWaitEvent(g->halo, g->ev_x, 0));
    g->halo_open = 1;
    if (g->halo_next) {
        g->halo_next = 0;
        return 0;
    }
    if (g->nsend <= 0) return 0;
    if (g->fp32 ? pack_t<float>(g, x) : pack_t<double>(g, x)) return 1;
    return send_ready(g);
}

int mu_gpu_cg_halo_pack_next(mu_gpu_cg *g, const void *zr, const void *p, double beta) {
    /* After the work that made zr; the direction pass queued next on `work`
     * waits only for the gather (ev_read), not for the copy. */
    MU_CUDA(cudaEventRecord(g->ev_x, g->work));
    MU_CUDA(cudaStreamWaitEvent(g->halo, g->ev_x, 0));
    g->halo_open = 0;
    g->halo_next = 1;
    if (g->nsend <= 0) return 0;
    if (g->fp32 ? pack_next_t<float>(g, zr, p, beta) : pack_next_t<double>(g, zr, p, beta))
        return 1;
    MU_CUDA(cudaEventRecord(g->ev_read, g->halo));
    MU_CUDA(cudaStreamWaitEvent(g->work, g->ev_read, 0));
    return send_ready(g);
}

int mu_gpu_cg_halo_wait(mu_gpu_cg *g, const void *x, void **send, void **ghosts) {
    if (send) *send = g->halo_device ? g->send_dev : g->send_pin;
    if (ghosts)
        *ghosts = !g->halo_device ? g->ghost_pin
                  : x             ? (void *)((const char *)x + (size_t)g->nloc * g->es)
                                  : nullptr;
    /* Also orders the previous exchange's ghost copy (same stream) before new receives. */
    MU_CUDA(cudaEventSynchronize(g->ev_packed));
    return 0;
}

int mu_gpu_cg_halo_unpack(mu_gpu_cg *g, void *x) {
    if (g->nghost <= 0) return 0;
    if (!g->halo_device) /* else MPI received the ghosts in place, before this call */
        MU_CUDA(cudaMemcpyAsync((char *)x + (size_t)g->nloc * g->es, g->ghost_pin,
                                (size_t)g->nghost * g->es, cudaMemcpyHostToDevice, g->halo));
    MU_CUDA(cudaEventRecord(g->ev_ghosts, g->halo));
    MU_CUDA(cudaStreamWaitEvent(g->work, g->ev_ghosts, 0));
    /* The next pack waits for ev_packed after this copy on the same stream. */
    MU_CUDA(cudaEventRecord(g->ev_packed, g->halo));
    return 0;
}

int mu_gpu_cg_spmv(mu_gpu_cg *g, int rows, const void *x, void *y, int acc) {
    if (rows == MU_GPU_CG_ALL) g->halo_open = 0;
    if (check_acc(acc)) return 1;
    if (rows < MU_GPU_CG_INTERIOR || rows > MU_GPU_CG_ALL)
        return mu_gpu_fail("mu_gpu_cg_spmv: row set %d", rows);
    return g->fp32 ? spmv_t<float>(g, rows, x, y, slot(g, acc))
                   : spmv_t<double>(g, rows, x, y, slot(g, acc));
}

int mu_gpu_cg_dot(mu_gpu_cg *g, const void *x, const void *y, int acc) {
    g->halo_open = 0; /* queued on `work` after the halo stream's wait */
    if (check_acc(acc)) return 1;
    if (acc < 0) return 0;
    return g->fp32 ? dot_t<float>(g, x, y, slot(g, acc)) : dot_t<double>(g, x, y, slot(g, acc));
}

int mu_gpu_cg_waxpby(mu_gpu_cg *g, double a, const void *x, double c, const void *y, void *w) {
    g->halo_open = 0; /* queued on `work` after the halo stream's wait */
    return g->fp32 ? waxpby_t<float>(g, a, x, c, y, w) : waxpby_t<double>(g, a, x, c, y, w);
}

int mu_gpu_cg_update(mu_gpu_cg *g, double alpha, const void *p, const void *q, void *x, void *r,
                     void *z, int acc_rz, int acc_rr) {
    g->halo_open = 0; /* queued on `work` after the halo stream's wait */
    if (check_acc(acc_rz) || check_acc(acc_rr)) return 1;
    return g->fp32 ? update_api<float>(g, true, alpha, p, q, x, r, z, acc_rz, acc_rr)
                   : update_api<double>(g, true, alpha, p, q, x, r, z, acc_rz, acc_rr);
}

int mu_gpu_cg_residual(mu_gpu_cg *g, double alpha, const void *q, void *r, void *z, int acc_rz,
                       int acc_rr) {
    g->halo_open = 0; /* queued on `work` after the halo stream's wait */
    if (check_acc(acc_rz) || check_acc(acc_rr)) return 1;
    return g->fp32 ? update_api<float>(g, true, alpha, nullptr, q, nullptr, r, z, acc_rz, acc_rr)
                   : update_api<double>(g, true, alpha, nullptr, q, nullptr, r, z, acc_rz, acc_rr);
}

int mu_gpu_cg_direction(mu_gpu_cg *g, double alpha, double beta, const void *zr, void *p, void *x) {
    g->halo_open = 0; /* queued on `work` after the halo stream's wait */
    return g->fp32 ? direction_t<float>(g, alpha, beta, zr, p, x)
                   : direction_t<double>(g, alpha, beta, zr, p, x);
}

int mu_gpu_cg_precond(mu_gpu_cg *g, const void *r, void *z, int acc_rz, int acc_rr) {
    g->halo_open = 0; /* queued on `work` after the halo stream's wait */
    if (check_acc(acc_rz) || check_acc(acc_rr)) return 1;
    void *rr = const_cast<void *>(r); /* read only: no update */
    return g->fp32
               ? update_api<float>(g, false, 0.0, nullptr, nullptr, nullptr, rr, z, acc_rz, acc_rr)
               : update_api<double>(g, false, 0.0, nullptr, nullptr, nullptr, rr, z, acc_rz,
                                    acc_rr);
}

int mu_gpu_cg_take(mu_gpu_cg *g, mu_xsum *acc0, mu_xsum *acc1) {
    /* Wait for the copy only: the zeroing runs while the caller reduces. */
    MU_CUDA(cudaMemcpyAsync(g->words_pin, g->words, sizeof(long long) * NWORDS * 2,
                            cudaMemcpyDeviceToHost, g->work));
    MU_CUDA(cudaEventRecord(g->ev_take, g->work));
    MU_CUDA(cudaMemsetAsync(g->words, 0, sizeof(long long) * NWORDS * 2, g->work));
    MU_CUDA(cudaEventSynchronize(g->ev_take));
    mu_xsum *dst[2] = {acc0, acc1};
    for (int s = 0; s < 2; s++) {
        if (!dst[s]) continue;
        mu_xsum t;
        memcpy(t.w, g->words_pin + (size_t)s * NWORDS, sizeof t.w);
        mu_xsum_normalize(&t); /* digits back under 2^32 before they join the caller's */
        mu_xsum_merge(dst[s], &t);
    }
    return 0;
}

int mu_gpu_cg_iterate(mu_gpu_cg *g, void *x, void *r, void *p, void *q, void *z,
                      mu_gpu_cg_iter *it) {
    g->halo_open = 0;
    it->done = 0;
    it->stop = MU_GPU_CG_RUNNING;
    if (it->count <= 0) return 0;
    const bool peer = mu_gpu_cg_peer_ready(g, p) != 0;
    if (!peer && (g->nghost > 0 || g->nboundary > 0))
        return mu_gpu_fail("cg: whole iterations on the device need a matrix without ghosts "
                           "(one rank) or the peer form (mu_gpu_cg_peer_open)");
    if ((z != nullptr) != (g->dinv != nullptr))
        return mu_gpu_fail("cg: iterate: z must be given exactly when the context has Jacobi");
    if (g->nloc <= 0) return mu_gpu_fail("cg: iterate on an empty block");
    const void *key[5] = {x, r, p, q, z};
    it->graph_s = 0;
    if (!g->gvalid || g->gpeer != (int)peer || memcmp(key, g->gkey, sizeof key) != 0) {
        const double tg = seconds_now();
        if (build_graph(g, x, r, p, q, z, peer)) return 1;
        it->graph_s = seconds_now() - tg;
    }
    dev_status *init = &g->st_pin[2];
    memset(init, 0, sizeof *init);
    init->rz = it->rz;
    init->rr = it->rr;
    init->tol = it->tol;
    init->limit = it->count;
    init->jacobi = z != nullptr;
    MU_CUDA(cudaMemcpyAsync(g->st_dev, init, sizeof *init, cudaMemcpyHostToDevice, g->work));
    MU_CUDA(cudaMemsetAsync(slot(g, SLOT_PAP), 0, sizeof(long long) * NWORDS * 3, g->work));
    if (peer && g->peer->ranges && (g->fp32 ? peer_pack_t<float>(g, p) : peer_pack_t<double>(g, p)))
        return 1;
    const double t0 = seconds_now();
    /* Batch j's status lands in st_pin[j % 2]; batch j + 1 is queued before waiting for j. */
    MU_CUDA(cudaGraphLaunch(g->graph, g->work));
    MU_CUDA(cudaMemcpyAsync(&g->st_pin[0], g->st_dev, sizeof(dev_status), cudaMemcpyDeviceToHost,
                            g->work));
    MU_CUDA(cudaEventRecord(g->ev_st[0], g->work));
    int last = 0;
    for (long long j = 0;; j++) {
        const int cur = (int)(j % 2), nxt = 1 - cur;
        /* The peer form never returns early by time: every rank runs `count`. */
        const bool more = (j + 1) * BATCH < it->count &&
                          (peer || it->seconds <= 0 || seconds_now() - t0 < it->seconds);
        if (more) {
            MU_CUDA(cudaGraphLaunch(g->graph, g->work));
            MU_CUDA(cudaMemcpyAsync(&g->st_pin[nxt], g->st_dev, sizeof(dev_status),
                                    cudaMemcpyDeviceToHost, g->work));
            MU_CUDA(cudaEventRecord(g->ev_st[nxt], g->work));
        }
        MU_CUDA(cudaEventSynchronize(g->ev_st[cur]));
        last = cur;
        if (!more) break;
        if (g->st_pin[cur].stop != MU_GPU_CG_RUNNING) {
            MU_CUDA(cudaEventSynchronize(g->ev_st[nxt]));
            last = nxt;
            break;
        }
    }
    const dev_status s = g->st_pin[last];
    it->done = s.done;
    it->stop = s.stop;
    it->rz = s.rz;
    it->rr = s.rr;
    if (s.stop == MU_GPU_CG_RR || s.stop == MU_GPU_CG_RZ) {
        MU_CUDA(cudaMemcpy(it->bad.w, slot(g, s.stop == MU_GPU_CG_RR ? SLOT_RR : SLOT_RZ),
                           sizeof it->bad.w, cudaMemcpyDeviceToHost));
    }
    return 0;
}

int mu_gpu_cg_peer_export(mu_gpu_cg *g, void *p, mu_gpu_cg_handle *box, mu_gpu_cg_handle *vec) {
    if (!g || !p) return mu_gpu_fail("mu_gpu_cg_peer_export: no context or vector");
    return peer_export(&g->peer, p, box, vec);
}

int mu_gpu_cg_peer_open(mu_gpu_cg *g, void *p, const mu_gpu_cg_peer_desc *d) {
    if (!g || !p || !d)
        return mu_gpu_fail("mu_gpu_cg_peer_open: no context, vector or description");
    if (d->nsend_ranks > 0 && d->send_offset[d->nsend_ranks] != g->nsend)
        return mu_gpu_fail("cg: peer form: %lld values to send, the context has %lld",
                           (long long)d->send_offset[d->nsend_ranks], (long long)g->nsend);
    if (g->gvalid && g->gpeer) { /* its kernels read the old exchange */
        MU_CUDA(cudaGraphExecDestroy(g->graph));
        g->gvalid = 0;
    }
    return peer_open(g->peer, p, d, g->send_index, g->es);
}

int mu_gpu_cg_peer_ready(const mu_gpu_cg *g, const void *p) {
    return g && g->peer && p && g->peer->p == p;
}

int mu_gpu_cg_peer_close(mu_gpu_cg *g) {
    if (!g || !g->peer) return 0;
    if (g->gvalid && g->gpeer) {
        MU_CUDA(cudaGraphExecDestroy(g->graph));
        g->gvalid = 0;
    }
    return peer_close(g->peer);
}

} /* extern "C" */
