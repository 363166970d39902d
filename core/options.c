#define _POSIX_C_SOURCE 200809L
#include "core/options.h"
#include "core/error.h"
#include "core/infile.h"
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The options, one row each (name, type, default, choices, help): core/options.def. */
const mu_opt_spec mu_common_opts[] = {
#include "core/options.def"
    MU_OPT_END};

typedef struct {
    const mu_opt_spec *spec;
    char *value;
    char source[320];
    int explicit_;
    int from_deck;
} opt_slot;

struct mu_opts {
    opt_slot *slots;
    int count;
    const char *command;
};

static opt_slot *find(const mu_opts *o, const char *name) {
    for (int i = 0; i < o->count; i++)
        if (strcmp(o->slots[i].spec->name, name) == 0) return &o->slots[i];
    return NULL;
}

int mu_parse_int(const char *text, int64_t *value) {
    char *end;
    errno = 0;
    long long base = strtoll(text, &end, 10);
    if (end == text || errno) return 1;
    if (*end == '\0') {
        *value = base;
        return 0;
    }
    if (*end == '^' || *end == 'e' || *end == 'E') {
        char op = *end;
        const char *p = end + 1;
        char *end2;
        long long ex = strtoll(p, &end2, 10);
        if (end2 == p || *end2 != '\0' || ex < 0 || ex > 62) return 1;
        double b = op == '^' ? (double)base : (double)base * pow(10.0, (double)ex);
        double v = op == '^' ? pow(b, (double)ex) : b;
        if (!(fabs(v) < 9.2e18)) return 1;
        *value = (int64_t)llround(v);
        return 0;
    }
    return 1;
}

static int check_value(const opt_slot *s, const char *v, const char *where) {
    const mu_opt_spec *sp = s->spec;
    /* An empty value given for a number or a text is refused here, so no
     * reader gets a NULL it did not expect (a path's "" means none). */
    if (!*v && sp->type != MU_OPT_PATH)
        return mu_error("%s: option '%s' needs a value, got an empty one", where, sp->name);
    switch (sp->type) {
    case MU_OPT_INT: {
        int64_t x;
        if (mu_parse_int(v, &x))
            return mu_error("%s: option '%s' expects an integer, got '%s' (at most 9.2e18 in "
                            "size)",
                            where, sp->name, v);
        break;
    }
    case MU_OPT_REAL: {
        char *end;
        errno = 0;
        double x = strtod(v, &end);
        if (end == v || *end || errno || !isfinite(x))
            return mu_error("%s: option '%s' expects a finite number, got '%s'", where, sp->name,
                            v);
        break;
    }
    case MU_OPT_CHOICE: {
        size_t n = strlen(v);
        const char *c = sp->choices;
        int ok = 0;
        while (c && *c) {
            const char *bar = strchr(c, '|');
            size_t len = bar ? (size_t)(bar - c) : strlen(c);
            if (len == n && strncmp(c, v, n) == 0) ok = 1;
            c = bar ? bar + 1 : NULL;
        }
        if (!ok)
            return mu_error("%s: option '%s' expects one of %s, got '%s'", where, sp->name,
                            sp->choices, v);
        break;
    }
    case MU_OPT_FLAG:
        if (strcmp(v, "0") && strcmp(v, "1") && strcmp(v, "true") && strcmp(v, "false") &&
            strcmp(v, "yes") && strcmp(v, "no"))
            return mu_error("%s: option '%s' expects true or false, got '%s'", where, sp->name, v);
        break;
    case MU_OPT_STRING:
    case MU_OPT_PATH:
        break;
    }
    return 0;
}

static int assign(opt_slot *s, const char *v, const char *where) {
    MU_TRY(check_value(s, v, where));
    char *copy = strdup(v);
    if (!copy) return mu_error("out of memory");
    free(s->value);
    s->value = copy;
    snprintf(s->source, sizeof s->source, "%s", where);
    s->explicit_ = 1;
    return 0;
}

/* A deck is read line by line here (NUL bytes and over-long lines are
 * file:line errors, not silently cut or split by inih's fixed buffer) and each
 * line is handed to inih; section heads are checked here too, so that an empty
 * unknown section is caught at its own line. */
enum { DECK_LINE_MAX = 1 << 16 };

typedef struct {
    mu_opts *o;
    const char *path;
    char dir[1024];              /* the deck's folder with its '/', "" for the working one */
    const char *const *sections; /* the other commands: their sections are skipped */
    mu_lines in;
    int failed;
} deck_ctx;

static int other_command(const deck_ctx *d, const char *section) {
    for (const char *const *s = d->sections; s && *s; s++)
        if (!strcmp(*s, section)) return 1;
    return 0;
}

/* A "[name]" line: its name must be [mutirao], this command's or another's. */
static int check_section(deck_ctx *d, const char *line) {
    while (*line == ' ' || *line == '\t') line++;
    if (*line != '[') return 0;
    const char *end = strchr(line, ']');
    if (!end) return 0; /* inih reports it as malformed */
    char name[128];
    size_t len = (size_t)(end - line - 1);
    snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), line + 1);
    if (!strcmp(name, "mutirao") || !strcmp(name, d->o->command) || other_command(d, name))
        return 0;
    return mu_error("%s:%ld: unknown section [%s]: expected [mutirao] (every command) or a "
                    "command's name such as [%s]",
                    d->path, d->in.lineno, name, d->o->command);
}

static char *deck_read_line(char *str, int num, void *stream) {
    deck_ctx *d = stream;
    if (d->failed) return NULL;
    int got = mu_lines_next(&d->in);
    if (got < 0) d->failed = 1;
    if (got <= 0) return NULL;
    if (d->in.len + 3 > (size_t)num) { /* inih needs room for CR, LF and NUL */
        d->failed = mu_error("%s:%ld: line of %zu bytes: a deck line may hold at most %d", d->path,
                             d->in.lineno, d->in.len, num - 3);
        return NULL;
    }
    if ((d->failed = check_section(d, d->in.line))) return NULL;
    memcpy(str, d->in.line, d->in.len);
    str[d->in.len] = '\n';
    str[d->in.len + 1] = '\0';
    return str;
}

/* A path from the deck is taken from the deck's folder (absolute ones as they are). */
static int assign_from_deck(deck_ctx *d, opt_slot *s, const char *value, const char *where) {
    s->from_deck = 1;
    if (s->spec->type != MU_OPT_PATH || !*value || value[0] == '/' || !d->dir[0])
        return assign(s, value, where);
    size_t len = strlen(d->dir) + strlen(value) + 1;
    char *joined = malloc(len);
    if (!joined) return mu_error("out of memory");
    snprintf(joined, len, "%s%s", d->dir, value);
    int rc = assign(s, joined, where);
    free(joined);
    return rc;
}

static int deck_entry(void *user, const char *section, const char *name, const char *value) {
    deck_ctx *d = user;
    char where[300];
    snprintf(where, sizeof where, "%s:%ld", d->path, d->in.lineno);
    if (d->failed) return 0;
    if (*section && strcmp(section, "mutirao") && strcmp(section, d->o->command)) {
        if (other_command(d, section)) return 1; /* another command's keys */
        d->failed = mu_error("%s: section [%s] is not [mutirao], [%s] or another command's", where,
                             section, d->o->command);
        return 0;
    }
    opt_slot *s = find(d->o, name);
    if (!s || strcmp(name, "config") == 0) {
        d->failed = mu_error("%s: unknown key '%s' for 'mutirao %s' (see --help)", where, name,
                             d->o->command);
        return 0;
    }
    if (s->explicit_ && !s->from_deck) return 1; /* the command line wins */
    if (assign_from_deck(d, s, value, where)) d->failed = 1;
    return !d->failed;
}

static int read_deck(mu_opts *o, const char *path, const char *const *sections) {
    deck_ctx d = {.o = o, .path = path, .sections = sections};
    const char *slash = strrchr(path, '/');
    size_t dlen = slash ? (size_t)(slash - path) + 1 : 0;
    if (dlen >= sizeof d.dir) return mu_error("job deck '%s': the folder's name is too long", path);
    memcpy(d.dir, path, dlen);
    d.dir[dlen] = '\0';
    if (mu_lines_open(&d.in, path, "job deck", DECK_LINE_MAX)) return 1;
    int rc = ini_parse_stream(deck_read_line, &d, deck_entry, &d);
    mu_lines_close(&d.in);
    if (d.failed) return 1;
    if (rc > 0) return mu_error("%s:%d: malformed line (expected 'key = value')", path, rc);
    if (rc < 0) return mu_error("cannot read job deck '%s'", path);
    return 0;
}

int mu_opts_parse(const char *command, const mu_opt_spec *specs, const char *const *sections,
                  int argc, char **argv, int first, mu_opts **out) {
    return mu_opts_parse_as(command, specs, sections, argc, argv, first, "command line", out);
}

int mu_opts_parse_as(const char *command, const mu_opt_spec *specs, const char *const *sections,
                     int argc, char **argv, int first, const char *where, mu_opts **out) {
    *out = NULL;
    int n = 0;
    for (const mu_opt_spec *s = specs; s && s->name; s++) n++;
    for (const mu_opt_spec *s = mu_common_opts; s->name; s++) n++;
    mu_opts *o = calloc(1, sizeof *o);
    if (!o || !(o->slots = calloc((size_t)n, sizeof *o->slots))) {
        free(o);
        return mu_error("out of memory");
    }
    o->command = command;
    for (const mu_opt_spec *s = specs; s && s->name; s++) o->slots[o->count++].spec = s;
    for (const mu_opt_spec *s = mu_common_opts; s->name; s++) o->slots[o->count++].spec = s;
    for (int i = 0; i < o->count; i++) {
        o->slots[i].value = strdup(o->slots[i].spec->def);
        snprintf(o->slots[i].source, sizeof o->slots[i].source, "default");
    }
    *out = o;
    /* Command line first, so the deck cannot override it. */
    for (int i = first; i < argc; i++) {
        const char *a = strcmp(argv[i], "-h") == 0 ? "--help" : argv[i];
        if (strncmp(a, "--", 2) != 0)
            return mu_error("unexpected argument '%s' (options are --key=value or --key value)", a);
        const char *eq = strchr(a + 2, '=');
        char name[128];
        size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        if (len >= sizeof name) return mu_error("option '%s' is too long", a);
        memcpy(name, a + 2, len);
        name[len] = '\0';
        opt_slot *s = find(o, name);
        if (!s)
            return mu_error("unknown option '--%s' for 'mutirao %s' (see --help)", name, command);
        const char *v = eq ? eq + 1 : NULL;
        if (!v && s->spec->type == MU_OPT_FLAG) v = "1";
        if (!v && i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0)
            v = argv[++i]; /* --key value */
        if (!v)
            return mu_error("option '--%s' needs a value (--%s=... or --%s ...)", name, name, name);
        MU_TRY(assign(s, v, where));
    }
    const char *deck = mu_opt_str(o, "config");
    if (deck) MU_TRY(read_deck(o, deck, sections));
    return 0;
}

void mu_opts_free(mu_opts *o) {
    if (!o) return;
    for (int i = 0; i < o->count; i++) free(o->slots[i].value);
    free(o->slots);
    free(o);
}

static const opt_slot *must(const mu_opts *o, const char *name) {
    const opt_slot *s = find(o, name);
    if (!s) {
        fprintf(stderr, "mutirao: internal error: option '%s' is not declared\n", name);
        abort();
    }
    return s;
}

int mu_opt_set(const mu_opts *o, const char *name) {
    return must(o, name)->explicit_;
}

int mu_opt_int_in(const mu_opts *o, const char *name, int64_t lo, int64_t hi, int64_t *value) {
    *value = mu_opt_int(o, name);
    if (*value < lo || *value > hi)
        return mu_error("--%s=%s: must be %lld..%lld", name, must(o, name)->value, (long long)lo,
                        (long long)hi);
    return 0;
}

void mu_opts_foreach_input(const mu_opts *o, void (*fn)(const char *, const char *, void *),
                           void *ctx) {
    for (int i = 0; i < o->count; i++) {
        const mu_opt_spec *s = o->slots[i].spec;
        if (s->type == MU_OPT_PATH && s->choices && !strcmp(s->choices, MU_OPT_IN) &&
            *o->slots[i].value)
            fn(o->slots[i].value, s->name, ctx);
    }
}

int64_t mu_opt_int(const mu_opts *o, const char *name) {
    int64_t v = 0;
    const opt_slot *s = must(o, name);
    if (*s->value) mu_parse_int(s->value, &v);
    return v;
}

double mu_opt_real(const mu_opts *o, const char *name) {
    return strtod(must(o, name)->value, NULL);
}

const char *mu_opt_str(const mu_opts *o, const char *name) {
    const opt_slot *s = must(o, name);
    return *s->value ? s->value : NULL;
}

int mu_opt_flag(const mu_opts *o, const char *name) {
    const char *v = must(o, name)->value;
    return !strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes");
}

int mu_opt_is(const mu_opts *o, const char *name, const char *value) {
    const char *v = mu_opt_str(o, name);
    return v && !strcmp(v, value);
}

int mu_opt_checkpoint(const mu_opts *o, const char **file, int64_t *every, int *restart) {
    *file = mu_opt_str(o, "checkpoint");
    *every = mu_opt_int(o, "checkpoint-every");
    *restart = mu_opt_flag(o, "restart");
    if (*every < 0) return mu_error("--checkpoint-every must be >= 0");
    if (*every && !*file) return mu_error("--checkpoint-every needs --checkpoint=FILE");
    if (*restart && !*file) return mu_error("--restart needs --checkpoint=FILE");
    return 0;
}

int mu_opt_goes_with(const mu_opts *o, const char *const *names, const char *with) {
    for (; *names; names++)
        if (mu_opt_set(o, *names)) return mu_error("--%s goes with %s", *names, with);
    return 0;
}

const char *mu_opt_source(const mu_opts *o, const char *name) {
    return must(o, name)->source;
}

void mu_opts_foreach(const mu_opts *o, void (*fn)(const char *, const char *, const char *, void *),
                     void *ctx) {
    for (int i = 0; i < o->count; i++)
        fn(o->slots[i].spec->name, o->slots[i].value, o->slots[i].source, ctx);
}

const char *mu_opt_default_text(const mu_opt_spec *s) {
    if (s->type == MU_OPT_FLAG) return strcmp(s->def, "1") ? "off" : "on";
    return *s->def ? s->def : "unset";
}

void mu_opts_help(FILE *f, const char *command, const char *synopsis, const mu_opt_spec *specs) {
    fprintf(f, "usage: mutirao %s [--key=value ...]\n%s\n\noptions (default in brackets):\n",
            command, synopsis);
    const mu_opt_spec *tables[2] = {specs, mu_common_opts};
    for (int t = 0; t < 2; t++)
        for (const mu_opt_spec *s = tables[t]; s && s->name; s++) {
            char left[96];
            if (s->type == MU_OPT_CHOICE)
                snprintf(left, sizeof left, "--%s=%s", s->name, s->choices);
            else if (s->type == MU_OPT_FLAG)
                snprintf(left, sizeof left, "--%s", s->name);
            else
                snprintf(left, sizeof left, "--%s=%s", s->name,
                         s->type == MU_OPT_INT    ? "N"
                         : s->type == MU_OPT_REAL ? "X"
                         : s->type == MU_OPT_PATH ? "FILE"
                                                  : "VALUE");
            fprintf(f, "  %-30s %s [%s]\n", left, s->help, mu_opt_default_text(s));
        }
}
