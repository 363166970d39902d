#define _POSIX_C_SOURCE 200809L
#include "maxsub/input.h"
#include "core/error.h"
#include "core/infile.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

mu_in_format mu_in_pick_format(const char *path, const char *format) {
    if (format && strcmp(format, "text") == 0) return MU_FMT_TEXT;
    if (format && strcmp(format, "bin") == 0) return MU_FMT_BIN;
    const char *dot = strrchr(path, '.');
    if (dot && (!strcmp(dot, ".bin") || !strcmp(dot, ".i32") || !strcmp(dot, ".raw")))
        return MU_FMT_BIN;
    return MU_FMT_TEXT;
}

typedef struct {
    int32_t *v;
    int64_t n, cap;
} vec32;

static int push(vec32 *a, int32_t x) {
    if (a->n == a->cap) {
        int64_t cap = a->cap ? 2 * a->cap : 4096;
        int32_t *p = realloc(a->v, (size_t)cap * sizeof *p);
        if (!p) return mu_error("out of memory reading input (%lld values)", (long long)a->n);
        a->v = p;
        a->cap = cap;
    }
    a->v[a->n++] = x;
    return 0;
}

/* Parses the integers of one line; returns how many, or -1 after mu_error(). */
static int64_t parse_line(const char *path, long lineno, char *line, vec32 *out) {
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    int64_t count = 0;
    char *p = line;
    for (;;) {
        while (*p && (isspace((unsigned char)*p) || *p == ',')) p++;
        if (!*p) break;
        char *end;
        errno = 0;
        long long x = strtoll(p, &end, 10);
        if (end == p || (*end && !isspace((unsigned char)*end) && *end != ',')) {
            char tok[32];
            size_t len = strcspn(p, " \t\r\n,");
            snprintf(tok, sizeof tok, "%.*s", (int)(len < 31 ? len : 31), p);
            mu_error("%s:%ld: '%s' is not an integer (column %ld)", path, lineno, tok,
                     (long)(p - line) + 1);
            return -1;
        }
        if (errno || x < INT32_MIN || x > INT32_MAX) {
            mu_error("%s:%ld: %lld is outside the int32 range", path, lineno, x);
            return -1;
        }
        if (push(out, (int32_t)x)) return -1;
        count++;
        p = end;
    }
    return count;
}

/* The end of a text read: at least one value handed over in *values, or the
 * values freed on an error; `none` completes the message for an empty file. */
static int hand_over(int rc, const char *path, vec32 *a, const char *none, int32_t **values) {
    if (!rc && a->n == 0) rc = mu_error("%s: no values %s", path, none);
    if (rc) {
        free(a->v);
        return rc;
    }
    *values = a->v;
    return 0;
}

int mu_in_read_text_1d(const char *path, int32_t **values, int64_t *n) {
    *values = NULL;
    *n = 0;
    mu_lines r;
    MU_TRY(mu_lines_open(&r, path, "input", 0));
    vec32 a = {0};
    int got;
    while ((got = mu_lines_next(&r)) > 0)
        if (parse_line(path, r.lineno, r.line, &a) < 0) break;
    int rc = got != 0; /* a parse error leaves got = 1 */
    mu_lines_close(&r);
    rc = hand_over(rc, path, &a, "(n = 0); expected at least one integer", values);
    if (!rc) *n = a.n;
    return rc;
}

int mu_in_binary_count(const char *path, int64_t *n) {
    int64_t size;
    int fd = mu_infile_fd(path, "input", &size);
    if (fd < 0) return 1;
    close(fd);
    if (size % 4)
        return mu_error("%s: size %lld bytes is not a multiple of 4 (expected raw int32 values)",
                        path, (long long)size);
    if (size == 0) return mu_error("%s: empty file (n = 0); expected int32 values", path);
    *n = size / 4;
    return 0;
}

enum { READ_CHUNK = 8 << 20 }; /* bytes per pread: the threads take chunks */

/* Bytes [off, off + len) of fd into buf: 0, an errno, or -1 at an early end of file. */
static int pread_all(int fd, char *buf, int64_t off, int64_t len) {
    while (len > 0) {
        ssize_t got = pread(fd, buf, (size_t)len, (off_t)off);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return errno ? errno : EIO;
        if (got == 0) return -1;
        buf += got;
        off += got;
        len -= got;
    }
    return 0;
}

int mu_in_read_binary_range_threads(const char *path, int64_t lo, int64_t hi, int32_t *out,
                                    int threads) {
    int fd = mu_infile_fd(path, "input", NULL);
    if (fd < 0) return 1;
    /* Chunks in parallel: each thread copies from the page cache (or waits for
     * the disk) and first-touches its part of out, which one thread alone
     * does at a fraction of the cached read rate. */
    const int64_t bytes = (hi - lo) * 4, chunks = (bytes + READ_CHUNK - 1) / READ_CHUNK;
    int64_t bad_chunk = chunks;
    int bad = 0;
#pragma omp parallel for schedule(static) num_threads(threads > 0 ? threads : 1)
    for (int64_t c = 0; c < chunks; c++) {
        int64_t a = c * READ_CHUNK, len = bytes - a < READ_CHUNK ? bytes - a : READ_CHUNK;
        int e = pread_all(fd, (char *)out + a, lo * 4 + a, len);
        if (e) {
#pragma omp critical(mu_in_read_error)
            if (c < bad_chunk) { /* the first failing chunk's reason, as one read would give */
                bad_chunk = c;
                bad = e;
            }
        }
    }
    close(fd);
    if (!bad) return 0;
    return mu_error("%s: cannot read values %lld..%lld: %s", path, (long long)lo, (long long)hi - 1,
                    bad > 0 ? strerror(bad) : "file shorter than expected");
}

int mu_in_read_binary_range(const char *path, int64_t lo, int64_t hi, int32_t *out) {
    return mu_in_read_binary_range_threads(path, lo, hi, out, 1);
}

int mu_in_read_binary_segments(const char *path, int64_t first, int64_t stride, int64_t count,
                               int64_t len, int32_t *out, int threads) {
    int fd = mu_infile_fd(path, "input", NULL);
    if (fd < 0) return 1;
    int64_t bad_seg = count;
    int bad = 0;
#pragma omp parallel for schedule(static) num_threads(threads > 0 ? threads : 1)
    for (int64_t k = 0; k < count; k++) {
        int e = pread_all(fd, (char *)(out + k * len), (first + k * stride) * 4, len * 4);
        if (e) {
#pragma omp critical(mu_in_read_error)
            if (k < bad_seg) {
                bad_seg = k;
                bad = e;
            }
        }
    }
    close(fd);
    if (!bad) return 0;
    int64_t lo = first + bad_seg * stride;
    return mu_error("%s: cannot read values %lld..%lld: %s", path, (long long)lo,
                    (long long)(lo + len - 1),
                    bad > 0 ? strerror(bad) : "file shorter than expected");
}

int mu_in_read_text_2d(const char *path, int32_t **values, int64_t *rows, int64_t *cols) {
    *values = NULL;
    *rows = *cols = 0;
    mu_lines r;
    MU_TRY(mu_lines_open(&r, path, "input", 0));
    vec32 a = {0};
    long first_line = 0;
    int rc = 0, got;
    while ((got = mu_lines_next(&r)) > 0) {
        long lineno = r.lineno;
        int64_t k = parse_line(path, lineno, r.line, &a);
        if (k < 0) {
            rc = 1;
            break;
        }
        if (k == 0) continue;
        if (*cols == 0) {
            *cols = k;
            first_line = lineno;
        } else if (k != *cols) {
            rc = mu_error("%s:%ld: row has %lld values, expected %lld like line %ld", path, lineno,
                          (long long)k, (long long)*cols, first_line);
            break;
        }
        (*rows)++;
    }
    if (got < 0) rc = 1;
    mu_lines_close(&r);
    rc = hand_over(rc, path, &a, "(an empty matrix); expected rows of integers", values);
    if (rc) *rows = *cols = 0;
    return rc;
}
