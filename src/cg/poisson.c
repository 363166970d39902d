#include "cg/poisson.h"

int64_t cg_poisson_rows(const cg_grid *g) {
    return g->nx * g->ny * g->nz;
}

const char *cg_stencil_name(cg_stencil s) {
    return s == CG_POISSON_2D5   ? "2-D 5-point"
           : s == CG_POISSON_3D7 ? "3-D 7-point"
                                 : "3-D 27-point";
}

int cg_poisson_row(const cg_grid *g, int64_t row, int32_t *cols, double *vals) {
    int64_t i = row % g->nx, j = (row / g->nx) % g->ny, k = row / (g->nx * g->ny);
    int n = 0;
    if (g->stencil == CG_POISSON_3D27) {
        /* (dk, dj, di) in lexicographic order is ascending column order. */
        for (int dk = -1; dk <= 1; dk++)
            for (int dj = -1; dj <= 1; dj++)
                for (int di = -1; di <= 1; di++) {
                    int64_t a = i + di, b = j + dj, c = k + dk;
                    if (a < 0 || a >= g->nx || b < 0 || b >= g->ny || c < 0 || c >= g->nz) continue;
                    cols[n] = (int32_t)(a + g->nx * (b + g->ny * c));
                    vals[n++] = (di || dj || dk) ? -1.0 : 26.0;
                }
        return n;
    }
    double diag = g->stencil == CG_POISSON_2D5 ? 4.0 : 6.0;
    int64_t sx = 1, sy = g->nx, sz = g->nx * g->ny;
    if (g->stencil == CG_POISSON_3D7 && k > 0) cols[n] = (int32_t)(row - sz), vals[n++] = -1.0;
    if (j > 0) cols[n] = (int32_t)(row - sy), vals[n++] = -1.0;
    if (i > 0) cols[n] = (int32_t)(row - sx), vals[n++] = -1.0;
    cols[n] = (int32_t)row, vals[n++] = diag;
    if (i < g->nx - 1) cols[n] = (int32_t)(row + sx), vals[n++] = -1.0;
    if (j < g->ny - 1) cols[n] = (int32_t)(row + sy), vals[n++] = -1.0;
    if (g->stencil == CG_POISSON_3D7 && k < g->nz - 1)
        cols[n] = (int32_t)(row + sz), vals[n++] = -1.0;
    return n;
}

/* Neighbours along one axis, the point itself included: 1, 2 or 3. */
static int span(int64_t i, int64_t n) {
    return 1 + (i > 0) + (i < n - 1);
}

static int nnz_at(const cg_grid *g, int64_t i, int64_t j, int64_t k) {
    int a = span(i, g->nx), b = span(j, g->ny), c = span(k, g->nz);
    if (g->stencil == CG_POISSON_3D27) return a * b * c;
    if (g->stencil == CG_POISSON_2D5) return a + b - 1;
    return a + b + c - 2;
}

int cg_poisson_row_nnz(const cg_grid *g, int64_t row) {
    return nnz_at(g, row % g->nx, (row / g->nx) % g->ny, row / (g->nx * g->ny));
}

void cg_poisson_bounds(const cg_grid *g, int parts, int64_t *bounds) {
    int64_t n = cg_poisson_rows(g), total = 0;
    for (int64_t k = 0; k < g->nz; k++)
        for (int64_t j = 0; j < g->ny; j++)
            for (int64_t i = 0; i < g->nx; i++) total += nnz_at(g, i, j, k);
    /* Walk the rows with the weight of rows [0, row) in prefix; part p starts
     * at the first row where prefix * parts >= p * total. */
    int p = 1;
    int64_t row = 0, prefix = 0;
    bounds[0] = 0;
    for (int64_t k = 0; k < g->nz && p < parts; k++)
        for (int64_t j = 0; j < g->ny && p < parts; j++)
            for (int64_t i = 0; i < g->nx; i++, row++) {
                while (p < parts && prefix * (int64_t)parts >= (int64_t)p * total)
                    bounds[p++] = row;
                prefix += nnz_at(g, i, j, k);
            }
    while (p < parts) bounds[p++] = n;
    bounds[parts] = n;
}
