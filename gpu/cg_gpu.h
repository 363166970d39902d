/* CUDA kernels of the cg workload, as a C API (no workload header: the caller
 * hands over plain arrays). Every function exists in CPU-only builds too
 * (gpu/gpu_none.c), where it fails with "this build has no CUDA support".
 * Functions return 0 on success, or 1 with a message in mu_gpu_error().
 *
 * One context holds a rank's block of the matrix on the device: CSR with 32-bit
 * row pointers, local columns (owned 0..nloc-1, ghost slots nloc.. after them),
 * values in double or float, the interior and boundary row lists, 1/diag for
 * Jacobi and the halo's send list. Vectors are device arrays of nloc + nghost
 * entries of the context's type.
 *
 * Arithmetic. Each row of A x is summed by a sub-warp of `lanes` lanes (1: one
 * thread per row, CSR-scalar; 2..32: CSR-vector), lane l taking entries l, l +
 * lanes, ... in order, then a fixed shuffle tree: the bits of a row depend
 * only on the row and on lanes, which comes from the mean row length of the
 * whole matrix, so they are the same on any number of ranks. With lanes = 1 a
 * row is summed exactly as the CPU reference does. Vector updates round every
 * product and sum on its own (no contraction), as the CPU reference does, so
 * they give its bits. Dot products add each term x_i y_i (formed in double) to
 * an exact accumulator (core/exactsum.h) with integer atomics: per-thread
 * windows, warp shuffles, shared words, then global words, all order-free, so
 * a dot is bitwise the CPU's for the same vectors.
 *
 * Accumulators. spmv, dot, update and precond add into device accumulators 0
 * and 1 (acc = -1: none); mu_gpu_cg_take() adds them into host mu_xsum values
 * and zeroes them. */
#ifndef MU_CG_GPU_H
#define MU_CG_GPU_H
#include <stdint.h>
#include "core/exactsum.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mu_gpu_cg mu_gpu_cg;

typedef struct {
    int64_t nloc, nghost;
    const int64_t *rowptr; /* [nloc + 1], from 0; at most 2^31 - 1 entries */
    const int32_t *col;    /* local columns */
    const double *val;
    const int32_t *interior, *boundary; /* rows without / with a ghost column */
    int64_t ninterior, nboundary;
    const double *diag;        /* the diagonal, for Jacobi (1 / diag is kept); NULL: none */
    const int32_t *send_index; /* owned entries the halo sends, in send-list order */
    int64_t nsend;
    double mean_row; /* nonzeros per row of the whole matrix: picks the lanes */
    int fp32;        /* vectors and values in float */
} mu_gpu_cg_desc;

/* Binds to the current device (mu_gpu_select first) and uploads the block.
 * Environment, for benchmarks: MUTIRAO_CG_LANES=1|2|4|8|16|32 overrides the
 * lanes (it changes the bits of A x: give every rank the same). */
int mu_gpu_cg_create(const mu_gpu_cg_desc *d, mu_gpu_cg **out);
void mu_gpu_cg_destroy(mu_gpu_cg *g); /* NULL is accepted */
/* Lanes per row: 1 (CSR-scalar) or 2..32 (CSR-vector). */
int mu_gpu_cg_lanes(const mu_gpu_cg *g);
int mu_gpu_cg_set_lanes(mu_gpu_cg *g, int lanes);
/* The lanes for a mean row length m: 1 (CSR-scalar) when m < 1.5, else the
 * smallest power of two L >= 2 with L * MU_GPU_CG_ENTRIES_PER_LANE >= m, at
 * most 32. Few lanes per row keep many rows, so many loads, in flight per
 * warp, and the per-row work (the exact dot term, the stores)
 * spread over many rows (the 7-point stencil's SpMV measured nearer the copy
 * bandwidth with 2 lanes than with 8). */
enum { MU_GPU_CG_ENTRIES_PER_LANE = 4 };
static inline int mu_gpu_cg_lanes_for(double mean_row) {
    if (!(mean_row >= 1.5)) return 1;
    int l = 2;
    while (l < 32 && l * MU_GPU_CG_ENTRIES_PER_LANE < mean_row) l *= 2;
    return l;
}

/* Vectors: zeroed, nloc + nghost entries; NULL on failure. */
void *mu_gpu_cg_vec_new(mu_gpu_cg *g);
int mu_gpu_cg_vec_free(mu_gpu_cg *g, void *v);
int mu_gpu_cg_vec_set(mu_gpu_cg *g, void *v, const double *owned); /* owned part */
int mu_gpu_cg_vec_get(mu_gpu_cg *g, const void *v, double *owned); /* exact for float */
int mu_gpu_cg_vec_fill(mu_gpu_cg *g, void *v, double value);       /* owned and ghosts */
int mu_gpu_cg_vec_copy(mu_gpu_cg *g, const void *src, void *dst);  /* owned part */

/* Halo, with the MPI messages sent by the caller from pinned host buffers:
 * halo_pack enqueues the gather of x's send entries on the device and their
 * copy into the pinned send buffer (on the halo stream: it overlaps kernels
 * launched next); halo_wait waits for that copy and gives both buffers (send:
 * nsend values, ghosts: nghost values, of the vector type); halo_unpack copies
 * the ghost buffer into x's ghost slots, and later kernels wait for it.
 * With set_halo_device(1), for a CUDA-aware MPI, nothing goes through the host:
 * halo_wait waits for the gather and gives the device send buffer and x's ghost
 * slots to receive into (x: the vector halo_pack gathered from), and halo_unpack
 * only orders later kernels after the messages (call it after MPI's wait). */
int mu_gpu_cg_set_halo_device(mu_gpu_cg *g, int on);
int mu_gpu_cg_halo_pack(mu_gpu_cg *g, const void *x);
/* halo_pack of the next p = zr + beta p (mu_gpu_cg_direction's values),
 * enqueued before that direction pass, which waits only for the gather; the
 * next halo_pack (of that p) then gathers nothing. */
int mu_gpu_cg_halo_pack_next(mu_gpu_cg *g, const void *zr, const void *p, double beta);
int mu_gpu_cg_halo_wait(mu_gpu_cg *g, const void *x, void **send, void **ghosts);
int mu_gpu_cg_halo_unpack(mu_gpu_cg *g, void *x);

enum { MU_GPU_CG_INTERIOR = 0, MU_GPU_CG_BOUNDARY = 1, MU_GPU_CG_ALL = 2 };

/* y = A x on a row set; acc += x_i y_i. */
int mu_gpu_cg_spmv(mu_gpu_cg *g, int rows, const void *x, void *y, int acc);
/* acc += x_i y_i over the owned entries. */
int mu_gpu_cg_dot(mu_gpu_cg *g, const void *x, const void *y, int acc);
/* w = a x + c y (w may alias x or y). */
int mu_gpu_cg_waxpby(mu_gpu_cg *g, double a, const void *x, double c, const void *y, void *w);
/* x += alpha p; r -= alpha q; then as precond. */
int mu_gpu_cg_update(mu_gpu_cg *g, double alpha, const void *p, const void *q, void *x, void *r,
                     void *z, int acc_rz, int acc_rr);
/* mu_gpu_cg_update without x: r -= alpha q; then as precond. */
int mu_gpu_cg_residual(mu_gpu_cg *g, double alpha, const void *q, void *r, void *z, int acc_rz,
                       int acc_rr);
/* x += alpha p; p = zr + beta p, from the same p (zr: z, or r without Jacobi). */
int mu_gpu_cg_direction(mu_gpu_cg *g, double alpha, double beta, const void *zr, void *p, void *x);
/* z = r / diag; acc_rz += r_i z_i; acc_rr += r_i r_i. z NULL: only acc_rr. */
int mu_gpu_cg_precond(mu_gpu_cg *g, const void *r, void *z, int acc_rz, int acc_rr);
/* Waits for the work so far, adds accumulator 0 into acc0 and 1 into acc1
 * (NULL: dropped) and zeroes both (queued: later work sees them zeroed). */
int mu_gpu_cg_take(mu_gpu_cg *g, mu_xsum *acc0, mu_xsum *acc1);

/* Iterations per CUDA graph of mu_gpu_cg_iterate. */
enum { MU_GPU_CG_BATCH = 8 };

/* Whole iterations of standard CG on one rank (no ghosts), alpha and beta kept
 * on the device. From x, r, p and z (NULL without Jacobi) with rz = r'z and
 * rr = r'r, each iteration does what the solver's table calls do, with the
 * same bits:
 *   q = A p; alpha = rz / p'Ap; x += alpha p; r -= alpha q; z = r / diag;
 *   beta = r'z_new / rz; p = z + beta p (z is r without Jacobi).
 * Kernels per iteration: the SpMV with p'Ap, whose last block to finish
 * computes alpha; r -= alpha q with z and the dots, whose last block computes
 * beta and the stopping tests; then x += alpha p with p = z + beta p in one
 * pass. Batches of MU_GPU_CG_BATCH iterations run as one CUDA graph; the host
 * looks at the status (an asynchronous copy) after each batch, with the next
 * batch already queued. It stops after `count` iterations, once sqrt(rr) <=
 * tol, when p'Ap is not positive and finite (that iteration is left undone,
 * the vectors as before it), when r'r or r'z is not finite (its exact sum in
 * `bad`), or once `seconds` have passed (0: no limit). */
enum {
    MU_GPU_CG_RUNNING = 0, /* stopped by count or time */
    MU_GPU_CG_CONVERGED = 1,
    MU_GPU_CG_LIMIT = 2,
    MU_GPU_CG_PAP = 3,       /* p'Ap <= 0 or not finite: iteration `done` not made */
    MU_GPU_CG_RR = 4,        /* r'r not finite after iteration `done` (bad) */
    MU_GPU_CG_RZ = 5,        /* r'z not finite after iteration `done` (bad) */
    MU_GPU_CG_PEER_LOST = 6, /* peer form: another rank's GPU did not answer for a minute */
};
typedef struct {
    double rz, rr;  /* in and out */
    double tol;     /* in */
    int64_t count;  /* in: most iterations */
    double seconds; /* in: return after about this long (0: no limit) */
    int64_t done;   /* out: iterations made */
    int stop;       /* out: MU_GPU_CG_* */
    mu_xsum bad;    /* out, with MU_GPU_CG_RR or _RZ */
    double graph_s; /* out: seconds spent capturing the batch's graph (0: reused) */
} mu_gpu_cg_iter;
int mu_gpu_cg_iterate(mu_gpu_cg *g, void *x, void *r, void *p, void *q, void *z,
                      mu_gpu_cg_iter *it);

/* ---- Several ranks, one GPU each on one node: the peer form of iterate ----
 * When the ranks' GPUs reach each other (peer access), each rank's context
 * opens the others' exports (CUDA IPC): a small exchange box per rank (flags
 * and exact-sum words) and the vector p, whose ghost slots the neighbours
 * write. mu_gpu_cg_iterate with that p then runs the several-rank iterations
 * on the device (gpu/cg_peer.h): the same iteration with a halo kernel before
 * each SpMV (it stores this rank's send values straight into the neighbours'
 * ghost slots, raises a flag, waits for the neighbours' flags) and the p'Ap,
 * r'r and r'z words summed over all ranks on the device, so alpha and beta
 * are the same bits on every rank and as on one rank. Every rank must call
 * it with the same count; `seconds` is ignored (a rank that returned early
 * would leave the others waiting). The caller (workloads/cg/kernels_gpu.c) checks
 * the conditions, swaps the handles over MPI and falls back to the host path
 * when any rank cannot take part. */
enum { MU_GPU_CG_PEER_MAX = 8 }; /* ranks */
typedef struct {
    char b[64]; /* a cudaIpcMemHandle_t */
} mu_gpu_cg_handle;
/* This rank's exports: its exchange box (made on the first call) and p, a
 * vector of mu_gpu_cg_vec_new. */
int mu_gpu_cg_peer_export(mu_gpu_cg *g, void *p, mu_gpu_cg_handle *box, mu_gpu_cg_handle *vec);
typedef struct {
    int rank, size;                    /* size <= MU_GPU_CG_PEER_MAX */
    const mu_gpu_cg_handle *box, *vec; /* [size]: every rank's exports (this rank's unused) */
    /* The halo: the send list's segment k (entries send_offset[k] ..
     * send_offset[k + 1] - 1, as in mpi/halo.h) goes to rank send_rank[k], into
     * entries dest[k].. of its p (its ghost slots for this rank); this rank's
     * ghosts come from the ranks recv_rank[]. */
    int nsend_ranks, nrecv_ranks;
    const int *send_rank, *recv_rank;
    const int64_t *send_offset, *dest;
    const int32_t *send_index; /* the send list (local rows), as in mpi/halo.h */
    /* 1: the direction pass sends the ghosts (every rank's send segments are
     * ranges of rows, mu_gpu_cg_peer_range; the same on every rank); 0: a
     * halo kernel of its own before each SpMV. */
    int ranges;
    int64_t nglobal; /* rows of the whole matrix (bounds the exact sums' words) */
} mu_gpu_cg_peer_desc;
/* 1 when list[0..n-1] is a nonempty range of consecutive rows. */
static inline int mu_gpu_cg_peer_range(const int32_t *list, int64_t n) {
    if (n <= 0) return 0;
    for (int64_t k = 1; k < n; k++)
        if (list[k] != list[0] + k) return 0;
    return 1;
}
/* Opens the other ranks' exports (closing earlier ones): from now on
 * mu_gpu_cg_iterate with this p runs the peer form. Collective in effect:
 * every rank must open before any iterates. */
int mu_gpu_cg_peer_open(mu_gpu_cg *g, void *p, const mu_gpu_cg_peer_desc *d);
/* 1 when peer_open was made with p and p was not freed since. */
int mu_gpu_cg_peer_ready(const mu_gpu_cg *g, const void *p);
/* Closes the other ranks' exports (mu_gpu_cg_destroy also does). */
int mu_gpu_cg_peer_close(mu_gpu_cg *g);

/* Bytes through device memory per iteration, counted from the kernels (each
 * array read or written once per kernel, x of A x read once; the scalar
 * kernels' few hundred bytes left out), for a block of nrows rows and nnz
 * entries with 32-bit indices; V = one vector pass, nrows entries:
 *   matrix:  values, columns and row pointers, read once;
 *   split:   the device iterations (mu_gpu_cg_iterate): SpMV reads p, writes
 *            q (2V); the update reads r, q and writes r (3V; Jacobi: also reads
 *            1/diag and writes z, 2V more); the last pass reads x, p, z (or r)
 *            and writes x, p (5V);
 *   table:   the solver's table path: spmv (2V), update (x 3V, r 3V, Jacobi
 *            2V more), p = z + beta p (3V);
 *   minimal: the fewest passes of two-reduction CG: x, r and p read and
 *            written once, q written and read back, r read once more (9V;
 *            Jacobi 2V more: 1/diag read in both passes, or z stored). */
typedef struct {
    double matrix, split, table, minimal;
} mu_gpu_cg_bytes;
static inline void mu_gpu_cg_traffic(int64_t nrows, int64_t nnz, int fp32, int jacobi,
                                     mu_gpu_cg_bytes *out) {
    const double es = fp32 ? 4.0 : 8.0, V = es * (double)nrows;
    const double M = (es + 4.0) * (double)nnz + 4.0 * (double)(nrows + 1);
    const double jac = jacobi ? 2.0 : 0.0, upd = 3.0 + jac;
    out->matrix = M;
    out->split = M + (2.0 + upd + 5.0) * V;
    out->table = M + (2.0 + 6.0 + jac + 3.0) * V;
    out->minimal = M + (9.0 + jac) * V;
}

#ifdef __cplusplus
}
#endif
#endif
