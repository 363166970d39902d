/* Two fields of one line walked by one thread (gpu/advect_walk.h's walks,
 * not wrapping): the fields' chains are independent, and the line's classes,
 * stretches, Courant numbers, rho*, d0 and d1 are the same for both, so one
 * thread loads the line's arrays once for two fields and keeps two chains in
 * flight: half the threads of a sweep, each with twice the independent work
 * (a wave of fewer threads still fills the card). The second field is the
 * first's view (adv_line) shifted by o entries in q, qn and F (the device keeps
 * a cell's fields side by side: o = 1; o = 0 walks one field twice, the same
 * values stored twice). Each field's cells do gpu/advect_walcek.h's arithmetic
 * in the same order as in the one-field walks, so the same bits
 * (tests/test_advect_walk.c checks them against those). */
#ifndef MU_GPU_ADVECT_WALK2_H
#define MU_GPU_ADVECT_WALK2_H
#include "gpu/advect_walk.h"

/* A two-field ring (adv_ring's window and flags per field; the line's
 * registers and pointers once). */
typedef struct {
    float Q0[6], Q1[6];
    int E0[3], E1[3];
    adv_ring_line ln;
} adv_ring2;

MU_HD void adv_ring2_start(adv_ring2 *r, const adv_line *l, ptrdiff_t o, const float *cn,
                           const adv_win *w0, const adv_win *w1, int i, int d, int more) {
    adv_ring a, b;
    adv_line l1 = *l;
    l1.q += o;
    adv_ring_start(&a, l, cn, w0, i, d, more);
    adv_ring_start(&b, &l1, cn, w1, i, d, more);
    for (int j = 0; j < 6; j++) {
        r->Q0[j] = a.Q[j];
        r->Q1[j] = b.Q[j];
    }
    for (int j = 0; j < 3; j++) {
        r->E0[j] = a.E[j];
        r->E1[j] = b.E[j];
    }
    r->ln = a.ln; /* b's is the same, but for its qp o further on */
}

/* Cell k = i + K of a forward two-field ring: ADV_RING_FWD_CELL for each field. */
#define ADV_RING2_FWD_CELL(K)                                                                      \
    do {                                                                                           \
        const int k = i + (K);                                                                     \
        if (k + 1 < e) ADV_RING_LOAD(r.ln, ((K) + 1) % 2, (K) + 2, (K) + 1);                       \
        if (k + 2 < e) {                                                                           \
            r.Q0[((K) + 5) % 6] = r.ln.qp[0];                                                      \
            r.Q1[((K) + 5) % 6] = r.ln.qp[o];                                                      \
        }                                                                                          \
        if (pf) ADV_PF(r.ln.qp + (ADV_PREFETCH - 3) * l->qs);                                      \
        r.ln.qp += l->qs;                                                                          \
        r.E0[((K) + 2) % 3] = k + 1 != eb && adv_ext_v(r.Q0[((K) + 1) % 6], r.Q0[((K) + 2) % 6],   \
                                                       r.Q0[((K) + 3) % 6]);                       \
        r.E1[((K) + 2) % 3] = k + 1 != eb && adv_ext_v(r.Q1[((K) + 1) % 6], r.Q1[((K) + 2) % 6],   \
                                                       r.Q1[((K) + 3) % 6]);                       \
        float qv0, qv1;                                                                            \
        f0 = adv_fwd_d_v(r.Q0[((K) + 1) % 6], r.Q0[(K) % 6], r.Q0[((K) + 2) % 6], r.E0[(K) % 3],   \
                         r.E0[((K) + 2) % 3], 0.f, 0.f, r.ln.X[(K) % 2], r.ln.R[(K) % 2],          \
                         r.ln.A[(K) % 2], r.ln.B[(K) % 2], l->dx, l->rdx, f0, &qv0);               \
        f1 = adv_fwd_d_v(r.Q1[((K) + 1) % 6], r.Q1[(K) % 6], r.Q1[((K) + 2) % 6], r.E1[(K) % 3],   \
                         r.E1[((K) + 2) % 3], 0.f, 0.f, r.ln.X[(K) % 2], r.ln.R[(K) % 2],          \
                         r.ln.A[(K) % 2], r.ln.B[(K) % 2], l->dx, l->rdx, f1, &qv1);               \
        r.ln.qn[0] = qv0;                                                                          \
        r.ln.qn[o] = qv1;                                                                          \
        r.ln.qn += l->qs;                                                                          \
        if (keep) {                                                                                \
            l->F[(k + 1) * l->fs] = f0;                                                            \
            l->F[(k + 1) * l->fs + o] = f1;                                                        \
        }                                                                                          \
        if (k + 1 >= e) {                                                                          \
            Fe[0] = f0;                                                                            \
            Fe[o] = f1;                                                                            \
            return;                                                                                \
        }                                                                                          \
    } while (0)

/* adv_fwd_d_ring for two fields: the D stretch [i, e), the windows at i, the
 * fluxes F[i] f0, f1. */
MU_HD void adv_fwd_d_ring2(const adv_line *l, ptrdiff_t o, const float *cn, const adv_win *w0,
                           const adv_win *w1, int i, int e, float f0, float f1, int keep) {
    const int eb = l->eb1;
    float *Fe = l->F + e * l->fs;
    adv_ring2 r;
    adv_ring2_start(&r, l, o, cn, w0, w1, i, 1, i + 1 < e);
    ADV_RING_FWD_LOOP(ADV_RING2_FWD_CELL);
}

/* Cell k = i - K of a backward two-field ring: ADV_RING_BWD_CELL for each field. */
#define ADV_RING2_BWD_CELL(K)                                                                      \
    do {                                                                                           \
        const int k = i - (K);                                                                     \
        if (k - 1 >= lo) ADV_RING_LOAD(r.ln, ((K) + 1) % 2, -(K)-1, -(K)-1);                       \
        if (k - 2 >= lo) {                                                                         \
            r.Q0[((K) + 5) % 6] = r.ln.qp[0];                                                      \
            r.Q1[((K) + 5) % 6] = r.ln.qp[o];                                                      \
        }                                                                                          \
        if (pf) ADV_PF(r.ln.qp - (ADV_PREFETCH - 3) * l->qs);                                      \
        r.ln.qp -= l->qs;                                                                          \
        r.E0[((K) + 2) % 3] = k - 1 != eb && adv_ext_v(r.Q0[((K) + 3) % 6], r.Q0[((K) + 2) % 6],   \
                                                       r.Q0[((K) + 1) % 6]);                       \
        r.E1[((K) + 2) % 3] = k - 1 != eb && adv_ext_v(r.Q1[((K) + 3) % 6], r.Q1[((K) + 2) % 6],   \
                                                       r.Q1[((K) + 1) % 6]);                       \
        float qv0, qv1;                                                                            \
        f0 = adv_bwd_e_v(r.Q0[((K) + 1) % 6], r.Q0[((K) + 2) % 6], r.Q0[(K) % 6],                  \
                         r.E0[((K) + 2) % 3], r.E0[(K) % 3], -1.f, -1.f, r.ln.X[(K) % 2],          \
                         r.ln.R[(K) % 2], r.ln.A[(K) % 2], r.ln.B[(K) % 2], l->dx, l->rdx, f0,     \
                         &qv0);                                                                    \
        f1 = adv_bwd_e_v(r.Q1[((K) + 1) % 6], r.Q1[((K) + 2) % 6], r.Q1[(K) % 6],                  \
                         r.E1[((K) + 2) % 3], r.E1[(K) % 3], -1.f, -1.f, r.ln.X[(K) % 2],          \
                         r.ln.R[(K) % 2], r.ln.A[(K) % 2], r.ln.B[(K) % 2], l->dx, l->rdx, f1,     \
                         &qv1);                                                                    \
        r.ln.qn[0] = qv0;                                                                          \
        r.ln.qn[o] = qv1;                                                                          \
        r.ln.qn -= l->qs;                                                                          \
        if (keep) {                                                                                \
            l->F[k * l->fs] = f0;                                                                  \
            l->F[k * l->fs + o] = f1;                                                              \
        }                                                                                          \
        if (k <= lo) {                                                                             \
            Fl[0] = f0;                                                                            \
            Fl[o] = f1;                                                                            \
            ADV_RING_LEAVE(w0, r.Q0, r.E0, K);                                                     \
            ADV_RING_LEAVE(w1, r.Q1, r.E1, K);                                                     \
            *f0p = f0;                                                                             \
            *f1p = f1;                                                                             \
            return;                                                                                \
        }                                                                                          \
    } while (0)

/* adv_bwd_e_ring for two fields: the E stretch [lo, i] from i down, the
 * fluxes F[i + 1] in *f0p, *f1p, which become F[lo]; the windows left at lo. */
MU_HD void adv_bwd_e_ring2(const adv_line *l, ptrdiff_t o, const float *cn, adv_win *w0,
                           adv_win *w1, int i, int lo, float *f0p, float *f1p, int keep) {
    const int eb = l->eb0;
    float *Fl = l->F + lo * l->fs;
    float f0 = *f0p, f1 = *f1p;
    adv_ring2 r;
    adv_ring2_start(&r, l, o, cn, w0, w1, i, -1, i - 1 >= lo);
    ADV_RING_BWD_LOOP(ADV_RING2_BWD_CELL);
}
#undef ADV_RING2_FWD_CELL
#undef ADV_RING2_BWD_CELL
#undef ADV_RING_PF
#undef ADV_RING_LOAD
#undef ADV_RING_SIX
#undef ADV_RING_LEAVE
#undef ADV_RING_STEP

/* The view of the second field. */
MU_HD adv_line adv_line_shift(const adv_line *l, ptrdiff_t o) {
    adv_line s = *l;
    s.q += o;
    s.qn += o;
    s.F += o;
    return s;
}

/* adv_forward_walk for two fields (not wrapping): the runs, their C cells and
 * windows field by field, their D stretches by adv_fwd_d_ring2. */
MU_HD void adv_forward_walk2(const adv_line *l, ptrdiff_t o, const uint8_t *cls, const float *cn,
                             int i0, int i1, int keep) {
    const adv_line l1 = adv_line_shift(l, o);
    const adv_line *v[2] = {l, &l1};
    const int fs = (int)l->fs;
    for (int i = adv_scan_up(cls, i0, i1, ADV_SCAN_FWD); i < i1;
         i = adv_scan_up(cls, i, i1, ADV_SCAN_FWD)) {
        adv_win w[2];
        float f[2];
        const int c = cls[i];
        for (int j = 0; j < 2; j++) {
            const adv_line *lj = v[j];
            w[j] = adv_win_at(lj, i, 0);
            if (c == ADV_C) { /* outflow only: the upstream flux */
                f[j] = lj->F[(i + 1) * fs] = w[j].c * lj->u[i + 1] * lj->dt * lj->rs[i + 1];
                if (i + 1 >= i1 || cls[i + 1] != ADV_D) continue;
                w[j].m1 = w[j].c; /* the window at the D cell after it */
                w[j].c = w[j].p1;
                w[j].p1 = w[j].p2;
                w[j].p2 = *adv_qat(lj, i + 3, 0); /* (the D cell is i + 1) */
                w[j].em1 = w[j].e0;
                w[j].e0 = w[j].ep1;
                w[j].ep1 = adv_extw(lj, i + 2, w[j].c, w[j].p1, w[j].p2);
            } else {
                f[j] = lj->F[i * fs]; /* F[i]: read where the run starts */
            }
        }
        if (c == ADV_C && (++i >= i1 || cls[i] != ADV_D)) continue;
        int e = adv_scan_up(cls, i, i1, ADV_SCAN_NOT_D);
        adv_fwd_d_ring2(l, o, cn, &w[0], &w[1], i, e, f[0], f[1], keep);
        i = e;
    }
}

/* One backward cell that is not in an E stretch (C, F or K), field by field
 * as adv_backward_walk; f: F[i + 1], becomes F[i]. */
MU_HD void adv_bwd_cell2(const adv_line *const *v, const uint8_t *cls, const float *cn, adv_win *w,
                         float *f, int i, int i0, int keep) {
    const int c = cls[i], fs = (int)v[0]->fs;
    for (int j = 0; j < 2; j++) {
        const adv_line *l = v[j];
        float *qn = l->qn + (ptrdiff_t)i * l->qs;
        if (c == ADV_F || c == ADV_K) {
            float fl = l->F[i * fs]; /* stored by no cell: the next cell's F[i + 1] */
            *qn = adv_bwd_f_v(w[j].c, w[j].m1, w[j].p1, l->u[i], l->u[i + 1], l->d0[i], l->d1[i],
                              l->rdx, f[j], fl);
            f[j] = fl;
        } else { /* C */
            float qv;
            f[j] = adv_bwd_e_v(w[j].c, w[j].m1, w[j].p1, w[j].em1, w[j].ep1, -1.f, 0.f, cn[i],
                               l->rs[i], l->d0[i], l->d1[i], l->dx, l->rdx, f[j], &qv);
            *qn = qv;
            if (keep || i == i0 || cls[i - 1] != ADV_E) l->F[i * fs] = f[j];
        }
    }
}

/* adv_backward_walk for two fields (not wrapping). */
MU_HD void adv_backward_walk2(const adv_line *l, ptrdiff_t o, const uint8_t *cls, const float *cn,
                              int i0, int i1, int keep) {
    const adv_line l1 = adv_line_shift(l, o);
    const adv_line *v[2] = {l, &l1};
    const int fs = (int)l->fs;
    for (int i = adv_scan_down(cls, i0, i1 - 1, ADV_SCAN_BWD); i >= i0;
         i = adv_scan_down(cls, i0, i, ADV_SCAN_BWD)) {
        adv_win w[2] = {adv_win_at(l, i, 0), adv_win_at(&l1, i, 0)};
        float f[2] = {l->F[(i + 1) * fs], l1.F[(i + 1) * fs]}; /* F[i + 1] */
        for (;;) {
            if (cls[i] == ADV_E) {
                int lo = adv_scan_down(cls, i0, i, ADV_SCAN_NOT_E) + 1;
                adv_bwd_e_ring2(l, o, cn, &w[0], &w[1], i, lo, &f[0], &f[1], keep);
                i = lo;
            } else {
                adv_bwd_cell2(v, cls, cn, w, f, i, i0, keep);
            }
            if (--i < i0 || !adv_bwd_cell(cls[i])) break;
            for (int j = 0; j < 2; j++) { /* the window at cell i */
                w[j].p1 = w[j].c;
                w[j].c = w[j].m1;
                w[j].m1 = w[j].m2;
                w[j].m2 = *adv_qat(v[j], i - 2, 0);
                w[j].ep1 = w[j].e0;
                w[j].e0 = w[j].em1;
                w[j].em1 = adv_extw(v[j], i - 1, w[j].m2, w[j].m1, w[j].c);
            }
        }
    }
}

#endif
