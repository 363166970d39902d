/* A test's breakpoint, loaded with LD_PRELOAD: when the process renames a
 * file onto the path in MU_STOP_AT (a checkpoint made whole), it stops itself
 * with SIGSTOP right after the rename. A signal test then knows the run is
 * frozen at a point with work left to do, sends its signal to the ranks and
 * continues them: the signal cannot arrive after the run has ended, whatever
 * the machine's speed or load. Paths are compared after resolving links. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static int same_path(const char *path) {
    const char *want = getenv("MU_STOP_AT");
    char a[PATH_MAX], b[PATH_MAX];
    if (!want || !path) return 0;
    if (!strcmp(want, path)) return 1;
    return realpath(want, a) && realpath(path, b) && !strcmp(a, b);
}

/* The rename onto MU_STOP_AT that stops: the first, or the MU_STOP_AT_NTH-th. */
static void stop_if_wanted(const char *path) {
    static int seen;
    const char *nth = getenv("MU_STOP_AT_NTH");
    if (same_path(path) && ++seen == (nth ? atoi(nth) : 1)) raise(SIGSTOP);
}

int rename(const char *from, const char *to) {
    int (*real)(const char *, const char *) =
        (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
    int rc = real(from, to);
    if (rc == 0) stop_if_wanted(to);
    return rc;
}

int renameat(int fromdir, const char *from, int todir, const char *to) {
    int (*real)(int, const char *, int, const char *) =
        (int (*)(int, const char *, int, const char *))dlsym(RTLD_NEXT, "renameat");
    int rc = real(fromdir, from, todir, to);
    if (rc == 0 && (todir == AT_FDCWD || to[0] == '/')) stop_if_wanted(to);
    return rc;
}
