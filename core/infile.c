#define _POSIX_C_SOURCE 200809L
#include "core/infile.h"
#include "core/message.h"
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t m) {
    return S_ISDIR(m)    ? "is a directory"
           : S_ISFIFO(m) ? "is a FIFO (named pipe)"
           : S_ISCHR(m)  ? "is a character device"
           : S_ISBLK(m)  ? "is a block device"
           : S_ISSOCK(m) ? "is a socket"
                         : "is not a regular file";
}

int mu_infile_fd(const char *path, const char *what, int64_t *size) {
    /* O_NONBLOCK: opening a FIFO with no writer would wait forever. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return mu_error("cannot open %s '%s': %s", what, path, strerror(errno)), -1;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return mu_error("cannot open %s '%s': %s", what, path, strerror(e)), -1;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return mu_error("%s: %s (the %s must be a regular file)", path, kind_of(st.st_mode), what),
               -1;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    if (size) *size = (int64_t)st.st_size;
    return fd;
}

FILE *mu_infile_open(const char *path, const char *what, int64_t *size) {
    int fd = mu_infile_fd(path, what, size);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        mu_error("cannot open %s '%s': %s", what, path, strerror(errno));
        close(fd);
    }
    return f;
}

int mu_lines_open(mu_lines *r, const char *path, const char *what, size_t max_len) {
    memset(r, 0, sizeof *r);
    r->path = path;
    r->max_len = max_len;
    r->f = mu_infile_open(path, what, NULL);
    return r->f ? 0 : 1;
}

int mu_text_check_nul(const char *path, long lineno, const char *line, size_t len) {
    const char *z = memchr(line, '\0', len);
    if (!z) return 0;
    return mu_error("%s:%ld: NUL byte at column %zu (binary data in a text file?)", path, lineno,
                    (size_t)(z - line) + 1);
}

int mu_lines_next(mu_lines *r) {
    errno = 0;
    ssize_t got = getline(&r->line, &r->cap, r->f);
    if (got < 0) {
        if (ferror(r->f))
            return mu_error("%s:%ld: read error: %s", r->path, r->lineno + 1, strerror(errno)), -1;
        return 0;
    }
    r->lineno++;
    size_t len = (size_t)got;
    if (r->max_len && len > r->max_len + 2) { /* + 2: the CR LF */
        /* One huge line is often a file whose lines end in CR only. */
        int cr = memchr(r->line, '\r', len - 1) != NULL;
        return mu_error("%s:%ld: line longer than %zu bytes%s", r->path, r->lineno, r->max_len,
                        cr ? " (lines that end in CR only? use LF or CR LF)" : ""),
               -1;
    }
    while (len > 0 && (r->line[len - 1] == '\n' || r->line[len - 1] == '\r')) r->line[--len] = 0;
    r->len = len;
    if (r->max_len && len > r->max_len)
        return mu_error("%s:%ld: line longer than %zu bytes", r->path, r->lineno, r->max_len), -1;
    return mu_text_check_nul(r->path, r->lineno, r->line, len) ? -1 : 1;
}

void mu_lines_close(mu_lines *r) {
    if (r->f) fclose(r->f);
    free(r->line);
    r->f = NULL;
    r->line = NULL;
}

mu_num mu_num_parse(const char *s, double *v) {
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || *end) return MU_NUM_BAD;
    if (isnan(x)) return MU_NUM_NAN;
    if (isinf(x)) return errno == ERANGE ? MU_NUM_OVERFLOW : MU_NUM_INF;
    if (x != 0 ? fabs(x) < DBL_MIN : errno == ERANGE) return MU_NUM_UNDERFLOW;
    *v = x;
    return MU_NUM_OK;
}

const char *mu_num_why(mu_num k) {
    switch (k) {
    case MU_NUM_OK:
        return "is a number";
    case MU_NUM_BAD:
        return "is not a number";
    case MU_NUM_NAN:
        return "is NaN (finite numbers only)";
    case MU_NUM_INF:
        return "is infinite (finite numbers only)";
    case MU_NUM_OVERFLOW:
        return "is beyond the double range (overflow)";
    case MU_NUM_UNDERFLOW:
        return "is below the smallest normal double, 2.2e-308 (underflow: it would read as 0 or "
               "lose digits)";
    }
    return "?";
}
