/* The study's coded algorithm (its annex source listing), the faithful mode:
 *   x = 0; r = b; w = -r
 *   for i = 0 .. max_it (inclusive):
 *       z = A w; alpha = r'w / w'z; x += alpha w; r -= alpha z
 *       if sqrt(r'r) < E: break          (absolute test on the recursive residual)
 *       beta = r'z / w'z; w = -r + beta w
 *   nro_iter = i                          (0-based; i + 1 products were made)
 * Scalars are formed in the vector precision (float in fp32, as in the study);
 * the dot products are exact, so the counts hold on any number of ranks. */
#include <math.h>
#include <string.h>
#include "cg/solve.h"
#include "core/error.h"
#include "core/log.h"
#include "core/signals.h"

static double ratio(int fp32, double num, double den) {
    return fp32 ? (double)((float)num / (float)den) : num / den;
}

int cg_solve_thesis(mu_app *app, const cg_config *cfg, const cg_matrix *A, cg_backend *be, void *b,
                    void *x, cg_result *res) {
    memset(res, 0, sizeof *res);
    void *r = be->vec_new(be), *w = be->vec_new(be), *z = be->vec_new(be);
    int rc = !r || !w || !z ? mu_error("out of memory for CG vectors") : 0;
    rc = mu_error_collective(app->comm, rc);
    int64_t i = 0;
    if (!rc && cfg->restart) {
        cg_ckpt want = cfg->meta;
        void *vecs[CG_CKPT_VECTORS] = {x, r, w};
        rc = cg_checkpoint_read(app, cfg->checkpoint, &want, A, be, vecs);
        i = want.iteration;
        if (!rc) mu_info("cg: restarting from %s at iteration %lld", cfg->checkpoint, (long long)i);
    } else if (!rc) {
        be->vec_fill(be, x, 0.0);
        be->vec_copy(be, b, r);
        be->waxpby(be, -1.0, r, 0.0, r, w);
    }
    res->first_iteration = i;
    cg_reduction red;
    memset(&red, 0, sizeof red);
    double bb = 0, rr = 0, rnorm = 0;
    if (!rc) {
        be->dot(be, b, b, &red.acc[0]);
        be->dot(be, r, r, &red.acc[1]);
        cg_reduce(app->comm, &red, 2);
        rc = cg_value(&red.acc[0], &bb, "b'b", i) || cg_value(&red.acc[1], &rr, "r'r", i);
    }
    res->bnorm = sqrt(bb);
    res->tol = cfg->atol;
    rnorm = sqrt(rr);
    int fp32 = be->fp32, done = 0;
    cg_progress *prog = rc ? NULL : cg_progress_begin(i, cfg->max_it + 1, rnorm, res->tol);
    for (; !rc && i <= cfg->max_it; i++) {
        memset(&red, 0, sizeof red);
        cg_spmv(be, w, z, &red.acc[1]);
        be->dot(be, r, w, &red.acc[0]);
        cg_reduce(app->comm, &red, 2);
        double rw, wz, rz;
        if ((rc = cg_value(&red.acc[0], &rw, "r'w", i) || cg_value(&red.acc[1], &wz, "w'Aw", i)))
            break;
        if (!(wz > 0)) {
            rc = mu_error("breakdown at iteration %lld: w'Aw = %.6g <= 0: the matrix is not SPD",
                          (long long)i, wz);
            break;
        }
        double alpha = ratio(fp32, rw, wz);
        memset(&red, 0, sizeof red);
        be->cg_update(be, alpha, w, z, x, r, NULL, NULL, &red.acc[0]);
        be->dot(be, r, z, &red.acc[1]);
        int64_t stop = cg_reduce(app->comm, &red, 2);
        if ((rc = cg_value(&red.acc[0], &rr, "r'r", i) || cg_value(&red.acc[1], &rz, "r'z", i)))
            break;
        rnorm = fp32 ? sqrt((double)(float)rr) : sqrt(rr);
        if (rnorm < cfg->atol) {
            done = 1;
            break;
        }
        be->waxpby(be, -1.0, r, ratio(fp32, rz, wz), w, w);
        if (stop) {
            res->outcome = CG_SIGNALLED;
            res->signal = mu_signals_pending();
            rc = cg_save(app, cfg, A, be, i + 1, x, r, w, res);
            i++;
            break;
        }
        if (cfg->checkpoint_every > 0 && (i + 1) % cfg->checkpoint_every == 0 &&
            (rc = cg_save(app, cfg, A, be, i + 1, x, r, w, res)))
            break;
        cg_progress_update(prog, i + 1, rnorm, res->bnorm);
    }
    if (done) {
        res->outcome = CG_CONVERGED;
        i++; /* products made: the study's 0-based nro_iter plus one */
    } else if (!rc && res->outcome != CG_SIGNALLED) {
        res->outcome = CG_MAX_IT;
    }
    cg_progress_end(prog, i);
    res->iterations = i;
    res->rnorm = rnorm;
    be->vec_free(be, r);
    be->vec_free(be, w);
    be->vec_free(be, z);
    return rc;
}
