/* Aggregation of one tree node: its M generated scenarios clustered into K
 * groups with the Mahalanobis distance (whitened by a Cholesky factor of the
 * scenarios' covariance, so distances become Euclidean), by Hartigan-Wong
 * (AS 136) or the study's parallel "Version 2". Each group is represented by
 * its member closest to the centroid, with probability (group size)/M. */
#ifndef MU_SCENARIOS_AGGREGATE_H
#define MU_SCENARIOS_AGGREGATE_H
#include <stddef.h>
#include <stdint.h>
#include <mpi.h>

typedef enum { MU_AGG_HARTIGAN_WONG, MU_AGG_VERSION2 } mu_agg_method;

typedef struct {
    int k;        /* groups formed: at most the K asked for (K > M, duplicates: see aggregate.c) */
    int *rep;     /* k indices into the m scenarios: the member closest to each centroid */
    double *prob; /* k probabilities (group size)/m; they sum to 1 */
    int *group;   /* m: the group of each scenario, 0..k-1 */
    int iterations;
    int converged; /* 1: the k-means stopped at its fixed point (not at max_iter) */
    int rank;      /* dimension after whitening (< d: singular covariance, see whiten.c) */
    /* Seconds (benchmarks' split): the k-means call, and within it the whole
     * distance steps (the device's on the GPU); the rest of it is the serial part.
     * Outside the k-means: whitening, the duplicate search, the device context
     * (points moved to the device), the centroids and representatives. */
    double kmeans_s, dist_s;
    double whiten_s, distinct_s, device_s, rep_s;
    /* Where the device held x and the groups (a GPU rank alone on the node),
     * else NULL: x's mean over the scenarios (d) and each group's mean (k x
     * d, group order), in x's units, with the bits of represent.c's sums. */
    double *xmean, *xgroup_mean;
} mu_agg_result;

/* Clusters the m scenarios (rows of x, m x d, row-major). Deterministic in
 * (x, k, method, key): key seeds any random choice (initial centres). use_gpu
 * lets the distance and assignment steps run on this rank's device. Returns 0,
 * or 1 after mu_error (core/message.h). */
int mu_agg_cluster(const double *x, int m, int d, int k, mu_agg_method method, int max_iter,
                   uint64_t key, int use_gpu, mu_agg_result *res);
/* The same, computed by all ranks of comm together (collective; every rank
 * passes the same x and gets the same result, the bits of mu_agg_cluster):
 * each whole k-means step by blocks of scenarios, one per rank, on its device
 * when use_gpu; the serial part runs on every rank. MPI_COMM_NULL: alone. */
int mu_agg_cluster_shared(const double *x, int m, int d, int k, mu_agg_method method, int max_iter,
                          uint64_t key, int use_gpu, MPI_Comm comm, mu_agg_result *res);
void mu_agg_result_free(mu_agg_result *res);

#endif
