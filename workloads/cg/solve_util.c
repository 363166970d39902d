/* What the two CG variants share: the fused reduction with the stop flag, the
 * checked conversion of a reduced sum, checkpoints and progress lines. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cg/solve.h"
#include "core/error.h"
#include "core/log.h"
#include "core/progress.h"
#include "core/signals.h"
#include "core/timer.h"
#include "mpi/wait.h"

void cg_spmv(cg_backend *be, void *x, void *y, mu_xsum *xy) {
    be->halo_begin(be, x);
    be->spmv(be, CG_ROWS_INTERIOR, x, y, xy);
    be->halo_end(be, x);
    be->spmv(be, CG_ROWS_BOUNDARY, x, y, xy);
}

int64_t cg_reduce(MPI_Comm comm, cg_reduction *red, int n) {
    /* One message: the accumulators' words, then the flag, all int64. */
    int64_t buf[3 * MU_XSUM_WORDS + 1];
    for (int i = 0; i < n; i++) {
        mu_xsum_normalize(&red->acc[i]);
        memcpy(buf + i * MU_XSUM_WORDS, red->acc[i].w, sizeof red->acc[i].w);
    }
    buf[n * MU_XSUM_WORDS] = mu_signals_pending() != 0;
    mu_allreduce(buf, n * MU_XSUM_WORDS + 1, MPI_INT64_T, MPI_SUM, comm);
    for (int i = 0; i < n; i++)
        memcpy(red->acc[i].w, buf + i * MU_XSUM_WORDS, sizeof red->acc[i].w);
    red->flag = buf[n * MU_XSUM_WORDS];
    return red->flag;
}

int cg_value(const mu_xsum *s, double *v, const char *what, int64_t it) {
    mu_xsum_status st;
    *v = mu_xsum_round(s, &st);
    if (st == MU_XSUM_FINITE) return 0;
    return mu_error("breakdown at iteration %lld: %s is %s (%s)", (long long)it, what,
                    st == MU_XSUM_OVERFLOW ? "beyond the double range" : mu_xsum_status_name(st),
                    st == MU_XSUM_HAS_NAN ? "NaN in the matrix or the vectors"
                                          : "the iteration diverged");
}

int cg_save(mu_app *app, const cg_config *cfg, const cg_matrix *A, cg_backend *be, int64_t it,
            void *v0, void *v1, void *v2, cg_result *res) {
    cg_ckpt meta = cfg->meta;
    meta.iteration = it;
    void *const vecs[CG_CKPT_VECTORS] = {v0, v1, v2};
    mu_timer_begin("checkpoint");
    const double t0 = MPI_Wtime();
    int rc = cg_checkpoint_write(app, cfg->checkpoint, &meta, A, be, vecs);
    res->checkpoint_seconds += MPI_Wtime() - t0;
    mu_timer_end("checkpoint");
    if (!rc) {
        res->checkpoints++;
        mu_debug("checkpoint written to %s at iteration %lld", cfg->checkpoint, (long long)it);
    }
    return rc;
}

struct cg_progress {
    mu_progress p;
    int64_t first, max_it;
    double r0, tol;
};

cg_progress *cg_progress_begin(int64_t first, int64_t max_it, double r0, double tol) {
    cg_progress *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->first = first;
    c->max_it = max_it;
    c->r0 = r0;
    c->tol = tol;
    mu_progress_begin(&c->p, "cg solve", "iterations", (double)(max_it - first));
    return c;
}

void cg_progress_update(cg_progress *c, int64_t it, double rnorm, double bnorm) {
    if (!c) return;
    double done = (double)(it - c->first), last = c->p.last;
    /* Expected total from the decay so far: log(r0/tol) / log(r0/r) times done. */
    double total = (double)(c->max_it - c->first);
    if (done > 0 && rnorm > 0 && c->r0 > 0 && c->tol > 0 && rnorm < c->r0 && c->tol < c->r0) {
        double est = done * log(c->r0 / c->tol) / log(c->r0 / rnorm);
        if (est < total) total = est > done ? est : done;
    }
    c->p.total = total;
    mu_progress_update(&c->p, done);
    if (c->p.last != last)
        mu_info("cg solve: iteration %lld, ||r||/||b|| = %.3e", (long long)it,
                bnorm > 0 ? rnorm / bnorm : rnorm);
}

void cg_progress_end(cg_progress *c, int64_t it) {
    if (!c) return;
    c->p.total = (double)(it - c->first);
    mu_progress_end(&c->p, (double)(it - c->first));
    free(c);
}
