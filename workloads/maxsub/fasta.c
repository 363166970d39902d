#define _POSIX_C_SOURCE 200809L /* getline, strndup */
#include "maxsub/fasta.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "core/error.h"
#include "core/infile.h"
#include "maxsub/hydro.h"

#define EXPECTED_RESIDUES "one of the 20 amino-acid letters, or B/Z"

typedef struct {
    char *p;
    size_t n, cap;
} seqbuf;

static int seqbuf_push(seqbuf *b, char c) {
    if (b->n + 1 >= b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 256;
        char *p = realloc(b->p, cap);
        if (!p) return 1;
        b->p = p;
        b->cap = cap;
    }
    b->p[b->n++] = c;
    b->p[b->n] = '\0';
    return 0;
}

static int is_blank(int c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static int to_upper(int c) {
    return c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c;
}

typedef struct {
    const char *path;
    mu_fasta_record *recs;
    int64_t count, cap; /* count includes the record being read, if any */
    seqbuf seq;         /* residues of the record being read */
    int64_t star_line;  /* where a '*' was seen in the current record, 0 if none */
    int64_t star_col;
} reader;

static int reader_finish_record(reader *r) {
    mu_fasta_record *rec = &r->recs[r->count - 1];
    if (r->seq.n == 0)
        return mu_error("%s:%lld: record '%s' has an empty sequence (expected residue lines "
                        "after the header)",
                        r->path, (long long)rec->line, rec->id);
    char *s = realloc(r->seq.p, r->seq.n + 1);
    rec->seq = s ? s : r->seq.p;
    rec->len = (int64_t)r->seq.n;
    r->seq.p = NULL;
    r->seq.n = r->seq.cap = 0;
    r->star_line = r->star_col = 0;
    return 0;
}

/* Parses the header starting at h (just after '>') of line lineno and opens a record. */
static int reader_start_record(reader *r, const char *h, size_t n, int64_t lineno) {
    size_t a = 0;
    while (a < n && (h[a] == ' ' || h[a] == '\t')) a++;
    size_t b = a;
    while (b < n && !is_blank((unsigned char)h[b]) && h[b] != '\0') b++;
    if (b == a)
        return mu_error("%s:%lld: header line has no identifier (expected '>ID [description]')",
                        r->path, (long long)lineno);
    size_t d = b;
    while (d < n && (h[d] == ' ' || h[d] == '\t')) d++;
    size_t e = n;
    while (e > d && (is_blank((unsigned char)h[e - 1]) || h[e - 1] == '\0')) e--;

    if (r->count == r->cap) {
        int64_t cap = r->cap ? 2 * r->cap : 16;
        mu_fasta_record *p = realloc(r->recs, (size_t)cap * sizeof *p);
        if (!p) return mu_error("%s:%lld: out of memory for records", r->path, (long long)lineno);
        r->recs = p;
        r->cap = cap;
    }
    mu_fasta_record *rec = &r->recs[r->count];
    memset(rec, 0, sizeof *rec);
    rec->line = lineno;
    rec->id = strndup(h + a, b - a);
    rec->desc = strndup(h + d, e - d);
    r->count++; /* counted now so that an error frees id and desc */
    if (!rec->id || !rec->desc)
        return mu_error("%s:%lld: out of memory for a header", r->path, (long long)lineno);
    return 0;
}

static int bad_residue(const reader *r, int64_t lineno, int64_t col, unsigned char c) {
    const char *id = r->recs[r->count - 1].id;
    long long l = (long long)lineno, k = (long long)col;
    switch (c) {
    case 'X':
    case 'x':
    case 'J':
    case 'j':
    case 'U':
    case 'u':
    case 'O':
    case 'o':
        return mu_error("%s:%lld:%lld: residue '%c' in sequence '%s' has no Kyte-Doolittle value "
                        "(expected " EXPECTED_RESIDUES "; X, J, U and O are not scored)",
                        r->path, l, k, c, id);
    case '-':
    case '.':
        return mu_error("%s:%lld:%lld: gap character '%c' in sequence '%s' (expected an "
                        "unaligned sequence: " EXPECTED_RESIDUES ")",
                        r->path, l, k, c, id);
    default:
        if (c >= 0x21 && c < 0x7f)
            return mu_error("%s:%lld:%lld: unexpected character '%c' in sequence '%s' "
                            "(expected " EXPECTED_RESIDUES ")",
                            r->path, l, k, c, id);
        return mu_error(
            "%s:%lld:%lld: unexpected byte 0x%02x in sequence '%s' (expected " EXPECTED_RESIDUES
            ")",
            r->path, l, k, c, id);
    }
}

/* Appends the residues of one sequence line (bytes [from, n) of line). */
static int reader_sequence_line(reader *r, const char *line, size_t from, size_t n, size_t col0,
                                int64_t lineno) {
    for (size_t i = from; i < n; i++) {
        unsigned char c = (unsigned char)line[i];
        if (is_blank(c)) continue;
        int64_t col = (int64_t)(i - col0) + 1;
        if (r->star_line)
            return mu_error("%s:%lld:%lld: '*' (stop) before the end of sequence '%s' (expected "
                            "'*' only as the last residue; more residues follow at line %lld "
                            "column %lld)",
                            r->path, (long long)r->star_line, (long long)r->star_col,
                            r->recs[r->count - 1].id, (long long)lineno, (long long)col);
        if (c == '*') {
            r->star_line = lineno;
            r->star_col = col;
            continue;
        }
        if (mu_kd_tenths(c) == MU_KD_NONE) return bad_residue(r, lineno, col, c);
        if (seqbuf_push(&r->seq, (char)to_upper(c)))
            return mu_error("%s:%lld: out of memory for sequence '%s'", r->path, (long long)lineno,
                            r->recs[r->count - 1].id);
    }
    return 0;
}

int mu_fasta_read(const char *path, mu_fasta_record **recs, int64_t *count) {
    *recs = NULL;
    *count = 0;
    FILE *f = mu_infile_open(path, "FASTA file", NULL);
    if (!f) return 1;

    reader r = {.path = path};
    char *line = NULL;
    size_t lcap = 0;
    ssize_t got;
    int64_t lineno = 0;
    int rc = 0, any_text = 0;
    errno = 0;
    while ((got = getline(&line, &lcap, f)) != -1) {
        lineno++;
        size_t n = (size_t)got, col0 = 0;
        /* strndup would cut a header at a NUL byte: refused on every line. */
        if ((rc = mu_text_check_nul(path, (long)lineno, line, n))) break;
        if (lineno == 1 && n >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) col0 = 3;
        size_t q = col0;
        while (q < n && is_blank((unsigned char)line[q])) q++;
        if (q == n) continue; /* blank line */
        any_text = 1;
        if (line[q] == '>') {
            if (r.count > 0 && (rc = reader_finish_record(&r))) break;
            if ((rc = reader_start_record(&r, line + q + 1, n - q - 1, lineno))) break;
            continue;
        }
        if (r.count == 0) {
            rc = mu_error("%s:%lld: sequence data before the first header (expected a header "
                          "line starting with '>')",
                          path, (long long)lineno);
            break;
        }
        if ((rc = reader_sequence_line(&r, line, q, n, col0, lineno))) break;
    }
    if (!rc && ferror(f))
        rc = mu_error("%s:%lld: read error: %s", path, (long long)(lineno + 1),
                      strerror(errno ? errno : EIO));
    free(line);
    fclose(f);

    if (!rc && !any_text)
        rc = mu_error(lineno == 0 ? "%s: empty file (expected at least one FASTA record "
                                    "starting with '>')"
                                  : "%s: file holds only blank lines (expected at least one "
                                    "FASTA record starting with '>')",
                      path);
    if (!rc) rc = reader_finish_record(&r);
    if (rc) {
        free(r.seq.p);
        mu_fasta_free(r.recs, r.count);
        return rc;
    }
    *recs = r.recs;
    *count = r.count;
    return 0;
}

void mu_fasta_free(mu_fasta_record *recs, int64_t count) {
    if (!recs) return;
    for (int64_t i = 0; i < count; i++) {
        free(recs[i].id);
        free(recs[i].desc);
        free(recs[i].seq);
    }
    free(recs);
}
