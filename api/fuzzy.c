/* mutirao_fuzzy_cluster: the caller's rows gathered to rank 0 as the
 * command's data set, the options through the command's parser and checks,
 * the run of `mutirao fuzzy` (fuzzy/fuzzy_run.c), and its prototypes, labels and
 * memberships handed back to the ranks that own the rows. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mutirao/mutirao.h"
#include "api/api.h"
#include "core/error.h"
#include "fuzzy/run.h"

void mutirao_fuzzy_options_default(mutirao_fuzzy_options *opt) {
    *opt = (mutirao_fuzzy_options){.mode = "exact",
                                   .partitions = 4,
                                   .r_norm = "density",
                                   .r = NAN,
                                   .r_tol = 1e-12,
                                   .units = "r",
                                   .eps1 = 1e-6,
                                   .eps2 = NAN,
                                   .max_it = 10000,
                                   .merge = "auto",
                                   .threshold = NAN,
                                   .sum_block = 65536,
                                   .device = "auto"};
}

void mutirao_fuzzy_result_free(mutirao_fuzzy_result *res) {
    free(res->prototypes);
    free(res->labels);
    free(res->memberships);
    memset(res, 0, sizeof *res);
}

/* The settings as the command reads them; *o holds the strings cfg points to. */
static int read_options(const mutirao_fuzzy_options *opt, int rank, mu_opts **o, mu_fz_cfg *cfg) {
    mu_api_args a = {.specs = mu_cmd_fuzzy.opts, .who = "mutirao_fuzzy_cluster"};
    mu_api_str(&a, "mode", opt->mode);
    mu_api_int(&a, "partitions", opt->partitions);
    mu_api_flag(&a, "zscore", opt->zscore);
    mu_api_str(&a, "r-norm", opt->r_norm);
    mu_api_real(&a, "r", opt->r);
    mu_api_real(&a, "r-tol", opt->r_tol);
    mu_api_str(&a, "units", opt->units);
    mu_api_real(&a, "eps1", opt->eps1);
    mu_api_real(&a, "eps2", opt->eps2);
    mu_api_int(&a, "max-it", opt->max_it);
    mu_api_str(&a, "merge", opt->merge);
    mu_api_real(&a, "threshold", opt->threshold);
    if (opt->k) mu_api_int(&a, "k", opt->k);
    mu_api_int(&a, "farm-chunk", opt->farm_chunk);
    mu_api_int(&a, "sum-block", opt->sum_block);
    *o = NULL;
    MU_TRY(mu_api_parse(&a, "fuzzy", o));
    return mu_fz_read_cfg(*o, rank, 1, cfg);
}

/* At most this many features: the reader's line limit holds fewer, and the
 * names x1..xF are built before the data's size is known to fit. */
#define MU_API_FZ_MAX_FEATURES 1000000

/* This rank's values: finite and within the range the reader accepts. */
static int check_rows(int64_t row0, int64_t nloc, int F, const double *x) {
    if (nloc < 0 || F < 1 || F > MU_API_FZ_MAX_FEATURES || (nloc > 0 && !x))
        return mu_error("mutirao_fuzzy_cluster: nloc = %lld, features = %d, x %s", (long long)nloc,
                        F, x ? "given" : "NULL");
    if (nloc * F > INT32_MAX)
        return mu_error("mutirao_fuzzy_cluster: %lld x %d values on one rank: at most 2^31",
                        (long long)nloc, F);
    for (int64_t i = 0; i < nloc * F; i++)
        if (!isfinite(x[i]) || fabs(x[i]) > MU_FZ_MAX_ABS)
            return mu_error("mutirao_fuzzy_cluster: object %lld, feature %d: %g (values must be "
                            "finite, at most " MU_FZ_MAX_ABS_TEXT " in magnitude)",
                            (long long)(row0 + i / F), (int)(i % F) + 1, x[i]);
    return 0;
}

/* Every rank's rows to rank 0 as the command's data set (features x1..xF). */
static int gather(const mu_app *app, const int64_t *rows, int F, const double *x, mu_fz_data *d) {
    memset(d, 0, sizeof *d);
    int rc = 0, *counts = NULL, *displs = NULL;
    int64_t n = 0;
    for (int r = 0; r < app->size; r++) n += rows[r];
    if (app->rank == 0) {
        d->n = n;
        d->F = F;
        d->x = malloc((size_t)(n > 0 ? n * F : 1) * sizeof *d->x);
        d->names = calloc((size_t)F, sizeof *d->names);
        counts = malloc((size_t)app->size * sizeof *counts);
        displs = malloc((size_t)app->size * sizeof *displs);
        rc = !d->x || !d->names || !counts || !displs || n * F > INT32_MAX;
        for (int f = 0; !rc && f < F; f++) {
            char name[24];
            snprintf(name, sizeof name, "x%d", f + 1);
            rc = !(d->names[f] = strdup(name));
        }
        for (int r = 0, off = 0; !rc && r < app->size; off += counts[r++]) {
            counts[r] = (int)(rows[r] * F);
            displs[r] = off;
        }
        if (rc)
            rc = mu_error("mutirao_fuzzy_cluster: %lld x %d values do not fit rank 0", (long long)n,
                          F);
    }
    if (!mu_error_collective(app->comm, rc))
        MPI_Gatherv(x, (int)(rows[app->rank] * F), MPI_DOUBLE, d->x, counts, displs, MPI_DOUBLE, 0,
                    app->comm);
    else
        rc = 1;
    free(counts);
    free(displs);
    return rc;
}

/* Rank 0's prototypes to every rank, its labels and memberships to each row's rank. */
static int hand_back(const mu_app *app, const int64_t *rows, mu_fz_out *out,
                     mutirao_fuzzy_result *res) {
    int64_t hdr[6] = {out->n, out->F, out->m_raw, out->m, out->unconverged, out->mu != NULL};
    MPI_Bcast(hdr, 6, MPI_INT64_T, 0, app->comm);
    MPI_Bcast(&out->r, 1, MPI_DOUBLE, 0, app->comm);
    int64_t m = hdr[3], F = hdr[1], nloc = rows[app->rank];
    *res = (mutirao_fuzzy_result){.n = hdr[0],
                                  .features = (int)F,
                                  .r = out->r,
                                  .raw_prototypes = hdr[2],
                                  .m = m,
                                  .unconverged = hdr[4]};
    res->prototypes = app->rank == 0 ? out->proto : malloc((size_t)(m * F) * sizeof(double));
    res->labels = malloc((size_t)(nloc ? nloc : 1) * sizeof *res->labels);
    res->memberships = hdr[5] ? malloc((size_t)(nloc > 0 ? nloc * m : 1) * sizeof(double)) : NULL;
    out->proto = NULL;
    int rc = !res->prototypes || !res->labels || (hdr[5] && !res->memberships);
    if (mu_error_collective(app->comm, rc ? mu_error("mutirao_fuzzy_cluster: out of memory") : 0))
        return 1;
    MPI_Bcast(res->prototypes, (int)(m * F), MPI_DOUBLE, 0, app->comm);
    int *cl = malloc((size_t)app->size * sizeof *cl), *dl = malloc((size_t)app->size * sizeof *dl);
    int *cm = malloc((size_t)app->size * sizeof *cm), *dm = malloc((size_t)app->size * sizeof *dm);
    for (int r = 0, ol = 0, om = 0; r < app->size; ol += cl[r], om += cm[r], r++) {
        cl[r] = (int)rows[r], dl[r] = ol; /* n x m is at most 2^27 when kept */
        cm[r] = (int)(rows[r] * m), dm[r] = om;
    }
    MPI_Scatterv(out->labels, cl, dl, MPI_INT32_T, res->labels, (int)nloc, MPI_INT32_T, 0,
                 app->comm);
    if (hdr[5])
        MPI_Scatterv(out->mu, cm, dm, MPI_DOUBLE, res->memberships, (int)(nloc * m), MPI_DOUBLE, 0,
                     app->comm);
    free(cl), free(dl), free(cm), free(dm);
    return 0;
}

static void options_fp(const mutirao_fuzzy_options *opt, int features, mu_api_fp *fp) {
    mu_api_fp_init(fp);
    mu_api_fp_int(fp, features);
    mu_api_fp_str(fp, opt->mode);
    mu_api_fp_int(fp, opt->partitions);
    mu_api_fp_int(fp, opt->zscore);
    mu_api_fp_str(fp, opt->r_norm);
    mu_api_fp_real(fp, opt->r);
    mu_api_fp_real(fp, opt->r_tol);
    mu_api_fp_str(fp, opt->units);
    mu_api_fp_real(fp, opt->eps1);
    mu_api_fp_real(fp, opt->eps2);
    mu_api_fp_int(fp, opt->max_it);
    mu_api_fp_str(fp, opt->merge);
    mu_api_fp_real(fp, opt->threshold);
    mu_api_fp_int(fp, opt->k);
    mu_api_fp_int(fp, opt->farm_chunk);
    mu_api_fp_int(fp, opt->sum_block);
    mu_api_fp_str(fp, opt->device);
}

int mutirao_fuzzy_cluster(MPI_Comm comm, int64_t nloc, int features, const double *x,
                          const mutirao_fuzzy_options *opt, mutirao_fuzzy_result *res) {
    MU_API_ARGS(mutirao_fuzzy, opt, res);
    int rank, size, fmin = 0, fmax = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    mu_api_fp fp;
    options_fp(opt, features, &fp);
    MU_TRY(mu_api_agree(comm, "mutirao_fuzzy_cluster", &fp,
                        res ? 0 : mu_error("mutirao_fuzzy_cluster: res (the result) is NULL")));
    int64_t *rows = malloc((size_t)size * sizeof *rows), row0 = 0;
    if (mu_error_collective(comm, rows ? 0 : mu_error("mutirao_fuzzy_cluster: out of memory"))) {
        free(rows);
        return 1;
    }
    MPI_Allgather(&nloc, 1, MPI_INT64_T, rows, 1, MPI_INT64_T, comm);
    MPI_Allreduce(&features, &fmin, 1, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(&features, &fmax, 1, MPI_INT, MPI_MAX, comm);
    for (int r = 0; r < rank; r++) row0 += rows[r];
    mu_opts *o = NULL;
    mu_fz_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    int rc = fmin != fmax ? mu_error("mutirao_fuzzy_cluster: features differ between ranks "
                                     "(%d to %d)",
                                     fmin, fmax)
                          : check_rows(row0, nloc, features, x);
    if (!rc) rc = read_options(opt, rank, &o, &cfg);
    mu_app app;
    mu_fz_data data;
    mu_fz_out out;
    memset(&data, 0, sizeof data);
    memset(&out, 0, sizeof out);
    MU_TRY_GOTO(mu_api_open(comm, "fuzzy", "mutirao_fuzzy_cluster", opt->device, rc, &app));
    MU_TRY_GOTO(gather(&app, rows, features, x, &data));
    cfg.given = &data;
    cfg.out = &out;
    MU_TRY_GOTO(mu_fz_run(&app, &cfg));
    MU_TRY_GOTO(hand_back(&app, rows, &out, res));
    res->gpu_ranks = mu_api_gpu_ranks(&app);
done:
    if (rc) mutirao_fuzzy_result_free(res);
    mu_fz_free(&data);
    free(out.proto);
    free(out.labels);
    free(out.mu);
    free(cfg.prefix);
    mu_opts_free(o);
    free(rows);
    return rc ? 1 : 0;
}
