/* Error reporting. Functions return 0 on success and nonzero on failure, after
 * recording one message with mu_error() (core/message.h). Collective points call
 * mu_error_collective(): if any rank failed, every rank learns it, the message
 * of the lowest failing rank is printed once, and every rank exits non-zero. */
#ifndef MU_CORE_ERROR_H
#define MU_CORE_ERROR_H
#include <mpi.h>
#include "core/message.h"

/* Collective over comm: returns 0 when local_rc == 0 on every rank. Otherwise
 * prints "mutirao: error: <message>" once (from rank 0) and returns 1 on every rank. */
int mu_error_collective(MPI_Comm comm, int local_rc);
/* The in-place allreduce of core's collectives (mu_error_collective, the
 * exact sums): mpi/wait.c sets its mu_allreduce, which yields the core where
 * ranks outnumber cores (core does not depend on mpi/); NULL: MPI_Allreduce. */
typedef void (*mu_error_reducer)(void *buf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
void mu_error_set_reducer(mu_error_reducer reducer);
void mu_error_allreduce(void *buf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);

/* Collective: report as above if any rank failed, then finalize MPI and exit(1)
 * on every rank. Returns only when every rank succeeded. */
void mu_error_check_or_exit(MPI_Comm comm, int local_rc);

#endif
