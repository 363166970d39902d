/* --mode=openings: NEWAVE's backward openings by selective sampling (a
 * k-means of a large sample of each stage's noise, its K representatives the
 * openings, each with probability group size / M). Stage t of the horizon
 * generates M scenarios of its calendar month from the record's latest
 * months before that month (stage 0: the record's end; stage t: that month
 * of the record's last year), and aggregates them as a tree node is. The
 * stages are independent, so the task farm spreads them over the ranks and a
 * rank's lanes run its share side by side. */
#include <string.h>

#include "core/error.h"
#include "core/output.h"
#include "scenarios/run.h"

/* Stage t's Philox stream and k-means key, apart from the tree's nodes
 * (below 2^59), the comb's and the statistics' streams. */
#define OPEN_ID(t) ((1ull << 59) | (uint64_t)(t))

int64_t mu_sc_opening_past_end(int64_t hist_end, int t) {
    return hist_end - (12 - t % 12) % 12;
}

/* Stage t's record (mu_sc_rec_doubles with K = --openings). */
static int opening_stage(mu_sc_ctx *x, int64_t t, double *rec) {
    mu_sc_record_past(x, mu_sc_opening_past_end(x->hist_end, (int)t), x->buf.zpast);
    const mu_sc_node_id id = {t,
                              OPEN_ID(t),
                              mu_sc_node_key(x->c->seed, (int64_t)OPEN_ID(t)),
                              (int)((x->hist_end + t) % 12),
                              x->c->openings,
                              (int)t};
    return mu_sc_node_record(x, &id, rec, MPI_COMM_NULL);
}

/* A farm chunk of stages, side by side on the rank's lanes. */
static int openings_task(int64_t first, int64_t count, void *results, void *vctx) {
    mu_sc_ctx *x = vctx;
    return mu_sc_lanes_run(x, first, count, results, mu_sc_rec_doubles(x, x->c->openings),
                           opening_stage);
}

int mu_sc_openings(mu_app *app, mu_sc_ctx *x, double *all) {
    const int H = x->c->horizon;
    mu_farm_cfg fc = mu_sc_stage_farm(x->threads, H, app->size, "openings");
    mu_farm_stats fs = {0, 0};
    size_t rd = mu_sc_rec_doubles(x, x->c->openings);
    return mu_taskfarm_run(app->comm, H, rd * sizeof(double), openings_task, x, &fc,
                           app->rank == 0 ? all : NULL, &fs);
}

int mu_sc_write_openings(const char *path, const mu_sc_ctx *x, const double *all) {
    const mu_sc_hist *h = x->h;
    const int nst = h->nst, H = x->c->horizon;
    const size_t rd = mu_sc_rec_doubles(x, x->c->openings);
    mu_output o;
    MU_TRY(mu_output_open(&o, path));
    fprintf(o.f, "stage,year,month,opening,probability");
    for (int s = 0; s < nst; s++) fprintf(o.f, ",%s", h->names[s]);
    fprintf(o.f, "\n");
    for (int t = 0; t < H; t++) {
        const double *rec = all + (size_t)t * rd;
        const int64_t a = x->hist_end + t;
        for (int g = 0; g < (int)rec[0]; g++) {
            const double *child = MU_SC_REC_CHILD(rec, nst, g);
            fprintf(o.f, "%d,%d,%d,%d,%.17g", t + 1, h->first_year + (int)(a / 12),
                    (int)(a % 12) + 1, g + 1, child[0]);
            for (int s = 0; s < nst; s++) fprintf(o.f, ",%.17g", child[1 + s]);
            fprintf(o.f, "\n");
        }
    }
    return mu_output_commit(&o);
}
