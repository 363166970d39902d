#include "cg/poisson.h"

int64_t cg_poisson_rows(const cg_grid *g) {
    return g->nx * g->ny * g->nz;
}

const char *cg_stencil_name(cg_stencil s) {
    return s == CG_POISSON_2D5   ? "2-D 5-point"
           : s == CG_POISSON_3D7 ? "3-D 7-point"
                                 : "3-D 27-point";
}

double cg_poisson_diag(cg_stencil s) {
    return s == CG_POISSON_2D5 ? 4.0 : s == CG_POISSON_3D7 ? 6.0 : 26.0;
}

cg_point cg_poisson_point(const cg_grid *g, int64_t row) {
    cg_point p = {row % g->nx, (row / g->nx) % g->ny, row / (g->nx * g->ny), row};
    return p;
}

/* The 27-point row: (dk, dj, di) in lexicographic order is ascending column order. */
int cg_poisson_row27(const cg_grid *g, const cg_point *p, double off, double diag, int64_t *cols,
                     double *vals) {
    int n = 0;
    for (int dk = -1; dk <= 1; dk++)
        for (int dj = -1; dj <= 1; dj++)
            for (int di = -1; di <= 1; di++) {
                int64_t a = p->i + di, b = p->j + dj, c = p->k + dk;
                if (a < 0 || a >= g->nx || b < 0 || b >= g->ny || c < 0 || c >= g->nz) continue;
                cols[n] = a + g->nx * (b + g->ny * c);
                vals[n++] = (di || dj || dk) ? off : diag;
            }
    return n;
}

int cg_poisson_row(const cg_grid *g, int64_t row, int32_t *cols, double *vals) {
    int64_t wide[CG_POISSON_MAX_ROW];
    cg_point p = cg_poisson_point(g, row);
    int n = cg_poisson_row_at(g, &p, -1.0, cg_poisson_diag(g->stencil), wide, vals);
    for (int m = 0; m < n; m++) cols[m] = (int32_t)wide[m];
    return n;
}

int cg_poisson_row_nnz(const cg_grid *g, int64_t row) {
    cg_point p = cg_poisson_point(g, row);
    return cg_poisson_nnz_at(g, &p);
}

/* The nonzeros of grid line (j, k), all i at once: the spans along x add up
 * to 3 nx - 2 (1 for nx = 1), so no walk over the line is needed. */
static int64_t line_nnz(const cg_grid *g, int64_t j, int64_t k) {
    int64_t sx = 3 * g->nx - 2, b = cg_poisson_span(j, g->ny), c = cg_poisson_span(k, g->nz);
    if (g->stencil == CG_POISSON_3D27) return sx * b * c;
    if (g->stencil == CG_POISSON_2D5) return sx + g->nx * (b - 1);
    return sx + g->nx * (b + c - 2);
}

void cg_poisson_bounds(const cg_grid *g, int parts, int64_t *bounds) {
    int64_t n = cg_poisson_rows(g), total = 0;
    for (int64_t k = 0; k < g->nz; k++)
        for (int64_t j = 0; j < g->ny; j++) total += line_nnz(g, j, k);
    /* Walk the rows with the weight of rows [0, row) in prefix; part p starts
     * at the first row where prefix * parts >= p * total. A line whose end
     * stays below the next cut holds no cut: it is passed whole. */
    int p = 1;
    int64_t row = 0, prefix = 0;
    bounds[0] = 0;
    for (int64_t k = 0; k < g->nz && p < parts; k++)
        for (int64_t j = 0; j < g->ny && p < parts; j++) {
            int64_t lw = line_nnz(g, j, k);
            if ((prefix + lw) * (int64_t)parts < (int64_t)p * total) {
                prefix += lw;
                row += g->nx;
                continue;
            }
            for (int64_t i = 0; i < g->nx; i++, row++) {
                while (p < parts && prefix * (int64_t)parts >= (int64_t)p * total)
                    bounds[p++] = row;
                cg_point pt = {i, j, k, row};
                prefix += cg_poisson_nnz_at(g, &pt);
            }
        }
    while (p < parts) bounds[p++] = n;
    bounds[parts] = n;
}
