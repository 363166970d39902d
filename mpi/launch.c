#include "mpi/launch.h"
#include "core/error.h"
#include <stdlib.h>

static int env_int(const char *name, long *value) {
    const char *s = getenv(name);
    if (!s || !*s) return 0;
    char *end;
    *value = strtol(s, &end, 10);
    return *end == '\0';
}

int mu_launch_check(MPI_Comm world) {
    int size;
    MPI_Comm_size(world, &size);
    long n;
    /* The MPI launcher's own count, when it agrees, settles it (mpiexec inside an allocation). */
    if (env_int("PMI_SIZE", &n) && n == size) return 0;
    if (env_int("OMPI_COMM_WORLD_SIZE", &n)) {
        if (n == size) return 0;
        return mu_error("launched as %ld processes by OpenMPI's mpirun, but the MPI library sees a "
                        "world of %d: this binary is linked with another MPI (use that library's "
                        "mpiexec, e.g. mpiexec.mpich, or srun --mpi=pmi2)",
                        n, size);
    }
    const char *which = "SLURM_STEP_NUM_TASKS";
    int have = env_int(which, &n);
    if (!have && getenv("SLURM_STEP_ID")) {
        which = "SLURM_NTASKS";
        have = env_int(which, &n);
    }
    if (have && n != size)
        return mu_error("%s=%ld but MPI_Comm_size is %d: the launcher and the MPI library do not "
                        "match (likely the wrong --mpi plugin: with MPICH use 'srun --mpi=pmi2')",
                        which, n, size);
    if (env_int("PMI_SIZE", &n) && n != size)
        return mu_error("PMI_SIZE=%ld but MPI_Comm_size is %d: the launcher and the MPI library do "
                        "not match (use the library's own mpiexec, or 'srun --mpi=pmi2' for MPICH)",
                        n, size);
    return 0;
}
