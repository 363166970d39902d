/* The CPU backend: the reference kernels of the cg solver. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cg/kernels.h"
#include "core/error.h"
#include "core/memory.h"

enum { CG_CHUNK = 256 }; /* rows per block of buffered products */

/* A row set (cg_rows) as ranges of consecutive rows: the whole block is one,
 * interior and boundary rows a few on a split grid (any list works). */
typedef struct {
    int64_t first, end;
} cg_range;
typedef struct {
    cg_range *range;
    int64_t count;
} cg_range_set;

typedef struct {
    const cg_matrix *A;
    cg_range_set ranges[3]; /* indexed by cg_rows */
    const void *val;        /* matrix values in the vector type (A->val itself for double) */
    void *own_val;          /* the float copy, when made */
    void *dinv;             /* 1 / diagonal, or NULL */
    mu_halo_type halo_type;
    size_t esize;
    int64_t vectors; /* made so far: each starts at its own offset in a page */
} cpu_impl;

#define REAL double
#define FN(name) name##_d
#include "cg/kernels_cpu_t.h"
#undef REAL
#undef FN
#define REAL float
#define FN(name) name##_f
#include "cg/kernels_cpu_t.h"
#undef REAL
#undef FN

/* Vectors start at staggered offsets within a page (0, 512, ..., 3584 bytes,
 * then round again): kernels store to one vector while they load from others
 * at nearby indices, and addresses equal modulo 4096 make the processor hold a
 * load behind an unrelated store (4K aliasing; seen as 3-4x slower vector
 * updates when the heap happened to place them 16 bytes apart). */
enum { PAGE = 4096, STAGGER = 512 };

static void *vec_new(cg_backend *b) {
    cpu_impl *c = b->impl;
    size_t n = (size_t)(b->nloc + b->nghost),
           off = (size_t)(c->vectors++ % (PAGE / STAGGER)) * STAGGER;
    size_t bytes = ((n ? n : 1) * c->esize + off + PAGE - 1) / PAGE * PAGE;
    char *base = aligned_alloc(PAGE, bytes);
    if (!base) return NULL;
    mu_mem_prefault(base, bytes);
    memset(base, 0, bytes);
    return base + off;
}

static void vec_free(cg_backend *b, void *v) {
    (void)b;
    if (v) free((char *)v - ((uintptr_t)v & (PAGE - 1)));
}

static void vec_copy(cg_backend *b, const void *src, void *dst) {
    const cpu_impl *c = b->impl;
    if (b->nloc) memcpy(dst, src, (size_t)b->nloc * c->esize);
}

static void halo_begin(cg_backend *b, void *x) {
    const cpu_impl *c = b->impl;
    mu_halo_begin(c->A->halo, x, (char *)x + (size_t)b->nloc * c->esize, c->halo_type);
}

static void halo_end(cg_backend *b, void *x) {
    (void)x;
    mu_halo_end(((const cpu_impl *)b->impl)->A->halo);
}

/* The ranges of list[0..n) (ascending rows), or of 0..n when list is NULL. */
static int make_ranges(const int32_t *list, int64_t n, cg_range_set *set) {
    int64_t count = 0;
    for (int64_t k = 0; list && k < n; k++) count += k == 0 || list[k] != list[k - 1] + 1;
    set->range = malloc((size_t)(count ? count : 1) * sizeof *set->range);
    if (!set->range) return mu_error("out of memory for the row ranges");
    /* Every row, or one run of rows (the usual interior): no walk to fill it. */
    if (!list || count == 1) {
        set->range[0] = list ? (cg_range){list[0], list[n - 1] + 1} : (cg_range){0, n};
        set->count = n > 0;
        return 0;
    }
    set->count = 0;
    for (int64_t k = 0; k < n; k++) {
        int64_t row = list[k];
        if (set->count && set->range[set->count - 1].end == row)
            set->range[set->count - 1].end++;
        else
            set->range[set->count++] = (cg_range){row, row + 1};
    }
    return 0;
}

static void destroy(cg_backend *b) {
    cpu_impl *c = b ? b->impl : NULL;
    if (c) {
        for (int k = 0; k < 3; k++) free(c->ranges[k].range);
        free(c->own_val);
        free(c->dinv);
    }
    cg_backend_free(b);
}

int cg_backend_cpu(const cg_matrix *A, int fp32, int jacobi, cg_backend **out) {
    *out = NULL;
    cg_backend *b = cg_backend_new("cpu", A, fp32, sizeof(cpu_impl));
    if (!b) return 1;
    cpu_impl *c = b->impl;
    c->A = A;
    c->esize = fp32 ? sizeof(float) : sizeof(double);
    c->halo_type = fp32 ? MU_HALO_FLOAT : MU_HALO_DOUBLE;
    b->vec_new = vec_new;
    b->vec_free = vec_free;
    b->vec_copy = vec_copy;
    b->halo_begin = halo_begin;
    b->halo_end = halo_end;
    b->destroy = destroy;
    int rc = make_ranges(NULL, A->nloc, &c->ranges[CG_ROWS_ALL]) ||
             make_ranges(A->interior, A->ninterior, &c->ranges[CG_ROWS_INTERIOR]) ||
             make_ranges(A->boundary, A->nboundary, &c->ranges[CG_ROWS_BOUNDARY]);
    if (rc) {
        destroy(b);
        return 1;
    }
    rc = fp32 ? convert_f(c, jacobi) : convert_d(c, jacobi);
    (fp32 ? install_f : install_d)(b);
    if (rc) {
        destroy(b);
        return 1;
    }
    *out = b;
    return 0;
}
