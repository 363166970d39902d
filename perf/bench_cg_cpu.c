/* bench_cg_cpu: the CPU kernels of `mutirao cg`, one at a time (issue 3,
 * Benchmarks: the CPU path against PETSc). On the 3-D 7-point Poisson operator
 * (default 64^3 rows, fp64, b uniform in (-1, 1) as --rhs=random), on any number of ranks, each
 * kernel is called --reps times after a warm-up and the minimum and median time per call (the
 * slowest rank's, per call) are printed: spmv+xy    q = A p with the fused p'q (what CG runs, halo
 * included) spmv       q = A p alone update     x += alpha p, r -= alpha q with r'r (the fused CG
 * update) waxpby     p = r + beta p dot        x'y into the exact accumulator plain dot  x'y in one
 * double, in order: what an ordinary dot costs reduce     the CG iteration's exact allreduce (2
 * accumulators and a flag) iteration  one whole CG iteration as cg_solve_standard runs it The
 * minimum is the figure to compare: the build machine is shared and noisy. Options: --n=64
 * --reps=40 --jacobi */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "cg/cg.h"
#include "cg/kernels.h"
#include "cg/poisson.h"
#include "cg/solve.h"
#include "cg/vectors.h"
#include "core/log.h"
#include "bench_args.h"

typedef struct {
    const char *name;
    double t[1000];
    int n;
} series;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(const series *s, int rank, double per) {
    if (rank != 0 || s->n == 0) return;
    static double v[1000];
    memcpy(v, s->t, (size_t)s->n * sizeof *v);
    qsort(v, (size_t)s->n, sizeof *v, cmp_double);
    printf("%-10s min %9.3f ms  median %9.3f ms", s->name, v[0] * 1e3, v[s->n / 2] * 1e3);
    if (per > 0) printf("  (min %6.2f ns/row)", v[0] / per * 1e9);
    printf("\n");
}

/* The slowest rank's time for one call. */
static double span(MPI_Comm comm, double t0) {
    double t = MPI_Wtime() - t0, m;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, comm);
    return m;
}

/* The CG vectors (z only with Jacobi). */
typedef struct {
    void *b, *x, *r, *p, *q, *z;
} cg_vecs;

/* --n, --reps and --jacobi; 1 after the usage line on anything else. */
static int parse_args(int argc, char **argv, int rank, int64_t *n, int *reps, int *jacobi) {
    const bench_arg rows[] = {
        {"--n=", bench_i64, n}, {"--reps=", bench_int, reps}, {"--jacobi", bench_on, jacobi}};
    if (!BENCH_ARGS(argc, argv, rows)) return 0;
    if (rank == 0) fprintf(stderr, "usage: bench_cg_cpu [--n=64] [--reps=40] [--jacobi]\n");
    return 1;
}

/* Each kernel alone, reps times after 3 warm-ups, the slowest rank's time per
 * call; the plain dots' sum goes to sink so that the loop stays. */
static void time_kernels(mu_app *app, cg_backend *be, const cg_matrix *A, const cg_vecs *v,
                         int reps, volatile double *sink) {
    void *x = v->x, *r = v->r, *p = v->p, *q = v->q, *z = v->z;
    double rows = (double)A->nloc;
    enum { NS = 9 };
    static const char *names[NS] = {"spmv+xy",   "spmv", "update",    "waxpby", "residual",
                                    "direction", "dot",  "plain dot", "reduce"};
    static series s[NS];
    for (int i = 0; i < NS; i++) s[i].name = names[i];
    mu_xsum acc;
    cg_reduction red;
    memset(&red, 0, sizeof red);
    for (int it = -3; it < reps; it++) {
        double t0;
        MPI_Barrier(app->comm);
        mu_xsum_zero(&acc);
        t0 = MPI_Wtime();
        cg_spmv(be, p, q, &acc);
        double t = span(app->comm, t0);
        if (it >= 0) s[0].t[s[0].n++] = t;
        t0 = MPI_Wtime();
        cg_spmv(be, p, q, NULL);
        t = span(app->comm, t0);
        if (it >= 0) s[1].t[s[1].n++] = t;
        mu_xsum_zero(&red.acc[0]);
        mu_xsum_zero(&red.acc[1]);
        /* alpha 0: the vectors stay as they are, the work is the same. */
        t0 = MPI_Wtime();
        be->cg_update(be, 0.0, p, q, x, r, z, &red.acc[1], &red.acc[0]);
        t = span(app->comm, t0);
        if (it >= 0) s[2].t[s[2].n++] = t;
        t0 = MPI_Wtime();
        be->waxpby(be, 1.0, r, 0.0, p, p);
        t = span(app->comm, t0);
        if (it >= 0) s[3].t[s[3].n++] = t;
        t0 = MPI_Wtime();
        be->cg_residual(be, 0.0, q, r, z, &red.acc[1], &red.acc[0]);
        t = span(app->comm, t0);
        if (it >= 0) s[4].t[s[4].n++] = t;
        t0 = MPI_Wtime();
        be->cg_direction(be, 0.0, 0.0, r, p, x);
        t = span(app->comm, t0);
        if (it >= 0) s[5].t[s[5].n++] = t;
        t0 = MPI_Wtime();
        be->dot(be, p, q, &acc);
        t = span(app->comm, t0);
        if (it >= 0) s[6].t[s[6].n++] = t;
        {
            const double *pv = p, *qv = q;
            double d = 0;
            t0 = MPI_Wtime();
            for (int64_t i = 0; i < A->nloc; i++) d += pv[i] * qv[i];
            t = span(app->comm, t0);
            *sink += d;
            if (it >= 0) s[7].t[s[7].n++] = t;
        }
        t0 = MPI_Wtime();
        cg_reduce(app->comm, &red, 2);
        t = span(app->comm, t0);
        if (it >= 0) s[8].t[s[8].n++] = t;
    }
    for (int i = 0; i < NS; i++) report(&s[i], app->rank, i == NS - 1 ? 0 : rows);
}

/* Whole iterations: solves of a fixed count from x = 0 (no convergence test hit). */
static void time_iterations(mu_app *app, cg_backend *be, const cg_matrix *A, const cg_vecs *v,
                            int reps, int jacobi) {
    cg_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.variant = CG_STANDARD;
    cfg.jacobi = jacobi;
    cfg.rtol = 0;
    cfg.max_it = 20;
    static series whole;
    whole.name = "iteration";
    int solves = reps / 4 > 3 ? reps / 4 : 3;
    for (int k = -1; k < solves; k++) {
        cg_result res;
        MPI_Barrier(app->comm);
        double t0 = MPI_Wtime();
        if (cg_solve_standard(app, &cfg, A, be, v->b, v->x, &res)) MPI_Abort(app->comm, 1);
        double t = span(app->comm, t0) / (double)cfg.max_it;
        if (k >= 0) whole.t[whole.n++] = t;
    }
    report(&whole, app->rank, (double)A->nloc);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    mu_app app;
    memset(&app, 0, sizeof app);
    app.comm = MPI_COMM_WORLD;
    MPI_Comm_rank(app.comm, &app.rank);
    MPI_Comm_size(app.comm, &app.size);
    mu_log_set_level("warn");
    int64_t n = 64;
    int reps = 40, jacobi = 0;
    if (parse_args(argc, argv, app.rank, &n, &reps, &jacobi)) {
        MPI_Finalize();
        return 1;
    }
    if (reps > 1000) reps = 1000;
    cg_block blk;
    cg_matrix A;
    cg_backend *be = NULL;
    if (cg_load_poisson(&app, CG_POISSON_3D7, n, n, n, 1.0, &blk) ||
        cg_matrix_setup(&app, &blk, &A) || cg_backend_cpu(&A, 0, jacobi, &be)) {
        MPI_Abort(app.comm, 1);
        return 1;
    }
    cg_vecs v;
    v.b = be->vec_new(be);
    v.x = be->vec_new(be);
    v.r = be->vec_new(be);
    v.p = be->vec_new(be);
    v.q = be->vec_new(be);
    v.z = jacobi ? be->vec_new(be) : NULL;
    if (!v.b || !v.x || !v.r || !v.p || !v.q || (jacobi && !v.z)) MPI_Abort(app.comm, 1);
    cg_make_rhs(&app, &A, be, CG_RHS_RANDOM, 1, v.b, NULL);
    be->vec_copy(be, v.b, v.r);
    be->vec_copy(be, v.b, v.p);
    if (app.rank == 0)
        printf("bench_cg_cpu: 3-D 7-point Poisson %lld^3 (%lld rows, %lld nonzeros), fp64, %s, %d "
               "rank(s), %d reps\n",
               (long long)n, (long long)A.n, (long long)A.nnz, jacobi ? "Jacobi" : "no pc",
               app.size, reps);
    volatile double sink = 0;
    time_kernels(&app, be, &A, &v, reps, &sink);
    time_iterations(&app, be, &A, &v, reps, jacobi);
    be->vec_free(be, v.b);
    be->vec_free(be, v.x);
    be->vec_free(be, v.r);
    be->vec_free(be, v.p);
    be->vec_free(be, v.q);
    if (v.z) be->vec_free(be, v.z);
    be->destroy(be);
    cg_matrix_free(&A);
    MPI_Finalize();
    return sink == 12345.0;
}
