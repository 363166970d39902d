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
    if (h->names)
        for (int s = 0; s < h->nst; s++) free(h->names[s]);
    free(h->names);
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

int mu_sc_read(const char *path, const mu_sc_select *sel, mu_sc_hist *h) {
    memset(h, 0, sizeof *h);
    snprintf(h->path, sizeof h->path, "%s", path);
    mu_lines in;
    MU_TRY(mu_lines_open(&in, path, "input", SC_LINE_MAX));
    int rc = 0, lineno = 0, ncols = 0, *cols = NULL, nsel = 0, got;
    char **hdr = NULL, **fld = NULL;
    double *q = NULL;
    int *lines = NULL; /* line of each month row, for the checks after reading */
    int64_t rows = 0, rcap = 0;
    long prev_y = 0, prev_m = 0, first_y = 0;
    while (!rc && (got = mu_lines_next(&in)) != 0) {
        if (got < 0) {
            rc = 1;
            break;
        }
        lineno = (int)in.lineno;
        char *s = trim(in.line);
        if (!*s || *s == '#') continue;
        int n = count_fields(s);
        if (n > SC_FIELDS_MAX) {
            rc = mu_error("%s:%d: %d fields: at most %d columns are supported", path, lineno, n,
                          SC_FIELDS_MAX);
            break;
        }
        if (!hdr) {
            ncols = n;
            hdr = calloc((size_t)ncols, sizeof *hdr);
            fld = calloc((size_t)ncols + 1, sizeof *fld);
            if (!hdr || !fld) {
                rc = mu_error("out of memory");
                break;
            }
            split(s, fld, ncols);
            for (int j = 0; j < ncols && !rc; j++)
                if (!(hdr[j] = strdup(fld[j]))) rc = mu_error("out of memory");
            if (rc) break;
            if (ncols < 3 || strcasecmp(hdr[0], "year") || strcasecmp(hdr[1], "month")) {
                rc =
                    mu_error("%s:%d: header must be year,month,<station>,... (got '%s,%s%s')", path,
                             lineno, hdr[0], ncols > 1 ? hdr[1] : "", ncols > 2 ? ",..." : "");
                break;
            }
            rc = pick_columns(path, hdr, ncols, sel, &cols, &nsel);
            continue;
        }
        if (n == ncols) split(s, fld, ncols);
        if (n != ncols) {
            rc = mu_error("%s:%d: %d field(s), expected %d (as in the header)%s", path, lineno, n,
                          ncols, n < ncols ? ": a short row is a gap in the record" : "");
            break;
        }
        long y, m;
        if (!parse_int(fld[0], &y) || !parse_int(fld[1], &m) || m < 1 || m > 12) {
            rc = mu_error("%s:%d: year '%s' and month '%s' must be integers, month 1..12", path,
                          lineno, fld[0], fld[1]);
            break;
        }
        if (rows == 0) {
            if (m != 1) {
                rc = mu_error("%s:%d: the record starts in %ld-%02ld: it must start in January "
                              "(whole years)",
                              path, lineno, y, m);
                break;
            }
            first_y = y;
        } else {
            long want_y = prev_m == 12 ? prev_y + 1 : prev_y, want_m = prev_m % 12 + 1;
            long have = y * 12 + m, want = want_y * 12 + want_m;
            if (have > want) {
                rc = mu_error("%s:%d: gap in the record: %ld-%02ld follows %ld-%02ld (%ld-%02ld "
                              "is missing)",
                              path, lineno, y, m, prev_y, prev_m, want_y, want_m);
                break;
            }
            if (have < want) {
                rc = mu_error("%s:%d: months out of order: %ld-%02ld after %ld-%02ld (expected "
                              "%ld-%02ld)",
                              path, lineno, y, m, prev_y, prev_m, want_y, want_m);
                break;
            }
        }
        prev_y = y;
        prev_m = m;
        if (rows == rcap) {
            rcap = rcap ? 2 * rcap : 1024;
            double *nq = realloc(q, (size_t)(rcap * nsel) * sizeof *q);
            int *nl = realloc(lines, (size_t)rcap * sizeof *lines);
            if (!nq || !nl) {
                free(nq ? nq : q);
                free(nl ? nl : lines);
                q = NULL;
                lines = NULL;
                rc = mu_error("out of memory reading '%s'", path);
                break;
            }
            q = nq;
            lines = nl;
        }
        lines[rows] = lineno;
        for (int k = 0; k < nsel && !rc; k++) {
            const char *v = fld[cols[k]];
            if (!*v) {
                rc = mu_error("%s:%d: station %s, %ld-%02ld: no value (a gap in the record)", path,
                              lineno, hdr[cols[k]], y, m);
                break;
            }
            double x = 0;
            mu_num kind = mu_num_parse(v, &x);
            if (kind != MU_NUM_OK) {
                rc = mu_error(
                    "%s:%d: station %s, %ld-%02ld: '%s' %s", path, lineno, hdr[cols[k]], y, m, v,
                    kind == MU_NUM_UNDERFLOW ? mu_num_why(kind) : "is not a finite number");
                break;
            }
            if (x < 0) {
                rc = mu_error("%s:%d: station %s, %ld-%02ld: negative inflow %s (natural inflows "
                              "are >= 0; incremental series are not supported)",
                              path, lineno, hdr[cols[k]], y, m, v);
                break;
            }
            q[rows * nsel + k] = x;
        }
        rows++;
    }
    mu_lines_close(&in);
    if (!rc && !hdr) rc = mu_error("%s: no data (the file is empty)", path);
    if (!rc && rows % 12 != 0)
        rc = mu_error("%s:%d: the record ends in %ld-%02ld: it must end in December (whole years)",
                      path, lineno, prev_y, prev_m);
    int nyears = (int)(rows / 12);
    if (!rc && nyears < sel->min_years)
        rc = mu_error("%s: short record: %d year(s), the fit needs at least %d", path, nyears,
                      sel->min_years);
    /* Station selection by zeros, then count. */
    int *keep = NULL, nkeep = 0;
    if (!rc) {
        keep = malloc((size_t)nsel * sizeof *keep);
        if (!keep) rc = mu_error("out of memory");
        for (int k = 0; k < nsel && !rc; k++) {
            int zero = 0;
            for (int64_t r = 0; r < rows; r++) zero |= q[r * nsel + k] == 0;
            if (sel->skip_zero && zero) continue;
            if (sel->nstations > 0 && nkeep == sel->nstations) break;
            keep[nkeep++] = k;
        }
        if (!rc && sel->nstations > 0 && nkeep < sel->nstations)
            rc = mu_error("%s: --nstations=%d but only %d station(s) qualify", path, sel->nstations,
                          nkeep);
    }
    /* Zero variance in a month: the standardization divides by it. */
    for (int kk = 0; kk < nkeep && !rc; kk++) {
        int k = keep[kk];
        for (int m = 0; m < 12 && !rc; m++) {
            double v0 = q[(int64_t)m * nsel + k];
            int same = 1;
            for (int y = 1; y < nyears && same; y++)
                same = q[((int64_t)y * 12 + m) * nsel + k] == v0;
            if (same)
                rc = mu_error("%s:%d: station %s has zero variance in month %d (%g in every "
                              "year): its standardized series is undefined",
                              path, lines[m], hdr[cols[k]], m + 1, v0);
        }
    }
    if (!rc) {
        h->nyears = nyears;
        h->nst = nkeep;
        h->first_year = (int)first_y;
        h->names = calloc((size_t)nkeep, sizeof *h->names);
        h->q = malloc((size_t)(rows * nkeep) * sizeof *h->q);
        if (!h->names || !h->q) rc = mu_error("out of memory");
        for (int kk = 0; kk < nkeep && !rc; kk++) {
            h->names[kk] = strdup(hdr[cols[keep[kk]]]);
            for (int64_t r = 0; r < rows; r++) h->q[r * nkeep + kk] = q[r * nsel + keep[kk]];
        }
    }
    if (hdr)
        for (int j = 0; j < ncols; j++) free(hdr[j]);
    free(hdr);
    free(fld);
    free(cols);
    free(q);
    free(lines);
    free(keep);
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
            if (!isfinite(x) || x < 0)
                return mu_error("%s: station %s, %lld-%02d: inflow %g (natural inflows are finite "
                                "and >= 0)",
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
