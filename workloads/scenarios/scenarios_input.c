/* The historical record: a CSV with a header `year,month,<station>,...` and one
 * row per month. The record must cover whole years (January to December) with
 * every month once, in order; inflows are non-negative numbers. Each problem is
 * reported with file:line, the station and the month. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "scenarios/scenarios.h"
#include "core/error.h"
#include "core/free.h"
#include "core/infile.h"

/* Hard limits, so a hostile file costs a message, not minutes: a line (the
 * header of thousands of stations fits easily) and the columns of a row. */
enum { SC_LINE_MAX = 4 << 20, SC_FIELDS_MAX = 1 << 18 };

static char *trim(char *s) {
    while (isspace((unsigned char)*s)) s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1])) *--e = '\0';
    return s;
}

/* Splits line in place at commas; returns the field count (at most max).
 * Each field ends before it is trimmed, so the whole is linear in the line. */
static int split(char *line, char **f, int max) {
    int n = 0;
    char *p = line;
    for (;;) {
        char *c = strchr(p, ',');
        if (c) *c = '\0';
        if (n < max) f[n] = trim(p);
        n++;
        if (!c) break;
        p = c + 1;
    }
    return n;
}

/* Fields of a line (commas + 1). */
static int count_fields(const char *s) {
    int n = 1;
    for (; *s; s++) n += *s == ',';
    return n;
}

static int parse_int(const char *s, long *v) {
    char *end;
    errno = 0;
    *v = strtol(s, &end, 10);
    return *s && !*end && !errno;
}

void mu_sc_hist_free(mu_sc_hist *h) {
    mu_free_strings(h->names, h->nst);
    free(h->q);
    memset(h, 0, sizeof *h);
}

/* Columns of the header to keep, in the order given by sel->stations (or file order). */
static int pick_columns(const char *path, char **hdr, int ncols, const mu_sc_select *sel,
                        int **cols, int *ncols_out) {
    int *c = malloc((size_t)ncols * sizeof *c), n = 0;
    if (!c) return mu_error("out of memory");
    const char *list = sel->stations;
    if (!list || !*list || !strcmp(list, "all")) {
        for (int j = 2; j < ncols; j++) c[n++] = j;
    } else {
        char *copy = strdup(list), *save = NULL;
        for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            char *name = trim(t);
            int found = -1;
            for (int j = 2; j < ncols; j++)
                if (!strcmp(hdr[j], name)) found = j;
            if (found < 0) {
                int rc = mu_error("%s:1: --stations: no column '%s' in the header", path, name);
                free(copy);
                free(c);
                return rc;
            }
            for (int k = 0; k < n; k++)
                if (c[k] == found) {
                    int rc = mu_error("--stations: '%s' is listed twice", name);
                    free(copy);
                    free(c);
                    return rc;
                }
            if (n < ncols) c[n++] = found;
        }
        free(copy);
    }
    if (n == 0) {
        free(c);
        return mu_error("%s:1: no station column (expected year,month,<station>,...)", path);
    }
    *cols = c;
    *ncols_out = n;
    return 0;
}

/* The reader's state: the header, the selected columns and the rows so far. */
typedef struct {
    const char *path;
    int lineno, ncols, nsel, *cols;
    char **hdr, **fld;
    double *q;  /* rows x nsel */
    int *lines; /* line of each month row, for the checks after reading */
    int64_t rows, rcap;
    long prev_y, prev_m, first_y;
} sc_reader;

static void reader_free(sc_reader *r) {
    mu_free_strings(r->hdr, r->ncols);
    MU_FREE(r->fld, r->cols, r->q, r->lines);
}

/* The header line s of n fields: year,month,<station>...; picks the columns. */
static int read_header(sc_reader *r, char *s, int n, const mu_sc_select *sel) {
    r->ncols = n;
    r->hdr = calloc((size_t)n, sizeof *r->hdr);
    r->fld = calloc((size_t)n + 1, sizeof *r->fld);
    if (!r->hdr || !r->fld) return mu_error("out of memory");
    split(s, r->fld, n);
    for (int j = 0; j < n; j++)
        if (!(r->hdr[j] = strdup(r->fld[j]))) return mu_error("out of memory");
    if (n < 3 || strcasecmp(r->hdr[0], "year") || strcasecmp(r->hdr[1], "month"))
        return mu_error("%s:%d: header must be year,month,<station>,... (got '%s,%s%s')", r->path,
                        r->lineno, r->hdr[0], n > 1 ? r->hdr[1] : "", n > 2 ? ",..." : "");
    return pick_columns(r->path, r->hdr, n, sel, &r->cols, &r->nsel);
}

/* Month y-m follows the previous row: January first, then no gap, in order. */
static int check_month(sc_reader *r, long y, long m) {
    if (r->rows == 0) {
        if (m != 1)
            return mu_error("%s:%d: the record starts in %ld-%02ld: it must start in January "
                            "(whole years)",
                            r->path, r->lineno, y, m);
        r->first_y = y;
    } else {
        long want_y = r->prev_m == 12 ? r->prev_y + 1 : r->prev_y, want_m = r->prev_m % 12 + 1;
        long have = y * 12 + m, want = want_y * 12 + want_m;
        if (have > want)
            return mu_error("%s:%d: gap in the record: %ld-%02ld follows %ld-%02ld (%ld-%02ld "
                            "is missing)",
                            r->path, r->lineno, y, m, r->prev_y, r->prev_m, want_y, want_m);
        if (have < want)
            return mu_error("%s:%d: months out of order: %ld-%02ld after %ld-%02ld (expected "
                            "%ld-%02ld)",
                            r->path, r->lineno, y, m, r->prev_y, r->prev_m, want_y, want_m);
    }
    r->prev_y = y;
    r->prev_m = m;
    return 0;
}

/* Room for one more row (storage grows with what was read). */
static int grow_rows(sc_reader *r) {
    if (r->rows < r->rcap) return 0;
    r->rcap = r->rcap ? 2 * r->rcap : 1024;
    double *nq = realloc(r->q, (size_t)(r->rcap * r->nsel) * sizeof *r->q);
    if (nq) r->q = nq;
    int *nl = realloc(r->lines, (size_t)r->rcap * sizeof *r->lines);
    if (nl) r->lines = nl;
    return nq && nl ? 0 : mu_error("out of memory reading '%s'", r->path);
}

/* The largest inflow accepted: the fit's sums of squares and products of
 * larger values overflow, and their infinities would be blamed on other
 * stations (a "linear combination" of them). */
#define SC_INFLOW_MAX 1e150

/* The selected stations' inflows of month y-m (the fields in r->fld). */
static int read_values(sc_reader *r, long y, long m) {
    for (int k = 0; k < r->nsel; k++) {
        const char *v = r->fld[r->cols[k]], *name = r->hdr[r->cols[k]];
        if (!*v)
            return mu_error("%s:%d: station %s, %ld-%02ld: no value (a gap in the record)", r->path,
                            r->lineno, name, y, m);
        double x = 0;
        mu_num kind = mu_num_parse(v, &x);
        if (kind != MU_NUM_OK)
            return mu_error("%s:%d: station %s, %ld-%02ld: '%s' %s", r->path, r->lineno, name, y, m,
                            v,
                            kind == MU_NUM_UNDERFLOW ? mu_num_why(kind) : "is not a finite number");
        if (x < 0)
            return mu_error("%s:%d: station %s, %ld-%02ld: negative inflow %s (natural inflows "
                            "are >= 0; incremental series are not supported)",
                            r->path, r->lineno, name, y, m, v);
        if (x > SC_INFLOW_MAX)
            return mu_error("%s:%d: station %s, %ld-%02ld: inflow %s is too large (at most 1e150: "
                            "the fit's squares of larger values overflow)",
                            r->path, r->lineno, name, y, m, v);
        r->q[r->rows * r->nsel + k] = x;
    }
    return 0;
}

/* A month row s of n fields. */
static int read_row(sc_reader *r, char *s, int n) {
    if (n != r->ncols)
        return mu_error("%s:%d: %d field(s), expected %d (as in the header)%s", r->path, r->lineno,
                        n, r->ncols, n < r->ncols ? ": a short row is a gap in the record" : "");
    split(s, r->fld, r->ncols);
    long y, m;
    if (!parse_int(r->fld[0], &y) || !parse_int(r->fld[1], &m) || m < 1 || m > 12)
        return mu_error("%s:%d: year '%s' and month '%s' must be integers, month 1..12", r->path,
                        r->lineno, r->fld[0], r->fld[1]);
    MU_TRY(check_month(r, y, m));
    MU_TRY(grow_rows(r));
    r->lines[r->rows] = r->lineno;
    MU_TRY(read_values(r, y, m));
    r->rows++;
    return 0;
}

/* Every line of the file: the header, then a row a month. */
static int read_lines(sc_reader *r, mu_lines *in, const mu_sc_select *sel) {
    int got;
    while ((got = mu_lines_next(in)) != 0) {
        if (got < 0) return 1;
        r->lineno = (int)in->lineno;
        char *s = trim(in->line);
        if (!*s || *s == '#') continue;
        int n = count_fields(s);
        if (n > SC_FIELDS_MAX)
            return mu_error("%s:%d: %d fields: at most %d columns are supported", r->path,
                            r->lineno, n, SC_FIELDS_MAX);
        MU_TRY(r->hdr ? read_row(r, s, n) : read_header(r, s, n, sel));
    }
    return 0;
}

/* The stations kept: --skip-zero, then the first --nstations. */
static int select_stations(const sc_reader *r, const mu_sc_select *sel, int *keep, int *nkeep) {
    *nkeep = 0;
    for (int k = 0; k < r->nsel; k++) {
        int zero = 0;
        for (int64_t i = 0; i < r->rows; i++) zero |= r->q[i * r->nsel + k] == 0;
        if (sel->skip_zero && zero) continue;
        if (sel->nstations > 0 && *nkeep == sel->nstations) break;
        keep[(*nkeep)++] = k;
    }
    if (sel->nstations > 0 && *nkeep < sel->nstations)
        return mu_error("%s: --nstations=%d but only %d station(s) qualify", r->path,
                        sel->nstations, *nkeep);
    return 0;
}

/* Zero variance in a month: the standardization divides by it. */
static int check_variance(const sc_reader *r, const int *keep, int nkeep, int nyears) {
    for (int kk = 0; kk < nkeep; kk++) {
        int k = keep[kk];
        for (int m = 0; m < 12; m++) {
            double v0 = r->q[(int64_t)m * r->nsel + k];
            int same = 1;
            for (int y = 1; y < nyears && same; y++)
                same = r->q[((int64_t)y * 12 + m) * r->nsel + k] == v0;
            if (same)
                return mu_error("%s:%d: station %s has zero variance in month %d (%g in every "
                                "year): its standardized series is undefined",
                                r->path, r->lines[m], r->hdr[r->cols[k]], m + 1, v0);
        }
    }
    return 0;
}

/* The kept stations' names and inflows into h. */
static int fill_hist(const sc_reader *r, const int *keep, int nkeep, mu_sc_hist *h) {
    h->nyears = (int)(r->rows / 12);
    h->nst = nkeep;
    h->first_year = (int)r->first_y;
    h->names = calloc((size_t)nkeep, sizeof *h->names);
    h->q = malloc((size_t)(r->rows * nkeep) * sizeof *h->q);
    if (!h->names || !h->q) return mu_error("out of memory");
    for (int kk = 0; kk < nkeep; kk++) {
        h->names[kk] = strdup(r->hdr[r->cols[keep[kk]]]);
        for (int64_t i = 0; i < r->rows; i++) h->q[i * nkeep + kk] = r->q[i * r->nsel + keep[kk]];
    }
    return 0;
}

/* After the last line: whole years, enough of them, the stations kept. */
static int finish_record(const sc_reader *r, const mu_sc_select *sel, mu_sc_hist *h) {
    if (!r->hdr) return mu_error("%s: no data (the file is empty)", r->path);
    if (r->rows % 12 != 0)
        return mu_error("%s:%d: the record ends in %ld-%02ld: it must end in December (whole "
                        "years)",
                        r->path, r->lineno, r->prev_y, r->prev_m);
    int nyears = (int)(r->rows / 12), nkeep = 0;
    if (nyears < sel->min_years)
        return mu_error("%s: short record: %d year(s), the fit needs at least %d", r->path, nyears,
                        sel->min_years);
    int *keep = malloc((size_t)r->nsel * sizeof *keep);
    int rc = keep ? select_stations(r, sel, keep, &nkeep) : mu_error("out of memory");
    if (!rc) rc = check_variance(r, keep, nkeep, nyears);
    if (!rc) rc = fill_hist(r, keep, nkeep, h);
    free(keep);
    return rc;
}

int mu_sc_read(const char *path, const mu_sc_select *sel, mu_sc_hist *h) {
    memset(h, 0, sizeof *h);
    snprintf(h->path, sizeof h->path, "%s", path);
    mu_lines in;
    MU_TRY(mu_lines_open(&in, path, "input", SC_LINE_MAX));
    sc_reader r = {.path = path};
    int rc = read_lines(&r, &in, sel);
    mu_lines_close(&in);
    if (!rc) rc = finish_record(&r, sel, h);
    reader_free(&r);
    if (rc) mu_sc_hist_free(h);
    return rc;
}

int mu_sc_hist_bcast(MPI_Comm comm, mu_sc_hist *h) {
    int rank;
    MPI_Comm_rank(comm, &rank);
    int hdr[3] = {h->nyears, h->nst, h->first_year};
    MPI_Bcast(hdr, 3, MPI_INT, 0, comm);
    MPI_Bcast(h->path, (int)sizeof h->path, MPI_CHAR, 0, comm);
    if (rank != 0) {
        h->nyears = hdr[0];
        h->nst = hdr[1];
        h->first_year = hdr[2];
        h->names = calloc((size_t)h->nst, sizeof *h->names);
        h->q = malloc((size_t)h->nyears * 12 * (size_t)h->nst * sizeof *h->q);
    }
    int ok = h->names && h->q, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (!all) return mu_error_collective(comm, mu_error("out of memory for the record"));
    MPI_Bcast(h->q, h->nyears * 12 * h->nst, MPI_DOUBLE, 0, comm);
    for (int s = 0; s < h->nst; s++) {
        int len = rank == 0 ? (int)strlen(h->names[s]) + 1 : 0;
        MPI_Bcast(&len, 1, MPI_INT, 0, comm);
        if (rank != 0) h->names[s] = malloc((size_t)len);
        MPI_Bcast(h->names[s], len, MPI_CHAR, 0, comm);
    }
    return 0;
}

int mu_sc_check_record(const mu_sc_hist *h, int min_years, const char *who) {
    if (h->nst < 1 || h->nst > 1024)
        return mu_error("%s: %d stations: expected 1 to 1024", who, h->nst);
    if (h->nyears < min_years)
        return mu_error("%s: short record: %d year(s), the fit needs at least %d", who, h->nyears,
                        min_years);
    for (int64_t r = 0; r < (int64_t)h->nyears * 12; r++)
        for (int s = 0; s < h->nst; s++) {
            double x = h->q[r * h->nst + s];
            if (!isfinite(x) || x < 0 || x > SC_INFLOW_MAX)
                return mu_error("%s: station %s, %lld-%02d: inflow %g (natural inflows are finite, "
                                ">= 0 and at most 1e150)",
                                who, h->names[s], (long long)(h->first_year + r / 12),
                                (int)(r % 12) + 1, x);
        }
    /* Zero variance in a month: the standardization divides by it. */
    for (int s = 0; s < h->nst; s++)
        for (int m = 0; m < 12; m++) {
            double v0 = h->q[(int64_t)m * h->nst + s];
            int same = 1;
            for (int y = 1; y < h->nyears && same; y++)
                same = h->q[((int64_t)y * 12 + m) * h->nst + s] == v0;
            if (same)
                return mu_error("%s: station %s has zero variance in month %d (%g in every year): "
                                "its standardized series is undefined",
                                who, h->names[s], m + 1, v0);
        }
    return 0;
}
