/* CUDA distance and assignment kernels of the scenario aggregation (k-means),
 * as a C API. The points (already whitened, m x d row-major) stay on the
 * device; each call uploads the k centres and brings back only what the CPU's
 * serial part reads. Every result equals, bit for bit, the CPU reference of
 * workloads/scenarios/kmeans.h: distances are summed over j in the same order with
 * separately rounded subtract, multiply and add (no fused multiply-add), and
 * the per-point decisions use the same comparisons. Functions return 0, or 1
 * with the message in mu_gpu_error(); a build without CUDA compiles
 * gpu/scenarios_kmeans_none.c, where creation fails. */
#ifndef MU_GPU_SCENARIOS_KMEANS_H
#define MU_GPU_SCENARIOS_KMEANS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mu_gpu_km mu_gpu_km;

/* Copies the m points (host memory, or the current device's) to the current
 * device; kmax bounds k in later calls. */
int mu_gpu_km_create(const double *pts, int m, int d, int kmax, mu_gpu_km **out);
/* NULL is accepted. The context is parked for reuse by the next create on the
 * same device of as many points, no more coordinates and no more centres (one
 * per host thread). */
void mu_gpu_km_destroy(mu_gpu_km *g);
/* Parks a context for m points of up to d coordinates and kmax centres on this
 * thread, so that a later create finds its buffers made (the first use of a
 * thread's buffers costs more than a node's k-means when threads make them
 * together). */
int mu_gpu_km_reserve(int m, int d, int kmax);
/* dist[i*k + l] = squared distance from point i to centre l (host, m x k). */
int mu_gpu_km_all(mu_gpu_km *g, const double *c, int k, double *dist);
/* AS 136's first step: nearest and second nearest centre of each point. */
int mu_gpu_km_nearest2(mu_gpu_km *g, const double *c, int k, int *ic1, int *ic2);
/* Version 2's optimal-transfer test of every point (mu_km_scan_cpu). */
int mu_gpu_km_scan(mu_gpu_km *g, const double *c, int k, const int *ic1, const int *ic2,
                   const int *nc, const double *an1, const double *an2, const unsigned char *live,
                   int *move);

/* From this many points on, the aggregation also gives the device Version 2's
 * bookkeeping steps (below); under it their launches and copies cost more
 * than the CPU's O(M d) loops. */
#define MU_GPU_KM_BOOK_MIN 8192
/* Version 2's quick-transfer test of every point (mu_km_qtest_cpu). */
int mu_gpu_km_qtest(mu_gpu_km *g, const double *c, int k, const int *ic1, const int *ic2,
                    const int *nc, const double *an1, const double *an2, const unsigned char *qchg,
                    int *cand);

/* Version 2 with the assignment resident on the device: ic1 and ic2 as the
 * last nearest2 left them or as res_push set them, the candidates of the
 * last res_scan or res_qtest. Same steps and bits as kmeans_v2.c's CPU path.
 * res_scan: the scan, then candidates() (cand, and ic2 of a point that stays). */
int mu_gpu_km_res_scan(mu_gpu_km *g, const double *c, int k, const int *nc, const double *an1,
                       const double *an2, const unsigned char *live);
/* res_qtest: the quick-transfer test into the candidates. */
int mu_gpu_km_res_qtest(mu_gpu_km *g, const double *c, int k, const int *nc, const double *an1,
                        const double *an2, const unsigned char *qchg);
/* Saves ic1 and ic2 (for res_restore), then makes every candidate's move when
 * no cluster of counts nc would lose all its points (*applied = 1; *moved
 * and touched: the moves and the clusters they touched), else none
 * (*applied = 0); then res_recompute over touched. */
int mu_gpu_km_res_batch(mu_gpu_km *g, int k, const int *nc, int *applied, int *moved,
                        unsigned char *touched, double *c, double *cw, int *nc_out);
/* The flagged clusters' centres and within sums of squares (all when touched
 * is NULL) from their members in point order (mu_km_recompute_cpu), into the
 * flagged rows of c and entries of cw; nc = every cluster's count. */
int mu_gpu_km_res_recompute(mu_gpu_km *g, int k, const unsigned char *touched, double *c,
                            double *cw, int *nc);
/* ic1 and ic2 back as res_batch saved them. */
int mu_gpu_km_res_restore(mu_gpu_km *g);
/* The resident arrays to the host (ic2, cand may be NULL), and back. */
int mu_gpu_km_res_pull(mu_gpu_km *g, int *ic1, int *ic2, int *cand);
int mu_gpu_km_res_push(mu_gpu_km *g, const int *ic1, const int *ic2);

/* dd[i] = the squared distance from point i to centre ic1[i] of the k
 * centres c (host arrays; mu_km_d2's bits): the representatives' search. */
int mu_gpu_km_own(mu_gpu_km *g, const double *c, int k, const int *ic1, double *dd);

/* out (k x d, host) = the mean of each group's rows of x (m x d, row-major,
 * on this device; m the context's points), grp (host, m) each point's group
 * 0..k-1: each sum over the group's members in point order, then divided by
 * their number, the bits of the host's loop (scenarios/represent.c). */
int mu_gpu_km_group_means(mu_gpu_km *g, const int *grp, int k, const double *x, int d, double *out);

/* Benchmarks: the median over reps launches of the M x K distance kernel
 * alone (CUDA events, after one warm-up launch), in milliseconds. */
int mu_gpu_km_kernel_ms(mu_gpu_km *g, const double *c, int k, int reps, double *ms);

#ifdef __cplusplus
}
#endif
#endif
