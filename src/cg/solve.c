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

int cg_solve_standard(mu_app *app, const cg_config *cfg, const cg_matrix *A, cg_backend *be,
                      void *b, void *x, cg_result *res) {
    memset(res, 0, sizeof *res);
    void *r = be->vec_new(be), *p = be->vec_new(be), *q = be->vec_new(be);
    void *z = cfg->jacobi ? be->vec_new(be) : NULL;
    int rc = !r || !p || !q || (cfg->jacobi && !z) ? mu_error("out of memory for CG vectors") : 0;
    int64_t k = 0;
    if (!mu_error_collective(app->comm, rc))
        rc = start(app, cfg, A, be, b, x, r, p, &k);
    else
        rc = 1;
    res->first_iteration = k;

    /* ||b||, r'z and r'r in one reduction. */
    cg_reduction red;
    double bb = 0, rz = 0, rr = 0;
    if (!rc) {
        memset(&red, 0, sizeof red);
        be->dot(be, b, b, &red.acc[2]);
        be->precond(be, r, z, &red.acc[1], &red.acc[0]);
        cg_reduce(app->comm, &red, 3);
        rc = cg_value(&red.acc[2], &bb, "b'b", k) || cg_value(&red.acc[0], &rr, "r'r", k);
        if (!rc) rz = rr;
        if (!rc && z) rc = cg_value(&red.acc[1], &rz, "r'z", k);
        if (!rc && !cfg->restart) be->vec_copy(be, z ? z : r, p);
    }
    res->bnorm = sqrt(bb);
    res->tol = fmax(cfg->rtol * res->bnorm, cfg->atol);
    cg_progress *prog = rc ? NULL : cg_progress_begin(k, cfg->max_it, sqrt(rr), res->tol);
    /* Whole iterations in the backend only where every rank's backend has them
     * (--device=auto may mix GPU and CPU ranks), as each call is collective. */
    int whole = be->iterate != NULL && cfg->replace_every == 0;
    if (!rc && app->size > 1) MPI_Allreduce(MPI_IN_PLACE, &whole, 1, MPI_INT, MPI_MIN, app->comm);
    const double loop0 = MPI_Wtime(), setup0 = be->setup_seconds;
    while (!rc) {
        if (sqrt(rr) <= res->tol) {
            res->outcome = CG_CONVERGED;
            break;
        }
        if (k >= cfg->max_it) {
            res->outcome = CG_MAX_IT;
            break;
        }
        if (whole) {
            /* GPU: whole iterations in the backend (kernels.h), the same bits; none made
             * means a breakdown, which the table path below reports. Several ranks stop
             * together: on a reduced stop request, and every CG_RANKS_BATCH iterations
             * for the progress lines (one rank returns twice a second by itself). */
            int64_t k0 = k, every = cfg->checkpoint_every, n = cfg->max_it - k;
            if (every > 0 && every - k % every < n) n = every - k % every;
            if (app->size > 1 && n > CG_RANKS_BATCH) n = CG_RANKS_BATCH;
            int stop = 0;
            if ((rc = be->iterate(be, app->comm, n, res->tol, x, r, p, q, z, &rz, &rr, &k, &stop)))
                break;
            if (k > k0) {
                if (app->size == 1) stop = mu_signals_pending() != 0;
                if (stop) {
                    res->outcome = CG_SIGNALLED;
                    res->signal = mu_signals_pending();
                }
                if ((stop || (every > 0 && k % every == 0)) &&
                    ((rc = cg_save(app, cfg, A, be, k, x, r, p, res)) || stop))
                    break;
                cg_progress_update(prog, k, sqrt(rr), res->bnorm);
                continue;
            }
        }
        memset(&red.acc[0], 0, sizeof red.acc[0]);
        cg_spmv(be, p, q, &red.acc[0]);
        cg_reduce(app->comm, &red, 1);
        double pap;
        if ((rc = cg_value(&red.acc[0], &pap, "p'Ap", k))) break;
        if (!(pap > 0)) {
            rc = mu_error("breakdown at iteration %lld: p'Ap = %.6g <= 0: the matrix is not SPD",
                          (long long)k, pap);
            break;
        }
        double alpha = rz / pap;
        memset(&red.acc[0], 0, 2 * sizeof red.acc[0]);
        int x_later = 0; /* x += alpha p rides on the direction update */
        if (cfg->replace_every > 0 && (k + 1) % cfg->replace_every == 0) {
            be->waxpby(be, 1.0, x, alpha, p, x);
            cg_spmv(be, x, q, NULL);
            be->waxpby(be, 1.0, b, -1.0, q, r); /* the true residual replaces the recursive one */
            be->precond(be, r, z, &red.acc[1], &red.acc[0]);
        } else if (be->cg_residual && be->cg_direction) {
            be->cg_residual(be, alpha, q, r, z, &red.acc[1], &red.acc[0]);
            x_later = 1;
        } else {
            be->cg_update(be, alpha, p, q, x, r, z, &red.acc[1], &red.acc[0]);
        }
        int64_t stop = cg_reduce(app->comm, &red, z ? 2 : 1);
        double rz_new;
        if ((rc = cg_value(&red.acc[0], &rr, "r'r", k))) break;
        rz_new = rr;
        if (z && (rc = cg_value(&red.acc[1], &rz_new, "r'z", k))) break;
        if (x_later)
            be->cg_direction(be, alpha, rz_new / rz, z ? z : r, p, x);
        else
            be->waxpby(be, 1.0, z ? z : r, rz_new / rz, p, p);
        rz = rz_new;
        k++;
        if (stop) {
            res->outcome = CG_SIGNALLED;
            res->signal = mu_signals_pending();
            rc = cg_save(app, cfg, A, be, k, x, r, p, res);
            break;
        }
        if (cfg->checkpoint_every > 0 && k % cfg->checkpoint_every == 0 &&
            (rc = cg_save(app, cfg, A, be, k, x, r, p, res)))
            break;
        cg_progress_update(prog, k, sqrt(rr), res->bnorm);
    }
    res->loop_seconds =
        MPI_Wtime() - loop0 - (be->setup_seconds - setup0) - res->checkpoint_seconds;
    cg_progress_end(prog, k);
    res->iterations = k;
    res->rnorm = sqrt(rr);
    be->vec_free(be, r);
    be->vec_free(be, p);
    be->vec_free(be, q);
    if (z) be->vec_free(be, z);
    return rc;
}
