/* Standard preconditioned CG (Hestenes-Stiefel), two reductions per
 * iteration: p'Ap, then r'z with r'r and the stop flag in one message.
 *   r = b - A x, z = M^-1 r, p = z
 *   loop: stop if ||r|| <= max(rtol ||b||, atol) or k = max_it
 *         q = A p; alpha = r'z / p'Ap; x += alpha p; r -= alpha q
 *         (every replace_every iterations: r = b - A x instead)
 *         z = M^-1 r; beta = r'z_new / r'z; p = z + beta p */
#include <math.h>
#include <string.h>
#include "cg/solve.h"
#include "core/cg_stop.h"
#include "core/error.h"
#include "core/log.h"
#include "core/signals.h"

enum { CG_RANKS_BATCH = 256 }; /* iterations per call of a several-rank iterate */

static int start(mu_app *app, const cg_config *cfg, const cg_matrix *A, cg_backend *be, void *b,
                 void *x, void *r, void *p, int64_t *k) {
    *k = 0;
    if (!cfg->restart) {
        be->vec_fill(be, x, 0.0);
        be->vec_copy(be, b, r); /* r = b - A 0 */
        return 0;
    }
    cg_ckpt want = cfg->meta;
    void *vecs[CG_CKPT_VECTORS] = {x, r, p};
    MU_TRY(cg_checkpoint_read(app, cfg->checkpoint, &want, A, be, vecs));
    *k = want.iteration;
    mu_info("cg: restarting from %s at iteration %lld", cfg->checkpoint, (long long)*k);
    return 0;
}

/* What the iterations carry: the problem, the work vectors, the reduction and the
 * scalars r'z and r'r from one iteration to the next, and the iteration count. */
typedef struct {
    mu_app *app;
    const cg_config *cfg;
    const cg_matrix *A;
    cg_backend *be;
    void *b, *x, *r, *p, *q, *z;
    cg_reduction red;
    double rz, rr;
    int64_t k;
    cg_result *res;
} cg_loop;

/* ||b||, r'z and r'r in one reduction; p = z unless a restart read it. */
static int first_reduction(cg_loop *s, double *bb) {
    cg_backend *be = s->be;
    cg_reduction *red = &s->red;
    memset(red, 0, sizeof *red);
    be->dot(be, s->b, s->b, &red->acc[2]);
    be->precond(be, s->r, s->z, &red->acc[1], &red->acc[0]);
    cg_reduce(s->app->comm, red, 3);
    int rc = cg_value(&red->acc[2], bb, "b'b", s->k) || cg_value(&red->acc[0], &s->rr, "r'r", s->k);
    if (!rc) s->rz = s->rr;
    if (!rc && s->z) rc = cg_value(&red->acc[1], &s->rz, "r'z", s->k);
    if (!rc && !s->cfg->restart) be->vec_copy(be, s->z ? s->z : s->r, s->p);
    return rc;
}

/* GPU: whole iterations in the backend (kernels.h), the same bits; none made
 * (*made stays 0) means a breakdown, which the table path reports. Several ranks
 * stop together: on a reduced stop request, and every CG_RANKS_BATCH iterations
 * for the progress lines (one rank returns twice a second by itself). *done: the
 * loop ends (a signal, after its checkpoint). */
static int whole_iterations(cg_loop *s, cg_progress *prog, int *made, int *done) {
    mu_app *app = s->app;
    cg_result *res = s->res;
    int64_t k0 = s->k, every = s->cfg->checkpoint_every, n = s->cfg->max_it - s->k;
    if (every > 0 && every - s->k % every < n) n = every - s->k % every;
    if (app->size > 1 && n > CG_RANKS_BATCH) n = CG_RANKS_BATCH;
    int stop = 0, rc;
    if ((rc = s->be->iterate(s->be, app->comm, n, res->tol, s->x, s->r, s->p, s->q, s->z, &s->rz,
                             &s->rr, &s->k, &stop)))
        return rc;
    if (s->k == k0) return 0;
    *made = 1;
    if (app->size == 1) stop = mu_signals_pending() != 0;
    if (stop) {
        res->outcome = CG_SIGNALLED;
        res->signal = mu_signals_pending();
    }
    if ((stop || (every > 0 && s->k % every == 0)) &&
        ((rc = cg_save(app, s->cfg, s->A, s->be, s->k, s->x, s->r, s->p, res)) || stop)) {
        *done = 1;
        return rc;
    }
    cg_progress_update(prog, s->k, sqrt(s->rr), res->bnorm);
    return 0;
}

/* One iteration through the backend's table: q = A p, alpha, x and r, z and the
 * new r'z, p. *stop: the ranks that saw a signal, from the second reduction. */
static int table_iteration(cg_loop *s, int64_t *stop) {
    cg_backend *be = s->be;
    cg_reduction *red = &s->red;
    void *x = s->x, *r = s->r, *p = s->p, *q = s->q, *z = s->z;
    memset(&red->acc[0], 0, sizeof red->acc[0]);
    cg_spmv(be, p, q, &red->acc[0]);
    cg_reduce(s->app->comm, red, 1);
    double pap;
    int rc;
    if ((rc = cg_value(&red->acc[0], &pap, "p'Ap", s->k))) return rc;
    if (!(pap > 0))
        return mu_error("breakdown at iteration %lld: p'Ap = %.6g <= 0: the matrix is not SPD",
                        (long long)s->k, pap);
    double alpha = s->rz / pap;
    memset(&red->acc[0], 0, 2 * sizeof red->acc[0]);
    int x_later = 0; /* x += alpha p rides on the direction update */
    if (s->cfg->replace_every > 0 && (s->k + 1) % s->cfg->replace_every == 0) {
        be->waxpby(be, 1.0, x, alpha, p, x);
        cg_spmv(be, x, q, NULL);
        be->waxpby(be, 1.0, s->b, -1.0, q, r); /* the true residual replaces the recursive one */
        be->precond(be, r, z, &red->acc[1], &red->acc[0]);
    } else if (be->cg_residual && be->cg_direction) {
        be->cg_residual(be, alpha, q, r, z, &red->acc[1], &red->acc[0]);
        x_later = 1;
    } else {
        be->cg_update(be, alpha, p, q, x, r, z, &red->acc[1], &red->acc[0]);
    }
    *stop = cg_reduce(s->app->comm, red, z ? 2 : 1);
    double rz_new;
    if ((rc = cg_value(&red->acc[0], &s->rr, "r'r", s->k))) return rc;
    rz_new = s->rr;
    if (z && (rc = cg_value(&red->acc[1], &rz_new, "r'z", s->k))) return rc;
    if (x_later)
        be->cg_direction(be, alpha, rz_new / s->rz, z ? z : r, p, x);
    else
        be->waxpby(be, 1.0, z ? z : r, rz_new / s->rz, p, p);
    s->rz = rz_new;
    s->k++;
    return 0;
}

int cg_solve_standard(mu_app *app, const cg_config *cfg, const cg_matrix *A, cg_backend *be,
                      void *b, void *x, cg_result *res) {
    memset(res, 0, sizeof *res);
    cg_loop s = {.app = app, .cfg = cfg, .A = A, .be = be, .b = b, .x = x, .res = res};
    s.r = be->vec_new(be);
    s.p = be->vec_new(be);
    s.q = be->vec_new(be);
    s.z = cfg->jacobi ? be->vec_new(be) : NULL;
    int rc = !s.r || !s.p || !s.q || (cfg->jacobi && !s.z)
                 ? mu_error("out of memory for CG vectors")
                 : 0;
    if (!mu_error_collective(app->comm, rc))
        rc = start(app, cfg, A, be, b, x, s.r, s.p, &s.k);
    else
        rc = 1;
    res->first_iteration = s.k;

    double bb = 0;
    if (!rc) rc = first_reduction(&s, &bb);
    res->bnorm = sqrt(bb);
    res->tol = fmax(cfg->rtol * res->bnorm, cfg->atol);
    cg_progress *prog = rc ? NULL : cg_progress_begin(s.k, cfg->max_it, sqrt(s.rr), res->tol);
    /* Whole iterations in the backend only where every rank's backend has them
     * (--device=auto may mix GPU and CPU ranks), as each call is collective. */
    int whole = be->iterate != NULL && cfg->replace_every == 0;
    if (!rc && app->size > 1) MPI_Allreduce(MPI_IN_PLACE, &whole, 1, MPI_INT, MPI_MIN, app->comm);
    const double loop0 = MPI_Wtime(), setup0 = be->setup_seconds;
    while (!rc) {
        if (mu_cg_converged(s.rr, res->tol)) {
            res->outcome = CG_CONVERGED;
            break;
        }
        if (s.k >= cfg->max_it) {
            res->outcome = CG_MAX_IT;
            break;
        }
        if (whole) {
            int made = 0, done = 0;
            if ((rc = whole_iterations(&s, prog, &made, &done)) || done) break;
            if (made) continue;
        }
        int64_t stop = 0;
        if ((rc = table_iteration(&s, &stop))) break;
        if (stop) {
            res->outcome = CG_SIGNALLED;
            res->signal = mu_signals_pending();
            rc = cg_save(app, cfg, A, be, s.k, x, s.r, s.p, res);
            break;
        }
        if (cfg->checkpoint_every > 0 && s.k % cfg->checkpoint_every == 0 &&
            (rc = cg_save(app, cfg, A, be, s.k, x, s.r, s.p, res)))
            break;
        cg_progress_update(prog, s.k, sqrt(s.rr), res->bnorm);
    }
    res->loop_seconds =
        MPI_Wtime() - loop0 - (be->setup_seconds - setup0) - res->checkpoint_seconds;
    cg_progress_end(prog, s.k);
    res->iterations = s.k;
    res->rnorm = sqrt(s.rr);
    be->vec_free(be, s.r);
    be->vec_free(be, s.p);
    be->vec_free(be, s.q);
    if (s.z) be->vec_free(be, s.z);
    return rc;
}
