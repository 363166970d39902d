/* The CPU backend: the reference kernels of the cg solver. */
#include <stdlib.h>
#include <string.h>
#include "cg/kernels.h"
#include "core/error.h"

enum { CG_CHUNK = 256 }; /* rows per block of buffered products */

typedef struct {
    const cg_matrix *A;
    const void *val; /* matrix values in the vector type (A->val itself for double) */
    void *own_val;   /* the float copy, when made */
    void *dinv;      /* 1 / diagonal, or NULL */
    mu_halo_type halo_type;
    size_t esize;
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

static void *vec_new(cg_backend *b) {
    const cpu_impl *c = b->impl;
    size_t n = (size_t)(b->nloc + b->nghost);
    return calloc(n ? n : 1, c->esize);
}

static void vec_free(cg_backend *b, void *v) {
    (void)b;
    free(v);
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

static void destroy(cg_backend *b) {
    if (!b) return;
    cpu_impl *c = b->impl;
    if (c) {
        free(c->own_val);
        free(c->dinv);
        free(c);
    }
    free(b);
}

int cg_backend_cpu(const cg_matrix *A, int fp32, int jacobi, cg_backend **out) {
    *out = NULL;
    cg_backend *b = calloc(1, sizeof *b);
    cpu_impl *c = calloc(1, sizeof *c);
    if (!b || !c) {
        free(b);
        free(c);
        return mu_error("out of memory");
    }
    c->A = A;
    c->esize = fp32 ? sizeof(float) : sizeof(double);
    c->halo_type = fp32 ? MU_HALO_FLOAT : MU_HALO_DOUBLE;
    b->name = "cpu";
    b->fp32 = fp32;
    b->nloc = A->nloc;
    b->nghost = A->nghost;
    b->impl = c;
    b->vec_new = vec_new;
    b->vec_free = vec_free;
    b->vec_copy = vec_copy;
    b->halo_begin = halo_begin;
    b->halo_end = halo_end;
    b->destroy = destroy;
    int rc;
    if (fp32) {
        rc = convert_f(c, jacobi);
        b->vec_set = vec_set_f;
        b->vec_get = vec_get_f;
        b->vec_fill = vec_fill_f;
        b->spmv = spmv_f;
        b->dot = dot_f;
        b->waxpby = waxpby_f;
        b->cg_update = cg_update_f;
        b->precond = precond_f;
    } else {
        rc = convert_d(c, jacobi);
        b->vec_set = vec_set_d;
        b->vec_get = vec_get_d;
        b->vec_fill = vec_fill_d;
        b->spmv = spmv_d;
        b->dot = dot_d;
        b->waxpby = waxpby_d;
        b->cg_update = cg_update_d;
        b->precond = precond_d;
    }
    if (rc) {
        destroy(b);
        return 1;
    }
    *out = b;
    return 0;
}
