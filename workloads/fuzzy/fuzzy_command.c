/* `mutirao fuzzy`: options and their checks. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "fuzzy/run.h"
#include "core/error.h"
#include "core/output.h"

/* The options, one row each (name, type, default, choices, help): fuzzy/options.def. */
static const mu_opt_spec fuzzy_opts[] = {
#include "fuzzy/options.def"
    MU_OPT_END};

int mu_fz_read_cfg(const mu_opts *o, int rank, int given, mu_fz_cfg *c) {
    memset(c, 0, sizeof *c);
    c->input = mu_opt_str(o, "input");
    c->header = mu_opt_str(o, "header");
    c->label_column = mu_opt_str(o, "label-column");
    c->gen_blobs = mu_opt_is(o, "gen", "blobs");
    c->gen_schools = mu_opt_is(o, "gen", "schools");
    if (given && (c->input || c->gen_blobs || c->gen_schools))
        return mu_error("--input and --gen: the data are given");
    if (!given && !c->input == !(c->gen_blobs || c->gen_schools))
        return mu_error(c->input ? "--input and --gen exclude each other"
                                 : "no input: give --input=FILE, or --gen=blobs to generate");
    if (c->gen_schools)
        MU_TRY(mu_opt_goes_with(o, MU_OPT_NAMES("centers", "sigma"), "--gen=blobs"));
    if (!c->input && c->label_column)
        return mu_error("--label-column is for --input (generated blobs carry their own labels)");
    if (c->input)
        MU_TRY(mu_opt_goes_with(o, MU_OPT_NAMES("n", "seed", "centers", "sigma"),
                                "--gen, not --input"));
    c->n = mu_opt_int(o, "n");
    c->seed = (uint64_t)mu_opt_int(o, "seed");
    c->centers = mu_opt_str(o, "centers");
    c->sigma = mu_opt_real(o, "sigma");
    c->zscore = mu_opt_flag(o, "zscore");
    c->exact = mu_opt_is(o, "mode", "exact");
    int64_t p = mu_opt_int(o, "partitions");
    if (p < 1 || p > 1000000) return mu_error("--partitions=%lld: must be 1..10^6", (long long)p);
    c->partitions = c->exact ? 1 : (int)p;
    if (c->exact && mu_opt_set(o, "partitions"))
        return mu_error("--partitions goes with --mode=partitioned");
    c->norm = mu_opt_is(o, "r-norm", "printed") ? MU_FZ_R_PRINTED : MU_FZ_R_DENSITY;
    c->r_fixed = 0;
    if (mu_opt_set(o, "r")) {
        c->r_fixed = mu_opt_real(o, "r");
        if (!(c->r_fixed > 0) || !isfinite(c->r_fixed))
            return mu_error("--r must be a positive number");
    }
    c->r_tol = mu_opt_real(o, "r-tol");
    if (!(c->r_tol > 0) || c->r_tol >= 1) return mu_error("--r-tol must be in (0, 1)");
    c->units_abs = mu_opt_is(o, "units", "absolute");
    c->eps1 = mu_opt_real(o, "eps1");
    c->eps2 = mu_opt_set(o, "eps2") ? mu_opt_real(o, "eps2") : c->units_abs ? 1e-5 : 0.5;
    if (!(c->eps1 > 0) || !isfinite(c->eps1)) return mu_error("--eps1 must be positive");
    if (!(c->eps2 >= 0) || !isfinite(c->eps2)) return mu_error("--eps2 must be >= 0");
    c->max_it = mu_opt_int(o, "max-it");
    if (c->max_it < 1) return mu_error("--max-it must be at least 1");
    int has_t = mu_opt_set(o, "threshold"), has_k = mu_opt_set(o, "k");
    if (has_t && has_k) return mu_error("--threshold and --k exclude each other");
    c->cut = MU_FZ_CUT_GAP;
    if (has_t) {
        c->cut = MU_FZ_CUT_THRESHOLD;
        c->cut_value = mu_opt_real(o, "threshold");
        if (!(c->cut_value >= 0)) return mu_error("--threshold must be >= 0");
    }
    if (has_k) {
        c->cut = MU_FZ_CUT_K;
        int64_t k = mu_opt_int(o, "k");
        if (k < 1) return mu_error("--k must be at least 1");
        c->cut_value = (double)k;
    }
    if (mu_opt_is(o, "merge", "yes"))
        c->merge = 1;
    else if (mu_opt_is(o, "merge", "no"))
        c->merge = 0;
    else
        c->merge = (!c->exact && c->partitions > 1) || has_t || has_k;
    if (!c->merge && (has_t || has_k)) return mu_error("--threshold and --k need the merge");
    c->farm_chunk = mu_opt_int(o, "farm-chunk");
    if (c->farm_chunk < 0) return mu_error("--farm-chunk must be >= 0");
    c->sum_block = mu_opt_int(o, "sum-block");
    if (c->sum_block < 0 || c->sum_block % 256 != 0)
        return mu_error("--sum-block=%lld: must be 0 or a multiple of 256",
                        (long long)c->sum_block);
    c->arith_fast = mu_opt_is(o, "arith", "fast");
    MU_TRY(mu_opt_checkpoint(o, &c->checkpoint, &c->checkpoint_every, &c->restart));
    if (!c->checkpoint) return mu_error("--checkpoint needs a file name");
    c->ring_mode = mu_opt_is(o, "ring", "yes") ? 1 : mu_opt_is(o, "ring", "no") ? 0 : 2;
    c->mem_limit = mu_opt_real(o, "mem-limit") * 1048576.0;
    if (!(c->mem_limit > 0)) return mu_error("--mem-limit must be positive");
    if (!c->exact)
        MU_TRY(mu_opt_goes_with(o, MU_OPT_NAMES("checkpoint-every", "restart", "ring", "mem-limit"),
                                "--mode=exact"));
    if (c->ring_mode == 1 && (c->restart || c->checkpoint_every > 0))
        return mu_error("--ring=yes runs every start in one sweep: no --checkpoint-every or "
                        "--restart");
    c->output = mu_opt_str(o, "output");
    c->plot = mu_opt_str(o, "plot");
    const char *prefix = mu_opt_str(o, "output-prefix"), *dir = mu_opt_str(o, "output-dir");
    if (prefix && dir) return mu_error("--output-prefix and --output-dir exclude each other");
    if (dir) {
        if (rank == 0 && mkdir(dir, 0777) != 0 && errno != EEXIST)
            return mu_error("--output-dir=%s: cannot create it: %s", dir, strerror(errno));
        size_t len = strlen(dir) + 2;
        c->prefix = malloc(len);
        if (c->prefix) snprintf(c->prefix, len, "%s/", dir);
    } else if (prefix) {
        c->prefix = malloc(strlen(prefix) + 1);
        if (c->prefix) strcpy(c->prefix, prefix);
    }
    if ((dir || prefix) && !c->prefix) return mu_error("out of memory");
    return 0;
}

/* Every output is writable before any work (rank 0), and gnuplot runs if a plot is asked. */
static int check_outputs(const void *cfg) {
    const mu_fz_cfg *c = cfg;
    if (c->output) MU_TRY(mu_output_check(c->output));
    if (c->prefix) {
        static const char *const names[] = {"prototypes.csv", "memberships.csv", "labels.csv",
                                            "raw.csv", "dendrogram.csv"};
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            char path[1024];
            if (snprintf(path, sizeof path, "%s%s", c->prefix, names[i]) >= (int)sizeof path)
                return mu_error("output prefix too long: '%s'", c->prefix);
            MU_TRY(mu_output_check(path));
        }
    }
    if (c->exact && c->checkpoint_every > 0) MU_TRY(mu_output_check(c->checkpoint));
    if (c->plot) {
        MU_TRY(mu_output_check(c->plot));
        MU_TRY(mu_fz_plot_check());
    }
    return 0;
}

static int fuzzy_run(mu_app *app) {
    mu_fz_cfg cfg;
    int rc = mu_fz_read_cfg(app->opts, app->rank, 0, &cfg);
    rc = mu_output_check_collective(app->comm, app->rank, rc, check_outputs, &cfg);
    if (!rc) rc = mu_fz_run(app, &cfg);
    free(cfg.prefix);
    return rc;
}

const mu_command mu_cmd_fuzzy = {
    "fuzzy", "Fuzzy Minimals clustering: exact, or the study's partitioned method with a merge",
    fuzzy_opts, fuzzy_run};
