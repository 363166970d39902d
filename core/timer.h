/* Phase timers: named phases accumulate wall time; the end-of-run table gives,
 * per phase, the max, min and mean over ranks and the share of the total
 * (like PETSc's -log_view). The table is collective; its rows are rank 0's phases. */
#ifndef MU_CORE_TIMER_H
#define MU_CORE_TIMER_H
#include <mpi.h>

void mu_timer_begin(const char *phase);
void mu_timer_end(const char *phase);
/* Adds seconds measured elsewhere (host threads, which must not touch the
 * table) to a phase, as count begin/end pairs. */
void mu_timer_add(const char *phase, double seconds, long count);
/* Seconds accumulated in a phase on this rank (0 if never run). */
double mu_timer_seconds(const char *phase);
/* Collective: prints the table from rank 0 and adds it to the JSON summary. */
void mu_timer_report(MPI_Comm comm);

#endif
