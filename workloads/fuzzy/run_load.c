/* The fuzzy run's input: rank 0 reads or generates the data; exact mode
 * replicates it (or deals summation blocks around a ring), partitioned mode
 * sorts, deals and scatters the partitions. */
#include <stdlib.h>
#include <string.h>
#include "fuzzy/run_state.h"
#include "core/error.h"
#include "core/free.h"
#include "core/memory.h"
#include "core/log.h"
#include "mpi/partition.h"
#include "mpi/wait.h"

void fz_state_free(fz_state *s) {
    if (s->z != s->d.x && s->z != s->x) free(s->z);
    if (s->x != s->d.x) free(s->x);
    mu_fz_free(&s->d);
    MU_FREE(s->mean, s->cov, s->shift, s->scale, s->pstart, s->order, s->raw, s->raw_part,
            s->raw_start);
}

/* What messages call the data. */
const char *fz_data_name(const mu_fz_cfg *c) {
    return c->input ? c->input : c->given ? "mutirao_fuzzy_cluster" : "generated data";
}

/* Rank 0 reads or generates the data and checks it; every rank learns its
 * shape, then whether the model's memory fits. */
static int load_data(mu_app *app, const mu_fz_cfg *c, fz_state *s) {
    int rc = 0;
    if (app->rank == 0 && c->given) {
        s->d = *c->given; /* taken over */
        memset(c->given, 0, sizeof *c->given);
    } else if (app->rank == 0) {
        rc = c->input         ? mu_fz_read(c->input, c->header, c->label_column, &s->d)
             : c->gen_schools ? mu_fz_gen_schools(c->n, c->seed, &s->d)
                              : mu_fz_gen_blobs(c->n, c->seed, c->centers, c->sigma, &s->d);
    }
    if (app->rank == 0) {
        if (!rc) rc = mu_fz_check_columns(fz_data_name(c), &s->d);
        if (!rc && !c->exact && c->partitions > s->d.n)
            rc = mu_error("--partitions=%d: more partitions than the %lld objects", c->partitions,
                          (long long)s->d.n);
        if (!rc) rc = mu_fz_check_shape(fz_data_name(c), &s->d);
    }
    MU_TRY(mu_error_collective(app->comm, rc));
    int64_t hdr[2] = {s->d.n, s->d.F};
    MPI_Bcast(hdr, 2, MPI_INT64_T, 0, app->comm);
    s->n = hdr[0];
    s->F = (int)hdr[1];
    /* The model's memory, before the copies and the sums take it. */
    double need = mu_fz_model_bytes(s->F), have = mu_mem_rank_available(app->dev.local_size);
    if (need > have)
        rc = mu_error("%s: %d columns: the covariance's exact sums need %.3g GiB per rank, more "
                      "than the %.3g GiB this rank may use (available memory over the node's "
                      "ranks, and ulimit -v)",
                      fz_data_name(c), s->F, need / 1073741824.0, have / 1073741824.0);
    return mu_error_collective(app->comm, rc);
}

/* Exact mode around a ring: whole summation blocks per rank, dealt like
 * partitions (no sort). */
static int load_ring(mu_app *app, const mu_fz_cfg *c, fz_state *s, double bytes) {
    int64_t B = c->sum_block > 0 && c->sum_block < s->n ? c->sum_block : s->n;
    int64_t nb = (s->n + B - 1) / B;
    if (nb > INT32_MAX) return mu_error_collective(app->comm, mu_error("too many blocks"));
    s->p = (int)nb;
    mu_info("fuzzy: the ring: %lld objects (%.3g MiB) in %lld summation block(s) of %lld rows "
            "over %d rank(s)%s",
            (long long)s->n, bytes / 1048576.0, (long long)nb, (long long)B, app->size,
            c->ring_mode == 2 ? " (the set exceeds --mem-limit)" : "");
    if (nb < app->size)
        mu_warn("fuzzy: %lld summation block(s) for %d ranks: some ranks hold no data (lower "
                "--sum-block)",
                (long long)nb, app->size);
    return 0;
}

/* Rank 0: the partitions' offsets, and (partitioned mode) the rows sorted and
 * dealt into *dealt. Returns rank 0's local status. */
static int load_deal(const mu_fz_cfg *c, fz_state *s, double **dealt) {
    int F = s->F;
    if (s->ring) {
        int64_t B = c->sum_block > 0 && c->sum_block < s->n ? c->sum_block : s->n;
        for (int j = 0; j <= s->p; j++) s->pstart[j] = (int64_t)j * B < s->n ? j * B : s->n;
    } else {
        s->order = malloc((size_t)s->n * sizeof *s->order);
        *dealt = malloc((size_t)(s->n * F) * sizeof **dealt);
        if (!s->order || !*dealt)
            return mu_error("out of memory dealing %lld objects", (long long)s->n);
        MU_TRY(mu_fz_deal(s->d.x, s->n, F, s->p, s->order, s->pstart));
        for (int64_t k = 0; k < s->n; k++)
            memcpy(*dealt + k * F, s->d.x + s->order[k] * F, (size_t)F * sizeof **dealt);
    }
    return 0;
}

/* Rank 0 sends each rank its partitions' rows from src. MPI counts are int,
 * so large sets go in several rounds. */
static void load_scatter(mu_app *app, fz_state *s, const double *src) {
    int F = s->F;
    int *counts = app->rank == 0 ? malloc((size_t)app->size * sizeof *counts) : NULL;
    const int64_t step = ((int64_t)1 << 26) / F;
    int64_t rounds = 1;
    for (int k = 0; k < app->size; k++) {
        int64_t a, b;
        mu_block_range(s->p, app->size, k, &a, &b);
        int64_t rows = s->pstart[b] - s->pstart[a];
        if ((rows + step - 1) / step > rounds) rounds = (rows + step - 1) / step;
    }
    for (int64_t round = 0; round < rounds; round++) {
        if (app->rank == 0)
            for (int k = 0; k < app->size; k++) {
                int64_t a, b;
                mu_block_range(s->p, app->size, k, &a, &b);
                int64_t r0 = s->pstart[a], rows = s->pstart[b] - r0;
                int64_t off = round * step, take = rows - off;
                take = take < 0 ? 0 : take > step ? step : take;
                counts[k] = (int)(take * F);
            }
        /* Point to point from each rank's base: offsets may exceed an int. */
        int64_t off = round * step, mine = s->nloc - off;
        mine = mine < 0 ? 0 : mine > step ? step : mine;
        if (app->rank == 0) {
            MPI_Request *req = malloc((size_t)app->size * sizeof *req);
            int nreq = 0;
            for (int k = 1; k < app->size; k++) {
                int64_t a, b;
                mu_block_range(s->p, app->size, k, &a, &b);
                if (counts[k] > 0)
                    MPI_Isend(src + (s->pstart[a] + off) * F, counts[k], MPI_DOUBLE, k, 7301,
                              app->comm, &req[nreq++]);
            }
            if (mine > 0)
                memcpy(s->x + off * F, src + (s->pstart[s->pa] + off) * F,
                       (size_t)(mine * F) * sizeof *s->x);
            mu_waitall(nreq, req, MPI_STATUSES_IGNORE);
            free(req);
        } else if (mine > 0) {
            MPI_Recv(s->x + off * F, (int)(mine * F), MPI_DOUBLE, 0, 7301, app->comm,
                     MPI_STATUS_IGNORE);
        }
    }
    free(counts);
}

int fz_load(mu_app *app, const mu_fz_cfg *c, fz_state *s) {
    MU_TRY(load_data(app, c, s));
    s->p = c->partitions;
    double bytes = (double)s->n * s->F * sizeof(double);
    s->ring = c->exact && (c->ring_mode == 1 || (c->ring_mode == 2 && bytes > c->mem_limit));
    if (s->ring) MU_TRY(load_ring(app, c, s, bytes));
    if (c->exact && !s->ring) {
        /* The whole set on every rank. */
        MU_TRY(mu_fz_bcast(app->comm, &s->d));
        s->x = s->d.x;
        s->nloc = s->n;
        mu_block_range(s->n, app->size, app->rank, &s->sum0, &s->sum1);
        return 0;
    }
    /* Partitioned: rank 0 sorts and deals; each rank receives its partitions' rows. */
    int F = s->F, rc = 0;
    s->pstart = malloc((size_t)(s->p + 1) * sizeof *s->pstart);
    double *dealt = NULL;
    if (!s->pstart) rc = mu_error("out of memory");
    if (!rc && app->rank == 0) rc = load_deal(c, s, &dealt);
    const double *src = s->ring ? s->d.x : dealt;
    if (mu_error_collective(app->comm, rc)) {
        free(dealt);
        return 1;
    }
    MPI_Bcast(s->pstart, s->p + 1, MPI_INT64_T, 0, app->comm);
    int64_t lo, hi;
    mu_block_range(s->p, app->size, app->rank, &lo, &hi);
    s->pa = (int)lo;
    s->pb = (int)hi;
    s->nloc = s->pstart[s->pb] - s->pstart[s->pa];
    s->sum0 = 0;
    s->sum1 = s->nloc;
    s->x = malloc((size_t)((s->nloc ? s->nloc : 1) * F) * sizeof *s->x);
    rc = s->x ? 0 : mu_error("out of memory for %lld objects", (long long)s->nloc);
    if (mu_error_collective(app->comm, rc)) {
        free(dealt);
        return 1;
    }
    load_scatter(app, s, src);
    free(dealt);
    if (s->ring) { /* the blocks were only a way to deal the rows */
        s->ring0 = s->pstart[s->pa];
        s->p = 1;
    }
    return 0;
}
