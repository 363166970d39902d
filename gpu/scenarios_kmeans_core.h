/* The per-point decisions of the k-means steps that the CPU reference
 * (workloads/scenarios/kmeans_cpu.c) and the CUDA kernels (gpu/scenarios_kmeans.cu)
 * share, so both take them with the same comparisons: only comparisons of the
 * squared distances each computed, no arithmetic. */
#ifndef MU_GPU_SCENARIOS_KMEANS_CORE_H
#define MU_GPU_SCENARIOS_KMEANS_CORE_H
#include "core/hd.h"

/* AS 136's first step for one point: its nearest (c1, at squared distance
 * dt1) and second nearest (c2, dt2) centres so far. */
typedef struct {
    double dt1, dt2;
    int c1, c2;
} mu_km_near2;

/* Centres 0 and 1 at d0 and d1, in order (with k = 1, centre 0 twice: d1 = d0). */
MU_HD mu_km_near2 mu_km_near2_start(double d0, double d1, int k) {
    mu_km_near2 n = {d0, d1, 0, k > 1 ? 1 : 0};
    if (n.dt1 > n.dt2) {
        double t = n.dt1;
        n.dt1 = n.dt2;
        n.dt2 = t;
        n.c1 = 1;
        n.c2 = 0;
    }
    return n;
}

/* Centre l at db replaces the second (or the first) only when strictly nearer,
 * so ties keep the lower index. */
MU_HD void mu_km_near2_offer(mu_km_near2 *n, int l, double db) {
    if (db >= n->dt2) return;
    if (db < n->dt1) {
        n->dt2 = n->dt1;
        n->c2 = n->c1;
        n->dt1 = db;
        n->c1 = l;
    } else {
        n->dt2 = db;
        n->c2 = l;
    }
}

/* Version 2's optimal-transfer test of a point, as the serial part reads it:
 * r1 = d2(i, L1) an1[L1] against the smallest r2 = d2(i, L) an2[L] found, at
 * centre l2. Returns l2 when the point is to move there (r2 < r1), -2 - l2 when
 * it stays and l2 becomes its second choice, -1 for the only member of its
 * cluster (no test). One int a point: what the device sends back. */
MU_HD int mu_km_move(double r1, double r2, int l2) {
    return r2 >= r1 ? -2 - l2 : l2;
}

#endif
