/* advect's --wind-file (float32 u, v, w of every cell) on a 4 x 3 x 2 grid:
 * 72 floats, 288 bytes. */
#include <mpi.h>
#include <string.h>
#include "advect/advect.h"
#include "core/error.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    adv_cfg c;
    memset(&c, 0, sizeof c);
    c.wind = ADV_WIND_FILE;
    c.n[0] = 4;
    c.n[1] = 3;
    c.n[2] = 2;
    c.wind_file = fz_file(data, size);
    adv_wind_load(&c, MPI_COMM_SELF);
    adv_wind_free();
    mu_error_clear();
    return 0;
}
