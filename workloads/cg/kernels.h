/* The compute backend of the cg solver: vectors and the kernels one CG
 * iteration needs, behind a table so the solver never touches the data. The
 * CPU backend (kernels_cpu.c) is the reference. A GPU backend slots in as
 * another table: its kernels live in gpu/ behind a C API (gpu/cg_gpu.h, which
 * cannot include this workload header) and a thin workloads/cg/kernels_gpu.c fills
 * this table from it; vectors then live on the device, halo_begin packs there
 * and copies to the host, and the dot kernels add into mu_xsum words
 * (core/exactsum.h is usable in device code), so results match the CPU bit for bit.
 *
 * A vector holds nloc owned entries followed by nghost ghost slots, as double
 * or, with fp32, as float. Scalars are passed as double and rounded to the
 * vector type once per call. Every accumulator argument is added to (never
 * reset), in local row order, and may be NULL where noted. */
#ifndef MU_CG_KERNELS_H
#define MU_CG_KERNELS_H
#include <stddef.h>
#include "cg/cg.h"
#include "core/exactsum.h"
#include "gpu/cg_gpu.h"

typedef enum { CG_ROWS_INTERIOR, CG_ROWS_BOUNDARY, CG_ROWS_ALL } cg_rows;

typedef struct cg_backend cg_backend;
struct cg_backend {
    const char *name; /* "cpu" */
    int fp32;
    int64_t nloc, nghost;
    /* One-off costs paid inside the solver's calls (a GPU backend's CUDA
     * graphs, the peer form's set-up), in seconds, added up by the backend:
     * the solve reports its time per iteration without them. */
    double setup_seconds;
    void *impl;
    void *(*vec_new)(cg_backend *b); /* zeroed, with ghost slots; NULL when out of memory */
    void (*vec_free)(cg_backend *b, void *v);
    void (*vec_set)(cg_backend *b, void *v, const double *owned); /* owned part */
    void (*vec_get)(cg_backend *b, const void *v, double *owned); /* exact for float too */
    void (*vec_fill)(cg_backend *b, void *v, double value);       /* owned and ghosts */
    void (*vec_copy)(cg_backend *b, const void *src, void *dst);  /* owned part */
    /* Starts and finishes the halo exchange of x into its ghost slots. */
    void (*halo_begin)(cg_backend *b, void *x);
    void (*halo_end)(cg_backend *b, void *x);
    /* y = A x on one row set; each row summed in its stored order. xy += x_i y_i (NULL: skip). */
    void (*spmv)(cg_backend *b, cg_rows rows, const void *x, void *y, mu_xsum *xy);
    void (*dot)(cg_backend *b, const void *x, const void *y, mu_xsum *xy);
    /* w = a x + c y (w may alias x or y). */
    void (*waxpby)(cg_backend *b, double a, const void *x, double c, const void *y, void *w);
    /* The fused CG update: x += alpha p; r -= alpha q; then as precond(). */
    void (*cg_update)(cg_backend *b, double alpha, const void *p, const void *q, void *x, void *r,
                      void *z, mu_xsum *rz, mu_xsum *rr);
    /* z = D^-1 r (Jacobi); rz += r_i z_i; rr += r_i r_i. With no preconditioner z
     * is NULL and only rr is summed. */
    void (*precond)(cg_backend *b, const void *r, void *z, mu_xsum *rz, mu_xsum *rr);
    /* Optional (NULL: cg_update, then waxpby for p). The same update with x moved
     * to the direction pass, so the iteration streams p once less: cg_residual is
     * cg_update without x; cg_direction then takes x += alpha p and
     * p = z + beta p from the same p (z = r without a preconditioner). Together
     * the same bits as cg_update followed by waxpby(1, z, beta, p, p). */
    void (*cg_residual)(cg_backend *b, double alpha, const void *q, void *r, void *z, mu_xsum *rz,
                        mu_xsum *rr);
    void (*cg_direction)(cg_backend *b, double alpha, double beta, const void *z, void *p, void *x);
    void (*destroy)(cg_backend *b);
    /* Optional (NULL on the CPU). Up to count whole iterations of standard CG (no
     * residual replacement), the same bits as the calls above: from x, r, p, z
     * (NULL: none) with *rz = r'z, *rr = r'r, it advances them and *k, stopping
     * once sqrt(rr) <= tol. It leaves an iteration whose p'Ap is not positive and
     * finite undone, for the caller's table path to report; may return early.
     * Collective over comm: on one rank alpha and beta stay on the device; on
     * several the host runs the table path's two reductions (over comm, with
     * the stop flag folded in as cg_reduce does) and every rank returns after
     * the same iteration; *stop (several ranks; else 0) says the last
     * reduction carried a stop request, as cg_reduce's return value would. 1
     * after mu_error() (on every rank). */
    int (*iterate)(cg_backend *b, MPI_Comm comm, int64_t count, double tol, void *x, void *r,
                   void *p, void *q, void *z, double *rz, double *rr, int64_t *k, int *stop);
};

/* The start both backends share: a zeroed table named name for A's rows, in
 * float (fp32) or double, with a zeroed impl of impl_size bytes. NULL after
 * mu_error() when out of memory. */
cg_backend *cg_backend_new(const char *name, const cg_matrix *A, int fp32, size_t impl_size);
/* Frees what cg_backend_new made (NULL: nothing), once destroy has released the impl's own. */
void cg_backend_free(cg_backend *b);
/* The CPU backend on A (which must outlive it). jacobi: keeps 1 / diag; every
 * diagonal entry must then be positive (checked by the caller). */
int cg_backend_cpu(const cg_matrix *A, int fp32, int jacobi, cg_backend **out);
/* The GPU backend (kernels_gpu.c), on the device this rank is bound to. */
int cg_backend_gpu(const cg_matrix *A, int fp32, int jacobi, cg_backend **out);
/* A's block as mu_gpu_cg_create takes it: its CSR arrays, row lists and ghost count, every
 * other field zero for the caller (the GPU backend, perf/bench_cg) to set. */
mu_gpu_cg_desc cg_gpu_desc_block(const cg_matrix *A);
/* Where the GPU backend's several-rank iterations spent their host time, in
 * seconds (for perf/bench_cg_ranks): waiting for the send values to reach the
 * host (halo_copy), for the halo messages (halo_mpi; the interior rows'
 * SpMV runs meanwhile), for the SpMV to finish and its p'Ap words to arrive
 * (spmv_wait), for the vector update and its words (update_wait), in the two
 * MPI_Allreduce calls (allreduce), and in all (total); cleared when reset. */
typedef struct {
    double halo_copy, halo_mpi, spmv_wait, update_wait, allreduce, total;
    int64_t iterations;
} cg_gpu_times;
void cg_backend_gpu_times(cg_backend *b, cg_gpu_times *t, int reset);

/* Full y = A x: halo started, interior rows computed while it flies, halo
 * finished, boundary rows. xy as in spmv. x needs ghost slots. */
void cg_spmv(cg_backend *b, void *x, void *y, mu_xsum *xy);

#endif
