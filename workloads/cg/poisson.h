/* Generated Poisson operators, without files: the 2-D 5-point (4 on the
 * diagonal, -1 off), 3-D 7-point (6, -1) and HPCG's 3-D 27-point (26, -1)
 * stencils on an nx x ny (x nz) grid with Dirichlet boundaries. Row
 * i + nx*(j + ny*k) couples to its grid neighbours; each row's columns come in
 * ascending order. Any row can be built alone, so each rank builds only its rows. */
#ifndef MU_CG_POISSON_H
#define MU_CG_POISSON_H
#include <stdint.h>

typedef enum { CG_POISSON_2D5 = 0, CG_POISSON_3D7 = 1, CG_POISSON_3D27 = 2 } cg_stencil;

typedef struct {
    cg_stencil stencil;
    int64_t nx, ny, nz; /* nz = 1 for 2-D */
} cg_grid;

enum { CG_POISSON_MAX_ROW = 27 };

/* A grid point and its row, row = i + nx (j + ny k): walks over consecutive
 * rows step the coordinates instead of dividing for each row. */
typedef struct {
    int64_t i, j, k, row;
} cg_point;

int64_t cg_poisson_rows(const cg_grid *g);
double cg_poisson_diag(cg_stencil s); /* 4, 6 or 26 */
cg_point cg_poisson_point(const cg_grid *g, int64_t row);
/* The next row's point. */
static inline void cg_poisson_step(const cg_grid *g, cg_point *p) {
    p->row++;
    if (++p->i < g->nx) return;
    p->i = 0;
    if (++p->j < g->ny) return;
    p->j = 0;
    p->k++;
}
/* Entries of one row, columns ascending; returns their count (<= CG_POISSON_MAX_ROW). */
int cg_poisson_row(const cg_grid *g, int64_t row, int32_t *cols, double *vals);
int cg_poisson_row_nnz(const cg_grid *g, int64_t row);
int cg_poisson_row27(const cg_grid *g, const cg_point *p, double off, double diag, int64_t *cols,
                     double *vals);

/* The same at a point, with the given off-diagonal and diagonal values.
 * Inline: the builders call it for every row. */
static inline int cg_poisson_row_at(const cg_grid *g, const cg_point *p, double off, double diag,
                                    int64_t *cols, double *vals) {
    if (g->stencil == CG_POISSON_3D27) return cg_poisson_row27(g, p, off, diag, cols, vals);
    /* 2-D is the 3-D 7-point pattern with nz = 1: its z neighbours never exist. */
    int64_t row = p->row, sy = g->nx, sz = g->nx * g->ny;
    int n = 0;
    if (p->k > 0) cols[n] = row - sz, vals[n++] = off;
    if (p->j > 0) cols[n] = row - sy, vals[n++] = off;
    if (p->i > 0) cols[n] = row - 1, vals[n++] = off;
    cols[n] = row, vals[n++] = diag;
    if (p->i < g->nx - 1) cols[n] = row + 1, vals[n++] = off;
    if (p->j < g->ny - 1) cols[n] = row + sy, vals[n++] = off;
    if (p->k < g->nz - 1) cols[n] = row + sz, vals[n++] = off;
    return n;
}

/* Neighbours along one axis, the point itself included: 1, 2 or 3. */
static inline int cg_poisson_span(int64_t i, int64_t n) {
    return 1 + (i > 0) + (i < n - 1);
}

static inline int cg_poisson_nnz_at(const cg_grid *g, const cg_point *p) {
    int a = cg_poisson_span(p->i, g->nx), b = cg_poisson_span(p->j, g->ny),
        c = cg_poisson_span(p->k, g->nz);
    if (g->stencil == CG_POISSON_3D27) return a * b * c;
    if (g->stencil == CG_POISSON_2D5) return a + b - 1;
    return a + b + c - 2;
}

/* Contiguous row blocks balanced by nonzeros with mu_block_by_weight's rule
 * (cut where the prefix first reaches part * total / parts), streamed over the
 * rows so no n-sized prefix array is needed. bounds has parts + 1 entries. */
void cg_poisson_bounds(const cg_grid *g, int parts, int64_t *bounds);
const char *cg_stencil_name(cg_stencil s);

#endif
