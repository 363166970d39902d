/* `mutirao advect`: options and their checks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "advect/advect.h"
#include "core/error.h"
#include "core/log.h"
#include "core/output.h"

static const mu_opt_spec advect_opts[] = {
    {"nx", MU_OPT_INT, "64", 0, "cells along X"},
    {"ny", MU_OPT_INT, "64", 0, "cells along Y"},
    {"nz", MU_OPT_INT, "4", 0, "cells along Z (levels, kept on each rank)"},
    {"fields", MU_OPT_INT, "1", 0, "number of advected fields N (species)"},
    {"lx", MU_OPT_REAL, "1", 0, "domain length along X"},
    {"ly", MU_OPT_REAL, "1", 0, "domain length along Y"},
    {"lz", MU_OPT_REAL, "1", 0, "domain length along Z"},
    {"dt", MU_OPT_REAL, "", 0, "time step (unset: --courant over the largest wind speed)"},
    {"courant", MU_OPT_REAL, "0.5", 0, "with dt unset: the target largest Courant number"},
    {"steps", MU_OPT_INT, "", 0,
     "time steps (unset: one period of the wind, --period over dt, which must divide)"},
    {"bc", MU_OPT_CHOICE, "periodic", "periodic|open",
     "X and Y boundaries: periodic, or open (fixed border cells, upstream inflow)"},
    {"bc-z", MU_OPT_CHOICE, "open", "periodic|open", "Z boundaries"},
    {"wind", MU_OPT_CHOICE, "constant", "constant|rotation|swirl|divergent|file",
     "constant (--u, --v, --w), solid-body rotation about the domain centre, LeVeque's swirling "
     "deformation (reverses at --period/2), a divergent 3-D test wind, or --wind-file"},
    {"u", MU_OPT_REAL, "1", 0, "constant wind along X (divergent: its amplitude)"},
    {"v", MU_OPT_REAL, "0", 0, "constant wind along Y"},
    {"w", MU_OPT_REAL, "0", 0, "constant wind along Z (also with rotation and swirl)"},
    {"period", MU_OPT_REAL, "1", 0, "rotation: time of one revolution; swirl: the period T"},
    {"wind-file", MU_OPT_PATH, "", 0,
     "float32 u, v, w on the right faces of nz x nx x ny cells (z fastest), fixed in time"},
    {"init", MU_OPT_CHOICE, "gaussian", "gaussian|cosine|square|cone|uniform|file",
     "initial fields: field f is background + amp (1 + f/2) shape"},
    {"init-file", MU_OPT_PATH, "", 0,
     "float32 fields, N fastest, then z, x, y (the study's layout)"},
    {"cx", MU_OPT_REAL, "", 0, "shape centre along X (unset: the middle)"},
    {"cy", MU_OPT_REAL, "", 0, "shape centre along Y (unset: the middle)"},
    {"cz", MU_OPT_REAL, "", 0, "shape centre along Z (unset: the middle)"},
    {"radius", MU_OPT_REAL, "0.15", 0,
     "shape radius (Gaussian: its standard deviation), in units of lx"},
    {"amp", MU_OPT_REAL, "1", 0, "shape amplitude"},
    {"background", MU_OPT_REAL, "0", 0, "value outside the shape"},
    {"init-3d", MU_OPT_FLAG, "0", 0, "the shape depends on z too (default: on x and y only)"},
    {"density", MU_OPT_CHOICE, "uniform", "uniform|stratified",
     "air density: 1, or exp(-z / --scale-height)"},
    {"scale-height", MU_OPT_REAL, "0.5", 0, "stratified density scale height"},
    {"schedule", MU_OPT_CHOICE, "lines", "lines|dataflow",
     "lines: each (field, line) through the forward and backward loops; dataflow: cells "
     "classified A-F per step, streams as independent tasks, inflow-only cells after (the "
     "same bits)"},
    {"pf", MU_OPT_INT, "0", 0,
     "field groups: the ranks split the fields into pf groups, each group's ranks into "
     "px x py X-Y blocks; pf x px x py = ranks (0: as many groups as fit, blocks only where "
     "a group does not fit a rank's memory or ranks outnumber fields)"},
    {"px", MU_OPT_INT, "0", 0, "ranks along X in a field group (0: MPI_Dims_create chooses)"},
    {"py", MU_OPT_INT, "0", 0, "ranks along Y in a field group (0: MPI_Dims_create chooses)"},
    {"dump", MU_OPT_PATH, "", 0, "write the final fields as raw float32 (global layout)"},
    MU_OPT_CHECKPOINT("", "steps"),
    {"log-every", MU_OPT_INT, "0", 0, "steps between info log lines (0: about 10 lines)"},
    MU_OPT_OUTPUT(
        "the answer as CSV: per field the mass at the start and end, its relative change, min, "
        "max, and the L1/L2/Linf errors against the initial field"),
    {"h5", MU_OPT_PATH, "", 0,
     "HDF5 file prefix for --output-steps: PREFIX<step>.h5 (parallel HDF5)"},
    {"nc", MU_OPT_PATH, "", 0,
     "NetCDF-CF file prefix for --output-steps: PREFIX<step>.nc (through rank 0)"},
    {"output-steps", MU_OPT_STRING, "", 0, "steps to write, e.g. 0,10,20 (with --h5 or --nc)"},
    MU_OPT_PLOT(
        "PNG prefix: PREFIXstart.png and PREFIXend.png, field 0 on the middle level (gnuplot)"),
    MU_OPT_END};

static int choice(const mu_opts *o, const char *name, const char *list) {
    const char *v = mu_opt_str(o, name);
    int k = 0;
    for (const char *p = list; *p; k++) {
        size_t len = strcspn(p, "|");
        if (strlen(v) == len && !strncmp(v, p, len)) return k;
        p += len + (p[len] == '|');
    }
    return -1;
}

static int parse_steps(const char *text, adv_cfg *c) {
    int count = 1;
    for (const char *p = text; *p; p++) count += *p == ',';
    c->output_steps = malloc((size_t)count * sizeof *c->output_steps);
    if (!c->output_steps) return mu_error("out of memory");
    const char *p = text;
    for (int i = 0; i < count; i++) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p || (*end && *end != ',') || v < 0 || v > c->steps)
            return mu_error("--output-steps=%s: want step numbers 0..%lld separated by commas",
                            text, (long long)c->steps);
        c->output_steps[i] = v;
        p = *end ? end + 1 : end;
    }
    c->n_output_steps = count;
    return 0;
}

static double max_speed(const adv_cfg *c) {
    switch (c->wind) {
    case ADV_WIND_ROTATION: {
        double om = 2 * ADV_PI / c->period;
        double a = om * 0.5 * c->len[0], b = om * 0.5 * c->len[1];
        return fmax(fmax(a, b), fabs(c->u0[2]));
    }
    case ADV_WIND_SWIRL:
        return fmax(fmax(1.0, c->len[1] / c->len[0]), fabs(c->u0[2]));
    case ADV_WIND_DIVERGENT:
        return 1.5 * fabs(c->u0[0]);
    default:
        return fmax(fabs(c->u0[0]), fmax(fabs(c->u0[1]), fabs(c->u0[2])));
    }
}

static int read_cfg(const mu_opts *o, adv_cfg *c) {
    memset(c, 0, sizeof *c);
    static const char *const nn[3] = {"nx", "ny", "nz"}, *const ll[3] = {"lx", "ly", "lz"};
    for (int k = 0; k < 3; k++) {
        c->n[k] = mu_opt_int(o, nn[k]);
        if (c->n[k] < 3 || c->n[k] > 1 << 20)
            return mu_error("--%s=%lld: must be 3..2^20", nn[k], (long long)c->n[k]);
        c->len[k] = mu_opt_real(o, ll[k]);
        if (!(c->len[k] > 0) || !isfinite(c->len[k]))
            return mu_error("--%s must be positive", ll[k]);
    }
    int64_t nf = mu_opt_int(o, "fields");
    if (nf < 1 || nf > 4096) return mu_error("--fields=%lld: must be 1..4096", (long long)nf);
    c->nf = (int)nf;
    c->periodic[0] = c->periodic[1] = mu_opt_is(o, "bc", "periodic");
    c->periodic[2] = mu_opt_is(o, "bc-z", "periodic");
    c->wind = choice(o, "wind", "constant|rotation|swirl|divergent|file");
    c->u0[0] = mu_opt_real(o, "u");
    c->u0[1] = mu_opt_real(o, "v");
    c->u0[2] = mu_opt_real(o, "w");
    c->period = mu_opt_real(o, "period");
    if (!(c->period > 0)) return mu_error("--period must be positive");
    c->wind_file = mu_opt_str(o, "wind-file");
    if ((c->wind == ADV_WIND_FILE) != (c->wind_file != NULL))
        return mu_error(c->wind_file ? "--wind-file goes with --wind=file"
                                     : "--wind=file needs --wind-file=FILE");
    c->init = choice(o, "init", "gaussian|cosine|square|cone|uniform|file");
    c->init_file = mu_opt_str(o, "init-file");
    if ((c->init == ADV_INIT_FILE) != (c->init_file != NULL))
        return mu_error(c->init_file ? "--init-file goes with --init=file"
                                     : "--init=file needs --init-file=FILE");
    static const char *const cc[3] = {"cx", "cy", "cz"};
    for (int k = 0; k < 3; k++)
        c->center[k] = mu_opt_set(o, cc[k]) ? mu_opt_real(o, cc[k]) : 0.5 * c->len[k];
    c->radius = mu_opt_real(o, "radius") * c->len[0];
    if (!(c->radius > 0)) return mu_error("--radius must be positive");
    c->amp = mu_opt_real(o, "amp");
    c->background = mu_opt_real(o, "background");
    c->init_3d = mu_opt_flag(o, "init-3d");
    c->stratified = mu_opt_is(o, "density", "stratified");
    c->scale_height = mu_opt_real(o, "scale-height");
    if (!(c->scale_height > 0)) return mu_error("--scale-height must be positive");
    c->schedule = mu_opt_is(o, "schedule", "dataflow") ? ADV_SCHED_DATAFLOW : ADV_SCHED_LINES;
    int64_t px = mu_opt_int(o, "px"), py = mu_opt_int(o, "py");
    if (px < 0 || py < 0 || px > 1 << 16 || py > 1 << 16)
        return mu_error("--px and --py must be 0..65536");
    c->pgrid[0] = (int)px;
    c->pgrid[1] = (int)py;
    int64_t pf = mu_opt_int(o, "pf");
    if (pf < 0 || pf > 4096) return mu_error("--pf=%lld: must be 0..4096", (long long)pf);
    c->pf = (int)pf;
    if (mu_opt_set(o, "dt")) {
        c->dt = mu_opt_real(o, "dt");
        if (!(c->dt > 0) || !isfinite(c->dt)) return mu_error("--dt must be positive");
    } else {
        double cr = mu_opt_real(o, "courant"), vmax = max_speed(c), dmin = INFINITY;
        if (!(cr > 0) || cr > 1) return mu_error("--courant must be in (0, 1]");
        if (c->wind == ADV_WIND_FILE) return mu_error("--wind=file needs --dt");
        for (int k = 0; k < 3; k++) dmin = fmin(dmin, c->len[k] / (double)c->n[k]);
        if (!(vmax > 0)) return mu_error("the wind is zero: give --dt");
        c->dt = cr * dmin / vmax;
        /* A whole number of steps per period, so that the run returns to its start. */
        double per =
            c->wind == ADV_WIND_CONSTANT ? c->len[0] / fmax(fabs(c->u0[0]), 1e-300) : c->period;
        if (c->wind == ADV_WIND_CONSTANT && c->u0[0] == 0) per = c->period;
        double k = ceil(per / c->dt - 1e-9);
        c->dt = per / k;
    }
    if (mu_opt_set(o, "steps")) {
        c->steps = mu_opt_int(o, "steps");
        if (c->steps < 0) return mu_error("--steps must be >= 0");
    } else {
        double per =
            c->wind == ADV_WIND_CONSTANT && c->u0[0] != 0 ? c->len[0] / fabs(c->u0[0]) : c->period;
        double k = per / c->dt;
        if (fabs(k - floor(k + 0.5)) > 1e-6 * k)
            return mu_error("--steps unset: one period (%g) is not a whole number of steps of "
                            "dt=%g; give --steps",
                            per, c->dt);
        c->steps = (int64_t)floor(k + 0.5);
    }
    c->dump = mu_opt_str(o, "dump");
    mu_ckpt_opts ck;
    MU_TRY(mu_opt_checkpoint(o, &ck));
    c->checkpoint = ck.file;
    c->checkpoint_every = ck.every;
    c->restart = ck.restart;
    c->log_every = mu_opt_int(o, "log-every");
    c->plot = mu_opt_str(o, "plot");
    c->output = mu_opt_str(o, "output");
    c->h5 = mu_opt_str(o, "h5");
    c->nc = mu_opt_str(o, "nc");
    const char *os = mu_opt_str(o, "output-steps");
    if (os && !c->h5 && !c->nc) return mu_error("--output-steps needs --h5=PREFIX or --nc=PREFIX");
    if ((c->h5 || c->nc) && !os)
        return mu_error("--%s needs --output-steps=LIST", c->h5 ? "h5" : "nc");
    if (c->h5 && !adv_hdf5_write)
        return mu_error("--h5: this build has no parallel HDF5 (install libhdf5-mpich-dev and "
                        "rebuild); no fields can be written");
    if (c->nc && !adv_netcdf_write)
        return mu_error("--nc: this build has no netCDF (install libnetcdf-dev and rebuild)");
    if (os) MU_TRY(parse_steps(os, c));
    return 0;
}

static int check_outputs(const adv_cfg *c) {
    if (c->output) MU_TRY(mu_output_check(c->output));
    if (c->dump) MU_TRY(mu_output_check(c->dump));
    if (c->checkpoint) MU_TRY(mu_output_check(c->checkpoint));
    if (c->plot) {
        char path[1200];
        snprintf(path, sizeof path, "%sstart.png", c->plot);
        MU_TRY(mu_output_check(path));
        MU_TRY(adv_plot_check());
    }
    return 0;
}

static int advect_run(mu_app *app) {
    adv_cfg cfg;
    int rc = read_cfg(app->opts, &cfg);
    if (!rc && app->rank == 0) rc = check_outputs(&cfg);
    if (!rc && !adv_hdf5_write) mu_info("advect: built without parallel HDF5: no field output");
    rc = mu_error_collective(app->comm, rc) ? 1 : adv_run(app, &cfg);
    free(cfg.output_steps);
    return rc;
}

const mu_command mu_cmd_advect = {
    "advect", "3-D monotone Walcek advection: dataflow streams, Cartesian blocks with halos",
    advect_opts, advect_run};
