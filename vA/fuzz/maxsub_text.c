/* maxsub's text inputs (--input=FILE.txt): the 1-D reader (--dim=1) and the
 * 2-D matrix reader (--dim=2) on the same bytes. */
#include <stdlib.h>
#include "core/error.h"
#include "fuzz_file.h"
#include "maxsub/input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fz_file(data, size);
    int32_t *v = NULL;
    int64_t n = 0, rows = 0, cols = 0;
    if (mu_in_read_text_1d(path, &v, &n) == 0) free(v);
    v = NULL;
    if (mu_in_read_text_2d(path, &v, &rows, &cols) == 0) free(v);
    mu_error_clear();
    return 0;
}
