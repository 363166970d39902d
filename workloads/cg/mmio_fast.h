/* Internal to the Matrix Market reader (mmio.c): the entry lines read in large
 * blocks and parsed by several threads. Not a public header. */
#ifndef MU_CG_MMIO_FAST_H
#define MU_CG_MMIO_FAST_H
#include <stdint.h>
#include <zlib.h>

/* The entries in file order: 0-based row, column, value. */
typedef struct {
    int32_t *i, *j;
    double *v;
    int64_t cap;
} cg_mm_triples;

/* Room for `need` entries, grown as they arrive (doubling, at most the
 * declared count): 0, or 1 when need exceeds it or memory runs out. */
int cg_mm_reserve(cg_mm_triples *t, int64_t need, int64_t declared);

typedef struct {
    int64_t n, declared;  /* rows (= columns), entries of the size line */
    int pattern, integer; /* the field */
    int symmetric;        /* lower triangle only */
    int threads;          /* parsing threads */
} cg_mm_layout;

/* Reads the rest of f (the entry lines after the size line) into t: 0 when
 * every line is a plain entry or a comment or blank and there are exactly
 * `declared` entries, with the values the line-by-line reader gives; 1 on
 * anything else (an error, or a line it does not take: a sign before an
 * index, a long token, a NUL byte, ...), after which the caller reads the file
 * again line by line, for that reader's exact message. No message is set. */
int cg_mm_fast_entries(gzFile f, const cg_mm_layout *lay, cg_mm_triples *t);

#endif
