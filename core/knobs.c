#include "core/knobs.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/log.h"
#include "core/summary.h"

typedef struct {
    const char *name, *values, *what;
} knob;

/* The knobs, one row each (name, values, help [default]): core/knobs.def. */
static const knob knobs[] = {
#include "core/knobs.def"
};
enum { NKNOBS = sizeof knobs / sizeof knobs[0] };

/* The knobs whose value can change the answer's last bits (the order of a
 * sum), never its meaning; every other gives the same bits whatever its value. */
static const char *const rounding[] = {"MUTIRAO_CG_LANES"};

static int changes_rounding(const knob *k) {
    for (size_t i = 0; i < sizeof rounding / sizeof rounding[0]; i++)
        if (!strcmp(rounding[i], k->name)) return 1;
    return 0;
}

static const knob *find(const char *name) {
    for (int i = 0; i < NKNOBS; i++)
        if (!strcmp(knobs[i].name, name)) return &knobs[i];
    return NULL;
}

const char *mu_knob(const char *name) {
    if (!find(name)) {
        mu_log(MU_LOG_ERROR, "internal: tuning knob %s is not registered (core/knobs.def)", name);
        abort();
    }
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* v is one of the '|'-separated words of spec. */
static int one_of(const char *spec, const char *v) {
    size_t n = strlen(v);
    for (const char *w = spec; w; w = strchr(w, '|')) {
        if (*w == '|') w++;
        if (!strncmp(w, v, n) && (w[n] == '|' || w[n] == '\0')) return 1;
    }
    return 0;
}

/* v is an integer in "lo..hi". */
static int in_range(const char *spec, const char *v) {
    char *end;
    long lo = strtol(spec, &end, 10), hi = strtol(end + 2, NULL, 10);
    errno = 0;
    long x = strtol(v, &end, 10);
    return !errno && end != v && !*end && x >= lo && x <= hi;
}

/* v is what the knob's values column allows: words a|b|c, a range lo..hi, or
 * "seconds" (a positive number). */
static int knob_valid(const knob *k, const char *v) {
    if (strstr(k->values, "..")) return in_range(k->values, v);
    if (!strcmp(k->values, "seconds")) {
        char *end;
        double s = strtod(v, &end);
        return end != v && !*end && isfinite(s) && s > 0;
    }
    return one_of(k->values, v);
}

int mu_knob_flag(const char *name, int dflt) {
    const char *v = mu_knob(name);
    return v && knob_valid(find(name), v) ? strcmp(v, "0") != 0 : dflt;
}

int mu_knob_int(const char *name, int dflt) {
    const char *v = mu_knob(name);
    return v && knob_valid(find(name), v) ? (int)strtol(v, NULL, 10) : dflt;
}

double mu_knob_seconds(const char *name, double dflt) {
    const char *v = mu_knob(name);
    return v && knob_valid(find(name), v) ? strtod(v, NULL) : dflt;
}

int mu_knobs_check(void) {
    for (int i = 0; i < NKNOBS; i++) {
        const char *v = mu_knob(knobs[i].name);
        if (v && !knob_valid(&knobs[i], v))
            return mu_error("environment: %s=%s: expected %s (%s)", knobs[i].name, v,
                            knobs[i].values, knobs[i].what);
    }
    return 0;
}

void mu_knobs_print(FILE *out) {
    for (int i = 0; i < NKNOBS; i++) {
        const char *v = getenv(knobs[i].name);
        fprintf(out, "  %-26s %-16s %-9s %s%s%s\n", knobs[i].name, knobs[i].values,
                changes_rounding(&knobs[i]) ? "rounding" : "same bits", knobs[i].what,
                v && *v ? "; set here: " : "", v && *v ? v : "");
    }
}

void mu_knobs_report(void) {
    int same = 1;
    for (int i = 0; i < NKNOBS; i++) {
        const char *v = mu_knob(knobs[i].name);
        if (!v) continue;
        mu_info("tuning knob %s = %s%s", knobs[i].name, v,
                changes_rounding(&knobs[i]) ? " (it may change the answer's last bits)" : "");
        mu_summary_knob(knobs[i].name, v);
        if (changes_rounding(&knobs[i])) same = 0;
    }
    mu_summary_bool("knobs_same_bits", same);
}
