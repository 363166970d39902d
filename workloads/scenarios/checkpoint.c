/* Tree checkpoints: after a stage, the tree so far (every node's parent, stage,
 * probabilities, inflows, k-means iterations, and where each stage starts),
 * with a fingerprint of the record and of every option that shapes the tree.
 * Draws are keyed by node id and the fit is the same bits on every run, so a
 * restart from stage s on any number of ranks ends with the same tree as a run
 * that never stopped. Rank 0 writes (temporary name, then rename) and reads;
 * the tree goes to the other ranks by broadcast. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scenarios/run.h"
#include "core/error.h"
#include "core/infile.h"
#include "core/output.h"

static const char magic[8] = {'M', 'U', 'S', 'C', 'C', 'K', 'P', '1'};

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

int mu_sc_checkpoint_write(const char *path, uint64_t fp, int stages_done, const mu_sc_tree *t,
                           int nst) {
    mu_output o;
    MU_TRY(mu_output_open(&o, path));
    int64_t hdr[4] = {(int64_t)fp, stages_done, t->n, nst};
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

/* Rank 0: reads into t (allocated here). */
static int read_file(const char *path, uint64_t fp, int nst, int nstages, mu_sc_tree *t,
                     int *stages_done) {
    FILE *f = mu_infile_open(path, "checkpoint", NULL);
    if (!f) return 1;
    char m[8];
    int64_t hdr[4];
    int rc = 0;
    if (fread(m, 1, 8, f) != 8 || memcmp(m, magic, 8) || fread(hdr, sizeof hdr, 1, f) != 1)
        rc = mu_error("%s: not a scenarios checkpoint", path);
    else if ((uint64_t)hdr[0] != fp || hdr[3] != nst)
        rc = mu_error("%s: the checkpoint is of another record or other options (tree, M, seed, "
                      "method, representative, fit settings, start)",
                      path);
    else if (hdr[1] < 1 || hdr[1] >= nstages || hdr[2] < 1)
        rc = mu_error("%s: checkpoint after stage %lld of %d: nothing to resume", path,
                      (long long)hdr[1], nstages);
    if (!rc) {
        *stages_done = (int)hdr[1];
        size_t n = (size_t)hdr[2];
        if (tree_alloc(t, n, nst)) rc = mu_error("out of memory reading '%s'", path);
        size_t sf = (size_t)*stages_done + 2;
        if (!rc && !(fread(t->stage_first, sizeof *t->stage_first, sf, f) == sf &&
                     fread(t->parent, sizeof *t->parent, n, f) == n &&
                     fread(t->stage, sizeof *t->stage, n, f) == n &&
                     fread(t->prob, sizeof *t->prob, n, f) == n &&
                     fread(t->pprob, sizeof *t->pprob, n, f) == n &&
                     fread(t->iters, sizeof *t->iters, n, f) == n &&
                     fread(t->q, sizeof *t->q * nst, n, f) == n))
            rc = mu_error("%s: truncated checkpoint", path);
    }
    fclose(f);
    return rc;
}

int mu_sc_checkpoint_read(MPI_Comm comm, const char *path, uint64_t fp, int nst, int nstages,
                          mu_sc_tree *t, int *stages_done) {
    int rank;
    MPI_Comm_rank(comm, &rank);
    int rc = rank == 0 ? read_file(path, fp, nst, nstages, t, stages_done) : 0;
    MU_TRY(mu_error_collective(comm, rc));
    int64_t hdr[2] = {t->n, *stages_done};
    MPI_Bcast(hdr, 2, MPI_INT64_T, 0, comm);
    if (rank != 0) {
        *stages_done = (int)hdr[1];
        rc = tree_alloc(t, (size_t)hdr[0], nst)
                 ? mu_error("out of memory for the checkpoint's tree")
                 : 0;
    }
    MU_TRY(mu_error_collective(comm, rc));
    int n = (int)t->n;
    MPI_Bcast(t->stage_first, *stages_done + 2, MPI_INT64_T, 0, comm);
    MPI_Bcast(t->parent, n, MPI_INT64_T, 0, comm);
    MPI_Bcast(t->stage, n, MPI_INT, 0, comm);
    MPI_Bcast(t->prob, n, MPI_DOUBLE, 0, comm);
    MPI_Bcast(t->pprob, n, MPI_DOUBLE, 0, comm);
    MPI_Bcast(t->iters, n, MPI_INT, 0, comm);
    MPI_Bcast(t->q, n * nst, MPI_DOUBLE, 0, comm);
    return 0;
}
