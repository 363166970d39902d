/* The inflow history (mutirao scenarios --input): year, month, one column a
 * station, with the command's default selection, and --min-years=1 so that
 * short inputs reach the checks after the parse. */
#include <string.h>
#include "core/error.h"
#include "fuzz_file.h"
#include "scenarios/scenarios.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    mu_sc_select sel = {.stations = "all", .skip_zero = 0, .nstations = 0, .min_years = 1};
    mu_sc_hist h;
    memset(&h, 0, sizeof h);
    if (mu_sc_read(fz_file(data, size), &sel, &h) == 0) mu_sc_hist_free(&h);
    mu_error_clear();
    return 0;
}
