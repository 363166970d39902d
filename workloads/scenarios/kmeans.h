/* Shared pieces of the two k-means of the aggregation (kmeans_hw.c, kmeans_v2.c):
 * the result record, the squared Euclidean distance in the one summation order
 * that every path uses (AS 136's: j = 0..d-1, (a - c)^2 added in turn, never
 * fused), and the backend that computes whole distance steps (CPU or GPU).
 *
 * Points and centres are row-major (m x d and k x d). Cluster ids are 0-based. */
#ifndef MU_SCENARIOS_KMEANS_H
#define MU_SCENARIOS_KMEANS_H

/* ifault as in AS 136 and R's kmns: */
enum {
    MU_KM_OK = 0,
    MU_KM_EMPTY = 1,    /* a cluster had no point after the initial assignment */
    MU_KM_MAXITER = 2,  /* the iteration limit was reached */
    MU_KM_BADK = 3,     /* k <= 1 or k >= m */
    MU_KM_QTRANCAP = 4, /* the quick-transfer stage ran past its cap (R: 50 m steps) */
    MU_KM_BACKEND = 5   /* the backend (device) failed: message in mu_gpu_error() */
};

typedef struct {
    int ifault;
    int iter;             /* optimal-transfer passes, as R's kmeans()$iter */
    int *ic1;             /* m (caller's): cluster of each point */
    int *nc;              /* k (caller's): cluster sizes */
    double *wss;          /* k (caller's, may be NULL): within-cluster sums of squares */
    double dist_s;        /* seconds inside the backend's whole steps (distances; Version 2's
                             quick-transfer tests and centre sums where the backend has them) */
    double total_s;       /* seconds of the whole call */
    long long dist_evals; /* point-centre distances the CPU evaluated itself */
} mu_km_out;

/* The start of a k-means call: out's counters cleared and ifault MU_KM_BADK,
 * which stays the answer (returned non-zero) unless 1 < k < m. */
static inline int mu_km_out_start(mu_km_out *out, int m, int k) {
    out->ifault = MU_KM_BADK;
    out->iter = 0;
    out->dist_s = 0.0;
    out->dist_evals = 0;
    return k <= 1 || k >= m;
}

/* Whole distance steps over the points the backend was made with. Each function
 * returns 0 or 1 (failure). The results must equal, bit for bit, what
 * mu_km_d2 / mu_km_nearest2_cpu / mu_km_scan_cpu give on the CPU. */
typedef struct {
    void *ctx;
    /* dist[i*k + l] = mu_km_d2(point i, centre l). */
    int (*all)(void *ctx, const double *c, int k, double *dist);
    /* AS 136's initial step: ic1/ic2 = nearest and second nearest centres. */
    int (*nearest2)(void *ctx, const double *c, int k, int *ic1, int *ic2);
    /* Version 2's optimal-transfer test for every point at once (see mu_km_scan_cpu). */
    int (*scan)(void *ctx, const double *c, int k, const int *ic1, const int *ic2, const int *nc,
                const double *an1, const double *an2, const unsigned char *live, int *move);
    /* Optional (NULL: kmeans_v2.c does it on the CPU). Version 2's bookkeeping
     * steps, which read only frozen state, so they are per point or per cluster:
     * the quick-transfer test (mu_km_qtest_cpu) and the recomputation of the
     * flagged clusters' centres and sums of squares (mu_km_recompute_cpu);
     * recompute writes only the flagged rows of c and entries of cw. */
    int (*qtest)(void *ctx, const double *c, int k, const int *ic1, const int *ic2, const int *nc,
                 const double *an1, const double *an2, const unsigned char *qchg, int *cand);
    int (*recompute)(void *ctx, const int *ic1, const int *nc, int k, const unsigned char *touched,
                     double *c, double *cw);
    /* Optional: Version 2 with the assignment kept by the backend (then
     * qtest and recompute are not used), see mu_km_resident. */
    const struct mu_km_resident *res;
} mu_km_backend;

/* Version 2's steps over an assignment (ic1, ic2, candidates) that the
 * backend keeps between them, so that only per-cluster data crosses: the
 * GPU's (gpu/scenarios_kmeans.h, mu_gpu_km_res_*, which tell each step). */
typedef struct mu_km_resident {
    int (*scan)(void *ctx, const double *c, int k, const int *nc, const double *an1,
                const double *an2, const unsigned char *live);
    int (*qtest)(void *ctx, const double *c, int k, const int *nc, const double *an1,
                 const double *an2, const unsigned char *qchg);
    int (*batch)(void *ctx, int k, const int *nc, int *applied, int *moved, unsigned char *touched,
                 double *c, double *cw, int *nc_out);
    int (*recompute)(void *ctx, int k, const unsigned char *touched, double *c, double *cw,
                     int *nc);
    int (*restore)(void *ctx);
    int (*pull)(void *ctx, int *ic1, int *ic2, int *cand);
    int (*push)(void *ctx, const int *ic1, const int *ic2);
} mu_km_resident;

/* mutirao builds C11 in ISO mode (CMAKE_C_EXTENSIONS OFF), where GCC does not
 * contract a * b + c into an FMA (-ffp-contract=off), so this is the exact
 * sequence of roundings that the GPU reproduces with __dsub_rn/__dmul_rn/__dadd_rn. */
static inline double mu_km_d2(const double *a, const double *c, int d) {
    double s = 0.0;
    for (int j = 0; j < d; j++) {
        double t = a[j] - c[j];
        s += t * t;
    }
    return s;
}

/* The CPU versions of the backend's steps, over points a (m x d). */
void mu_km_all_cpu(const double *a, int m, int d, const double *c, int k, double *dist);
void mu_km_nearest2_cpu(const double *a, int m, int d, const double *c, int k, int *ic1, int *ic2);
/* For each point i with nc[ic1[i]] > 1: r1 = d2(i, L1) an1[L1] and the AS 136
 * search for the smallest r2 = d2(i, L) an2[L], starting from L = ic2[i] and over
 * the other L (all of them when live[L1], else the live ones), accepting L when
 * d2 < r2 / an2[L]; move[i] = mu_km_move(r1, r2, L) (gpu/scenarios_kmeans_core.h).
 * Points in singletons get move[i] = -1. */
void mu_km_scan_cpu(const double *a, int m, int d, const double *c, int k, const int *ic1,
                    const int *ic2, const int *nc, const double *an1, const double *an2,
                    const unsigned char *live, int *move);
/* Version 2's quick-transfer test of every point: cand[i] = ic2[i] when
 * nc[ic1[i]] > 1, qchg flags ic1[i] or ic2[i], and
 * d2(i, ic2[i]) < d2(i, ic1[i]) an1[ic1[i]] / an2[ic2[i]]; else -1. */
void mu_km_qtest_cpu(const double *a, int m, int d, const double *c, int k, const int *ic1,
                     const int *ic2, const int *nc, const double *an1, const double *an2,
                     const unsigned char *qchg, int *cand);
/* For each cluster l flagged in touched (all when NULL): c row l = the sum of
 * its members' points in point order divided by nc[l] (mu_km_means's bits;
 * zeros when nc[l] == 0), and cw[l] = the sum of d2(i, c_l) over its
 * members in point order. Other rows and entries are not written. */
void mu_km_recompute_cpu(const double *a, int m, int d, const int *ic1, const int *nc, int k,
                         const unsigned char *touched, double *c, double *cw);
/* A backend running the CPU versions (whole steps, for timing the split); it
 * keeps pts, which must outlive it. */
typedef struct {
    const double *a;
    int m, d;
} mu_km_points;
mu_km_backend mu_km_cpu_backend(mu_km_points *pts);
/* A backend running the device's kernels on context g (gpu/scenarios_kmeans.h);
 * qtest: also Version 2's quick-transfer test over host arrays; resident:
 * Version 2's whole bookkeeping there, the assignment kept on the device. */
struct mu_gpu_km;
mu_km_backend mu_km_gpu_backend(struct mu_gpu_km *g, int qtest, int resident);

/* From this many points on, mu_km_means and the aggregation's duplicate
 * hashes and representative search run on threads (each sum still in point
 * order, each decision still in point order). */
#define MU_KM_PAR_MIN 8192
/* Means of the points of each cluster, summed in point order; nc = counts. */
void mu_km_means(const double *a, int m, int d, const int *ic1, int k, double *c, int *nc);

/* AS 136 Hartigan-Wong from the k initial centres c (updated in place to the
 * final means). be == NULL: every distance on the CPU when needed, as AS 136;
 * else the backend computes the initial step and, at the start of each optimal
 * transfer pass, every distance, which the serial part reads while the centre is
 * unchanged (same bits, same decisions). maxqtr <= 0: R's cap of 50 m steps. */
int mu_km_hartigan_wong(const double *a, int m, int d, double *c, int k, int maxit, int maxqtr,
                        const mu_km_backend *be, mu_km_out *out);

/* The study's Version 2 (its section 3.7.3, as read here): centres frozen during each pass and
 * recomputed from the members after it, then qsweeps quick-transfer sweeps
 * (<= 0: MU_KM_V2_SWEEPS); see kmeans_v2.c. be == NULL: CPU. */
#define MU_KM_V2_SWEEPS 1
int mu_km_version2(const double *a, int m, int d, double *c, int k, int maxit, int qsweeps,
                   const mu_km_backend *be, mu_km_out *out);

double mu_km_now(void);

#endif
