#include "cg/vectors.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/output.h"
#include "core/philox.h"

enum { RHS_STREAM = 0x6367 }; /* "cg": the Philox stream of random right-hand sides */

int cg_make_rhs(mu_app *app, const cg_matrix *A, cg_backend *be, cg_rhs kind, uint64_t seed,
                void *b, void *scratch) {
    if (kind == CG_RHS_ONES) {
        be->vec_fill(be, b, 1.0);
        return 0;
    }
    if (kind == CG_RHS_AONES) {
        /* Ghost slots hold 1 too, so no exchange is needed. */
        void *ones = scratch ? scratch : be->vec_new(be);
        int rc = ones ? 0 : mu_error("out of memory");
        MU_TRY(mu_error_collective(app->comm, rc));
        be->vec_fill(be, ones, 1.0);
        be->spmv(be, CG_ROWS_ALL, ones, b, NULL);
        if (!scratch) be->vec_free(be, ones);
        return 0;
    }
    double *host = malloc((size_t)(A->nloc ? A->nloc : 1) * sizeof *host);
    int rc = host ? 0 : mu_error("out of memory");
    MU_TRY(mu_error_collective(app->comm, rc));
    for (int64_t i = 0; i < A->nloc; i++) {
        uint32_t w[4];
        mu_rng4(seed, RHS_STREAM, (uint64_t)(A->row0 + i), w);
        host[i] = 2.0 * mu_rng_open01(w[0], w[1]) - 1.0;
    }
    be->vec_set(be, b, host);
    free(host);
    return 0;
}

/* sqrt of the reduced sum of squares, over count entries. */
static double rms_of(mu_app *app, mu_xsum *s, int64_t count) {
    mu_xsum_allreduce(s, 1, app->comm);
    return sqrt(mu_xsum_round(s, NULL) / (double)count);
}

/* ||b - A x|| into q, which it leaves holding b - A x. */
static double residual_in(mu_app *app, cg_backend *be, void *b, void *x, void *q) {
    cg_spmv(be, x, q, NULL);
    be->waxpby(be, 1.0, b, -1.0, q, q);
    mu_xsum s;
    mu_xsum_zero(&s);
    be->dot(be, q, q, &s);
    return rms_of(app, &s, 1);
}

/* ||x - 1|| / ||1|| on the backend, q as scratch. Only for double vectors:
 * q = 1 x + (-1) 1 rounds x - 1 once, and the dot adds each (x_i - 1)^2
 * formed in double exactly, the host loop's terms (float vectors would
 * round x - 1 to float). */
static double error_on_backend(mu_app *app, const cg_matrix *A, cg_backend *be, const void *x,
                               void *q) {
    be->vec_fill(be, q, 1.0);
    be->waxpby(be, 1.0, x, -1.0, q, q);
    mu_xsum s;
    mu_xsum_zero(&s);
    be->dot(be, q, q, &s);
    return rms_of(app, &s, A->n);
}

enum { ERR_CHUNK = 4096 }; /* terms per exact block add */

/* The same from the host copy of x (float vectors: x - 1 in double). */
static double error_on_host(mu_app *app, const cg_matrix *A, cg_backend *be, const void *x) {
    double *host = malloc((size_t)(A->nloc ? A->nloc : 1) * sizeof *host);
    if (mu_error_collective(app->comm, host ? 0 : mu_error("out of memory"))) return NAN;
    be->vec_get(be, x, host);
    mu_xsum s;
    mu_xsum_zero(&s);
    double term[ERR_CHUNK];
    for (int64_t i0 = 0; i0 < A->nloc; i0 += ERR_CHUNK) {
        int64_t m = A->nloc - i0 < ERR_CHUNK ? A->nloc - i0 : ERR_CHUNK;
        for (int64_t j = 0; j < m; j++) term[j] = (host[i0 + j] - 1.0) * (host[i0 + j] - 1.0);
        mu_xsum_add_array(&s, term, m);
    }
    free(host);
    return rms_of(app, &s, A->n);
}

void cg_check(mu_app *app, const cg_matrix *A, cg_backend *be, void *b, void *x, double *true_res,
              double *error) {
    void *q = be->vec_new(be);
    if (mu_error_collective(app->comm, q ? 0 : mu_error("out of memory"))) {
        *true_res = NAN;
        if (error) *error = NAN;
        return;
    }
    *true_res = residual_in(app, be, b, x, q);
    if (error)
        *error = be->fp32 ? error_on_host(app, A, be, x) : error_on_backend(app, A, be, x, q);
    be->vec_free(be, q);
}

double cg_true_residual(mu_app *app, cg_backend *be, void *b, void *x) {
    double r;
    cg_check(app, NULL, be, b, x, &r, NULL);
    return r;
}

double cg_error_vs_ones(mu_app *app, const cg_matrix *A, cg_backend *be, const void *x) {
    if (be->fp32) return error_on_host(app, A, be, x);
    void *q = be->vec_new(be);
    if (mu_error_collective(app->comm, q ? 0 : mu_error("out of memory"))) return NAN;
    double e = error_on_backend(app, A, be, x, q);
    be->vec_free(be, q);
    return e;
}

static int has_suffix(const char *s, const char *suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

int cg_write_solution(mu_app *app, const cg_matrix *A, cg_backend *be, const void *x,
                      const char *path) {
    mu_output out;
    int rc = app->rank == 0 ? mu_output_open(&out, path) : 0;
    MU_TRY(mu_error_collective(app->comm, rc));
    int64_t most = 0;
    for (int r = 0; r < app->size; r++)
        if (A->bounds[r + 1] - A->bounds[r] > most) most = A->bounds[r + 1] - A->bounds[r];
    double *buf = malloc((size_t)((app->rank == 0 ? most : A->nloc) + 1) * sizeof *buf);
    if (mu_error_collective(app->comm, buf ? 0 : mu_error("out of memory writing '%s'", path))) {
        if (app->rank == 0) mu_output_abort(&out);
        free(buf);
        return 1;
    }
    be->vec_get(be, x, buf);
    if (app->rank != 0) {
        MPI_Send(buf, (int)A->nloc, MPI_DOUBLE, 0, 7, app->comm);
    } else {
        /* One rank's block at a time, in rank order, so rank 0 never holds all of x. */
        if (has_suffix(path, ".csv")) fputs("x\n", out.f);
        for (int r = 0; r < app->size; r++) {
            int64_t cnt = A->bounds[r + 1] - A->bounds[r];
            if (r > 0) MPI_Recv(buf, (int)cnt, MPI_DOUBLE, r, 7, app->comm, MPI_STATUS_IGNORE);
            for (int64_t i = 0; i < cnt; i++) fprintf(out.f, "%.17g\n", buf[i]);
        }
        rc = mu_output_commit(&out);
    }
    free(buf);
    return mu_error_collective(app->comm, rc);
}

cg_backend *cg_backend_new(const char *name, const cg_matrix *A, int fp32, size_t impl_size) {
    cg_backend *b = calloc(1, sizeof *b);
    void *impl = calloc(1, impl_size);
    if (!b || !impl) {
        free(b);
        free(impl);
        mu_error("out of memory");
        return NULL;
    }
    b->name = name;
    b->fp32 = fp32;
    b->nloc = A->nloc;
    b->nghost = A->nghost;
    b->impl = impl;
    return b;
}

void cg_backend_free(cg_backend *b) {
    if (b) free(b->impl);
    free(b);
}

int cg_backend_open(mu_app *app, const cg_matrix *A, int fp32, int jacobi, cg_backend **be,
                    void **b, void **x) {
    *be = NULL;
    *b = *x = NULL;
    int rc = jacobi ? cg_check_diagonal(app, A) : 0;
    if (!rc)
        rc = mu_error_collective(
            app->comm, (app->dev.use_gpu ? cg_backend_gpu : cg_backend_cpu)(A, fp32, jacobi, be));
    if (!rc) {
        *b = (*be)->vec_new(*be);
        *x = (*be)->vec_new(*be);
        rc = mu_error_collective(app->comm, !*b || !*x ? mu_error("out of memory") : 0);
    }
    return rc;
}

void cg_backend_close(cg_backend *be, void *b, void *x) {
    if (!be) return;
    be->vec_free(be, b);
    be->vec_free(be, x);
    be->destroy(be);
}
