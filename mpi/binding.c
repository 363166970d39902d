#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "mpi/binding.h"
#include <sched.h>
#include "core/error.h"
#include "core/log.h"
#include "core/summary.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int mu_device_bind(MPI_Comm comm, const char *mode, mu_device *dev) {
    memset(dev, 0, sizeof *dev);
    MPI_Comm node;
    int rank, len = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &dev->local_rank);
    MPI_Comm_size(node, &dev->local_size);
    MPI_Comm_free(&node);
    MPI_Get_processor_name(dev->host, &len);

    int want = strcmp(mode, "cpu") != 0;
    dev->visible = want ? mu_gpu_device_count() : 0;
    int rc = 0;
    if (want && dev->visible > 0) {
        int ordinal = dev->local_rank % dev->visible;
        rc =
            MU_GPU(mu_gpu_select(ordinal, &dev->info), "%s: cannot use GPU %d", dev->host, ordinal);
        if (!rc) dev->use_gpu = 1;
    } else if (strcmp(mode, "gpu") == 0) {
        rc = mu_error("--device=gpu but %s sees no CUDA device%s", dev->host,
                      mu_gpu_built() ? "" : " (this build has no CUDA support)");
    }
    MU_TRY(mu_error_collective(comm, rc));
    mu_cpu_share(comm, dev);
    int cpu_ranks = 0, mine = !dev->use_gpu;
    MPI_Allreduce(&mine, &cpu_ranks, 1, MPI_INT, MPI_SUM, comm);
    if (want && cpu_ranks > 0)
        mu_info("no GPU on %d rank(s)%s: they run on the CPU", cpu_ranks,
                mu_gpu_built() ? "" : " (built without CUDA)");
    return 0;
}

/* The summary's "layout" (each rank's node, node-local rank and device) and
 * "nodes" (distinct node names), on rank 0. */
static void summary_layout(MPI_Comm comm, int rank, int size, const mu_device *dev) {
    typedef struct {
        char node[MPI_MAX_PROCESSOR_NAME];
        int local_rank, local_size, ordinal;
    } place;
    place mine;
    memset(&mine, 0, sizeof mine);
    snprintf(mine.node, sizeof mine.node, "%s", dev->host);
    mine.local_rank = dev->local_rank;
    mine.local_size = dev->local_size;
    mine.ordinal = dev->use_gpu ? dev->info.ordinal : -1;
    place *all = rank == 0 ? malloc((size_t)size * sizeof *all) : NULL;
    MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0, comm);
    if (!all) return;
    int nodes = 0;
    for (int r = 0; r < size; r++) {
        char device[32] = "cpu";
        if (all[r].ordinal >= 0) snprintf(device, sizeof device, "gpu %d", all[r].ordinal);
        mu_summary_rank(r, all[r].node, all[r].local_rank, all[r].local_size, device);
        int seen = 0;
        for (int q = 0; q < r && !seen; q++) seen = !strcmp(all[q].node, all[r].node);
        nodes += !seen;
    }
    mu_summary_int("nodes", nodes);
    free(all);
}

void mu_device_report(MPI_Comm comm, const mu_device *dev) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    char line[512];
    if (dev->use_gpu)
        snprintf(line, sizeof line,
                 "rank %d: host %s, local rank %d/%d, GPU %d %s (sm_%d%d, %d SMs, %.1f GiB, %s)",
                 rank, dev->host, dev->local_rank, dev->local_size, dev->info.ordinal,
                 dev->info.name, dev->info.cc_major, dev->info.cc_minor, dev->info.sm_count,
                 dev->info.mem_gib, dev->info.pci_bus_id);
    else
        snprintf(line, sizeof line, "rank %d: host %s, local rank %d/%d, CPU", rank, dev->host,
                 dev->local_rank, dev->local_size);
    char *all = NULL;
    if (rank == 0) all = malloc((size_t)size * sizeof line);
    MPI_Gather(line, (int)sizeof line, MPI_CHAR, all, (int)sizeof line, MPI_CHAR, 0, comm);
    if (rank == 0) {
        for (int r = 0; r < size; r++) mu_info("%s", all + (size_t)r * sizeof line);
        free(all);
    }
    summary_layout(comm, rank, size, dev);
}

/* How many of the node's ranks have affinity masks that overlap this rank's:
 * all of them when the launcher did not bind, only this one when it bound
 * each rank to its own CPUs. */
static int mask_sharers(MPI_Comm comm, const cpu_set_t *mine) {
    MPI_Comm node;
    int local = 1, sharers = 0;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &local);
    cpu_set_t *all = malloc((size_t)local * sizeof *all);
    if (!all) { /* assume the worst: every rank of the node shares the mask */
        cpu_set_t dummy;
        MPI_Allgather(mine, (int)sizeof *mine, MPI_BYTE, &dummy, 0, MPI_BYTE, node);
        MPI_Comm_free(&node);
        return local;
    }
    MPI_Allgather(mine, (int)sizeof *mine, MPI_BYTE, all, (int)sizeof *mine, MPI_BYTE, node);
    MPI_Comm_free(&node);
    for (int r = 0; r < local; r++) {
        cpu_set_t both;
        CPU_AND(&both, &all[r], mine);
        sharers += CPU_COUNT(&both) > 0;
    }
    free(all);
    return sharers > 0 ? sharers : 1;
}

static int positive_env(const char *name) {
    const char *v = getenv(name);
    char *end;
    long n = v ? strtol(v, &end, 10) : 0;
    return v && *end == '\0' && n > 0 && n <= 4096 ? (int)n : 0;
}

void mu_cpu_share(MPI_Comm comm, mu_device *dev) {
    cpu_set_t set;
    CPU_ZERO(&set);
    dev->cpus = 1;
    if (sched_getaffinity(0, sizeof set, &set) == 0) dev->cpus = CPU_COUNT(&set);
    dev->cpu_sharers = mask_sharers(comm, &set);
}

int mu_threads_per_rank(const mu_device *dev, int requested, char *why, size_t whylen) {
    int cpus = dev->cpus > 0 ? dev->cpus : 1, sharers = dev->cpu_sharers > 0 ? dev->cpu_sharers : 1;
    int omp = positive_env("OMP_NUM_THREADS"), slurm = positive_env("SLURM_CPUS_PER_TASK");
    int share = cpus / sharers > 0 ? cpus / sharers : 1;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (requested > 0) {
        snprintf(why, whylen, "--threads=%d", requested);
        return requested;
    }
    if (omp) {
        snprintf(why, whylen, "OMP_NUM_THREADS=%d", omp);
        return omp;
    }
    if (slurm) {
        int n = slurm < share ? slurm : share;
        snprintf(why, whylen, "SLURM_CPUS_PER_TASK=%d, %d CPU(s) of the rank's mask free", slurm,
                 share);
        return n;
    }
    snprintf(why, whylen,
             "%d CPU(s) in the rank's affinity mask, shared by %d rank(s) of the node%s", cpus,
             sharers,
             cpus == 1 && online > 2L * sharers
                 ? "; the launcher bound the rank to one CPU of the node's many (OpenMPI binds "
                   "each rank to a core when it starts 2 or fewer): --bind-to none, "
                   "--cpus-per-rank or srun --cpus-per-task give it more"
                 : "");
    return share;
}

int mu_comm_one_node(MPI_Comm comm) {
    MPI_Comm node;
    int size = 1, nsize = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nsize);
    MPI_Comm_free(&node);
    int all = nsize == size;
    MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, comm);
    return all;
}

int mu_gpu_peer_link(const char *mine, const char *other) {
    int ok = 0;
    if (!mine[0] || !other[0]) return MU_PEER_LINK_FAILED;
    if (!strcmp(mine, other)) return MU_PEER_LINK_SHARED;
    if (mu_gpu_peer_reachable(other, &ok) || !ok) return MU_PEER_LINK_NONE;
    return MU_PEER_LINK_OK;
}
