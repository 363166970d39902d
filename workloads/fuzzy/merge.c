/* The hierarchical merge of per-partition prototypes (the study's section 4.5): single
 * linkage (Johnson 1967), the dendrogram cut, and the group means; plus the accuracy
 * measures. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fuzzy/fuzzy.h"
#include "core/error.h"
#include "core/free.h"

static double dist(const double *a, const double *b, int F) {
    double s = 0;
    for (int f = 0; f < F; f++) {
        double d = a[f] - b[f];
        s += d * d;
    }
    return sqrt(s);
}

typedef struct {
    int64_t u, w;
    double h;
    int64_t seq; /* Prim's discovery order: ties keep it */
} edge;

static int edge_cmp(const void *pa, const void *pb) {
    const edge *a = pa, *b = pb;
    if (a->h < b->h) return -1;
    if (a->h > b->h) return 1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

static int64_t find(int64_t *parent, int64_t i) {
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

int mu_fz_linkage(const double *v, int64_t m, int F, mu_fz_merge *merges) {
    if (m < 2) return 0;
    double *best = malloc((size_t)m * sizeof *best);
    int64_t *from = malloc((size_t)m * sizeof *from);
    char *in = calloc((size_t)m, 1);
    edge *e = malloc((size_t)(m - 1) * sizeof *e);
    int64_t *parent = malloc((size_t)m * sizeof *parent);
    int64_t *cluster = malloc((size_t)m * sizeof *cluster);
    int64_t *size = malloc((size_t)m * sizeof *size);
    int rc = 0;
    if (!best || !from || !in || !e || !parent || !cluster || !size)
        MU_TRY_GOTO(mu_error("out of memory linking %lld prototypes", (long long)m));
    /* Prim: the minimum spanning tree holds exactly the single-linkage merges. */
    in[0] = 1;
    for (int64_t i = 1; i < m; i++) {
        best[i] = dist(v, v + i * F, F);
        from[i] = 0;
    }
    for (int64_t s = 0; s < m - 1; s++) {
        int64_t pick = -1;
        for (int64_t i = 0; i < m; i++)
            if (!in[i] && (pick < 0 || best[i] < best[pick])) pick = i;
        in[pick] = 1;
        e[s] = (edge){from[pick] < pick ? from[pick] : pick, from[pick] < pick ? pick : from[pick],
                      best[pick], s};
        for (int64_t i = 0; i < m; i++)
            if (!in[i]) {
                double d = dist(v + pick * F, v + i * F, F);
                if (d < best[i]) {
                    best[i] = d;
                    from[i] = pick;
                }
            }
    }
    qsort(e, (size_t)(m - 1), sizeof *e, edge_cmp);
    for (int64_t i = 0; i < m; i++) {
        parent[i] = i;
        cluster[i] = i;
        size[i] = 1;
    }
    for (int64_t s = 0; s < m - 1; s++) {
        int64_t a = find(parent, e[s].u), b = find(parent, e[s].w);
        int64_t ca = cluster[a], cb = cluster[b];
        merges[s] = (mu_fz_merge){ca < cb ? ca : cb, ca < cb ? cb : ca, e[s].h, size[a] + size[b]};
        parent[b] = a;
        cluster[a] = m + s;
        size[a] += size[b];
    }
done:
    MU_FREE(best, from, in, e, parent, cluster, size);
    return rc;
}

int64_t mu_fz_cut(const mu_fz_merge *merges, int64_t m, mu_fz_cut_rule rule, double value,
                  int64_t *group) {
    int64_t take = 0; /* merges applied: the first `take` in height order */
    if (rule == MU_FZ_CUT_GAP) {
        double widest = -1;
        for (int64_t s = 0; s + 1 < m - 1; s++) {
            double gap = merges[s + 1].height - merges[s].height;
            if (gap > widest) {
                widest = gap;
                take = s + 1;
            }
        }
    } else if (rule == MU_FZ_CUT_THRESHOLD) {
        while (take < m - 1 && merges[take].height <= value) take++;
    } else if (rule == MU_FZ_CUT_K) {
        int64_t k = (int64_t)value;
        take = k >= m ? 0 : k < 1 ? m - 1 : m - k;
    }
    /* Union the raw prototypes of the merges taken. */
    int64_t *parent = malloc((size_t)(2 * m) * sizeof *parent);
    int64_t *id = malloc((size_t)(2 * m) * sizeof *id);
    if (!parent || !id) { /* no memory for the cut: nothing merged */
        free(parent);
        free(id);
        for (int64_t i = 0; i < m; i++) group[i] = i;
        return m;
    }
    for (int64_t i = 0; i < 2 * m; i++) parent[i] = i;
    for (int64_t s = 0; s < take; s++) {
        parent[merges[s].a] = m + s;
        parent[merges[s].b] = m + s;
    }
    int64_t groups = 0;
    for (int64_t i = 0; i < 2 * m; i++) id[i] = -1;
    for (int64_t i = 0; i < m; i++) {
        int64_t root = i;
        while (parent[root] != root) root = parent[root];
        if (id[root] < 0) id[root] = groups++;
        group[i] = id[root];
    }
    free(parent);
    free(id);
    return groups;
}

void mu_fz_group_means(const double *v, int64_t m, int F, const int64_t *group, int64_t groups,
                       double *out, int64_t *members) {
    memset(out, 0, (size_t)(groups * F) * sizeof *out);
    memset(members, 0, (size_t)groups * sizeof *members);
    for (int64_t i = 0; i < m; i++) {
        members[group[i]]++;
        for (int f = 0; f < F; f++) out[group[i] * F + f] += v[i * F + f];
    }
    for (int64_t g = 0; g < groups; g++)
        for (int f = 0; f < F; f++) out[g * F + f] /= (double)members[g];
}

static double choose2(double x) {
    return x * (x - 1) / 2;
}

static int64_t *contingency(const int32_t *a, int ka, const int32_t *b, int kb, int64_t n) {
    int64_t *t = calloc((size_t)ka * (size_t)kb, sizeof *t);
    if (t)
        for (int64_t i = 0; i < n; i++) t[(int64_t)a[i] * kb + b[i]]++;
    return t;
}

double mu_fz_ari(const int32_t *a, int ka, const int32_t *b, int kb, int64_t n) {
    int64_t *t = contingency(a, ka, b, kb, n);
    if (!t) return NAN;
    double sij = 0, sa = 0, sb = 0;
    for (int i = 0; i < ka; i++) {
        int64_t row = 0;
        for (int j = 0; j < kb; j++) {
            sij += choose2((double)t[i * kb + j]);
            row += t[i * kb + j];
        }
        sa += choose2((double)row);
    }
    for (int j = 0; j < kb; j++) {
        int64_t col = 0;
        for (int i = 0; i < ka; i++) col += t[i * kb + j];
        sb += choose2((double)col);
    }
    free(t);
    double expected = sa * sb / choose2((double)n), top = 0.5 * (sa + sb);
    if (top == expected) return 1.0; /* both partitions trivial */
    return (sij - expected) / (top - expected);
}

double mu_fz_purity(const int32_t *a, int ka, const int32_t *b, int kb, int64_t n) {
    int64_t *t = contingency(a, ka, b, kb, n);
    if (!t) return NAN;
    int64_t hit = 0;
    for (int i = 0; i < ka; i++) {
        int64_t top = 0;
        for (int j = 0; j < kb; j++)
            if (t[i * kb + j] > top) top = t[i * kb + j];
        hit += top;
    }
    free(t);
    return (double)hit / (double)n;
}
