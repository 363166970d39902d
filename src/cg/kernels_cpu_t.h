/* CPU kernels for one vector type, included by kernels_cpu.c twice: with
 * REAL = double, FN(x) = x##_d and REAL = float, FN(x) = x##_f. Not a public
 * header. Loops are plain sequential C: no reassociation, so each row and each
 * element gives the same bits on any layout. */

/* Products wait in a small buffer and reach the accumulator a block at a time
 * (mu_xsum_add_array), away from the floating-point work. */
static void FN(spmv)(cg_backend *b, cg_rows which, const void *xv, void *yv, mu_xsum *xy) {
    const cpu_impl *c = b->impl;
    const cg_matrix *A = c->A;
    const REAL *x = xv, *val = c->val;
    REAL *y = yv;
    const int32_t *list = which == CG_ROWS_INTERIOR ? A->interior : A->boundary;
    int64_t count = which == CG_ROWS_ALL        ? A->nloc
                    : which == CG_ROWS_INTERIOR ? A->ninterior
                                                : A->nboundary;
    const int64_t *rowptr = A->rowptr;
    const int32_t *col = A->col;
    double prod[CG_CHUNK];
    for (int64_t k0 = 0; k0 < count; k0 += CG_CHUNK) {
        int nk = count - k0 < CG_CHUNK ? (int)(count - k0) : CG_CHUNK;
        for (int j = 0; j < nk; j++) {
            int64_t i = which == CG_ROWS_ALL ? k0 + j : list[k0 + j];
            REAL s = 0;
            for (int64_t p = rowptr[i]; p < rowptr[i + 1]; p++) s += val[p] * x[col[p]];
            y[i] = s;
            prod[j] = (double)x[i] * (double)s;
        }
        if (xy) mu_xsum_add_array(xy, prod, nk);
    }
}

static void FN(dot)(cg_backend *b, const void *xv, const void *yv, mu_xsum *xy) {
    const REAL *x = xv, *y = yv;
    double prod[CG_CHUNK];
    for (int64_t i0 = 0; i0 < b->nloc; i0 += CG_CHUNK) {
        int nk = b->nloc - i0 < CG_CHUNK ? (int)(b->nloc - i0) : CG_CHUNK;
        for (int j = 0; j < nk; j++) prod[j] = (double)x[i0 + j] * (double)y[i0 + j];
        mu_xsum_add_array(xy, prod, nk);
    }
}

static void FN(waxpby)(cg_backend *b, double a, const void *xv, double c, const void *yv,
                       void *wv) {
    const REAL *x = xv, *y = yv;
    REAL *w = wv, ra = (REAL)a, rc = (REAL)c;
    for (int64_t i = 0; i < b->nloc; i++) w[i] = ra * x[i] + rc * y[i];
}

static void FN(precond)(cg_backend *b, const void *rv, void *zv, mu_xsum *rz, mu_xsum *rr) {
    const cpu_impl *c = b->impl;
    const REAL *r = rv, *dinv = c->dinv;
    REAL *z = zv;
    if (!z) {
        FN(dot)(b, r, r, rr);
        return;
    }
    double pz[CG_CHUNK], pr[CG_CHUNK];
    for (int64_t i0 = 0; i0 < b->nloc; i0 += CG_CHUNK) {
        int nk = b->nloc - i0 < CG_CHUNK ? (int)(b->nloc - i0) : CG_CHUNK;
        for (int j = 0; j < nk; j++) {
            int64_t i = i0 + j;
            REAL zi = dinv[i] * r[i];
            z[i] = zi;
            pz[j] = (double)r[i] * (double)zi;
            pr[j] = (double)r[i] * (double)r[i];
        }
        mu_xsum_add_array(rz, pz, nk);
        mu_xsum_add_array(rr, pr, nk);
    }
}

static void FN(cg_update)(cg_backend *b, double alpha, const void *pv, const void *qv, void *xv,
                          void *rv, void *zv, mu_xsum *rz, mu_xsum *rr) {
    const cpu_impl *c = b->impl;
    const REAL *p = pv, *q = qv, *dinv = c->dinv, a = (REAL)alpha;
    REAL *x = xv, *r = rv, *z = zv;
    double pz[CG_CHUNK], pr[CG_CHUNK];
    for (int64_t i0 = 0; i0 < b->nloc; i0 += CG_CHUNK) {
        int nk = b->nloc - i0 < CG_CHUNK ? (int)(b->nloc - i0) : CG_CHUNK;
        for (int j = 0; j < nk; j++) {
            int64_t i = i0 + j;
            x[i] += a * p[i];
            REAL ri = r[i] - a * q[i];
            r[i] = ri;
            pr[j] = (double)ri * (double)ri;
        }
        if (z)
            for (int j = 0; j < nk; j++) {
                int64_t i = i0 + j;
                REAL zi = dinv[i] * r[i];
                z[i] = zi;
                pz[j] = (double)r[i] * (double)zi;
            }
        mu_xsum_add_array(rr, pr, nk);
        if (z) mu_xsum_add_array(rz, pz, nk);
    }
}

static void FN(vec_set)(cg_backend *b, void *vv, const double *owned) {
    REAL *v = vv;
    for (int64_t i = 0; i < b->nloc; i++) v[i] = (REAL)owned[i];
}

static void FN(vec_get)(cg_backend *b, const void *vv, double *owned) {
    const REAL *v = vv;
    for (int64_t i = 0; i < b->nloc; i++) owned[i] = (double)v[i];
}

static void FN(vec_fill)(cg_backend *b, void *vv, double value) {
    REAL *v = vv, x = (REAL)value;
    for (int64_t i = 0; i < b->nloc + b->nghost; i++) v[i] = x;
}

static int FN(convert)(cpu_impl *c, int jacobi) {
    const cg_matrix *A = c->A;
    if (sizeof(REAL) == sizeof(double)) {
        c->val = A->val;
    } else {
        REAL *v = malloc((size_t)(A->nnz_loc ? A->nnz_loc : 1) * sizeof *v);
        if (!v) return mu_error("out of memory for the float matrix values");
        for (int64_t p = 0; p < A->nnz_loc; p++) v[p] = (REAL)A->val[p];
        c->val = c->own_val = v;
    }
    if (jacobi) {
        REAL *d = malloc((size_t)(A->nloc ? A->nloc : 1) * sizeof *d);
        if (!d) return mu_error("out of memory for the Jacobi diagonal");
        for (int64_t i = 0; i < A->nloc; i++) d[i] = (REAL)(1.0 / A->diag[i]);
        c->dinv = d;
    }
    return 0;
}
