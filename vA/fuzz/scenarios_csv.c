/* The inflow history (mutirao scenarios --input): year, month, one column a
 * station; read with the command's default selection and with
 * --stations=a,p001 --skip-zero --nstations=1, both with --min-years=1 so that
 * short inputs reach the checks after the parse. */
#include <string.h>
#include "core/error.h"
#include "fuzz_file.h"
#include "scenarios/scenarios.h"

static void read_as(const char *path, const mu_sc_select *sel) {
    mu_sc_hist h;
    memset(&h, 0, sizeof h);
    if (mu_sc_read(path, sel, &h) == 0) mu_sc_hist_free(&h);
    mu_error_clear();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fz_file(data, size);
    mu_sc_select all = {.stations = "all", .skip_zero = 0, .nstations = 0, .min_years = 1};
    mu_sc_select some = {.stations = "a,p001", .skip_zero = 1, .nstations = 1, .min_years = 1};
    read_as(path, &all);
    read_as(path, &some);
    return 0;
}
