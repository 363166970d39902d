/* Output files are written under a temporary name in the same directory and
 * renamed over the final name only when complete, so a failed or killed run
 * never leaves a half-written result. */
#ifndef MU_CORE_OUTPUT_H
#define MU_CORE_OUTPUT_H
#include <mpi.h>
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
/* A command's outputs checked before its work, collective over comm: rc is
 * this rank's start (its options read: 0, or 1 after mu_error()); where it is
 * 0 on rank 0, check(cfg) runs there (mu_output_check of each output: 0, or 1
 * after mu_error()). 0 when every rank got 0, else 1 on every rank after the
 * message (mu_error_collective). */
int mu_output_check_collective(MPI_Comm comm, int rank, int rc, int (*check)(const void *cfg),
                               const void *cfg);

#endif
