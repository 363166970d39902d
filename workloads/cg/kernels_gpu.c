/* The GPU backend of the cg solver: the table of kernels.h filled from the
 * CUDA kernels behind gpu/cg_gpu.h. Vectors live on the device.
 *
 * Halo. halo_begin queues the gather of the values to send and their copy to
 * pinned host memory on the halo stream; spmv on the interior rows queues its
 * kernel first, then waits for that copy and posts the messages (mpi/halo.c,
 * nonblocking), so the exchange flies while the interior rows compute;
 * halo_end waits for the messages and queues the copy into the ghost slots,
 * which the boundary rows' kernel waits for on the device.
 *
 * Reductions. A call that adds into an accumulator (spmv with xy, dot,
 * cg_update, cg_residual, precond) waits for its kernel and adds the device's
 * exact words into the host mu_xsum: the solver reads it next, and on several
 * ranks reduces it over MPI. On one rank the table's iterate entry runs whole
 * iterations on the device instead, alpha and beta kept there and the status
 * read once per batch of iterations, with the same bits.
 *
 * Several ranks: iterate drives each iteration from the host with no more
 * than it needs, in this order: gather of p's send values and their copy to
 * pinned memory (halo stream, high priority); the interior rows' SpMV with
 * p'Ap (work stream); wait for the copy, post the messages, wait for them
 * (the interior SpMV runs meanwhile); ghosts to the device (halo stream), the
 * boundary rows' SpMV after them; the p'Ap words to the host (the one wait on
 * the GPU), MPI_Allreduce; r -= alpha q with r'z, r'r; their words,
 * MPI_Allreduce; the next p's send values (z + beta p at the send rows,
 * gathered and copied before the direction pass overwrites p); x += alpha p,
 * p = z + beta p; next iteration, whose messages are posted as soon as the
 * copy is done, while the direction pass and the interior rows run. Two host
 * waits on the GPU and two allreduces an iteration, the table path's
 * arithmetic in its order (same bits), no host-side vector work.
 *
 * Several ranks on one node, each on its own GPU, the GPUs with peer access
 * to each other: iterate runs whole iterations on the device too (the peer
 * form of mu_gpu_cg_iterate, gpu/cg_peer.h): the halo stored straight into
 * the neighbours' ghost slots and the exact sums added on every device, no
 * host step per iteration. The first iterate decides (collectively) which
 * form runs and says so once; MUTIRAO_CG_PEER=0 keeps the host-driven form,
 * MUTIRAO_CG_PEER=1 forces the peer form also on ranks that share a GPU (for
 * tests on one GPU: the ranks' spinning kernels then take turns by the
 * device's time slices, slowly). Where every rank sends ranges of rows (row
 * blocks of a banded matrix), the direction pass sends the next ghosts.
 * Each p the solver hands over is exported once (CUDA IPC handles swapped
 * over MPI); after each call one small allreduce carries the ranks' errors
 * and pending signals (the stop flag).
 *
 * A CUDA failure inside an entry that returns nothing (the table's shape) is
 * logged on its rank; from then on the rank skips the device, still takes
 * part in every halo exchange, and adds a NaN to every dot product, so the
 * solver stops at its next reduction, on every rank, with a breakdown. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cg/kernels.h"
#include "cg/solve.h"
#include "core/cg_stop.h"
#include "core/error.h"
#include "core/log.h"
#include "core/signals.h"
#include "gpu/cg_gpu.h"
#include "gpu/gpu.h"
#include "mpi/binding.h"
#include "mpi/cuda_aware.h"
#include "mpi/wait.h"
#include "core/knobs.h"

typedef enum { HALO_IDLE, HALO_PACKED, HALO_POSTED } halo_state;
typedef enum { PEER_UNKNOWN, PEER_OFF, PEER_ON } peer_mode;

typedef struct {
    const cg_matrix *A;
    mu_gpu_cg *g;
    mu_halo_type halo_type;
    halo_state halo;
    int halo_device; /* MPI takes device buffers (CUDA-aware): no host copies */
    void *halo_x;    /* the vector of the exchange under way */
    int failed;
    peer_mode peer;     /* several-rank iterate on the device (decided by the first call) */
    double peer_s[4];   /* the peer form's one-off costs: decision, exports, opens, graph */
    int peer_said;      /* those logged */
    cg_gpu_times times; /* several-rank iterate */
} gpu_impl;

static void failed(gpu_impl *c, const char *what) {
    if (!c->failed)
        mu_log_all(MU_LOG_ERROR, "cg: GPU %s failed: %s (this rank now adds NaN to every dot)",
                   what, mu_gpu_error());
    c->failed = 1;
}

/* Runs a gpu/cg_gpu.h call unless the device failed before. */
#define GPU_DO(c, call, what)                                                                      \
    do {                                                                                           \
        if (!(c)->failed && (call)) failed((c), (what));                                           \
    } while (0)

static void take(gpu_impl *c, mu_xsum *acc0, mu_xsum *acc1) {
    GPU_DO(c, mu_gpu_cg_take(c->g, acc0, acc1), "reduction");
    if (!c->failed) return;
    if (acc0) acc0->w[MU_XSUM_NAN]++;
    if (acc1) acc1->w[MU_XSUM_NAN]++;
}

static void *vec_new(cg_backend *b) {
    gpu_impl *c = b->impl;
    if (c->failed) return NULL;
    void *v = mu_gpu_cg_vec_new(c->g);
    if (!v) mu_log_all(MU_LOG_ERROR, "cg: GPU vector: %s", mu_gpu_error());
    return v;
}

static void vec_free(cg_backend *b, void *v) {
    gpu_impl *c = b->impl;
    GPU_DO(c, mu_gpu_cg_vec_free(c->g, v), "free");
}

static void vec_set(cg_backend *b, void *v, const double *owned) {
    gpu_impl *c = b->impl;
    GPU_DO(c, mu_gpu_cg_vec_set(c->g, v, owned), "copy to the device");
}

static void vec_get(cg_backend *b, const void *v, double *owned) {
    gpu_impl *c = b->impl;
    GPU_DO(c, mu_gpu_cg_vec_get(c->g, v, owned), "copy from the device");
    if (c->failed)
        for (int64_t i = 0; i < b->nloc; i++) owned[i] = NAN;
}

static void vec_fill(cg_backend *b, void *v, double value) {
    gpu_impl *c = b->impl;
    GPU_DO(c, mu_gpu_cg_vec_fill(c->g, v, value), "fill");
}

static void vec_copy(cg_backend *b, const void *src, void *dst) {
    gpu_impl *c = b->impl;
    GPU_DO(c, mu_gpu_cg_vec_copy(c->g, src, dst), "copy");
}

static void halo_begin(cg_backend *b, void *x) {
    gpu_impl *c = b->impl;
    GPU_DO(c, mu_gpu_cg_halo_pack(c->g, x), "halo gather");
    c->halo_x = x;
    c->halo = HALO_PACKED;
}

/* The send values are ready (on the host, or on the device for a CUDA-aware
 * MPI, which then receives straight into x's ghost slots): post the messages. */
static void halo_post(gpu_impl *c) {
    if (c->halo != HALO_PACKED) return;
    void *send = NULL, *ghosts = NULL;
    GPU_DO(c, mu_gpu_cg_halo_wait(c->g, c->halo_x, &send, &ghosts), "halo copy");
    mu_halo_begin_packed(c->A->halo, send, ghosts, c->halo_type);
    c->halo = HALO_POSTED;
}

static void halo_end(cg_backend *b, void *x) {
    gpu_impl *c = b->impl;
    if (c->halo == HALO_IDLE) return;
    halo_post(c);
    mu_halo_end(c->A->halo);
    GPU_DO(c, mu_gpu_cg_halo_unpack(c->g, x), "ghost copy");
    c->halo = HALO_IDLE;
}

static void spmv(cg_backend *b, cg_rows rows, const void *x, void *y, mu_xsum *xy) {
    gpu_impl *c = b->impl;
    int r = rows == CG_ROWS_INTERIOR   ? MU_GPU_CG_INTERIOR
            : rows == CG_ROWS_BOUNDARY ? MU_GPU_CG_BOUNDARY
                                       : MU_GPU_CG_ALL;
    GPU_DO(c, mu_gpu_cg_spmv(c->g, r, x, y, xy ? 0 : -1), "SpMV");
    if (rows == CG_ROWS_INTERIOR) halo_post(c); /* the interior kernel is queued: send now */
    if (xy) take(c, xy, NULL);
}

static void dot(cg_backend *b, const void *x, const void *y, mu_xsum *xy) {
    gpu_impl *c = b->impl;
    GPU_DO(c, mu_gpu_cg_dot(c->g, x, y, 0), "dot product");
    take(c, xy, NULL);
}

static void waxpby(cg_backend *b, double a, const void *x, double cc, const void *y, void *w) {
    gpu_impl *c = b->impl;
    GPU_DO(c, mu_gpu_cg_waxpby(c->g, a, x, cc, y, w), "waxpby");
}

static void cg_update(cg_backend *b, double alpha, const void *p, const void *q, void *x, void *r,
                      void *z, mu_xsum *rz, mu_xsum *rr) {
    gpu_impl *c = b->impl;
    GPU_DO(c, mu_gpu_cg_update(c->g, alpha, p, q, x, r, z, z && rz ? 1 : -1, rr ? 0 : -1),
           "vector update");
    take(c, rr, z ? rz : NULL);
}

static void cg_residual(cg_backend *b, double alpha, const void *q, void *r, void *z, mu_xsum *rz,
                        mu_xsum *rr) {
    gpu_impl *c = b->impl;
    GPU_DO(c, mu_gpu_cg_residual(c->g, alpha, q, r, z, z && rz ? 1 : -1, rr ? 0 : -1),
           "vector update");
    take(c, rr, z ? rz : NULL);
}

static void cg_direction(cg_backend *b, double alpha, double beta, const void *z, void *p,
                         void *x) {
    gpu_impl *c = b->impl;
    GPU_DO(c, mu_gpu_cg_direction(c->g, alpha, beta, z, p, x), "direction update");
}

static void precond(cg_backend *b, const void *r, void *z, mu_xsum *rz, mu_xsum *rr) {
    gpu_impl *c = b->impl;
    GPU_DO(c, mu_gpu_cg_precond(c->g, r, z, z && rz ? 1 : -1, rr ? 0 : -1), "preconditioner");
    take(c, rr, z ? rz : NULL);
}

/* mu_gpu_cg_iterate's input from the solver's state. */
static void iter_in(mu_gpu_cg_iter *it, int64_t count, double tol, double rz, double rr) {
    memset(it, 0, sizeof *it);
    it->rz = rz;
    it->rr = rr;
    it->tol = tol;
    it->count = count;
}

/* The solver's state from mu_gpu_cg_iterate's output; a sum that is not
 * finite gets the table path's message, for the iteration after the last one
 * made (several ranks: its words summed over the ranks, the same message on
 * every rank). */
static int iter_out(const mu_gpu_cg_iter *it, double *rz, double *rr, int64_t *k) {
    *k += it->done;
    if (it->done > 0) {
        *rz = it->rz;
        *rr = it->rr;
    }
    if (it->stop == MU_GPU_CG_RR || it->stop == MU_GPU_CG_RZ) {
        double v;
        return cg_value(&it->bad, &v, it->stop == MU_GPU_CG_RR ? "r'r" : "r'z", *k);
    }
    return 0;
}

/* One rank: batches of whole iterations on the device (mu_gpu_cg_iterate). */
static int iterate_one(cg_backend *b, int64_t count, double tol, void *x, void *r, void *p, void *q,
                       void *z, double *rz, double *rr, int64_t *k) {
    gpu_impl *c = b->impl;
    if (c->failed) return 0; /* the table path's NaN stops the solver */
    mu_gpu_cg_iter it;
    iter_in(&it, count, tol, *rz, *rr);
    it.seconds = 0.5; /* back to the solver twice a second: progress, signals */
    MU_TRY(MU_GPU(mu_gpu_cg_iterate(c->g, x, r, p, q, z, &it), "cg: GPU iterations failed"));
    b->setup_seconds += it.graph_s;
    return iter_out(&it, rz, rr, k);
}

/* Several ranks (see the top of the file). Every decision comes from reduced
 * values, so all ranks leave after the same iteration; a rank whose device
 * failed keeps exchanging and adds NaN (take), which stops every rank. */
static int iterate_ranks(cg_backend *b, MPI_Comm comm, int64_t count, double tol, void *x, void *r,
                         void *p, void *q, void *z, double *rz, double *rr, int64_t *k, int *stop) {
    gpu_impl *c = b->impl;
    cg_gpu_times *t = &c->times;
    const double start = MPI_Wtime();
    cg_reduction red;
    int rc = 0;
    for (int64_t i = 0; i < count && !rc; i++) {
        /* q = A p, interior rows while the halo travels; p'Ap. */
        double t0 = MPI_Wtime();
        halo_begin(b, p);
        GPU_DO(c, mu_gpu_cg_spmv(c->g, MU_GPU_CG_INTERIOR, p, q, 0), "SpMV");
        halo_post(c);
        double t1 = MPI_Wtime();
        halo_end(b, p); /* the messages, then the ghosts' copy queued */
        double t2 = MPI_Wtime();
        GPU_DO(c, mu_gpu_cg_spmv(c->g, MU_GPU_CG_BOUNDARY, p, q, 0), "SpMV");
        memset(&red.acc[0], 0, sizeof red.acc[0]);
        take(c, &red.acc[0], NULL);
        double t3 = MPI_Wtime();
        cg_reduce(comm, &red, 1);
        double t4 = MPI_Wtime();
        t->halo_copy += t1 - t0;
        t->halo_mpi += t2 - t1;
        t->spmv_wait += t3 - t2;
        t->allreduce += t4 - t3;
        mu_xsum_status st;
        const double pap = mu_xsum_round(&red.acc[0], &st);
        if (st != MU_XSUM_FINITE || !(pap > 0)) break; /* undone: the table path reports it */
        const double alpha = *rz / pap;
        /* r -= alpha q; z; r'z, r'r. */
        memset(&red.acc[0], 0, 2 * sizeof red.acc[0]);
        cg_residual(b, alpha, q, r, z, &red.acc[1], &red.acc[0]);
        double t5 = MPI_Wtime();
        const int64_t flag = cg_reduce(comm, &red, z ? 2 : 1);
        double t6 = MPI_Wtime();
        t->update_wait += t5 - t4;
        t->allreduce += t6 - t5;
        double rr_new, rz_new;
        if ((rc = cg_value(&red.acc[0], &rr_new, "r'r", *k))) break;
        rz_new = rr_new;
        if (z && (rc = cg_value(&red.acc[1], &rz_new, "r'z", *k))) break;
        const double beta = rz_new / *rz;
        const int last = flag || i + 1 >= count || mu_cg_converged(rr_new, tol);
        /* The next halo's send values before the direction pass: its messages
         * then fly during that pass too (the next halo_begin only orders). */
        if (!last) GPU_DO(c, mu_gpu_cg_halo_pack_next(c->g, z ? z : r, p, beta), "halo gather");
        cg_direction(b, alpha, beta, z ? z : r, p, x);
        *rz = rz_new;
        *rr = rr_new;
        ++*k;
        t->iterations++;
        if (flag) {
            *stop = 1;
            break;
        }
        if (last) break;
    }
    t->total += MPI_Wtime() - start;
    return rc;
}

/* Why the peer form cannot run, by priority (the largest over the ranks is reported). */
enum {
    PEER_WHY_OK,
    PEER_WHY_ENV,
    PEER_WHY_DEVICE,
    PEER_WHY_SHARED,
    PEER_WHY_ACCESS,
    PEER_WHY_NODES,
    PEER_WHY_RANKS,
};
static const char *const peer_why[] = {
    "",
    "MUTIRAO_CG_PEER=0",
    "a GPU failed",
    "ranks share a GPU",
    "no peer access between the GPUs",
    "the ranks are not on one node",
    "more ranks than the peer form takes",
};

/* Device buffers to MPI where the library says it is CUDA-aware, else the
 * halo staged through pinned host memory. */
static int halo_route(gpu_impl *c) {
    const char *how = "";
    c->halo_device = mu_mpi_cuda_aware(&how);
    return mu_gpu_cg_set_halo_device(c->g, c->halo_device);
}

/* Collective: may every rank of comm run the peer form? Logs the answer once. */
static void peer_decide(gpu_impl *c, MPI_Comm comm) {
    int size = 1, rank = 0, why = PEER_WHY_OK;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    const int env = mu_knob_flag("MUTIRAO_CG_PEER", -1);
    const int force = env == 1;
    const int one_node = mu_comm_one_node(comm);
    if (size > MU_GPU_CG_PEER_MAX)
        why = PEER_WHY_RANKS;
    else if (!one_node)
        why = PEER_WHY_NODES;
    else if (env == 0)
        why = PEER_WHY_ENV;
    MPI_Allreduce(MPI_IN_PLACE, &why, 1, MPI_INT, MPI_MAX, comm);
    if (!why) { /* size <= MU_GPU_CG_PEER_MAX: the devices' bus ids */
        static const int link_why[] = {PEER_WHY_OK, PEER_WHY_SHARED, PEER_WHY_ACCESS,
                                       PEER_WHY_DEVICE};
        char bus[MU_GPU_CG_PEER_MAX][32];
        memset(bus, 0, sizeof bus);
        if (c->failed || mu_gpu_peer_bus(bus[rank])) why = PEER_WHY_DEVICE;
        MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, bus, (int)sizeof bus[0], MPI_CHAR, comm);
        for (int j = 0; j < size && !why; j++) {
            int link = j == rank ? MU_PEER_LINK_OK : mu_gpu_peer_link(bus[rank], bus[j]);
            why = force && link == MU_PEER_LINK_SHARED ? PEER_WHY_OK : link_why[link];
        }
        MPI_Allreduce(MPI_IN_PLACE, &why, 1, MPI_INT, MPI_MAX, comm);
    }
    c->peer = why ? PEER_OFF : PEER_ON;
    if (why)
        mu_info("cg: %d GPU ranks: iterations driven from the host, halo and reductions through "
                "MPI (%s), the halo from %s",
                size, peer_why[why],
                c->halo_device ? "device memory (CUDA-aware MPI)" : "pinned host memory");
    else
        mu_info("cg: %d GPU ranks on one node with peer access: whole iterations on the devices, "
                "halo and reductions through peer memory (CUDA IPC)%s",
                size, force ? " (MUTIRAO_CG_PEER=1)" : "");
}

/* Collective (size <= MU_GPU_CG_PEER_MAX): the peer form set up for p on
 * every rank (returns 1), or not this time (0: a rank's device failed before;
 * the host path then stops the solver), or turned off on every rank when a
 * rank cannot export or open the memory. */
static int peer_setup(gpu_impl *c, MPI_Comm comm, void *p) {
    int state[2] = {!mu_gpu_cg_peer_ready(c->g, p), c->failed};
    MPI_Allreduce(MPI_IN_PLACE, state, 2, MPI_INT, MPI_MAX, comm);
    if (state[1]) return 0;
    if (!state[0]) return 1;
    const double t0 = MPI_Wtime();
    int size = 1, rank = 0, bad = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    mu_halo_lists hl;
    mu_halo_get_lists(c->A->halo, &hl);
    /* Every rank's exports (box, p), and where each sender's values go in each
     * receiver's p: table[j][2 s] the offset in j's p, [2 s + 1] the count. */
    mu_gpu_cg_handle box[MU_GPU_CG_PEER_MAX], vec[MU_GPU_CG_PEER_MAX];
    int64_t table[MU_GPU_CG_PEER_MAX][2 * MU_GPU_CG_PEER_MAX];
    int64_t dest[MU_GPU_CG_PEER_MAX + 1];
    memset(box, 0, sizeof box);
    memset(vec, 0, sizeof vec);
    for (int s = 0; s < 2 * MU_GPU_CG_PEER_MAX; s++) table[rank][s] = s % 2 ? 0 : -1;
    for (int m = 0; m < hl.nrecv_ranks; m++) {
        const int s = hl.recv_rank[m];
        table[rank][2 * s] = c->A->nloc + hl.recv_offset[m];
        table[rank][2 * s + 1] = hl.recv_offset[m + 1] - hl.recv_offset[m];
    }
    /* The direction pass sends the ghosts only where every rank's segments are ranges. */
    int ranges = 1;
    for (int k = 0; k < hl.nsend_ranks && ranges; k++)
        ranges = mu_gpu_cg_peer_range(hl.send_index + hl.send_offset[k],
                                      hl.send_offset[k + 1] - hl.send_offset[k]);
    MPI_Allreduce(MPI_IN_PLACE, &ranges, 1, MPI_INT, MPI_MIN, comm);
    if (hl.nsend_ranks >= MU_GPU_CG_PEER_MAX || hl.nrecv_ranks >= MU_GPU_CG_PEER_MAX) {
        bad = 1;
    } else if (mu_gpu_cg_peer_export(c->g, p, &box[rank], &vec[rank])) {
        bad = 1;
        mu_log_all(MU_LOG_WARN, "cg: peer form: export failed: %s", mu_gpu_error());
    }
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, box, (int)sizeof box[0], MPI_BYTE, comm);
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, vec, (int)sizeof vec[0], MPI_BYTE, comm);
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, table, 2 * MU_GPU_CG_PEER_MAX, MPI_INT64_T,
                  comm);
    for (int k = 0; k < hl.nsend_ranks && !bad; k++) {
        const int j = hl.send_rank[k];
        const int64_t want = hl.send_offset[k + 1] - hl.send_offset[k];
        dest[k] = table[j][2 * rank];
        if (dest[k] < 0 || table[j][2 * rank + 1] != want) {
            bad = 1;
            mu_log_all(MU_LOG_WARN,
                       "cg: peer form: rank %d expects %lld values from this rank, which sends "
                       "%lld",
                       j, (long long)table[j][2 * rank + 1], (long long)want);
        }
    }
    if (!bad) {
        mu_gpu_cg_peer_desc d;
        memset(&d, 0, sizeof d);
        d.rank = rank;
        d.size = size;
        d.box = box;
        d.vec = vec;
        d.nsend_ranks = hl.nsend_ranks;
        d.nrecv_ranks = hl.nrecv_ranks;
        d.send_rank = hl.send_rank;
        d.recv_rank = hl.recv_rank;
        d.send_offset = hl.send_offset;
        d.send_index = hl.send_index;
        d.ranges = ranges;
        d.dest = dest;
        d.nglobal = c->A->n;
        c->peer_s[1] += MPI_Wtime() - t0;
        const double t1 = MPI_Wtime();
        const int orc = mu_gpu_cg_peer_open(c->g, p, &d);
        c->peer_s[2] += MPI_Wtime() - t1;
        if (orc) {
            bad = 1;
            mu_log_all(MU_LOG_WARN, "cg: peer form: opening the other ranks' memory failed: %s",
                       mu_gpu_error());
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, comm);
    if (!bad) return 1;
    if (mu_gpu_cg_peer_close(c->g)) failed(c, "peer memory release");
    c->peer = PEER_OFF;
    mu_warn("cg: the peer form could not be set up: iterations driven from the host from now on");
    return 0;
}

/* Several ranks, the peer form: the device iterations on every rank, then
 * one allreduce of the errors and the pending signals. */
static int iterate_peer(gpu_impl *c, MPI_Comm comm, int64_t count, double tol, void *x, void *r,
                        void *p, void *q, void *z, double *rz, double *rr, int64_t *k, int *stop) {
    const double start = MPI_Wtime();
    mu_gpu_cg_iter it;
    iter_in(&it, count, tol, *rz, *rr);
    int64_t flags[2] = {0, 0};
    if (mu_gpu_cg_iterate(c->g, x, r, p, q, z, &it)) {
        failed(c, "iterations");
        flags[0] = 1;
    } else if (it.stop == MU_GPU_CG_PEER_LOST) {
        mu_log_all(MU_LOG_ERROR, "cg: another rank's GPU did not answer for a minute");
        flags[0] = 1;
    }
    flags[1] = mu_signals_pending() != 0;
    mu_allreduce(flags, 2, MPI_INT64_T, MPI_SUM, comm);
    c->times.total += MPI_Wtime() - start;
    c->times.iterations += it.done;
    c->peer_s[3] += it.graph_s;
    if (!c->peer_said && !flags[0]) { /* once: what setting it up cost (max over the ranks) */
        double t[4];
        memcpy(t, c->peer_s, sizeof t);
        MPI_Allreduce(MPI_IN_PLACE, t, 4, MPI_DOUBLE, MPI_MAX, comm);
        mu_info("cg: peer form set up in %.1f ms (decision %.1f, exports %.1f, IPC opens %.1f, "
                "graph %.1f; max over the ranks)",
                1e3 * (t[0] + t[1] + t[2] + t[3]), 1e3 * t[0], 1e3 * t[1], 1e3 * t[2], 1e3 * t[3]);
        c->peer_said = 1;
    }
    if (flags[0])
        return mu_error("cg: GPU iterations failed on %lld rank(s) (peer form)",
                        (long long)flags[0]);
    *stop = flags[1] > 0;
    return iter_out(&it, rz, rr, k);
}

static double peer_seconds(const gpu_impl *c) {
    return c->peer_s[0] + c->peer_s[1] + c->peer_s[2] + c->peer_s[3];
}

static int iterate(cg_backend *b, MPI_Comm comm, int64_t count, double tol, void *x, void *r,
                   void *p, void *q, void *z, double *rz, double *rr, int64_t *k, int *stop) {
    gpu_impl *c = b->impl;
    int size = 1;
    MPI_Comm_size(comm, &size);
    *stop = 0;
    if (size == 1) return iterate_one(b, count, tol, x, r, p, q, z, rz, rr, k);
    const double before = peer_seconds(c);
    if (c->peer == PEER_UNKNOWN) {
        const double t0 = MPI_Wtime();
        peer_decide(c, comm);
        c->peer_s[0] = MPI_Wtime() - t0;
    }
    int rc;
    if (c->peer == PEER_ON && peer_setup(c, comm, p))
        rc = iterate_peer(c, comm, count, tol, x, r, p, q, z, rz, rr, k, stop);
    else
        rc = iterate_ranks(b, comm, count, tol, x, r, p, q, z, rz, rr, k, stop);
    b->setup_seconds += peer_seconds(c) - before;
    return rc;
}

void cg_backend_gpu_times(cg_backend *b, cg_gpu_times *t, int reset) {
    gpu_impl *c = b->impl;
    if (t) *t = c->times;
    if (reset) memset(&c->times, 0, sizeof c->times);
}

static void destroy(cg_backend *b) {
    gpu_impl *c = b ? b->impl : NULL;
    if (c) mu_gpu_cg_destroy(c->g);
    cg_backend_free(b);
}

mu_gpu_cg_desc cg_gpu_desc_block(const cg_matrix *A) {
    mu_gpu_cg_desc d;
    memset(&d, 0, sizeof d);
    d.nloc = A->nloc;
    d.nghost = A->nghost;
    d.rowptr = A->rowptr;
    d.col = A->col;
    d.val = A->val;
    d.interior = A->interior;
    d.boundary = A->boundary;
    d.ninterior = A->ninterior;
    d.nboundary = A->nboundary;
    return d;
}

int cg_backend_gpu(const cg_matrix *A, int fp32, int jacobi, cg_backend **out) {
    *out = NULL;
    cg_backend *b = cg_backend_new("gpu", A, fp32, sizeof(gpu_impl));
    if (!b) return 1;
    gpu_impl *c = b->impl;
    mu_halo_lists hl;
    mu_halo_get_lists(A->halo, &hl);
    mu_gpu_cg_desc d = cg_gpu_desc_block(A);
    d.diag = jacobi ? A->diag : NULL;
    d.send_index = hl.send_index;
    d.nsend = hl.nsend;
    d.mean_row =
        A->n > 0 ? (double)A->nnz / (double)A->n : 0.0; /* global: the same lanes on every rank */
    d.fp32 = fp32;
    c->A = A;
    c->halo_type = fp32 ? MU_HALO_FLOAT : MU_HALO_DOUBLE;
    int rc = MU_GPU(mu_gpu_cg_create(&d, &c->g) || halo_route(c),
                    "cg: cannot set up the matrix on the GPU");
    if (rc) {
        destroy(b);
        return rc;
    }
    mu_info("cg: GPU SpMV with %d lane%s per row (%s) for %.2f nonzeros per row; whole "
            "iterations: on the device on one rank; on several, on the devices where one "
            "node's GPUs reach each other, else driven from the host",
            mu_gpu_cg_lanes(c->g), mu_gpu_cg_lanes(c->g) > 1 ? "s" : "",
            mu_gpu_cg_lanes(c->g) > 1 ? "CSR-vector" : "CSR-scalar", d.mean_row);
    b->vec_new = vec_new;
    b->vec_free = vec_free;
    b->vec_set = vec_set;
    b->vec_get = vec_get;
    b->vec_fill = vec_fill;
    b->vec_copy = vec_copy;
    b->halo_begin = halo_begin;
    b->halo_end = halo_end;
    b->spmv = spmv;
    b->dot = dot;
    b->waxpby = waxpby;
    b->cg_update = cg_update;
    b->precond = precond;
    b->cg_residual = cg_residual;
    b->cg_direction = cg_direction;
    b->destroy = destroy;
    b->iterate = iterate;
    *out = b;
    return 0;
}
