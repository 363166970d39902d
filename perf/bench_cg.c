/* bench_cg: the GPU path of `mutirao cg` on one GPU (issue 3, Benchmarks).
 *
 *  (a) cudaMemcpy device-to-device bandwidth, counted as bytes read + written
 *      (median of 20 copies of 1 GiB), measured in this run;
 *  (b) 3-D 7-point Poisson n^3 (default 256^3), fp64, no preconditioner, b = A 1:
 *      mutirao's device iterations as the solver runs them on one rank
 *      (the table's iterate, batches of 8 iterations in a CUDA graph): time per
 *      iteration = median over --reps batches / 8 after --warm batches and at
 *      least --warm-s seconds of them (the first and last quarters' medians
 *      are printed too); the bytes
 *      one iteration moves, counted from the kernels, and the minimal bytes of a
 *      CG iteration (gpu/cg_gpu.h, mu_gpu_cg_traffic), each over (a) as a floor;
 *      time / minimal floor (and / the issue's 11-pass "fused floor"). Also: the
 *      table path (what several ranks run, with host reductions), the solve to
 *      rtol 1e-8 (iterations, time), and sweeps of lanes per row on this
 *      operator and on the 3-D 27-point one at (n/2)^3: SpMV with and without
 *      the x'y term, device CG per iteration;
 *  (c) the peer: CG from cusparseSpMV (CSR, fp64, default algorithm) plus cuBLAS
 *      (ddot, daxpy, dscal; host pointer mode), the loop of CUDA's
 *      conjugateGradient sample, on the same matrix and right-hand side: time per
 *      iteration (median over the same iterations), peer / mutirao, and both
 *      residuals after the same number of iterations;
 *  (d) matrices (--inputs=DIR, repeatable; *.mtx): fp64 standard CG with Jacobi
 *      (rtol 1e-8) and the fp32 thesis variant (absolute 1e-5, capped at
 *      --study-max-it), b = A 1, on the GPU and on the CPU: iterations and time
 *      per iteration (solve time / iterations).
 *
 * Options: --n=256 --reps=50 --warm=3 --warm-s=0.5 --inputs=DIR --study-max-it=2000
 *          --no-peer --no-study --no-sweep --no-solve --no-table */
#define _POSIX_C_SOURCE 200809L
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusparse.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cg/cg.h"
#include "cg/kernels.h"
#include "cg/poisson.h"
#include "cg/solve.h"
#include "cg/vectors.h"
#include "core/error.h"
#include "core/log.h"
#include "gpu/cg_gpu.h"
#include "gpu/gpu.h"
#include "bench_args.h"
#include "bench_cg_state.h"
#include "bench_util.h"

/* cuBLAS names no status: its number. */
static const char *cublas_status(cublasStatus_t s) {
    static char text[32];
    snprintf(text, sizeof text, "status %d", (int)s);
    return text;
}
#define CSP(call)                                                                                  \
    BENCH_CHECK(cusparseStatus_t, CUSPARSE_STATUS_SUCCESS, cusparseGetErrorString,                 \
                "bench_cg: ", #call, call)
#define CB(call)                                                                                   \
    BENCH_CHECK(cublasStatus_t, CUBLAS_STATUS_SUCCESS, cublas_status, "bench_cg: ", #call, call)
#define MU(call)                                                                                   \
    do {                                                                                           \
        if (call) {                                                                                \
            fprintf(stderr, "bench_cg: %s:%d: %s (%s)\n", __FILE__, __LINE__, mu_error_message(),  \
                    mu_gpu_error());                                                               \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static mu_app app;

/* ---- (a) ---- */
static double copy_bandwidth(void) {
    return bench_copy_bandwidth(20, NULL);
}

/* ---- (b) ---- */
/* One batch of the device iterations; its seconds per iteration. */
static double one_batch(cg_backend *be, bench_cg_state *s) {
    const int B = MU_GPU_CG_BATCH;
    int64_t k0 = s->k;
    double t0 = bench_now();
    int stop = 0;
    MU(be->iterate(be, MPI_COMM_SELF, B, 0.0, s->x, s->r, s->p, s->q, NULL, &s->rz, &s->rr, &s->k,
                   &stop));
    double dt = bench_now() - t0;
    if (s->k - k0 != B) {
        fprintf(stderr, "bench_cg: a batch made %lld iterations, not %d\n", (long long)(s->k - k0),
                B);
        exit(1);
    }
    return dt / B;
}

/* Median seconds per iteration of the device iterations, batches of 8, after
 * `warm` batches and at least warm_s seconds of them: the GPU idled through
 * the host's setup, and its first batches ran up to 25 % slower on an H100
 * (1.29 against 1.02 ms an iteration) while it came back to full speed. */
static double time_iterate(cg_backend *be, bench_cg_state *s, int *warm, double warm_s, int reps) {
    double *t = malloc((size_t)reps * sizeof *t);
    const double w0 = bench_now();
    int w = 0;
    for (; w < *warm || bench_now() - w0 < warm_s; w++) one_batch(be, s);
    *warm = w;
    for (int i = 0; i < reps; i++) t[i] = one_batch(be, s);
    if (reps >= 8) { /* drift over the run (clocks, power): the first and last quarters */
        const int qn = reps / 4;
        const double first = bench_median(t, qn), last = bench_median(t + reps - qn, qn);
        printf("  batches: median of the first %d %.4f ms, of the last %d %.4f ms per iteration\n",
               qn, first * 1e3, qn, last * 1e3);
    }
    double m = bench_median(t, reps); /* after the quarters: it sorts all of t */
    free(t);
    return m;
}

/* The table path, one iteration at a time (host reductions, as on several ranks):
 * median of the intervals between iteration starts. */
static double time_table(cg_backend *be, bench_cg_state *s, int iters) {
    double *t = malloc((size_t)(iters + 1) * sizeof *t);
    for (int i = 0; i <= iters; i++) {
        t[i] = bench_now();
        if (i == iters) break;
        mu_xsum pap, rr;
        mu_xsum_zero(&pap);
        cg_spmv(be, s->p, s->q, &pap);
        double alpha = s->rz / mu_xsum_round(&pap, NULL);
        mu_xsum_zero(&rr);
        be->cg_update(be, alpha, s->p, s->q, s->x, s->r, NULL, NULL, &rr);
        double rrn = mu_xsum_round(&rr, NULL);
        be->waxpby(be, 1.0, s->r, rrn / s->rz, s->p, s->p);
        s->rz = s->rr = rrn;
        s->k++;
    }
    for (int i = 0; i < iters; i++) t[i] = t[i + 1] - t[i];
    double m = bench_median(t, iters);
    free(t);
    return m;
}

/* A context of our own on A (no preconditioner), for the sweeps. */
static mu_gpu_cg *own_context(const cg_matrix *A) {
    mu_gpu_cg_desc d = cg_gpu_desc_block(A);
    d.mean_row = (double)A->nnz / (double)A->n;
    mu_gpu_cg *g;
    MU(mu_gpu_cg_create(&d, &g));
    return g;
}

/* Seconds per SpMV (10 back to back, one wait; median of 12), with or without the x'y term. */
static double time_spmv(mu_gpu_cg *g, void *x, void *y, int dot) {
    double ts[12];
    for (int i = -2; i < 12; i++) {
        double t0 = bench_now();
        for (int j = 0; j < 10; j++) MU(mu_gpu_cg_spmv(g, MU_GPU_CG_ALL, x, y, dot ? 0 : -1));
        MU(mu_gpu_cg_take(g, NULL, NULL));
        if (i >= 0) ts[i] = (bench_now() - t0) / 10;
    }
    return bench_median(ts, 12);
}

/* Seconds per device iteration (batches of 8; median of 10 after 2), from x = 0, r = p = b. */
static double time_device(mu_gpu_cg *g, void **v, const void *b) {
    MU(mu_gpu_cg_vec_fill(g, v[0], 0.0));
    MU(mu_gpu_cg_vec_copy(g, b, v[1]));
    MU(mu_gpu_cg_vec_copy(g, b, v[2]));
    mu_xsum rr;
    mu_xsum_zero(&rr);
    MU(mu_gpu_cg_dot(g, v[1], v[1], 0));
    MU(mu_gpu_cg_take(g, &rr, NULL));
    mu_gpu_cg_iter it;
    memset(&it, 0, sizeof it);
    it.rz = it.rr = mu_xsum_round(&rr, NULL);
    double ti[10];
    for (int i = -2; i < 10; i++) {
        it.count = MU_GPU_CG_BATCH;
        double t0 = bench_now();
        MU(mu_gpu_cg_iterate(g, v[0], v[1], v[2], v[3], NULL, &it));
        if (it.done != MU_GPU_CG_BATCH) {
            fprintf(stderr, "bench_cg: a batch made %lld iterations\n", (long long)it.done);
            exit(1);
        }
        if (i >= 0) ti[i] = (bench_now() - t0) / (double)it.done;
    }
    return bench_median(ti, 10);
}

/* SpMV bandwidth and device iterations over lanes per row (the lanes change
 * the rounding of A x). */
static void sweep(const cg_matrix *A, const char *label, double bw, const int *lanes, int nl) {
    mu_gpu_cg *g = own_context(A);
    void *v[5];
    for (int i = 0; i < 5; i++) {
        v[i] = mu_gpu_cg_vec_new(g);
        if (!v[i]) MU(1);
    }
    MU(mu_gpu_cg_vec_fill(g, v[0], 1.0));
    MU(mu_gpu_cg_spmv(g, MU_GPU_CG_ALL, v[0], v[4], -1)); /* b = A 1 */
    mu_gpu_cg_bytes tb;
    mu_gpu_cg_traffic(A->nloc, A->nnz, 0, 0, &tb);
    const double spmv_bytes = tb.matrix + 16.0 * (double)A->nloc;
    const double floor_min = tb.minimal / bw;
    printf("\n(b2) %s: %lld rows, %.2f nonzeros per row; default: %d lanes\n", label,
           (long long)A->n, (double)A->nnz / (double)A->n, mu_gpu_cg_lanes(g));
    printf("  lanes | SpMV ms  GB/s  of copy | SpMV+x'y ms | device CG ms/it    /min\n");
    for (int li = 0; li < nl; li++) {
        MU(mu_gpu_cg_set_lanes(g, lanes[li]));
        MU(mu_gpu_cg_vec_fill(g, v[0], 1.0));
        const double t0 = time_spmv(g, v[0], v[1], 0), t1 = time_spmv(g, v[0], v[1], 1);
        const double tit = time_device(g, v, v[4]);
        printf("  %5d | %7.3f %5.0f %6.1f%% | %11.3f | %15.3f %6.3fx\n", lanes[li], t0 * 1e3,
               spmv_bytes / t0 * 1e-9, 100.0 * spmv_bytes / t0 / bw, t1 * 1e3, tit * 1e3,
               tit / floor_min);
    }
    printf("  (bytes per iteration: minimal %.3f GB, floor %.3f ms; mutirao's iteration %.3f GB)\n",
           tb.minimal * 1e-9, floor_min * 1e3, tb.split * 1e-9);
    for (int i = 0; i < 5; i++) MU(mu_gpu_cg_vec_free(g, v[i]));
    mu_gpu_cg_destroy(g);
}

/* ---- (c) the peer ---- */
typedef struct {
    double per_it, rnorm;
    int64_t iters;
} peer_result;

static peer_result peer_cg(const cg_matrix *A, int64_t warm_iters, int timed_iters) {
    const int n = (int)A->nloc;
    const int nnz = (int)A->nnz_loc;
    int *rp = malloc((size_t)(n + 1) * sizeof *rp);
    for (int i = 0; i <= n; i++) rp[i] = (int)A->rowptr[i];
    int *d_rp, *d_col;
    double *d_val, *d_x, *d_r, *d_p, *d_q, *d_one;
    CK(cudaMalloc((void **)&d_rp, (size_t)(n + 1) * sizeof(int)));
    CK(cudaMalloc((void **)&d_col, (size_t)nnz * sizeof(int)));
    CK(cudaMalloc((void **)&d_val, (size_t)nnz * sizeof(double)));
    CK(cudaMalloc((void **)&d_x, (size_t)n * sizeof(double)));
    CK(cudaMalloc((void **)&d_r, (size_t)n * sizeof(double)));
    CK(cudaMalloc((void **)&d_p, (size_t)n * sizeof(double)));
    CK(cudaMalloc((void **)&d_q, (size_t)n * sizeof(double)));
    CK(cudaMalloc((void **)&d_one, (size_t)n * sizeof(double)));
    CK(cudaMemcpy(d_rp, rp, (size_t)(n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_col, A->col, (size_t)nnz * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_val, A->val, (size_t)nnz * sizeof(double), cudaMemcpyHostToDevice));
    free(rp);
    double *ones = malloc((size_t)n * sizeof *ones);
    for (int i = 0; i < n; i++) ones[i] = 1.0;
    CK(cudaMemcpy(d_one, ones, (size_t)n * sizeof(double), cudaMemcpyHostToDevice));
    free(ones);

    cusparseHandle_t sp;
    cublasHandle_t bl;
    CSP(cusparseCreate(&sp));
    CB(cublasCreate(&bl));
    cusparseSpMatDescr_t mat;
    cusparseDnVecDescr_t vp, vq, vone, vr;
    CSP(cusparseCreateCsr(&mat, n, n, nnz, d_rp, d_col, d_val, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    CSP(cusparseCreateDnVec(&vp, n, d_p, CUDA_R_64F));
    CSP(cusparseCreateDnVec(&vq, n, d_q, CUDA_R_64F));
    CSP(cusparseCreateDnVec(&vr, n, d_r, CUDA_R_64F));
    CSP(cusparseCreateDnVec(&vone, n, d_one, CUDA_R_64F));
    const double one = 1.0, zero = 0.0;
    size_t bsize = 0;
    CSP(cusparseSpMV_bufferSize(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vp, &zero, vq,
                                CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, &bsize));
    void *buf = NULL;
    CK(cudaMalloc(&buf, bsize ? bsize : 1));
    /* b = A 1 into r; x = 0; p = r. */
    CSP(cusparseSpMV(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vone, &zero, vr, CUDA_R_64F,
                     CUSPARSE_SPMV_ALG_DEFAULT, buf));
    CK(cudaMemset(d_x, 0, (size_t)n * sizeof(double)));
    CB(cublasDcopy(bl, n, d_r, 1, d_p, 1));
    double rr = 0;
    CB(cublasDdot(bl, n, d_r, 1, d_r, 1, &rr));
    const int64_t total = warm_iters + timed_iters;
    double *t = malloc((size_t)(timed_iters + 1) * sizeof *t);
    for (int64_t k = 0; k < total; k++) {
        if (k >= warm_iters) t[k - warm_iters] = bench_now();
        double pap, rr_new;
        CSP(cusparseSpMV(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vp, &zero, vq, CUDA_R_64F,
                         CUSPARSE_SPMV_ALG_DEFAULT, buf));
        CB(cublasDdot(bl, n, d_p, 1, d_q, 1, &pap));
        double alpha = rr / pap, nalpha = -alpha;
        CB(cublasDaxpy(bl, n, &alpha, d_p, 1, d_x, 1));
        CB(cublasDaxpy(bl, n, &nalpha, d_q, 1, d_r, 1));
        CB(cublasDdot(bl, n, d_r, 1, d_r, 1, &rr_new));
        double beta = rr_new / rr;
        CB(cublasDscal(bl, n, &beta, d_p, 1));
        CB(cublasDaxpy(bl, n, &one, d_r, 1, d_p, 1));
        rr = rr_new;
    }
    CK(cudaDeviceSynchronize());
    t[timed_iters] = bench_now();
    for (int i = 0; i < timed_iters; i++) t[i] = t[i + 1] - t[i];
    peer_result res = {bench_median(t, timed_iters), sqrt(rr), total};
    free(t);
    CSP(cusparseDestroyDnVec(vp));
    CSP(cusparseDestroyDnVec(vq));
    CSP(cusparseDestroyDnVec(vr));
    CSP(cusparseDestroyDnVec(vone));
    CSP(cusparseDestroySpMat(mat));
    CSP(cusparseDestroy(sp));
    CB(cublasDestroy(bl));
    void *all[] = {buf, d_rp, d_col, d_val, d_x, d_r, d_p, d_q, d_one};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) CK(cudaFree(all[i]));
    return res;
}

/* ---- (d) ---- */
static void study_one(const char *path, int64_t thesis_max) {
    cg_block blk;
    cg_matrix A;
    if (cg_load_file(&app, path, 1.0, &blk) || cg_matrix_setup(&app, &blk, &A)) {
        printf("  %s: %s\n", path, mu_error_message());
        mu_error_clear();
        return;
    }
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    for (int mode = 0; mode < 2; mode++) {
        cg_config cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.variant = mode ? CG_THESIS : CG_STANDARD;
        cfg.jacobi = mode == 0;
        cfg.rtol = 1e-8;
        cfg.atol = mode ? 1e-5 : 0;
        cfg.max_it = mode ? thesis_max : 20000;
        cfg.checkpoint = "bench_cg.ckpt"; /* written only if a signal stops the run */
        int fp32 = mode == 1;
        for (int dev = 0; dev < 2; dev++) {
            cg_backend *be = NULL;
            int rc = dev ? cg_backend_cpu(&A, fp32, cfg.jacobi, &be)
                         : cg_backend_gpu(&A, fp32, cfg.jacobi, &be);
            if (rc) {
                printf("  %s: %s\n", name, mu_error_message());
                mu_error_clear();
                continue;
            }
            void *b = be->vec_new(be), *x = be->vec_new(be);
            cg_make_rhs(&app, &A, be, CG_RHS_AONES, 1, b, NULL);
            cg_result res;
            double t0 = bench_now();
            rc = (mode ? cg_solve_thesis : cg_solve_standard)(&app, &cfg, &A, be, b, x, &res);
            double dt = bench_now() - t0;
            int64_t it = res.iterations;
            printf("  %-18s %6lld %8lld | %-22s | %s | %7lld %-13s | %9.1f us/it\n", name,
                   (long long)A.n, (long long)A.nnz,
                   mode ? "thesis fp32 (atol 1e-5)" : "standard fp64 Jacobi", dev ? "CPU" : "GPU",
                   (long long)it,
                   rc                            ? "breakdown"
                   : res.outcome == CG_CONVERGED ? "converged"
                                                 : "(cap)",
                   it > 0 ? dt / (double)it * 1e6 : 0.0);
            if (rc) mu_error_clear();
            be->vec_free(be, b);
            be->vec_free(be, x);
            be->destroy(be);
        }
    }
    cg_matrix_free(&A);
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void study_dir(const char *dir, int64_t thesis_max) {
    DIR *d = opendir(dir);
    if (!d) {
        printf("  %s: cannot open\n", dir);
        return;
    }
    char *names[256];
    int nn = 0;
    struct dirent *de;
    while ((de = readdir(d)) && nn < 256) {
        size_t l = strlen(de->d_name);
        if (l > 4 && !strcmp(de->d_name + l - 4, ".mtx")) names[nn++] = strdup(de->d_name);
    }
    closedir(d);
    qsort(names, (size_t)nn, sizeof names[0], cmp_str);
    for (int i = 0; i < nn; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        study_one(path, thesis_max);
        free(names[i]);
    }
}

typedef struct {
    int64_t n, study_max;
    double warm_s;
    int reps, warm, peer, study, sweep, solve, table;
    const char *inputs[8];
    int ninputs;
} bench_opts;

/* --inputs=DIR: one more of at most 8 (a ninth is an unknown option). */
static int add_input(const char *dir, void *to) {
    bench_opts *o = to;
    if (o->ninputs >= 8) return 1;
    o->inputs[o->ninputs++] = dir;
    return 0;
}

/* The options (see the top); 2 after a message on an unknown one. */
static int parse_args(int argc, char **argv, bench_opts *o) {
    *o = (bench_opts){.n = 256,
                      .study_max = 2000,
                      .warm_s = 0.5,
                      .reps = 50,
                      .warm = 3,
                      .peer = 1,
                      .study = 1,
                      .sweep = 1,
                      .solve = 1,
                      .table = 1};
    const bench_arg rows[] = {{"--n=", bench_i64, &o->n},
                              {"--reps=", bench_int, &o->reps},
                              {"--warm=", bench_int, &o->warm},
                              {"--warm-s=", bench_real, &o->warm_s},
                              {"--study-max-it=", bench_i64, &o->study_max},
                              {"--inputs=", add_input, o},
                              {"--no-peer", bench_off, &o->peer},
                              {"--no-study", bench_off, &o->study},
                              {"--no-sweep", bench_off, &o->sweep},
                              {"--no-table", bench_off, &o->table},
                              {"--no-solve", bench_off, &o->solve}};
    const char *bad = BENCH_ARGS(argc, argv, rows);
    if (bad) {
        fprintf(stderr, "bench_cg: unknown option %s\n", bad);
        return 2;
    }
    if (o->reps < 1) o->reps = 1;
    return 0;
}

/* What cg_backend_gpu chose for a matrix. */
typedef struct {
    int lanes;
} gpu_defaults;

static gpu_defaults default_tuning(const cg_matrix *A) {
    mu_gpu_cg *g = own_context(A);
    gpu_defaults d = {mu_gpu_cg_lanes(g)};
    mu_gpu_cg_destroy(g);
    return d;
}

/* (b)'s measurement and its floors (seconds an iteration at the copy
 * bandwidth), which (c) and the summary compare against. */
typedef struct {
    double t_it, rnorm; /* seconds per device iteration; ||r|| after the timed ones */
    mu_gpu_cg_bytes tb;
    double own; /* bytes of mutirao's iteration */
    double f_it, f_min, f_tab, f_issue;
} dev_figures;

/* (b): the device iterations from the state s, timed, against their floors. */
static void device_iterations(cg_backend *be, bench_cg_state *s, const cg_matrix *A, bench_opts *o,
                              double bw, const gpu_defaults *def, dev_figures *f) {
    f->t_it = time_iterate(be, s, &o->warm, o->warm_s, o->reps);
    f->rnorm = sqrt(s->rr);
    mu_gpu_cg_traffic(A->nloc, A->nnz, 0, 0, &f->tb);
    const mu_gpu_cg_bytes *tb = &f->tb;
    f->own = tb->split;
    f->f_it = f->own / bw, f->f_min = tb->minimal / bw, f->f_tab = tb->table / bw;
    f->f_issue = (tb->matrix + 11.0 * 8.0 * (double)A->nloc) / bw;
    printf("  default: %d lanes per row\n", def->lanes);
    printf("  mutirao device iterations: %.3f ms per iteration (median of %d batches of %d, after "
           "%d)\n",
           f->t_it * 1e3, o->reps, MU_GPU_CG_BATCH, o->warm);
    printf("  bytes per iteration: matrix %.3f GB; mutirao's iteration %.3f GB (floor %.3f ms); "
           "minimal %.3f GB (floor %.3f ms); table path %.3f GB (floor %.3f ms)\n",
           tb->matrix * 1e-9, f->own * 1e-9, f->f_it * 1e3, tb->minimal * 1e-9, f->f_min * 1e3,
           tb->table * 1e-9, f->f_tab * 1e3);
    printf("  time / minimal floor: %.3fx   time / own-bytes floor: %.3fx   time / 11-pass floor "
           "(the issue's 'fused floor'): %.3fx   achieved %.0f GB/s (%.1f%% of copy)\n",
           f->t_it / f->f_min, f->t_it / f->f_it, f->t_it / f->f_issue, f->own / f->t_it * 1e-9,
           100.0 * f->own / f->t_it / bw);
}

/* (c): the peer over as many iterations as (b) timed, after as many as it warmed. */
static peer_result peer_section(const cg_matrix *A, const bench_opts *o, const dev_figures *f) {
    peer_result pr = peer_cg(A, (int64_t)o->warm * MU_GPU_CG_BATCH, o->reps * MU_GPU_CG_BATCH);
    printf("\n(c) peer, cusparseSpMV (CSR, ALG_DEFAULT) + cuBLAS ddot/daxpy/dscal: %.3f ms per "
           "iteration (median of %d), %.2fx the minimal floor\n",
           pr.per_it * 1e3, o->reps * MU_GPU_CG_BATCH, pr.per_it / f->f_min);
    printf("  peer / mutirao = %.2fx   ||r|| after %lld iterations: peer %.6e, mutirao %.6e\n",
           pr.per_it / f->t_it, (long long)pr.iters, pr.rnorm, f->rnorm);
    return pr;
}

/* (b3): the solve to rtol 1e-8 from s's right-hand side, into s's x. */
static void solve_section(cg_backend *be, const cg_matrix *A, bench_cg_state *s) {
    cg_result res;
    double ts, err;
    MU(bench_cg_solve(&app, A, be, s, "bench_cg.ckpt", &res, &ts, &err));
    printf("\n(b3) solve to rtol 1e-8: %lld iterations in %.3f s (%.3f ms per iteration), "
           "||x - 1|| / ||1|| = %.2e\n",
           (long long)res.iterations, ts, ts / (double)res.iterations * 1e3, err);
}

/* (b2) on the 3-D 27-point operator at (n/2)^3. */
static void sweep_27(int64_t n, double bw) {
    const int l27[] = {2, 4, 8, 16, 32};
    int64_t m = n / 2;
    cg_block blk;
    cg_matrix A;
    MU(cg_load_poisson(&app, CG_POISSON_3D27, m, m, m, 1.0, &blk));
    MU(cg_matrix_setup(&app, &blk, &A));
    char label[64];
    snprintf(label, sizeof label, "3-D 27-point %lld^3", (long long)m);
    sweep(&A, label, bw, l27, 5);
    cg_matrix_free(&A);
}

static void print_summary(const char *device, double bw, const dev_figures *f, int peer,
                          const peer_result *pr) {
    printf("\nsummary (%s): copy %.0f GB/s | mutirao %.3f ms/it, %.3f GB/it, minimal %.3f GB/it, "
           "time/minimal floor %.3fx, time/11-pass floor %.3fx",
           device, bw * 1e-9, f->t_it * 1e3, f->own * 1e-9, f->tb.minimal * 1e-9,
           f->t_it / f->f_min, f->t_it / f->f_issue);
    if (peer)
        printf(" | peer %.3f ms/it, peer/mutirao %.2fx", pr->per_it * 1e3, pr->per_it / f->t_it);
    printf("\n");
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    mu_log_init(0, 1);
    mu_log_set_level("warn");
    bench_opts o;
    if (parse_args(argc, argv, &o)) return 2;
    const int64_t n = o.n;
    mu_gpu_info info;
    if (mu_gpu_device_count() < 1 || mu_gpu_select(0, &info)) {
        fprintf(stderr, "bench_cg: no CUDA device: %s\n", mu_gpu_error());
        MPI_Finalize();
        return 1;
    }
    app.comm = MPI_COMM_WORLD;
    app.rank = 0;
    app.size = 1;
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    printf("bench_cg: %s (sm_%d%d, %d SMs, %.1f GiB), CUDA runtime %d.%d, driver %d.%d\n",
           info.name, info.cc_major, info.cc_minor, info.sm_count, info.mem_gib, rt / 1000,
           (rt % 1000) / 10, drv / 1000, (drv % 1000) / 10);

    const double bw = copy_bandwidth();
    printf("\n(a) device-to-device copy: %.1f GB/s (bytes read + written, 1 GiB, median of 20)\n",
           bw * 1e-9);

    double t0 = bench_now();
    cg_block blk;
    cg_matrix A;
    MU(cg_load_poisson(&app, CG_POISSON_3D7, n, n, n, 1.0, &blk));
    MU(cg_matrix_setup(&app, &blk, &A));
    cg_backend *be;
    MU(cg_backend_gpu(&A, 0, 0, &be));
    const gpu_defaults def = default_tuning(&A);
    printf("\n(b) 3-D 7-point Poisson %lld^3: %lld rows, %lld nonzeros, fp64, no preconditioner "
           "(setup %.1f s)\n",
           (long long)n, (long long)A.n, (long long)A.nnz, bench_now() - t0);
    bench_cg_state s;
    if (bench_cg_state_new(be, &s)) {
        fprintf(stderr, "bench_cg: out of device memory\n");
        exit(1);
    }
    MU(cg_make_rhs(&app, &A, be, CG_RHS_AONES, 1, s.b, NULL));
    bench_cg_state_reset(be, &s, MPI_COMM_SELF);
    dev_figures f;
    device_iterations(be, &s, &A, &o, bw, &def, &f);
    if (o.table) {
        const double t_tab = time_table(be, &s, 30);
        printf("  table path (one call per kernel, host reductions each iteration; several ranks "
               "run perf/bench_cg_ranks's path): %.3f ms per iteration (median of 30), %.3fx its "
               "floor\n",
               t_tab * 1e3, t_tab / f.f_tab);
    }

    peer_result pr = {0, 0, 0};
    if (o.peer) pr = peer_section(&A, &o, &f);
    if (o.solve) solve_section(be, &A, &s);
    bench_cg_state_free(be, &s);
    be->destroy(be);
    if (o.sweep) {
        const int l7[] = {2, 4, 8};
        char label[64];
        snprintf(label, sizeof label, "3-D 7-point %lld^3", (long long)n);
        sweep(&A, label, bw, l7, 3);
    }
    cg_matrix_free(&A);
    if (o.sweep) sweep_27(n, bw);

    if (o.study && o.ninputs) {
        printf("\n(d) matrices: b = A 1; standard fp64 with Jacobi to rtol 1e-8; thesis fp32 to "
               "||r|| < 1e-5, at most %lld iterations\n",
               (long long)o.study_max);
        printf("  %-18s %6s %8s | %-22s | dev | iterations    | time\n", "matrix", "n", "nnz",
               "mode");
        for (int i = 0; i < o.ninputs; i++) study_dir(o.inputs[i], o.study_max);
    }
    print_summary(info.name, bw, &f, o.peer, &pr);
    MPI_Finalize();
    return 0;
}
