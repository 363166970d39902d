/* The corrected 1-D Walcek (2000) update of report §1.4, one cell at a time,
 * shared by every schedule (lines, dataflow) and the GPU kernels so that they
 * do the same float operations in the same order: the schedules differ only in
 * the order of cells, never in the arithmetic. Build without FMA contraction.
 *
 * A line view: cells i = 0..m-1 of one segment, q readable at i = -2..m+1
 * (halo cells, or wrapped when the whole periodic line is on this rank). Face j
 * is the right face of cell j; u, rs (face density rho*) and F hold face j at
 * [j + 1], j = -1..m-1. A velocity of exactly zero counts as positive. */
#ifndef MU_ADVECT_WALCEK_H
#define MU_ADVECT_WALCEK_H
#include <stddef.h>
#include <stdint.h>
#include "core/hd.h"

/* Cell classes (report §2, Figure 2) by the signs of the left and right face winds. */
/* ADV_K: the cell that closes a chain going once around a periodic line with
 * one wind sign (engine.h, adv_seg_lap2): updated like an inflow-only cell
 * from two fixed fluxes. */
enum { ADV_D = 0, ADV_E = 1, ADV_C = 2, ADV_F = 3, ADV_FIXED = 4, ADV_K = 5 };

typedef struct {
    const float *q;
    float *qn;
    ptrdiff_t qs; /* stride between cells in q and qn */
    int m, wrap;  /* wrap: indices outside 0..m-1 wrap around (a periodic line on one rank) */
    int eb0, eb1; /* cells whose extremum flag is false (fixed open-border cells), or -9 */
    const float *u, *rs, *d0, *d1;
    float *F;
    float dt, dx;
} adv_line;

#define ADV_MAX(a, b) ((a) > (b) ? (a) : (b))
#define ADV_MIN(a, b) ((a) < (b) ? (a) : (b))

MU_HD float adv_q(const adv_line *l, int i) {
    if (l->wrap) i = i < 0 ? i + l->m : i >= l->m ? i - l->m : i;
    return l->q[(ptrdiff_t)i * l->qs];
}
MU_HD float adv_u(const adv_line *l, int j) {
    return l->u[j + 1];
}
MU_HD float adv_rs(const adv_line *l, int j) {
    return l->rs[j + 1];
}

/* Walcek Eq. 7: cell i is a local extremum. */
MU_HD int adv_ext(const adv_line *l, int i) {
    if (i == l->eb0 || i == l->eb1) return 0;
    float a = adv_q(l, i - 1), b = adv_q(l, i), c = adv_q(l, i + 1);
    return b >= ADV_MAX(a, c) || b <= ADV_MIN(a, c);
}

/* The bounds q^min, q^max of the new value (Eq. 7). */
MU_HD void adv_bounds(const adv_line *l, int i, float *qmin, float *qmax) {
    float qi = adv_q(l, i);
    float a = adv_u(l, i) < 0 ? adv_q(l, i + 1) : qi;
    float b = adv_u(l, i - 1) >= 0 ? adv_q(l, i - 1) : qi;
    *qmax = ADV_MAX(qi, ADV_MAX(a, b));
    *qmin = ADV_MIN(qi, ADV_MIN(a, b));
}

MU_HD float adv_clamp(const adv_line *l, int i, float v) {
    float lo, hi;
    adv_bounds(l, i, &lo, &hi);
    return ADV_MAX(lo, ADV_MIN(hi, v));
}

/* Face value of cell i on its downwind face (Eqs. 4a/4b, 10a, 10b), limited
 * between q_i and the downwind neighbour. dir = +1: face i, wind >= 0 (x1 = its
 * Courant number); dir = -1: face i-1, wind < 0. */
MU_HD float adv_face_value(const adv_line *l, int i, int dir, float x1) {
    float qi = adv_q(l, i), qd = adv_q(l, i + dir), qup = adv_q(l, i - dir);
    float xln = (1.f - x1) * (qd - qup) / 4.f;
    float cf = qi + xln;
    if (adv_ext(l, i - dir)) cf = qi + ADV_MAX(1.5f, 1.2f + .6f * x1) * xln;
    if (adv_ext(l, i + dir)) cf = qi + (1.75f - .45f * x1) * xln;
    return ADV_MIN(ADV_MAX(cf, ADV_MIN(qi, qd)), ADV_MAX(qi, qd));
}

/* Forward loop, cell i with right wind >= 0: C (outflow-only: upstream flux)
 * or D (Eqs. 3 & 8, 9a: the new value, then the outflow flux from the balance). */
MU_HD void adv_forward(const adv_line *l, int i, int cls) {
    float qi = adv_q(l, i), ui = adv_u(l, i);
    if (cls == ADV_C) {
        l->F[i + 1] = qi * ui * l->dt * adv_rs(l, i);
        return;
    }
    float x1 = l->dt * ui / l->dx;
    float cf1 = adv_face_value(l, i, 1, x1);
    float fin = l->F[i];
    float d0 = l->d0[i], d1 = l->d1[i];
    float qn = adv_clamp(l, i, (qi * d0 - x1 * cf1 * adv_rs(l, i) + fin / l->dx) / d1);
    l->qn[(ptrdiff_t)i * l->qs] = qn;
    l->F[i + 1] = l->dx * (qi * d0 - qn * d1) + fin;
}

/* Backward loop: E or C (Eqs. 4b, 3 & 8, 9b: the flux through the left face
 * from the balance), or F (inflow-only: both fluxes known). */
MU_HD void adv_backward(const adv_line *l, int i, int cls) {
    float qi = adv_q(l, i), d0 = l->d0[i], d1 = l->d1[i];
    float fr = l->F[i + 1];
    if (cls == ADV_F || cls == ADV_K) {
        l->qn[(ptrdiff_t)i * l->qs] =
            adv_clamp(l, i, (qi * d0 - fr / l->dx + l->F[i] / l->dx) / d1);
        return;
    }
    float ul = adv_u(l, i - 1);
    float x1 = l->dt * (ul < 0 ? -ul : ul) / l->dx;
    float cf1 = adv_face_value(l, i, -1, x1);
    if (adv_u(l, i) >= 0) cf1 = qi; /* outflow-only cell */
    float qn = adv_clamp(l, i, (qi * d0 - fr / l->dx - x1 * cf1 * adv_rs(l, i - 1)) / d1);
    l->qn[(ptrdiff_t)i * l->qs] = qn;
    l->F[i] = l->dx * (qn * d1 - qi * d0) + fr;
}

/* Inflow flux from a fixed open-border cell: upstream (first order). border is
 * the border cell, j the face between it and the first updated cell. */
MU_HD void adv_border_flux(const adv_line *l, int border, int j) {
    l->F[j + 1] = adv_q(l, border) * adv_u(l, j) * l->dt * adv_rs(l, j);
}

/* The flux that closes a chain going once around a periodic line with no sign
 * change: the unlimited-balance flux of the upwind cell's face value, local to
 * that cell. dir = +1: face i from cell i (wind >= 0); -1: face i-1 from cell i. */
MU_HD void adv_seed_flux(const adv_line *l, int i, int dir) {
    int j = dir > 0 ? i : i - 1;
    float uj = adv_u(l, j);
    float x1 = l->dt * (uj < 0 ? -uj : uj) / l->dx;
    float cf1 = adv_face_value(l, i, dir, x1);
    l->F[j + 1] = cf1 * uj * l->dt * adv_rs(l, j);
}

MU_HD int adv_class(float ul, float ur) {
    return ul >= 0 ? (ur >= 0 ? ADV_D : ADV_F) : (ur >= 0 ? ADV_C : ADV_E);
}

#endif
