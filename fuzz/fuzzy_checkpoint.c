/* fuzzy's --restart checkpoint (rank 0's reader) for 8 objects of 2
 * features. With MUTIRAO_FUZZ_SEED=FILE set, writes a valid checkpoint of 5
 * starts done to FILE instead (the seed corpus: fuzz/corpus.sh). */
#include <stdio.h>
#include <stdlib.h>
#include "core/error.h"
#include "fuzz_file.h"
#include "fuzzy/run.h"

enum { N = 8, F = 2 };
static const uint64_t fp = 0x66757a7a79ull;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    const char *seed = getenv("MUTIRAO_FUZZ_SEED");
    if (seed) {
        double rec[N * (F + 2)];
        for (int i = 0; i < N * (F + 2); i++) rec[i] = i % (F + 2) == F + 1 ? 1 : 0.5 * i;
        int rc = mu_fz_ckpt_write(seed, N, F, fp, 5, rec);
        if (rc) fprintf(stderr, "fuzz: %s\n", mu_error_message());
        exit(rc);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    double rec[N * (F + 2)];
    int64_t done = 0;
    mu_fz_ckpt_read(fz_file(data, size), N, F, fp, 100, &done, rec);
    mu_error_clear();
    return 0;
}
