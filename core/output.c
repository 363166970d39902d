#define _XOPEN_SOURCE 700 /* realpath */
#include "core/output.h"
#include "core/error.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file path names, symlinks followed (a dangling one to the name it
 * points at): res, and *st with *exists when it is there. */
static int resolve(const char *path, char *res, size_t size, struct stat *st, int *exists) {
    if (!*path) return mu_error("output: an empty file name");
    if (snprintf(res, size, "%s", path) >= (int)size)
        return mu_error("output path too long: '%s'", path);
    for (int hops = 0;; hops++) {
        if (lstat(res, st) != 0) {
            if (errno != ENOENT) return mu_error("cannot write '%s': %s", path, strerror(errno));
            *exists = 0;
            return 0;
        }
        if (!S_ISLNK(st->st_mode)) break;
        if (hops == 40) return mu_error("cannot write '%s': too many levels of symlinks", path);
        char link[PATH_MAX], next[PATH_MAX];
        ssize_t len = readlink(res, link, sizeof link - 1);
        if (len < 0) return mu_error("cannot read the symlink '%s': %s", res, strerror(errno));
        link[len] = '\0';
        const char *slash = strrchr(res, '/');
        int dir = link[0] == '/' || !slash ? 0 : (int)(slash - res + 1);
        if (snprintf(next, sizeof next, "%.*s%s", dir, res, link) >= (int)sizeof next ||
            snprintf(res, size, "%s", next) >= (int)size)
            return mu_error("output path too long: '%s' (through symlinks)", path);
    }
    *exists = 1;
    if (S_ISDIR(st->st_mode)) return mu_error("cannot write '%s': it is a directory", path);
    if (!S_ISREG(st->st_mode) && !S_ISFIFO(st->st_mode) && !S_ISCHR(st->st_mode))
        return mu_error("cannot write '%s': not a regular file, FIFO or character device "
                        "(a block device or socket is never written)",
                        path);
    return 0;
}

static int name(mu_output *out, const char *path, long pid, int seekable) {
    memset(out, 0, sizeof *out);
    struct stat st;
    int exists;
    MU_TRY(resolve(path, out->path, sizeof out->path, &st, &exists));
    if (exists && !S_ISREG(st.st_mode)) {
        if (seekable)
            return mu_error("cannot write '%s': a %s, and this output needs a regular file", path,
                            S_ISFIFO(st.st_mode) ? "FIFO" : "character device");
        out->through = 1;
        snprintf(out->tmp, sizeof out->tmp, "%s", out->path);
        return 0;
    }
    snprintf(out->tmp, sizeof out->tmp, "%s.tmp.%ld", out->path, pid);
    return 0;
}

int mu_output_name(mu_output *out, const char *path, int seekable) {
    return name(out, path, (long)getpid(), seekable);
}

int mu_output_name_collective(MPI_Comm comm, mu_output *out, const char *path, int seekable) {
    int rank, rc = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) rc = mu_output_name(out, path, seekable);
    MU_TRY(mu_error_collective(comm, rc));
    MPI_Bcast(out, (int)sizeof *out, MPI_BYTE, 0, comm);
    out->f = NULL;
    return 0;
}

/* A fresh temporary file: O_EXCL, so nothing planted under its name (a
 * symlink, a stale file of a killed run with the same PID: removed) is followed. */
static FILE *create_tmp(const char *tmp) {
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd < 0 && errno == EEXIST && unlink(tmp) == 0)
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "w");
    if (!f) close(fd);
    return f;
}

int mu_output_open(mu_output *out, const char *path) {
    MU_TRY(mu_output_name(out, path, 0));
    out->f = out->through ? fopen(out->tmp, "w") : create_tmp(out->tmp);
    if (!out->f) return mu_error("cannot write '%s': %s", path, strerror(errno));
    return 0;
}

int mu_output_sync(mu_output *out) {
    if (fflush(out->f) != 0 || (!out->through && fsync(fileno(out->f)) != 0))
        return mu_error("error writing '%s': %s", out->path, strerror(errno));
    return 0;
}

int mu_output_commit(mu_output *out) {
    int bad = 0;
    if (out->f) {
        bad = ferror(out->f);
        if (fclose(out->f) != 0) bad = 1;
    }
    out->f = NULL;
    if (bad) {
        if (!out->through) remove(out->tmp);
        return mu_error("error writing '%s' (disk full?)", out->path);
    }
    if (out->through) return 0;
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
    if (!out->through && out->tmp[0]) remove(out->tmp);
}

/* What a run reads and writes, for the same-file checks. */
enum { KNOWN_MAX = 64 };
static struct {
    dev_t dev;
    ino_t ino;
    int has_ino, input;
    char norm[PATH_MAX + 256]; /* folder resolved + name: for files not there yet */
    char what[64];
} known[KNOWN_MAX];
static int nknown;

void mu_output_reset(void) {
    nknown = 0;
}

/* The resolved folder and the name, so "a" and "./a" compare equal. */
static void normalize(const char *target, char *norm, size_t size) {
    char dir[PATH_MAX], real[PATH_MAX];
    const char *slash = strrchr(target, '/');
    const char *base = slash ? slash + 1 : target;
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - target) + (slash == target) : 1,
             slash ? target : ".");
    int len = realpath(dir, real) ? snprintf(norm, size, "%s/%s", real, base) : -1;
    if (len < 0 || (size_t)len >= size) snprintf(norm, size, "%s", target);
}

static void remember(const char *path, const char *what, int input) {
    if (nknown == KNOWN_MAX) return;
    struct stat st;
    int exists = 0;
    char target[1024];
    if (resolve(path, target, sizeof target, &st, &exists)) {
        mu_error_clear();
        return;
    }
    if (exists && !S_ISREG(st.st_mode)) return; /* /dev/null twice is fine */
    if (input && !exists) return;
    known[nknown].has_ino = exists;
    known[nknown].dev = exists ? st.st_dev : 0;
    known[nknown].ino = exists ? st.st_ino : 0;
    known[nknown].input = input;
    normalize(target, known[nknown].norm, sizeof known[nknown].norm);
    snprintf(known[nknown].what, sizeof known[nknown].what, "%s", what);
    nknown++;
}

void mu_output_input(const char *path, const char *what) {
    if (path && *path) remember(path, what, 1);
}

/* path (an output) against what was remembered. */
static int distinct(const char *path) {
    struct stat st;
    int exists = 0;
    char target[1024], norm[PATH_MAX + 256];
    MU_TRY(resolve(path, target, sizeof target, &st, &exists));
    if (exists && !S_ISREG(st.st_mode)) return 0;
    normalize(target, norm, sizeof norm);
    for (int i = 0; i < nknown; i++) {
        int same = exists && known[i].has_ino
                       ? known[i].dev == st.st_dev && known[i].ino == st.st_ino
                       : !strcmp(known[i].norm, norm);
        if (same)
            return mu_error("output '%s' is the same file as %s %s: refusing to overwrite it", path,
                            known[i].input ? "the input" : "the output", known[i].what);
    }
    return 0;
}

int mu_output_check(const char *path) {
    mu_output out;
    MU_TRY(mu_output_name(&out, path, 0));
    if (out.through) {
        if (access(out.path, W_OK) != 0)
            return mu_error("cannot write '%s': %s", path, strerror(errno));
    } else {
        FILE *f = create_tmp(out.tmp);
        if (!f) return mu_error("cannot write '%s': %s", path, strerror(errno));
        fclose(f);
        remove(out.tmp);
    }
    MU_TRY(distinct(path));
    char what[64];
    snprintf(what, sizeof what, "'%.60s'", path);
    remember(path, what, 0);
    return 0;
}

int mu_output_check_collective(MPI_Comm comm, int rank, int rc, int (*check)(const void *cfg),
                               const void *cfg) {
    if (!rc && rank == 0) rc = check(cfg);
    return mu_error_collective(comm, rc);
}
