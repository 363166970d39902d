/* Exact FM when the data set does not fit on one rank: each rank keeps its own
 * whole summation blocks (its chunk) and runs the starts among them, while the
 * chunks travel around a ring (rank k sends to k - 1 and receives from k + 1),
 * so at step g rank k holds chunk (k + g) mod P. Rank k begins its first
 * iteration when chunk 0 arrives; from then on it sees chunks 0, 1, ..., P - 1,
 * 0, ... in order, and each pass over all P chunks is one iteration of every
 * start still moving. The block sums are added in global block order as they
 * come, which is exactly the order of the replicated runs (fuzzy/fm.h), so the
 * ring gives the same bits with one chunk and two travelling buffers per rank. */
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/free.h"
#include "fuzzy/run.h"
#include "mpi/partition.h"
#include "mpi/wait.h"

enum { TAG_RING = 7311, TAG_RECS = 7312 };
/* Doubles per message: MPI counts are int. */
static const int64_t PIECE = (int64_t)1 << 26;

/* Rows [r0, r1) of chunk j (rank j's blocks). */
static void chunk_rows(int64_t n, int64_t B, int size, int j, int64_t *r0, int64_t *r1) {
    int64_t nb = (n + B - 1) / B, b0, b1;
    mu_block_range(nb, size, j, &b0, &b1);
    *r0 = b0 * B < n ? b0 * B : n;
    *r1 = b1 * B < n ? b1 * B : n;
}

/* Sends count doubles to `to` and receives rcount from `from`, in pieces
 * (waits through mpi/wait.h, which yields the CPU on an oversubscribed node). */
static void shift(MPI_Comm comm, const double *out, int64_t count, int to, double *in,
                  int64_t rcount, int from) {
    for (int64_t o = 0; o < count || o < rcount; o += PIECE) {
        int s = (int)(count - o < 0 ? 0 : count - o > PIECE ? PIECE : count - o);
        int r = (int)(rcount - o < 0 ? 0 : rcount - o > PIECE ? PIECE : rcount - o);
        MPI_Request req[2];
        MPI_Irecv(in + (r ? o : 0), r, MPI_DOUBLE, from, TAG_RING, comm, &req[0]);
        MPI_Isend(out + (s ? o : 0), s, MPI_DOUBLE, to, TAG_RING, comm, &req[1]);
        mu_waitall(2, req, MPI_STATUSES_IGNORE);
    }
}

int mu_fz_ring(MPI_Comm comm, const mu_fm_set *set, int64_t n, int64_t row0, int64_t rows,
               double *rec) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int F = set->F;
    const int64_t B = set->sum_block > 0 && set->sum_block < n ? set->sum_block : n;
    int64_t most = 0;
    for (int j = 0; j < size; j++) {
        int64_t a, b;
        chunk_rows(n, B, size, j, &a, &b);
        if (b - a > most) most = b - a;
    }
    int64_t nbmax = (most + B - 1) / B + 1;
    size_t buf = (size_t)((most ? most : 1) * F);
    double *cur = malloc(buf * sizeof *cur), *nxt = malloc(buf * sizeof *nxt);
    double *c = malloc((size_t)((rows ? rows : 1) * F) * sizeof *c);
    double *tot = calloc((size_t)((rows ? rows : 1) * (F + 1)), sizeof *tot);
    double *out = malloc((size_t)((rows ? rows : 1) * (F + 2)) * sizeof *out);
    double *part = malloc((size_t)(nbmax * (F + 1)) * sizeof *part);
    double *nx = malloc((size_t)(2 * F + 1) * sizeof *nx);
    int64_t *it = calloc((size_t)(rows ? rows : 1), sizeof *it);
    char *live = malloc((size_t)(rows ? rows : 1));
    int rc = !cur || !nxt || !c || !tot || !out || !part || !nx || !it || !live
                 ? mu_error("out of memory for the ring (%lld rows a chunk)", (long long)most)
                 : 0;
    if (mu_error_collective(comm, rc)) goto done;
    memcpy(c, set->x, (size_t)(rows * F) * sizeof *c);
    memcpy(cur, set->x, (size_t)(rows * F) * sizeof *cur);
    memset(live, 1, (size_t)rows);
    int64_t active = rows, everywhere = 0;
    MPI_Allreduce(&active, &everywhere, 1, MPI_INT64_T, MPI_SUM, comm);
    const int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int started = rank == 0;
    for (int64_t g = 0; everywhere > 0; g++) {
        int j = (int)((rank + g) % size);
        int64_t a, b;
        chunk_rows(n, B, size, j, &a, &b);
        if (j == 0) started = 1;
        if (started && b > a) {
            for (int64_t k = 0; k < rows; k++) {
                if (!live[k]) continue;
                int64_t nb = mu_fm_partials(cur, b - a, F, set->r2, B, c + k * F, part);
                double *t = tot + k * (F + 1);
                for (int64_t q = 0; q < nb; q++)
                    for (int f = 0; f <= F; f++) t[f] += part[q * (F + 1) + f];
            }
        }
        if (started && j == size - 1) { /* every block seen: one iteration ends */
            for (int64_t k = 0; k < rows; k++) {
                if (!live[k]) continue;
                double *t = tot + k * (F + 1), *ck = c + k * F, e = 0;
                for (int f = 0; f < F; f++) nx[f] = t[1 + f] / t[0];
                for (int f = 0; f < F; f++) {
                    double d = nx[f] - ck[f];
                    e += d * d;
                }
                memcpy(ck, nx, (size_t)F * sizeof *ck);
                for (int f = 0; f <= F; f++) t[f] = 0;
                it[k]++;
                int conv = e < set->eps1;
                if (conv || it[k] >= set->max_it) {
                    live[k] = 0;
                    active--;
                    memcpy(out + k * (F + 2), ck, (size_t)F * sizeof *out);
                    out[k * (F + 2) + F] = (double)it[k];
                    out[k * (F + 2) + F + 1] = conv;
                }
            }
        }
        /* Is anything still moving? Asked once per P steps: every rank asks at
         * the same steps, so they stop together. */
        if ((g + 1) % size == 0) {
            everywhere = active;
            mu_allreduce(&everywhere, 1, MPI_INT64_T, MPI_SUM, comm);
        }
        if (everywhere == 0 || size == 1) continue;
        /* Pass the chunk on: this rank gets chunk j + 1 from the right. */
        int64_t na, nbr;
        chunk_rows(n, B, size, (j + 1) % size, &na, &nbr);
        shift(comm, cur, (b - a) * F, left, nxt, (nbr - na) * F, right);
        double *swap = cur;
        cur = nxt;
        nxt = swap;
    }
    /* Records to rank 0 in rank order = object order. */
    if (rank == 0) {
        memcpy(rec + row0 * (F + 2), out, (size_t)(rows * (F + 2)) * sizeof *rec);
        for (int k = 1; k < size; k++) {
            int64_t a, b;
            chunk_rows(n, B, size, k, &a, &b);
            for (int64_t o = 0; o < (b - a) * (F + 2); o += PIECE) {
                int64_t m = (b - a) * (F + 2) - o;
                MPI_Recv(rec + a * (F + 2) + o, (int)(m > PIECE ? PIECE : m), MPI_DOUBLE, k,
                         TAG_RECS, comm, MPI_STATUS_IGNORE);
            }
        }
    } else {
        for (int64_t o = 0; o < rows * (F + 2); o += PIECE) {
            int64_t m = rows * (F + 2) - o;
            MPI_Send(out + o, (int)(m > PIECE ? PIECE : m), MPI_DOUBLE, 0, TAG_RECS, comm);
        }
    }
done:
    MU_FREE(cur, nxt, c, tot, out, part, nx, it, live);
    return rc;
}
