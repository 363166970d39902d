/* The fuzzy run's partitioned mode (the study's): each rank runs its dealt
 * partitions' starts whole, accepted on the device or CPU, gathered on rank 0. */
#include <stdlib.h>
#include "fuzzy/run_state.h"
#include "core/error.h"
#include "core/log.h"
#include "gpu/fuzzy_gpu.h"

/* Per partition: count, unconverged, iterations total and max. */
enum { PMETA = 4 };

/* This rank's share of the partitioned run: per partition, its meta (PMETA
 * numbers), its accepted prototypes and the dealt positions they start from. */
typedef struct {
    int mine;      /* partitions */
    int64_t total; /* prototypes */
    int64_t *meta;
    double *protos;
    int64_t *from;
} fz_part;

/* Every start of this rank's partitions: on the device, all partitions in
 * one launch with their acceptance (so only prototypes come back); on the
 * CPU, partition by partition, accepted below. Returns the local status. */
static int part_starts(fz_state *s, fm_ctx *base, double eps2, fz_part *pt, double *v,
                       mu_fm_stat *st, mu_gpu_fm_range *g, int64_t *dev_m) {
    int F = s->F, mine = pt->mine, rc = 0;
    for (int j = s->pa; j < s->pb && !rc; j++) {
        int64_t off = s->pstart[j] - s->pstart[s->pa], np = s->pstart[j + 1] - s->pstart[j];
        g[j - s->pa] = (mu_gpu_fm_range){off, np, 0, np};
        if (!base->gpu) {
            fm_ctx ctx = *base;
            ctx.set.x = s->x + off * F;
            ctx.set.n = np;
            rc = fz_fm_starts(&ctx, 0, np, v + off * F, st + off);
        }
    }
    if (!rc && base->gpu && mine > 0)
        rc = fz_gpu_ranges(base, g, mine, s->nloc, NULL,
                           &(fm_dev_accept){eps2, pt->protos, pt->from, dev_m}, st);
    for (int j = s->pa; j < s->pb && !rc; j++) {
        int64_t off = s->pstart[j] - s->pstart[s->pa], np = s->pstart[j + 1] - s->pstart[j];
        int64_t *m = pt->meta + (j - s->pa) * PMETA;
        for (int64_t k = 0; k < np; k++) {
            m[1] += !st[off + k].converged;
            m[2] += st[off + k].iterations;
            if (st[off + k].iterations > m[3]) m[3] = st[off + k].iterations;
        }
        m[0] = base->gpu ? dev_m[j - s->pa]
                         : mu_fm_accept(v + off * F, st + off, np, F, eps2,
                                        pt->protos + pt->total * F, pt->from + pt->total);
        /* Starts as dealt positions; rank 0 maps them to objects. */
        for (int64_t k = 0; k < m[0]; k++) pt->from[pt->total + k] += s->pstart[j];
        pt->total += m[0];
        mu_debug("fuzzy: partition %d: %lld objects, %lld prototypes", j, (long long)np,
                 (long long)m[0]);
    }
    return rc;
}

/* Rank 0: the gathered prototypes' partitions and objects, and the statistics. */
static void part_place(fz_state *s, const int64_t *allmeta) {
    int64_t q = 0;
    for (int j = 0; j < s->p; j++) {
        const int64_t *m = allmeta + j * PMETA;
        for (int64_t k = 0; k < m[0]; k++, q++) {
            s->raw_part[q] = j;
            s->raw_start[q] = s->order[s->raw_start[q]];
        }
        s->unconverged += m[1];
        s->it_total += m[2];
        if (m[3] > s->it_max) s->it_max = m[3];
        mu_log(s->p <= 16 ? MU_LOG_INFO : MU_LOG_DEBUG,
               "fuzzy: partition %d: %lld objects, %lld prototype(s)%s", j,
               (long long)(s->pstart[j + 1] - s->pstart[j]), (long long)m[0],
               m[1] ? ", some starts did not converge" : "");
    }
}

/* Gather on rank 0 in rank order = partition order. */
static void part_gather(mu_app *app, fz_state *s, const fz_part *pt) {
    int size = app->size, F = s->F;
    int *cnt = NULL, *dsp = NULL;
    int64_t *allmeta = NULL;
    int64_t mycount[2] = {pt->mine, pt->total}, *counts = NULL;
    if (app->rank == 0) {
        cnt = malloc((size_t)size * sizeof *cnt);
        dsp = malloc((size_t)size * sizeof *dsp);
        counts = malloc((size_t)(2 * size) * sizeof *counts);
        allmeta = malloc((size_t)(s->p * PMETA) * sizeof *allmeta);
    }
    MPI_Gather(mycount, 2, MPI_INT64_T, counts, 2, MPI_INT64_T, 0, app->comm);
    if (app->rank == 0) {
        for (int k = 0, o = 0; k < size; k++) {
            cnt[k] = (int)(counts[2 * k] * PMETA);
            dsp[k] = o;
            o += cnt[k];
        }
    }
    MPI_Gatherv(pt->meta, pt->mine * PMETA, MPI_INT64_T, allmeta, cnt, dsp, MPI_INT64_T, 0,
                app->comm);
    if (app->rank == 0) {
        s->m_raw = 0;
        for (int k = 0; k < size; k++) s->m_raw += counts[2 * k + 1];
        s->raw = malloc((size_t)((s->m_raw ? s->m_raw : 1) * F) * sizeof *s->raw);
        s->raw_start = malloc((size_t)(s->m_raw ? s->m_raw : 1) * sizeof *s->raw_start);
        s->raw_part = malloc((size_t)(s->m_raw ? s->m_raw : 1) * sizeof *s->raw_part);
        for (int k = 0, o = 0; k < size; k++) {
            cnt[k] = (int)(counts[2 * k + 1] * F);
            dsp[k] = o;
            o += cnt[k];
        }
    }
    MPI_Gatherv(pt->protos, (int)(pt->total * F), MPI_DOUBLE, s->raw, cnt, dsp, MPI_DOUBLE, 0,
                app->comm);
    if (app->rank == 0)
        for (int k = 0, o = 0; k < size; k++) {
            cnt[k] = (int)counts[2 * k + 1];
            dsp[k] = o;
            o += cnt[k];
        }
    MPI_Gatherv(pt->from, (int)pt->total, MPI_INT64_T, s->raw_start, cnt, dsp, MPI_INT64_T, 0,
                app->comm);
    if (app->rank == 0) part_place(s, allmeta);
    free(cnt);
    free(dsp);
    free(counts);
    free(allmeta);
}

int fz_fm_partitioned(mu_app *app, fz_state *s, fm_ctx *base, double eps2) {
    int F = s->F, mine = s->pb - s->pa;
    fz_part pt = {.mine = mine, .total = 0};
    pt.meta = calloc((size_t)(mine ? mine : 1) * PMETA, sizeof *pt.meta);
    pt.protos = malloc((size_t)((s->nloc ? s->nloc : 1) * F) * sizeof *pt.protos);
    pt.from = malloc((size_t)(s->nloc ? s->nloc : 1) * sizeof *pt.from);
    double *v = malloc((size_t)((s->nloc ? s->nloc : 1) * F) * sizeof *v);
    mu_fm_stat *st = malloc((size_t)(s->nloc ? s->nloc : 1) * sizeof *st);
    mu_gpu_fm_range *g = malloc((size_t)(mine ? mine : 1) * sizeof *g);
    int rc = !pt.meta || !pt.protos || !pt.from || !v || !st || !g ? mu_error("out of memory") : 0;
    int64_t *dev_m = calloc((size_t)(mine ? mine : 1), sizeof *dev_m);
    if (!rc && !dev_m) rc = mu_error("out of memory");
    if (!rc) rc = part_starts(s, base, eps2, &pt, v, st, g, dev_m);
    free(v);
    free(st);
    free(g);
    free(dev_m);
    int failed = mu_error_collective(app->comm, rc);
    if (!failed) part_gather(app, s, &pt);
    free(pt.meta);
    free(pt.protos);
    free(pt.from);
    return failed;
}
