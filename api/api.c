/* The opening shared by the public calls (api.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "api/api.h"
#include "core/error.h"
#include "core/log.h"

int mu_api_open(MPI_Comm comm, const char *command, const char *fn, const char *device,
                int local_rc, mu_app *app) {
    memset(app, 0, sizeof *app);
    app->comm = comm;
    app->command = command;
    MPI_Comm_rank(comm, &app->rank);
    MPI_Comm_size(comm, &app->size);
    mu_log_init(app->rank, app->size); /* rank 0 speaks for the call */
    const char *dev = device ? device : "auto";
    int rc = local_rc;
    if (!rc && strcmp(dev, "auto") && strcmp(dev, "cpu") && strcmp(dev, "gpu"))
        rc = mu_error("%s: device '%s': expected auto, cpu or gpu", fn, dev);
    MU_TRY(mu_error_collective(comm, rc));
    return mu_device_bind(comm, dev, &app->dev);
}

void mu_api_fp_init(mu_api_fp *fp) {
    fp->h = 1469598103934665603ull;
}

static void fp_bytes(mu_api_fp *fp, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) fp->h = (fp->h ^ b[i]) * 1099511628211ull;
}

void mu_api_fp_int(mu_api_fp *fp, int64_t v) {
    fp_bytes(fp, &v, sizeof v);
}

void mu_api_fp_real(mu_api_fp *fp, double v) {
    if (isnan(v)) v = NAN;
    if (v == 0) v = 0; /* -0 and 0 alike */
    fp_bytes(fp, &v, sizeof v);
}

void mu_api_fp_str(mu_api_fp *fp, const char *s) {
    unsigned char tag = s ? 1 : 0;
    fp_bytes(fp, &tag, 1);
    if (s) fp_bytes(fp, s, strlen(s) + 1);
}

int mu_api_agree(MPI_Comm comm, const char *fn, const mu_api_fp *fp, int local_rc) {
    /* max of h and of ~h: the same on every rank only when min == max */
    uint64_t mine[2] = {fp->h, ~fp->h}, all[2];
    MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_MAX, comm);
    int rc = local_rc;
    if (!rc && all[0] != ~all[1])
        rc = mu_error("%s: the options or sizes differ between ranks (this rank's fingerprint "
                      "%016llx, the ranks' range %016llx..%016llx): every rank must pass the "
                      "same options and global sizes",
                      fn, (unsigned long long)fp->h, (unsigned long long)~all[1],
                      (unsigned long long)all[0]);
    return mu_error_collective(comm, rc);
}

int mu_api_gpu_ranks(const mu_app *app) {
    int gpu = app->dev.use_gpu, all = 0;
    MPI_Allreduce(&gpu, &all, 1, MPI_INT, MPI_SUM, app->comm);
    return all;
}

static const mu_opt_spec *spec_of(const mu_api_args *a, const char *name) {
    for (const mu_opt_spec *s = a->specs; s->name; s++)
        if (!strcmp(s->name, name)) return s;
    return NULL;
}

static void add(mu_api_args *a, const char *name, const char *value) {
    size_t len = strlen(name) + strlen(value) + 4;
    char *arg = a->argc < (int)(sizeof a->argv / sizeof a->argv[0]) ? malloc(len) : NULL;
    if (!arg) {
        a->failed = 1;
        return;
    }
    snprintf(arg, len, "--%s=%s", name, value);
    a->argv[a->argc++] = arg;
}

void mu_api_str(mu_api_args *a, const char *name, const char *value) {
    const mu_opt_spec *s = spec_of(a, name);
    if (value && (!s || strcmp(s->def, value))) add(a, name, value);
}

void mu_api_int(mu_api_args *a, const char *name, int64_t value) {
    const mu_opt_spec *s = spec_of(a, name);
    int64_t def;
    if (s && *s->def && !mu_parse_int(s->def, &def) && def == value) return;
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)value);
    add(a, name, text);
}

void mu_api_real(mu_api_args *a, const char *name, double value) {
    const mu_opt_spec *s = spec_of(a, name);
    if (isnan(value) || (s && *s->def && strtod(s->def, NULL) == value)) return;
    char text[40];
    snprintf(text, sizeof text, "%.17g", value);
    add(a, name, text);
}

void mu_api_flag(mu_api_args *a, const char *name, int value) {
    if (value) add(a, name, "1");
}

int mu_api_parse(mu_api_args *a, const char *command, mu_opts **o) {
    int rc = a->failed ? mu_error("%s: out of memory for its options", command)
                       : mu_opts_parse_as(command, a->specs, NULL, a->argc, a->argv, 0,
                                          a->who ? a->who : "library call", o);
    for (int i = 0; i < a->argc; i++) free(a->argv[i]);
    a->argc = 0;
    return rc;
}
