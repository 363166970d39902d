/* Output files are written under a temporary name in the same directory and
 * renamed over the final name only when complete, so a failed or killed run
 * never leaves a half-written result.
 *
 * The target: a symlink is followed (the file it names gets the output and the
 * link stays a link); an existing FIFO or character device (/dev/null,
 * /dev/stdout, a named pipe) is written straight through, never renamed over;
 * a directory, block device or socket is refused. The temporary name is
 * "<target>.tmp.<pid of rank 0>", so runs sharing a folder do not collide. */
#ifndef MU_CORE_OUTPUT_H
#define MU_CORE_OUTPUT_H
#include <mpi.h>
#include <stdio.h>

typedef struct {
    FILE *f;
    char path[1024]; /* the target, symlinks resolved */
    char tmp[1100];  /* where the bytes go: a temporary name, or path itself when through */
    int through;     /* path is a FIFO or character device, written in place */
} mu_output;

int mu_output_open(mu_output *out, const char *path);
/* As mu_output_open, but nothing is opened: for writers that open out->tmp by
 * name themselves (gnuplot, HDF5, netCDF, MPI-IO). seekable: the writer needs a
 * regular file (a FIFO or device target is refused). Commit renames (or, when
 * through, does nothing); abort removes the temporary file. */
int mu_output_name(mu_output *out, const char *path, int seekable);
/* mu_output_name on rank 0 of comm, the names broadcast (collective): for a
 * file every rank opens (MPI-IO). 0, or 1 on every rank after the message. */
int mu_output_name_collective(MPI_Comm comm, mu_output *out, const char *path, int seekable);
/* Flushes to the disk (fsync) before a commit, for files a restart depends on
 * (checkpoints): 0 or 1 with mu_error(). */
int mu_output_sync(mu_output *out);
/* Flushes, closes and renames; 0 or 1 with mu_error(). */
int mu_output_commit(mu_output *out);
/* Closes and removes the temporary file (a through target is left as it is). */
void mu_output_abort(mu_output *out);
/* Checks up front that path can be written (creates and removes its temporary
 * file; a FIFO or character device only for write permission, not opened), so
 * a run fails before its work rather than after. The target is refused when it
 * is the same file (device and inode) as an input given to mu_output_input, or
 * as an output checked before (since mu_output_reset): each checked output is
 * remembered. */
int mu_output_check(const char *path);
/* Remembers an input file (what a run reads) for mu_output_check; one that
 * does not exist is ignored (its reader reports it). what names it in messages
 * ("--input", say). */
void mu_output_input(const char *path, const char *what);
/* Forgets the inputs and outputs remembered. */
void mu_output_reset(void);
/* A command's outputs checked before its work, collective over comm: rc is
 * this rank's start (its options read: 0, or 1 after mu_error()); where it is
 * 0 on rank 0, check(cfg) runs there (mu_output_check of each output: 0, or 1
 * after mu_error()). 0 when every rank got 0, else 1 on every rank after the
 * message (mu_error_collective). */
int mu_output_check_collective(MPI_Comm comm, int rank, int rc, int (*check)(const void *cfg),
                               const void *cfg);

#endif
