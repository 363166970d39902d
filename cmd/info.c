/* `mutirao info`: what this build and this launch have. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app.h"
#include "core/knobs.h"
#include "gpu/gpu.h"
#include "mpi/cuda_aware.h"

static const mu_opt_spec info_opts[] = {MU_OPT_END};

static int info_run(mu_app *app) {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0, major = 0, minor = 0;
    MPI_Get_library_version(lib, &len);
    MPI_Get_version(&major, &minor);
    char *nl = strchr(lib, '\n');
    if (nl) *nl = '\0';

    char line[512];
    const mu_device *d = &app->dev;
    if (d->use_gpu)
        snprintf(line, sizeof line,
                 "  rank %d: node %s, local rank %d of %d, GPU %d: %s (sm_%d%d, %d SMs, %.1f GiB)",
                 app->rank, d->host, d->local_rank, d->local_size, d->info.ordinal, d->info.name,
                 d->info.cc_major, d->info.cc_minor, d->info.sm_count, d->info.mem_gib);
    else
        snprintf(line, sizeof line,
                 "  rank %d: node %s, local rank %d of %d, CPU (%d GPU(s) visible)", app->rank,
                 d->host, d->local_rank, d->local_size, d->visible);
    char *all = app->rank == 0 ? malloc((size_t)app->size * sizeof line) : NULL;
    MPI_Gather(line, (int)sizeof line, MPI_CHAR, all, (int)sizeof line, MPI_CHAR, 0, app->comm);
    if (app->rank != 0) return 0;

    printf("mutirao %s\n", MUTIRAO_VERSION);
    printf("build:       %s, C11%s%s\n", MUTIRAO_BUILD_TYPE,
           mu_gpu_built() ? ", CUDA" : ", CPU only (no CUDA)",
#ifdef MUTIRAO_SANITIZE
           ", AddressSanitizer+UBSan"
#else
           ""
#endif
    );
    printf("MPI:         %s (MPI %d.%d)\n", lib, major, minor);
    const char *how;
    int aware = mu_mpi_cuda_aware(&how);
    printf("CUDA-aware:  %s (%s)%s\n", aware ? "yes" : "no", how,
           aware ? "; cg GPU ranks without peer access hand device buffers to MPI"
                 : "; GPU ranks without peer access send through pinned host memory");
    printf("world size:  %d\n", app->size);
    printf("CUDA:        %s\n", mu_gpu_built() ? mu_gpu_versions() : "not built");
#ifdef MUTIRAO_HAVE_PETSC
    printf("PETSc:       reference program perf/petsc_cg built (%s)\n", MUTIRAO_HAVE_PETSC);
#else
    printf("PETSc:       reference program not built (install petsc-dev and reconfigure)\n");
#endif
#ifdef MUTIRAO_HAVE_HDF5
    printf("HDF5:        parallel HDF5 (MPICH): advect --output-steps available\n");
#else
    printf("HDF5:        not built (needs libhdf5-mpich-dev and MPICH): advect field output off\n");
#endif
#ifdef MUTIRAO_HAVE_NETCDF
    printf("netCDF:      serial netCDF-C (rank 0 writes): advect --nc available\n");
#else
    printf("netCDF:      not built (needs libnetcdf-dev): advect --nc off\n");
#endif
    printf("tuning knobs (environment; they change how, never what, mutirao computes; 'rounding': "
           "a value may change the answer's last bits):\n");
    mu_knobs_print(stdout);
    printf("ranks:\n");
    for (int r = 0; r < app->size; r++) printf("%s\n", all + (size_t)r * sizeof line);
    fflush(stdout);
    free(all);
    return 0;
}

const mu_command mu_cmd_info = {"info", "version, build options, MPI library, ranks and devices",
                                info_opts, info_run};
