/* scenarios' --restart checkpoint (tree mode), read as the command reads it
 * on MPI_COMM_SELF, for a tree 1,2,2,2 of 2 stations. With
 * MUTIRAO_FUZZ_SEED=FILE set, writes a valid checkpoint to FILE instead: two
 * stages done and one node of the third (the seed corpus: fuzz/corpus.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "fuzz_file.h"
#include "scenarios/run.h"

enum { NST = 2, K = 2 };
static const uint64_t fp = 0x7363656e6172ull;
static mu_sc_cfg cfg;

static int write_seed(const char *path) {
    enum { NODES = 7 };
    int64_t parent[NODES] = {-1, 0, 0, 1, 1, 2, 2};
    int stage[NODES] = {0, 1, 1, 2, 2, 2, 2}, iters[NODES] = {3, 2, 4, -1, -1, -1, -1};
    double prob[NODES] = {1, 0.5, 0.5, 0.25, 0.75, 0.5, 0.5}, pprob[NODES], q[NODES * NST];
    for (int u = 0; u < NODES; u++) {
        pprob[u] = u ? pprob[parent[u]] * prob[u] : 1;
        q[u * NST] = 10 + u;
        q[u * NST + 1] = 20 + u;
    }
    mu_sc_tree t = {.n = NODES,
                    .parent = parent,
                    .stage = stage,
                    .prob = prob,
                    .pprob = pprob,
                    .q = q,
                    .iters = iters,
                    .stage_first = {0, 1, 3, 7}};
    size_t prd = mu_sc_ckpt_rec_doubles(NST, K);
    double rec[2 + NST + K * (1 + NST)] = {2, 5, 13, 23, 0.5, 14, 24, 0.5, 15, 25};
    int64_t index = 2;
    mu_sc_partial p = {K, 1, &index, rec, prd};
    return mu_sc_checkpoint_write(path, fp, 2, &t, NST, &p);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fz_mpi_once();
    cfg.nstages = 3;
    cfg.open[0] = cfg.open[1] = cfg.open[2] = K;
    const char *seed = getenv("MUTIRAO_FUZZ_SEED");
    if (seed) {
        int rc = write_seed(seed);
        if (rc) fprintf(stderr, "fuzz: %s\n", mu_error_message());
        MPI_Finalize();
        exit(rc);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    mu_sc_tree t;
    mu_sc_partial p;
    memset(&t, 0, sizeof t);
    memset(&p, 0, sizeof p);
    int stages = 0;
    if (!mu_sc_checkpoint_read(MPI_COMM_SELF, fz_file(data, size), fp, &cfg, NST, &t, &stages,
                               &p)) {
        mu_sc_tree_free(&t);
        mu_sc_partial_free(&p);
    }
    mu_error_clear();
    return 0;
}
