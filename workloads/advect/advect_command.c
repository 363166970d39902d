/* `mutirao advect`: options and their checks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "advect/advect.h"
#include "core/error.h"
#include "core/log.h"
#include "core/output.h"

/* The options, one row each (name, type, default, choices, help): advect/options.def. */
static const mu_opt_spec advect_opts[] = {
#include "advect/options.def"
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
    /* Multiplied with overflow checks: the cells, and a float of each field and cell. */
    int64_t cells = 0, values = 0;
    if (__builtin_mul_overflow(c->n[0] * c->n[1], c->n[2], &cells) ||
        __builtin_mul_overflow(cells, nf, &values) || values > INT64_MAX / 16)
        return mu_error("--nx=%lld --ny=%lld --nz=%lld --fields=%lld: the grid's size overflows "
                        "int64 (at most 2^59 cells x fields)",
                        (long long)c->n[0], (long long)c->n[1], (long long)c->n[2], (long long)nf);
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
    MU_TRY(mu_opt_checkpoint(o, &c->checkpoint, &c->checkpoint_every, &c->restart));
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

/* Every output is writable before any work (rank 0), gnuplot runs if a plot is
 * asked, and a build without parallel HDF5 says that it writes no fields. */
static int check_outputs(const void *cfg) {
    const adv_cfg *c = cfg;
    if (c->output) MU_TRY(mu_output_check(c->output));
    if (c->dump) MU_TRY(mu_output_check(c->dump));
    if (c->checkpoint) MU_TRY(mu_output_check(c->checkpoint));
    /* The field files of every output step (and the XDMF beside each HDF5
     * file), as run.c names them: refused now, not after the steps before. */
    for (int i = 0; i < c->n_output_steps; i++)
        for (int k = 0; k < 3; k++) {
            const char *prefix = k == 2 ? c->nc : c->h5, *ext = k == 0   ? "h5"
                                                                : k == 1 ? "xmf"
                                                                         : "nc";
            char path[1200];
            if (!prefix) continue;
            if (snprintf(path, sizeof path, "%s%06lld.%s", prefix, (long long)c->output_steps[i],
                         ext) >= (int)sizeof path)
                return mu_error("--%s=%s: the name is too long", k == 2 ? "nc" : "h5", prefix);
            MU_TRY(mu_output_check(path));
        }
    if (c->plot) {
        char path[1200];
        snprintf(path, sizeof path, "%sstart.png", c->plot);
        MU_TRY(mu_output_check(path));
        MU_TRY(adv_plot_check());
    }
    if (!adv_hdf5_write) mu_info("advect: built without parallel HDF5: no field output");
    return 0;
}

static int advect_run(mu_app *app) {
    adv_cfg cfg;
    int rc = read_cfg(app->opts, &cfg);
    rc = mu_output_check_collective(app->comm, app->rank, rc, check_outputs, &cfg);
    if (!rc) rc = adv_run(app, &cfg);
    free(cfg.output_steps);
    return rc;
}

const mu_command mu_cmd_advect = {
    "advect", "3-D monotone Walcek advection: dataflow streams, Cartesian blocks with halos",
    advect_opts, advect_run};
