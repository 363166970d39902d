/* Halo exchange for vectors distributed in contiguous row blocks. Each rank
 * owns rows [bounds[rank], bounds[rank+1]) and needs some entries it does not
 * own (its ghosts, in ascending global order). The send and receive lists are
 * built once; each exchange is nonblocking: mu_halo_begin() packs and posts the
 * messages, the caller works on what needs no ghosts, mu_halo_end() waits.
 * Ghost k of this rank arrives in ghost_out[k], so a vector laid out as
 * [owned | ghosts] receives its halo in place. Values travel unchanged
 * (double or float), so the exchange never changes a result. */
#ifndef MU_MPI_HALO_H
#define MU_MPI_HALO_H
#include <mpi.h>
#include <stdint.h>

typedef enum { MU_HALO_DOUBLE = 0, MU_HALO_FLOAT = 1 } mu_halo_type;

typedef struct mu_halo mu_halo;

/* Collective. bounds[0..size] are the row bounds of every rank; ghosts[0..nghost)
 * are strictly ascending global indices outside this rank's rows. Returns 0, or
 * 1 on every rank (with mu_error()) when any rank's list is invalid. */
int mu_halo_create(MPI_Comm comm, const int64_t *bounds, const int64_t *ghosts, int64_t nghost,
                   mu_halo **out);
void mu_halo_destroy(mu_halo *h); /* NULL is accepted */

/* Packs x_owned (this rank's owned entries, of the given type) and starts the
 * exchange into ghost_out (nghost entries). Both must stay valid until mu_halo_end(). */
void mu_halo_begin(mu_halo *h, const void *x_owned, void *ghost_out, mu_halo_type type);
/* The same with the send values already packed in send-list order (mu_halo_send_list),
 * e.g. by a GPU kernel into pinned host memory. */
void mu_halo_begin_packed(mu_halo *h, const void *packed, void *ghost_out, mu_halo_type type);
void mu_halo_end(mu_halo *h);

/* The lists, for packing elsewhere (a device) and for the run log. */
typedef struct {
    int nsend_ranks, nrecv_ranks; /* neighbours */
    const int *send_rank;         /* [nsend_ranks] */
    const int64_t *send_offset;   /* [nsend_ranks + 1] into send_index */
    const int32_t *send_index;    /* local (owned) indices to send, grouped by neighbour */
    const int *recv_rank;         /* [nrecv_ranks] */
    const int64_t *recv_offset;   /* [nrecv_ranks + 1] into the ghosts */
    int64_t nsend, nghost;
} mu_halo_lists;
void mu_halo_get_lists(const mu_halo *h, mu_halo_lists *lists);

#endif
