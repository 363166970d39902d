/* What every public call does first: a mu_app on the caller's communicator,
 * the device string checked and each rank bound to its device, as the command
 * does before it runs a workload. Internal to api/. */
#ifndef MU_API_API_H
#define MU_API_API_H
#include <stdint.h>
#include <string.h>
#include "app.h"

/* What every public call does with its arguments first: opt, or the
 * workload's defaults (PREFIX_options_default) where the caller passed NULL,
 * and the result *res zeroed. */
#define MU_API_ARGS(prefix, opt, res)                                                              \
    prefix##_options mu_api_defaults;                                                              \
    prefix##_options_default(&mu_api_defaults);                                                    \
    if (!(opt)) (opt) = &mu_api_defaults;                                                          \
    if (res) memset((res), 0, sizeof *(res))

/* A fingerprint of a call's options and scalar arguments (FNV-1a, 64 bits),
 * compared across the communicator by mu_api_agree. Strings: NULL and ""
 * differ; reals by their bits (every NaN one value). */
typedef struct {
    uint64_t h;
} mu_api_fp;
void mu_api_fp_init(mu_api_fp *fp);
void mu_api_fp_int(mu_api_fp *fp, int64_t v);
void mu_api_fp_real(mu_api_fp *fp, double v);
void mu_api_fp_str(mu_api_fp *fp, const char *s);
/* Collective, the first thing a public call does: every rank's fingerprint the
 * same, else "fn: the options or sizes differ between ranks ..." on every rank.
 * local_rc: this rank's own checks (0: none failed), joined. 0, or 1 on every
 * rank after the message. */
int mu_api_agree(MPI_Comm comm, const char *fn, const mu_api_fp *fp, int local_rc);

/* Collective over comm. fn names the public call in messages; device is
 * "auto", "cpu" or "gpu" (NULL: auto). local_rc: the caller's own checks of its
 * arguments on this rank (0: none failed), joined to the device's. 0, or 1 on
 * every rank after an error. */
int mu_api_open(MPI_Comm comm, const char *command, const char *fn, const char *device,
                int local_rc, mu_app *app);

/* Collective: ranks of app that run on a GPU. */
int mu_api_gpu_ranks(const mu_app *app);

/* A library call's settings as the command's options, so that they take the
 * command's parser and checks: each value that differs from the option's
 * default (or is not unset) becomes "--name=value". */
typedef struct {
    const mu_opt_spec *specs;
    const char *who; /* the public call, naming the options' source in messages */
    int argc;
    char *argv[48];
    int failed;
} mu_api_args;

void mu_api_str(mu_api_args *a, const char *name, const char *value); /* NULL: unset */
void mu_api_int(mu_api_args *a, const char *name, int64_t value);
void mu_api_real(mu_api_args *a, const char *name, double value); /* NaN: unset */
void mu_api_flag(mu_api_args *a, const char *name, int value);
/* The parsed options (the command's table), then the arguments freed. 0, or 1
 * after mu_error() (not collective). */
int mu_api_parse(mu_api_args *a, const char *command, mu_opts **o);

#endif
