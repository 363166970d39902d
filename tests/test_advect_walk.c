/* The device's chain walks (gpu/advect_walk.h: neighbours in registers) on the
 * host, bitwise against the engine's adv_forward_range / adv_backward_range on
 * random lines: random wind signs (zeros of both signs too; one sign on some
 * lines, long stretches of D or E cells), classes from adv_seg_init with some
 * cells turned K and at any alignment (the walks scan them four at a time),
 * open-border cells (eb0, eb1), periodic wrap, strides of cells and fluxes, random ranges and
 * random stored fluxes where chains start, Courant numbers from adv_courant as the device's. keep =
 * 1: every flux too; keep = 0 (the kernels'): the same new values, and the fluxes except those of
 * the faces between two D cells (forward) or an E cell and the C or E cell to its right (backward)
 * inside the walk, which stay untouched. Built without FMA contraction, like the engine. */
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mu_test.h"
#include "gpu/advect_walk.h"

static uint64_t rs_state = 88172645463325252ull;
static double rnd(void) {
    return mu_test_uniform(&rs_state);
}

enum { PAD = 2, MMAX = 96 }; /* lines of many rings (ADV_RING) */

/* Not the same bits; any two NaNs are alike (a Courant number from |u| is +0
 * where the range's from u is -0, so an infinite rho* gives NaNs of either
 * sign, as the device's NaNs have their own bits anyway). */
static int differ(float a, float b) {
    return a == a || b == b ? memcmp(&a, &b, sizeof a) != 0 : 0;
}

/* One random line and range; returns 1 if the walk and the range differ. */
static int one_case(int dir, int keep, long *cells) {
    int m = 1 + (int)(rnd() * MMAX), wrap = rnd() < 0.3;
    int qs = 1 + (int)(rnd() * 3), fs = 1 + (int)(rnd() * 3);
    float q[(MMAX + 2 * PAD) * 3], u[MMAX + 1], rs[MMAX + 1], d0[MMAX], d1[MMAX];
    float qn1[(MMAX + 2 * PAD) * 3], qn2[(MMAX + 2 * PAD) * 3], F0[(MMAX + 1) * 3],
        F1[(MMAX + 1) * 3], F2[(MMAX + 1) * 3];
    int nq = (m + 2 * PAD) * qs, nf = (m + 1) * fs;
    int zeros = rnd() < 0.3; /* a stretch of zero background, as around a plume */
    int zlo = rnd() < 0.5, zb = (int)(rnd() * nq); /* before or after zb */
    for (int i = 0; i < nq; i++)
        q[i] = zeros && (zlo ? i < zb : i > zb) ? (rnd() < 0.02   ? -0.f
                                                   : rnd() < 0.02 ? 1e-3f
                                                                  : 0.f)
                                                : (float)(rnd() < 0.1 ? 0.5 : rnd());
    double bias = rnd() - 0.5;
    if (rnd() < 0.2) bias = rnd() < 0.5 ? 2 : -2; /* one sign: long stretches of D or E cells */
    for (int i = 0; i <= m; i++) {
        u[i] = rnd() < 0.05 ? (rnd() < 0.5 ? 0.f : -0.f) : (float)(rnd() - 0.5 + bias);
        rs[i] = (float)(0.5 + rnd());
    }
    for (int i = 0; i < m; i++) {
        d0[i] = (float)(0.5 + rnd());
        d1[i] = (float)(0.5 + rnd());
    }
    if (zeros && rnd() < 0.3) { /* values for which a zero cell is not all zeros */
        static const float odd[] = {0.f, -0.f, -1.f, 1e-40f, 3e38f, INFINITY, -INFINITY, NAN};
        for (int k = 0; k < 3; k++) {
            int i = (int)(rnd() * m), v = (int)(rnd() * 8);
            float *a = k == 0 ? rs : k == 1 ? d0 : d1;
            a[i] = odd[v];
        }
    }
    uint8_t cbuf[MMAX + 3], *cls = cbuf + (int)(rnd() * 4); /* the classes at any alignment */
    adv_seg s;
    adv_seg_init(&s, cls, u, m, rnd() < 0.3, rnd() < 0.3, 0, 1, 1);
    for (int i = 0; i < m; i++)
        if (rnd() < 0.05) cls[i] = ADV_K;
    for (int i = 0; i < nf; i++) F0[i] = zeros && rnd() < 0.5 ? 0.f : (float)(rnd() - 0.5);
    int i0 = (int)(rnd() * (m + 1));
    int i1 = i0 + (int)(rnd() * (m + 1 - i0));
    for (int i = 0; i < nq; i++) qn1[i] = qn2[i] = -7.f;
    memcpy(F1, F0, sizeof(float) * (size_t)nf);
    memcpy(F2, F0, sizeof(float) * (size_t)nf);
    adv_line l = {0};
    l.q = q + PAD * qs;
    l.qs = qs;
    l.m = m;
    l.wrap = wrap;
    l.eb0 = rnd() < 0.3 ? 0 : -9;
    l.eb1 = rnd() < 0.3 ? m - 1 : -9;
    l.u = u;
    l.rs = rs;
    l.d0 = d0;
    l.d1 = d1;
    l.dt = (float)(0.3 + rnd());
    l.dx = (float)(0.5 + rnd());
    if (zeros && rnd() < 0.05) l.dx = rnd() < 0.5 ? -l.dx : INFINITY;
    l.rdx = adv_recip(l.dx);
    l.fs = fs;
    float cn[MMAX + 1]; /* the kernels' faces' Courant numbers (k_winds) */
    for (int j = 0; j <= m; j++) cn[j] = adv_courant(u[j], l.dt, l.dx);
    adv_line a = l, b = l;
    a.qn = qn1 + PAD * qs;
    a.F = F1;
    b.qn = qn2 + PAD * qs;
    b.F = F2;
    if (dir > 0) {
        adv_forward_range(&a, cls, i0, i1);
        adv_forward_walk(&b, cls, cn, i0, i1, wrap, keep);
    } else {
        adv_backward_range(&a, cls, i0, i1);
        adv_backward_walk(&b, cls, cn, i0, i1, wrap, keep);
    }
    *cells += i1 - i0;
    for (int i = 0; i < nq; i++)
        if (differ(qn1[i], qn2[i])) return 1;
    for (int k = 0; k < nf; k++) {
        int face = k / fs, skip = 0; /* entry face: the flux through face - 1 */
        if (!keep && dir > 0)
            skip = face - 1 >= i0 && face < i1 && cls[face - 1] == ADV_D && cls[face] == ADV_D;
        if (!keep && dir < 0)
            skip = face - 1 >= i0 && face < i1 && cls[face - 1] == ADV_E &&
                   (cls[face] == ADV_E || cls[face] == ADV_C);
        if (differ(F2[k], skip ? F0[k] : F1[k])) return 1;
    }
    return 0;
}

static void walks_vs_ranges(void) {
    long cells = 0;
    int bad = 0;
    for (int t = 0; t < 20000; t++)
        for (int keep = 0; keep < 2; keep++)
            bad += one_case(1, keep, &cells) + one_case(-1, keep, &cells);
    CHECK_INT_EQ(bad, 0);
    CHECK_TRUE(cells > 400000); /* the ranges were not all empty */
}

int main(void) {
    MU_RUN(walks_vs_ranges);
    return mu_report("test_advect_walk");
}
