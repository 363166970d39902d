#include "mpi/cart.h"
#include <stdio.h>
#include <string.h>
#include "core/error.h"

int mu_cart_create(MPI_Comm comm, int ndims, const int64_t *global, const int *dims,
                   const int *periodic, int64_t min_block, const char *const *names, mu_cart *out) {
    memset(out, 0, sizeof *out);
    out->comm = MPI_COMM_NULL;
    for (int d = 0; d < MU_CART_MAXDIM; d++) out->line[d] = MPI_COMM_NULL;
    if (ndims < 1 || ndims > MU_CART_MAXDIM) return mu_error("mu_cart_create: ndims=%d", ndims);
    int size;
    MPI_Comm_size(comm, &size);
    out->ndims = ndims;
    int prod = 1, given = 1;
    for (int d = 0; d < ndims; d++) {
        out->global[d] = global[d];
        out->dims[d] = dims[d];
        out->periodic[d] = periodic[d];
        if (dims[d] < 0) return mu_error("%d ranks along %s: must be >= 0", dims[d], names[d]);
        if (dims[d] > 0)
            prod *= dims[d];
        else
            given = 0;
    }
    /* Every rank checks the same numbers, so the failure is the same everywhere. */
    if (given && prod != size)
        return mu_error("the process grid has %d ranks but the run has %d", prod, size);
    if (!given && size % prod != 0)
        return mu_error("%d ranks cannot be split with the given process grid", size);
    MPI_Dims_create(size, ndims, out->dims);
    char grid[64];
    snprintf(grid, sizeof grid, "%d", out->dims[0]);
    for (int d = 1; d < ndims; d++)
        snprintf(grid + strlen(grid), sizeof grid - strlen(grid), " x %d", out->dims[d]);
    for (int d = 0; d < ndims; d++) {
        if (global[d] % out->dims[d] != 0)
            return mu_error("%s=%lld does not divide over %d ranks along it (process grid %s): "
                            "choose sizes that divide, or set the process grid",
                            names[d], (long long)global[d], out->dims[d], grid);
        if (global[d] / out->dims[d] < min_block)
            return mu_error("%s=%lld over %d ranks gives blocks of %lld, fewer than %lld points",
                            names[d], (long long)global[d], out->dims[d],
                            (long long)(global[d] / out->dims[d]), (long long)min_block);
    }
    MPI_Cart_create(comm, ndims, out->dims, out->periodic, 0, &out->comm);
    int rank;
    MPI_Comm_rank(out->comm, &rank);
    MPI_Cart_coords(out->comm, rank, ndims, out->coords);
    for (int d = 0; d < ndims; d++) {
        out->n[d] = global[d] / out->dims[d];
        out->lo[d] = out->coords[d] * out->n[d];
        MPI_Cart_shift(out->comm, d, 1, &out->prev[d], &out->next[d]);
        int keep[MU_CART_MAXDIM] = {0};
        keep[d] = 1;
        MPI_Cart_sub(out->comm, keep, &out->line[d]);
    }
    return 0;
}

void mu_cart_free(mu_cart *c) {
    for (int d = 0; d < MU_CART_MAXDIM; d++)
        if (c->line[d] != MPI_COMM_NULL) MPI_Comm_free(&c->line[d]);
    if (c->comm != MPI_COMM_NULL) MPI_Comm_free(&c->comm);
}

int mu_cart_rank_of(const mu_cart *c, const int *coords) {
    int r = 0;
    MPI_Cart_rank(c->comm, (int *)coords, &r);
    return r;
}
