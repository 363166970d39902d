/* Memory a rank used: the closing table's rows and the summary's "memory". */
#ifndef MU_MPI_MEMREPORT_H
#define MU_MPI_MEMREPORT_H
#include <mpi.h>

/* Collective. Peak host RSS and peak device memory (gpu/'s allocations) of
 * every rank, as max, min and mean over the ranks: printed by rank 0 under the
 * phase table (unless the log level is error) and put in the summary. */
void mu_mem_report(MPI_Comm comm);

#endif
