/* Internal to gpu/cg_*.cu: the peer form of mu_gpu_cg_iterate (several
 * ranks, one GPU each on one node, peer access between them; see cg_gpu.h).
 *
 * Each rank owns an exchange box in device memory, exported with CUDA IPC and
 * opened by every other rank: flags, one per kind of exchange and sending
 * rank, that hold the tag of that rank's last exchange of the kind, and slots
 * for the other ranks' exact-sum words. Tags count the exchanges of a kind
 * (1, 2, ...); every rank makes the same exchanges in the same order (they
 * all compute the same alpha, beta and stopping decisions), so the counts
 * agree. Words go in by the parity of their tag.
 *
 * One iteration, per rank, on one stream (kernels of cg_gpu.cu):
 *   H  k_peer_pack: the send values of p stored straight into the
 *      neighbours' ghost slots of their p (peer pointers); its last block
 *      raises this rank's halo flag at every neighbour it sends to, then
 *      waits for the flags of the neighbours it receives from (where every
 *      send segment is a range of rows, the usual case, the F before does
 *      this as it makes p: k_peer_finish; H then runs once per call);
 *   A  the SpMV q = A p on all rows with p'Ap; its last block (S1,
 *      peer_step_alpha) sends this rank's p'Ap words to every other rank,
 *      waits for theirs, adds them (integer digits: exact, any order, the
 *      same total on every rank) and runs step_alpha on the total;
 *   B  k_update, r -= alpha q with r'r (and r'z): its last block exchanges the
 *      words the same way and runs step_beta on the totals;
 *   F  k_finish: x += alpha p; p = z + beta p on the owned rows (or
 *      k_peer_finish, with H of the next iteration).
 * Every kernel that spins does so in the last block of its grid (H, A, B),
 * and spins only on flags raised by the other GPUs' kernels of
 * the same step, which each rank raises before it waits: no rank waits on
 * work queued behind its own wait.
 *
 * Ordering. A rank j overwrites rank i's ghosts of p_k (with p_{k+1}, in H of
 * iteration k + 1, or in F_k with H) only after B_k's last block on j
 * returned, which waited for i's r'r words of iteration k; i publishes them
 * in its B_k, which its stream starts only after i's SpMV A_k, the only
 * reader of the ghosts of p_k, finished. So no ghost is overwritten while
 * read. Likewise j's words of exchange t + 2 of a kind (same parity slot as
 * t) need i's words of the exchange of the other kind in between, which i
 * sends only after it has read t's. The halo flag is released after every
 * thread's stores and a system fence (the ticket pattern of last_block at
 * system scope); a waiter acquires the flag before its kernel ends, so the
 * SpMV after it reads the new ghosts. */
#ifndef MU_GPU_CG_PEER_H
#define MU_GPU_CG_PEER_H
#include <cuda_runtime.h>

#include "gpu/cg_gpu.h"
#include "gpu/cg_impl.h"

namespace mu_cg {

constexpr int PEER_MAX = MU_GPU_CG_PEER_MAX;
enum { PEER_HALO = 0, PEER_ALPHA = 1, PEER_BETA = 2 };
/* A rank that waits this long for another rank's flag gives up (stop PEER_LOST). */
constexpr unsigned long long PEER_TIMEOUT_NS = 60ull * 1000000000ull;

/* One rank's exchange box (device memory, exported). */
struct peer_box {
    /* Written by the other ranks: flag[kind][j] is the tag of rank j's last exchange. */
    unsigned long long flag[3][PEER_MAX];
    /* words[0: p'Ap, 1: r'r then r'z][tag parity][sending rank][sum][word] */
    long long words[2][2][PEER_MAX][2][NWORDS];
    /* This rank's own: exchanges made of each kind, and k_peer_pack's blocks done. */
    unsigned long long seq[3];
    unsigned ticket;
};

/* The kernels' view of the exchange (device memory; set by peer_open). */
struct peer_dev {
    int rank, size;
    int normalize; /* normalize the words before the sum: they could overflow int64 */
    peer_box *mine;
    peer_box *box[PEER_MAX]; /* the other ranks' boxes, opened ([rank]: NULL) */
    int nother, other[PEER_MAX];
    /* The halo: send segment s goes to rank seg_rank[s], from seg_dst[s] on. */
    int nseg, seg_rank[PEER_MAX];
    long long seg_off[PEER_MAX + 1];
    char *seg_dst[PEER_MAX];
    long long seg_first[PEER_MAX]; /* ranges: segment s sends rows seg_first[s].. in order */
    int nrecv, recv_rank[PEER_MAX];
    const int *send_index;
};

/* The host side: this rank's box and what it opened. */
struct peer_link {
    peer_box *box;
    peer_dev *dev;
    const void *p; /* the vector opened for (NULL: none, or freed since) */
    int ranges;    /* every send segment is a range of rows: F sends the ghosts (F with H) */
    void *vec[PEER_MAX];
    peer_box *boxes[PEER_MAX];
};

/* cg_peer.cu. */
int peer_export(peer_link **link, void *p, mu_gpu_cg_handle *box, mu_gpu_cg_handle *vec);
int peer_open(peer_link *l, void *p, const mu_gpu_cg_peer_desc *d, const int *send_index,
              size_t es);
int peer_close(peer_link *l);
void peer_destroy(peer_link *l);

/* ---- device side ---- */

__device__ __forceinline__ unsigned long long peer_load(const unsigned long long *f) {
    unsigned long long v;
    asm volatile("ld.acquire.sys.u64 %0, [%1];" : "=l"(v) : "l"(f) : "memory");
    return v;
}

__device__ __forceinline__ void peer_store(unsigned long long *f, unsigned long long v) {
    asm volatile("st.release.sys.u64 [%0], %1;" ::"l"(f), "l"(v) : "memory");
}

__device__ __forceinline__ unsigned long long peer_clock() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* One thread: until rank ranks[i]'s flag of this kind reached tag, for every
 * i; false after PEER_TIMEOUT_NS without progress. */
static __device__ __noinline__ bool peer_wait(const peer_box *mine, int kind, const int *ranks,
                                              int n, unsigned long long tag) {
    unsigned long long start = 0;
    for (int i = 0; i < n; i++) {
        const unsigned long long *f = &mine->flag[kind][ranks[i]];
        while (peer_load(f) < tag) {
            const unsigned long long t = peer_clock();
            if (!start)
                start = t;
            else if (t - start > PEER_TIMEOUT_NS)
                return false;
        }
        start = 0;
    }
    return true;
}

/* Every thread of one block (a one-block grid, or the last block of a grid
 * whose words are complete): this rank's `count` (1 or 2) sums w0, w1 plus
 * every other rank's, written back into w0, w1, where step_alpha and
 * step_beta read them. s0, s1: shared scratch. Integer words: the total is
 * exact and the same on every rank. False (every thread) when a rank did not
 * answer. */
static __device__ __noinline__ bool peer_allreduce(const peer_dev *pd, int kind, int count,
                                                   long long *w0, long long *w1, mu_xsum *s0,
                                                   mu_xsum *s1) {
    __shared__ unsigned long long tag_s;
    __shared__ int ok_s;
    peer_box *mine = pd->mine;
    if (threadIdx.x == 0) tag_s = mine->seq[kind] + 1;
    for (int t = threadIdx.x; t < count * NWORDS; t += blockDim.x) {
        const int c = t / NWORDS, i = t % NWORDS;
        (c ? s1 : s0)->w[i] = ((volatile const long long *)(c ? w1 : w0))[i];
    }
    __syncthreads();
    if (pd->normalize && threadIdx.x < count) mu_xsum_normalize(threadIdx.x ? s1 : s0);
    __syncthreads();
    const unsigned long long tag = tag_s;
    const int par = (int)(tag & 1), sl = kind == PEER_ALPHA ? 0 : 1;
    for (int o = 0; o < pd->nother; o++) {
        long long *dst = &pd->box[pd->other[o]]->words[sl][par][pd->rank][0][0];
        for (int t = threadIdx.x; t < count * NWORDS; t += blockDim.x)
            dst[t] = (t / NWORDS ? s1 : s0)->w[t % NWORDS];
    }
    if (threadIdx.x < count * NWORDS) __threadfence_system(); /* the threads that stored */
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence_system();
        for (int o = 0; o < pd->nother; o++)
            peer_store(&pd->box[pd->other[o]]->flag[kind][pd->rank], tag);
        ok_s = peer_wait(mine, kind, pd->other, pd->nother, tag);
        if (ok_s) mine->seq[kind] = tag;
    }
    __syncthreads();
    if (!ok_s) return false;
    for (int t = threadIdx.x; t < count * NWORDS; t += blockDim.x) {
        const int c = t / NWORDS, i = t % NWORDS;
        unsigned long long v = (unsigned long long)(c ? s1 : s0)->w[i];
        for (int o = 0; o < pd->nother; o++) {
            const volatile long long *src = &mine->words[sl][par][pd->other[o]][0][0];
            v += (unsigned long long)src[t];
        }
        (c ? w1 : w0)[i] = (long long)v;
    }
    __syncthreads();
    return true;
}

/* S1 in the SpMV's last block (every thread; sh: the block's shared words as
 * scratch): the p'Ap words summed over the ranks, then step_alpha; pd NULL:
 * step_alpha alone (one rank). */
static __device__ __forceinline__ void peer_step_alpha(const peer_dev *pd, dev_status *st,
                                                       long long *words, mu_xsum *sh, int cur) {
    if (pd && !peer_allreduce(pd, PEER_ALPHA, 1, words, nullptr, sh, nullptr)) {
        if (threadIdx.x == 0) st->stop = MU_GPU_CG_PEER_LOST;
        return;
    }
    step_alpha(st, words, sh, cur);
}

} // namespace mu_cg
#endif
