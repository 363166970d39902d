/* Whole k-means steps over the ranks of a communicator (kmeans_split.h). */
#include <stdlib.h>

#include "mpi/partition.h"
#include "scenarios/kmeans_split.h"

int mu_km_split_open(mu_km_split *s, MPI_Comm comm, int m) {
    s->comm = comm;
    MPI_Comm_size(comm, &s->size);
    MPI_Comm_rank(comm, &s->rank);
    s->m = m;
    s->k = 0;
    s->may_fail = 0;
    s->cnt = malloc(sizeof(int) * 4 * (size_t)s->size);
    int bad = s->cnt == NULL, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
    if (any) {
        mu_km_split_close(s);
        return 1;
    }
    s->dsp = s->cnt + s->size;
    s->cntk = s->cnt + 2 * s->size;
    s->dspk = s->cnt + 3 * s->size;
    for (int r = 0; r < s->size; r++) {
        int64_t lo, hi;
        mu_block_range(m, s->size, r, &lo, &hi);
        s->dsp[r] = (int)lo;
        s->cnt[r] = (int)(hi - lo);
    }
    s->lo = s->dsp[s->rank];
    s->n = s->cnt[s->rank];
    return 0;
}

void mu_km_split_close(mu_km_split *s) {
    free(s->cnt);
    s->cnt = NULL;
}

/* The block's step failed on some rank: every rank returns 1. CPU blocks
 * cannot fail, which saves the agreement. */
static int collective(mu_km_split *s, int rc) {
    if (!s->may_fail) return rc;
    int any = 0;
    MPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MAX, s->comm);
    return any != 0;
}

static void gather(mu_km_split *s, void *buf, MPI_Datatype t) {
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, s->cnt, s->dsp, t, s->comm);
}

static int sp_all(void *ctx, const double *c, int k, double *dist) {
    mu_km_split *s = ctx;
    int rc = s->n > 0 ? s->local.all(s->local.ctx, c, k, dist + (size_t)s->lo * k) : 0;
    if (collective(s, rc)) return 1;
    if (s->k != k) {
        for (int r = 0; r < s->size; r++) {
            s->cntk[r] = s->cnt[r] * k;
            s->dspk[r] = s->dsp[r] * k;
        }
        s->k = k;
    }
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, dist, s->cntk, s->dspk, MPI_DOUBLE, s->comm);
    return 0;
}

static int sp_nearest2(void *ctx, const double *c, int k, int *ic1, int *ic2) {
    mu_km_split *s = ctx;
    int rc = s->n > 0 ? s->local.nearest2(s->local.ctx, c, k, ic1 + s->lo, ic2 + s->lo) : 0;
    if (collective(s, rc)) return 1;
    gather(s, ic1, MPI_INT);
    gather(s, ic2, MPI_INT);
    return 0;
}

static int sp_scan(void *ctx, const double *c, int k, const int *ic1, const int *ic2, const int *nc,
                   const double *an1, const double *an2, const unsigned char *live, int *move) {
    mu_km_split *s = ctx;
    int lo = s->lo;
    int rc = s->n > 0 ? s->local.scan(s->local.ctx, c, k, ic1 + lo, ic2 + lo, nc, an1, an2, live,
                                      move + lo)
                      : 0;
    if (collective(s, rc)) return 1;
    gather(s, move, MPI_INT);
    return 0;
}

static int sp_qtest(void *ctx, const double *c, int k, const int *ic1, const int *ic2,
                    const int *nc, const double *an1, const double *an2, const unsigned char *qchg,
                    int *cand) {
    mu_km_split *s = ctx;
    int lo = s->lo, rc = 0;
    if (s->n > 0) {
        if (s->local.qtest)
            rc = s->local.qtest(s->local.ctx, c, k, ic1 + lo, ic2 + lo, nc, an1, an2, qchg,
                                cand + lo);
        else
            mu_km_qtest_cpu(s->block, s->n, s->d, c, k, ic1 + lo, ic2 + lo, nc, an1, an2, qchg,
                            cand + lo);
    }
    if (collective(s, rc)) return 1;
    gather(s, cand, MPI_INT);
    return 0;
}

mu_km_backend mu_km_split_backend(mu_km_split *s, const double *block, int d,
                                  const mu_km_backend *local) {
    s->local = *local;
    s->block = block;
    s->d = d;
    mu_km_backend be = {s, sp_all, sp_nearest2, sp_scan, sp_qtest, NULL, NULL};
    return be;
}
