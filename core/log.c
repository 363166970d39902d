#include "core/log.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int log_rank, log_size = 1;
static mu_log_level log_level = MU_LOG_INFO;
static const char *level_names[] = {"debug", "info", "warn", "error"};

void mu_log_init(int rank, int size) {
    log_rank = rank;
    log_size = size;
}

int mu_log_set_level(const char *name) {
    for (int i = 0; i < 4; i++)
        if (strcmp(name, level_names[i]) == 0) {
            log_level = (mu_log_level)i;
            return 0;
        }
    return 1;
}

mu_log_level mu_log_get_level(void) {
    return log_level;
}

static void emit(mu_log_level level, const char *fmt, va_list ap) {
    char line[2048];
    int n =
        snprintf(line, sizeof line, "[mutirao %d/%d] %s%s", log_rank, log_size,
                 level >= MU_LOG_WARN ? level_names[level] : "", level >= MU_LOG_WARN ? ": " : "");
    if (n < 0 || n >= (int)sizeof line) n = 0;
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    /* One write per line keeps lines from different ranks whole in batch logs. */
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
}

void mu_log(mu_log_level level, const char *fmt, ...) {
    if (level < log_level || (log_rank != 0 && level < MU_LOG_WARN)) return;
    va_list ap;
    va_start(ap, fmt);
    emit(level, fmt, ap);
    va_end(ap);
}

void mu_log_all(mu_log_level level, const char *fmt, ...) {
    if (level < log_level) return;
    va_list ap;
    va_start(ap, fmt);
    emit(level, fmt, ap);
    va_end(ap);
}
