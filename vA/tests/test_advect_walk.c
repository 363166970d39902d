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
#include "gpu/advect_walk2.h"

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

/* A random line and range: its arrays, classes, view and Courant numbers. */
typedef struct {
    float q[(MMAX + 2 * PAD) * 3], u[MMAX + 1], rs[MMAX + 1], d0[MMAX], d1[MMAX];
    float F0[(MMAX + 1) * 3], cn[MMAX + 1];
    uint8_t cbuf[MMAX + 3], *cls;
    int m, wrap, qs, fs, nq, nf, i0, i1, zeros;
    adv_line l;
} walk_case;

static void random_values(walk_case *c) {
    int zlo = rnd() < 0.5, zb = (int)(rnd() * c->nq); /* zeros before or after zb */
    for (int i = 0; i < c->nq; i++)
        c->q[i] = c->zeros && (zlo ? i < zb : i > zb) ? (rnd() < 0.02   ? -0.f
                                                         : rnd() < 0.02 ? 1e-3f
                                                                        : 0.f)
                                                      : (float)(rnd() < 0.1 ? 0.5 : rnd());
    double bias = rnd() - 0.5;
    if (rnd() < 0.2) bias = rnd() < 0.5 ? 2 : -2; /* one sign: long stretches of D or E cells */
    for (int i = 0; i <= c->m; i++) {
        c->u[i] = rnd() < 0.05 ? (rnd() < 0.5 ? 0.f : -0.f) : (float)(rnd() - 0.5 + bias);
        c->rs[i] = (float)(0.5 + rnd());
    }
    for (int i = 0; i < c->m; i++) {
        c->d0[i] = (float)(0.5 + rnd());
        c->d1[i] = (float)(0.5 + rnd());
    }
    if (c->zeros && rnd() < 0.3) { /* values for which a zero cell is not all zeros */
        static const float odd[] = {0.f, -0.f, -1.f, 1e-40f, 3e38f, INFINITY, -INFINITY, NAN};
        for (int k = 0; k < 3; k++) {
            int i = (int)(rnd() * c->m), v = (int)(rnd() * 8);
            float *a = k == 0 ? c->rs : k == 1 ? c->d0 : c->d1;
            a[i] = odd[v];
        }
    }
    for (int i = 0; i < c->nf; i++) c->F0[i] = c->zeros && rnd() < 0.5 ? 0.f : (float)(rnd() - 0.5);
}

/* Strides of at least smin cells (fields side by side), wrapping if may_wrap. */
static void make_case(walk_case *c, int smin, int may_wrap) {
    c->m = 1 + (int)(rnd() * MMAX);
    c->wrap = may_wrap && rnd() < 0.3;
    c->qs = smin + (int)(rnd() * (4 - smin));
    c->fs = smin + (int)(rnd() * (4 - smin));
    c->nq = (c->m + 2 * PAD) * c->qs;
    c->nf = (c->m + 1) * c->fs;
    c->zeros = rnd() < 0.3; /* a stretch of zero background, as around a plume */
    random_values(c);
    c->cls = c->cbuf + (int)(rnd() * 4); /* the classes at any alignment */
    adv_seg s;
    adv_seg_init(&s, c->cls, c->u, c->m, rnd() < 0.3, rnd() < 0.3, 0, 1, 1);
    for (int i = 0; i < c->m; i++)
        if (rnd() < 0.05) c->cls[i] = ADV_K;
    c->i0 = (int)(rnd() * (c->m + 1));
    c->i1 = c->i0 + (int)(rnd() * (c->m + 1 - c->i0));
    adv_line l = {0};
    l.q = c->q + PAD * c->qs;
    l.qs = c->qs;
    l.m = c->m;
    l.wrap = c->wrap;
    l.eb0 = rnd() < 0.3 ? 0 : -9;
    l.eb1 = rnd() < 0.3 ? c->m - 1 : -9;
    l.u = c->u;
    l.rs = c->rs;
    l.d0 = c->d0;
    l.d1 = c->d1;
    l.dt = (float)(0.3 + rnd());
    l.dx = (float)(0.5 + rnd());
    if (c->zeros && rnd() < 0.05) l.dx = rnd() < 0.5 ? -l.dx : INFINITY;
    l.rdx = adv_recip(l.dx);
    l.fs = c->fs;
    c->l = l;
    for (int j = 0; j <= c->m; j++) c->cn[j] = adv_courant(c->u[j], l.dt, l.dx);
}

/* c's view writing into qn and F (copies of F0, qn cleared). */
static adv_line case_view(const walk_case *c, float *qn, float *F) {
    for (int i = 0; i < c->nq; i++) qn[i] = -7.f;
    memcpy(F, c->F0, sizeof(float) * (size_t)c->nf);
    adv_line v = c->l;
    v.qn = qn + PAD * c->qs;
    v.F = F;
    return v;
}

/* One random line and range; returns 1 if the walk and the range differ. */
static int one_case(int dir, int keep, long *cells) {
    walk_case c;
    make_case(&c, 1, 1);
    float qn1[(MMAX + 2 * PAD) * 3], qn2[(MMAX + 2 * PAD) * 3], F1[(MMAX + 1) * 3],
        F2[(MMAX + 1) * 3];
    adv_line a = case_view(&c, qn1, F1), b = case_view(&c, qn2, F2);
    const uint8_t *cls = c.cls;
    int i0 = c.i0, i1 = c.i1;
    if (dir > 0) {
        adv_forward_range(&a, cls, i0, i1);
        adv_forward_walk(&b, cls, c.cn, i0, i1, c.wrap, keep);
    } else {
        adv_backward_range(&a, cls, i0, i1);
        adv_backward_walk(&b, cls, c.cn, i0, i1, c.wrap, keep);
    }
    *cells += i1 - i0;
    for (int i = 0; i < c.nq; i++)
        if (differ(qn1[i], qn2[i])) return 1;
    for (int k = 0; k < c.nf; k++) {
        int face = k / c.fs, skip = 0; /* entry face: the flux through face - 1 */
        if (!keep && dir > 0)
            skip = face - 1 >= i0 && face < i1 && cls[face - 1] == ADV_D && cls[face] == ADV_D;
        if (!keep && dir < 0)
            skip = face - 1 >= i0 && face < i1 && cls[face - 1] == ADV_E &&
                   (cls[face] == ADV_E || cls[face] == ADV_C);
        if (differ(F2[k], skip ? c.F0[k] : F1[k])) return 1;
    }
    return 0;
}

/* The two-field walks (gpu/advect_walk2.h) against the one-field walk of each
 * field (o = 1), or of the one field walked twice (o = 0): every new value
 * and flux the same bits. */
static int one_case2(int dir, int keep, int o) {
    walk_case c;
    make_case(&c, 2, 0);
    float qn1[(MMAX + 2 * PAD) * 3], qn2[(MMAX + 2 * PAD) * 3], F1[(MMAX + 1) * 3],
        F2[(MMAX + 1) * 3];
    adv_line a = case_view(&c, qn1, F1), b = case_view(&c, qn2, F2);
    for (int j = 0; j <= o; j++) {
        adv_line aj = adv_line_shift(&a, j);
        if (dir > 0)
            adv_forward_walk(&aj, c.cls, c.cn, c.i0, c.i1, 0, keep);
        else
            adv_backward_walk(&aj, c.cls, c.cn, c.i0, c.i1, 0, keep);
    }
    if (dir > 0)
        adv_forward_walk2(&b, o, c.cls, c.cn, c.i0, c.i1, keep);
    else
        adv_backward_walk2(&b, o, c.cls, c.cn, c.i0, c.i1, keep);
    for (int i = 0; i < c.nq; i++)
        if (differ(qn1[i], qn2[i])) return 1;
    for (int k = 0; k < c.nf; k++)
        if (differ(F1[k], F2[k])) return 1;
    return 0;
}

static void two_fields(void) {
    int bad = 0;
    for (int t = 0; t < 20000; t++)
        for (int keep = 0; keep < 2; keep++)
            bad += one_case2(1, keep, t & 1) + one_case2(-1, keep, t & 1);
    CHECK_INT_EQ(bad, 0);
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
    MU_RUN(two_fields);
    return mu_report("test_advect_walk");
}
