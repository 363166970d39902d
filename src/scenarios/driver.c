/* `mutirao scenarios`: options and their checks. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scenarios/scenarios.h"
#include "core/error.h"
#include "core/output.h"

static const mu_opt_spec sc_opts[] = {
    MU_OPT_INPUT("historical monthly inflows: CSV year,month,<station>,... (whole years, m3/s)"),
    {"stations", MU_OPT_STRING, "all", 0, "stations to use: comma list of column names, or all"},
    {"skip-zero", MU_OPT_FLAG, "0", 0,
     "leave out stations with a zero month (artificial or diversion postos)"},
    {"nstations", MU_OPT_INT, "0", 0, "keep the first n stations after the above (0: all)"},
    {"drop-dependent", MU_OPT_FLAG, "0", 0,
     "leave out the stations whose residuals are linear combinations of others' (a "
     "non-positive-definite correlation) and fit again"},
    {"min-years", MU_OPT_INT, "10", 0, "shorter records are refused"},
    {"start", MU_OPT_STRING, "", 0,
     "first generated month YYYY-MM (default: the month after the record); the record "
     "before it is the history"},
    {"tree", MU_OPT_STRING, "1,30,200", 0,
     "tree shape: 1 (the root), then the openings K of each stochastic stage (one month each)"},
    {"m", MU_OPT_INT, "1024", 0, "scenarios generated per node (the study's M)"},
    {"pmax", MU_OPT_INT, "6", 0, "largest PAR order tried (Maceira and Bezerra 1997)"},
    {"pacf-conf", MU_OPT_REAL, "1.96", 0,
     "order = largest lag whose |partial autocorrelation| > this / sqrt(N)"},
    {"sd-denominator", MU_OPT_CHOICE, "n", "n|n-1", "monthly standard deviation over N or N-1"},
    {"acf-denominator", MU_OPT_CHOICE, "n", "n|pairs",
     "periodic autocorrelation over N (CEPEL) or over the pairs available"},
    MU_OPT_SEED("Philox seed: draws keyed by (seed, node, scenario, station)"),
    {"method", MU_OPT_CHOICE, "v2", "hw|v2",
     "aggregation: hw = Hartigan-Wong (AS 136), v2 = the study's Version 2"},
    MU_OPT_MAX_IT("50", "k-means iteration cap per node"),
    {"representative", MU_OPT_CHOICE, "centroid", "centroid|nearest|scaled",
     "a child's inflows: the group's mean in inflow units (keeps the node's sample mean), the "
     "member nearest the group's centroid (the study's; its means fall low with many "
     "stations), or the nearest members scaled per station to the node's mean"},
    {"split", MU_OPT_CHOICE, "auto", "auto|on|off",
     "a stage with fewer nodes than ranks: all ranks on each node's generation and k-means "
     "steps (on), the task farm (off), or on for CPU ranks only (auto)"},
    {"threads", MU_OPT_INT, "0", 0,
     "host threads per rank working on a stage's nodes side by side (each its own scratch "
     "and GPU stream); 0: OMP_NUM_THREADS, else the CPUs this rank may use shared by the "
     "ranks on its node"},
    {"mode", MU_OPT_CHOICE, "tree", "tree|comb",
     "tree: aggregated tree (DECOMP); comb: independent series, no aggregation (NEWAVE)"},
    {"series", MU_OPT_INT, "2000", 0, "comb: number of series S"},
    {"horizon", MU_OPT_INT, "12", 0, "comb: months per series"},
    {"delta-min", MU_OPT_REAL, "0.05", 0,
     "the lognormal lower bound (Maceira and Bezerra 1997) is clamped to at most -delta-min x "
     "noise std"},
    {"corr", MU_OPT_CHOICE, "normal", "normal|lognormal",
     "spatial correlation: the residual correlation applied to the normals (normal), or "
     "transformed per tree node so the lognormal noises (Maceira and Bezerra 1997) correlate "
     "as the residuals"},
    {"stats-series", MU_OPT_INT, "500", 0,
     "statistics report: generated series (comb draws on their own streams)"},
    {"stats-years", MU_OPT_INT, "4", 0,
     "statistics report: years per series after a year of burn-in"},
    MU_OPT_OUTPUT("the tree (or comb) as CSV"),
    {"output-json", MU_OPT_PATH, "", 0, "the tree as JSON"},
    {"model", MU_OPT_PATH, "", 0, "the fitted PAR(p) model as JSON"},
    {"stats", MU_OPT_PATH, "", 0,
     "statistics report as CSV: generated against historical monthly moments"},
    {"node-scenarios", MU_OPT_PATH, "", 0,
     "tree: every node's M generated scenarios as CSV node,scenario,<station>,... (large; "
     "for checking the aggregation)"},
    MU_OPT_PLOT("PNG fan of the tree against the record (needs gnuplot)"),
    {"plot-stations", MU_OPT_INT, "3", 0, "stations in the plot (the first ones)"},
    MU_OPT_CHECKPOINT("scenarios.ckpt", "stages (tree mode; between stages)"),
    MU_OPT_END};

static int parse_tree(const char *text, mu_sc_cfg *c) {
    const char *p = text;
    int n = 0, vals[66];
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 1 || v > 1000000 || n == 66)
            return mu_error("--tree=%s: expected positive integers separated by commas, e.g. "
                            "1,30,200 (at most 65 stages)",
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

int mu_sc_read_cfg(const mu_opts *o, int given, mu_sc_cfg *c) {
    memset(c, 0, sizeof *c);
    c->input = mu_opt_str(o, "input");
    if (given && c->input) return mu_error("--input: the record is given");
    if (!given && !c->input)
        return mu_error("no input: give --input=FILE (CSV year,month,<station>,...)");
    c->sel.stations = mu_opt_str(o, "stations");
    c->sel.skip_zero = mu_opt_flag(o, "skip-zero");
    int64_t ns = mu_opt_int(o, "nstations"), my = mu_opt_int(o, "min-years");
    if (ns < 0 || ns > 1024) return mu_error("--nstations=%lld: must be 0..1024", (long long)ns);
    if (my < 3) return mu_error("--min-years must be at least 3");
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
    c->corr_lognormal = mu_opt_is(o, "corr", "lognormal");
    if (c->comb && c->corr_lognormal)
        return mu_error("--corr=lognormal goes with --mode=tree (a comb series has its own "
                        "lognormal parameters at every step)");
    c->series = mu_opt_int(o, "series");
    int64_t hz = mu_opt_int(o, "horizon");
    if (c->series < 1) return mu_error("--series must be at least 1");
    if (hz < 1 || hz > 1200) return mu_error("--horizon must be 1..1200");
    c->horizon = (int)hz;
    if (!c->comb && (mu_opt_set(o, "series") || mu_opt_set(o, "horizon")))
        return mu_error("--series and --horizon go with --mode=comb");
    if (c->comb && mu_opt_set(o, "tree")) return mu_error("--tree goes with --mode=tree");
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
    mu_ckpt_opts ck;
    MU_TRY(mu_opt_checkpoint(o, &ck));
    if (ck.every > INT_MAX)
        return mu_error("--checkpoint-every=%lld: too large", (long long)ck.every);
    c->checkpoint = ck.file;
    c->checkpoint_every = (int)ck.every;
    c->restart = ck.restart;
    if (!c->checkpoint) return mu_error("--checkpoint needs a file name");
    if (c->comb && (c->restart || ck.every > 0))
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
    if (!c->comb && (c->checkpoint_every > 0 || c->restart)) MU_TRY(mu_output_check(c->checkpoint));
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
