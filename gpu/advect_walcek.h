/* The 1-D update of Walcek (2000), the study's misprints corrected, one cell at a time,
 * and the segment engine of workloads/advect/engine.h, shared by every schedule
 * (lines, dataflow) and the GPU kernels (gpu/advect_gpu.cu) so that they
 * do the same float operations in the same order: the schedules differ only in
 * the order of cells, never in the arithmetic. Build without FMA contraction.
 *
 * A line view: cells i = 0..m-1 of one segment, q readable at i = -2..m+1
 * (halo cells, or wrapped when the whole periodic line is on this rank). Face j
 * is the right face of cell j; u, rs (face density rho*) and F hold face j at
 * [j + 1], j = -1..m-1 (F with stride fs). A velocity of exactly zero counts as positive. */
#ifndef MU_GPU_ADVECT_WALCEK_H
#define MU_GPU_ADVECT_WALCEK_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "gpu/hd.h"

/* Cell classes (the study's Figure 2) by the signs of the left and right face winds. */
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
    float dt, dx, rdx; /* rdx: adv_recip(dx) */
    ptrdiff_t fs; /* stride between faces in F (the device keeps the fields' fluxes side by side) */
} adv_line;

/* Entry k of F: the flux through face k - 1. */
#define ADV_FLUX(l, k) ((l)->F[(ptrdiff_t)(k) * (l)->fs])

/* Floats as int32 keys in a total order (-0 before +0), so that the extremes
 * of the step log are the same bits whatever the order of the cells, the
 * ranks or the device (mins and maxes of keys; NaN is skipped by the callers). */
MU_HD int32_t adv_fkey(float x) {
    int32_t i;
    memcpy(&i, &x, sizeof i);
    return i < 0 ? i ^ 0x7fffffff : i;
}
MU_HD float adv_keyf(int32_t k) {
    float x;
    if (k < 0) k ^= 0x7fffffff;
    memcpy(&x, &k, sizeof x);
    return x;
}

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

/* The cell arithmetic on values (q_i, its neighbours ql = q_{i-1}, qr = q_{i+1},
 * the winds ul, ur of its left and right faces, their extremum flags el, er),
 * so that the device can keep a chain's neighbours in registers as it walks;
 * the adv_line functions below load the values and call these. */

/* The divisions of the balance are multiplications by reciprocals: 1 / dx once
 * a line (adv_line's rdx), 1 / d1 off the flux chain (d1 is known before the
 * inflow flux is). Host and device round each the same (IEEE, no FMA), and the
 * outflow flux follows from the limited new value, so mass is conserved to
 * round-off as with the divisions; one division less a cell, the other off
 * the chain, made the paper case's steps faster. */
MU_HD float adv_recip(float d) {
    return 1.f / d;
}

/* Walcek Eq. 7: b between neighbours a and c is a local extremum. */
MU_HD int adv_ext_v(float a, float b, float c) {
    return b >= ADV_MAX(a, c) || b <= ADV_MIN(a, c);
}

/* The bounds q^min, q^max of the new value (Eq. 7), and v limited to them. */
MU_HD void adv_bounds_v(float qi, float ql, float qr, float ul, float ur, float *qmin,
                        float *qmax) {
    float a = ur < 0 ? qr : qi;
    float b = ul >= 0 ? ql : qi;
    *qmax = ADV_MAX(qi, ADV_MAX(a, b));
    *qmin = ADV_MIN(qi, ADV_MIN(a, b));
}
MU_HD float adv_clamp_v(float qi, float ql, float qr, float ul, float ur, float v) {
    float lo, hi;
    adv_bounds_v(qi, ql, qr, ul, ur, &lo, &hi);
    return ADV_MAX(lo, ADV_MIN(hi, v));
}

/* Face value of cell qi on its downwind face (Eqs. 4a/4b, 10a, 10b), limited
 * between qi and the downwind neighbour qd (qup: the upwind one; eup, edn: their
 * extremum flags; x1: the face's Courant number). */
MU_HD float adv_face_value_v(float qi, float qd, float qup, int eup, int edn, float x1) {
    float xln = (1.f - x1) * (qd - qup) / 4.f;
    float cf = qi + xln;
    if (eup) cf = qi + ADV_MAX(1.5f, 1.2f + .6f * x1) * xln;
    if (edn) cf = qi + (1.75f - .45f * x1) * xln;
    return ADV_MIN(ADV_MAX(cf, ADV_MIN(qi, qd)), ADV_MAX(qi, qd));
}

/* Forward D cell (Eqs. 3 & 8, 9a): the new value to *qn, returns the outflow
 * flux from the balance (x1: the right face's Courant number dt * ur / dx; fin:
 * the inflow flux, rs: the right face's rho*). */
MU_HD float adv_fwd_d_v(float qi, float ql, float qr, int el, int er, float ul, float ur, float x1,
                        float rs, float d0, float d1, float dx, float rdx, float fin, float *qn) {
    float cf1 = adv_face_value_v(qi, qr, ql, el, er, x1), rd1 = adv_recip(d1);
    float v = adv_clamp_v(qi, ql, qr, ul, ur, (qi * d0 - x1 * cf1 * rs + fin * rdx) * rd1);
    *qn = v;
    return dx * (qi * d0 - v * d1) + fin;
}

/* Backward E or C cell (Eqs. 4b, 3 & 8, 9b): the new value to *qn, returns the
 * flux through the left face from the balance (x1: the left face's Courant
 * number dt * |ul| / dx; fr: the right one's flux; rsl: the left face's rho*). */
MU_HD float adv_bwd_e_v(float qi, float ql, float qr, int el, int er, float ul, float ur, float x1,
                        float rsl, float d0, float d1, float dx, float rdx, float fr, float *qn) {
    float cf1 = adv_face_value_v(qi, ql, qr, er, el, x1), rd1 = adv_recip(d1);
    if (ur >= 0) cf1 = qi; /* outflow-only cell */
    float v = adv_clamp_v(qi, ql, qr, ul, ur, (qi * d0 - fr * rdx - x1 * cf1 * rsl) * rd1);
    *qn = v;
    return dx * (v * d1 - qi * d0) + fr;
}

/* Backward F or K cell (inflow-only: both fluxes known): the new value. */
MU_HD float adv_bwd_f_v(float qi, float ql, float qr, float ul, float ur, float d0, float d1,
                        float rdx, float fr, float fl) {
    return adv_clamp_v(qi, ql, qr, ul, ur, (qi * d0 - fr * rdx + fl * rdx) * adv_recip(d1));
}

/* Walcek Eq. 7: cell i is a local extremum. */
MU_HD int adv_ext(const adv_line *l, int i) {
    if (i == l->eb0 || i == l->eb1) return 0;
    return adv_ext_v(adv_q(l, i - 1), adv_q(l, i), adv_q(l, i + 1));
}

MU_HD void adv_bounds(const adv_line *l, int i, float *qmin, float *qmax) {
    adv_bounds_v(adv_q(l, i), adv_q(l, i - 1), adv_q(l, i + 1), adv_u(l, i - 1), adv_u(l, i), qmin,
                 qmax);
}
MU_HD float adv_clamp(const adv_line *l, int i, float v) {
    return adv_clamp_v(adv_q(l, i), adv_q(l, i - 1), adv_q(l, i + 1), adv_u(l, i - 1), adv_u(l, i),
                       v);
}

/* Face value of cell i on its downwind face. dir = +1: face i, wind >= 0 (x1 =
 * its Courant number); dir = -1: face i-1, wind < 0. */
MU_HD float adv_face_value(const adv_line *l, int i, int dir, float x1) {
    return adv_face_value_v(adv_q(l, i), adv_q(l, i + dir), adv_q(l, i - dir), adv_ext(l, i - dir),
                            adv_ext(l, i + dir), x1);
}

/* Forward loop, cell i with right wind >= 0: C (outflow-only: upstream flux)
 * or D. fin: the flux through the left face (D cells); returns the one through
 * the right face, also stored, so a chain can carry it in a register. */
MU_HD float adv_forward_f(const adv_line *l, int i, int cls, float fin) {
    float qi = adv_q(l, i), ui = adv_u(l, i);
    if (cls == ADV_C) return ADV_FLUX(l, i + 1) = qi * ui * l->dt * adv_rs(l, i);
    float x1 = l->dt * ui / l->dx;
    float qn, f = adv_fwd_d_v(qi, adv_q(l, i - 1), adv_q(l, i + 1), adv_ext(l, i - 1),
                              adv_ext(l, i + 1), adv_u(l, i - 1), ui, x1, adv_rs(l, i), l->d0[i],
                              l->d1[i], l->dx, l->rdx, fin, &qn);
    l->qn[(ptrdiff_t)i * l->qs] = qn;
    return ADV_FLUX(l, i + 1) = f;
}
MU_HD void adv_forward(const adv_line *l, int i, int cls) {
    adv_forward_f(l, i, cls, cls == ADV_C ? 0.f : ADV_FLUX(l, i));
}

/* Backward loop: E or C, or F / K. fr: the flux through the right face;
 * returns the one through the left face (stored unless the cell is F or K,
 * which read it). */
MU_HD float adv_backward_f(const adv_line *l, int i, int cls, float fr) {
    float qi = adv_q(l, i), ql = adv_q(l, i - 1), qr = adv_q(l, i + 1);
    float ul = adv_u(l, i - 1), ur = adv_u(l, i), d0 = l->d0[i], d1 = l->d1[i];
    if (cls == ADV_F || cls == ADV_K) {
        float fl = ADV_FLUX(l, i);
        l->qn[(ptrdiff_t)i * l->qs] = adv_bwd_f_v(qi, ql, qr, ul, ur, d0, d1, l->rdx, fr, fl);
        return fl;
    }
    float x1 = l->dt * (ul < 0 ? -ul : ul) / l->dx;
    float qn, f = adv_bwd_e_v(qi, ql, qr, adv_ext(l, i - 1), adv_ext(l, i + 1), ul, ur, x1,
                              adv_rs(l, i - 1), d0, d1, l->dx, l->rdx, fr, &qn);
    l->qn[(ptrdiff_t)i * l->qs] = qn;
    return ADV_FLUX(l, i) = f;
}
MU_HD void adv_backward(const adv_line *l, int i, int cls) {
    adv_backward_f(l, i, cls, ADV_FLUX(l, i + 1));
}

/* Inflow flux from a fixed open-border cell: upstream (first order). border is
 * the border cell, j the face between it and the first updated cell. */
MU_HD void adv_border_flux(const adv_line *l, int border, int j) {
    ADV_FLUX(l, j + 1) = adv_q(l, border) * adv_u(l, j) * l->dt * adv_rs(l, j);
}

/* The flux that closes a chain going once around a periodic line with no sign
 * change: the unlimited-balance flux of the upwind cell's face value, local to
 * that cell. dir = +1: face i from cell i (wind >= 0); -1: face i-1 from cell i. */
MU_HD void adv_seed_flux(const adv_line *l, int i, int dir) {
    int j = dir > 0 ? i : i - 1;
    float uj = adv_u(l, j);
    float x1 = l->dt * (uj < 0 ? -uj : uj) / l->dx;
    float cf1 = adv_face_value(l, i, dir, x1);
    ADV_FLUX(l, j + 1) = cf1 * uj * l->dt * adv_rs(l, j);
}

MU_HD int adv_class(float ul, float ur) {
    return ul >= 0 ? (ur >= 0 ? ADV_D : ADV_F) : (ur >= 0 ? ADV_C : ADV_E);
}

/* ---- the segment engine (declared and described in workloads/advect/engine.h) ---- */

enum { ADV_SRC_NONE = 0, ADV_SRC_BORDER = 1, ADV_SRC_SEED = 2 };

typedef struct {
    int32_t a, b;          /* updated cells [a, b); faces L = a-1 and R = b-1 are the ends */
    int32_t h, t;          /* head [a, h) waits for F[L]; tail [t, b) waits for F[R] */
    int8_t src_l, src_r;   /* F[L], F[R] computed here at the start (ADV_SRC_*) */
    int8_t need_l, need_r; /* F[L], F[R] come from the neighbouring rank */
    int8_t head_done, tail_done;
    int8_t out_r, out_l; /* F[R] (wind >= 0) / F[L] (wind < 0) known, for the neighbour */
} adv_seg;

typedef struct {
    int32_t g, root, lo, hi; /* geometric line; a stream [lo, hi) rooted at cell root */
} adv_task;

/* adv_seg_init in parts, so that the device can classify a line's cells in
 * parallel: the ends and sources (returns 0 for a line with nothing to update,
 * then complete), and h, t from the first cell of [a, b) that is not D (nd, b if
 * none) and the last that is not E (ne, a - 1 if none; cne its class). */
MU_HD int adv_seg_ends(adv_seg *s, const float *u, int m, int border_lo, int border_hi, int cycle,
                       int first, int last) {
    s->a = s->b = s->h = s->t = 0;
    s->src_l = s->src_r = s->need_l = s->need_r = 0;
    s->head_done = s->tail_done = s->out_r = s->out_l = 0;
    int a = border_lo ? 1 : 0, b = border_hi ? m - 1 : m;
    s->a = a;
    s->b = b;
    if (a >= b) { /* nothing to update (a line of fixed cells) */
        s->h = s->t = a;
        s->head_done = s->tail_done = 1;
        return 0;
    }
    float ul = u[a], ur = u[b]; /* faces L = a-1 and R = b-1 */
    /* Lap 1 of a chain around the line starts from a seed on the upwind face
     * of the line's last (first) cell; see adv_seg_lap2. */
    if (cycle > 0 && last) s->src_r = ADV_SRC_SEED;
    if (cycle < 0 && first) s->src_l = ADV_SRC_SEED;
    if (border_lo && ul >= 0) s->src_l = ADV_SRC_BORDER;
    if (border_hi && ur < 0) s->src_r = ADV_SRC_BORDER;
    s->need_l = !s->src_l && !border_lo && ul >= 0;
    s->need_r = !s->src_r && !border_hi && ur < 0;
    return 1;
}

MU_HD void adv_seg_ht(adv_seg *s, const float *u, int nd, int ne, int cne) {
    s->h = u[s->a] >= 0 ? nd : s->a;
    s->t = s->b;
    if (u[s->b] < 0) s->t = ne >= s->a && (cne == ADV_F || cne == ADV_K) ? ne : ne + 1;
}

MU_HD void adv_seg_init(adv_seg *s, uint8_t *cls, const float *u, int m, int border_lo,
                        int border_hi, int cycle, int first, int last) {
    for (int i = 0; i < m; i++) cls[i] = ADV_FIXED;
    if (!adv_seg_ends(s, u, m, border_lo, border_hi, cycle, first, last)) return;
    int a = s->a, b = s->b;
    for (int i = a; i < b; i++) cls[i] = (uint8_t)adv_class(u[i], u[i + 1]);
    int h = a;
    while (h < b && cls[h] == ADV_D) h++;
    int i = b - 1;
    while (i >= a && cls[i] == ADV_E) i--;
    adv_seg_ht(s, u, h, i, i >= a ? (int)cls[i] : (int)ADV_FIXED);
}

MU_HD void adv_seg_lap2(adv_seg *s, uint8_t *cls, int cycle, int first, int last) {
    if (cycle > 0) {
        if (last) cls[s->b - 1] = ADV_K;
        s->h = last ? s->b - 1 : s->b;
        s->head_done = 0;
        s->out_r = (int8_t)last;
    } else if (cycle < 0) {
        if (first) cls[s->a] = ADV_K;
        s->t = s->a;
        s->tail_done = 0;
        s->out_l = (int8_t)first;
    }
}

/* The end of the local chains of line g's segment seg[g], one rule for the
 * host sweep and the device kernels; wu: the face winds of the m-cell lines,
 * line g's face j at wu[g * (m + 1) + j + 1]. Forward: a head fed from a
 * local source is done; F[R] goes to the right neighbour when the wind there
 * leaves the segment and the chain reaching R is complete (it starts at a
 * local root, its head is done, or it is seeded). */
MU_HD void adv_seg_close_head(adv_seg *seg, const float *wu, int g, int m) {
    adv_seg *s = &seg[g];
    if (s->src_l) s->head_done = 1;
    float ur = wu[(int64_t)g * (m + 1) + s->b];
    s->out_r = ur >= 0 && (s->h < s->b || s->head_done || s->src_r == ADV_SRC_SEED);
}

/* The mirror for the backward chains: the tail, and F[L] for the left neighbour. */
MU_HD void adv_seg_close_tail(adv_seg *seg, const float *wu, int g, int m) {
    adv_seg *s = &seg[g];
    if (s->src_r) s->tail_done = 1;
    float ul = wu[(int64_t)g * (m + 1) + s->a];
    s->out_l = ul < 0 && (s->t > s->a || s->tail_done || s->src_l == ADV_SRC_SEED);
}

MU_HD void adv_seg_sources(const adv_seg *s, const adv_line *l) {
    if (s->src_l == ADV_SRC_BORDER) adv_border_flux(l, s->a - 1, s->a - 1);
    if (s->src_l == ADV_SRC_SEED) adv_seed_flux(l, s->a, -1);
    if (s->src_r == ADV_SRC_BORDER) adv_border_flux(l, s->b, s->b - 1);
    if (s->src_r == ADV_SRC_SEED) adv_seed_flux(l, s->b - 1, 1);
}

/* The chains carry their flux in a register from cell to cell (the same
 * value the cell stored; it is read back only where a chain starts). */
MU_HD void adv_forward_range(const adv_line *l, const uint8_t *cls, int i0, int i1) {
    float f = 0.f;
    int have = 0; /* f is F[i], written by cell i - 1 */
    for (int i = i0; i < i1; i++) {
        int c = cls[i];
        if (c == ADV_C || c == ADV_D) {
            float fin = c == ADV_C ? 0.f : have ? f : ADV_FLUX(l, i);
            f = adv_forward_f(l, i, c, fin);
            have = 1;
        } else {
            have = 0;
        }
    }
}

MU_HD void adv_backward_range(const adv_line *l, const uint8_t *cls, int i0, int i1) {
    float f = 0.f;
    int have = 0; /* f is F[i + 1], written by cell i + 1 */
    for (int i = i1 - 1; i >= i0; i--) {
        int c = cls[i];
        if (c == ADV_C || c == ADV_E || c == ADV_F || c == ADV_K) {
            float fr = have ? f : ADV_FLUX(l, i + 1);
            f = adv_backward_f(l, i, c, fr);
            have = c != ADV_F && c != ADV_K; /* F and K cells store no flux */
        } else {
            have = 0;
        }
    }
}

MU_HD void adv_run_task(const adv_line *l, const uint8_t *cls, const adv_task *k) {
    adv_forward_range(l, cls, k->root, k->hi);
    adv_backward_range(l, cls, k->lo, k->root + 1);
}

#endif
