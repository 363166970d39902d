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
                       : mu_opts_parse(command, a->specs, NULL, a->argc, a->argv, 0, o);
    for (int i = 0; i < a->argc; i++) free(a->argv[i]);
    a->argc = 0;
    return rc;
}
