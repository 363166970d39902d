/* Progress lines for long phases: one line at a time, at most every few
 * seconds (MUTIRAO_PROGRESS_SECONDS, default 10), with rate and ETA, fit for
 * batch log files. Only the caller's rank prints (normally the master). */
#ifndef MU_CORE_PROGRESS_H
#define MU_CORE_PROGRESS_H
#include <stdint.h>

typedef struct {
    const char *phase, *unit;
    double total, start, last;
    double interval;
} mu_progress;

void mu_progress_begin(mu_progress *p, const char *phase, const char *unit, double total);
/* Prints when the interval has passed since the last line. */
void mu_progress_update(mu_progress *p, double done);
void mu_progress_end(mu_progress *p, double done);

#endif
