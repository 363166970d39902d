/* Reading the objects: CSV with a header or whitespace-separated text, an
 * optional reference-label column, and the Philox blob generator. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzzy/fuzzy.h"
#include "core/error.h"
#include "core/free.h"
#include "core/infile.h"
#include "core/memory.h"
#include "core/philox.h"

typedef struct {
    char **f;
    int n, cap;
} fields;

static int push_field(fields *fl, char *s) {
    if (fl->n == fl->cap) {
        int cap = fl->cap ? 2 * fl->cap : 16;
        char **p = realloc(fl->f, (size_t)cap * sizeof *p);
        if (!p) return mu_error("out of memory splitting a line");
        fl->f = p;
        fl->cap = cap;
    }
    fl->f[fl->n++] = s;
    return 0;
}

static char *trim(char *s) {
    while (*s && isspace((unsigned char)*s)) s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1])) *--e = '\0';
    size_t len = strlen(s);
    if (len >= 2 && ((s[0] == '"' && s[len - 1] == '"') || (s[0] == '\'' && s[len - 1] == '\''))) {
        s[len - 1] = '\0';
        s++;
    }
    return s;
}

/* Splits line in place: sep ',' or ';', or 0 for runs of blanks. */
static int split(char *line, char sep, fields *fl) {
    fl->n = 0;
    if (sep) {
        char *p = line;
        for (;;) {
            char *q = strchr(p, sep);
            if (q) *q = '\0';
            MU_TRY(push_field(fl, trim(p)));
            if (!q) break;
            p = q + 1;
        }
        return 0;
    }
    char *p = line;
    for (;;) {
        while (*p && isspace((unsigned char)*p)) p++;
        if (!*p) break;
        char *q = p;
        while (*q && !isspace((unsigned char)*q)) q++;
        int end = !*q;
        *q = '\0';
        MU_TRY(push_field(fl, trim(p)));
        if (end) break;
        p = q + 1;
    }
    return 0;
}

/* 1: the whole field is a number (strtod's syntax, so nan and inf count here). */
static int numeric(const char *s) {
    double v;
    return mu_num_parse(s, &v) != MU_NUM_BAD;
}

static int is_comment(const char *line) {
    while (*line && isspace((unsigned char)*line)) line++;
    return *line == '\0' || *line == '#';
}

static char *dup_str(const char *s) {
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

static int label_id(mu_fz_data *d, const char *text, int *cap, int32_t *id) {
    for (int i = 0; i < d->nlabels; i++)
        if (!strcmp(d->label_names[i], text)) {
            *id = i;
            return 0;
        }
    if (d->nlabels == *cap) {
        int c = *cap ? 2 * *cap : 8;
        char **p = realloc(d->label_names, (size_t)c * sizeof *p);
        if (!p) return mu_error("out of memory for labels");
        d->label_names = p;
        *cap = c;
    }
    if (!(d->label_names[d->nlabels] = dup_str(text))) return mu_error("out of memory for labels");
    *id = d->nlabels++;
    return 0;
}

typedef struct {
    const char *path;
    mu_lines in;
    char *line; /* in.line */
    long lineno;
    fields fl;
} reader;

/* The next line that is not blank or a comment: 1, 0 at the end of the file,
 * -1 after mu_error(). */
static int next_line(reader *r) {
    int got;
    while ((got = mu_lines_next(&r->in)) > 0 && is_comment(r->in.line)) continue;
    r->line = r->in.line;
    r->lineno = r->in.lineno;
    return got;
}

/* One cell's value: a finite double of a size the covariance can square. */
static int cell_value(const reader *r, const char *cell, int col, const char *name,
                      const char *hint, double *v) {
    mu_num k = mu_num_parse(cell, v);
    char tok[40];
    snprintf(tok, sizeof tok, "%.32s", cell);
    if (k == MU_NUM_BAD)
        return mu_error("%s:%ld: column %d ('%s'): '%s' is not a number%s", r->path, r->lineno, col,
                        name, tok,
                        !*cell                ? " (empty cell)"
                        : !strcmp(cell, "NA") ? " (missing values are not supported)"
                                              : hint);
    if (k == MU_NUM_NAN || k == MU_NUM_INF)
        return mu_error("%s:%ld: column %d ('%s'): %s is not allowed (finite numbers only)",
                        r->path, r->lineno, col, name, k == MU_NUM_NAN ? "NaN" : "Inf");
    if (k != MU_NUM_OK)
        return mu_error("%s:%ld: column %d ('%s'): '%s' %s", r->path, r->lineno, col, name, tok,
                        mu_num_why(k));
    if (fabs(*v) > MU_FZ_MAX_ABS)
        return mu_error("%s:%ld: column %d ('%s'): '%s' is too large: |x| must be at most %s (the "
                        "covariance squares the values)",
                        r->path, r->lineno, col, name, tok, MU_FZ_MAX_ABS_TEXT);
    return 0;
}

static int grow(mu_fz_data *d, int64_t *cap, int F) {
    int64_t c = *cap ? 2 * *cap : 1024;
    double *x = realloc(d->x, (size_t)(c * F) * sizeof *x);
    if (!x) return mu_error("out of memory reading %lld objects", (long long)d->n);
    d->x = x;
    if (d->label) {
        int32_t *l = realloc(d->label, (size_t)c * sizeof *l);
        if (!l) return mu_error("out of memory reading %lld objects", (long long)d->n);
        d->label = l;
    }
    *cap = c;
    return 0;
}

static int read_body(reader *r, mu_fz_data *d, const char *header, const char *label_column) {
    int got = next_line(r);
    if (got < 0) return 1;
    if (!got) return mu_error("%s: no data (the file is empty)", r->path);
    char sep = strchr(r->line, ',') ? ',' : strchr(r->line, ';') ? ';' : 0;
    char *first = dup_str(r->line);
    if (!first) return mu_error("out of memory");
    MU_TRY(split(r->line, sep, &r->fl));
    int ncol = r->fl.n;
    long head_line = r->lineno;
    int has_header = !strcmp(header, "yes");
    if (!strcmp(header, "auto"))
        for (int c = 0; c < ncol; c++)
            if (!numeric(r->fl.f[c])) has_header = 1;
    /* The label column: a header name first, then a 1-based number. */
    int lab = -1;
    if (label_column) {
        if (has_header)
            for (int c = 0; c < ncol && lab < 0; c++)
                if (!strcmp(r->fl.f[c], label_column)) lab = c;
        char *end;
        long k = strtol(label_column, &end, 10);
        if (lab < 0 && *label_column && !*end) {
            if (k < 1 || k > ncol) {
                free(first);
                return mu_error("%s:%ld: --label-column=%s: the file has %d column(s)", r->path,
                                head_line, label_column, ncol);
            }
            lab = (int)k - 1;
        }
        if (lab < 0) {
            char list[512] = "";
            for (int c = 0; c < ncol; c++) {
                size_t len = strlen(list);
                snprintf(list + len, sizeof list - len, "%s'%s'", c ? ", " : "", r->fl.f[c]);
            }
            free(first);
            return mu_error("%s:%ld: --label-column=%s: no such column (%s: %s)", r->path,
                            head_line, label_column, has_header ? "header" : "no header",
                            has_header ? list : "give a column number");
        }
    }
    d->F = ncol - (lab >= 0);
    if (d->F < 1) {
        free(first);
        return mu_error("%s:%ld: no feature columns (only the label column)", r->path, head_line);
    }
    d->names = calloc((size_t)d->F, sizeof *d->names);
    if (!d->names) {
        free(first);
        return mu_error("out of memory");
    }
    int oom = 0;
    for (int c = 0, k = 0; c < ncol; c++) {
        if (c == lab) continue;
        char buf[32];
        snprintf(buf, sizeof buf, "x%d", k + 1);
        oom |= !(d->names[k++] = dup_str(has_header ? r->fl.f[c] : buf));
    }
    if (lab >= 0) {
        char buf[32];
        snprintf(buf, sizeof buf, "column%d", lab + 1);
        d->label_column = dup_str(has_header ? r->fl.f[lab] : buf);
        d->label = malloc(sizeof *d->label); /* grown with x */
        oom |= !d->label_column || !d->label;
    }
    if (oom) {
        free(first);
        return mu_error("out of memory");
    }
    int64_t cap = 0;
    int label_cap = 0;
    int have = 0; /* the current line is not yet parsed as data */
    if (!has_header) {
        strcpy(r->line, first);
        r->lineno = head_line;
        have = 1;
    }
    free(first);
    for (;;) {
        if (!have && (got = next_line(r)) <= 0) {
            if (got < 0) return 1;
            break;
        }
        have = 0;
        MU_TRY(split(r->line, sep, &r->fl));
        if (r->fl.n != ncol)
            return mu_error("%s:%ld: %d field(s), expected %d (as on line %ld)", r->path, r->lineno,
                            r->fl.n, ncol, head_line);
        if (d->n == cap) MU_TRY(grow(d, &cap, d->F));
        if (d->n == 0) d->first_line = r->lineno;
        double *row = d->x + d->n * d->F;
        for (int c = 0, k = 0; c < ncol; c++) {
            const char *cell = r->fl.f[c];
            if (c == lab) {
                if (!*cell)
                    return mu_error("%s:%ld: column %d ('%s'): empty label", r->path, r->lineno,
                                    c + 1, d->label_column);
                MU_TRY(label_id(d, cell, &label_cap, &d->label[d->n]));
                continue;
            }
            const char *hint =
                label_column || d->n != 0 ? "" : " (a label column? see --label-column)";
            MU_TRY(cell_value(r, cell, c + 1, d->names[k], hint, &row[k]));
            k++;
        }
        d->n++;
    }
    if (d->n == 0)
        return mu_error("%s: no data rows after the header (line %ld)", r->path, head_line);
    if (d->n < 2)
        return mu_error("%s:%lld: one object only: the covariance needs at least 2", r->path,
                        (long long)d->first_line);
    return 0;
}

int mu_fz_read(const char *path, const char *header, const char *label_column, mu_fz_data *d) {
    memset(d, 0, sizeof *d);
    reader r = {.path = path};
    MU_TRY(mu_lines_open(&r.in, path, "input", 0));
    int rc = read_body(&r, d, header, label_column);
    mu_lines_close(&r.in);
    free(r.fl.f);
    if (rc) mu_fz_free(d);
    return rc;
}

int mu_fz_check_columns(const char *path, const mu_fz_data *d) {
    if (d->n < 1) return mu_error("%s: no objects to cluster (%d columns)", path, d->F);
    for (int f = 0; f < d->F; f++) {
        double v = d->x[f];
        int64_t i = 1;
        while (i < d->n && d->x[i * d->F + f] == v) i++;
        if (i == d->n)
            return mu_error("%s:%lld: column '%s' is constant (%.17g in every row): the covariance "
                            "is singular",
                            path, (long long)d->first_line, d->names[f], v);
    }
    return 0;
}

int mu_fz_check_shape(const char *path, const mu_fz_data *d) {
    if (d->n > d->F) return 0;
    if (d->n < 1) return mu_error("%s: no objects to cluster (%d columns)", path, d->F);
    return mu_error("%s: the covariance of the %lld objects is singular: they span at most %lld "
                    "dimension(s), fewer than the %d columns (more objects than columns needed)",
                    path, (long long)d->n, (long long)d->n - 1, d->F);
}

/* "x,y;x,y;...": the centres, all of one dimension. */
static int parse_centers(const char *text, double **out, int *k, int *F) {
    *out = NULL;
    *k = *F = 0;
    int cap = 0;
    const char *p = text;
    while (*p) {
        int dim = 0;
        for (;;) {
            char *end;
            double v = strtod(p, &end);
            if (end == p || !isfinite(v))
                return mu_error("--centers='%s': expected numbers 'x,y;x,y;...' at '%s'", text, p);
            if ((*k + 1) * 16 > cap) {
                cap = cap ? 2 * cap : 64;
                double *q = realloc(*out, (size_t)cap * sizeof *q);
                if (!q) return mu_error("out of memory");
                *out = q;
            }
            if (dim >= 16) return mu_error("--centers: at most 16 coordinates per centre");
            (*out)[*k * 16 + dim++] = v;
            p = end;
            while (*p == ' ') p++;
            if (*p == ',') {
                p++;
                continue;
            }
            break;
        }
        if (*F && dim != *F)
            return mu_error("--centers='%s': centre %d has %d coordinates, the first has %d", text,
                            *k + 1, dim, *F);
        *F = dim;
        (*k)++;
        if (*p == ';') {
            p++;
        } else if (*p) {
            return mu_error("--centers='%s': expected ';' or ',' at '%s'", text, p);
        }
    }
    if (*k == 0) return mu_error("--centers is empty");
    return 0;
}

/* Generated sizes, before any allocation: n objects of F features (doubles)
 * and a label each, multiplied with overflow checks and refused up front
 * against the memory this process may take (rank 0 generates them all). */
static int gen_fits(int64_t n, int F) {
    int64_t cells = 0, bytes = 0;
    if (__builtin_mul_overflow(n, (int64_t)F, &cells) ||
        __builtin_mul_overflow(cells, (int64_t)sizeof(double), &bytes) ||
        __builtin_add_overflow(bytes, n * (int64_t)sizeof(int32_t), &bytes) ||
        (uint64_t)bytes > SIZE_MAX)
        return mu_error("--n=%lld x %d features: the generated data's size overflows", (long long)n,
                        F);
    double have = mu_mem_rank_available(1);
    if ((double)bytes > have)
        return mu_error("--n=%lld x %d features: %.3g GB of generated data, more than the %.3g GB "
                        "this process may use here: give a smaller --n",
                        (long long)n, F, (double)bytes / 1e9, have / 1e9);
    return 0;
}

int mu_fz_gen_blobs(int64_t n, uint64_t seed, const char *centers, double sigma, mu_fz_data *d) {
    memset(d, 0, sizeof *d);
    double *c = NULL;
    int k = 0, F = 0;
    int rc = 0;
    MU_TRY_GOTO(parse_centers(centers, &c, &k, &F));
    if (n < 2) MU_TRY_GOTO(mu_error("--n=%lld: need at least 2 objects", (long long)n));
    if (!(sigma > 0)) MU_TRY_GOTO(mu_error("--sigma must be positive"));
    MU_TRY_GOTO(gen_fits(n, F));
    d->n = n;
    d->F = F;
    d->x = malloc((size_t)(n * F) * sizeof *d->x);
    d->label = malloc((size_t)n * sizeof *d->label);
    d->names = calloc((size_t)F, sizeof *d->names);
    d->label_names = calloc((size_t)k, sizeof *d->label_names);
    if (!d->x || !d->label || !d->names || !d->label_names) {
        mu_fz_free(d);
        MU_TRY_GOTO(mu_error("out of memory for %lld generated objects", (long long)n));
    }
    for (int f = 0; f < F; f++) {
        char buf[16];
        snprintf(buf, sizeof buf, "x%d", f + 1);
        d->names[f] = dup_str(buf);
    }
    for (int j = 0; j < k; j++) {
        char buf[16];
        snprintf(buf, sizeof buf, "blob%d", j);
        d->label_names[j] = dup_str(buf);
    }
    d->nlabels = k;
    d->label_column = dup_str("blob");
    const uint64_t stream = 0x46757A7A79ull; /* "Fuzzy" */
    for (int64_t i = 0; i < n; i++) {
        uint32_t w[4];
        mu_rng4(seed, stream, (uint64_t)i, w);
        int b = (int)mu_rng_range(w[0], 0, k - 1);
        d->label[i] = b;
        /* Box-Muller pairs: counter words beyond the first come from index blocks. */
        for (int f = 0; f < F; f += 2) {
            uint32_t g[4];
            mu_rng4(seed, stream + 1 + (uint64_t)(f / 2), (uint64_t)i, g);
            double u1 = mu_rng_open01(g[0], g[1]), u2 = mu_rng_open01(g[2], g[3]);
            double rad = sqrt(-2.0 * log(u1)), th = 6.283185307179586 * u2;
            d->x[i * F + f] = nearbyint(c[b * 16 + f] + sigma * rad * cos(th));
            if (f + 1 < F)
                d->x[i * F + f + 1] = nearbyint(c[b * 16 + f + 1] + sigma * rad * sin(th));
        }
    }
done:
    free(c);
    return rc;
}

/* A stand-in for the study's 40646 US school locations (tests 3-4; the data
 * were not published): (latitude, longitude) in degrees over the contiguous
 * US, with five dense metro areas where the study's sequential prototypes lie
 * (Table 5.10) and no clean separation between them. Each object belongs to
 * one of the five areas (equal odds); 55 % of them lie in its metro core
 * (sigma 0.4 degrees), 45 % in its wider region (sigma 1.5 degrees). Rounded to
 * 1e-5 degrees. Object i draws from Philox keyed by (seed, i); reference
 * labels = the area. */
int mu_fz_gen_schools(int64_t n, uint64_t seed, mu_fz_data *d) {
    static const double metro[5][2] = {{26.03236, -80.25505},
                                       {26.24011, -98.08960},
                                       {33.97310, -118.07499},
                                       {42.17509, -71.88173},
                                       {44.92812, -93.23445}};
    static const char *const names[5] = {"Miami", "McAllen", "Los Angeles", "Massachusetts",
                                         "Twin Cities"};
    memset(d, 0, sizeof *d);
    if (n < 2) return mu_error("--n=%lld: need at least 2 objects", (long long)n);
    MU_TRY(gen_fits(n, 2));
    d->n = n;
    d->F = 2;
    d->x = malloc((size_t)(n * 2) * sizeof *d->x);
    d->label = malloc((size_t)n * sizeof *d->label);
    d->names = calloc(2, sizeof *d->names);
    d->label_names = calloc(5, sizeof *d->label_names);
    if (!d->x || !d->label || !d->names || !d->label_names) {
        mu_fz_free(d);
        return mu_error("out of memory for %lld generated objects", (long long)n);
    }
    d->names[0] = dup_str("latitude");
    d->names[1] = dup_str("longitude");
    for (int j = 0; j < 5; j++) d->label_names[j] = dup_str(names[j]);
    d->nlabels = 5;
    d->label_column = dup_str("area");
    const uint64_t stream = 0x5363686F6F6Cull; /* "School" */
    for (int64_t i = 0; i < n; i++) {
        uint32_t w[4], g[4];
        mu_rng4(seed, stream, (uint64_t)i, w);
        mu_rng4(seed, stream + 1, (uint64_t)i, g);
        int area = (int)mu_rng_range(w[0], 0, 4);
        double sigma = mu_rng_open01(w[1], w[2]) < 0.55 ? 0.4 : 1.5;
        double u1 = mu_rng_open01(g[0], g[1]), u2 = mu_rng_open01(g[2], g[3]);
        double rad = sqrt(-2.0 * log(u1)), th = 6.283185307179586 * u2;
        d->label[i] = area;
        d->x[2 * i] = nearbyint((metro[area][0] + sigma * rad * cos(th)) * 1e5) / 1e5;
        d->x[2 * i + 1] = nearbyint((metro[area][1] + sigma * rad * sin(th)) * 1e5) / 1e5;
    }
    return 0;
}

/* Broadcasts a string array (lengths then bytes); allocates on other ranks. */
static int bcast_strings(MPI_Comm comm, int rank, char **s, int count) {
    for (int i = 0; i < count; i++) {
        int len = rank == 0 ? (int)strlen(s[i]) + 1 : 0;
        MPI_Bcast(&len, 1, MPI_INT, 0, comm);
        if (rank != 0 && !(s[i] = malloc((size_t)len))) return 1;
        MPI_Bcast(s[i], len, MPI_CHAR, 0, comm);
    }
    return 0;
}

int mu_fz_bcast(MPI_Comm comm, mu_fz_data *d) {
    int rank;
    MPI_Comm_rank(comm, &rank);
    int64_t hdr[5] = {d->n, d->F, d->label != NULL, d->nlabels, d->first_line};
    MPI_Bcast(hdr, 5, MPI_INT64_T, 0, comm);
    int rc = 0;
    if (rank != 0) {
        memset(d, 0, sizeof *d);
        d->n = hdr[0];
        d->F = (int)hdr[1];
        d->nlabels = (int)hdr[3];
        d->first_line = hdr[4];
        d->x = malloc((size_t)(d->n * d->F) * sizeof *d->x);
        d->names = calloc((size_t)d->F, sizeof *d->names);
        if (hdr[2]) {
            d->label = malloc((size_t)d->n * sizeof *d->label);
            d->label_names = calloc((size_t)(d->nlabels ? d->nlabels : 1), sizeof *d->label_names);
            if (!d->label || !d->label_names) rc = 1;
        }
        if (!d->x || !d->names) rc = 1;
    }
    if (mu_error_collective(comm,
                            rc ? mu_error("out of memory for %lld objects", (long long)hdr[0]) : 0))
        return 1;
    const int64_t step = (int64_t)1 << 26;
    int64_t total = d->n * d->F;
    for (int64_t off = 0; off < total; off += step)
        MPI_Bcast(d->x + off, (int)(total - off < step ? total - off : step), MPI_DOUBLE, 0, comm);
    rc = bcast_strings(comm, rank, d->names, d->F);
    if (d->label) {
        for (int64_t off = 0; off < d->n; off += step)
            MPI_Bcast(d->label + off, (int)(d->n - off < step ? d->n - off : step), MPI_INT32_T, 0,
                      comm);
        if (!rc) rc = bcast_strings(comm, rank, d->label_names, d->nlabels);
        char *col[1] = {d->label_column};
        if (!rc) rc = bcast_strings(comm, rank, col, 1);
        d->label_column = col[0];
    }
    return mu_error_collective(comm, rc ? mu_error("out of memory for names") : 0);
}

void mu_fz_free(mu_fz_data *d) {
    mu_free_strings(d->names, d->F);
    mu_free_strings(d->label_names, d->nlabels);
    MU_FREE(d->label_column, d->x, d->label);
    memset(d, 0, sizeof *d);
}
