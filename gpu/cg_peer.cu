/* The host side of the peer form of mu_gpu_cg_iterate (gpu/cg_peer.h): this
 * rank's exchange box, its IPC exports, and the other ranks' exports opened
 * into peer pointers for the kernels. The caller swaps the handles (MPI). */
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#include "gpu/cg_peer.h"
#include "gpu/check.h"

using namespace mu_cg;

static_assert(sizeof(cudaIpcMemHandle_t) == sizeof(mu_gpu_cg_handle), "IPC handle size");

int mu_cg::peer_export(peer_link **link, void *p, mu_gpu_cg_handle *box, mu_gpu_cg_handle *vec) {
    if (!*link) {
        peer_link *l = (peer_link *)calloc(1, sizeof *l);
        if (!l) return mu_gpu_fail("cg: out of host memory");
        *link = l;
        MU_CUDA(cudaMalloc(&l->box, sizeof(peer_box)));
        MU_CUDA(cudaMemset(l->box, 0, sizeof(peer_box)));
        MU_CUDA(cudaMalloc(&l->dev, sizeof(peer_dev)));
        MU_CUDA(cudaDeviceSynchronize());
    }
    cudaIpcMemHandle_t h;
    MU_CUDA(cudaIpcGetMemHandle(&h, (*link)->box));
    memcpy(box->b, &h, sizeof h);
    MU_CUDA(cudaIpcGetMemHandle(&h, p));
    memcpy(vec->b, &h, sizeof h);
    return 0;
}

int mu_cg::peer_close(peer_link *l) {
    if (!l) return 0;
    int rc = 0;
    /* No kernel of this device may still use a mapping. */
    MU_CUDA_KEEP(cudaDeviceSynchronize());
    for (int j = 0; j < PEER_MAX; j++) {
        if (l->vec[j]) MU_CUDA_KEEP(cudaIpcCloseMemHandle(l->vec[j]));
        if (l->boxes[j]) MU_CUDA_KEEP(cudaIpcCloseMemHandle(l->boxes[j]));
        l->vec[j] = nullptr;
        l->boxes[j] = nullptr;
    }
    l->p = nullptr;
    return rc;
}

static int bad_rank(int j, int size, int me, const char *what) {
    if (j >= 0 && j < size && j != me) return 0;
    return mu_gpu_fail("cg: peer form: %s neighbour %d of rank %d", what, j, me);
}

static int open_one(const mu_gpu_cg_handle *hd, void **out) {
    cudaIpcMemHandle_t h;
    memcpy(&h, hd->b, sizeof h);
    MU_CUDA(cudaIpcOpenMemHandle(out, h, cudaIpcMemLazyEnablePeerAccess));
    return 0;
}

int mu_cg::peer_open(peer_link *l, void *p, const mu_gpu_cg_peer_desc *d, const int *send_index,
                     size_t es) {
    if (!l || !l->box) return mu_gpu_fail("cg: peer_open before peer_export");
    if (peer_close(l)) return 1;
    const int me = d->rank, size = d->size;
    if (size < 2 || size > PEER_MAX || me < 0 || me >= size || d->nsend_ranks > PEER_MAX ||
        d->nrecv_ranks > PEER_MAX || d->nsend_ranks < 0 || d->nrecv_ranks < 0)
        return mu_gpu_fail("cg: peer form for rank %d of %d with %d / %d neighbours (at most %d "
                           "ranks)",
                           me, size, d->nsend_ranks, d->nrecv_ranks, PEER_MAX);
    int rc = 1; /* until every step is done */
    peer_dev c;
    memset(&c, 0, sizeof c);
    c.rank = me;
    c.size = size;
    /* Each rank's words add at most nloc terms of digits below 2^32 each;
     * the sum over ranks fits an int64 word below 2^31 rows in all. */
    c.normalize = d->nglobal >= (1ll << 30);
    c.mine = l->box;
    c.send_index = send_index;
    for (int j = 0; j < size; j++) {
        if (j == me) continue;
        if (open_one(&d->box[j], (void **)&l->boxes[j])) goto done;
        c.box[j] = l->boxes[j];
        c.other[c.nother++] = j;
    }
    c.nseg = d->nsend_ranks;
    for (int s = 0; s < d->nsend_ranks; s++) {
        const int j = d->send_rank[s];
        if (bad_rank(j, size, me, "send")) goto done;
        if (!l->vec[j] && open_one(&d->vec[j], &l->vec[j])) goto done;
        c.seg_rank[s] = j;
        c.seg_off[s] = d->send_offset[s];
        c.seg_dst[s] = (char *)l->vec[j] + (size_t)d->dest[s] * es;
    }
    c.seg_off[d->nsend_ranks] = d->send_offset[d->nsend_ranks];
    /* Ranges (the caller's decision, the same on every rank: the ranks must
     * make the same halo exchanges): segment s is rows first, first + 1, ... */
    l->ranges = d->ranges;
    for (int s = 0; s < d->nsend_ranks && l->ranges; s++) {
        if (!mu_gpu_cg_peer_range(d->send_index + d->send_offset[s],
                                  d->send_offset[s + 1] - d->send_offset[s])) {
            mu_gpu_fail("cg: peer form: send segment %d of rank %d is not a range of rows", s, me);
            goto done;
        }
        c.seg_first[s] = d->send_index[d->send_offset[s]];
    }
    c.nrecv = d->nrecv_ranks;
    for (int m = 0; m < d->nrecv_ranks; m++) {
        if (bad_rank(d->recv_rank[m], size, me, "receive")) goto done;
        c.recv_rank[m] = d->recv_rank[m];
    }
    {
        cudaError_t e = cudaMemcpy(l->dev, &c, sizeof c, cudaMemcpyHostToDevice);
        if (e != cudaSuccess) {
            mu_gpu_cuda_failed(__FILE__, __LINE__, "cudaMemcpy", e);
            goto done;
        }
    }
    l->p = p;
    rc = 0;
done:
    if (rc) (void)peer_close(l);
    return rc;
}

void mu_cg::peer_destroy(peer_link *l) {
    if (!l) return;
    int rc = peer_close(l);
    if (l->box) MU_CUDA_KEEP(cudaFree(l->box));
    if (l->dev) MU_CUDA_KEEP(cudaFree(l->dev));
    (void)rc; /* nothing to report from a teardown */
    free(l);
}
