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

/* The first cell of [i, i1) that a forward walk updates (i1 if none) and the
 * last of [i0, i] that a backward walk updates (i0 - 1 if none): the cells
 * left to the other walk are passed over reading only their classes, four
 * at a time (independent loads), not walked one by one. */
MU_HD int adv_next_fwd(const uint8_t *cls, int i, int i1) {
    for (; i + 3 < i1; i += 4) {
        int c0 = cls[i], c1 = cls[i + 1], c2 = cls[i + 2], c3 = cls[i + 3];
        if (adv_fwd_cell(c0)) return i;
        if (adv_fwd_cell(c1)) return i + 1;
        if (adv_fwd_cell(c2)) return i + 2;
        if (adv_fwd_cell(c3)) return i + 3;
    }
    for (; i < i1; i++)
        if (adv_fwd_cell(cls[i])) return i;
    return i1;
}
MU_HD int adv_prev_bwd(const uint8_t *cls, int i0, int i) {
    for (; i - 3 >= i0; i -= 4) {
        int c0 = cls[i], c1 = cls[i - 1], c2 = cls[i - 2], c3 = cls[i - 3];
        if (adv_bwd_cell(c0)) return i;
        if (adv_bwd_cell(c1)) return i - 1;
        if (adv_bwd_cell(c2)) return i - 2;
        if (adv_bwd_cell(c3)) return i - 3;
    }
    for (; i >= i0; i--)
        if (adv_bwd_cell(cls[i])) return i;
    return i0 - 1;
}

/* adv_forward_range: cells [i0, i1), cell i + 1 after cell i. A run of cells
 * this walk updates (C, D) loads the window where it starts and slides it
 * through the run (q_{i+2} and qn_i by pointers stepped by the cell stride);
 * the cells between runs (the other walk's) are passed over by adv_next_fwd.
 * A D cell's winds are both >= 0 (its class), so it is given 0 for them (the
 * same selections in adv_clamp_v) and loads neither. ahead = 1 (a constant,
 * like wrap): the next cell's inputs (class, Courant number, rho*, d0, d1 and
 * the q entering the window) are loaded while this cell's flux chain runs,
 * so its wait for them overlaps this cell's arithmetic. */
MU_HD void adv_forward_walk(const adv_line *l, const uint8_t *cls, const float *cn, int i0, int i1,
                            int wrap, int keep, int ahead) {
    const ptrdiff_t qs = l->qs;
    float *F = l->F;
    const int fs = (int)l->fs;
    const float dx = l->dx;
    for (int i = adv_next_fwd(cls, i0, i1); i < i1; i = adv_next_fwd(cls, i + 1, i1)) {
        /* a run starts at cell i (C or D): F[i] not in a register yet */
        adv_win v = adv_win_at(l, i, wrap);
        const float *q2 = l->q + (ptrdiff_t)(i + 2) * qs; /* q_{i+2} (unless wrapping) */
        float *qn = l->qn + (ptrdiff_t)i * qs;
        int c = cls[i];
        float f = c == ADV_D ? F[i * fs] : 0.f; /* F[i]: read where the run starts (a D cell) */
        /* cell i's inputs, and the next cell's class */
        int cx = i + 1 < i1 ? (int)cls[i + 1] : (int)ADV_FIXED;
        float x1 = cn[i + 1], rs = l->rs[i + 1], d0 = l->d0[i], d1 = l->d1[i];
        for (;;) {
            int cn2 = ADV_FIXED;
            float x1n = 0.f, rsn = 0.f, d0n = 0.f, d1n = 0.f, p2n = 0.f;
            if (ahead && adv_fwd_cell(cx)) { /* cell i + 1 is in the run (i + 1 < i1) */
                cn2 = i + 2 < i1 ? (int)cls[i + 2] : (int)ADV_FIXED;
                x1n = cn[i + 2];
                rsn = l->rs[i + 2];
                d0n = l->d0[i + 1];
                d1n = l->d1[i + 1];
                p2n = wrap ? *adv_qat(l, i + 3, wrap) : q2[qs];
            }
            if (c == ADV_C) {
                f = F[(i + 1) * fs] = v.c * l->u[i + 1] * l->dt * rs;
            } else { /* D */
                float qv;
                f = adv_fwd_d_v(v.c, v.m1, v.p1, v.em1, v.ep1, 0.f, 0.f, x1, rs, d0, d1, dx, f,
                                &qv);
                *qn = qv;
                if (keep || cx != ADV_D) F[(i + 1) * fs] = f;
            }
            ++i;
            if (!adv_fwd_cell(cx)) break; /* the run ends (or the range: cx is ADV_FIXED) */
            c = cx;
            q2 += qs;
            qn += qs;
            float p2;
            if (ahead) {
                cx = cn2;
                x1 = x1n;
                rs = rsn;
                d0 = d0n;
                d1 = d1n;
                p2 = p2n;
            } else {
                cx = i + 1 < i1 ? (int)cls[i + 1] : (int)ADV_FIXED;
                x1 = cn[i + 1];
                rs = l->rs[i + 1];
                d0 = l->d0[i];
                d1 = l->d1[i];
                p2 = wrap ? *adv_qat(l, i + 2, wrap) : *q2;
            }
            v.m2 = v.m1;
            v.m1 = v.c;
            v.c = v.p1;
            v.p1 = v.p2;
            v.p2 = p2;
            v.em1 = v.e0;
            v.e0 = v.ep1;
            v.ep1 = adv_extw(l, i + 1, v.c, v.p1, v.p2);
        }
        if (i >= i1) break;
    }
}

/* adv_backward_range: cells [i0, i1) from the last, cell i - 1 after cell i;
 * runs of C, E, F, K cells as above, the D cells passed over by adv_prev_bwd.
 * A C or E cell's left wind is < 0 and its right one >= 0 (C) or < 0 (E): it
 * is given -1 and 0 or -1 for them (the same selections in adv_bwd_e_v and
 * adv_clamp_v); F and K cells load theirs. ahead as above. */
MU_HD void adv_backward_walk(const adv_line *l, const uint8_t *cls, const float *cn, int i0, int i1,
                             int wrap, int keep, int ahead) {
    const ptrdiff_t qs = l->qs;
    float *F = l->F;
    const int fs = (int)l->fs;
    const float dx = l->dx;
    for (int i = adv_prev_bwd(cls, i0, i1 - 1); i >= i0; i = adv_prev_bwd(cls, i0, i - 1)) {
        adv_win v = adv_win_at(l, i, wrap);
        const float *q2 = l->q + (ptrdiff_t)(i - 2) * qs; /* q_{i-2} (unless wrapping) */
        float *qn = l->qn + (ptrdiff_t)i * qs;
        int c = cls[i];
        float f = F[(i + 1) * fs]; /* F[i + 1], read where the run starts */
        int cx = i - 1 >= i0 ? (int)cls[i - 1] : (int)ADV_FIXED; /* the next cell's (left) */
        float x1 = cn[i], rs = l->rs[i], d0 = l->d0[i], d1 = l->d1[i];
        for (;;) {
            int cn2 = ADV_FIXED;
            float x1n = 0.f, rsn = 0.f, d0n = 0.f, d1n = 0.f, m2n = 0.f;
            if (ahead && adv_bwd_cell(cx)) { /* cell i - 1 is in the run (i - 1 >= i0) */
                cn2 = i - 2 >= i0 ? (int)cls[i - 2] : (int)ADV_FIXED;
                x1n = cn[i - 1];
                rsn = l->rs[i - 1];
                d0n = l->d0[i - 1];
                d1n = l->d1[i - 1];
                m2n = wrap ? *adv_qat(l, i - 3, wrap) : q2[-qs];
            }
            if (c == ADV_F || c == ADV_K) {
                float fl = F[i * fs]; /* stored by no cell: the next cell's F[i + 1] */
                *qn = adv_bwd_f_v(v.c, v.m1, v.p1, l->u[i], l->u[i + 1], d0, d1, dx, f, fl);
                f = fl;
            } else { /* C or E */
                float qv;
                f = adv_bwd_e_v(v.c, v.m1, v.p1, v.em1, v.ep1, -1.f, c == ADV_C ? 0.f : -1.f, x1,
                                rs, d0, d1, dx, f, &qv);
                *qn = qv;
                if (keep || cx != ADV_E) F[i * fs] = f;
            }
            --i;
            if (!adv_bwd_cell(cx)) break;
            c = cx;
            q2 -= qs;
            qn -= qs;
            float m2;
            if (ahead) {
                cx = cn2;
                x1 = x1n;
                rs = rsn;
                d0 = d0n;
                d1 = d1n;
                m2 = m2n;
            } else {
                cx = i - 1 >= i0 ? (int)cls[i - 1] : (int)ADV_FIXED;
                x1 = cn[i];
                rs = l->rs[i];
                d0 = l->d0[i];
                d1 = l->d1[i];
                m2 = wrap ? *adv_qat(l, i - 2, wrap) : *q2;
            }
            v.p2 = v.p1;
            v.p1 = v.c;
            v.c = v.m1;
            v.m1 = v.m2;
            v.m2 = m2;
            v.ep1 = v.e0;
            v.e0 = v.em1;
            v.em1 = adv_extw(l, i - 1, v.m2, v.m1, v.c);
        }
        if (i < i0) break;
    }
}

#endif
