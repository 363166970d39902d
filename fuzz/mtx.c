/* Matrix Market (mutirao cg --matrix): the reader, then the symmetry scan the
 * command runs on a 'general' matrix. */
#include <string.h>
#include "cg/mmio.h"
#include "core/error.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cg_mm m;
    memset(&m, 0, sizeof m);
    if (cg_mm_read(fz_file(data, size), &m) == 0) {
        int64_t r, c;
        if (!m.symmetric) cg_mm_asymmetry(&m, &r, &c);
        cg_mm_free(&m);
    }
    mu_error_clear();
    return 0;
}
