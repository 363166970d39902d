/* advect's --init-file (float32, every field of every cell) read by the
 * run's set-up, as the command does, on MPI_COMM_SELF (advect_cfg.h's
 * problem: 2 fields x 24 cells, 192 bytes). */
#include "advect/advect.h"
#include "core/error.h"
#include "fuzz_file.h"
#include "advect_cfg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_mpi_once();
    adv_cfg cfg;
    fz_advect_cfg(&cfg);
    cfg.init = ADV_INIT_FILE;
    cfg.init_file = fz_file(data, size);
    adv_state s;
    if (adv_state_open(&s, &cfg, MPI_COMM_SELF, 1, 1e9, 0) == 0) adv_state_close(&s);
    mu_error_clear();
    return 0;
}
