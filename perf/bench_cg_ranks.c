/* bench_cg_ranks: the GPU path of `mutirao cg` on several ranks, one GPU each
 * (issue 3: strong scaling 1 -> 2 GPUs on 3-D 7-point 256^3, fp64), in one
 * mpirun: `mpirun -n 2 build/perf/bench_cg_ranks`.
 *
 *  (1) one GPU: rank 0 alone (MPI_COMM_SELF) on the whole problem, the
 *      solver's one-rank device iterations (CUDA graphs): ms per iteration;
 *  (2) all ranks, the solver's several-rank iterations (the backend's iterate
 *      over MPI_COMM_WORLD): ms per iteration and the parallel efficiency
 *      against (1). Where one node's GPUs reach each other, the peer form
 *      (whole iterations on the devices, halo and sums through peer memory;
 *      the run log's line says which form runs); else (or with
 *      MUTIRAO_CG_PEER=0, or --host) the host-driven form, one halo exchange
 *      and two allreduces an iteration, with where each rank's host waited
 *      (kernels.h, cg_gpu_times): for the send values' copy, for the halo
 *      messages (the interior SpMV runs meanwhile), for the rest of the SpMV,
 *      for the vector update, in MPI_Allreduce. --both: (2) again with the
 *      host-driven form, on a fresh backend, to compare in one run;
 *  (3) the parts alone, medians over --reps, all ranks in step (a barrier
 *      before each): interior rows' SpMV, boundary rows' SpMV, the halo
 *      exchange (gather, copies, messages), the two vector passes, the two
 *      allreduces (CG's message: 69 words of an exact sum and a flag); their
 *      sum against (2) shows what the overlap hides and what is left;
 *  (4) --solve: the solver (cg_solve_standard) to rtol 1e-8, iterations and
 *      time per iteration, on rank 0 alone and on all ranks: the efficiency
 *      `mutirao cg` shows (setup costs of the first call included, as there);
 *      time per iteration, as `mutirao cg` reports it.
 *
 * Ranks use GPU (node-local rank) mod (GPUs on the node). Options: --n=256
 * --iters=200 (timed iterations of (1) and (2), after --warm=300: (1) and (2)
 * are timed alike, one iterate call each; a short warm-up left the GPUs below
 * their clocks, 10 % slower than the solver on an H200 with 20) --reps=30
 * --solve --no-one (skip (1)) --host --both. */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg/cg.h"
#include "cg/kernels.h"
#include "cg/poisson.h"
#include "cg/solve.h"
#include "cg/vectors.h"
#include "core/error.h"
#include "core/log.h"
#include "gpu/gpu.h"
#include "bench_args.h"
#include "bench_cg_state.h"
#include "bench_util.h"

#define MU(call)                                                                                   \
    do {                                                                                           \
        if (call) {                                                                                \
            fprintf(stderr, "bench_cg_ranks: %s:%d: %s (%s)\n", __FILE__, __LINE__,                \
                    mu_error_message(), mu_gpu_error());                                           \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

typedef struct {
    cg_matrix A;
    cg_backend *be;
    bench_cg_state s;
} problem;

/* The problem on app's ranks, the iterations at their start. */
static void setup(mu_app *app, int64_t n, problem *P) {
    cg_block blk;
    memset(P, 0, sizeof *P);
    MU(cg_load_poisson(app, CG_POISSON_3D7, n, n, n, 1.0, &blk));
    MU(cg_matrix_setup(app, &blk, &P->A));
    MU(cg_backend_gpu(&P->A, 0, 0, &P->be));
    if (bench_cg_state_new(P->be, &P->s)) MU(mu_error("out of device memory"));
    MU(cg_make_rhs(app, &P->A, P->be, CG_RHS_AONES, 1, P->s.b, NULL));
    bench_cg_state_reset(P->be, &P->s, app->comm);
}

static void teardown(problem *P) {
    bench_cg_state_free(P->be, &P->s);
    P->be->destroy(P->be);
    cg_matrix_free(&P->A);
}

/* Seconds per iteration of the backend's whole iterations (the solver's path). */
static double time_iterations(mu_app *app, problem *P, int warm, int iters) {
    int stop = 0;
    MU(P->be->iterate(P->be, app->comm, warm, 0.0, P->s.x, P->s.r, P->s.p, P->s.q, NULL, &P->s.rz,
                      &P->s.rr, &P->s.k, &stop));
    cg_backend_gpu_times(P->be, NULL, 1);
    MPI_Barrier(app->comm);
    const int64_t k0 = P->s.k;
    const double t0 = MPI_Wtime();
    MU(P->be->iterate(P->be, app->comm, iters, 0.0, P->s.x, P->s.r, P->s.p, P->s.q, NULL, &P->s.rz,
                      &P->s.rr, &P->s.k, &stop));
    double dt = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, app->comm);
    if (P->s.k - k0 != iters) {
        fprintf(stderr, "bench_cg_ranks: %lld iterations made, not %d\n", (long long)(P->s.k - k0),
                iters);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return dt / iters;
}

enum {
    PART_INTERIOR,
    PART_BOUNDARY,
    PART_HALO,
    PART_RESIDUAL,
    PART_DIRECTION,
    PART_REDUCE,
    NPARTS
};
static const char *part_name[NPARTS] = {"SpMV, interior rows (with p'Ap)",
                                        "SpMV, boundary rows (with p'Ap)",
                                        "halo exchange (gather, copies, messages)",
                                        "r -= alpha q with r'r",
                                        "x += alpha p, p = r + beta p",
                                        "one allreduce (69 words + flag; 2 an iteration)"};

/* One part, synchronized: seconds (this rank). */
static double run_part(mu_app *app, problem *P, int part) {
    cg_backend *be = P->be;
    cg_reduction red;
    memset(&red, 0, sizeof red);
    MPI_Barrier(app->comm);
    const double t0 = MPI_Wtime();
    switch (part) {
    case PART_INTERIOR:
        be->spmv(be, CG_ROWS_INTERIOR, P->s.p, P->s.q, &red.acc[0]);
        break;
    case PART_BOUNDARY:
        be->spmv(be, CG_ROWS_BOUNDARY, P->s.p, P->s.q, &red.acc[0]);
        break;
    case PART_HALO:
        be->halo_begin(be, P->s.p);
        be->halo_end(be, P->s.p);
        CK(cudaDeviceSynchronize());
        break;
    case PART_RESIDUAL: /* alpha = 0: r keeps its value */
        be->cg_residual(be, 0.0, P->s.q, P->s.r, NULL, NULL, &red.acc[0]);
        break;
    case PART_DIRECTION: /* alpha = 0, beta = 1: p = r + p changes p; x kept */
        be->cg_direction(be, 0.0, 1.0, P->s.r, P->s.q, P->s.x);
        CK(cudaDeviceSynchronize());
        break;
    default:
        cg_reduce(app->comm, &red, 1);
        break;
    }
    return MPI_Wtime() - t0;
}

static void parts(mu_app *app, problem *P, int reps, double t_it) {
    double med[NPARTS], sum = 0;
    double *t = malloc((size_t)reps * sizeof *t);
    for (int part = 0; part < NPARTS; part++) {
        for (int i = -3; i < reps; i++) {
            double dt = run_part(app, P, part);
            MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, app->comm);
            if (i >= 0) t[i] = dt;
        }
        med[part] = bench_median(t, reps);
        sum += (part == PART_REDUCE ? 2 : 1) * med[part];
    }
    free(t);
    if (app->rank == 0) {
        printf("\n(3) the parts alone, slowest rank, median of %d (a barrier and a host wait "
               "around each):\n",
               reps);
        for (int part = 0; part < NPARTS; part++)
            printf("  %-42s %8.1f us\n", part_name[part], med[part] * 1e6);
        const double compute =
            med[PART_INTERIOR] + med[PART_BOUNDARY] + med[PART_RESIDUAL] + med[PART_DIRECTION];
        printf("  sum of the parts (allreduce twice) %.1f us; kernels alone %.1f us; the iteration "
               "(2) %.1f us: "
               "%.1f us over its kernels (halo not hidden, reductions, waits, launches)\n",
               sum * 1e6, compute * 1e6, t_it * 1e6, (t_it - compute) * 1e6);
    }
}

/* (4): seconds per iteration of the solver to rtol 1e-8 from x = 0 (P's own
 * vectors untouched but x). */
static double solve_once(mu_app *app, problem *P, const char *what) {
    cg_result res;
    double ts, err;
    MU(bench_cg_solve(app, &P->A, P->be, &P->s, "bench_cg_ranks.ckpt", &res, &ts, &err));
    const double per = res.iterations > 0 ? ts / (double)res.iterations : 0;
    if (app->rank == 0)
        printf("\n(4) solve to rtol 1e-8 on %s: %lld iterations in %.4f s (%.4f ms per "
               "iteration), ||r|| %.6e, rms error %.2e\n",
               what, (long long)res.iterations, ts, per * 1e3, res.rnorm, err);
    return per;
}

/* (2): seconds per iteration of all ranks, with its printed lines. */
static double all_ranks(mu_app *app, problem *P, int warm, int iters, double t1, const char *what) {
    /* The backend's first several-rank iterate logs the form it runs (info). */
    mu_log_set_level("info");
    const double tp = time_iterations(app, P, warm, iters);
    mu_log_set_level("warn");
    cg_gpu_times gt;
    cg_backend_gpu_times(P->be, &gt, 0);
    const int host = gt.halo_copy + gt.halo_mpi + gt.spmv_wait + gt.update_wait > 0;
    if (app->rank == 0) {
        printf("\n(2) %d rank(s)%s, the solver's several-rank iterations: %.3f ms per iteration "
               "(%d iterations after %d, slowest rank)",
               app->size, what, tp * 1e3, iters, warm);
        if (t1 > 0 && app->size > 1)
            printf("; parallel efficiency against (1): %.1f%% (speed-up %.2fx)",
                   100.0 * t1 / (app->size * tp), t1 / tp);
        printf("\n");
        if (host)
            printf("  where each rank's host waited, us per iteration: send copy | halo messages "
                   "(interior SpMV meanwhile) | rest of the SpMV + p'Ap | update + r'r | "
                   "allreduce x2 | all\n");
        else if (app->size > 1)
            printf("  peer form (no host step per iteration); host time per iteration, us, in "
                   "the last column\n");
    }
    double row[6] = {gt.halo_copy,   gt.halo_mpi,  gt.spmv_wait,
                     gt.update_wait, gt.allreduce, gt.total};
    const double per = gt.iterations > 0 ? 1e6 / (double)gt.iterations : 0;
    for (int j = 0; j < 6; j++) row[j] *= per;
    double *all = app->rank == 0 ? malloc((size_t)app->size * sizeof row) : NULL;
    MPI_Gather(row, 6, MPI_DOUBLE, all, 6, MPI_DOUBLE, 0, app->comm);
    if (app->rank == 0) {
        for (int r = 0; r < app->size; r++) {
            const double *w = all + 6 * r;
            printf("  rank %d: %9.1f | %9.1f | %9.1f | %9.1f | %9.1f | %9.1f\n", r, w[0], w[1],
                   w[2], w[3], w[4], w[5]);
        }
        free(all);
    }
    return tp;
}

typedef struct {
    int64_t n;
    int iters, warm, reps, solve, one, both;
} ranks_opts;

/* --host: the host-driven form (MUTIRAO_CG_PEER=0 here). */
static int host_driven(const char *value, void *to) {
    (void)value;
    (void)to;
    setenv("MUTIRAO_CG_PEER", "0", 1);
    return 0;
}

/* The options (see the top). */
static void parse_args(int argc, char **argv, ranks_opts *o) {
    *o = (ranks_opts){.n = 256, .iters = 200, .warm = 300, .reps = 30, .one = 1};
    const bench_arg rows[] = {{"--n=", bench_i64, &o->n},       {"--iters=", bench_int, &o->iters},
                              {"--warm=", bench_int, &o->warm}, {"--reps=", bench_int, &o->reps},
                              {"--solve", bench_on, &o->solve}, {"--no-one", bench_off, &o->one},
                              {"--host", host_driven, NULL},    {"--both", bench_on, &o->both}};
    const char *bad = BENCH_ARGS(argc, argv, rows);
    if (bad) {
        fprintf(stderr, "bench_cg_ranks: unknown option %s\n", bad);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (o->iters < 1) o->iters = 1;
    if (o->reps < 1) o->reps = 1;
}

/* Each rank's GPU: (node-local rank) mod (GPUs on the node); rank 0 prints the
 * problem and every rank's device. */
static void open_gpus(const mu_app *app, int64_t n) {
    MPI_Comm node;
    int local = 0;
    MPI_Comm_split_type(app->comm, MPI_COMM_TYPE_SHARED, app->rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
    const int ndev = mu_gpu_device_count();
    mu_gpu_info info;
    if (ndev < 1 || mu_gpu_select(local % ndev, &info)) {
        fprintf(stderr, "bench_cg_ranks: rank %d: no CUDA device: %s\n", app->rank, mu_gpu_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    char line[256];
    snprintf(line, sizeof line, "  rank %d: GPU %d of %d, %s (%d SMs, %.1f GiB)\n", app->rank,
             local % ndev, ndev, info.name, info.sm_count, info.mem_gib);
    char *lines = app->rank == 0 ? malloc((size_t)app->size * sizeof line) : NULL;
    MPI_Gather(line, (int)sizeof line, MPI_CHAR, lines, (int)sizeof line, MPI_CHAR, 0, app->comm);
    if (app->rank == 0) {
        printf("bench_cg_ranks: 3-D 7-point Poisson %lld^3, fp64, no preconditioner, b = A 1, %d "
               "rank(s)\n",
               (long long)n, app->size);
        for (int r = 0; r < app->size; r++) fputs(lines + (size_t)r * sizeof line, stdout);
        free(lines);
    }
}

/* (1) One GPU: rank 0 alone; *t1 and *s1 (with --solve) reach every rank. */
static void one_gpu(const mu_app *app, const ranks_opts *o, double *t1, double *s1) {
    if (app->rank == 0) {
        mu_app self = *app;
        self.comm = MPI_COMM_SELF;
        self.rank = 0;
        self.size = 1;
        problem P;
        setup(&self, o->n, &P);
        *t1 = time_iterations(&self, &P, o->warm, o->iters);
        printf("\n(1) one GPU (rank 0 alone, device iterations in CUDA graphs): %.3f ms per "
               "iteration (%d iterations after %d)\n",
               *t1 * 1e3, o->iters, o->warm);
        if (o->solve) *s1 = solve_once(&self, &P, "one GPU (rank 0 alone)");
        teardown(&P);
    }
    MPI_Bcast(t1, 1, MPI_DOUBLE, 0, app->comm);
    MPI_Bcast(s1, 1, MPI_DOUBLE, 0, app->comm);
}

/* --both: (2) again, host-driven, on a fresh backend, then the default form once
 * more on a fresh P; returns the latter's seconds per iteration. */
static double both_forms(mu_app *app, const ranks_opts *o, problem *P, double t1) {
    const char *was = getenv("MUTIRAO_CG_PEER");
    char keep[16] = "";
    if (was) snprintf(keep, sizeof keep, "%s", was);
    setenv("MUTIRAO_CG_PEER", "0", 1);
    problem H;
    teardown(P);
    setup(app, o->n, &H);
    all_ranks(app, &H, o->warm, o->iters, t1, " again, host-driven (MUTIRAO_CG_PEER=0)");
    teardown(&H);
    if (was)
        setenv("MUTIRAO_CG_PEER", keep, 1);
    else
        unsetenv("MUTIRAO_CG_PEER");
    setup(app, o->n, P);
    return all_ranks(app, P, o->warm, o->iters, t1, " again, the default form");
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    mu_log_init(0, 1);
    mu_log_set_level("warn");
    ranks_opts o;
    parse_args(argc, argv, &o);
    mu_app app;
    memset(&app, 0, sizeof app);
    app.comm = MPI_COMM_WORLD;
    MPI_Comm_rank(app.comm, &app.rank);
    MPI_Comm_size(app.comm, &app.size);
    open_gpus(&app, o.n);

    double t1 = 0, s1 = 0;
    if (o.one) one_gpu(&app, &o, &t1, &s1);

    /* (2) All ranks. */
    problem P;
    setup(&app, o.n, &P);
    double tp = all_ranks(&app, &P, o.warm, o.iters, o.one ? t1 : 0, "");
    if (o.both && app.size > 1) tp = both_forms(&app, &o, &P, o.one ? t1 : 0);
    if (app.size > 1) parts(&app, &P, o.reps, tp);

    if (o.solve) {
        char what[64];
        snprintf(what, sizeof what, "%d rank(s)", app.size);
        const double sp = solve_once(&app, &P, what);
        if (app.rank == 0 && s1 > 0 && sp > 0 && app.size > 1)
            printf("  solver's parallel efficiency against one GPU: %.1f%%\n",
                   100.0 * s1 / (app.size * sp));
    }
    teardown(&P);
    if (app.rank == 0)
        printf("\nsummary: %d rank(s): %.3f ms/it; one GPU %.3f ms/it; efficiency %.1f%%\n",
               app.size, tp * 1e3, t1 * 1e3, t1 > 0 ? 100.0 * t1 / (app.size * tp) : 0.0);
    MPI_Finalize();
    return 0;
}
