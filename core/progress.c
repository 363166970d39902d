#include "core/progress.h"
#include "core/log.h"
#include "core/knobs.h"
#include <mpi.h>
#include <stdlib.h>

void mu_progress_begin(mu_progress *p, const char *phase, const char *unit, double total) {
    p->phase = phase;
    p->unit = unit;
    p->total = total;
    p->start = p->last = MPI_Wtime();
    p->interval = mu_knob_seconds("MUTIRAO_PROGRESS_SECONDS", 10.0);
}

static void line(mu_progress *p, double done, double now) {
    double el = now - p->start, rate = el > 0 ? done / el : 0;
    double eta = rate > 0 ? (p->total - done) / rate : 0;
    mu_info("%s: %5.1f%% (%.4g of %.4g %s), %.4g %s/s, elapsed %.1f s, ETA %.1f s", p->phase,
            p->total > 0 ? 100.0 * done / p->total : 100.0, done, p->total, p->unit, rate, p->unit,
            el, eta);
}

void mu_progress_update(mu_progress *p, double done) {
    double now = MPI_Wtime();
    if (now - p->last < p->interval) return;
    p->last = now;
    line(p, done, now);
}

void mu_progress_end(mu_progress *p, double done) {
    double now = MPI_Wtime();
    if (now - p->start >= p->interval) line(p, done, now);
}
