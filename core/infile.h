/* Opening input files safely, reading text lines and parsing numbers, shared
 * by every reader. Only regular files are read: a directory reads as empty (or
 * fails late with EISDIR), a FIFO or a device blocks or never ends. Lines are
 * checked for NUL bytes (a C string would end there, silently dropping the
 * rest) and, where the reader sets one, a length limit. Failures are recorded
 * with mu_error() as "file:line: cause". */
#ifndef MU_CORE_INFILE_H
#define MU_CORE_INFILE_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Opens path read-only; refuses anything but a regular file. what names the
 * file in messages ("input", "matrix", "job deck"): "cannot open <what>
 * '<path>': <reason>" or "<path>: is a directory (the <what> must be a regular
 * file)". Returns the descriptor, or -1 after mu_error(). *size (may be NULL):
 * the file's size in bytes. */
int mu_infile_fd(const char *path, const char *what, int64_t *size);
/* The same as a stdio stream ("rb"); NULL after mu_error(). */
FILE *mu_infile_open(const char *path, const char *what, int64_t *size);

/* A text file read line by line. */
typedef struct {
    const char *path;
    FILE *f;
    char *line;     /* the current line, without its end-of-line characters */
    size_t len;     /* its length in bytes */
    size_t cap;     /* getline's buffer */
    long lineno;    /* 1-based number of the current line */
    size_t max_len; /* longest line accepted, 0: any */
} mu_lines;

/* 0, or 1 after mu_error(). */
int mu_lines_open(mu_lines *r, const char *path, const char *what, size_t max_len);
/* The next line: 1, 0 at the end of the file, -1 after mu_error() (a NUL
 * byte, a line over max_len, a read error). */
int mu_lines_next(mu_lines *r);
void mu_lines_close(mu_lines *r);

/* 0 when the len bytes of line hold no NUL byte, else 1 after
 * mu_error("path:lineno: NUL byte at column c"). */
int mu_text_check_nul(const char *path, long lineno, const char *line, size_t len);

/* What a number field is. */
typedef enum {
    MU_NUM_OK = 0,
    MU_NUM_BAD,       /* not a number (empty, or text left over) */
    MU_NUM_NAN,       /* "nan" */
    MU_NUM_INF,       /* "inf" or "infinity" */
    MU_NUM_OVERFLOW,  /* digits beyond the double range (strtod gives +-Inf) */
    MU_NUM_UNDERFLOW, /* nonzero, but below the smallest normal double: read as
                         0 or as a denormal with lost digits */
} mu_num;

/* Parses the whole of s as a double (strtod's syntax); *v is set when OK. */
mu_num mu_num_parse(const char *s, double *v);
/* Why a field of that kind is refused: "is beyond the double range (overflow)". */
const char *mu_num_why(mu_num k);

#endif
