/* The chains of gpu/advect_walcek.h (adv_forward_range, adv_backward_range)
 * walked with the cell's neighbours in registers, for the device kernels
 * (gpu/advect_gpu.cu): q_{i-2..i+2}, their extremum flags and the face winds
 * slide by one cell per step, so a cell loads one q instead of a dozen, none
 * is loaded again after the stores to qn and F (which the compiler cannot
 * prove apart from q), and the cells a walk leaves to the other walk load none
 * (each q is read about once per sweep). The cell arithmetic is the header's
 * adv_*_v, the same float operations in the same order, so the results are the
 * same bits (tests/test_advect_walk.c checks them against the ranges on the
 * host). wrap: pass a constant (the kernels are templates on it), so that the
 * common case carries no wrap test. cn: the faces' Courant numbers
 * dt * |u| / dx, indexed as u (the same operations as the cells': a D cell's
 * right wind is >= 0), so that the lanes of one line (its fields) do not each
 * divide for them.
 *
 * keep = 0 leaves out the flux stores that nothing reads: the face between two
 * D cells of a forward walk (the second takes it from the register, and no
 * backward cell, F / K cell or end of a segment touches that face) and between
 * two E cells of a backward walk (likewise), faces inside the walk only: a
 * walk's first and last faces, and every face next to a C, F or K cell, are
 * stored as before. (D is never next to E: their shared face would have both
 * signs.) A cell's class is read before the walk reaches it, so a class that
 * changes between walks (K, adv_seg_lap2) is seen by the walk that follows. */
#ifndef MU_GPU_ADVECT_WALK_H
#define MU_GPU_ADVECT_WALK_H
#include "gpu/advect_walcek.h"

typedef struct {
    float m2, m1, c, p1, p2; /* q_{i-2} .. q_{i+2} */
    int em1, e0, ep1;        /* extremum flags of cells i-1, i, i+1 */
} adv_win;

/* A face's Courant number as the cells compute it (cn above). */
MU_HD float adv_courant(float u, float dt, float dx) {
    return dt * (u < 0 ? -u : u) / dx;
}

/* &q_i, wrapped as adv_q does. */
MU_HD const float *adv_qat(const adv_line *l, int i, int wrap) {
    if (wrap) i = i < 0 ? i + l->m : i >= l->m ? i - l->m : i;
    return l->q + (ptrdiff_t)i * l->qs;
}

/* adv_ext of cell i from its values. */
MU_HD int adv_extw(const adv_line *l, int i, float a, float b, float c) {
    return i == l->eb0 || i == l->eb1 ? 0 : adv_ext_v(a, b, c);
}

MU_HD adv_win adv_win_at(const adv_line *l, int i, int wrap) {
    adv_win v;
    v.m2 = *adv_qat(l, i - 2, wrap);
    v.m1 = *adv_qat(l, i - 1, wrap);
    v.c = *adv_qat(l, i, wrap);
    v.p1 = *adv_qat(l, i + 1, wrap);
    v.p2 = *adv_qat(l, i + 2, wrap);
    v.em1 = adv_extw(l, i - 1, v.m2, v.m1, v.c);
    v.e0 = adv_extw(l, i, v.m1, v.c, v.p1);
    v.ep1 = adv_extw(l, i + 1, v.c, v.p1, v.p2);
    return v;
}

MU_HD int adv_fwd_cell(int c) { /* a forward walk updates it */
    return c == ADV_C || c == ADV_D;
}
MU_HD int adv_bwd_cell(int c) { /* a backward walk updates it */
    return c == ADV_C || c == ADV_E || c == ADV_F || c == ADV_K;
}

/* adv_forward_range: cells [i0, i1), cell i + 1 after cell i. The window is
 * loaded where a run of cells this walk updates starts and slides through the
 * run; the cells between runs (the other walk's) cost no load of q. */
MU_HD void adv_forward_walk(const adv_line *l, const uint8_t *cls, const float *cn, int i0, int i1,
                            int wrap, int keep) {
    if (i0 >= i1) return;
    adv_win v;
    memset(&v, 0, sizeof v); /* loaded where a run starts */
    /* offsets of q_{i+2} (read when the window slides to cell i, unless
     * wrapping) and of qn_i */
    ptrdiff_t o2 = (ptrdiff_t)(i0 + 2) * l->qs, on = (ptrdiff_t)i0 * l->qs;
    float *F = l->F;
    int fs = (int)l->fs;
    float ul = l->u[i0], f = 0.f;         /* the left face's wind; f: F[i] when have */
    int have = 0, c = cls[i0], fresh = 0; /* fresh: v holds cell i's neighbours */
    for (int i = i0;;) {
        int cx = i + 1 < i1 ? (int)cls[i + 1] : (int)ADV_FIXED; /* the next cell's class */
        float ur = l->u[i + 1];
        if (adv_fwd_cell(c) && !fresh) v = adv_win_at(l, i, wrap);
        if (c == ADV_C) {
            f = F[(i + 1) * fs] = v.c * ur * l->dt * l->rs[i + 1];
            have = 1;
        } else if (c == ADV_D) {
            float fin = have ? f : F[i * fs], qv;
            f = adv_fwd_d_v(v.c, v.m1, v.p1, v.em1, v.ep1, ul, ur, cn[i + 1], l->rs[i + 1],
                            l->d0[i], l->d1[i], l->dx, fin, &qv);
            l->qn[on] = qv;
            if (keep || cx != ADV_D) F[(i + 1) * fs] = f;
            have = 1;
        } else {
            have = 0;
        }
        if (++i >= i1) break;
        fresh = adv_fwd_cell(c) && adv_fwd_cell(cx);
        c = cx;
        o2 += l->qs;
        on += l->qs;
        ul = ur;
        if (!fresh) continue;
        float p2 = wrap ? *adv_qat(l, i + 2, wrap) : l->q[o2];
        v.m2 = v.m1;
        v.m1 = v.c;
        v.c = v.p1;
        v.p1 = v.p2;
        v.p2 = p2;
        v.em1 = v.e0;
        v.e0 = v.ep1;
        v.ep1 = adv_extw(l, i + 1, v.c, v.p1, v.p2);
    }
}

/* adv_backward_range: cells [i0, i1) from the last, cell i - 1 after cell i;
 * the window as above. */
MU_HD void adv_backward_walk(const adv_line *l, const uint8_t *cls, const float *cn, int i0, int i1,
                             int wrap, int keep) {
    if (i0 >= i1) return;
    adv_win v;
    memset(&v, 0, sizeof v); /* loaded where a run starts */
    ptrdiff_t o2 = (ptrdiff_t)(i1 - 3) * l->qs,
              on = (ptrdiff_t)(i1 - 1) * l->qs; /* q_{i-2}, qn_i */
    float *F = l->F;
    int fs = (int)l->fs;
    float ur = l->u[i1], f = 0.f; /* the right face's wind; f: F[i + 1] when have */
    int have = 0, c = cls[i1 - 1], fresh = 0;
    for (int i = i1 - 1;;) {
        int cx = i - 1 >= i0 ? (int)cls[i - 1] : (int)ADV_FIXED; /* the next cell's (to the left) */
        float ul = l->u[i];
        if (adv_bwd_cell(c) && !fresh) v = adv_win_at(l, i, wrap);
        if (c == ADV_F || c == ADV_K) {
            float fr = have ? f : F[(i + 1) * fs];
            l->qn[on] =
                adv_bwd_f_v(v.c, v.m1, v.p1, ul, ur, l->d0[i], l->d1[i], l->dx, fr, F[i * fs]);
            have = 0; /* F and K cells store no flux */
        } else if (c == ADV_C || c == ADV_E) {
            float fr = have ? f : F[(i + 1) * fs], qv;
            f = adv_bwd_e_v(v.c, v.m1, v.p1, v.em1, v.ep1, ul, ur, cn[i], l->rs[i], l->d0[i],
                            l->d1[i], l->dx, fr, &qv);
            l->qn[on] = qv;
            if (keep || cx != ADV_E) F[i * fs] = f;
            have = 1;
        } else {
            have = 0;
        }
        if (--i < i0) break;
        fresh = adv_bwd_cell(c) && adv_bwd_cell(cx);
        c = cx;
        o2 -= l->qs;
        on -= l->qs;
        ur = ul;
        if (!fresh) continue;
        float m2 = wrap ? *adv_qat(l, i - 2, wrap) : l->q[o2];
        v.p2 = v.p1;
        v.p1 = v.c;
        v.c = v.m1;
        v.m1 = v.m2;
        v.m2 = m2;
        v.ep1 = v.e0;
        v.e0 = v.em1;
        v.em1 = adv_extw(l, i - 1, v.m2, v.m1, v.c);
    }
}

#endif
