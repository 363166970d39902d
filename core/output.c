#define _POSIX_C_SOURCE 200809L
#include "core/output.h"
#include "core/error.h"
#include <errno.h>
#include <string.h>
#include <unistd.h>

int mu_output_open(mu_output *out, const char *path) {
    out->f = NULL;
    if (snprintf(out->path, sizeof out->path, "%s", path) >= (int)sizeof out->path)
        return mu_error("output path too long: '%s'", path);
    snprintf(out->tmp, sizeof out->tmp, "%s.tmp.%ld", path, (long)getpid());
    out->f = fopen(out->tmp, "w");
    if (!out->f) return mu_error("cannot write '%s': %s", path, strerror(errno));
    return 0;
}

int mu_output_sync(mu_output *out) {
    if (fflush(out->f) != 0 || fsync(fileno(out->f)) != 0)
        return mu_error("error writing '%s': %s", out->path, strerror(errno));
    return 0;
}

int mu_output_commit(mu_output *out) {
    int bad = ferror(out->f);
    if (fclose(out->f) != 0) bad = 1;
    out->f = NULL;
    if (bad) {
        remove(out->tmp);
        return mu_error("error writing '%s' (disk full?)", out->path);
    }
    if (rename(out->tmp, out->path) != 0) {
        int e = errno;
        remove(out->tmp);
        return mu_error("cannot rename output into '%s': %s", out->path, strerror(e));
    }
    return 0;
}

void mu_output_abort(mu_output *out) {
    if (out->f) fclose(out->f);
    out->f = NULL;
    remove(out->tmp);
}

int mu_output_check(const char *path) {
    mu_output out;
    MU_TRY(mu_output_open(&out, path));
    mu_output_abort(&out);
    return 0;
}

int mu_output_check_collective(MPI_Comm comm, int rank, int rc, int (*check)(const void *cfg),
                               const void *cfg) {
    if (!rc && rank == 0) rc = check(cfg);
    return mu_error_collective(comm, rc);
}
