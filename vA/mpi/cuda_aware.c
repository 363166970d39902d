/* The run-time query of mpi/cuda_aware.h. */
#include "mpi/cuda_aware.h"
#include <mpi.h>
#if defined(OPEN_MPI) && defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

int mu_mpi_cuda_aware(const char **how) {
#if defined(MPICH) && defined(MPIX_GPU_SUPPORT_CUDA)
    int yes = 0;
    *how = "MPIX_GPU_query_support";
    if (MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &yes) != MPI_SUCCESS) return 0;
    return yes != 0;
#elif defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
    *how = "MPIX_Query_cuda_support";
    return MPIX_Query_cuda_support() != 0;
#else
    *how = "no query in this MPI library";
    return 0;
#endif
}
