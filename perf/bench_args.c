#include "bench_args.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int bench_int(const char *value, void *to) {
    *(int *)to = atoi(value);
    return 0;
}

int bench_i64(const char *value, void *to) {
    *(int64_t *)to = atoll(value);
    return 0;
}

int bench_real(const char *value, void *to) {
    *(double *)to = atof(value);
    return 0;
}

int bench_text(const char *value, void *to) {
    *(const char **)to = value;
    return 0;
}

int bench_on(const char *value, void *to) {
    (void)value;
    *(int *)to = 1;
    return 0;
}

int bench_off(const char *value, void *to) {
    (void)value;
    *(int *)to = 0;
    return 0;
}

/* Whether a row's word takes a; *value the text after its '=', or NULL. */
static int match(const char *word, const char *a, const char **value) {
    const size_t n = strlen(word);
    const int optional = n > 3 && !strcmp(word + n - 3, "[=]");
    const int valued = !optional && n > 0 && word[n - 1] == '=';
    const size_t name = optional ? n - 3 : valued ? n - 1 : n; /* "--big", "--reps" */
    if (strncmp(a, word, name)) return 0;
    *value = a[name] == '=' && (optional || valued) ? a + name + 1 : NULL;
    return *value || (!valued && !a[name]);
}

const char *bench_args(int argc, char **argv, const bench_arg *rows, int n) {
    for (int i = 1; i < argc; i++) {
        int r = 0;
        for (const char *v; r < n; r++)
            if (match(rows[r].word, argv[i], &v) && !rows[r].take(v, rows[r].to)) break;
        if (r == n) return argv[i];
    }
    return NULL;
}
