#include "bench_cg_state.h"
#include <string.h>
#include "cg/vectors.h"

int bench_cg_state_new(cg_backend *be, bench_cg_state *s) {
    void **v[] = {&s->b, &s->x, &s->r, &s->p, &s->q};
    for (int i = 0; i < 5; i++)
        if (!(*v[i] = be->vec_new(be))) return 1;
    return 0;
}

void bench_cg_state_reset(cg_backend *be, bench_cg_state *s, MPI_Comm comm) {
    be->vec_fill(be, s->x, 0.0);
    be->vec_copy(be, s->b, s->r);
    be->vec_copy(be, s->r, s->p);
    mu_xsum rr;
    mu_xsum_zero(&rr);
    be->dot(be, s->r, s->r, &rr);
    mu_xsum_allreduce(&rr, 1, comm);
    s->rr = s->rz = mu_xsum_round(&rr, NULL);
    s->k = 0;
}

void bench_cg_state_free(cg_backend *be, bench_cg_state *s) {
    void *v[] = {s->b, s->x, s->r, s->p, s->q};
    for (int i = 0; i < 5; i++) be->vec_free(be, v[i]);
}

int bench_cg_solve(mu_app *app, const cg_matrix *A, cg_backend *be, bench_cg_state *s,
                   const char *checkpoint, cg_result *res, double *seconds, double *err) {
    cg_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.rtol = 1e-8;
    cfg.max_it = 5000;
    cfg.checkpoint = checkpoint;
    MPI_Barrier(app->comm);
    double t = MPI_Wtime();
    if (cg_solve_standard(app, &cfg, A, be, s->b, s->x, res)) return 1;
    t = MPI_Wtime() - t;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, app->comm);
    *seconds = t;
    *err = cg_error_vs_ones(app, A, be, s->x);
    return 0;
}
