/* advect's --restart checkpoint on MPI_COMM_SELF (advect_cfg.h's problem).
 * With MUTIRAO_FUZZ_SEED=FILE set, writes a valid checkpoint to FILE instead. */
#include <stdio.h>
#include <stdlib.h>
#include "advect/advect.h"
#include "core/error.h"
#include "fuzz_file.h"
#include "advect_cfg.h"

static adv_cfg cfg;
static adv_state s;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fz_mpi_once();
    fz_advect_cfg(&cfg);
    if (adv_state_open(&s, &cfg, MPI_COMM_SELF, 1, 1e9, 0)) {
        fprintf(stderr, "fuzz: setup: %s\n", mu_error_message());
        abort();
    }
    const char *seed = getenv("MUTIRAO_FUZZ_SEED");
    if (seed) {
        s.step = 3;
        int rc = adv_checkpoint_write(&s, seed);
        if (rc) fprintf(stderr, "fuzz: %s\n", mu_error_message());
        MPI_Finalize();
        exit(rc);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    adv_checkpoint_read(&s, fz_file(data, size));
    mu_error_clear();
    return 0;
}
