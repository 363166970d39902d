/* bench_advect: the GPU path of `mutirao advect` on one GPU (issue 5, Benchmarks).
 *
 *  (a) copy bandwidths measured in this run: device to device (bytes read +
 *      written, bench_util) and host to device / device to host from the
 *      fields' own (pageable) host buffer;
 *  (b) the study's case, 22 fields x 38 x 336 x 336, one step (X, Y, Z sweeps),
 *      both schedules: the fields up, the step, the fields down, with the split
 *      kernels / host-device copies (end fluxes, a few numbers) / host work.
 *      The fields, winds (steady part uploaded on the first step) and Walcek
 *      densities stay on the device through the step, so the headline is the
 *      resident step time against the device floor (each sweep reads and
 *      writes the fields and the face fluxes once: 3 x 2 x (fields + fluxes)
 *      bytes over the D2D bandwidth): the goal is 1.3x. Also the
 *      kernels alone against that floor, and the end to end (up + step +
 *      down) against the device floor plus the transfer floor (the fields up
 *      and down over the measured H2D / D2H bandwidths);
 *  (c) N = 1 ... 60 fields on 168 x 168 x 38 and (d) X = Y = 42 ... 336 with
 *      N = 10, Z = 38, each with the kernel / transfer / total split.
 * (b) also runs the lines schedule with MUTIRAO_ADV_AHEAD=0 (the chain walks
 * without loading the next cell's inputs ahead) and MUTIRAO_ADV_ZERO=1 (the
 * walks' zero paths on) unless those variables are set,
 * and both schedules with MUTIRAO_ADV_SIDE=0 (the sweeps' winds and densities
 * on the main stream, not beside the chains) unless that one is.
 * Every case runs one warm-up step first, then --reps measured steps (median),
 * each from the initial fields put on the device just before it (so the GPU
 * idles through the copies between steps). (b) then also runs --steady steps
 * back to back from there, as `mutirao advect` steps (each ending with its
 * one wait), and gives their mean: the time a step takes in a run.
 * The wind is LeVeque's swirl with a vertical wind, open borders, dt at
 * Courant 0.9 (the study's winds are not published).
 *
 * Options: --reps=3 --steady=20 --background=B (that one only; default 0 and 1)
 *          --fields=N (the paper case with N fields; default 22)
 *          --schedule=both|lines|dataflow --no-sweeps
 * Run: mpiexec -n 1 perf/bench_advect (one rank, one GPU). */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advect/advect.h"
#include "core/error.h"
#include "core/log.h"
#include "gpu/gpu.h"
#include "bench_util.h"

static double h2d_bw, d2h_bw, d2d_bw;
/* --fields=N: the paper case with N fields (default 22, the study's) */
static int paper_nf = 22;

static void host_bandwidth(void) {
    size_t bytes = (size_t)512 << 20;
    char *h = malloc(bytes);
    void *d = NULL;
    CK(cudaMalloc(&d, bytes));
    memset(h, 1, bytes);
    double t[5], u[5];
    for (int r = 0; r < 5; r++) {
        double t0 = bench_now();
        CK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
        double t1 = bench_now();
        CK(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
        t[r] = t1 - t0;
        u[r] = bench_now() - t1;
    }
    h2d_bw = (double)bytes / bench_median(t, 5);
    d2h_bw = (double)bytes / bench_median(u, 5);
    CK(cudaFree(d));
    free(h);
}

typedef struct {
    double up, step, kernel, copies, host, down, total;
    double axis[3]; /* the X, Y, Z sweeps on the device (events; the first has the launch gap) */
    double steady;  /* the mean of the back-to-back steps (0: none run) */
} one;

static int run_case(int64_t nx, int64_t nz, int nf, int schedule, int reps, int steady, double bg,
                    one *out) {
    adv_cfg c;
    memset(&c, 0, sizeof c);
    c.n[0] = c.n[1] = nx;
    c.n[2] = nz;
    c.nf = nf;
    c.len[0] = c.len[1] = c.len[2] = 1;
    c.wind = ADV_WIND_SWIRL;
    c.u0[2] = 0.2;
    c.period = 1;
    c.init = ADV_INIT_COSINE;
    c.init_3d = 1;
    for (int k = 0; k < 3; k++) c.center[k] = 0.5;
    c.radius = 0.25;
    c.amp = 1;
    c.background = bg;
    c.schedule = schedule;
    c.dt = 0.9 * (1.0 / (double)(nx > nz ? nx : nz));
    c.steps = reps + 1 + steady;
    adv_state s;
    if (adv_state_open(&s, &c, MPI_COMM_WORLD)) return 1;
    int rc = adv_gpu_open(&s);
    double up[16], step[16], kern[16], cop[16], down[16], ax[3][16];
    for (int r = 0; !rc && r <= reps && r < 16; r++) {
        double k0, c0, b0, k1, c1, b1;
        double t0 = bench_now();
        rc = mu_gpu_adv_put(s.gpu, s.q);
        double t1 = bench_now();
        mu_gpu_adv_times(s.gpu, &k0, &c0, &b0);
        /* step r from the initial fields: the winds of step r, and the next step's first
         * sweep queued ahead as in a run */
        if (!rc) rc = adv_step(&s, r);
        mu_gpu_adv_times(s.gpu, &k1, &c1, &b1);
        double t2 = bench_now(), sw[3];
        if (!rc && mu_gpu_adv_sweep_times(s.gpu, sw)) /* the device's, from events */
            rc = mu_error("advect sweep times: %s", mu_gpu_error());
        if (!rc && r > 0)
            for (int a = 0; a < 3; a++) ax[a][r - 1] = sw[a];
        if (!rc) rc = mu_gpu_adv_get(s.gpu, s.qn); /* into the spare host copy */
        double t3 = bench_now();
        if (r > 0) {
            up[r - 1] = t1 - t0;
            step[r - 1] = t2 - t1;
            kern[r - 1] = k1 - k0;
            cop[r - 1] = c1 - c0;
            down[r - 1] = t3 - t2;
        }
    }
    out->steady = 0;
    if (!rc && steady > 0) { /* on from the last measured step's fields */
        double t0 = bench_now();
        for (int k = 0; !rc && k < steady; k++) rc = adv_step(&s, reps + 1 + k);
        out->steady = (bench_now() - t0) / steady;
    }
    if (rc) fprintf(stderr, "bench_advect: %s\n", mu_error_message());
    int n = reps < 15 ? reps : 15;
    if (!rc) {
        out->up = bench_median(up, n);
        out->step = bench_median(step, n);
        out->kernel = bench_median(kern, n);
        out->copies = bench_median(cop, n);
        out->host = out->step - out->kernel - out->copies;
        out->down = bench_median(down, n);
        out->total = out->up + out->step + out->down;
        for (int a = 0; a < 3; a++) out->axis[a] = bench_median(ax[a], n);
    }
    adv_state_close(&s);
    return rc;
}

static const char *sched_name(int s) {
    return s == ADV_SCHED_DATAFLOW ? "dataflow" : "lines";
}

static void header(void) {
    printf("%-9s %4s %5s %4s %9s %9s %9s %9s %9s %9s %9s\n", "schedule", "N", "X=Y", "Z", "up s",
           "step s", "kernel s", "copies s", "host s", "down s", "total s");
}

static void row(int sched, int nf, int64_t nx, int64_t nz, const one *o) {
    printf("%-9s %4d %5lld %4lld %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f\n", sched_name(sched),
           nf, (long long)nx, (long long)nz, o->up, o->step, o->kernel, o->copies, o->host, o->down,
           o->total);
}

/* The paper's case again with the variable `var` = `val` (a variant of the
 * GPU step that gives the same results), one line of its figures. */
static void variant(const char *var, const char *val, const char *what, int sc, int reps,
                    int steady, double bg, double dev_floor) {
    setenv(var, val, 1);
    one p;
    int bad = run_case(336, 38, paper_nf, sc, reps, steady, bg, &p);
    unsetenv(var);
    if (!bad)
        printf("          %s=%s (%s): step %.3f ms (%.3fx the floor), sweeps X %.3f ms, Y "
               "%.3f ms, Z %.3f ms; back to back %.3f ms (%.3fx)\n",
               var, val, what, 1e3 * p.step, p.step / dev_floor, 1e3 * p.axis[0], 1e3 * p.axis[1],
               1e3 * p.axis[2], 1e3 * p.steady, p.steady / dev_floor);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    mu_log_init(0, 1);
    mu_log_set_level("warn");
    int reps = 3, steady = 20, sweeps = 1, which = 3;
    double only_bg = -1; /* --background=B: that background only */
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--reps=", 7))
            reps = atoi(argv[i] + 7);
        else if (!strncmp(argv[i], "--steady=", 9))
            steady = atoi(argv[i] + 9);
        else if (!strncmp(argv[i], "--fields=", 9))
            paper_nf = atoi(argv[i] + 9);
        else if (!strncmp(argv[i], "--background=", 13))
            only_bg = atof(argv[i] + 13);
        else if (!strcmp(argv[i], "--no-sweeps"))
            sweeps = 0;
        else if (!strcmp(argv[i], "--schedule=lines"))
            which = 1;
        else if (!strcmp(argv[i], "--schedule=dataflow"))
            which = 2;
    }
    if (reps < 1) reps = 1;
    if (mu_gpu_device_count() < 1) {
        fprintf(stderr, "bench_advect: no CUDA device\n");
        MPI_Finalize();
        return 77;
    }
    mu_gpu_info info;
    if (mu_gpu_select(0, &info)) {
        fprintf(stderr, "bench_advect: %s\n", mu_gpu_error());
        MPI_Finalize();
        return 1;
    }
    double med;
    d2d_bw = bench_copy_bandwidth(10, &med);
    host_bandwidth();
    printf("bench_advect: %s (cc %d.%d, %d SMs)\n", info.name, info.cc_major, info.cc_minor,
           info.sm_count);
    printf("copy bandwidth: D2D %.1f GB/s (read + write), H2D %.1f GB/s, D2H %.1f GB/s "
           "(pageable)\n",
           d2d_bw / 1e9, h2d_bw / 1e9, d2h_bw / 1e9);

    /* (b) the study's case */
    int64_t cells = 336LL * 336 * 38;
    double fields = 4.0 * paper_nf * (double)cells, fluxes = 4.0 * paper_nf * (double)cells;
    double dev_floor = 3 * 2 * (fields + fluxes) / d2d_bw;
    double xfer_floor = fields / h2d_bw + fields / d2h_bw;
    printf("\n(b) %d fields x 38 x 336 x 336, one step: fields %.0f MB; device floor %.5f s "
           "(3 sweeps x read+write of fields and fluxes), transfer floor %.4f s (fields up and "
           "down)\n",
           paper_nf, fields / 1e6, dev_floor, xfer_floor);
    /* The cosine bells on a zero background leave most cells 0 (the walks
     * take those stretches wide); on a background of 1 every cell carries
     * mass, as atmospheric tracers do: both are reported. */
    double bgs[2] = {0.0, 1.0};
    if (only_bg >= 0) bgs[0] = only_bg;
    for (int bi = 0; bi < (only_bg >= 0 ? 1 : 2); bi++) {
        printf("  initial fields: cosine bells on a background of %g%s\n", bgs[bi],
               bgs[bi] == 0 ? " (most cells 0)" : " (every cell nonzero)");
        header();
        for (int sc = 0; sc < 2; sc++) {
            if (!(which & (1 << sc))) continue;
            one o;
            if (run_case(336, 38, paper_nf, sc, reps, steady, bgs[bi], &o)) {
                MPI_Finalize();
                return 1;
            }
            row(sc, paper_nf, 336, 38, &o);
            printf("          first step (resident) %.3f ms / device floor %.3fx; kernels / "
                   "device floor %.3fx; end to end / (device + transfer floor) %.2fx; the "
                   "study: 0.74 s per step on a C2050\n",
                   1e3 * o.step, o.step / dev_floor, o.kernel / dev_floor,
                   o.total / (dev_floor + xfer_floor));
            printf("          sweeps X %.3f ms, Y %.3f ms, Z %.3f ms (the study's Table 4 on a "
                   "C2050: 102.6, 103.7, 99.8 ms)\n",
                   1e3 * o.axis[0], 1e3 * o.axis[1], 1e3 * o.axis[2]);
            if (o.steady > 0)
                printf("          back to back (%d steps, as in a run): %.3f ms a step / device "
                       "floor %.3fx (goal 1.3x)\n",
                       steady, 1e3 * o.steady, o.steady / dev_floor);
            if (bi == 0 && !getenv("MUTIRAO_ADV_SIDE")) /* winds and densities not beside */
                variant("MUTIRAO_ADV_SIDE", "0", "winds on the main stream", sc, reps, steady,
                        bgs[bi], dev_floor);
            if (bi == 0 && sc == ADV_SCHED_LINES && !getenv("MUTIRAO_ADV_AHEAD"))
                variant("MUTIRAO_ADV_AHEAD", "0", "no loads a cell ahead", sc, reps, steady,
                        bgs[bi], dev_floor);
            if (sc == ADV_SCHED_LINES && !getenv("MUTIRAO_ADV_ZERO")) /* the zero paths on */
                variant("MUTIRAO_ADV_ZERO", "1", "the walks skip zero cells", sc, reps, steady,
                        bgs[bi], dev_floor);
        }
    }
    if (sweeps) {
        printf("\n(c) N = 1 ... 60 fields on 168 x 168 x 38, one step\n");
        header();
        static const int ns[] = {1, 5, 10, 20, 30, 40, 50, 60};
        for (int sc = 0; sc < 2; sc++) {
            if (!(which & (1 << sc))) continue;
            for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
                one o;
                if (run_case(168, 38, ns[i], sc, reps, 0, 0.0, &o)) break;
                row(sc, ns[i], 168, 38, &o);
            }
        }
        printf("\n(d) X = Y = 42 ... 336, N = 10, Z = 38, one step\n");
        header();
        static const int64_t xs[] = {42, 84, 168, 336};
        for (int sc = 0; sc < 2; sc++) {
            if (!(which & (1 << sc))) continue;
            for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
                one o;
                if (run_case(xs[i], 38, 10, sc, reps, 0, 0.0, &o)) break;
                row(sc, 10, xs[i], 38, &o);
            }
        }
    }
    MPI_Finalize();
    return 0;
}
