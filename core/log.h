/* Logging with rank prefixes and levels. By default info lines come from rank 0
 * only; mu_log_all() prints from every rank. Lines go to stderr, unbuffered by line. */
#ifndef MU_CORE_LOG_H
#define MU_CORE_LOG_H

typedef enum { MU_LOG_DEBUG = 0, MU_LOG_INFO = 1, MU_LOG_WARN = 2, MU_LOG_ERROR = 3 } mu_log_level;

void mu_log_init(int rank, int size);
/* Parses "debug", "info", "warn" or "error"; returns nonzero on anything else. */
int mu_log_set_level(const char *name);
mu_log_level mu_log_get_level(void);

void mu_log(mu_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mu_log_all(mu_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define mu_info(...) mu_log(MU_LOG_INFO, __VA_ARGS__)
#define mu_warn(...) mu_log(MU_LOG_WARN, __VA_ARGS__)
#define mu_debug(...) mu_log(MU_LOG_DEBUG, __VA_ARGS__)

#endif
