/* The entry lines of a Matrix Market file in large blocks, parsed by several
 * threads: each block is cut at line ends into one range per thread; each
 * thread counts its entry lines, the counts give every range its first entry,
 * and the threads parse their lines straight into place, so the entries stay
 * in file order. Only plain lines are taken ("row col [value]" with unsigned
 * decimal indices, values through the same mu_num_parse or strtoll
 * conversion as the line-by-line reader, comments, blank lines); on anything
 * else the whole file goes back to that reader, whose messages (with their
 * line numbers) are the reference. So the fast path never decides an error
 * and never gives other values. */
#define _POSIX_C_SOURCE 200809L
#include "cg/mmio_fast.h"
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "core/infile.h"

enum {
    BLOCK = 16 << 20, /* bytes per read */
    LONGEST = 512,    /* longer lines go to the line-by-line reader */
    TOKEN = 64        /* longest token taken */
};

/* A line [s, s + len) without its line end: 0 blank or comment, 1 entry. */
static int is_entry(const char *s, size_t len) {
    if (len && s[0] == '%') return 0;
    for (size_t k = 0; k < len; k++)
        if (!isspace((unsigned char)s[k])) return 1;
    return 0;
}

/* The line without its trailing '\r's (the reader drops them with the '\n'). */
static size_t trimmed(const char *s, size_t len) {
    while (len && s[len - 1] == '\r') len--;
    return len;
}

/* The next token (split at spaces and tabs, as strtok_r(" \t")): its start
 * and length, or length 0 at the end. */
static const char *token(const char **p, const char *end, size_t *len) {
    const char *s = *p;
    while (s < end && (*s == ' ' || *s == '\t')) s++;
    const char *e = s;
    while (e < end && *e != ' ' && *e != '\t') e++;
    *p = e;
    *len = (size_t)(e - s);
    return s;
}

/* An index of 1 to 10 decimal digits in 1..n (strtoll's value). */
static int index_of(const char *s, size_t len, int64_t n, int64_t *v) {
    if (len == 0 || len > 10) return 1;
    int64_t x = 0;
    for (size_t k = 0; k < len; k++) {
        if (s[k] < '0' || s[k] > '9') return 1;
        x = 10 * x + (s[k] - '0');
    }
    if (x < 1 || x > n) return 1;
    *v = x;
    return 0;
}

/* Digits of s from *k into *m (kept at most 2^53); their count, or -1 when
 * they would pass 2^53. *frac counts those after a '.' (at most one '.'). */
static int digits_of(const char *s, size_t len, size_t *k, uint64_t *m, int *frac) {
    int count = 0, dot = 0;
    for (; *k < len; (*k)++) {
        char c = s[*k];
        if (c == '.' && !dot) {
            dot = 1;
            continue;
        }
        if (c < '0' || c > '9') break;
        if (*m > ((1ull << 53) - 9) / 10) return -1;
        *m = 10 * *m + (uint64_t)(c - '0');
        count++;
        *frac += dot;
    }
    return count;
}

/* A plain decimal ([sign] digits [. digits] [e [sign] digits]) whose digits
 * make at most 2^53 and whose power of ten is at most 10^22 either way: both
 * are exact doubles, so one product or quotient is the correctly rounded
 * value, the same bits as strtod (Clinger's fast path). 1: not such a token. */
static int simple_decimal(const char *s, size_t len, double *v) {
    static const double p10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    size_t k = 0;
    int neg = 0, frac = 0, e = 0;
    if (k < len && (s[k] == '-' || s[k] == '+')) neg = s[k++] == '-';
    uint64_t m = 0;
    if (digits_of(s, len, &k, &m, &frac) <= 0) return 1;
    if (k < len && (s[k] == 'e' || s[k] == 'E')) {
        int eneg = 0, ed = 0;
        if (++k < len && (s[k] == '-' || s[k] == '+')) eneg = s[k++] == '-';
        for (; k < len && s[k] >= '0' && s[k] <= '9' && ed < 4; k++, ed++)
            e = 10 * e + (s[k] - '0');
        if (!ed) return 1;
        e = eneg ? -e : e;
    }
    e -= frac;
    if (k != len || e < -22 || e > 22) return 1;
    double x = e < 0 ? (double)m / p10[-e] : (double)m * p10[e];
    *v = neg ? -x : x;
    return 0;
}

/* The value as the line-by-line reader converts it, when it would accept it. */
static int value_of(const char *s, size_t len, int integer, double *v) {
    char buf[TOKEN];
    if (len == 0 || len >= TOKEN) return 1;
    if (!integer && !simple_decimal(s, len, v)) return 0;
    memcpy(buf, s, len);
    buf[len] = '\0';
    if (!integer) return mu_num_parse(buf, v) != MU_NUM_OK;
    char *end;
    errno = 0;
    long long x = strtoll(buf, &end, 10);
    if (end == buf || *end || errno) return 1;
    *v = (double)x;
    return 0;
}

/* One entry line into entry k of t; 1 if the line is not taken. */
static int parse_entry(const char *s, size_t len, const cg_mm_layout *lay, cg_mm_triples *t,
                       int64_t k) {
    const char *p = s, *end = s + len, *tok[4];
    size_t tl[4];
    int want = lay->pattern ? 2 : 3;
    for (int m = 0; m < 4; m++) tok[m] = token(&p, end, &tl[m]);
    if (tl[want - 1] == 0 || (want == 2 && tl[2]) || tl[3]) return 1;
    int64_t i, j;
    double v = 1.0;
    if (index_of(tok[0], tl[0], lay->n, &i) || index_of(tok[1], tl[1], lay->n, &j)) return 1;
    if (want == 3 && value_of(tok[2], tl[2], lay->integer, &v)) return 1;
    if (lay->symmetric && j > i) return 1;
    t->i[k] = (int32_t)(i - 1);
    t->j[k] = (int32_t)(j - 1);
    t->v[k] = v;
    return 0;
}

/* Walks the lines of [s, e) (each ends in '\n', or at e): counts the entry
 * lines, or with t parses them into t from entry k. -1 if a line is not taken. */
static int64_t walk(const char *s, const char *e, const cg_mm_layout *lay, cg_mm_triples *t,
                    int64_t k) {
    int64_t count = 0;
    while (s < e) {
        const char *nl = memchr(s, '\n', (size_t)(e - s));
        const char *le = nl ? nl : e;
        size_t len = trimmed(s, (size_t)(le - s));
        if (len > LONGEST) return -1;
        if (is_entry(s, len)) {
            if (t && parse_entry(s, len, lay, t, k + count)) return -1;
            count++;
        }
        s = nl ? nl + 1 : e;
    }
    return count;
}

int cg_mm_reserve(cg_mm_triples *t, int64_t need, int64_t declared) {
    if (need <= t->cap) return 0;
    if (need > declared) return 1;
    int64_t cap = t->cap ? 2 * t->cap : 1 << 16;
    if (cap < need) cap = need;
    if (cap > declared) cap = declared;
    int32_t *i = realloc(t->i, (size_t)cap * sizeof *i);
    if (i) t->i = i;
    int32_t *j = i ? realloc(t->j, (size_t)cap * sizeof *j) : NULL;
    if (j) t->j = j;
    double *v = j ? realloc(t->v, (size_t)cap * sizeof *v) : NULL;
    if (!v) return 1;
    t->v = v;
    t->cap = cap;
    return 0;
}

/* Where range r of [s, s + len) starts: the byte after a line end, so each
 * range holds whole lines. */
static const char *cut(const char *s, size_t len, int r, int parts) {
    if (r == 0) return s;
    if (r == parts) return s + len;
    const char *at = s + len / (size_t)parts * (size_t)r;
    const char *nl = memchr(at, '\n', (size_t)(s + len - at));
    return nl ? nl + 1 : s + len;
}

/* The whole lines of [s, s + len) into t from entry *k; 1 if not taken. */
static int parse_lines(const char *s, size_t len, const cg_mm_layout *lay, cg_mm_triples *t,
                       int64_t *k) {
    if (memchr(s, '\0', len)) return 1;
    const int parts = lay->threads > 1 ? lay->threads : 1;
    int64_t *first = calloc((size_t)parts + 1, sizeof *first);
    if (!first) return 1;
    int bad = 0;
#pragma omp parallel for schedule(static) num_threads(parts) reduction(| : bad)
    for (int r = 0; r < parts; r++) {
        first[r + 1] = walk(cut(s, len, r, parts), cut(s, len, r + 1, parts), lay, NULL, 0);
        bad |= first[r + 1] < 0;
    }
    for (int r = 0; r < parts && !bad; r++) first[r + 1] += first[r];
    if (bad || cg_mm_reserve(t, *k + first[parts], lay->declared)) {
        free(first);
        return 1;
    }
#pragma omp parallel for schedule(static) num_threads(parts) reduction(| : bad)
    for (int r = 0; r < parts; r++)
        bad |= walk(cut(s, len, r, parts), cut(s, len, r + 1, parts), lay, t, *k + first[r]) < 0;
    *k += first[parts];
    free(first);
    return bad;
}

/* Reads on into buf after `have` carried bytes; -1 on a read error. */
static int64_t fill(gzFile f, char *buf, int64_t have) {
    int got = gzread(f, buf + have, BLOCK);
    if (got < 0) return -1;
    int err = Z_OK;
    gzerror(f, &err);
    return err == Z_OK || (got > 0 && err == Z_BUF_ERROR) ? have + got : -1;
}

int cg_mm_fast_entries(gzFile f, const cg_mm_layout *lay, cg_mm_triples *t) {
    char *buf = malloc((size_t)BLOCK + LONGEST + 2);
    if (!buf) return 1;
    int64_t have = 0, k = 0;
    int rc = 0;
    for (;;) {
        int64_t len = fill(f, buf, have);
        if (len < 0) {
            rc = 1;
            break;
        }
        if (len == have) { /* end of file: the last line has no '\n' */
            rc = parse_lines(buf, (size_t)len, lay, t, &k);
            break;
        }
        const char *nl = buf + len;
        while (nl > buf && nl[-1] != '\n') nl--;
        if (nl == buf || buf + len - nl > LONGEST) { /* a line longer than taken */
            rc = 1;
            break;
        }
        if ((rc = parse_lines(buf, (size_t)(nl - buf), lay, t, &k))) break;
        have = buf + len - nl;
        memmove(buf, nl, (size_t)have);
    }
    free(buf);
    return rc || k != lay->declared;
}
