/* Waiting on MPI without starving an oversubscribed node. MPICH spins while it
 * waits; with more ranks than cores on a node (tests on a 2-core machine, a
 * laptop) a spinning rank holds the core its partner needs, and every
 * collective then costs a scheduler time slice instead of microseconds. In
 * polite mode the waits poll and call sched_yield() between polls, as
 * OpenMPI's mpi_yield_when_idle does. Polite mode is chosen when a node has
 * more ranks than the CPUs this process may run on, or forced with
 * MUTIRAO_MPI_YIELD=1 (0 turns it off). Results never depend on the mode. */
#ifndef MU_MPI_WAIT_H
#define MU_MPI_WAIT_H
#include <mpi.h>

/* local_ranks: ranks on this node (mu_device.local_size). */
void mu_wait_configure(int local_ranks);
int mu_wait_polite(void);

void mu_waitall(int count, MPI_Request *req, MPI_Status *status);
/* In-place MPI_Allreduce. */
void mu_allreduce(void *buf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);

#endif
