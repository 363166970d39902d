#include "core/timer.h"
#include "core/log.h"
#include "core/summary.h"
#include <stdio.h>
#include <string.h>

enum { MAX_PHASES = 32, NAME_MAX_LEN = 32 };
static struct {
    char name[NAME_MAX_LEN];
    double total, started;
    long count;
    int depth; /* phases open around its first start: nested ones are indented */
} phases[MAX_PHASES];
static int nphases, open_phases;
static double run_start = -1;

static int slot(const char *phase) {
    for (int i = 0; i < nphases; i++)
        if (strcmp(phases[i].name, phase) == 0) return i;
    if (nphases == MAX_PHASES) return MAX_PHASES - 1;
    snprintf(phases[nphases].name, NAME_MAX_LEN, "%s", phase);
    phases[nphases].depth = open_phases;
    return nphases++;
}

void mu_timer_begin(const char *phase) {
    double now = MPI_Wtime();
    if (run_start < 0) run_start = now;
    phases[slot(phase)].started = now;
    open_phases++;
}

void mu_timer_end(const char *phase) {
    int i = slot(phase);
    phases[i].total += MPI_Wtime() - phases[i].started;
    phases[i].count++;
    if (open_phases > 0) open_phases--;
}

void mu_timer_add(const char *phase, double seconds, long count) {
    if (run_start < 0) run_start = MPI_Wtime() - seconds;
    int i = slot(phase);
    phases[i].total += seconds;
    phases[i].count += count;
}

double mu_timer_seconds(const char *phase) {
    for (int i = 0; i < nphases; i++)
        if (strcmp(phases[i].name, phase) == 0) return phases[i].total;
    return 0;
}

/* The name column: wide enough for rank 0's names and their indents. */
static int name_width(void) {
    int w = 20;
    for (int i = 0; i < nphases; i++) {
        int len = (int)strlen(phases[i].name) + 2 * phases[i].depth;
        if (len > w) w = len;
    }
    return w;
}

void mu_timer_report(MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    double wall = run_start < 0 ? 0 : MPI_Wtime() - run_start, wall_max = 0;
    MPI_Reduce(&wall, &wall_max, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
    int show = rank == 0 && mu_log_get_level() < MU_LOG_ERROR, w = name_width();
    if (show)
        fprintf(stderr, "\n%-*s %7s %11s %11s %11s %7s\n", w, "phase", "count", "max (s)",
                "min (s)", "mean (s)", "%total");
    /* Rank 0's phases name the rows; a rank that never ran one counts 0 s, so
     * ranks with different phase lists cannot hang the table. */
    int count = nphases, nested = 0;
    MPI_Bcast(&count, 1, MPI_INT, 0, comm);
    for (int i = 0; i < count; i++) {
        char name[NAME_MAX_LEN];
        if (rank == 0) memcpy(name, phases[i].name, NAME_MAX_LEN);
        MPI_Bcast(name, NAME_MAX_LEN, MPI_CHAR, 0, comm);
        double t = mu_timer_seconds(name), mx, mn, sum;
        MPI_Reduce(&t, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
        MPI_Reduce(&t, &mn, 1, MPI_DOUBLE, MPI_MIN, 0, comm);
        MPI_Reduce(&t, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
        if (rank != 0) continue;
        double pct = wall_max > 0 ? 100.0 * mx / wall_max : 0;
        int d = phases[i].depth;
        nested |= d > 0;
        if (show)
            fprintf(stderr, "%*s%-*s %7ld %11.4g %11.4g %11.4g %6.1f%%\n", 2 * d, "", w - 2 * d,
                    name, phases[i].count, mx, mn, sum / size, pct);
        mu_summary_phase(name, mx, mn, sum / size);
    }
    if (rank == 0) {
        if (show) {
            fprintf(stderr, "%-*s %7s %11.4g\n", w, "total wall", "", wall_max);
            if (nested) fprintf(stderr, "(indented phases run inside the phase above them)\n");
            fprintf(stderr, "\n");
        }
        mu_summary_real("wall_seconds", wall_max);
        fflush(stderr);
    }
}
