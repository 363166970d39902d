/* Cartesian block partition of a 2-D or 3-D grid over the ranks
 * (MPI_Cart_create): each rank owns one block of equal size per dimension,
 * knows its neighbours, and has a communicator per dimension (the ranks of its
 * row, column or pillar) for line-wise work such as a flux chain. */
#ifndef MU_MPI_CART_H
#define MU_MPI_CART_H
#include <mpi.h>
#include <stdint.h>

#define MU_CART_MAXDIM 3

typedef struct {
    int ndims;
    int64_t global[MU_CART_MAXDIM]; /* grid points per dimension */
    int dims[MU_CART_MAXDIM];       /* ranks per dimension */
    int periodic[MU_CART_MAXDIM];
    int coords[MU_CART_MAXDIM];
    int64_t lo[MU_CART_MAXDIM], n[MU_CART_MAXDIM];  /* this rank's block: [lo, lo + n) */
    int prev[MU_CART_MAXDIM], next[MU_CART_MAXDIM]; /* neighbours, MPI_PROC_NULL at open ends */
    MPI_Comm comm;                                  /* the Cartesian communicator */
    MPI_Comm line[MU_CART_MAXDIM]; /* ranks that share every coordinate but this one */
} mu_cart;

/* Collective over comm. dims[d] = 0 lets MPI_Dims_create choose. Every block
 * size must divide exactly and be at least min_block points; otherwise every
 * rank fails with a message naming the dimension (names[d], e.g. "nx"). */
int mu_cart_create(MPI_Comm comm, int ndims, const int64_t *global, const int *dims,
                   const int *periodic, int64_t min_block, const char *const *names, mu_cart *out);
void mu_cart_free(mu_cart *c);
/* The rank in c->comm holding block coords (for gathers in a fixed order). */
int mu_cart_rank_of(const mu_cart *c, const int *coords);

#endif
