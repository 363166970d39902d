/* Output files are written under a temporary name in the same directory and
 * renamed over the final name only when complete, so a failed or killed run
 * never leaves a half-written result. */
#ifndef MU_CORE_OUTPUT_H
#define MU_CORE_OUTPUT_H
#include <stdio.h>

typedef struct {
    FILE *f;
    char path[1024];
    char tmp[1100];
} mu_output;

int mu_output_open(mu_output *out, const char *path);
/* Flushes to the disk (fsync) before a commit, for files a restart depends on
 * (checkpoints): 0 or 1 with mu_error(). */
int mu_output_sync(mu_output *out);
/* Flushes, closes and renames; 0 or 1 with mu_error(). */
int mu_output_commit(mu_output *out);
/* Closes and removes the temporary file. */
void mu_output_abort(mu_output *out);
/* Checks up front that path can be written (creates and removes its temporary
 * file), so a run fails before its work rather than after. */
int mu_output_check(const char *path);

#endif
