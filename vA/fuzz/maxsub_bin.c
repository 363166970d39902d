/* maxsub's binary input (--format=bin): the count, then every value read as
 * rank 0 of --dim=2 reads them. */
#include <stdlib.h>
#include "core/error.h"
#include "fuzz_file.h"
#include "maxsub/input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fz_file(data, size);
    int64_t n = 0;
    if (mu_in_binary_count(path, &n) == 0) {
        int32_t *v = malloc((size_t)n * sizeof *v);
        if (v) mu_in_read_binary_range(path, 0, n, v);
        free(v);
    }
    mu_error_clear();
    return 0;
}
