/* mutirao_scenarios_tree_build: the caller's record checked as the reader
 * checks a file, the options through the command's parser and checks, and the
 * run of `mutirao scenarios` (scenarios/flow.c) with the record given and the
 * tree handed back. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mutirao/mutirao.h"
#include "api/api.h"
#include "core/error.h"
#include "core/free.h"
#include "scenarios/scenarios.h"

static const char *const WHO = "mutirao_scenarios_tree_build";

void mutirao_scenarios_options_default(mutirao_scenarios_options *opt) {
    *opt = (mutirao_scenarios_options){.tree = "1,30,200",
                                       .m = 1024,
                                       .pmax = 6,
                                       .pacf_conf = 1.96,
                                       .sd_denominator = "n",
                                       .acf_denominator = "n",
                                       .min_years = 10,
                                       .seed = 1,
                                       .method = "v2",
                                       .representative = "centroid",
                                       .max_iter = 50,
                                       .delta_min = 0.05,
                                       .corr = "normal",
                                       .split = "auto",
                                       .device = "auto"};
}

void mutirao_scenarios_tree_free(mutirao_scenarios_tree *t) {
    MU_FREE(t->parent, t->stage, t->prob, t->path_prob, t->q);
    memset(t, 0, sizeof *t);
}

/* The settings as the command reads them; *o holds the strings cfg points to. */
static int read_options(const mutirao_scenarios_options *opt, mu_opts **o, mu_sc_cfg *cfg) {
    mu_api_args a = {.specs = mu_cmd_scenarios.opts, .who = WHO};
    mu_api_str(&a, "tree", opt->tree);
    mu_api_int(&a, "m", opt->m);
    mu_api_str(&a, "start", opt->start);
    mu_api_int(&a, "pmax", opt->pmax);
    mu_api_real(&a, "pacf-conf", opt->pacf_conf);
    mu_api_str(&a, "sd-denominator", opt->sd_denominator);
    mu_api_str(&a, "acf-denominator", opt->acf_denominator);
    mu_api_int(&a, "min-years", opt->min_years);
    mu_api_int(&a, "seed", opt->seed);
    mu_api_str(&a, "method", opt->method);
    mu_api_str(&a, "representative", opt->representative);
    mu_api_int(&a, "max-it", opt->max_iter);
    mu_api_real(&a, "delta-min", opt->delta_min);
    mu_api_str(&a, "corr", opt->corr);
    mu_api_str(&a, "split", opt->split);
    mu_api_int(&a, "threads", opt->threads);
    *o = NULL;
    MU_TRY(mu_api_parse(&a, "scenarios", o));
    return mu_sc_read_cfg(*o, 1, cfg);
}

/* Rank 0: the caller's record copied into the command's form and checked. */
static int take_record(int nyears, int nst, int first_year, const double *q,
                       const char *const *names, int min_years, mu_sc_hist *h) {
    memset(h, 0, sizeof *h);
    if (nyears < 1 || nst < 1 || nst > 1024 || first_year < 1 || !q)
        return mu_error("%s: %d years from %d of %d stations%s: expected at least one year "
                        "from year 1 on, 1 to 1024 stations",
                        WHO, nyears, first_year, nst, q ? "" : " (q is NULL)");
    snprintf(h->path, sizeof h->path, "%s", WHO);
    h->nyears = nyears;
    h->nst = nst;
    h->first_year = first_year;
    h->names = calloc((size_t)nst, sizeof *h->names);
    size_t count = (size_t)nyears * 12 * (size_t)nst;
    h->q = malloc(count * sizeof *h->q);
    int rc = !h->names || !h->q;
    for (int s = 0; !rc && s < nst; s++) {
        char name[24];
        snprintf(name, sizeof name, "s%d", s + 1);
        rc = !(h->names[s] = strdup(names && names[s] ? names[s] : name));
    }
    if (rc) return mu_error("%s: out of memory for the record", WHO);
    memcpy(h->q, q, count * sizeof *h->q);
    return mu_sc_check_record(h, min_years, WHO);
}

/* The run's tree (the same on every rank) as the caller's arrays. */
static int hand_back(const mu_app *app, const mu_sc_cfg *cfg, int nst, mu_sc_out *out,
                     mutirao_scenarios_tree *t) {
    mu_sc_tree *r = &out->tree;
    MPI_Bcast(&out->clamped, 1, MPI_INT64_T, 0, app->comm);
    *t = (mutirao_scenarios_tree){.nodes = r->n,
                                  .stations = nst,
                                  .stages = cfg->nstages,
                                  .first_leaf = r->stage_first[cfg->nstages],
                                  .first_year = 0,
                                  .first_month = (int)(out->hist_end % 12) + 1,
                                  .clamped = out->clamped,
                                  .nonpd_months = out->nonpd};
    t->parent = malloc((size_t)r->n * sizeof *t->parent);
    t->stage = malloc((size_t)r->n * sizeof *t->stage);
    t->prob = malloc((size_t)r->n * sizeof *t->prob);
    t->path_prob = malloc((size_t)r->n * sizeof *t->path_prob);
    t->q = malloc((size_t)r->n * nst * sizeof *t->q);
    int rc = !t->parent || !t->stage || !t->prob || !t->path_prob || !t->q;
    if (mu_error_collective(app->comm, rc ? mu_error("%s: out of memory", WHO) : 0)) return 1;
    memcpy(t->parent, r->parent, (size_t)r->n * sizeof *t->parent);
    memcpy(t->stage, r->stage, (size_t)r->n * sizeof *t->stage);
    memcpy(t->prob, r->prob, (size_t)r->n * sizeof *t->prob);
    memcpy(t->path_prob, r->pprob, (size_t)r->n * sizeof *t->path_prob);
    memcpy(t->q, r->q, (size_t)r->n * nst * sizeof *t->q);
    return 0;
}

static void options_fp(const mutirao_scenarios_options *opt, int nyears, int nstations,
                       int first_year, mu_api_fp *fp) {
    mu_api_fp_init(fp);
    mu_api_fp_int(fp, nyears);
    mu_api_fp_int(fp, nstations);
    mu_api_fp_int(fp, first_year);
    mu_api_fp_str(fp, opt->tree);
    mu_api_fp_int(fp, opt->m);
    mu_api_fp_str(fp, opt->start);
    mu_api_fp_int(fp, opt->pmax);
    mu_api_fp_real(fp, opt->pacf_conf);
    mu_api_fp_str(fp, opt->sd_denominator);
    mu_api_fp_str(fp, opt->acf_denominator);
    mu_api_fp_int(fp, opt->min_years);
    mu_api_fp_int(fp, opt->seed);
    mu_api_fp_str(fp, opt->method);
    mu_api_fp_str(fp, opt->representative);
    mu_api_fp_int(fp, opt->max_iter);
    mu_api_fp_real(fp, opt->delta_min);
    mu_api_fp_str(fp, opt->corr);
    mu_api_fp_str(fp, opt->split);
    mu_api_fp_int(fp, opt->threads);
    mu_api_fp_str(fp, opt->device);
}

int mutirao_scenarios_tree_build(MPI_Comm comm, int nyears, int nstations, int first_year,
                                 const double *q, const char *const *names,
                                 const mutirao_scenarios_options *opt,
                                 mutirao_scenarios_tree *tree) {
    MU_API_ARGS(mutirao_scenarios, opt, tree);
    int rank, dims[3] = {nyears, nstations, first_year};
    MPI_Comm_rank(comm, &rank);
    mu_api_fp fp;
    options_fp(opt, nyears, nstations, first_year, &fp);
    MU_TRY(mu_api_agree(comm, WHO, &fp, tree ? 0 : mu_error("%s: tree (the result) is NULL", WHO)));
    MPI_Bcast(dims, 3, MPI_INT, 0, comm);
    mu_opts *o = NULL;
    mu_sc_cfg cfg;
    mu_sc_hist h;
    mu_sc_out out;
    memset(&cfg, 0, sizeof cfg);
    memset(&h, 0, sizeof h);
    memset(&out, 0, sizeof out);
    int rc = dims[0] != nyears || dims[1] != nstations || dims[2] != first_year
                 ? mu_error("%s: rank %d passed %d years from %d of %d stations, rank 0 %d from "
                            "%d of %d",
                            WHO, rank, nyears, first_year, nstations, dims[0], dims[2], dims[1])
                 : read_options(opt, &o, &cfg);
    if (!rc && rank == 0)
        rc = take_record(nyears, nstations, first_year, q, names, cfg.sel.min_years, &h);
    mu_app app;
    MU_TRY_GOTO(mu_api_open(comm, "scenarios", WHO, opt->device, rc, &app));
    cfg.given = &h;
    cfg.out = &out;
    MU_TRY_GOTO(mu_sc_run(&app, &cfg));
    MU_TRY_GOTO(hand_back(&app, &cfg, nstations, &out, tree));
    tree->first_year = first_year + (int)(out.hist_end / 12);
    tree->gpu_ranks = mu_api_gpu_ranks(&app);
done:
    if (rc) mutirao_scenarios_tree_free(tree);
    mu_sc_tree_free(&out.tree);
    mu_sc_hist_free(&h);
    mu_opts_free(o);
    return rc ? 1 : 0;
}
