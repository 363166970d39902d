/* The answer CSV of a maxsub run: a header line and one row, written whole or not at all. */
#include <stdio.h>
#include "maxsub/maxsub.h"
#include "core/error.h"
#include "core/output.h"

int mu_maxsub_write_csv(const char *path, const char *header, const char *row) {
    if (!path) return 0;
    mu_output out;
    MU_TRY(mu_output_open(&out, path));
    fprintf(out.f, "%s\n%s\n", header, row);
    return mu_output_commit(&out);
}
