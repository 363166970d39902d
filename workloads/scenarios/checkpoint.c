/* Tree checkpoints: the tree of the stages done (every node's parent, stage,
 * probabilities, inflows, k-means iterations, and where each stage starts),
 * and the records of the nodes of the next stage done so far (a stop in the
 * middle of a stage keeps them), with a fingerprint of the record and of every
 * option that shapes the tree. Draws are keyed by node id and the fit is the
 * same bits on every run, so a restart on any number of ranks ends with the
 * same tree as a run that never stopped. Rank 0 writes (temporary name, then
 * rename) and reads, checking every field before use; the tree goes to the
 * other ranks by broadcast.
 *
 * Format 2 (all little-endian as written by the host):
 *   "MUSCCKP2"
 *   int64 fingerprint, stages done s, nodes n, stations nst, partial K, partial d
 *   int64 stage_first[s + 2]
 *   int64 parent[n]; int32 stage[n]; double prob[n], pprob[n]; int32 iters[n]
 *   double q[n * nst]
 *   int64 index[d] (of stage s + 1's nodes, increasing); double rec[d * (2 + nst + K(1 + nst))]
 * Format 1 ("MUSCCKP1": no partial stage) is refused with a message. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scenarios/run.h"
#include "core/error.h"
#include "core/infile.h"
#include "core/output.h"

static const char magic[8] = {'M', 'U', 'S', 'C', 'C', 'K', 'P', '2'};
enum { HDR = 6 };

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

uint64_t mu_sc_fingerprint(const mu_sc_cfg *c, const mu_sc_hist *h, int64_t hist_end) {
    char text[1024];
    snprintf(text, sizeof text,
             "tree=%s m=%d seed=%llu method=%d rep=%d max_iter=%d delta_min=%.17g corr=%d "
             "pmax=%d conf=%.17g sd=%d acf=%d hist_end=%lld nst=%d years=%d first=%d",
             c->tree_text, c->m, (unsigned long long)c->seed, (int)c->method, (int)c->rep,
             c->max_iter, c->delta_min, c->corr_lognormal, c->fit.pmax, c->fit.pacf_conf,
             c->fit.sd_n1, c->fit.acf_pairs, (long long)hist_end, h->nst, h->nyears, h->first_year);
    uint64_t f = fnv(1469598103934665603ull, text, strlen(text));
    f = fnv(f, h->q, (size_t)h->nyears * 12 * h->nst * sizeof *h->q);
    for (int s = 0; s < h->nst; s++) f = fnv(f, h->names[s], strlen(h->names[s]) + 1);
    return f;
}

size_t mu_sc_ckpt_rec_doubles(int nst, int K) {
    return 2 + (size_t)nst + (size_t)K * (1 + (size_t)nst);
}

int mu_sc_checkpoint_write(const char *path, uint64_t fp, int stages_done, const mu_sc_tree *t,
                           int nst, const mu_sc_partial *p) {
    mu_output o;
    MU_TRY(mu_output_open(&o, path));
    int64_t hdr[HDR] = {(int64_t)fp, stages_done, t->n, nst, p ? p->K : 0, p ? p->ndone : 0};
    size_t n = (size_t)t->n;
    int ok = fwrite(magic, 1, sizeof magic, o.f) == sizeof magic &&
             fwrite(hdr, sizeof hdr, 1, o.f) == 1 &&
             fwrite(t->stage_first, sizeof *t->stage_first, (size_t)stages_done + 2, o.f) ==
                 (size_t)stages_done + 2 &&
             fwrite(t->parent, sizeof *t->parent, n, o.f) == n &&
             fwrite(t->stage, sizeof *t->stage, n, o.f) == n &&
             fwrite(t->prob, sizeof *t->prob, n, o.f) == n &&
             fwrite(t->pprob, sizeof *t->pprob, n, o.f) == n &&
             fwrite(t->iters, sizeof *t->iters, n, o.f) == n &&
             fwrite(t->q, sizeof *t->q * nst, n, o.f) == n;
    if (ok && p && p->ndone > 0) {
        size_t d = (size_t)p->ndone, prd = mu_sc_ckpt_rec_doubles(nst, p->K);
        ok = fwrite(p->index, sizeof *p->index, d, o.f) == d;
        for (size_t i = 0; ok && i < d; i++)
            ok = fwrite(p->rec + i * p->stride, sizeof *p->rec, prd, o.f) == prd;
    }
    if (!ok) {
        mu_output_abort(&o);
        return mu_error("%s: cannot write the checkpoint", path);
    }
    return mu_output_commit(&o);
}

/* t's node arrays for n nodes of nst stations (n and cap set); nonzero where one failed. */
static int tree_alloc(mu_sc_tree *t, size_t n, int nst) {
    t->n = t->cap = (int64_t)n;
    t->parent = malloc(n * sizeof *t->parent);
    t->stage = malloc(n * sizeof *t->stage);
    t->prob = malloc(n * sizeof *t->prob);
    t->pprob = malloc(n * sizeof *t->pprob);
    t->iters = malloc(n * sizeof *t->iters);
    t->q = malloc(n * (size_t)nst * sizeof *t->q);
    return !t->parent || !t->stage || !t->prob || !t->pprob || !t->iters || !t->q;
}

static int partial_alloc(mu_sc_partial *p, int nst) {
    size_t d = (size_t)p->ndone, prd = mu_sc_ckpt_rec_doubles(nst, p->K);
    p->stride = prd;
    p->index = malloc((d ? d : 1) * sizeof *p->index);
    p->rec = malloc((d ? d : 1) * prd * sizeof *p->rec);
    return !p->index || !p->rec;
}

void mu_sc_partial_free(mu_sc_partial *p) {
    free(p->index);
    free(p->rec);
    memset(p, 0, sizeof *p);
}

/* The bytes of a checkpoint with these counts, or 0 when they overflow. */
static int64_t ckpt_bytes(int64_t s, int64_t n, int64_t nst, int64_t K, int64_t d) {
    const double b = 8.0 + HDR * 8.0 + (double)(s + 2) * 8 + (double)n * (8 + 4 + 8 + 8 + 4) +
                     (double)n * nst * 8 + (double)d * 8 +
                     (double)d * (double)mu_sc_ckpt_rec_doubles((int)nst, (int)K) * 8;
    return b < 9e18 ? (int64_t)b : 0;
}

/* The checkpoint's fields checked against each other and the options. */
static int check_tree(const char *path, const mu_sc_cfg *c, int nst, int s, const mu_sc_tree *t) {
    const int64_t *sf = t->stage_first;
    if (sf[0] != 0 || sf[1] != 1)
        return mu_error("%s: checkpoint field 'stage_first': stage 0 must be the root node alone",
                        path);
    for (int st = 1; st <= s; st++) {
        int64_t prev = sf[st] - sf[st - 1], cur = sf[st + 1] - sf[st];
        if (cur < 1 || cur > prev * c->open[st - 1])
            return mu_error("%s: checkpoint field 'stage_first': stage %d has %lld node(s), not "
                            "1 to %lld (%d for each of its %lld parents)",
                            path, st, (long long)cur, (long long)(prev * c->open[st - 1]),
                            c->open[st - 1], (long long)prev);
    }
    if (sf[s + 1] != t->n)
        return mu_error("%s: checkpoint field 'nodes': %lld, but its stages end at node %lld", path,
                        (long long)t->n, (long long)sf[s + 1]);
    if (t->parent[0] != -1 || t->stage[0] != 0 || t->prob[0] != 1 || t->pprob[0] != 1)
        return mu_error("%s: checkpoint node 0 is not a root (field 'parent', 'stage' or 'prob')",
                        path);
    int64_t kids = 0;
    for (int st = 1; st <= s; st++)
        for (int64_t u = sf[st]; u < sf[st + 1]; u++) {
            int64_t v = t->parent[u];
            if (t->stage[u] != st)
                return mu_error("%s: checkpoint field 'stage' of node %lld: %d, not %d", path,
                                (long long)u, t->stage[u], st);
            if (v < sf[st - 1] || v >= sf[st] || (u > sf[st] && v < t->parent[u - 1]))
                return mu_error("%s: checkpoint field 'parent' of node %lld: %lld is not a node "
                                "of stage %d (%lld to %lld) in order",
                                path, (long long)u, (long long)v, st - 1, (long long)sf[st - 1],
                                (long long)sf[st] - 1);
            kids = u > sf[st] && v == t->parent[u - 1] ? kids + 1 : 1;
            if (kids > c->open[st - 1])
                return mu_error("%s: checkpoint field 'parent': node %lld has more than %d "
                                "children",
                                path, (long long)v, c->open[st - 1]);
            if (!(t->prob[u] > 0 && t->prob[u] <= 1) || t->pprob[u] != t->pprob[v] * t->prob[u])
                return mu_error("%s: checkpoint field 'prob' of node %lld: %g (path %g) is not a "
                                "probability of its parent's path",
                                path, (long long)u, t->prob[u], t->pprob[u]);
        }
    for (int64_t u = 0; u < t->n; u++) {
        int inner = t->stage[u] < s;
        if (inner ? t->iters[u] < 0 : t->iters[u] != -1)
            return mu_error("%s: checkpoint field 'iters' of node %lld: %d", path, (long long)u,
                            t->iters[u]);
        for (int k = 0; k < nst; k++)
            if (!isfinite(t->q[u * nst + k]))
                return mu_error("%s: checkpoint field 'inflows' of node %lld, station %d: %g is "
                                "not a finite number",
                                path, (long long)u, k + 1, t->q[u * nst + k]);
    }
    return 0;
}

static int check_partial(const char *path, int nst, int64_t nodes, const mu_sc_partial *p) {
    for (int64_t i = 0; i < p->ndone; i++) {
        const double *r = p->rec + (size_t)i * p->stride;
        if (p->index[i] < 0 || p->index[i] >= nodes || (i > 0 && p->index[i] <= p->index[i - 1]))
            return mu_error("%s: checkpoint field 'index' of done node %lld: %lld is not one of "
                            "the stage's %lld nodes in order",
                            path, (long long)i, (long long)p->index[i], (long long)nodes);
        if (!(r[0] >= 1 && r[0] <= p->K && r[0] == floor(r[0])) ||
            !(r[1] >= 0 && r[1] < 2e9 && r[1] == floor(r[1])))
            return mu_error("%s: checkpoint field 'groups' or 'iters' of done node %lld: %g, %g",
                            path, (long long)i, r[0], r[1]);
        for (size_t k = 2; k < p->stride; k++)
            if (!isfinite(r[k]))
                return mu_error("%s: checkpoint field 'record' of done node %lld: %g is not a "
                                "finite number",
                                path, (long long)i, r[k]);
        for (int g = 0; g < (int)r[0]; g++) {
            const double pr = MU_SC_REC_CHILD(r, nst, g)[0];
            if (!(pr > 0 && pr <= 1))
                return mu_error("%s: checkpoint field 'prob' of done node %lld, group %d: %g", path,
                                (long long)i, g + 1, pr);
        }
    }
    return 0;
}

/* Rank 0: reads into t and p (allocated here). */
static int read_file(const char *path, uint64_t fp, const mu_sc_cfg *c, int nst, mu_sc_tree *t,
                     int *stages_done, mu_sc_partial *p) {
    int64_t size = 0;
    FILE *f = mu_infile_open(path, "checkpoint", &size);
    if (!f) return 1;
    char m[8];
    int64_t hdr[HDR];
    int rc = 0;
    if (fread(m, 1, 8, f) != 8 || memcmp(m, magic, 7))
        rc = mu_error("%s: not a scenarios checkpoint", path);
    else if (m[7] != magic[7])
        rc = mu_error("%s: a scenarios checkpoint of format %c, not %c (written by another "
                      "version of mutirao): run again without --restart",
                      path, m[7], magic[7]);
    else if (fread(hdr, sizeof hdr, 1, f) != 1)
        rc = mu_error("%s: truncated checkpoint (header)", path);
    else if ((uint64_t)hdr[0] != fp || hdr[3] != nst)
        rc = mu_error("%s: the checkpoint is of another record or other options (tree, M, seed, "
                      "method, representative, fit settings, start)",
                      path);
    else if (hdr[1] < 0 || hdr[1] >= c->nstages)
        rc = mu_error("%s: checkpoint field 'stages done': %lld, not 0 to %d (nothing to resume)",
                      path, (long long)hdr[1], c->nstages - 1);
    else if (hdr[4] != c->open[hdr[1]])
        rc = mu_error("%s: checkpoint field 'groups': %lld, but stage %lld forms %d", path,
                      (long long)hdr[4], (long long)hdr[1] + 1, c->open[hdr[1]]);
    else if (hdr[2] < 1 || hdr[5] < 0 || (double)hdr[5] > (double)hdr[2] * c->open[hdr[1]] ||
             ckpt_bytes(hdr[1], hdr[2], nst, hdr[4], hdr[5]) != size)
        rc = mu_error("%s: checkpoint fields 'nodes' (%lld) and 'done' (%lld) do not match its "
                      "%lld bytes",
                      path, (long long)hdr[2], (long long)hdr[5], (long long)size);
    if (!rc) {
        *stages_done = (int)hdr[1];
        size_t n = (size_t)hdr[2];
        p->K = (int)hdr[4];
        p->ndone = hdr[5];
        if (tree_alloc(t, n, nst) || partial_alloc(p, nst))
            rc = mu_error("out of memory reading '%s'", path);
        size_t sf = (size_t)*stages_done + 2, d = (size_t)p->ndone;
        if (!rc && !(fread(t->stage_first, sizeof *t->stage_first, sf, f) == sf &&
                     fread(t->parent, sizeof *t->parent, n, f) == n &&
                     fread(t->stage, sizeof *t->stage, n, f) == n &&
                     fread(t->prob, sizeof *t->prob, n, f) == n &&
                     fread(t->pprob, sizeof *t->pprob, n, f) == n &&
                     fread(t->iters, sizeof *t->iters, n, f) == n &&
                     fread(t->q, sizeof *t->q * nst, n, f) == n &&
                     fread(p->index, sizeof *p->index, d, f) == d &&
                     fread(p->rec, sizeof *p->rec * p->stride, d, f) == d))
            rc = mu_error("%s: truncated checkpoint", path);
        if (!rc) rc = check_tree(path, c, nst, *stages_done, t);
        if (!rc)
            rc = check_partial(path, nst,
                               t->stage_first[*stages_done + 1] - t->stage_first[*stages_done], p);
    }
    fclose(f);
    return rc;
}

int mu_sc_checkpoint_read(MPI_Comm comm, const char *path, uint64_t fp, const mu_sc_cfg *c, int nst,
                          mu_sc_tree *t, int *stages_done, mu_sc_partial *p) {
    int rank;
    MPI_Comm_rank(comm, &rank);
    int rc = rank == 0 ? read_file(path, fp, c, nst, t, stages_done, p) : 0;
    if (mu_error_collective(comm, rc)) {
        mu_sc_tree_free(t);
        mu_sc_partial_free(p);
        return 1;
    }
    int64_t hdr[4] = {t->n, *stages_done, p->K, p->ndone};
    MPI_Bcast(hdr, 4, MPI_INT64_T, 0, comm);
    if (rank != 0) {
        *stages_done = (int)hdr[1];
        p->K = (int)hdr[2];
        p->ndone = hdr[3];
        rc = tree_alloc(t, (size_t)hdr[0], nst) || partial_alloc(p, nst)
                 ? mu_error("out of memory for the checkpoint's tree")
                 : 0;
    }
    if (mu_error_collective(comm, rc)) {
        mu_sc_tree_free(t);
        mu_sc_partial_free(p);
        return 1;
    }
    int n = (int)t->n;
    MPI_Bcast(t->stage_first, *stages_done + 2, MPI_INT64_T, 0, comm);
    MPI_Bcast(t->parent, n, MPI_INT64_T, 0, comm);
    MPI_Bcast(t->stage, n, MPI_INT, 0, comm);
    MPI_Bcast(t->prob, n, MPI_DOUBLE, 0, comm);
    MPI_Bcast(t->pprob, n, MPI_DOUBLE, 0, comm);
    MPI_Bcast(t->iters, n, MPI_INT, 0, comm);
    MPI_Bcast(t->q, n * nst, MPI_DOUBLE, 0, comm);
    MPI_Bcast(p->index, (int)p->ndone, MPI_INT64_T, 0, comm);
    MPI_Bcast(p->rec, (int)(p->ndone * (int64_t)p->stride), MPI_DOUBLE, 0, comm);
    return 0;
}
