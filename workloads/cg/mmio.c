#define _POSIX_C_SOURCE 200809L
#include "cg/mmio.h"
#include "cg/mmio_fast.h"
#include "cg/search.h"
#include "core/free.h"
#include "core/message.h"
#include "core/infile.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <zlib.h>

enum { LINE_MAX_LEN = 1024 };

typedef struct {
    gzFile f;
    const char *path;
    long line;
    char buf[LINE_MAX_LEN + 2];
} reader;

/* Next line into r->buf without its newline: 1, 0 at end of file, -1 on error. */
static int next_line(reader *r) {
    int err = 0;
    z_off_t at = gztell(r->f);
    if (!gzgets(r->f, r->buf, sizeof r->buf)) {
        const char *msg = gzerror(r->f, &err);
        if (err == Z_BUF_ERROR)
            return mu_error("%s:%ld: the compressed file ends early (truncated?)", r->path,
                            r->line + 1),
                   -1;
        if (err != Z_OK) return mu_error("%s:%ld: read error: %s", r->path, r->line + 1, msg), -1;
        return 0;
    }
    r->line++;
    /* gzgets copies NUL bytes too: the bytes it took beyond strlen hold one. */
    size_t len = strlen(r->buf), took = (size_t)(gztell(r->f) - at);
    if (took > len && mu_text_check_nul(r->path, r->line, r->buf, took)) return -1;
    if (len > LINE_MAX_LEN && r->buf[len - 1] != '\n')
        return mu_error("%s:%ld: line longer than %d characters", r->path, r->line, LINE_MAX_LEN),
               -1;
    if (len && r->buf[len - 1] != '\n') {
        /* A last line without a newline: fine in a plain file, a cut in a gzip stream. */
        gzerror(r->f, &err);
        if (err == Z_BUF_ERROR)
            return mu_error("%s:%ld: the compressed file ends early (truncated?)", r->path,
                            r->line),
                   -1;
    }
    while (len && (r->buf[len - 1] == '\n' || r->buf[len - 1] == '\r')) r->buf[--len] = '\0';
    return 1;
}

static int blank(const char *s) {
    while (*s && isspace((unsigned char)*s)) s++;
    return *s == '\0';
}

/* Up to max whitespace-separated tokens of s (modified in place); returns the count. */
static int split(char *s, char **tok, int max) {
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(s, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        if (n == max) return max + 1;
        tok[n++] = t;
    }
    return n;
}

static const char *banner_hint =
    "expected '%%MatrixMarket matrix coordinate <real|integer|pattern> <general|symmetric>'";

static int parse_banner(reader *r, cg_mm *m, int *pattern, int *integer) {
    int got = next_line(r);
    if (got < 0) return 1;
    if (got == 0) return mu_error("%s:1: empty file; %s", r->path, banner_hint);
    char copy[LINE_MAX_LEN + 2];
    snprintf(copy, sizeof copy, "%s", r->buf);
    char *tok[6];
    int n = split(r->buf, tok, 5);
    if (n < 1 || strcasecmp(tok[0], "%%MatrixMarket") != 0)
        return mu_error("%s:1: not a Matrix Market file: %s, got '%.60s'", r->path, banner_hint,
                        copy);
    if (n != 5) return mu_error("%s:1: incomplete banner '%.80s'; %s", r->path, copy, banner_hint);
    if (strcasecmp(tok[1], "matrix") != 0)
        return mu_error("%s:1: object '%s' is not supported; expected 'matrix'", r->path, tok[1]);
    if (strcasecmp(tok[2], "coordinate") != 0)
        return mu_error("%s:1: format '%s' is not supported; expected 'coordinate' (sparse)",
                        r->path, tok[2]);
    *pattern = !strcasecmp(tok[3], "pattern");
    *integer = !strcasecmp(tok[3], "integer");
    if (!*pattern && !*integer && strcasecmp(tok[3], "real") != 0)
        return mu_error("%s:1: field '%s' is not supported; expected real, integer or pattern",
                        r->path, tok[3]);
    snprintf(m->field, sizeof m->field, "%s", *pattern ? "pattern" : *integer ? "integer" : "real");
    if (!strcasecmp(tok[4], "symmetric"))
        m->symmetric = 1;
    else if (!strcasecmp(tok[4], "general"))
        m->symmetric = 0;
    else
        return mu_error("%s:1: symmetry '%s' is not supported; CG needs a symmetric matrix stored "
                        "as 'general' or 'symmetric'",
                        r->path, tok[4]);
    return 0;
}

static int parse_index(const reader *r, const char *tok, const char *what, int64_t n, int64_t *v) {
    char *end;
    errno = 0;
    long long x = strtoll(tok, &end, 10);
    if (end == tok || *end)
        return mu_error("%s:%ld: %s '%s' is not an integer", r->path, r->line, what, tok);
    if (errno || x < 1 || x > n)
        return mu_error("%s:%ld: %s index %s is out of range 1..%lld", r->path, r->line, what, tok,
                        (long long)n);
    *v = x;
    return 0;
}

static int parse_value(const reader *r, const char *tok, int integer, double *v) {
    char *end;
    errno = 0;
    if (integer) {
        long long x = strtoll(tok, &end, 10);
        if (end == tok || *end)
            return mu_error("%s:%ld: '%s' is not an integer (the field is 'integer')", r->path,
                            r->line, tok);
        if (errno) return mu_error("%s:%ld: integer '%s' is out of range", r->path, r->line, tok);
        *v = (double)x;
        return 0;
    }
    mu_num k = mu_num_parse(tok, v);
    if (k == MU_NUM_BAD) return mu_error("%s:%ld: '%s' is not a number", r->path, r->line, tok);
    if (k != MU_NUM_OK)
        return mu_error("%s:%ld: value '%s' %s", r->path, r->line, tok,
                        k == MU_NUM_UNDERFLOW ? mu_num_why(k) : "is not a finite number");
    return 0;
}

typedef cg_mm_triples triples;

/* Room for entry k (k < declared): grown as entries arrive, so a wrong count
 * in the size line costs an error message, not a huge allocation. */
static int reserve(triples *t, int64_t k, int64_t declared, const char *path) {
    int64_t want = t->cap ? 2 * t->cap : 1 << 16; /* cg_mm_reserve's next size */
    if (want > declared) want = declared;
    if (cg_mm_reserve(t, k + 1, declared))
        return mu_error("%s: out of memory for %lld entries", path, (long long)want);
    return 0;
}

static int read_entries(reader *r, cg_mm *m, int pattern, int integer, int64_t declared,
                        long size_line, triples *t) {
    int64_t k = 0;
    int got;
    while ((got = next_line(r)) > 0) {
        if (blank(r->buf) || r->buf[0] == '%') continue;
        if (k == declared)
            return mu_error("%s:%ld: more entries than the %lld declared on line %ld", r->path,
                            r->line, (long long)declared, size_line);
        char copy[96];
        snprintf(copy, sizeof copy, "%.80s", r->buf);
        char *tok[4];
        int want = pattern ? 2 : 3, n = split(r->buf, tok, want);
        if (n != want)
            return mu_error("%s:%ld: expected '%s', got '%.60s'", r->path, r->line,
                            pattern ? "row column" : "row column value", copy);
        int64_t i, j;
        double v = 1.0;
        MU_TRY(parse_index(r, tok[0], "row", m->n, &i));
        MU_TRY(parse_index(r, tok[1], "column", m->n, &j));
        if (!pattern) MU_TRY(parse_value(r, tok[2], integer, &v));
        if (m->symmetric && j > i)
            return mu_error("%s:%ld: entry (%lld, %lld) lies above the diagonal, but a "
                            "'symmetric' file stores only the lower triangle (row >= column)",
                            r->path, r->line, (long long)i, (long long)j);
        MU_TRY(reserve(t, k, declared, r->path));
        t->i[k] = (int32_t)(i - 1);
        t->j[k] = (int32_t)(j - 1);
        t->v[k] = v;
        k++;
    }
    if (got < 0) return 1;
    if (k < declared)
        return mu_error("%s:%ld: end of file after %lld of the %lld entries declared on line %ld",
                        r->path, r->line + 1, (long long)k, (long long)declared, size_line);
    return 0;
}

/* Stable sort of one row's (col, val) by column: insertion sort for short rows,
 * merge sort otherwise. Stability keeps duplicates in file order. */
static void sort_row(int32_t *c, double *v, int64_t n, int32_t *tc, double *tv) {
    if (n <= 32) {
        for (int64_t a = 1; a < n; a++) {
            int32_t cc = c[a];
            double vv = v[a];
            int64_t b = a;
            while (b > 0 && c[b - 1] > cc) {
                c[b] = c[b - 1];
                v[b] = v[b - 1];
                b--;
            }
            c[b] = cc;
            v[b] = vv;
        }
        return;
    }
    int64_t h = n / 2;
    sort_row(c, v, h, tc, tv);
    sort_row(c + h, v + h, n - h, tc, tv);
    int64_t a = 0, b = h, o = 0;
    while (a < h || b < n) {
        int take_a = b == n || (a < h && c[a] <= c[b]);
        int64_t s = take_a ? a++ : b++;
        tc[o] = c[s];
        tv[o++] = v[s];
    }
    memcpy(c, tc, (size_t)n * sizeof *c);
    memcpy(v, tv, (size_t)n * sizeof *v);
}

/* Triples (file order) to CSR: rows by a stable counting sort, mirrors added
 * for symmetric files, columns sorted, duplicates summed in file order. */
static int build_csr(cg_mm *m, const triples *t, int64_t count) {
    int64_t n = m->n;
    m->rowptr = calloc((size_t)n + 1, sizeof *m->rowptr);
    if (!m->rowptr) return mu_error("out of memory for a %lld-row matrix", (long long)n);
    for (int64_t k = 0; k < count; k++) {
        m->rowptr[t->i[k] + 1]++;
        if (m->symmetric && t->i[k] != t->j[k]) m->rowptr[t->j[k] + 1]++;
    }
    for (int64_t r = 0; r < n; r++) m->rowptr[r + 1] += m->rowptr[r];
    int64_t total = m->rowptr[n], maxrow = 0;
    m->col = malloc((size_t)(total ? total : 1) * sizeof *m->col);
    m->val = malloc((size_t)(total ? total : 1) * sizeof *m->val);
    int64_t *next = malloc((size_t)(n ? n : 1) * sizeof *next);
    if (!m->col || !m->val || !next) {
        free(next);
        return mu_error("out of memory for %lld matrix entries", (long long)total);
    }
    memcpy(next, m->rowptr, (size_t)n * sizeof *next);
    for (int64_t k = 0; k < count; k++) {
        int64_t p = next[t->i[k]]++;
        m->col[p] = t->j[k];
        m->val[p] = t->v[k];
        if (m->symmetric && t->i[k] != t->j[k]) {
            p = next[t->j[k]]++;
            m->col[p] = t->i[k];
            m->val[p] = t->v[k];
        }
    }
    free(next);
    for (int64_t r = 0; r < n; r++)
        if (m->rowptr[r + 1] - m->rowptr[r] > maxrow) maxrow = m->rowptr[r + 1] - m->rowptr[r];
    int32_t *tc = malloc((size_t)(maxrow ? maxrow : 1) * sizeof *tc);
    double *tv = malloc((size_t)(maxrow ? maxrow : 1) * sizeof *tv);
    if (!tc || !tv) {
        free(tc);
        free(tv);
        return mu_error("out of memory sorting matrix rows");
    }
    int64_t out = 0;
    for (int64_t r = 0; r < n; r++) {
        int64_t a = m->rowptr[r], b = m->rowptr[r + 1];
        sort_row(m->col + a, m->val + a, b - a, tc, tv);
        m->rowptr[r] = out;
        for (int64_t p = a; p < b; p++) {
            if (p > a && m->col[p] == m->col[out - 1]) {
                m->val[out - 1] += m->val[p];
                if (!m->duplicates++) {
                    m->duplicate_row = r;
                    m->duplicate_col = m->col[p];
                }
            } else {
                m->col[out] = m->col[p];
                m->val[out++] = m->val[p];
            }
        }
    }
    m->rowptr[n] = out;
    m->nnz = out;
    free(tc);
    free(tv);
    return 0;
}

/* The size line 'rows columns entries' after the banner, comments and blank lines. */
static int read_sizes(reader *r, cg_mm *m, long *size_line, long long *declared) {
    int got = 0;
    while ((got = next_line(r)) > 0)
        if (!blank(r->buf) && r->buf[0] != '%') break;
    if (got < 0) return 1;
    if (got == 0)
        return mu_error("%s:%ld: end of file before the size line 'rows columns entries'", r->path,
                        r->line + 1);
    *size_line = r->line;
    long long rows = 0, cols = 0;
    char extra[8];
    if (sscanf(r->buf, "%lld %lld %lld %7s", &rows, &cols, declared, extra) != 3)
        return mu_error("%s:%ld: expected the size line 'rows columns entries', got '%.60s'",
                        r->path, r->line, r->buf);
    if (rows < 1 || cols < 1 || *declared < 0)
        return mu_error("%s:%ld: bad sizes %lld x %lld with %lld entries", r->path, r->line, rows,
                        cols, *declared);
    if (rows != cols)
        return mu_error("%s:%ld: the matrix is %lld x %lld; CG needs a square matrix", r->path,
                        r->line, rows, cols);
    if (rows > INT32_MAX - 1)
        return mu_error("%s:%ld: %lld rows: at most 2^31 - 2 are supported", r->path, r->line,
                        rows);
    m->n = rows;
    return 0;
}

enum { READ_AGAIN = 2 }; /* the fast path did not take the file */

/* The file's entries into t: in blocks by `threads` threads (fast), else (or
 * when the fast path returns READ_AGAIN) line by line, the reference whose
 * messages every error gets. */
static int read_file(const char *path, int threads, int fast, cg_mm *m, triples *t) {
    reader r = {.path = path};
    int fd = mu_infile_fd(path, "matrix", NULL);
    if (fd < 0) return 1;
    r.f = gzdopen(fd, "rb");
    if (!r.f) {
        close(fd);
        return mu_error("cannot open matrix '%s': %s", path, "out of memory");
    }
    gzbuffer(r.f, 1 << 20); /* fewer, larger reads of the file */
    int pattern = 0, integer = 0, rc = parse_banner(&r, m, &pattern, &integer);
    long size_line = 0;
    long long declared = 0;
    if (!rc) rc = read_sizes(&r, m, &size_line, &declared);
    if (!rc && fast) {
        cg_mm_layout lay = {m->n, declared, pattern, integer, m->symmetric, threads};
        rc = cg_mm_fast_entries(r.f, &lay, t) ? READ_AGAIN : 0;
    } else if (!rc) {
        rc = read_entries(&r, m, pattern, integer, declared, size_line, t);
    }
    /* Only now are arrays of the rows made: their count must be backed by entries. */
    if (!rc && declared < m->n)
        rc = mu_error("%s:%ld: %lld rows but %lld entries: an SPD matrix has a diagonal entry in "
                      "every row",
                      path, size_line, (long long)m->n, declared);
    gzclose(r.f);
    m->entries = declared;
    return rc;
}

/* fast: 1 tries the block reader first, 0 reads line by line only. */
static int read_matrix(const char *path, int threads, int fast, cg_mm *m) {
    memset(m, 0, sizeof *m);
    triples t = {0};
    int rc = fast ? read_file(path, threads, 1, m, &t) : READ_AGAIN;
    if (rc == READ_AGAIN) {
        free(t.i);
        free(t.j);
        free(t.v);
        memset(&t, 0, sizeof t);
        memset(m, 0, sizeof *m);
        rc = read_file(path, threads, 0, m, &t);
    }
    if (!rc) rc = build_csr(m, &t, m->entries);
    free(t.i);
    free(t.j);
    free(t.v);
    if (rc) cg_mm_free(m);
    return rc;
}

int cg_mm_read_threads(const char *path, int threads, cg_mm *m) {
    return read_matrix(path, threads, 1, m);
}

int cg_mm_read(const char *path, cg_mm *m) {
    return read_matrix(path, 1, 1, m);
}

int cg_mm_read_lines(const char *path, cg_mm *m) {
    return read_matrix(path, 1, 0, m);
}

void cg_mm_free(cg_mm *m) {
    MU_FREE(m->rowptr, m->col, m->val);
    m->rowptr = NULL;
    m->col = NULL;
    m->val = NULL;
}

static double find_entry(const cg_mm *m, int64_t r, int32_t c, int *found) {
    int64_t lo = cg_lower_bound_i32(m->col, m->rowptr[r], m->rowptr[r + 1], c);
    *found = lo < m->rowptr[r + 1] && m->col[lo] == c;
    return *found ? m->val[lo] : 0.0;
}

int64_t cg_mm_asymmetry(const cg_mm *m, int64_t *row, int64_t *col) {
    int64_t bad = 0;
    for (int64_t r = 0; r < m->n; r++)
        for (int64_t p = m->rowptr[r]; p < m->rowptr[r + 1]; p++) {
            int found;
            double mirror = find_entry(m, m->col[p], (int32_t)r, &found);
            if (!found || mirror != m->val[p]) {
                if (!bad) {
                    *row = r;
                    *col = m->col[p];
                }
                bad++;
            }
        }
    return bad;
}
