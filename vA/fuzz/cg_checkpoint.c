/* cg's --restart checkpoint, read as the command reads it (MPI-IO) on
 * MPI_COMM_SELF, for a 3-D Poisson problem of 4 x 3 x 2 cells. With
 * MUTIRAO_FUZZ_SEED=FILE set, writes a valid checkpoint of that problem to
 * FILE instead (the seed corpus: fuzz/seeds.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cg/checkpoint.h"
#include "cg/poisson.h"
#include "core/error.h"
#include "fuzz_file.h"

static mu_app app;
static cg_matrix A;
static cg_backend *b;
static void *vecs[CG_CKPT_VECTORS];
static cg_ckpt want;

static void setup(void) {
    fz_mpi_once();
    app.comm = MPI_COMM_SELF;
    app.size = 1;
    cg_block blk;
    if (cg_load_poisson(&app, CG_POISSON_3D7, 4, 3, 2, 1.0, &blk) ||
        cg_matrix_setup(&app, &blk, &A) || cg_backend_cpu(&A, 0, 0, &b)) {
        fprintf(stderr, "fuzz: setup: %s\n", mu_error_message());
        abort();
    }
    for (int v = 0; v < CG_CKPT_VECTORS; v++) {
        vecs[v] = b->vec_new(b);
        b->vec_fill(b, vecs[v], 0.25 * (v + 1));
    }
    want.n = A.n;
    want.nnz = A.nnz;
    want.options_hash = 0x6d7574697261ull;
    snprintf(want.options, sizeof want.options, "fuzz");
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    setup();
    const char *seed = getenv("MUTIRAO_FUZZ_SEED");
    if (seed) {
        want.iteration = 7;
        int rc = cg_checkpoint_write(&app, seed, &want, &A, b, vecs);
        if (rc) fprintf(stderr, "fuzz: %s\n", mu_error_message());
        MPI_Finalize();
        exit(rc);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cg_ckpt w = want;
    cg_checkpoint_read(&app, fz_file(data, size), &w, &A, b, vecs);
    mu_error_clear();
    return 0;
}
