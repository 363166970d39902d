/* Whether the MPI library moves CUDA device memory itself (CUDA-aware MPI),
 * asked at run time the way each library documents it: MPICH's
 * MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA), Open MPI's
 * MPIX_Query_cuda_support() from <mpi-ext.h> (where its CUDA extension is
 * built). mutirao's GPU ranks that cannot open each other's memory send
 * through pinned host buffers; the answer is reported (mutirao info, the run
 * header and summary) so that a user knows which path a cluster's MPI allows. */
#ifndef MU_MPI_CUDA_AWARE_H
#define MU_MPI_CUDA_AWARE_H

/* 1 if CUDA-aware, 0 if not or unknown; *how: the query asked, or why none
 * could be (after MPI_Init). */
int mu_mpi_cuda_aware(const char **how);

#endif
