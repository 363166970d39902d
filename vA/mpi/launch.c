#include "mpi/launch.h"
#include <stdio.h>
#include <stdlib.h>
#include "core/error.h"

static int env_int(const char *name, long *value) {
    const char *s = getenv(name);
    if (!s || !*s) return 0;
    char *end;
    *value = strtol(s, &end, 10);
    return *end == '\0';
}

/* "SLURM_STEP_NUM_TASKS=4, PMI_SIZE=2": every launcher count that is set. */
static void counts_text(char *buf, size_t len, const char *const *names, const long *vals,
                        const int *have, int n) {
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && o < len; i++)
        if (have[i])
            o += (size_t)snprintf(buf + o, len - o, "%s%s=%ld", o ? ", " : "", names[i], vals[i]);
}

/* Every count a launcher set is compared with the world size. The MPI
 * launcher's own count (PMI_SIZE from Hydra or Slurm's pmi2, OpenMPI's world
 * size) must equal it. Slurm's step count must too, unless an MPI launcher
 * inside the step started the ranks: Hydra under Slurm runs one proxy task a
 * node, so the step may have fewer tasks than the world, but never more (that
 * is srun starting several copies of mpiexec, each its own world). */
int mu_launch_check(MPI_Comm world) {
    int size;
    MPI_Comm_size(world, &size);
    const char *names[3] = {"SLURM_STEP_NUM_TASKS", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE"};
    long v[3] = {0, 0, 0};
    int have[3];
    have[0] = env_int(names[0], &v[0]);
    if (!have[0] && getenv("SLURM_STEP_ID")) {
        names[0] = "SLURM_NTASKS";
        have[0] = env_int(names[0], &v[0]);
    }
    have[1] = env_int(names[1], &v[1]);
    have[2] = env_int(names[2], &v[2]);
    char counts[192];
    counts_text(counts, sizeof counts, names, v, have, 3);
    if (have[2] && v[2] != size)
        return mu_error("launched as %ld processes by OpenMPI's mpirun, but the MPI library sees a "
                        "world of %d (%s): this binary is linked with another MPI (use that "
                        "library's mpiexec, e.g. mpiexec.mpich, or srun --mpi=pmi2)",
                        v[2], size, counts);
    if (have[1] && v[1] != size)
        return mu_error("PMI_SIZE=%ld but MPI_Comm_size is %d (%s): the launcher and the MPI "
                        "library do not match (use the library's own mpiexec, or 'srun "
                        "--mpi=pmi2' for MPICH)",
                        v[1], size, counts);
    int mpi_launcher = have[1] || have[2];
    if (have[0] && (mpi_launcher ? v[0] > size : v[0] != size))
        return mu_error("%s=%ld but MPI_Comm_size is %d (%s): %s", names[0], v[0], size, counts,
                        mpi_launcher
                            ? "the Slurm step started several copies of the MPI launcher, each "
                              "its own world (run mpiexec once in the batch script, or srun "
                              "--mpi=pmi2 without mpiexec)"
                            : "the launcher and the MPI library do not match (likely the wrong "
                              "--mpi plugin: with MPICH use 'srun --mpi=pmi2')");
    return 0;
}
