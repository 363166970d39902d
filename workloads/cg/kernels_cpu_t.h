/* CPU kernels for one vector type, included by kernels_cpu.c twice: with
 * REAL = double, FN(x) = x##_d and REAL = float, FN(x) = x##_f. Not a public
 * header. Loops are plain sequential C: no reassociation, so each row and each
 * element gives the same bits on any layout. */

/* One row, summed in its stored order from +0 (as every layout does). The
 * common lengths of the generated operators (7, 27) run unrolled, without the
 * loop's bookkeeping: the same operations in the same order. */
static inline REAL FN(row)(const int64_t *rowptr, const int32_t *col, const REAL *val,
                           const REAL *x, int64_t i) {
    int64_t p = rowptr[i], len = rowptr[i + 1] - p;
    const int32_t *c = col + p;
    const REAL *v = val + p;
    REAL s = 0;
    if (len == 7) {
        for (int k = 0; k < 7; k++) s += v[k] * x[c[k]];
    } else if (len == 27) {
        for (int k = 0; k < 27; k++) s += v[k] * x[c[k]];
    } else {
        for (int64_t k = 0; k < len; k++) s += v[k] * x[c[k]];
    }
    return s;
}

/* Rows go by ranges of consecutive rows (cpu_impl.ranges); products wait in a
 * small buffer and reach the accumulator a block at a time
 * (mu_xsum_add_array), away from the floating-point work. */
static void FN(spmv)(cg_backend *b, cg_rows which, const void *xv, void *yv, mu_xsum *xy) {
    const cpu_impl *c = b->impl;
    const cg_matrix *A = c->A;
    const REAL *x = xv, *val = c->val;
    REAL *y = yv;
    const cg_range_set *set = &c->ranges[which];
    const int64_t *rowptr = A->rowptr;
    const int32_t *col = A->col;
    double prod[CG_CHUNK];
    int nk = 0;
    for (int64_t r = 0; r < set->count; r++) {
        int64_t i = set->range[r].first, end = set->range[r].end;
        while (i < end) {
            int m = end - i < CG_CHUNK - nk ? (int)(end - i) : CG_CHUNK - nk;
            for (int j = 0; j < m; j++) {
                REAL s = FN(row)(rowptr, col, val, x, i + j);
                y[i + j] = s;
                prod[nk + j] = (double)x[i + j] * (double)s;
            }
            i += m;
            nk += m;
            if (nk == CG_CHUNK) {
                if (xy) mu_xsum_add_array(xy, prod, nk);
                nk = 0;
            }
        }
    }
    if (xy && nk) mu_xsum_add_array(xy, prod, nk);
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

static void FN(cg_residual)(cg_backend *b, double alpha, const void *qv, void *rv, void *zv,
                            mu_xsum *rz, mu_xsum *rr) {
    const cpu_impl *c = b->impl;
    const REAL *q = qv, *dinv = c->dinv, a = (REAL)alpha;
    REAL *r = rv, *z = zv;
    double pz[CG_CHUNK], pr[CG_CHUNK];
    for (int64_t i0 = 0; i0 < b->nloc; i0 += CG_CHUNK) {
        int nk = b->nloc - i0 < CG_CHUNK ? (int)(b->nloc - i0) : CG_CHUNK;
        if (z) {
            for (int j = 0; j < nk; j++) {
                int64_t i = i0 + j;
                REAL ri = r[i] - a * q[i], zi = dinv[i] * ri;
                r[i] = ri;
                z[i] = zi;
                pr[j] = (double)ri * (double)ri;
                pz[j] = (double)ri * (double)zi;
            }
            mu_xsum_add_array(rz, pz, nk);
        } else {
            for (int j = 0; j < nk; j++) {
                int64_t i = i0 + j;
                REAL ri = r[i] - a * q[i];
                r[i] = ri;
                pr[j] = (double)ri * (double)ri;
            }
        }
        mu_xsum_add_array(rr, pr, nk);
    }
}

static void FN(cg_direction)(cg_backend *b, double alpha, double beta, const void *zv, void *pv,
                             void *xv) {
    const REAL *z = zv, a = (REAL)alpha, c = (REAL)beta, one = 1;
    REAL *p = pv, *x = xv;
    for (int64_t i = 0; i < b->nloc; i++) {
        REAL pi = p[i];
        x[i] += a * pi;
        p[i] = one * z[i] + c * pi; /* as waxpby(1, z, beta, p, p) */
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

/* This type's kernels into the backend's table. */
static void FN(install)(cg_backend *b) {
    b->vec_set = FN(vec_set);
    b->vec_get = FN(vec_get);
    b->vec_fill = FN(vec_fill);
    b->spmv = FN(spmv);
    b->dot = FN(dot);
    b->waxpby = FN(waxpby);
    b->cg_update = FN(cg_update);
    b->precond = FN(precond);
    b->cg_residual = FN(cg_residual);
    b->cg_direction = FN(cg_direction);
}
