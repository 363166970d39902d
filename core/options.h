/* Options: `--key=value` on the command line and the same keys in a job deck
 * (`--config=FILE`, INI syntax read by Debian's libinih: `key = value` lines,
 * at the top or under [mutirao] for every command, or under [<command>]; one
 * deck may hold several commands' sections, each command reading its own).
 * The command line wins. A path in a deck is taken from the deck's folder, a
 * path on the command line from the working directory.
 * Each workload declares its options in a table (its rows in
 * workloads/<workload>/options.def, the common ones in core/options.def); values are
 * checked against their type when parsed, so a bad value is reported with
 * where it came from. */
#ifndef MU_CORE_OPTIONS_H
#define MU_CORE_OPTIONS_H
#include <stdint.h>
#include <stdio.h>

/* MU_OPT_PATH: a string naming a file; from a deck, relative to the deck's folder.
 * A path a run reads has MU_OPT_IN in its `choices`: an output that is the
 * same file is refused (core/output.h). */
typedef enum {
    MU_OPT_INT,
    MU_OPT_REAL,
    MU_OPT_STRING,
    MU_OPT_CHOICE,
    MU_OPT_FLAG,
    MU_OPT_PATH
} mu_opt_type;

#define MU_OPT_IN "in"

typedef struct {
    const char *name; /* without the leading "--" */
    mu_opt_type type;
    const char *def;     /* default value as text; "" means unset */
    const char *choices; /* MU_OPT_CHOICE: "a|b|c" */
    const char *help;
} mu_opt_spec;

#define MU_OPT_END                                                                                 \
    { 0, 0, 0, 0, 0 }

typedef struct mu_opts mu_opts;

/* The checkpoint group, one meaning in every workload: --checkpoint=FILE
 * (FILE the default, "" none), written on SIGTERM/SIGUSR1 and every
 * --checkpoint-every UNIT (0: only on a signal), and --restart, which resumes
 * from it on any rank count. */
// clang-format off
#define MU_OPT_CHECKPOINT(file, unit)                                                              \
    {"checkpoint", MU_OPT_PATH, file, 0,                                                           \
     "checkpoint file, written on SIGTERM/SIGUSR1 and every --checkpoint-every " unit},            \
    {"checkpoint-every", MU_OPT_INT, "0", 0,                                                       \
     "write a checkpoint every k " unit " (0: only on a signal)"},                                 \
    {"restart", MU_OPT_FLAG, "0", 0, "resume from --checkpoint (on any rank count)"}
// clang-format on

/* --farm-chunk, one meaning in every workload that farms tasks out: the
 * smallest range of tasks (`what` names it, with the mode it belongs to) a
 * task-farm hand-out holds; 0 lets the farm choose. */
#define MU_OPT_FARM_CHUNK(what)                                                                    \
    { "farm-chunk", MU_OPT_INT, "0", 0, what " the task farm hands out (0: auto)" }

/* Options that several workloads take, each with one name, type, default
 * and meaning everywhere; `help` says what the workload reads or writes. */
#define MU_OPT_INPUT(help)                                                                         \
    { "input", MU_OPT_PATH, "", MU_OPT_IN, help }
#define MU_OPT_OUTPUT(help)                                                                        \
    { "output", MU_OPT_PATH, "", 0, help }
#define MU_OPT_PLOT(help)                                                                          \
    { "plot", MU_OPT_PATH, "", 0, help }
#define MU_OPT_SEED(help)                                                                          \
    { "seed", MU_OPT_INT, "1", 0, help }
/* --max-it: an iteration cap; the default is the workload's ("" for one
 * that depends on other options). */
#define MU_OPT_MAX_IT(def, help)                                                                   \
    { "max-it", MU_OPT_INT, def, 0, help }

/* Options every command takes (config, device, summary, log, help). */
extern const mu_opt_spec mu_common_opts[];

/* Parses argv[first..argc) against the workload's table plus mu_common_opts.
 * sections: NULL-terminated names of the other commands, whose deck sections
 * this command skips (any other section is an error). Returns 0, or 1 with
 * mu_error() naming the option or file:line. */
int mu_opts_parse(const char *command, const mu_opt_spec *specs, const char *const *sections,
                  int argc, char **argv, int first, mu_opts **out);
/* As mu_opts_parse, with `where` naming argv's source in messages instead of
 * "command line" (a library call's name, say). */
int mu_opts_parse_as(const char *command, const mu_opt_spec *specs, const char *const *sections,
                     int argc, char **argv, int first, const char *where, mu_opts **out);
void mu_opts_free(mu_opts *o);

int mu_opt_set(const mu_opts *o, const char *name); /* given explicitly (not a default) */
int64_t mu_opt_int(const mu_opts *o, const char *name);
/* The integer, checked to lie in [lo, hi]: 0, or 1 after mu_error() naming
 * the option ("--NAME=V: must be LO..HI"). */
int mu_opt_int_in(const mu_opts *o, const char *name, int64_t lo, int64_t hi, int64_t *value);
double mu_opt_real(const mu_opts *o, const char *name);
const char *mu_opt_str(const mu_opts *o, const char *name); /* NULL when unset */
int mu_opt_flag(const mu_opts *o, const char *name);
/* The value is set and is `value` (a choice's, say). */
int mu_opt_is(const mu_opts *o, const char *name, const char *value);
/* The MU_OPT_CHECKPOINT group, checked: --checkpoint-every >= 0, and a file
 * where --checkpoint-every or --restart needs one. */
int mu_opt_checkpoint(const mu_opts *o, const char **file, int64_t *every, int *restart);
/* A NULL-terminated list of option names, for mu_opt_goes_with. */
#define MU_OPT_NAMES(...)                                                                          \
    (const char *const[]) {                                                                        \
        __VA_ARGS__, NULL                                                                          \
    }
/* Options that only another setting uses: fails on the first of `names` given
 * explicitly, "--NAME goes with WITH"; 0 when none is. */
int mu_opt_goes_with(const mu_opts *o, const char *const *names, const char *with);
/* Where the value came from: "default", "command line", or "FILE:LINE". */
const char *mu_opt_source(const mu_opts *o, const char *name);

/* Every MU_OPT_IN path that is set: fn(path, option name, ctx). */
void mu_opts_foreach_input(const mu_opts *o,
                           void (*fn)(const char *path, const char *name, void *ctx), void *ctx);

/* Every option with its value and source, for the run log and the summary. */
void mu_opts_foreach(const mu_opts *o,
                     void (*fn)(const char *name, const char *value, const char *source, void *ctx),
                     void *ctx);

/* The default as help shows it: on/off for flags, "unset" for an empty one. */
const char *mu_opt_default_text(const mu_opt_spec *s);
/* `mutirao <command> --help`: every option with its default. */
void mu_opts_help(FILE *f, const char *command, const char *synopsis, const mu_opt_spec *specs);

/* Parses an integer: decimal, or exact forms such as 2^28 and 1e8. */
int mu_parse_int(const char *text, int64_t *value);

#endif
