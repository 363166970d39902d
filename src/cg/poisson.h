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

int64_t cg_poisson_rows(const cg_grid *g);
/* Entries of one row, columns ascending; returns their count (<= CG_POISSON_MAX_ROW). */
int cg_poisson_row(const cg_grid *g, int64_t row, int32_t *cols, double *vals);
int cg_poisson_row_nnz(const cg_grid *g, int64_t row);
/* Contiguous row blocks balanced by nonzeros with mu_block_by_weight's rule
 * (cut where the prefix first reaches part * total / parts), streamed over the
 * rows so no n-sized prefix array is needed. bounds has parts + 1 entries. */
void cg_poisson_bounds(const cg_grid *g, int parts, int64_t *bounds);
const char *cg_stencil_name(cg_stencil s);

#endif
