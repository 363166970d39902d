/* Node-local ranks and the GPU each rank uses. Ranks are bound to devices by
 * node-local rank (MPI_Comm_split_type SHARED) modulo the visible devices. */
#ifndef MU_MPI_BINDING_H
#define MU_MPI_BINDING_H
#include <mpi.h>
#include "gpu/gpu.h"

typedef struct {
    int use_gpu; /* 1: kernels run on info.ordinal */
    int local_rank, local_size;
    int visible;     /* devices this rank can see */
    int cpus;        /* CPUs in this rank's affinity mask */
    int cpu_sharers; /* ranks of the node whose masks overlap it (1: bound apart) */
    char host[MPI_MAX_PROCESSOR_NAME];
    mu_gpu_info info;
} mu_device;

/* Collective. mode is "auto", "cpu" or "gpu": gpu fails on every rank if any rank
 * sees no device; auto falls back to the CPU and says so once. */
int mu_device_bind(MPI_Comm comm, const char *mode, mu_device *dev);

/* One line per rank, in rank order, from rank 0: host, local rank, device. Collective. */
void mu_device_report(MPI_Comm comm, const mu_device *dev);

/* The CPU fields of dev (cpus, cpu_sharers) for a caller that does not bind a
 * device. Collective. */
void mu_cpu_share(MPI_Comm comm, mu_device *dev);

/* 1 when every rank of comm runs on one node. Collective. */
int mu_comm_one_node(MPI_Comm comm);

/* How this rank's GPU (PCI bus id mine, mu_gpu_peer_bus) reaches another's. */
enum { MU_PEER_LINK_OK, MU_PEER_LINK_SHARED, MU_PEER_LINK_NONE, MU_PEER_LINK_FAILED };
/* OK: the other is a distinct device whose memory this one can access;
 * SHARED: the same device; NONE: no peer access; FAILED: a bus id is
 * missing (its query failed). Not collective. */
int mu_gpu_peer_link(const char *mine, const char *other);

/* Host threads for this rank: requested if > 0, else OMP_NUM_THREADS, else
 * SLURM_CPUS_PER_TASK (at most the rank's share of its mask), else the CPUs of
 * the rank's affinity mask over the node's ranks that share it. why receives
 * the reason, for the log. Not collective. */
int mu_threads_per_rank(const mu_device *dev, int requested, char *why, size_t whylen);

#endif
