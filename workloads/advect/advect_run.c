/* The advect run, collective: the Cartesian blocks, the initial fields (or a
 * checkpoint), the steps with a log line of mass, extremes and Courant number,
 * checkpoints every k steps and on SIGTERM/SIGUSR1, and at the end the error
 * norms against the initial fields (every bundled test returns to its start).
 * Sums are exact (core/exactsum.h) and extremes order-free, so every number
 * printed is the same on any number of ranks. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "advect/advect.h"
#include "mpi/wait.h"
#include "core/error.h"
#include "core/exactsum.h"
#include "core/free.h"
#include "core/log.h"
#include "core/memory.h"
#include "core/output.h"
#include "core/signals.h"
#include "core/summary.h"
#include "core/timer.h"
#include "gpu/gpu.h"
#include "mpi/binding.h"

typedef struct {
    double *mass, *min, *max;
} adv_diag;

static int64_t owned(const adv_state *s) {
    return (int64_t)s->nl[0] * s->nl[1] * s->nl[2];
}

/* Mass (sum of q rho dV), min and max per field of the run (collective over
 * every group: each rank fills its group's fields, the others are empty). The
 * extremes are kept as adv_fkey keys, so -0 and +0 come out the same in any
 * order. With the fields on the device (s->stale) the device reduces them. */
static int diagnose(adv_state *s, adv_diag *d) {
    const adv_cfg *c = s->cfg;
    int N = s->N, nall = s->nall, nz = s->nl[2];
    double dv = 1;
    for (int k = 0; k < 3; k++) dv *= c->len[k] / (double)c->n[k];
    mu_xsum *acc = calloc((size_t)nall, sizeof *acc);
    int32_t *mn = malloc((size_t)nall * 2 * sizeof *mn), *mx = mn + nall;
    double *rhodv = malloc((size_t)nz * sizeof *rhodv);
    if (!acc || !mn || !rhodv) {
        free(acc);
        free(mn);
        free(rhodv);
        return mu_error_collective(s->comm, mu_error("out of memory for the step log"));
    }
    for (int z = 0; z < nz; z++) rhodv[z] = adv_rho(c, z) * dv;
    for (int f = 0; f < nall; f++) {
        mn[f] = adv_fkey(INFINITY);
        mx[f] = adv_fkey(-INFINITY);
    }
    mu_xsum *mine = acc + s->f0;
    int32_t *kmin = mn + s->f0, *kmax = mx + s->f0;
    int rc = 0;
    if (s->gpu && s->stale) {
        rc = MU_GPU(mu_gpu_adv_diag(s->gpu, s->nl[0], s->nl[1], nz, rhodv, mine, kmin, kmax),
                    "advect step log on the GPU");
    } else {
        for (int y = 0; y < s->nl[1]; y++)
            for (int x = 0; x < s->nl[0]; x++)
                for (int z = 0; z < nz; z++) {
                    const float *q = s->q + adv_idx(s, x, y, z);
                    for (int f = 0; f < N; f++) {
                        mu_xsum_add(&mine[f], (double)q[f] * rhodv[z]);
                        if (q[f] != q[f]) continue; /* NaN: no extreme */
                        int32_t k = adv_fkey(q[f]);
                        if (k < kmin[f]) kmin[f] = k;
                        if (k > kmax[f]) kmax[f] = k;
                    }
                }
    }
    free(rhodv);
    if (mu_error_collective(s->comm, rc)) {
        free(acc);
        free(mn);
        return 1;
    }
    mu_xsum_allreduce(acc, nall, s->comm);
    mu_allreduce(mn, nall, MPI_INT32_T, MPI_MIN, s->comm);
    mu_allreduce(mx, nall, MPI_INT32_T, MPI_MAX, s->comm);
    for (int f = 0; f < nall; f++) {
        d->mass[f] = mu_xsum_round(&acc[f], NULL);
        d->min[f] = adv_keyf(mn[f]);
        d->max[f] = adv_keyf(mx[f]);
    }
    free(acc);
    free(mn);
    return 0;
}

/* The fields back from the device for what reads them on the host (output,
 * checkpoint, the end's norms and dump); collective. */
static int fields_home(adv_state *s) {
    int rc = 0;
    if (s->gpu && s->stale) {
        mu_timer_begin("advect: GPU to host");
        rc = MU_GPU(mu_gpu_adv_get(s->gpu, s->q), "advect");
        mu_timer_end("advect: GPU to host");
        if (!rc) s->stale = 0;
    }
    return mu_error_collective(s->comm, rc);
}

/* --output: the answer, one CSV row per field, written by rank 0 under a
 * temporary name (collective). */
static int write_answer(mu_app *app, const char *path, int N, const adv_diag *d0, const adv_diag *d,
                        const double *l1, const double *l2, const double *li) {
    int rc = 0;
    if (app->rank == 0) {
        mu_output out;
        rc = mu_output_open(&out, path);
        if (!rc) {
            fprintf(out.f, "field,mass0,mass,mass_change,min,max,l1,l2,linf\n");
            for (int f = 0; f < N; f++)
                fprintf(out.f, "%d,%.17g,%.17g,%.3e,%.17g,%.17g,%.6e,%.6e,%.6e\n", f, d0->mass[f],
                        d->mass[f],
                        d0->mass[f] != 0 ? (d->mass[f] - d0->mass[f]) / fabs(d0->mass[f])
                                         : d->mass[f],
                        d->min[f], d->max[f], l1[f], l2[f], li[f]);
            rc = mu_output_commit(&out);
        }
    }
    return mu_error_collective(app->comm, rc);
}

/* Field f of owned cell k (z fastest, then x, y) at the start of the run. */
static float initial(const adv_state *s, int64_t k, int f) {
    return s->q0 ? s->q0[k * s->N + f] : adv_init_value(s->cfg, s->f0 + f, s->shape[k]);
}

/* L1, L2 (relative) and Linf (relative to the largest initial value) of q -
 * q0, per field of the run (collective). Rows of cells on host threads, each
 * thread with its own exact sums, merged after. */
static int norms(adv_state *s, double *l1, double *l2, double *linf) {
    int N = s->N, nall = s->nall, nyl = s->nl[1], nxl = s->nl[0], nz = s->nl[2];
    int T = s->threads > 0 ? s->threads : 1;
    mu_xsum *acc = calloc((size_t)nall * 4 * (T + 1), sizeof *acc);
    double *mx = calloc((size_t)nall * 2 * (T + 1), sizeof *mx);
    if (!acc || !mx) {
        free(acc);
        free(mx);
        return mu_error_collective(s->comm, mu_error("out of memory for the error norms"));
    }
#pragma omp parallel num_threads(T)
    {
        int t = omp_get_thread_num() + 1;
        mu_xsum *a = acc + (size_t)nall * 4 * t + 4 * s->f0;
        double *m = mx + (size_t)nall * 2 * t + 2 * s->f0;
#pragma omp for schedule(static)
        for (int y = 0; y < nyl; y++)
            for (int x = 0; x < nxl; x++)
                for (int z = 0; z < nz; z++) {
                    const float *q = s->q + adv_idx(s, x, y, z);
                    int64_t k = z + (int64_t)nz * (x + (int64_t)nxl * y);
                    for (int f = 0; f < N; f++) {
                        double q0 = initial(s, k, f), e = (double)q[f] - q0;
                        mu_xsum_add(&a[4 * f], fabs(e));
                        mu_xsum_add(&a[4 * f + 1], e * e);
                        mu_xsum_add(&a[4 * f + 2], fabs(q0));
                        mu_xsum_add(&a[4 * f + 3], q0 * q0);
                        if (fabs(e) > m[2 * f]) m[2 * f] = fabs(e);
                        if (fabs(q0) > m[2 * f + 1]) m[2 * f + 1] = fabs(q0);
                    }
                }
    }
    for (int t = 1; t <= T; t++) /* exact sums: the same bits whatever the threads */
        for (int i = 0; i < 4 * nall; i++) {
            mu_xsum_normalize(&acc[(size_t)nall * 4 * t + i]);
            mu_xsum_merge(&acc[i], &acc[(size_t)nall * 4 * t + i]);
            if (i < 2 * nall && mx[(size_t)nall * 2 * t + i] > mx[i])
                mx[i] = mx[(size_t)nall * 2 * t + i];
        }
    mu_xsum_allreduce(acc, 4 * nall, s->comm);
    mu_allreduce(mx, 2 * nall, MPI_DOUBLE, MPI_MAX, s->comm);
    for (int f = 0; f < nall; f++) {
        double a = mu_xsum_round(&acc[4 * f], NULL), b = mu_xsum_round(&acc[4 * f + 1], NULL);
        double c0 = mu_xsum_round(&acc[4 * f + 2], NULL), d0 = mu_xsum_round(&acc[4 * f + 3], NULL);
        l1[f] = c0 > 0 ? a / c0 : a;
        l2[f] = d0 > 0 ? sqrt(b / d0) : sqrt(b);
        linf[f] = mx[2 * f + 1] > 0 ? mx[2 * f] / mx[2 * f + 1] : mx[2 * f];
    }
    free(acc);
    free(mx);
    return 0;
}

static void log_step(const adv_state *s, const adv_diag *d, mu_log_level lv) {
    int show = s->nall < 4 ? s->nall : 4;
    for (int f = 0; f < show; f++)
        mu_log(lv, "step %lld t=%.6g Courant %.4f field %d: mass %.12e min %.9g max %.9g",
               (long long)s->step, (double)s->step * s->cfg->dt, s->cmax, f, d->mass[f], d->min[f],
               d->max[f]);
    if (s->nall > show)
        mu_log(lv, "step %lld: (%d more fields)", (long long)s->step, s->nall - show);
}

/* Host buffers. A GPU rank keeps its fields on the device: its host copy is
 * written only when the fields come home, and the CPU sweep's buffers (for
 * the host's Courant recheck alone) are never touched before then. */
static int alloc_state(adv_state *s, int on_gpu) {
    int N = s->N;
    int64_t padded = (int64_t)N * s->nl[2] * s->sx * (s->nl[1] + 2 * ADV_HALO);
    int mmax = s->nl[0] > s->nl[1] ? s->nl[0] : s->nl[1];
    if (s->nl[2] > mmax) mmax = s->nl[2];
    int64_t cells = owned(s);
    int64_t gmax = 0;
    for (int a = 0; a < 3; a++) {
        int64_t g = cells / s->nl[a];
        if (g > gmax) gmax = g;
    }
    int64_t halo = (int64_t)ADV_HALO * N * s->nl[2] * mmax;
    int64_t buf = gmax * (N + 1) > halo ? gmax * (N + 1) : halo;
    s->hmax = halo;
    s->nbuf = buf;
    s->q = calloc((size_t)padded, sizeof *s->q);
    s->qn = on_gpu ? NULL : calloc((size_t)padded, sizeof *s->qn);
    s->dens = malloc((size_t)cells * sizeof *s->dens);
    s->wu = malloc((size_t)(gmax * (mmax + 1)) * sizeof *s->wu);
    s->wrs = malloc((size_t)(gmax * (mmax + 1)) * sizeof *s->wrs);
    s->wd0 = malloc((size_t)(gmax * mmax) * sizeof *s->wd0);
    s->wd1 = malloc((size_t)(gmax * mmax) * sizeof *s->wd1);
    s->flux = on_gpu ? NULL : calloc((size_t)(gmax * N * (mmax + 1)), sizeof *s->flux);
    s->sbuf = malloc((size_t)buf * sizeof *s->sbuf);
    s->rbuf = malloc((size_t)buf * sizeof *s->rbuf);
    s->cls = malloc((size_t)(gmax * mmax));
    s->seg = malloc((size_t)gmax * sizeof *s->seg);
    s->tasks = malloc((size_t)(gmax * (mmax / 2 + 1)) * sizeof *s->tasks);
    s->fcells = malloc((size_t)(gmax * (mmax + 1)) * 2 * sizeof *s->fcells);
    s->cyc = malloc((size_t)(3 * gmax) * sizeof *s->cyc);
    s->hbuf = malloc((size_t)(2 * halo) * sizeof *s->hbuf); /* now: a halo cannot fail alone */
    int bad = !s->q || (!on_gpu && (!s->qn || !s->flux)) || !s->dens || !s->wu || !s->wrs ||
              !s->wd0 || !s->wd1 || !s->sbuf || !s->rbuf || !s->cls || !s->seg || !s->tasks ||
              !s->fcells || !s->cyc || !s->hbuf;
    if (!bad && !on_gpu) { /* touch the sweep buffers now, so that the first step does not pay
                              their page faults */
        memset(s->wu, 0, (size_t)(gmax * (mmax + 1)) * sizeof *s->wu);
        memset(s->wrs, 0, (size_t)(gmax * (mmax + 1)) * sizeof *s->wrs);
        memset(s->wd0, 0, (size_t)(gmax * mmax) * sizeof *s->wd0);
        memset(s->wd1, 0, (size_t)(gmax * mmax) * sizeof *s->wd1);
        memset(s->flux, 0, (size_t)(gmax * N * (mmax + 1)) * sizeof *s->flux);
        memset(s->qn, 0, (size_t)padded * sizeof *s->qn);
        memset(s->cls, 0, (size_t)(gmax * mmax));
    }
    return bad;
}

static void free_state(adv_state *s) {
    MU_FREE(s->q, s->qn, s->q0, s->shape, s->dens, s->wu, s->wrs, s->wd0, s->wd1, s->flux, s->sbuf,
            s->rbuf, s->cls, s->seg, s->tasks, s->fcells, s->cyc, s->hbuf);
    for (int a = 0; a < 3; a++) {
        free(s->wcache[a]);
        free(s->rcache[a]);
    }
    adv_steady_free(s);
    adv_share_free(s);
    mu_cart_free(&s->cart);
    if (s->group != MPI_COMM_NULL) MPI_Comm_free(&s->group);
}

/* The fields read from a file, kept for the error norms. */
static int keep_initial(adv_state *s) {
    int64_t k = 0, N = s->N;
    s->q0 = malloc((size_t)(owned(s) * N) * sizeof *s->q0);
    if (!s->q0) return mu_error("out of memory for the initial fields");
    for (int y = 0; y < s->nl[1]; y++)
        for (int x = 0; x < s->nl[0]; x++)
            for (int z = 0; z < s->nl[2]; z++, k++)
                memcpy(s->q0 + k * N, s->q + adv_idx(s, x, y, z), (size_t)N * sizeof *s->q0);
    return 0;
}

static int output_step(const adv_cfg *c, int64_t step) {
    for (int i = 0; i < c->n_output_steps; i++)
        if (c->output_steps[i] == step) return 1;
    return 0;
}

/* The fields of this step to PREFIX<step>.EXT through write. */
static int write_one(adv_state *s, const char *prefix, const char *ext, adv_fields_writer write) {
    char path[1200];
    snprintf(path, sizeof path, "%s%06lld.%s", prefix, (long long)s->step, ext);
    mu_timer_begin("advect: output");
    int rc = write(s, path, s->step);
    mu_timer_end("advect: output");
    if (!rc) mu_info("fields of step %lld written to %s", (long long)s->step, path);
    return rc;
}

static int write_fields(adv_state *s) {
    const adv_cfg *c = s->cfg;
    if ((!c->h5 && !c->nc) || !output_step(c, s->step)) return 0;
    MU_TRY(fields_home(s));
    if (c->h5) MU_TRY(write_one(s, c->h5, "h5", adv_hdf5_write));
    if (c->nc) MU_TRY(write_one(s, c->nc, "nc", adv_netcdf_write));
    return 0;
}

static int plot_at(adv_state *s, const char *tag) {
    const adv_cfg *c = s->cfg;
    if (!c->plot) return 0;
    MU_TRY(fields_home(s));
    char path[1200], title[200];
    snprintf(path, sizeof path, "%s%s.png", c->plot, tag);
    snprintf(title, sizeof title, "field 0, level z=%lld, step %lld (t = %.4g)",
             (long long)(c->n[2] / 2), (long long)s->step, (double)s->step * c->dt);
    MU_TRY(adv_plot(s, path, title));
    mu_info("slice plot written to %s", path);
    return 0;
}

/* This rank's field group and its blocks (collective over comm). */
static int open_groups(adv_state *s, const adv_cfg *cfg, double mem_bytes) {
    int P, rank, pgrid[2];
    MPI_Comm_size(s->comm, &P);
    MPI_Comm_rank(s->comm, &rank);
    MU_TRY(adv_decompose(cfg, s->comm, mem_bytes, &s->pf, pgrid));
    s->gid = rank / (P / s->pf);
    MPI_Comm_split(s->comm, s->gid, rank, &s->group);
    s->nall = cfg->nf;
    s->f0 = adv_group_first(s->nall, s->pf, s->gid);
    s->N = adv_group_first(s->nall, s->pf, s->gid + 1) - s->f0;
    static const char *const names[] = {"nx", "ny"};
    int per[2] = {cfg->periodic[0], cfg->periodic[1]};
    int rc = mu_cart_create(s->group, 2, cfg->n, pgrid, per, ADV_HALO, names, &s->cart);
    return mu_error_collective(s->comm, rc);
}

int adv_state_open(adv_state *s, const adv_cfg *cfg, MPI_Comm comm, int threads, double mem_bytes,
                   int on_gpu) {
    memset(s, 0, sizeof *s);
    s->cfg = cfg;
    s->comm = comm;
    s->group = s->cart.comm = MPI_COMM_NULL; /* freed on a failure before they are made */
    for (int d = 0; d < MU_CART_MAXDIM; d++) s->cart.line[d] = MPI_COMM_NULL;
    s->threads = threads;
    if (open_groups(s, cfg, mem_bytes)) {
        free_state(s);
        return 1;
    }
    for (int k = 0; k < 2; k++) {
        s->nl[k] = (int)s->cart.n[k];
        s->lo[k] = s->cart.lo[k];
    }
    s->nl[2] = (int)cfg->n[2];
    s->sx = s->nl[0] + 2 * ADV_HALO;
    mu_timer_begin("advect: setup fields");
    int rc = alloc_state(s, on_gpu)
                 ? mu_error("out of memory for %lld cells x %d fields", (long long)owned(s), s->N)
                 : 0;
    if (!rc) rc = adv_wind_load(cfg, comm);
    if (!rc && cfg->init == ADV_INIT_FILE) {
        rc = adv_init_fields_file(s);
        if (!rc) rc = keep_initial(s);
    } else if (!rc) {
        rc = adv_init_shape(s);
        if (!rc && !on_gpu) rc = adv_init_fields(s); /* a GPU rank makes them on the device */
    }
    mu_timer_end("advect: setup fields");
    if (mu_error_collective(comm, rc)) {
        free_state(s);
        adv_wind_free();
        return 1;
    }
    adv_steady_decide(s, mem_bytes, on_gpu);
    adv_share_open(s, mem_bytes, on_gpu);
    return 0;
}

/* The device copy: the fields uploaded from the host (a file, a checkpoint)
 * or made there from the shape; the steady winds of every axis uploaded. */
int adv_gpu_open(adv_state *s, int from_host) {
    int64_t padded = (int64_t)s->N * s->nl[2] * s->sx * (s->nl[1] + 2 * ADV_HALO);
    int mmax = s->nl[0] > s->nl[1] ? s->nl[0] : s->nl[1];
    if (s->nl[2] > mmax) mmax = s->nl[2];
    int64_t gmax = 0;
    for (int a = 0; a < 3; a++)
        if (owned(s) / s->nl[a] > gmax) gmax = owned(s) / s->nl[a];
    int64_t halo = (int64_t)ADV_HALO * s->N * s->nl[2] * mmax;
    const adv_cfg *c = s->cfg;
    int rc = mu_gpu_adv_create(padded, gmax, mmax, s->N, halo, &s->gpu);
    if (!rc && from_host) rc = mu_gpu_adv_put(s->gpu, s->q);
    if (!rc && !from_host)
        rc = mu_gpu_adv_init_fields(s->gpu, s->shape, s->nl[0], s->nl[1], s->nl[2], s->f0,
                                    c->background, c->amp);
    if (!rc && s->cart.dims[0] * s->cart.dims[1] > 1) { /* the messages' host buffers */
        size_t buf = (size_t)s->nbuf * sizeof(float);
        rc = mu_gpu_adv_pin(s->gpu, s->sbuf, buf) || mu_gpu_adv_pin(s->gpu, s->rbuf, buf) ||
             mu_gpu_adv_pin(s->gpu, s->hbuf, (size_t)(2 * halo) * sizeof(float));
    }
    MU_TRY(MU_GPU(rc, "advect on the GPU"));
    s->stale = !from_host;
    mu_timer_begin("advect: setup winds");
    rc = adv_gpu_winds(s);
    mu_timer_end("advect: setup winds");
    return rc;
}

void adv_state_close(adv_state *s) {
    mu_gpu_adv_destroy(s->gpu);
    s->gpu = NULL;
    free_state(s);
    adv_wind_free();
}

/* Memory for one rank's share: its device's, or what the rank may take of the
 * node's (core/memory.h). */
static double rank_memory(const mu_app *app) {
    if (app->dev.use_gpu) return 0.9 * app->dev.info.mem_gib * 1073741824.0;
    return mu_mem_rank_available(app->dev.local_size);
}

/* Every field's errors and mass change in the summary's result, as numbers;
 * field 0's also by name (the main job's table shows them). */
static void summarize_fields(int N, const adv_diag *d0, const adv_diag *d, const double *l1,
                             const double *l2, const double *li) {
    double *change = malloc((size_t)(N ? N : 1) * sizeof *change);
    if (!change) return;
    for (int f = 0; f < N; f++)
        change[f] = d0->mass[f] != 0 ? (d->mass[f] - d0->mass[f]) / fabs(d0->mass[f]) : 0.0;
    mu_summary_result_real("l1_error_field0", li[0] >= 0 ? l1[0] : 0.0);
    mu_summary_result_real("mass_change_field0", change[0]);
    mu_summary_result_reals("l1_error", l1, N);
    mu_summary_result_reals("l2_error", l2, N);
    mu_summary_result_reals("linf_error", li, N);
    mu_summary_result_reals("mass_change", change, N);
    free(change);
}

/* Opens the state (and the device copy), restarts from a checkpoint if asked;
 * inside the setup timer. */
static int run_open(mu_app *app, adv_cfg *cfg, adv_state *s) {
    mu_wait_configure(app->dev.local_size);
    if (mu_wait_polite())
        mu_info("advect: more ranks than CPUs on a node: MPI waits yield the CPU");
    char why[256];
    int threads = mu_threads_per_rank(&app->dev, 0, why, sizeof why);
    mu_info("advect: %d host thread(s) per rank (%s)", threads, why);
    if (adv_state_open(s, cfg, app->comm, threads, rank_memory(app), app->dev.use_gpu)) return -1;
    mu_info("advect: %lld x %lld x %lld cells (x, y, z), %d field(s) in %d group(s), %d x %d "
            "ranks a group (blocks of %d x %d), schedule %s, %lld step(s) of dt=%g",
            (long long)cfg->n[0], (long long)cfg->n[1], (long long)cfg->n[2], s->nall, s->pf,
            s->cart.dims[0], s->cart.dims[1], s->nl[0], s->nl[1],
            cfg->schedule == ADV_SCHED_DATAFLOW ? "dataflow" : "lines", (long long)cfg->steps,
            cfg->dt);
    mu_summary_result_int("field_groups", s->pf);
    mu_summary_result_int("px", s->cart.dims[0]);
    mu_summary_result_int("py", s->cart.dims[1]);
    int rc = 0;
    if (cfg->restart) {
        rc = adv_checkpoint_read(s, cfg->checkpoint);
        if (!rc) mu_info("restarted from %s at step %lld", cfg->checkpoint, (long long)s->step);
    }
    int from_host = cfg->restart || cfg->init == ADV_INIT_FILE;
    int grc = !rc && app->dev.use_gpu ? adv_gpu_open(s, from_host) : 0;
    if (!rc) rc = mu_error_collective(app->comm, grc);
    int ngpu = s->gpu != NULL;
    mu_allreduce(&ngpu, 1, MPI_INT, MPI_SUM, app->comm);
    /* GPU ranks meet at other collective points than CPU ranks (the step's
     * check, the flux rounds): a run takes one kind only */
    if (!rc && ngpu && ngpu < app->size)
        rc = mu_error_collective(app->comm,
                                 mu_error("advect: only %d of %d ranks have a GPU, and GPU and "
                                          "CPU ranks cannot share a run: give every rank a GPU "
                                          "or run with --device=cpu",
                                          ngpu, app->size));
    if (!rc && ngpu) rc = mu_error_collective(app->comm, adv_peer_open(s));
    if (!rc && ngpu)
        mu_info("advect: %d rank(s) run the sweeps on their GPU (classification, %s kernels)", ngpu,
                cfg->schedule == ADV_SCHED_DATAFLOW ? "stream and inflow-only-cell" : "line");
    return rc;
}

/* After a step: the checkpoint when due or asked for by a signal; *stopped
 * when a signal asked. */
static int step_checkpoint(adv_state *s, int sig, int due, int *stopped) {
    const adv_cfg *cfg = s->cfg;
    if (!(sig || due) || s->step >= cfg->steps) return 0;
    int rc = fields_home(s);
    mu_timer_begin("advect: checkpoint");
    if (!rc) rc = adv_checkpoint_write(s, cfg->checkpoint);
    mu_timer_end("advect: checkpoint");
    if (!rc)
        mu_info("checkpoint of step %lld written to %s%s", (long long)s->step, cfg->checkpoint,
                sig ? " (stop requested by a signal)" : "");
    *stopped = sig;
    return rc;
}

/* The time steps, each checked before it is logged or written; stops after a
 * checkpoint asked for by a signal (*stopped). d: the last step's diagnostics. */
static int run_steps(mu_app *app, adv_state *s, adv_diag *d, int *stopped) {
    const adv_cfg *cfg = s->cfg;
    int64_t every = cfg->log_every > 0 ? cfg->log_every : (cfg->steps > 20 ? cfg->steps / 10 : 1);
    int rc = cfg->checkpoint || cfg->checkpoint_every ? mu_signals_install() : 0;
    mu_timer_begin("advect: steps");
    while (!rc && !*stopped && s->step < cfg->steps) {
        rc = adv_step(s, s->step);
        if (rc) break;
        if (s->gpu) s->stale = 1; /* the fields stay on the device */
        s->step++;
        /* The step log only where it is printed (the last step's is the answer's):
         * on the device it is a reduction and a few waits a step. */
        mu_log_level lv =
            s->step % every == 0 || s->step == cfg->steps ? MU_LOG_INFO : MU_LOG_DEBUG;
        int sig = cfg->checkpoint && mu_signals_any(app->comm);
        int due =
            cfg->checkpoint && cfg->checkpoint_every > 0 && s->step % cfg->checkpoint_every == 0;
        int writes = ((cfg->h5 || cfg->nc) && output_step(cfg, s->step)) ||
                     ((sig || due) && s->step < cfg->steps);
        if (lv >= mu_log_get_level() || writes) /* every step checked before its output */
            while (!rc && s->npend) rc = adv_confirm(s);
        if (!rc && lv >= mu_log_get_level()) {
            mu_timer_begin("advect: diagnostics");
            rc = diagnose(s, d);
            mu_timer_end("advect: diagnostics");
            if (!rc) log_step(s, d, lv);
        }
        if (!rc) rc = write_fields(s);
        if (!rc) rc = step_checkpoint(s, sig, due, stopped);
    }
    while (!rc && s->npend) rc = adv_confirm(s);
    mu_timer_end("advect: steps");
    if (cfg->checkpoint || cfg->checkpoint_every) mu_signals_restore();
    return rc;
}

/* The answer of a finished run: per field mass, extremes and error norms,
 * printed by rank 0, in the summary, the CSV, the dump and the end plot. */
static int run_finish(mu_app *app, adv_state *s, const adv_diag *d0, const adv_diag *d) {
    const adv_cfg *cfg = s->cfg;
    int N = s->nall;
    int rc = fields_home(s);
    double *l1 = malloc((size_t)N * 3 * sizeof *l1), *l2 = l1 + N, *li = l1 + 2 * N;
    mu_timer_begin("advect: error norms");
    if (!rc) rc = l1 ? norms(s, l1, l2, li) : mu_error("out of memory");
    mu_timer_end("advect: error norms");
    if (rc) goto done;
    if (app->rank == 0)
        for (int f = 0; f < N; f++)
            printf("advect: field %d mass0 %.17g mass %.17g change %.3e min %.9g max %.9g "
                   "L1 %.6e L2 %.6e Linf %.6e\n",
                   f, d0->mass[f], d->mass[f],
                   d0->mass[f] != 0 ? (d->mass[f] - d0->mass[f]) / fabs(d0->mass[f]) : d->mass[f],
                   d->min[f], d->max[f], l1[f], l2[f], li[f]);
    mu_summary_result_int("steps", s->step);
    mu_summary_result_int("fields", N);
    mu_summary_result_int("cells", cfg->n[0] * cfg->n[1] * cfg->n[2]);
    mu_summary_result_str("schedule", cfg->schedule == ADV_SCHED_DATAFLOW ? "dataflow" : "lines");
    mu_summary_real("max_courant_last_step", s->cmax);
    summarize_fields(N, d0, d, l1, l2, li);
    mu_summary_real("mass_field0", d->mass[0]);
    mu_summary_real("mass_change_field0",
                    d0->mass[0] != 0 ? (d->mass[0] - d0->mass[0]) / fabs(d0->mass[0]) : 0);
    mu_summary_real("min_field0", d->min[0]);
    mu_summary_real("max_field0", d->max[0]);
    mu_summary_real("l1_field0", l1[0]);
    mu_summary_real("l2_field0", l2[0]);
    mu_summary_real("linf_field0", li[0]);
    if (cfg->output) MU_TRY_GOTO(write_answer(app, cfg->output, N, d0, d, l1, l2, li));
    if (cfg->dump) MU_TRY_GOTO(adv_write_raw(s, cfg->dump));
    rc = plot_at(s, "end");
done:
    free(l1);
    return rc;
}

/* The device's own times, logged and summarized. */
static void report_gpu(const adv_state *s) {
    double ks, cs, bytes;
    mu_gpu_adv_times(s->gpu, &ks, &cs, &bytes);
    mu_log_all(MU_LOG_INFO, "advect: GPU kernels %.4f s, host-device copies %.4f s (%.3f GB)", ks,
               cs, bytes / 1e9);
    mu_summary_real("gpu_kernel_s_rank0", ks);
    mu_summary_real("gpu_copy_s_rank0", cs);
    /* the device's own time of the sweeps (events), where the steps were checked one
       behind (one block a group) */
    double dev = s->gpu_sweep_s[0] + s->gpu_sweep_s[1] + s->gpu_sweep_s[2];
    if (dev > 0) {
        mu_summary_real("gpu_sweeps_s_rank0", dev);
        mu_summary_real("gpu_x_sweep_s_rank0", s->gpu_sweep_s[0]);
        mu_summary_real("gpu_y_sweep_s_rank0", s->gpu_sweep_s[1]);
        mu_summary_real("gpu_z_sweep_s_rank0", s->gpu_sweep_s[2]);
    }
}

int adv_run(mu_app *app, adv_cfg *cfg) {
    adv_state st;
    adv_state *s = &st;
    mu_timer_begin("advect: setup");
    int rc = run_open(app, cfg, s);
    if (rc < 0) {
        mu_timer_end("advect: setup");
        return 1;
    }
    int N = s->nall;
    adv_diag d0, d;
    d0.mass = malloc((size_t)N * 6 * sizeof(double));
    if (!rc) rc = mu_error_collective(app->comm, d0.mass ? 0 : mu_error("out of memory"));
    if (!rc) {
        d0.min = d0.mass + N;
        d0.max = d0.mass + 2 * N;
        d.mass = d0.mass + 3 * N;
        d.min = d0.mass + 4 * N;
        d.max = d0.mass + 5 * N;
        rc = diagnose(s, &d0);
    }
    if (!rc) {
        log_step(s, &d0, MU_LOG_INFO);
        rc = write_fields(s);
    }
    if (!rc && s->step == 0) rc = plot_at(s, "start");
    mu_timer_end("advect: setup");
    int stopped = 0;
    if (!rc) rc = run_steps(app, s, &d, &stopped);
    if (!rc && stopped) {
        app->exit_status = 3;
        mu_summary_result_str("status", "stopped by a signal after its checkpoint");
    }
    mu_timer_begin("advect: finish");
    if (!rc && !stopped) rc = run_finish(app, s, &d0, &d);
    mu_timer_end("advect: finish");
    if (s->gpu) report_gpu(s);
    free(d0.mass);
    adv_state_close(s);
    return rc;
}
