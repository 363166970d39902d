/* `mutirao scenarios`: options and their checks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scenarios/scenarios.h"
#include "core/error.h"
#include "core/output.h"

/* The options, one row each (name, type, default, choices, help): scenarios/options.def. */
static const mu_opt_spec sc_opts[] = {
#include "scenarios/options.def"
    MU_OPT_END};

static int parse_tree(const char *text, mu_sc_cfg *c) {
    const char *p = text;
    int n = 0, vals[66];
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        /* At most 63 stages: the tree's stage_first[65] holds nstages + 2 offsets. */
        if (end == p || v < 1 || v > 1000000 || n == 64)
            return mu_error("--tree=%s: expected positive integers separated by commas, e.g. "
                            "1,30,200 (at most 63 stages)",
                            text);
        vals[n++] = (int)v;
        p = end;
        if (*p == ',')
            p++;
        else if (*p)
            return mu_error("--tree=%s: expected positive integers separated by commas", text);
    }
    if (n < 2 || vals[0] != 1)
        return mu_error("--tree=%s: starts with 1 (the root) and has at least one stage, e.g. "
                        "1,30,200",
                        text);
    c->nstages = n - 1;
    for (int i = 1; i < n; i++) c->open[i - 1] = vals[i];
    return 0;
}

/* --mode=openings and its K (at most M: c->m is read). */
static int read_openings(const mu_opts *o, mu_sc_cfg *c) {
    c->openings = 0;
    if (!mu_opt_is(o, "mode", "openings"))
        return mu_opt_set(o, "openings") ? mu_error("--openings goes with --mode=openings") : 0;
    int64_t k = mu_opt_int(o, "openings");
    if (k < 1 || k > c->m)
        return mu_error("--openings=%lld: must be 1..M (--m=%d)", (long long)k, c->m);
    c->openings = (int)k;
    return 0;
}

int mu_sc_read_cfg(const mu_opts *o, int given, mu_sc_cfg *c) {
    memset(c, 0, sizeof *c);
    c->input = mu_opt_str(o, "input");
    if (given && c->input) return mu_error("--input: the record is given");
    if (!given && !c->input)
        return mu_error("no input: give --input=FILE (CSV year,month,<station>,...)");
    c->sel.stations = mu_opt_str(o, "stations");
    c->sel.skip_zero = mu_opt_flag(o, "skip-zero");
    int64_t ns = mu_opt_int(o, "nstations"), my;
    if (ns < 0 || ns > 1024) return mu_error("--nstations=%lld: must be 0..1024", (long long)ns);
    MU_TRY(mu_opt_int_in(o, "min-years", 3, 100000, &my));
    c->sel.nstations = (int)ns;
    c->sel.min_years = (int)my;
    int64_t pmax = mu_opt_int(o, "pmax");
    if (pmax < 1 || pmax > 12) return mu_error("--pmax=%lld: must be 1..12", (long long)pmax);
    c->fit.pmax = (int)pmax;
    c->fit.pacf_conf = mu_opt_real(o, "pacf-conf");
    if (!(c->fit.pacf_conf >= 0) || !isfinite(c->fit.pacf_conf))
        return mu_error("--pacf-conf must be >= 0");
    c->fit.sd_n1 = mu_opt_is(o, "sd-denominator", "n-1");
    c->fit.acf_pairs = mu_opt_is(o, "acf-denominator", "pairs");
    c->fit.drop_dependent = mu_opt_flag(o, "drop-dependent");
    const char *start = mu_opt_str(o, "start");
    if (start) {
        int y, m;
        char tail;
        if (sscanf(start, "%d-%d%c", &y, &m, &tail) != 2 || m < 1 || m > 12 || y < 1)
            return mu_error("--start=%s: expected YYYY-MM", start);
        c->start_year = y;
        c->start_month = m - 1;
    }
    c->tree_text = mu_opt_str(o, "tree");
    MU_TRY(parse_tree(c->tree_text, c));
    int64_t m = mu_opt_int(o, "m");
    if (m < 2 || m > 100000000) return mu_error("--m=%lld: must be 2..10^8", (long long)m);
    c->m = (int)m;
    c->seed = (uint64_t)mu_opt_int(o, "seed");
    c->method = mu_opt_is(o, "method", "hw") ? MU_AGG_HARTIGAN_WONG : MU_AGG_VERSION2;
    c->rep = (mu_sc_rep)mu_sc_rep_parse(mu_opt_str(o, "representative"));
    c->split = mu_opt_is(o, "split", "on") ? 1 : mu_opt_is(o, "split", "off") ? 0 : 2;
    int64_t th = mu_opt_int(o, "threads");
    if (th < 0 || th > 1024)
        return mu_error("--threads=%lld: must be 0 (auto) to 1024", (long long)th);
    c->threads = (int)th;
    int64_t it = mu_opt_int(o, "max-it");
    if (it < 1 || it > 100000) return mu_error("--max-it must be 1..100000");
    c->max_iter = (int)it;
    c->comb = mu_opt_is(o, "mode", "comb");
    MU_TRY(read_openings(o, c));
    c->corr_lognormal = mu_opt_is(o, "corr", "lognormal");
    if (c->comb && c->corr_lognormal)
        return mu_error("--corr=lognormal goes with --mode=tree (a comb series has its own "
                        "lognormal parameters at every step)");
    c->series = mu_opt_int(o, "series");
    int64_t hz = mu_opt_int(o, "horizon");
    if (c->series < 1) return mu_error("--series must be at least 1");
    if (hz < 1 || hz > 1200) return mu_error("--horizon must be 1..1200");
    c->horizon = (int)hz;
    if (!c->comb && mu_opt_set(o, "series")) return mu_error("--series goes with --mode=comb");
    if (!c->comb && !c->openings && mu_opt_set(o, "horizon"))
        return mu_error("--horizon goes with --mode=comb or --mode=openings");
    if ((c->comb || c->openings) && mu_opt_set(o, "tree"))
        return mu_error("--tree goes with --mode=tree");
    c->delta_min = mu_opt_real(o, "delta-min");
    if (!(c->delta_min > 0) || !isfinite(c->delta_min))
        return mu_error("--delta-min must be positive");
    c->stats_series = mu_opt_int(o, "stats-series");
    int64_t sy = mu_opt_int(o, "stats-years");
    if (c->stats_series < 0) return mu_error("--stats-series must be >= 0");
    if (sy < 1 || sy > 1000) return mu_error("--stats-years must be 1..1000");
    c->stats_years = (int)sy;
    c->out_csv = mu_opt_str(o, "output");
    c->out_json = mu_opt_str(o, "output-json");
    c->model_json = mu_opt_str(o, "model");
    c->stats_path = mu_opt_str(o, "stats");
    c->plot = mu_opt_str(o, "plot");
    int64_t ps = mu_opt_int(o, "plot-stations");
    if (ps < 1 || ps > 12) return mu_error("--plot-stations must be 1..12");
    c->plot_stations = (int)ps;
    c->node_scenarios = mu_opt_str(o, "node-scenarios");
    if (c->comb && (c->out_json || c->plot || c->node_scenarios || mu_opt_set(o, "representative")))
        return mu_error("--output-json, --plot, --node-scenarios and --representative are for "
                        "the tree (--mode=tree)");
    if (c->openings && (c->out_json || c->plot || c->node_scenarios))
        return mu_error(
            "--output-json, --plot and --node-scenarios are for the tree (--mode=tree)");
    MU_TRY(mu_opt_checkpoint(o, &c->checkpoint, &c->checkpoint_every, &c->restart));
    if (!c->checkpoint) return mu_error("--checkpoint needs a file name");
    if ((c->comb || c->openings) && (c->restart || c->checkpoint_every > 0))
        return mu_error("--restart and --checkpoint-every go with --mode=tree");
    if (c->restart && c->node_scenarios)
        return mu_error("--node-scenarios needs the whole tree built in one run (not --restart)");
    if (c->stats_path && c->stats_series == 0) return mu_error("--stats needs --stats-series > 0");
    return 0;
}

/* Every output is writable before any work (rank 0), and gnuplot runs if a plot is asked. */
static int check_outputs(const void *cfg) {
    const mu_sc_cfg *c = cfg;
    const char *paths[] = {c->out_csv,    c->out_json, c->model_json,
                           c->stats_path, c->plot,     c->node_scenarios};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        if (paths[i]) MU_TRY(mu_output_check(paths[i]));
    if (c->plot) MU_TRY(mu_sc_plot_check());
    if (!c->comb && !c->openings && (c->checkpoint_every > 0 || c->restart))
        MU_TRY(mu_output_check(c->checkpoint));
    return 0;
}

static int scenarios_run(mu_app *app) {
    mu_sc_cfg cfg;
    int rc = mu_sc_read_cfg(app->opts, 0, &cfg);
    MU_TRY(mu_output_check_collective(app->comm, app->rank, rc, check_outputs, &cfg));
    return mu_sc_run(app, &cfg);
}

const mu_command mu_cmd_scenarios = {
    "scenarios",
    "PAR(p) inflow scenarios: fit, lognormal generation, k-means tree (GEVAZP) or comb", sc_opts,
    scenarios_run};
