/* FASTA protein sequences (mutirao maxsub --fasta). */
#include "core/error.h"
#include "fuzz_file.h"
#include "maxsub/fasta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    mu_fasta_record *recs = NULL;
    int64_t count = 0;
    if (mu_fasta_read(fz_file(data, size), &recs, &count) == 0) mu_fasta_free(recs, count);
    mu_error_clear();
    return 0;
}
