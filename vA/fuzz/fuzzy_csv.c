/* The fuzzy input (mutirao fuzzy --input): CSV or whitespace text, then the
 * column and shape checks the command makes; read twice, as the defaults
 * take it (header auto, no labels) and with --header=yes --label-column=1. */
#include <string.h>
#include "core/error.h"
#include "fuzz_file.h"
#include "fuzzy/fuzzy.h"

static void read_as(const char *path, const char *header, const char *label) {
    mu_fz_data d;
    memset(&d, 0, sizeof d);
    if (mu_fz_read(path, header, label, &d) == 0) {
        if (mu_fz_check_columns(path, &d) == 0) mu_fz_check_shape(path, &d);
    }
    mu_fz_free(&d);
    mu_error_clear();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fz_file(data, size);
    read_as(path, "auto", NULL);
    read_as(path, "yes", "1");
    return 0;
}
