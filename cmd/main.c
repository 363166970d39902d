/* mutirao: the command line. Starts MPI, checks the launch, parses options,
 * binds devices, runs one command, and ends with the timing table and summary. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under clang -std=c11 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "app.h"
#include "core/error.h"
#include "core/log.h"
#include "core/output.h"
#include "core/summary.h"
#include "core/knobs.h"
#include "core/timer.h"
#include "mpi/cuda_aware.h"
#include "mpi/launch.h"
#include "mpi/memreport.h"

static const mu_command *const commands[] = {&mu_cmd_info,  &mu_cmd_maxsub,    &mu_cmd_cg,
                                             &mu_cmd_fuzzy, &mu_cmd_scenarios, &mu_cmd_advect};
enum { NCOMMANDS = sizeof commands / sizeof commands[0] };

static void usage(FILE *f) {
    fprintf(f,
            "mutirao %s: MPI batch framework with optional GPU offload\n\n"
            "usage: mutirao <command> [--key=value ...]\n       mutirao <command> --help\n\n"
            "commands:\n",
            MUTIRAO_VERSION);
    for (int i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i]->name, commands[i]->synopsis);
    fprintf(f, "\noptions every command takes:\n");
    for (const mu_opt_spec *s = mu_common_opts; s->name; s++)
        fprintf(f, "  --%-18s %s [%s]\n", s->name, s->help, mu_opt_default_text(s));
}

static void log_option(const char *name, const char *value, const char *source, void *ctx) {
    (void)ctx;
    if (strcmp(source, "default") != 0) mu_info("option %s = %s (%s)", name, value, source);
    mu_summary_option(name, value, source);
}

static void log_environment(const mu_app *app) {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    char *nl = strchr(lib, '\n');
    if (nl) *nl = '\0';
    for (char *c = lib; *c; c++)
        if (*c == '\t') *c = ' '; /* MPICH puts a tab after "Version:" */
    mu_info("mutirao %s (%s), command '%s', %d rank(s)", MUTIRAO_VERSION, MUTIRAO_BUILD_TYPE,
            app->command, app->size);
    mu_info("MPI library: %s", lib);
    mu_summary_str("mpi_library", lib);
    const char *how;
    int aware = mu_mpi_cuda_aware(&how);
    mu_info("MPI CUDA-aware: %s (%s)", aware ? "yes" : "no", how);
    mu_summary_bool("mpi_cuda_aware", aware);
    mu_summary_int("ranks", app->size);
    mu_opts_foreach(app->opts, log_option, NULL);
    mu_knobs_report();
    mu_device_report(app->comm, &app->dev);
    int gpus = app->dev.use_gpu, total = 0;
    MPI_Allreduce(&gpus, &total, 1, MPI_INT, MPI_SUM, app->comm);
    mu_summary_int("gpu_ranks", total);
}

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Start-up outside wall_seconds (which starts at the first phase): MPI's
 * initialisation and the device binding (CUDA context creation), slowest rank. */
static void report_startup(const mu_app *app, double mpi_init, double device) {
    double mine[2] = {mpi_init, device}, worst[2];
    MPI_Reduce(mine, worst, 2, MPI_DOUBLE, MPI_MAX, 0, app->comm);
    if (app->rank != 0) return;
    mu_info("start-up: MPI initialisation %.3f s, device binding %.3f s (slowest rank)", worst[0],
            worst[1]);
    mu_summary_real("startup_mpi_init_seconds", worst[0]);
    mu_summary_real("startup_device_seconds", worst[1]);
}

/* The summary, also for a failed run (its error, status 1): a workflow reads
 * why from it. Rank 0; returns failed, or 1 when it cannot write it. */
static int write_summary(const char *path, int failed, int exit_status) {
    mu_summary_int("exit_status", failed ? 1 : exit_status);
    if (failed) {
        const char *why = mu_error_message();
        mu_summary_str("error", why && *why ? why : "failed on another rank (see the log)");
    }
    return mu_summary_write(path) || failed;
}

static void note_input(const char *path, const char *name, void *ctx) {
    (void)ctx;
    char what[160];
    snprintf(what, sizeof what, "--%s='%.120s'", name, path);
    mu_output_input(path, what);
}

int main(int argc, char **argv) {
    /* Host threads exist (scenario lanes) but only this one calls MPI. */
    int provided = 0;
    double t0 = seconds_now();
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    double mpi_init = seconds_now() - t0;
    mu_app app = {.comm = MPI_COMM_WORLD};
    MPI_Comm_rank(app.comm, &app.rank);
    MPI_Comm_size(app.comm, &app.size);
    mu_log_init(app.rank, app.size);

    /* Local check first: a mismatched launch has no usable communicator. */
    if (mu_launch_check(app.comm)) {
        fprintf(stderr, "mutirao: error: %s\n", mu_error_message());
        MPI_Finalize();
        return 1;
    }
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
        !strcmp(argv[1], "help")) {
        if (app.rank == 0) usage(stdout);
        MPI_Finalize();
        return argc < 2 ? 1 : 0;
    }
    if (!strcmp(argv[1], "--version")) {
        if (app.rank == 0) printf("mutirao %s\n", MUTIRAO_VERSION);
        MPI_Finalize();
        return 0;
    }
    const mu_command *cmd = NULL;
    for (int i = 0; i < NCOMMANDS; i++)
        if (!strcmp(argv[1], commands[i]->name)) cmd = commands[i];
    int rc = cmd ? 0 : mu_error("unknown command '%s' (try 'mutirao --help')", argv[1]);
    mu_error_check_or_exit(app.comm, rc);
    app.command = cmd->name;

    /* A deck may hold the other commands' sections: this one skips them. */
    const char *others[NCOMMANDS + 1] = {0};
    for (int i = 0, k = 0; i < NCOMMANDS; i++)
        if (commands[i] != cmd) others[k++] = commands[i]->name;
    rc = mu_opts_parse(cmd->name, cmd->opts, others, argc, argv, 2, &app.opts);
    if (!rc && mu_log_set_level(mu_opt_str(app.opts, "log"))) rc = mu_error("bad --log level");
    if (!rc) rc = mu_knobs_check();
    if (rc) mu_opts_free(app.opts);
    mu_error_check_or_exit(app.comm, rc);
    if (mu_opt_flag(app.opts, "help")) {
        if (app.rank == 0) mu_opts_help(stdout, cmd->name, cmd->synopsis, cmd->opts);
        mu_opts_free(app.opts);
        MPI_Finalize();
        return 0;
    }
    if (app.rank == 0) mu_summary_init(cmd->name);
    const char *summary = mu_opt_str(app.opts, "summary");
    /* The files the options name to be read: no output may be one of them. */
    mu_output_reset();
    if (app.rank == 0) mu_opts_foreach_input(app.opts, note_input, NULL);
    rc = app.rank == 0 && summary ? mu_output_check(summary) : 0;
    if (mu_error_collective(app.comm, rc)) {
        summary = NULL; /* refused (an input, a directory...): never written */
        rc = 1;
        goto done;
    }
    double t1 = seconds_now();
    MU_TRY_GOTO(mu_device_bind(app.comm, mu_opt_str(app.opts, "device"), &app.dev));
    report_startup(&app, mpi_init, seconds_now() - t1);
    log_environment(&app);
    MU_TRY_GOTO(cmd->run(&app));
    mu_timer_report(app.comm);
    mu_mem_report(app.comm);
done:
    if (summary && app.rank == 0) rc = write_summary(summary, rc, app.exit_status);
    rc = mu_error_collective(app.comm, rc);
    mu_summary_free();
    mu_opts_free(app.opts);
    MPI_Finalize();
    return rc ? 1 : app.exit_status;
}
