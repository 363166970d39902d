/* Launch sanity: a launcher that does not match the MPI library starts N
 * separate one-rank jobs and no error (srun --mpi=none with MPICH, OpenMPI's
 * mpirun with an MPICH binary). Compare what the launcher says with the world size. */
#ifndef MU_MPI_LAUNCH_H
#define MU_MPI_LAUNCH_H
#include <mpi.h>

/* Returns 0, or 1 with mu_error() naming the mismatch and the likely fix. Local: needs no
 * communication, since a mismatched launch has no working communicator to use. */
int mu_launch_check(MPI_Comm world);

#endif
