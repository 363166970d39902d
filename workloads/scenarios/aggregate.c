/* Aggregation of one node's scenarios (aggregate.h). The steps, and the choices
 * the study leaves open, made here:
 *
 *  1. Whitening (whiten.c): Mahalanobis with the M scenarios' own sample
 *     covariance (the study does not say which) becomes Euclidean; a singular covariance
 *     drops the stations the others determine.
 *  2. Duplicates and K >= distinct points. Points equal after whitening are
 *     found by hashing. Each is still its own object with weight 1/M (a
 *     duplicate is a scenario drawn twice, not an error). If K is at least the
 *     number u of distinct points (K > M included) the exact optimum is one
 *     group per distinct point (within sum of squares 0): k = u groups are
 *     formed, not K. K = 1: one group.
 *  3. Initial centres: K distinct points drawn uniformly by Philox keyed by
 *     (key, "kmeans"), reading (b) of the study's random centres. Reading (a), K extra generated
 *     scenarios, needs the generator and can start a cluster empty, which
 *     AS 136 rejects; (b) cannot: each centre's own point is at distance 0 from
 *     it and farther from every other centre, and AS 136 keeps a point in the
 *     nearer centre on ties, lowest index first.
 *  4. Empty clusters: none start empty (3), Hartigan-Wong never moves the last
 *     member of a cluster, and Version 2 forbids the move that would empty one,
 *     so every group formed is non-empty. Should the initial step still leave
 *     one empty (distances underflowing to 0), the call fails with a message.
 *  5. Representative: the member nearest the final centroid (whitened, i.e.
 *     Mahalanobis), ties to the lowest index; groups are numbered in the order
 *     of their representatives, so the output does not depend on the draw's
 *     order of centres. Probability (group size)/M.
 *  6. CPU and GPU: the device computes the same distances with the same bits
 *     (no fused multiply-add, same summation order) and the same per-point
 *     comparisons; every decision that depends on another point's stays on
 *     the CPU, in point order. So the groups are identical, not just close.
 *     A rank alone on a node that whitened on its device also sums x's mean
 *     and the groups' means there (in point order: the host's bits), which
 *     spares the caller's representatives a pass over the M x d scenarios. */
#include <stdlib.h>
#include <string.h>

#include "core/free.h"
#include "core/message.h"
#include "core/philox.h"
#include "gpu/gpu.h"
#include "gpu/scenarios_kmeans.h"
#include "gpu/scenarios_whiten.h"
#include "scenarios/aggregate.h"
#include "scenarios/kmeans.h"
#include "scenarios/kmeans_split.h"
#include "core/whiten.h"

#define MU_AGG_STREAM 0x6b6d65616e73ull /* "kmeans": the stream of the centre draw */

/* A row's hash, consistent with == on its coordinates (-0.0 and +0.0 alike;
 * whitened values are finite, so no NaN): four independent lanes, mixed at
 * the end, so that the multiplications do not form one long chain. */
static uint64_t row_hash(const double *y, int r) {
    const uint64_t K = 0xff51afd7ed558ccdull;
    uint64_t h[4] = {0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull, 0x94d049bb133111ebull, 1};
    for (int j = 0; j < r; j++) {
        uint64_t w = 0;
        if (y[j] != 0.0) memcpy(&w, &y[j], sizeof w);
        h[j & 3] = (h[j & 3] ^ w) * K;
    }
    uint64_t v = (uint64_t)r;
    for (int t = 0; t < 4; t++) {
        v = (v ^ h[t] ^ (h[t] >> 29)) * K;
        v ^= v >> 32;
    }
    return v;
}

static int rows_equal(const double *ya, const double *yb, int r) {
    for (int j = 0; j < r; j++)
        if (ya[j] != yb[j]) return 0;
    return 1;
}

typedef struct {
    uint32_t tag; /* the hash's high half */
    int v;        /* value id, -1: empty */
} hslot;

/* grp[i] = the id of point i's value among the u distinct rows of y, numbered
 * by first occurrence; first[v] = the first point of value v. The points are
 * taken in order against a hash table of the values seen so far (open
 * addressing, at most half full), so a new value gets the next id; the rows'
 * hashes are independent and computed on threads. 1: no memory. */
static int distinct_ids(const double *y, int m, int r, int *grp, int *first, int *nu) {
    size_t cap = 2;
    while (cap < 2 * (size_t)m) cap *= 2;
    uint64_t *h = malloc(sizeof(uint64_t) * (size_t)m);
    hslot *sl = malloc(sizeof(hslot) * cap);
    if (!h || !sl) {
        free(h);
        free(sl);
        return 1;
    }
#pragma omp parallel for schedule(static) if (m >= MU_KM_PAR_MIN)
    for (int i = 0; i < m; i++) h[i] = row_hash(y + (size_t)i * r, r);
    for (size_t s = 0; s < cap; s++) sl[s] = (hslot){0, -1};
    int u = 0;
    for (int i = 0; i < m; i++) {
        const uint32_t tag = (uint32_t)(h[i] >> 32);
        size_t s = (size_t)h[i] & (cap - 1);
        while (sl[s].v >= 0 && !(sl[s].tag == tag &&
                                 rows_equal(y + (size_t)first[sl[s].v] * r, y + (size_t)i * r, r)))
            s = (s + 1) & (cap - 1);
        if (sl[s].v < 0) {
            sl[s] = (hslot){tag, u};
            first[u++] = i;
        }
        grp[i] = sl[s].v;
    }
    free(h);
    free(sl);
    *nu = u;
    return 0;
}

static int int_cmp(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* rep[l] = the member of group l nearest its centre c[l] (lowest index on
 * ties), best[l] its distance; the distances on threads (or the device, g),
 * the choice in point order. 1 after mu_error. */
static int nearest_members(const double *y, int m, int r, const int *grp, const double *c, int kk,
                           mu_gpu_km *g, int *rep, double *best) {
    double *dd = malloc(sizeof(double) * (size_t)m);
    if (!dd) return mu_error("out of memory in the aggregation");
    if (g) {
        if (mu_gpu_km_own(g, c, kk, grp, dd)) {
            free(dd);
            return MU_GPU(1, "aggregation: the representatives");
        }
    } else {
#pragma omp parallel for schedule(static) if (m >= MU_KM_PAR_MIN)
        for (int i = 0; i < m; i++) dd[i] = mu_km_d2(y + (size_t)i * r, c + (size_t)grp[i] * r, r);
    }
    for (int l = 0; l < kk; l++) rep[l] = -1;
    for (int i = 0; i < m; i++) {
        int l = grp[i];
        if (rep[l] < 0 || dd[i] < best[l]) {
            rep[l] = i;
            best[l] = dd[i];
        }
    }
    free(dd);
    return 0;
}

/* 0 when ok (an allocation succeeded), else 1 after mu_error. */
static int got_memory(int ok) {
    return ok ? 0 : mu_error("out of memory in the aggregation");
}

/* The k-means's MU_KM_BACKEND: a step shared by the ranks, the device (its
 * message) or, on the CPU, memory. 1 after mu_error. */
static int backend_failed(int nranks, int use_gpu) {
    if (nranks > 1)
        return mu_error("aggregation: a step shared by the ranks failed (device or memory)");
    if (use_gpu) return MU_GPU(1, "aggregation");
    return mu_error("aggregation: out of memory");
}

int mu_agg_cluster(const double *x, int m, int d, int k, mu_agg_method method, int max_iter,
                   uint64_t key, int use_gpu, mu_agg_result *res) {
    return mu_agg_cluster_shared(x, m, d, k, method, max_iter, key, use_gpu, MPI_COMM_NULL, res);
}

/* What the steps share: the whitened rows y (r columns) and the work arrays,
 * freed together at the end, the ranks' split and the device's k-means context. */
typedef struct {
    int m, r, use_gpu, nranks;
    MPI_Comm comm;
    const double *y; /* the CPU's buffer (ybuf) or the device whitening's host rows */
    double *ybuf, *c, *best;
    int *tmp, *grp, *first, *nc, *order, *rep;
    const double *ydev;         /* the device's copy of y, if whitened there */
    const double *xdev, *xmean; /* then x on the device too, and its mean (host) */
    int centred;                /* c and nc are the groups' means and sizes (the k-means's) */
    mu_km_split sp;
    mu_gpu_km *g;
} agg_state;

/* distinct_ids, where the device shows first that no two rows are equal (the
 * usual case: then each point is its own value). 1 after mu_error. */
static int distinct_values(agg_state *a, int *nu) {
    int all = 0, m = a->m;
    if (a->ydev && MU_GPU(mu_gpu_whiten_distinct(m, a->r, &all), "aggregation: distinct points"))
        return 1;
    if (all) {
        for (int i = 0; i < m; i++) a->grp[i] = a->first[i] = i;
        *nu = m;
        return 0;
    }
    return got_memory(!distinct_ids(a->y, m, a->r, a->grp, a->first, nu));
}

/* The k-means's backend: this rank's steps (the device's or the CPU's on its
 * points) and, on several ranks, the split that gathers every rank's block. */
typedef struct {
    mu_km_points pts;
    mu_km_backend local, split;
} agg_backend;

/* y = x whitened, compact (r columns). Large nodes of a GPU rank whiten on the
 * device (same bits); the device keeps its copy of y for the k-means context,
 * and y is then the thread's kept host rows (mu_gpu_whiten: valid until this
 * thread's next call, so for the whole aggregation). */
static int whiten_rows(agg_state *a, const double *x, int d) {
    int m = a->m;
    if (a->use_gpu && m >= MU_GPU_KM_BOOK_MIN) {
        MU_TRY(mu_gpu_whiten(x, m, d, &a->y, &a->r));
        a->ydev = mu_gpu_whiten_rows();
        a->xdev = mu_gpu_whiten_input(&a->xmean);
        return 0;
    }
    a->ybuf = malloc(sizeof(double) * (size_t)m * (size_t)d);
    MU_TRY(got_memory(a->ybuf != NULL));
    MU_TRY(mu_whiten(x, m, d, a->ybuf, &a->r));
    for (int i = 1; i < m; i++)
        memmove(a->ybuf + (size_t)i * a->r, a->ybuf + (size_t)i * d, sizeof(double) * a->r);
    a->y = a->ybuf;
    return 0;
}

/* The initial centres c: k of the u distinct values, by a partial Fisher-Yates
 * over them (order). */
static void draw_centres(agg_state *a, int k, int u, uint64_t key) {
    int r = a->r, *order = a->order;
    for (int v = 0; v < u; v++) order[v] = v;
    for (int s = 0; s < k; s++) {
        uint32_t w[4];
        mu_rng4(key, MU_AGG_STREAM, (uint64_t)s, w);
        int j = (int)mu_rng_range(w[0], s, u - 1);
        int t = order[s];
        order[s] = order[j];
        order[j] = t;
        memcpy(a->c + (size_t)s * r, a->y + (size_t)a->first[order[s]] * r, sizeof(double) * r);
    }
}

/* *be: the backend for k groups (NULL: the CPU alone), set up in kb. */
static int open_backend(agg_state *a, int k, agg_backend *kb, mu_km_backend **be,
                        mu_agg_result *res) {
    int m = a->m, r = a->r;
    if (a->nranks > 1) { /* each rank's block of every whole step, gathered */
        MU_TRY(got_memory(!mu_km_split_open(&a->sp, a->comm, m)));
        const double *blk = a->y + (size_t)a->sp.lo * r;
        int bad = 0, any = 0;
        if (a->use_gpu && a->sp.n > 0)
            bad = MU_GPU(mu_gpu_km_create(blk, a->sp.n, r, k, &a->g), "aggregation on the GPU");
        MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, a->comm);
        if (any) MU_TRY(bad ? bad : mu_error("aggregation on the GPU failed on another rank"));
        kb->pts = (mu_km_points){blk, a->sp.n, r};
        kb->local = a->use_gpu ? mu_km_gpu_backend(a->g, a->sp.n >= MU_GPU_KM_BOOK_MIN, 0)
                               : mu_km_cpu_backend(&kb->pts);
        kb->split = mu_km_split_backend(&a->sp, blk, r, &kb->local);
        a->sp.may_fail = a->use_gpu;
        *be = &kb->split;
    } else if (a->use_gpu) {
        double t0 = mu_km_now();
        MU_TRY(MU_GPU(mu_gpu_km_create(a->ydev ? a->ydev : a->y, m, r, k, &a->g),
                      "aggregation on the GPU"));
        res->device_s = mu_km_now() - t0;
        /* Version 2's bookkeeping on the device too where M is large, the
         * assignment kept there (same bits). */
        int book = m >= MU_GPU_KM_BOOK_MIN;
        kb->local = mu_km_gpu_backend(a->g, 0, book);
        *be = &kb->local;
    }
    return 0;
}

/* k groups of the u distinct values by k-means: grp becomes each point's group;
 * the iterations, times and convergence into res. */
static int kmeans_groups(agg_state *a, int k, int u, mu_agg_method method, int max_iter,
                         uint64_t key, mu_agg_result *res) {
    int m = a->m, r = a->r;
    a->c = malloc(sizeof(double) * (size_t)k * (size_t)(r > 0 ? r : 1));
    a->nc = malloc(sizeof(int) * (size_t)k);
    a->order = malloc(sizeof(int) * (size_t)u);
    MU_TRY(got_memory(a->c && a->nc && a->order));
    draw_centres(a, k, u, key);
    agg_backend kb;
    mu_km_backend *be = NULL;
    MU_TRY(open_backend(a, k, &kb, &be, res));
    mu_km_out out = {0};
    out.ic1 = a->grp;
    out.nc = a->nc;
    int f = method == MU_AGG_HARTIGAN_WONG
                ? mu_km_hartigan_wong(a->y, m, r, a->c, k, max_iter, 0, be, &out)
                : mu_km_version2(a->y, m, r, a->c, k, max_iter, 0, be, &out);
    if (f == MU_KM_BACKEND) MU_TRY(backend_failed(a->nranks, a->use_gpu));
    if (f == MU_KM_EMPTY || f == MU_KM_BADK)
        MU_TRY(mu_error("aggregation: k-means fault %d with %d groups of %d scenarios", f, k, m));
    a->centred = 1; /* both k-means end with mu_km_means's bits */
    res->iterations = out.iter;
    res->kmeans_s = out.total_s;
    res->dist_s = out.dist_s;
    res->converged = f == MU_KM_OK;
    return 0;
}

/* Centroids, representatives (nearest member, lowest index on ties), and the kk
 * groups numbered in the order of their representatives, into res. */
static int representatives(agg_state *a, int kk, mu_agg_result *res) {
    int m = a->m, r = a->r, *grp = a->grp;
    if (!a->centred) {
        free(a->c);
        free(a->nc);
        a->c = calloc((size_t)kk * (size_t)(r > 0 ? r : 1), sizeof(double));
        a->nc = calloc((size_t)kk, sizeof(int));
    }
    a->rep = malloc(sizeof(int) * (size_t)kk);
    a->best = malloc(sizeof(double) * (size_t)kk);
    free(a->order);
    a->order = malloc(sizeof(int) * (size_t)kk);
    MU_TRY(got_memory(a->c && a->nc && a->rep && a->best && a->order));
    if (!a->centred) mu_km_means(a->y, m, r, grp, kk, a->c, a->nc);
    /* the device's points are this rank's block when the ranks split them */
    mu_gpu_km *g = a->nranks == 1 ? a->g : NULL;
    MU_TRY(nearest_members(a->y, m, r, grp, a->c, kk, g, a->rep, a->best));
    /* Groups in the order of their representatives. */
    int *order = a->order;
    for (int l = 0; l < kk; l++) order[l] = a->rep[l];
    qsort(order, (size_t)kk, sizeof(int), int_cmp);
    res->k = kk;
    res->rank = r;
    res->rep = malloc(sizeof(int) * (size_t)kk);
    res->prob = malloc(sizeof(double) * (size_t)kk);
    res->group = malloc(sizeof(int) * (size_t)m);
    MU_TRY(got_memory(res->rep && res->prob && res->group));
    for (int s = 0; s < kk; s++) {
        int l = grp[order[s]];
        res->rep[s] = order[s];
        res->prob[s] = (double)a->nc[l] / (double)m;
        a->tmp[l] = s; /* old group -> new number */
    }
    for (int i = 0; i < m; i++) res->group[i] = a->tmp[grp[i]];
    return 0;
}

/* Where the device holds x (its whitening) and the groups (the k-means's
 * context, this rank's alone): x's mean and the groups' means into res, so
 * that no caller passes over the m x d scenarios again on the host. */
static int input_means(const agg_state *a, int d, mu_agg_result *res) {
    if (!a->g || !a->xdev || a->nranks > 1) return 0;
    res->xmean = malloc(sizeof(double) * (size_t)d);
    res->xgroup_mean = malloc(sizeof(double) * (size_t)res->k * (size_t)d);
    MU_TRY(got_memory(res->xmean && res->xgroup_mean));
    memcpy(res->xmean, a->xmean, sizeof(double) * (size_t)d);
    return MU_GPU(mu_gpu_km_group_means(a->g, res->group, res->k, a->xdev, d, res->xgroup_mean),
                  "aggregation: the groups' means");
}

int mu_agg_cluster_shared(const double *x, int m, int d, int k, mu_agg_method method, int max_iter,
                          uint64_t key, int use_gpu, MPI_Comm comm, mu_agg_result *res) {
    memset(res, 0, sizeof *res);
    agg_state a = {.m = m, .use_gpu = use_gpu, .nranks = 1, .comm = comm};
    if (comm != MPI_COMM_NULL) MPI_Comm_size(comm, &a.nranks);
    if (!x || m < 1 || d < 1) return mu_error("aggregation needs at least one scenario");
    if (k < 1) return mu_error("aggregation needs K >= 1 groups");
    if (max_iter < 1) return mu_error("aggregation needs max_iter >= 1");
    if (method != MU_AGG_HARTIGAN_WONG && method != MU_AGG_VERSION2)
        return mu_error("unknown aggregation method");
    int rc = 0, kk = 0, u = 0;
    a.tmp = malloc(sizeof(int) * (size_t)m);
    a.grp = malloc(sizeof(int) * (size_t)m);
    a.first = malloc(sizeof(int) * (size_t)m);
    MU_TRY_GOTO(got_memory(a.tmp && a.grp && a.first));
    double t0 = mu_km_now();
    MU_TRY_GOTO(whiten_rows(&a, x, d));
    res->whiten_s = mu_km_now() - t0;
    t0 = mu_km_now();

    /* Distinct points: id of each point's value, numbered by first occurrence. */
    MU_TRY_GOTO(distinct_values(&a, &u));
    res->distinct_s = mu_km_now() - t0;

    res->converged = 1;
    if (k >= u) {
        kk = u; /* one group per distinct point */
    } else if (k == 1) {
        kk = 1;
        for (int i = 0; i < m; i++) a.grp[i] = 0;
    } else {
        kk = k;
        MU_TRY_GOTO(kmeans_groups(&a, k, u, method, max_iter, key, res));
    }

    t0 = mu_km_now();
    MU_TRY_GOTO(representatives(&a, kk, res));
    MU_TRY_GOTO(input_means(&a, d, res));
    res->rep_s = mu_km_now() - t0;
done:
    if (rc) mu_agg_result_free(res); /* what a failure left half made */
    mu_km_split_close(&a.sp);
    mu_gpu_km_destroy(a.g);
    MU_FREE(a.ybuf, a.tmp, a.grp, a.first, a.nc, a.order, a.rep, a.best, a.c);
    return rc;
}

void mu_agg_result_free(mu_agg_result *res) {
    if (!res) return;
    MU_FREE(res->rep, res->prob, res->group, res->xmean, res->xgroup_mean);
    res->rep = NULL;
    res->prob = NULL;
    res->group = NULL;
    res->xmean = res->xgroup_mean = NULL;
    res->k = 0;
}
