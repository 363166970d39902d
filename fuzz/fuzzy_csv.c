/* The fuzzy input (mutirao fuzzy --input): CSV or whitespace text, header
 * auto, then the column and shape checks the command makes. */
#include <string.h>
#include "core/error.h"
#include "fuzz_file.h"
#include "fuzzy/fuzzy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fz_file(data, size);
    mu_fz_data d;
    memset(&d, 0, sizeof d);
    if (mu_fz_read(path, "auto", NULL, &d) == 0) {
        if (mu_fz_check_columns(path, &d) == 0) mu_fz_check_shape(path, &d);
    }
    mu_fz_free(&d);
    mu_error_clear();
    return 0;
}
