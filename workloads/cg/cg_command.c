/* `mutirao cg`: options, the run from input to answer, and the exit status:
 * 0 converged, 1 error (bad input, breakdown), 2 not converged within --max-it
 * (a warning; the last iterate is still written), 3 stopped by SIGTERM or
 * SIGUSR1 after writing a checkpoint (resume with --restart). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cg/cg.h"
#include "cg/poisson.h"
#include "cg/solve.h"
#include "cg/vectors.h"
#include "core/error.h"
#include "core/log.h"
#include "core/output.h"
#include "core/signals.h"
#include "core/summary.h"
#include "core/timer.h"
#include "mpi/wait.h"

/* The options, one row each (name, type, default, choices, help): cg/options.def. */
static const mu_opt_spec cg_opts[] = {
#include "cg/options.def"
    MU_OPT_END};

typedef struct {
    const char *matrix;
    int stencil;
    int64_t nx, ny, nz;
    double scale;
    cg_rhs rhs;
    uint64_t seed;
    int fp32;
    const char *output;
    cg_config solver;
} cg_run_opts;

/* FNV-1a: the options fingerprint stored in checkpoints. */
static uint64_t fnv1a(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int read_options(const mu_opts *o, cg_run_opts *c) {
    memset(c, 0, sizeof *c);
    c->matrix = mu_opt_str(o, "matrix");
    const char *poisson = mu_opt_str(o, "poisson");
    if (!c->matrix == !poisson)
        return mu_error(c->matrix ? "--matrix and --poisson exclude each other"
                                  : "no problem: give --matrix=FILE or --poisson=2d5|3d7|3d27 "
                                    "with --nx=N");
    if (poisson) {
        c->stencil = !strcmp(poisson, "2d5")   ? CG_POISSON_2D5
                     : !strcmp(poisson, "3d7") ? CG_POISSON_3D7
                                               : CG_POISSON_3D27;
        if (!mu_opt_set(o, "nx")) return mu_error("--poisson=%s needs --nx=N", poisson);
        c->nx = mu_opt_int(o, "nx");
        c->ny = mu_opt_set(o, "ny") ? mu_opt_int(o, "ny") : c->nx;
        c->nz = c->stencil == CG_POISSON_2D5 ? 1
                : mu_opt_set(o, "nz")        ? mu_opt_int(o, "nz")
                                             : c->nx;
        if (c->nx < 1 || c->ny < 1 || c->nz < 1)
            return mu_error("--nx, --ny and --nz must be at least 1");
        /* Multiplied with overflow checks: nx ny nz rows, at most 2^31 - 2. */
        if (c->nx > INT32_MAX || c->ny > INT32_MAX / c->nx ||
            c->nz > (INT32_MAX - 1) / (c->nx * c->ny))
            return mu_error("--nx=%lld --ny=%lld --nz=%lld: a grid of over 2^31 - 2 rows "
                            "(at most 2^31 - 2 are supported)",
                            (long long)c->nx, (long long)c->ny, (long long)c->nz);
        if (c->stencil == CG_POISSON_2D5 && mu_opt_set(o, "nz"))
            return mu_error("--nz is for the 3-D operators, not --poisson=2d5");
    } else if (mu_opt_set(o, "nx") || mu_opt_set(o, "ny") || mu_opt_set(o, "nz")) {
        return mu_error("--nx, --ny and --nz go with --poisson, not --matrix");
    }
    c->scale = mu_opt_real(o, "scale");
    if (!(c->scale > 0)) return mu_error("--scale must be positive");
    c->rhs = mu_opt_is(o, "rhs", "ones")     ? CG_RHS_ONES
             : mu_opt_is(o, "rhs", "random") ? CG_RHS_RANDOM
                                             : CG_RHS_AONES;
    c->seed = (uint64_t)mu_opt_int(o, "seed");
    cg_config *s = &c->solver;
    s->variant = mu_opt_is(o, "variant", "thesis") ? CG_THESIS : CG_STANDARD;
    s->jacobi = mu_opt_is(o, "pc", "jacobi");
    c->fp32 = mu_opt_is(o, "precision", "fp32") ||
              (s->variant == CG_THESIS && mu_opt_is(o, "precision", "auto"));
    s->rtol = mu_opt_real(o, "rtol");
    s->atol = mu_opt_set(o, "atol") ? mu_opt_real(o, "atol") : s->variant == CG_THESIS ? 1e-5 : 0;
    s->max_it = mu_opt_set(o, "max-it")   ? mu_opt_int(o, "max-it")
                : s->variant == CG_THESIS ? 999999
                                          : 10000;
    s->replace_every = mu_opt_int(o, "replace-every");
    MU_TRY(mu_opt_checkpoint(o, &s->checkpoint, &s->checkpoint_every, &s->restart));
    c->output = mu_opt_str(o, "output");
    if (s->rtol < 0 || s->rtol >= 1) return mu_error("--rtol must be in [0, 1)");
    if (s->atol < 0) return mu_error("--atol must be >= 0");
    if (s->max_it < 0) return mu_error("--max-it must be >= 0");
    if (s->replace_every < 0) return mu_error("--replace-every must be >= 0");
    if (!s->checkpoint) return mu_error("--checkpoint needs a file name");
    if (s->variant == CG_THESIS && (s->jacobi || s->replace_every))
        return mu_error("--variant=thesis is the study's plain CG: no --pc or --replace-every");
    if (s->variant == CG_THESIS && s->atol <= 0)
        return mu_error("--variant=thesis stops on ||r|| < atol: give --atol > 0");
    return 0;
}

static void describe(const mu_opts *o, const cg_run_opts *c, cg_config *s) {
    /* What shapes the iterates, for the checkpoint fingerprint. The matrix
     * itself is fingerprinted by content, so its path (which may change, or gain
     * a .gz) only goes into the text; the stopping test may change on a restart. */
    char shape[CG_CKPT_TEXT / 2], seed[40] = "";
    if (c->rhs == CG_RHS_RANDOM)
        snprintf(seed, sizeof seed, " seed=%llu", (unsigned long long)c->seed);
    snprintf(shape, sizeof shape,
             "scale=%.17g rhs=%s%s variant=%s pc=%s precision=%s replace-every=%lld", c->scale,
             mu_opt_str(o, "rhs"), seed, mu_opt_str(o, "variant"), mu_opt_str(o, "pc"),
             c->fp32 ? "fp32" : "fp64", (long long)s->replace_every);
    s->meta.options_hash = fnv1a(shape);
    if (c->matrix)
        snprintf(s->meta.options, sizeof s->meta.options, "matrix=%.150s %s", c->matrix, shape);
    else
        snprintf(s->meta.options, sizeof s->meta.options, "poisson=%s %lldx%lldx%lld %s",
                 mu_opt_str(o, "poisson"), (long long)c->nx, (long long)c->ny, (long long)c->nz,
                 shape);
}

/* Rows, nonzeros, ghosts and neighbours of every rank, from rank 0. */
static void log_layout(mu_app *app, const cg_matrix *A) {
    mu_halo_lists hl;
    mu_halo_get_lists(A->halo, &hl);
    int64_t mine[6] = {A->nloc, A->nnz_loc, A->nghost, A->ninterior, hl.nrecv_ranks, hl.nsend};
    int64_t *all = app->rank == 0 ? malloc((size_t)app->size * sizeof mine) : NULL;
    MPI_Gather(mine, 6, MPI_INT64_T, all, 6, MPI_INT64_T, 0, app->comm);
    if (app->rank != 0) return;
    int64_t ghosts = 0, lo = INT64_MAX, hi = 0;
    for (int r = 0; r < app->size; r++) {
        const int64_t *v = all + 6 * r;
        ghosts += v[2];
        if (v[1] < lo) lo = v[1];
        if (v[1] > hi) hi = v[1];
        if (app->size <= 16 || mu_log_get_level() == MU_LOG_DEBUG)
            mu_info("cg: rank %d: rows %lld, nonzeros %lld, ghosts %lld from %lld rank(s), "
                    "interior rows %lld, sends %lld",
                    r, (long long)v[0], (long long)v[1], (long long)v[2], (long long)v[4],
                    (long long)v[3], (long long)v[5]);
    }
    double mean = (double)A->nnz / app->size;
    mu_info("cg: %d rank(s): nonzeros per rank %lld..%lld (imbalance %.3f), %lld ghost values per "
            "exchange in all",
            app->size, (long long)lo, (long long)hi, mean > 0 ? hi / mean : 1.0, (long long)ghosts);
    free(all);
}

/* A generated operator is built straight into the working layout ("read");
 * a file's rows are read and sent ("read"), then renumbered ("setup"). */
static int load(mu_app *app, const cg_run_opts *c, cg_matrix *A) {
    mu_timer_begin("read");
    if (!c->matrix) {
        int rc = cg_poisson_matrix(app, c->stencil, c->nx, c->ny, c->nz, c->scale, A);
        mu_timer_end("read");
        MU_TRY(rc);
        mu_info("cg: %s Poisson operator on %lld x %lld x %lld: %lld rows, %lld nonzeros",
                cg_stencil_name((cg_stencil)c->stencil), (long long)c->nx, (long long)c->ny,
                (long long)c->nz, (long long)A->n, (long long)A->nnz);
        return 0;
    }
    cg_block blk;
    int rc = cg_load_file(app, c->matrix, c->scale, &blk);
    mu_timer_end("read");
    MU_TRY(rc);
    mu_timer_begin("setup");
    rc = cg_matrix_setup(app, &blk, A);
    mu_timer_end("setup");
    return rc;
}

typedef struct {
    cg_result res;
    double true_res, error, seconds;
} cg_answer;

static void report(mu_app *app, const cg_run_opts *c, const cg_matrix *A, const cg_answer *a) {
    const cg_result *r = &a->res;
    const cg_config *s = &c->solver;
    const char *status = r->outcome == CG_CONVERGED ? "converged"
                         : r->outcome == CG_MAX_IT  ? "not converged"
                                                    : "stopped";
    double bn = r->bnorm > 0 ? r->bnorm : 1.0;
    int64_t done = r->iterations - r->first_iteration;
    double per_it = done > 0 ? a->seconds / (double)done : 0.0;
    if (app->rank == 0) {
        char extra[160] = "";
        if (s->variant == CG_THESIS)
            snprintf(extra, sizeof extra, " nro_iter=%lld",
                     (long long)(r->outcome == CG_CONVERGED ? r->iterations - 1 : r->iterations));
        if (c->rhs == CG_RHS_AONES && r->outcome != CG_SIGNALLED)
            snprintf(extra + strlen(extra), sizeof extra - strlen(extra), " error=%.3e", a->error);
        /* A stopped run leaves at once: its true residual is not computed. */
        char truth[32] = "not-computed";
        if (r->outcome != CG_SIGNALLED) snprintf(truth, sizeof truth, "%.3e", a->true_res / bn);
        printf("cg: %s iterations=%lld%s residual=%.3e true_residual=%s%s time_per_it=%.3es "
               "(n=%lld nnz=%lld ranks=%d variant=%s pc=%s precision=%s)\n",
               status, (long long)r->iterations, r->first_iteration ? " (restarted)" : "",
               r->rnorm / bn, truth, extra, per_it, (long long)A->n, (long long)A->nnz, app->size,
               s->variant == CG_THESIS ? "thesis" : "standard", s->jacobi ? "jacobi" : "none",
               c->fp32 ? "fp32" : "fp64");
        fflush(stdout);
    }
    mu_summary_result_str("status", status);
    mu_summary_result_bool("converged", r->outcome == CG_CONVERGED);
    mu_summary_result_int("n", A->n);
    mu_summary_result_int("nnz", A->nnz);
    mu_summary_result_int("iterations", r->iterations);
    mu_summary_result_int("first_iteration", r->first_iteration);
    if (s->variant == CG_THESIS && r->outcome == CG_CONVERGED)
        mu_summary_result_int("nro_iter", r->iterations - 1);
    /* Real-valued results (the summary's "result" section takes integers and strings). */
    mu_summary_real("residual_relative", r->rnorm / bn);
    if (r->outcome != CG_SIGNALLED) mu_summary_real("true_residual_relative", a->true_res / bn);
    if (c->rhs == CG_RHS_AONES && r->outcome != CG_SIGNALLED)
        mu_summary_real("error_relative", a->error);
    mu_summary_real("seconds_per_iteration", per_it);
    if (r->loop_seconds > 0 && done > 0) { /* fixed cost apart from the cost per iteration */
        const double fixed = a->seconds - r->loop_seconds - r->checkpoint_seconds;
        mu_summary_real("iteration_seconds", r->loop_seconds / (double)done);
        mu_summary_real("solve_fixed_seconds", fixed);
        mu_info("cg: %.4g s an iteration; the solve's fixed part %.3f s (vectors, first "
                "reduction, one-off device set-up), checkpoints %.3f s",
                r->loop_seconds / (double)done, fixed, r->checkpoint_seconds);
    }
    mu_summary_real("tolerance", r->tol);
}

static int cg_run(mu_app *app) {
    cg_run_opts c;
    int rc = read_options(app->opts, &c);
    if (!rc && app->rank == 0 && c.output) rc = mu_output_check(c.output);
    /* A checkpoint asked for must be writable up front; the default one only
     * matters if a signal comes, and then its error is reported then. */
    if (!rc && app->rank == 0 &&
        (mu_opt_set(app->opts, "checkpoint") || c.solver.checkpoint_every > 0))
        rc = mu_output_check(c.solver.checkpoint);
    if (!rc) rc = mu_signals_install();
    MU_TRY(mu_error_collective(app->comm, rc));
    describe(app->opts, &c, &c.solver);
    mu_wait_configure(app->dev.local_size);
    if (mu_wait_polite()) mu_info("cg: more ranks than CPUs on a node: MPI waits yield the CPU");
    int gpus = app->dev.use_gpu, any = 0;
    MPI_Allreduce(&gpus, &any, 1, MPI_INT, MPI_SUM, app->comm);
    if (any) mu_info("cg: the solve runs on the GPU of %d of %d rank(s)", any, app->size);
    if (app->rank == 0 && c.solver.variant == CG_THESIS && mu_opt_set(app->opts, "rtol"))
        mu_warn("--rtol is ignored by --variant=thesis (absolute test ||r|| < atol)");

    cg_matrix A;
    MU_TRY(load(app, &c, &A));
    mu_timer_begin("setup");
    log_layout(app, &A);
    cg_backend *be;
    void *b, *x;
    rc = cg_backend_open(app, &A, c.fp32, c.solver.jacobi, &be, &b, &x);
    if (!rc) rc = cg_make_rhs(app, &A, be, c.rhs, c.seed, b, x);
    mu_timer_end("setup");

    cg_answer ans;
    memset(&ans, 0, sizeof ans);
    if (rc) goto done;
    c.solver.meta.n = A.n;
    c.solver.meta.nnz = A.nnz;
    mu_info(
        "cg: %s CG, pc %s, %s, rhs %s, %s", c.solver.variant == CG_THESIS ? "thesis" : "standard",
        c.solver.jacobi ? "jacobi" : "none", c.fp32 ? "fp32" : "fp64", mu_opt_str(app->opts, "rhs"),
        c.solver.variant == CG_THESIS ? "stop at ||r|| < atol"
                                      : "stop at ||r|| <= max(rtol ||b||, atol)");
    mu_timer_begin("solve");
    double t0 = MPI_Wtime();
    rc = (c.solver.variant == CG_THESIS ? cg_solve_thesis : cg_solve_standard)(app, &c.solver, &A,
                                                                               be, b, x, &ans.res);
    ans.seconds = MPI_Wtime() - t0;
    mu_timer_end("solve");
    if (rc) goto done;
    if (ans.res.outcome != CG_SIGNALLED) {
        mu_timer_begin("check");
        cg_check(app, &A, be, b, x, &ans.true_res, c.rhs == CG_RHS_AONES ? &ans.error : NULL);
        mu_timer_end("check");
        if (c.output) {
            mu_timer_begin("output");
            rc = cg_write_solution(app, &A, be, x, c.output);
            mu_timer_end("output");
            if (rc) goto done;
        }
    }
    report(app, &c, &A, &ans);
done:
    cg_backend_close(be, b, x);
    cg_matrix_free(&A);
    if (rc) return rc;
    if (ans.res.outcome == CG_SIGNALLED) {
        if (app->rank == 0) /* warnings print on every rank: once is enough */
            mu_warn("cg: stopped by %s at iteration %lld: checkpoint written to %s; resume with "
                    "--restart (exit status 3)",
                    ans.res.signal ? mu_signals_name(ans.res.signal) : "a signal on another rank",
                    (long long)ans.res.iterations, c.solver.checkpoint);
        app->exit_status = 3; /* stopped by a signal */
    }
    if (ans.res.outcome == CG_MAX_IT) {
        if (app->rank == 0)
            mu_warn("cg: not converged after %lld iterations: ||r|| = %.3e > %.3e (exit status 2)",
                    (long long)ans.res.iterations, ans.res.rnorm, ans.res.tol);
        app->exit_status = 2; /* not converged */
    }
    return 0;
}

const mu_command mu_cmd_cg = {
    "cg", "Conjugate Gradient on a sparse SPD matrix (Matrix Market file or generated Poisson)",
    cg_opts, cg_run};
