/* Memory per rank, for scaling studies: a decomposition whose data divides
 * shows its peak falling with the rank count; one that keeps everything on
 * every rank shows it flat. */
#include "mpi/memreport.h"
#include <stdio.h>
#include "core/log.h"
#include "core/memory.h"
#include "core/summary.h"
#include "gpu/gpu.h"

static void row(MPI_Comm comm, int show, const char *key, const char *label, double mine) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    double mx, mn, sum;
    MPI_Reduce(&mine, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
    MPI_Reduce(&mine, &mn, 1, MPI_DOUBLE, MPI_MIN, 0, comm);
    MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
    if (rank != 0) return;
    const double mib = 1024.0 * 1024.0;
    if (show)
        fprintf(stderr, "%-28s %11.1f %11.1f %11.1f\n", label, mx / mib, mn / mib,
                sum / size / mib);
    mu_summary_memory(key, mx, mn, sum / size);
}

void mu_mem_report(MPI_Comm comm) {
    int rank;
    MPI_Comm_rank(comm, &rank);
    int show = rank == 0 && mu_log_get_level() < MU_LOG_ERROR;
    if (show)
        fprintf(stderr, "%-28s %11s %11s %11s\n", "peak memory a rank (MiB)", "max", "min", "mean");
    row(comm, show, "host_peak_bytes", "host (resident)", mu_mem_host_peak());
    row(comm, show, "device_peak_bytes", "device (allocated)", (double)mu_gpu_mem_peak());
    if (show) fprintf(stderr, "\n");
}
