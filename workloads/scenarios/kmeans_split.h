/* The k-means' whole steps shared by the ranks of a communicator, for a tree
 * stage with fewer nodes than ranks (scenarios_run.c): every rank runs the same k-means
 * on the same points (so the same serial decisions), and each whole step is
 * computed by blocks of points, one block per rank (mu_block_range), each
 * block by the rank's own backend (CPU or its GPU), then gathered in rank
 * order. A step's results are per point, so the gathered arrays are the bits
 * one rank would have computed alone. Failures are collective. */
#ifndef MU_SCENARIOS_KMEANS_SPLIT_H
#define MU_SCENARIOS_KMEANS_SPLIT_H
#include <mpi.h>

#include "scenarios/kmeans.h"

typedef struct {
    MPI_Comm comm;
    int size, rank, m, lo, n;     /* this rank's block: points lo .. lo+n-1 */
    int *cnt, *dsp, *cntk, *dspk; /* per rank: points, and points x k for `all` */
    int k;                        /* the k of cntk/dspk */
    mu_km_backend local;          /* over the block (its ctx's points start at lo) */
    const double *block;          /* the block's points (n x d) */
    int d;
    int may_fail; /* the local backend can fail (a device): each step agrees on it first */
} mu_km_split;

/* Collective. Fills s's block; 0, or 1 when out of memory (on any rank). */
int mu_km_split_open(mu_km_split *s, MPI_Comm comm, int m);
/* The shared backend (set may_fail after it for a device); local computes the block's steps (its
 * points are a + lo d, n of them; local.qtest may be NULL: then the CPU's over the block; recompute
 * stays on each rank). s must outlive the backend. */
mu_km_backend mu_km_split_backend(mu_km_split *s, const double *block, int d,
                                  const mu_km_backend *local);
void mu_km_split_close(mu_km_split *s);

#endif
