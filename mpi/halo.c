#include "mpi/halo.h"
#include "core/error.h"
#include "core/free.h"
#include "mpi/wait.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum { HALO_TAG = 0x4841 };

struct mu_halo {
    MPI_Comm comm; /* a duplicate: halo messages never meet other traffic */
    int nsend_ranks, nrecv_ranks;
    int *send_rank, *recv_rank;
    int64_t *send_offset, *recv_offset;
    int32_t *send_index;
    int64_t nsend, nghost;
    void *sendbuf; /* nsend doubles, reused for floats */
    MPI_Request *req;
    MPI_Status *status; /* an array, not MPI_STATUSES_IGNORE: GCC's overflow check trips on it */
    int nreq;
};

/* Owner of global index g: the last rank whose first row is <= g. */
static int owner_of(const int64_t *bounds, int size, int64_t g) {
    int lo = 0, hi = size - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (bounds[mid] <= g)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static int check_ghosts(int rank, const int64_t *bounds, int size, const int64_t *ghosts,
                        int64_t nghost) {
    for (int64_t k = 0; k < nghost; k++) {
        int64_t g = ghosts[k];
        if (g < 0 || g >= bounds[size])
            return mu_error("halo: rank %d ghost %lld is outside 0..%lld", rank, (long long)g,
                            (long long)bounds[size] - 1);
        if (g >= bounds[rank] && g < bounds[rank + 1])
            return mu_error("halo: rank %d lists its own row %lld as a ghost", rank, (long long)g);
        if (k > 0 && g <= ghosts[k - 1])
            return mu_error("halo: rank %d ghosts are not strictly ascending at %lld", rank,
                            (long long)k);
    }
    if (nghost > INT_MAX) return mu_error("halo: rank %d has over 2^31 ghosts", rank);
    return 0;
}

static void *xmalloc(size_t n) {
    return malloc(n ? n : 1);
}

int mu_halo_create(MPI_Comm comm, const int64_t *bounds, const int64_t *ghosts, int64_t nghost,
                   mu_halo **out) {
    *out = NULL;
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MU_TRY(mu_error_collective(comm, check_ghosts(rank, bounds, size, ghosts, nghost)));

    int *rcount = calloc((size_t)size, sizeof *rcount),
        *scount = calloc((size_t)size, sizeof *scount);
    int *rdispl = calloc((size_t)size, sizeof *rdispl),
        *sdispl = calloc((size_t)size, sizeof *sdispl);
    for (int64_t k = 0; k < nghost; k++) rcount[owner_of(bounds, size, ghosts[k])]++;
    MPI_Alltoall(rcount, 1, MPI_INT, scount, 1, MPI_INT, comm);
    int64_t nsend = 0;
    for (int r = 0; r < size; r++) {
        rdispl[r] = r ? rdispl[r - 1] + rcount[r - 1] : 0;
        nsend += scount[r];
    }
    int rc = nsend > INT_MAX ? mu_error("halo: rank %d must send over 2^31 values", rank) : 0;
    MU_TRY(mu_error_collective(comm, rc));
    for (int r = 1; r < size; r++) sdispl[r] = sdispl[r - 1] + scount[r - 1];
    /* Tell every owner which of its rows this rank needs. */
    int64_t *wanted = xmalloc((size_t)nsend * sizeof *wanted);
    MPI_Alltoallv(ghosts, rcount, rdispl, MPI_INT64_T, wanted, scount, sdispl, MPI_INT64_T, comm);

    mu_halo *h = calloc(1, sizeof *h);
    MPI_Comm_dup(comm, &h->comm);
    h->nsend = nsend;
    h->nghost = nghost;
    h->send_index = xmalloc((size_t)nsend * sizeof *h->send_index);
    for (int64_t k = 0; k < nsend; k++) h->send_index[k] = (int32_t)(wanted[k] - bounds[rank]);
    free(wanted);
    h->send_rank = xmalloc((size_t)size * sizeof(int));
    h->recv_rank = xmalloc((size_t)size * sizeof(int));
    h->send_offset = xmalloc((size_t)(size + 1) * sizeof(int64_t));
    h->recv_offset = xmalloc((size_t)(size + 1) * sizeof(int64_t));
    h->send_offset[0] = h->recv_offset[0] = 0;
    for (int r = 0; r < size; r++) {
        if (scount[r]) {
            h->send_rank[h->nsend_ranks] = r;
            h->send_offset[h->nsend_ranks + 1] = sdispl[r] + scount[r];
            h->nsend_ranks++;
        }
        if (rcount[r]) {
            h->recv_rank[h->nrecv_ranks] = r;
            h->recv_offset[h->nrecv_ranks + 1] = rdispl[r] + rcount[r];
            h->nrecv_ranks++;
        }
    }
    h->sendbuf = xmalloc((size_t)nsend * sizeof(double));
    h->req = xmalloc((size_t)(h->nsend_ranks + h->nrecv_ranks) * sizeof *h->req);
    h->status = xmalloc((size_t)(h->nsend_ranks + h->nrecv_ranks) * sizeof *h->status);
    free(rcount);
    free(scount);
    free(rdispl);
    free(sdispl);
    *out = h;
    return 0;
}

void mu_halo_destroy(mu_halo *h) {
    if (!h) return;
    MPI_Comm_free(&h->comm);
    MU_FREE(h->send_rank, h->recv_rank, h->send_offset, h->recv_offset, h->send_index, h->sendbuf,
            h->req, h->status, h);
}

void mu_halo_begin_packed(mu_halo *h, const void *packed, void *ghost_out, mu_halo_type type) {
    size_t es = type == MU_HALO_FLOAT ? sizeof(float) : sizeof(double);
    MPI_Datatype dt = type == MU_HALO_FLOAT ? MPI_FLOAT : MPI_DOUBLE;
    h->nreq = 0;
    /* Receives first, so messages land directly in place. */
    for (int k = 0; k < h->nrecv_ranks; k++)
        MPI_Irecv((char *)ghost_out + (size_t)h->recv_offset[k] * es,
                  (int)(h->recv_offset[k + 1] - h->recv_offset[k]), dt, h->recv_rank[k], HALO_TAG,
                  h->comm, &h->req[h->nreq++]);
    for (int k = 0; k < h->nsend_ranks; k++)
        MPI_Isend((const char *)packed + (size_t)h->send_offset[k] * es,
                  (int)(h->send_offset[k + 1] - h->send_offset[k]), dt, h->send_rank[k], HALO_TAG,
                  h->comm, &h->req[h->nreq++]);
}

void mu_halo_begin(mu_halo *h, const void *x_owned, void *ghost_out, mu_halo_type type) {
    if (type == MU_HALO_FLOAT) {
        const float *x = x_owned;
        float *buf = h->sendbuf;
        for (int64_t k = 0; k < h->nsend; k++) buf[k] = x[h->send_index[k]];
    } else {
        const double *x = x_owned;
        double *buf = h->sendbuf;
        for (int64_t k = 0; k < h->nsend; k++) buf[k] = x[h->send_index[k]];
    }
    mu_halo_begin_packed(h, h->sendbuf, ghost_out, type);
}

void mu_halo_end(mu_halo *h) {
    mu_waitall(h->nreq, h->req, h->status);
    h->nreq = 0;
}

void mu_halo_get_lists(const mu_halo *h, mu_halo_lists *l) {
    l->nsend_ranks = h->nsend_ranks;
    l->nrecv_ranks = h->nrecv_ranks;
    l->send_rank = h->send_rank;
    l->send_offset = h->send_offset;
    l->send_index = h->send_index;
    l->recv_rank = h->recv_rank;
    l->recv_offset = h->recv_offset;
    l->nsend = h->nsend;
    l->nghost = h->nghost;
}
