/* Matrix Market (mutirao cg --matrix): the reader, then the symmetry scan the
 * command runs on a 'general' matrix. The block reader (with 1 and 3 threads)
 * must agree with the line-by-line reader on every input: the same status,
 * the same message, the same matrix. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cg/mmio.h"
#include "core/error.h"
#include "fuzz_file.h"

static int same(const cg_mm *a, const cg_mm *b) {
    if (a->n != b->n || a->nnz != b->nnz || a->entries != b->entries ||
        a->duplicates != b->duplicates || a->symmetric != b->symmetric ||
        strcmp(a->field, b->field) != 0)
        return 0;
    if (a->duplicates &&
        (a->duplicate_row != b->duplicate_row || a->duplicate_col != b->duplicate_col))
        return 0;
    return !memcmp(a->rowptr, b->rowptr, (size_t)(a->n + 1) * sizeof *a->rowptr) &&
           !memcmp(a->col, b->col, (size_t)a->nnz * sizeof *a->col) &&
           !memcmp(a->val, b->val, (size_t)a->nnz * sizeof *a->val);
}

static void agree(const char *path, const cg_mm *ref, int ref_rc, const char *ref_msg,
                  int threads) {
    cg_mm m;
    int rc = cg_mm_read_threads(path, threads, &m);
    if (rc != ref_rc || (rc && strcmp(mu_error_message(), ref_msg) != 0) || (!rc && !same(&m, ref)))
        abort(); /* the block reader disagrees with the line-by-line one */
    if (!rc) cg_mm_free(&m);
    mu_error_clear();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fz_file(data, size);
    cg_mm m;
    memset(&m, 0, sizeof m);
    int rc = cg_mm_read_lines(path, &m);
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", rc ? mu_error_message() : "");
    mu_error_clear();
    agree(path, &m, rc, msg, 1);
    agree(path, &m, rc, msg, 3);
    if (rc == 0) {
        int64_t r, c;
        if (!m.symmetric) cg_mm_asymmetry(&m, &r, &c);
        cg_mm_free(&m);
    }
    mu_error_clear();
    return 0;
}
