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
 * changes between walks (K, adv_seg_lap2) is seen by the walk that follows.
 *
 * The walks spend their cells in stretches of one class (D forward, E
 * backward: whole lines of them where the wind keeps its sign), whose ends are
 * found by scanning the classes four at a time; the loop over a stretch then
 * tests no class, stores no flux but the last, and loads each input with one
 * address operation (adv_fwd_d_run, adv_bwd_e_run; unless wrapping, in rings
 * of 6 cells: adv_fwd_d_ring, adv_bwd_e_ring). */
#ifndef MU_GPU_ADVECT_WALK_H
#define MU_GPU_ADVECT_WALK_H
#include <stdlib.h>
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

MU_HD int adv_bwd_cell(int c) { /* a backward walk updates it */
    return c == ADV_C || c == ADV_E || c == ADV_F || c == ADV_K;
}

/* Scans of the classes a word (4 cells) at a time, little-endian: a mode
 * turns 4 class bytes into 4 bytes that are nonzero where a cell is found.
 * NOT_D / NOT_E: a cell not D / not E (where a run of D / E cells ends);
 * FWD: a C or D cell (the bytes 0 and 2, so zero after masking bit 1: the
 * exact zero-byte test, no borrow between bytes); BWD: C, E, F or K (not D
 * 0, not FIXED 4: nonzero after masking bit 2). Only the bytes of the range
 * are read (whole aligned words inside it, the ends byte by byte). */
enum { ADV_SCAN_NOT_D = 0, ADV_SCAN_NOT_E = 1, ADV_SCAN_FWD = 2, ADV_SCAN_BWD = 3 };

MU_HD uint32_t adv_scan_marks(uint32_t w, int mode) {
    if (mode == ADV_SCAN_NOT_D) return w;
    if (mode == ADV_SCAN_NOT_E) return w ^ 0x01010101u;
    if (mode == ADV_SCAN_BWD) return w & 0xfbfbfbfbu;
    uint32_t y = w & 0xfdfdfdfdu;
    return ~(((y & 0x7f7f7f7fu) + 0x7f7f7f7fu) | y | 0x7f7f7f7fu);
}

MU_HD uint32_t adv_cls4(const uint8_t *p) { /* p: 4-byte aligned (the host checks it) */
#ifdef __CUDA_ARCH__
    return *(const uint32_t *)p;
#else
    if ((uintptr_t)p & 3u) abort();
    uint32_t w;
    memcpy(&w, p, sizeof w);
    return w;
#endif
}

MU_HD int adv_low_byte(uint32_t k) { /* the lowest nonzero byte of k != 0 */
#ifdef __CUDA_ARCH__
    return (__ffs((int)k) - 1) >> 3;
#else
    return __builtin_ctz(k) >> 3;
#endif
}
MU_HD int adv_high_byte(uint32_t k) { /* the highest nonzero byte of k != 0 */
#ifdef __CUDA_ARCH__
    return (31 - __clz((int)k)) >> 3;
#else
    return (31 - __builtin_clz(k)) >> 3;
#endif
}

/* The marks of n <= 3 classes from cls + i on as a word (byte j: cell i + j),
 * their loads independent (one wait, not one a byte). */
MU_HD uint32_t adv_scan_bytes(const uint8_t *cls, int i, int n, int mode) {
    uint32_t w = 0;
    if (n > 0) w = cls[i];
    if (n > 1) w |= (uint32_t)cls[i + 1] << 8;
    if (n > 2) w |= (uint32_t)cls[i + 2] << 16;
    return adv_scan_marks(w, mode) & (n >= 3 ? 0xffffffu : n == 2 ? 0xffffu : n ? 0xffu : 0u);
}

/* The first cell of [i, i1) that the mode finds (i1 if none): the bytes up to
 * an aligned word, then 16 and 4 bytes at a time (the 16 bytes' four loads
 * independent), then the last bytes. */
MU_HD int adv_scan_up(const uint8_t *cls, int i, int i1, int mode) {
    if (i >= i1) return i1;
    int n = (int)((0u - (uint32_t)(uintptr_t)(cls + i)) & 3u);
    if (n > i1 - i) n = i1 - i;
    uint32_t k = adv_scan_bytes(cls, i, n, mode);
    if (k) return i + adv_low_byte(k);
    for (i += n; i + 16 <= i1; i += 16) {
        uint32_t k0 = adv_scan_marks(adv_cls4(cls + i), mode);
        uint32_t k1 = adv_scan_marks(adv_cls4(cls + i + 4), mode);
        uint32_t k2 = adv_scan_marks(adv_cls4(cls + i + 8), mode);
        uint32_t k3 = adv_scan_marks(adv_cls4(cls + i + 12), mode);
        if (k0 | k1 | k2 | k3)
            return k0   ? i + adv_low_byte(k0)
                   : k1 ? i + 4 + adv_low_byte(k1)
                   : k2 ? i + 8 + adv_low_byte(k2)
                        : i + 12 + adv_low_byte(k3);
    }
    for (; i + 4 <= i1; i += 4) {
        k = adv_scan_marks(adv_cls4(cls + i), mode);
        if (k) return i + adv_low_byte(k);
    }
    k = adv_scan_bytes(cls, i, i1 - i, mode);
    return k ? i + adv_low_byte(k) : i1;
}
/* The last cell of [i0, i] that the mode finds (i0 - 1 if none), likewise
 * from the top. */
MU_HD int adv_scan_down(const uint8_t *cls, int i0, int i, int mode) {
    if (i < i0) return i0 - 1;
    int n = (int)((uint32_t)(uintptr_t)(cls + i + 1) & 3u);
    if (n > i - i0 + 1) n = i - i0 + 1;
    uint32_t k = adv_scan_bytes(cls, i - n + 1, n, mode);
    if (k) return i - n + 1 + adv_high_byte(k);
    for (i -= n; i - 15 >= i0; i -= 16) {
        uint32_t k3 = adv_scan_marks(adv_cls4(cls + i - 3), mode);
        uint32_t k2 = adv_scan_marks(adv_cls4(cls + i - 7), mode);
        uint32_t k1 = adv_scan_marks(adv_cls4(cls + i - 11), mode);
        uint32_t k0 = adv_scan_marks(adv_cls4(cls + i - 15), mode);
        if (k0 | k1 | k2 | k3)
            return k3   ? i - 3 + adv_high_byte(k3)
                   : k2 ? i - 7 + adv_high_byte(k2)
                   : k1 ? i - 11 + adv_high_byte(k1)
                        : i - 15 + adv_high_byte(k0);
    }
    for (; i - 3 >= i0; i -= 4) {
        k = adv_scan_marks(adv_cls4(cls + i - 3), mode);
        if (k) return i - 3 + adv_high_byte(k);
    }
    k = adv_scan_bytes(cls, i0, i - i0 + 1, mode);
    return k ? i0 + adv_high_byte(k) : i0 - 1;
}

/* A line's read-only arrays in the stretches (the faces' Courant numbers,
 * rho*, d0, d1): the device loads p[k] (k a constant) through the read-only
 * path, p = the line's base + the cell index: one multiply-add per array and
 * cell, k in the load's offset. The base's derivation is hidden from the
 * compiler and the load written as the instruction, so that it keeps that
 * form: it would otherwise re-derive each address from the sweep's base and
 * a 64-bit index (several instructions a load). */
#ifdef __CUDA_ARCH__
#define ADV_LDK(v, p, k) asm("ld.global.nc.f32 %0, [%1+%2];" : "=f"(v) : "l"(p), "n"(4 * (k)))
#else
#define ADV_LDK(v, p, k) ((v) = (p)[k])
#endif
/* The stretches' loops are not unrolled on the device: unrolled, the copies
 * of the window and of the pointers between iterations cost more
 * instructions than the loop's branch. */
#ifdef __CUDA_ARCH__
#define ADV_ONE_AT_A_TIME _Pragma("unroll 1")
#else
#define ADV_ONE_AT_A_TIME
#endif
MU_HD const float *adv_base(const float *p) {
#ifdef __CUDA_ARCH__
    asm("mov.b64 %0, %0;" : "+l"(p));
#endif
    return p;
}

/* In the stretches (adv_fwd_d_run, adv_bwd_e_run, whose locals they use):
 * the line's arrays' entries of cell i + o (o a constant): its Courant number
 * and rho* (its right face's forward, its left face's backward), d0 and d1;
 * and the next cell's with the q entering the window. */
#define ADV_CELL_FWD(x, r, a, b, o)                                                                \
    do {                                                                                           \
        ADV_LDK(x, cnl + i, (o) + 1);                                                              \
        ADV_LDK(r, rsl + i, (o) + 1);                                                              \
        ADV_LDK(a, d0l + i, (o));                                                                  \
        ADV_LDK(b, d1l + i, (o));                                                                  \
    } while (0)
#define ADV_CELL_BWD(x, r, a, b, o)                                                                \
    do {                                                                                           \
        ADV_LDK(x, cnl + i, (o));                                                                  \
        ADV_LDK(r, rsl + i, (o));                                                                  \
        ADV_LDK(a, d0l + i, (o));                                                                  \
        ADV_LDK(b, d1l + i, (o));                                                                  \
    } while (0)
#define ADV_NEXT_FWD()                                                                             \
    do {                                                                                           \
        ADV_CELL_FWD(x1n, rsn, d0n, d1n, 1);                                                       \
        p3 = wrap ? *adv_qat(l, i + 3, wrap) : *q3;                                                \
    } while (0)
#define ADV_NEXT_BWD()                                                                             \
    do {                                                                                           \
        ADV_CELL_BWD(x1n, rsn, d0n, d1n, -1);                                                      \
        m3 = wrap ? *adv_qat(l, i - 3, wrap) : *q3;                                                \
    } while (0)
/* The window one cell on, after the cell (forward; backward mirrored): B, the
 * neighbour behind, leaves, A1 and A2 ahead come nearer, N enters; the flag
 * behind EB leaves, the one ahead EA becomes NEW; the next cell's inputs
 * become the cell's. */
#define ADV_SLIDE(B, A1, A2, N, EB, EA, NEW)                                                       \
    do {                                                                                           \
        B = c;                                                                                     \
        c = A1;                                                                                    \
        A1 = A2;                                                                                   \
        A2 = N;                                                                                    \
        EB = e0;                                                                                   \
        e0 = EA;                                                                                   \
        EA = (NEW);                                                                                \
        x1 = x1n;                                                                                  \
        rs = rsn;                                                                                  \
        d0 = d0n;                                                                                  \
        d1 = d1n;                                                                                  \
    } while (0)

/* L2 prefetches of the inputs ADV_PREFETCH cells ahead in the arithmetic
 * stretches (0: none; not while wrapping): on the paper case, every cell
 * nonzero, 4 measured fastest of 4, 8, 16 and 32. */
#ifndef ADV_PREFETCH
#define ADV_PREFETCH 4
#endif
#ifdef __CUDA_ARCH__
#define ADV_PF(p) asm volatile("prefetch.L2 [%0];" ::"l"(p))
#else
#define ADV_PF(p) ((void)(p))
#endif

/* The arithmetic stretches without wrapping in rings:
 * each q of the window and each cell's inputs stay in one register from their
 * load to their last use, the loop unrolled over ADV_RING = 6 cells (q_j in
 * Q[j mod 6], the extremum flags in E[j mod 3], a cell's inputs in X, R, A,
 * B[j mod 2]), so that no register copy at the loop's end waits for a load
 * (in the one-cell loops of adv_fwd_d_run and adv_bwd_e_run, still used
 * while wrapping, the copies x1 = x1n, ...
 * and of the window waited for the loads of the same cell). q_{k+4} is loaded
 * at cell k and first read at cell k + 2 (the flag of cell k + 3, computed
 * where cell k + 2 needs it), cell k + 1's inputs at cell k. The line's arrays
 * are read through pointers stepped a ring at a time (one address operation
 * per array and ring, the cells' offsets in the loads) and prefetched into L2
 * once per array and ring (6 cells of 4 bytes: every 32-byte sector is
 * touched), q once per cell: the one-cell loop spent 5 prefetches and their
 * addresses on every cell. The same cell arithmetic in the same order (the
 * flags are the same function of the same q), so the same bits. The paper
 * case's chain kernel runs a sixth fewer warp instructions than the one-cell
 * loop, and its step is faster; rings on the Z sweep's short lines too (38
 * cells) measured slower than the one-cell loop there. */
#define ADV_RING 6
#ifdef __CUDA_ARCH__
#define ADV_PFK(p, k) asm volatile("prefetch.L2 [%0+%1];" ::"l"(p), "n"(4 * (k)))
#else
#define ADV_PFK(p, k) ((void)(p))
#endif

/* A ring's registers and pointers of the line, the same for every field that
 * it walks (gpu/advect_walk2.h's two: their q at qp[o], qn[o]). */
typedef struct {
    float X[2], R[2], A[2], B[2];   /* two cells' inputs */
    const float *qp;                /* the next q to load: q_{k+4d} at cell k */
    float *qn;                      /* qn at the cell */
    const float *cb, *rb, *ab, *bb; /* the line's arrays at the ring's first cell */
} adv_ring_line;

/* A ring's registers and pointers (the macros below name them r.*). */
typedef struct {
    float Q[6];       /* the window's q */
    int E[3];         /* extremum flags */
    adv_ring_line ln; /* the line's */
} adv_ring;

/* A ring walking from cell i in direction d (1 forward, -1 backward) with the
 * window w at i: Q[0..3] = q_{i-d}, q_i, q_{i+d}, q_{i+2d}, Q[4] = q_{i+3d}
 * when more (cell i + d is in the stretch: its flag needs it), the flags of
 * cells i - d and i, and cell i's inputs (its downwind face's Courant number
 * and rho*, d0, d1). */
MU_HD void adv_ring_start(adv_ring *r, const adv_line *l, const float *cn, const adv_win *w, int i,
                          int d, int more) {
    const ptrdiff_t qs = l->qs;
    r->ln.qn = l->qn + (ptrdiff_t)i * qs;
    r->ln.qp = l->q + (ptrdiff_t)(i + 4 * d) * qs;
    r->ln.cb = adv_base(cn + i);
    r->ln.rb = adv_base(l->rs + i);
    r->ln.ab = adv_base(l->d0 + i);
    r->ln.bb = adv_base(l->d1 + i);
    r->Q[0] = d > 0 ? w->m1 : w->p1;
    r->Q[1] = w->c;
    r->Q[2] = d > 0 ? w->p1 : w->m1;
    r->Q[3] = d > 0 ? w->p2 : w->m2;
    r->Q[4] = more ? l->q[(ptrdiff_t)(i + 3 * d) * qs] : 0.f;
    r->Q[5] = 0.f;
    r->E[0] = d > 0 ? w->em1 : w->ep1;
    r->E[1] = w->e0;
    r->E[2] = 0;
    if (d > 0) {
        ADV_LDK(r->ln.X[0], r->ln.cb, 1);
        ADV_LDK(r->ln.R[0], r->ln.rb, 1);
    } else {
        ADV_LDK(r->ln.X[0], r->ln.cb, 0);
        ADV_LDK(r->ln.R[0], r->ln.rb, 0);
    }
    ADV_LDK(r->ln.A[0], r->ln.ab, 0);
    ADV_LDK(r->ln.B[0], r->ln.bb, 0);
    r->ln.X[1] = r->ln.R[1] = r->ln.A[1] = r->ln.B[1] = 0.f;
}

/* The ring's L2 prefetches of the line's arrays: the Courant numbers and rho*
 * at offset o1 from the ring's first cell, d0 and d1 at o2 (constants). */
#define ADV_RING_PF(o1, o2)                                                                        \
    do {                                                                                           \
        ADV_PFK(r.ln.cb, o1);                                                                      \
        ADV_PFK(r.ln.rb, o1);                                                                      \
        ADV_PFK(r.ln.ab, o2);                                                                      \
        ADV_PFK(r.ln.bb, o2);                                                                      \
    } while (0)

/* The line's arrays n cells on (the next ring's first cell); ln: a ring's
 * line part (r.ln, of adv_ring or gpu/advect_walk2.h's adv_ring2). */
#define ADV_RING_STEP(ln, n)                                                                       \
    do {                                                                                           \
        (ln).cb = adv_base((ln).cb + (n));                                                         \
        (ln).rb = adv_base((ln).rb + (n));                                                         \
        (ln).ab = adv_base((ln).ab + (n));                                                         \
        (ln).bb = adv_base((ln).bb + (n));                                                         \
    } while (0)

/* The line's arrays of a cell into slot s of a ring's line part ln (offsets
 * c1 from the ring's first cell for the Courant number and rho*, c2 for d0
 * and d1). */
#define ADV_RING_LOAD(ln, s, c1, c2)                                                               \
    do {                                                                                           \
        ADV_LDK((ln).X[s], (ln).cb, c1);                                                           \
        ADV_LDK((ln).R[s], (ln).rb, c1);                                                           \
        ADV_LDK((ln).A[s], (ln).ab, c2);                                                           \
        ADV_LDK((ln).B[s], (ln).bb, c2);                                                           \
    } while (0)

/* The six cells of a ring, CELL(K) each. */
#define ADV_RING_SIX(CELL)                                                                         \
    do {                                                                                           \
        CELL(0);                                                                                   \
        CELL(1);                                                                                   \
        CELL(2);                                                                                   \
        CELL(3);                                                                                   \
        CELL(4);                                                                                   \
        CELL(5);                                                                                   \
    } while (0)

/* A ring's loop, six cells CELL(K) a turn from cell i, forward until the
 * stretch's end e or backward until lo (where CELL returns), its line's
 * arrays prefetched ahead (pf) and stepped a ring at a time (the driver's
 * locals r, l, i, e or lo). */
#define ADV_RING_FWD_LOOP(CELL)                                                                    \
    ADV_ONE_AT_A_TIME                                                                              \
    for (;; i += ADV_RING) {                                                                       \
        const int pf = ADV_PREFETCH && i + ADV_RING + ADV_PREFETCH + 2 < e;                        \
        if (pf) ADV_RING_PF(ADV_RING + ADV_PREFETCH + 2, ADV_RING + ADV_PREFETCH + 1);             \
        ADV_RING_SIX(CELL);                                                                        \
        ADV_RING_STEP(r.ln, ADV_RING);                                                             \
    }
#define ADV_RING_BWD_LOOP(CELL)                                                                    \
    ADV_ONE_AT_A_TIME                                                                              \
    for (;; i -= ADV_RING) {                                                                       \
        const int pf = ADV_PREFETCH && i - ADV_RING - ADV_PREFETCH - 2 > lo;                       \
        if (pf) ADV_RING_PF(-(ADV_RING + ADV_PREFETCH + 1), -(ADV_RING + ADV_PREFETCH + 1));       \
        ADV_RING_SIX(CELL);                                                                        \
        ADV_RING_STEP(r.ln, -ADV_RING);                                                            \
    }

/* The window a backward ring leaves at its last cell (reached at slot K) from
 * a field's Q and E. */
#define ADV_RING_LEAVE(w, Q, E, K)                                                                 \
    do {                                                                                           \
        (w)->m2 = Q[((K) + 3) % 6];                                                                \
        (w)->m1 = Q[((K) + 2) % 6];                                                                \
        (w)->c = Q[((K) + 1) % 6];                                                                 \
        (w)->p1 = Q[(K) % 6];                                                                      \
        (w)->em1 = E[((K) + 2) % 3];                                                               \
        (w)->e0 = E[((K) + 1) % 3];                                                                \
        (w)->ep1 = E[(K) % 3];                                                                     \
    } while (0)

/* Cell k = i + K of a forward ring (i: the ring's first cell; r.ln.cb, r.ln.rb, r.ln.ab, r.ln.bb:
 * the Courant numbers, rho*, d0 and d1 at cell i; pf: prefetch). */
#define ADV_RING_FWD_CELL(K)                                                                       \
    do {                                                                                           \
        const int k = i + (K);                                                                     \
        if (k + 1 < e) ADV_RING_LOAD(r.ln, ((K) + 1) % 2, (K) + 2, (K) + 1);                       \
        if (k + 2 < e) r.Q[((K) + 5) % 6] = *r.ln.qp; /* q_{k+4}, for the flag of cell k + 3 */    \
        if (pf) ADV_PF(r.ln.qp + (ADV_PREFETCH - 3) * l->qs);                                      \
        r.ln.qp += l->qs;                                                                          \
        r.E[((K) + 2) % 3] = k + 1 != eb && adv_ext_v(r.Q[((K) + 1) % 6], r.Q[((K) + 2) % 6],      \
                                                      r.Q[((K) + 3) % 6]); /* cell k + 1 */        \
        float qv;                                                                                  \
        f = adv_fwd_d_v(r.Q[((K) + 1) % 6], r.Q[(K) % 6], r.Q[((K) + 2) % 6], r.E[(K) % 3],        \
                        r.E[((K) + 2) % 3], 0.f, 0.f, r.ln.X[(K) % 2], r.ln.R[(K) % 2],            \
                        r.ln.A[(K) % 2], r.ln.B[(K) % 2], l->dx, l->rdx, f, &qv);                  \
        *r.ln.qn = qv;                                                                             \
        r.ln.qn += l->qs;                                                                          \
        if (keep) l->F[(k + 1) * l->fs] = f;                                                       \
        if (k + 1 >= e) {                                                                          \
            *Fe = f;                                                                               \
            return;                                                                                \
        }                                                                                          \
    } while (0)

/* adv_fwd_d_run's stretch [i, e) without wrapping; q_j is in
 * r.Q[(j - i0 + 1) mod 6] for the first cell i0, so r.Q[0..3] start as q_{i-1..i+2}. */
MU_HD void adv_fwd_d_ring(const adv_line *l, const float *cn, const adv_win *w, int i, int e,
                          float f, int keep) {
    const int eb = l->eb1;
    float *Fe = l->F + e * l->fs;
    adv_ring r;
    adv_ring_start(&r, l, cn, w, i, 1, i + 1 < e);
    ADV_RING_FWD_LOOP(ADV_RING_FWD_CELL);
}

/* Cell k = i - K of a backward ring: the mirror of ADV_RING_FWD_CELL (q_j in
 * r.Q[(i0 + 1 - j) mod 6]); the last cell leaves the window at lo in *w. */
#define ADV_RING_BWD_CELL(K)                                                                       \
    do {                                                                                           \
        const int k = i - (K);                                                                     \
        if (k - 1 >= lo) ADV_RING_LOAD(r.ln, ((K) + 1) % 2, -(K)-1, -(K)-1);                       \
        if (k - 2 >= lo) r.Q[((K) + 5) % 6] = *r.ln.qp; /* q_{k-4}, for the flag of cell k - 3 */  \
        if (pf) ADV_PF(r.ln.qp - (ADV_PREFETCH - 3) * l->qs);                                      \
        r.ln.qp -= l->qs;                                                                          \
        r.E[((K) + 2) % 3] = k - 1 != eb && adv_ext_v(r.Q[((K) + 3) % 6], r.Q[((K) + 2) % 6],      \
                                                      r.Q[((K) + 1) % 6]); /* cell k - 1 */        \
        float qv;                                                                                  \
        f = adv_bwd_e_v(r.Q[((K) + 1) % 6], r.Q[((K) + 2) % 6], r.Q[(K) % 6], r.E[((K) + 2) % 3],  \
                        r.E[(K) % 3], -1.f, -1.f, r.ln.X[(K) % 2], r.ln.R[(K) % 2],                \
                        r.ln.A[(K) % 2], r.ln.B[(K) % 2], l->dx, l->rdx, f, &qv);                  \
        *r.ln.qn = qv;                                                                             \
        r.ln.qn -= l->qs;                                                                          \
        if (keep) l->F[k * l->fs] = f;                                                             \
        if (k <= lo) {                                                                             \
            *Fl = f;                                                                               \
            ADV_RING_LEAVE(w, r.Q, r.E, K);                                                        \
            return f;                                                                              \
        }                                                                                          \
    } while (0)

/* adv_bwd_e_run's stretch [lo, i] without wrapping. */
MU_HD float adv_bwd_e_ring(const adv_line *l, const float *cn, adv_win *w, int i, int lo, float f,
                           int keep) {
    const int eb = l->eb0;
    float *Fl = l->F + lo * l->fs;
    adv_ring r;
    adv_ring_start(&r, l, cn, w, i, -1, i - 1 >= lo);
    ADV_RING_BWD_LOOP(ADV_RING_BWD_CELL);
}
#undef ADV_RING_FWD_CELL
#undef ADV_RING_BWD_CELL

/* The locals of a stretch (adv_fwd_d_run, adv_bwd_e_run) from the line l and
 * cell i: the line's geometry, eb the fixed border cell the loop's flags may
 * meet (EB), q3 the q entering the window (at cell Q3, unless wrapping), qn
 * the new value's, Flast the stretch's last flux (F[LAST]), and the bases of
 * the arrays read by the cell index (cnl: cn's). */
// clang-format off
#define ADV_RUN_LOCALS(EB, Q3, LAST)                                                               \
    const ptrdiff_t qs = l->qs;                                                                    \
    const float dx = l->dx, rdx = l->rdx;                                                          \
    float *F = l->F;                                                                               \
    const int fs = (int)l->fs, eb = (EB);                                                          \
    const float *q3 = l->q + (ptrdiff_t)(Q3) * qs;                                                 \
    float *qn = l->qn + (ptrdiff_t)i * qs, *Flast = F + (LAST) * fs;                               \
    const float *cnl = adv_base(cn), *rsl = adv_base(l->rs), *d0l = adv_base(l->d0),               \
                *d1l = adv_base(l->d1)
// clang-format on

/* A forward stretch of D cells [i, e), the window at i, f = F[i]: the new
 * values, and the fluxes (keep = 0: only F[e], the one the next cell or the
 * end of the walk reads). The stretch's length is known (a scan of the
 * classes), so the loop tests no class; the line's arrays are read by the cell
 * index (ADV_LDK), q and qn through pointers stepped by the cell stride.
 * The next cell's inputs (Courant number, rho*, d0, d1, the q entering the
 * window) are loaded before this cell's flux chain, so that the wait for
 * them overlaps its arithmetic (the last cell loads none); without wrapping
 * the stretch runs in rings (adv_fwd_d_ring). A D cell's
 * winds are both >= 0 (its class): it is given 0 for them (the same selections
 * in adv_clamp_v) and loads neither. The fixed open-border cells are a line's
 * first and last (eb0 is 0 or none, eb1 m - 1 or none): the flags the loop
 * computes are of cells > 1, so only eb1 is tested. */
MU_HD void adv_fwd_d_run(const adv_line *l, const float *cn, const adv_win *w, int i, int e,
                         float f, int wrap, int keep) {
    ADV_RUN_LOCALS(l->eb1, i + 3, e);
    float m1 = w->m1, c = w->c, p1 = w->p1, p2 = w->p2;
    int em1 = w->em1, e0 = w->e0, ep1 = w->ep1;
    float x1, rs, d0, d1, qv;
    ADV_CELL_FWD(x1, rs, d0, d1, 0);
    if (!wrap) {
        adv_fwd_d_ring(l, cn, w, i, e, f, keep);
        return;
    }
    ADV_ONE_AT_A_TIME
    for (;; i++) {
        if (i + 1 >= e) break;
        float x1n = 0.f, rsn = 0.f, d0n = 0.f, d1n = 0.f, p3 = 0.f;
        ADV_NEXT_FWD();
        f = adv_fwd_d_v(c, m1, p1, em1, ep1, 0.f, 0.f, x1, rs, d0, d1, dx, rdx, f, &qv);
        *qn = qv;
        if (keep) F[(i + 1) * fs] = f;
        ADV_SLIDE(m1, p1, p2, p3, em1, ep1, i + 2 != eb && adv_ext_v(c, p1, p2)); /* cell i + 2 */
        q3 += qs;
        qn += qs;
    }
    f = adv_fwd_d_v(c, m1, p1, em1, ep1, 0.f, 0.f, x1, rs, d0, d1, dx, rdx, f, &qv);
    *qn = qv;
    *Flast = f;
}

/* A backward stretch of E cells [lo, i], from i down, the window at i, f =
 * F[i + 1]: as adv_fwd_d_run (keep = 0: only F[lo] stored); returns F[lo] and
 * leaves the window at lo for the cells after it. An E cell's winds are both
 * < 0: it is given -1 for them (the same selections in adv_bwd_e_v and
 * adv_clamp_v). The flags the loop computes are of cells < m - 2: only eb0 is
 * tested. */
MU_HD float adv_bwd_e_run(const adv_line *l, const float *cn, adv_win *w, int i, int lo, float f,
                          int wrap, int keep) {
    ADV_RUN_LOCALS(l->eb0, i - 3, lo);
    float m2 = w->m2, m1 = w->m1, c = w->c, p1 = w->p1;
    int em1 = w->em1, e0 = w->e0, ep1 = w->ep1;
    float x1, rs, d0, d1, qv;
    ADV_CELL_BWD(x1, rs, d0, d1, 0);
    if (!wrap) return adv_bwd_e_ring(l, cn, w, i, lo, f, keep);
    ADV_ONE_AT_A_TIME
    for (;; i--) {
        if (i <= lo) {
            f = adv_bwd_e_v(c, m1, p1, em1, ep1, -1.f, -1.f, x1, rs, d0, d1, dx, rdx, f, &qv);
            *qn = qv;
            *Flast = f;
            break;
        }
        float x1n = 0.f, rsn = 0.f, d0n = 0.f, d1n = 0.f, m3 = 0.f;
        ADV_NEXT_BWD();
        f = adv_bwd_e_v(c, m1, p1, em1, ep1, -1.f, -1.f, x1, rs, d0, d1, dx, rdx, f, &qv);
        *qn = qv;
        if (keep) F[i * fs] = f;
        ADV_SLIDE(p1, m1, m2, m3, ep1, em1, i - 2 != eb && adv_ext_v(m2, m1, c)); /* cell i - 2 */
        q3 -= qs;
        qn -= qs;
    }
    w->m2 = m2;
    w->m1 = m1;
    w->c = c;
    w->p1 = p1;
    w->em1 = em1;
    w->e0 = e0;
    w->ep1 = ep1;
    return f;
}

#undef ADV_CELL_FWD
#undef ADV_CELL_BWD
#undef ADV_NEXT_FWD
#undef ADV_NEXT_BWD
#undef ADV_SLIDE

/* adv_forward_range: cells [i0, i1), cell i + 1 after cell i. A run of the
 * cells this walk updates is a C cell or a D cell and the D cells after it
 * (a D cell's right neighbour is D or F by the winds, a C cell's left one E
 * or F; any order of classes gives the range's results all the same): it
 * loads the window where it starts, the D cells by adv_fwd_d_run; the cells
 * between runs (the other walk's) are passed over by scans of their classes. */
MU_HD void adv_forward_walk(const adv_line *l, const uint8_t *cls, const float *cn, int i0, int i1,
                            int wrap, int keep) {
    float *F = l->F;
    const int fs = (int)l->fs;
    for (int i = adv_scan_up(cls, i0, i1, ADV_SCAN_FWD); i < i1;
         i = adv_scan_up(cls, i, i1, ADV_SCAN_FWD)) {
        adv_win v = adv_win_at(l, i, wrap);
        float f;
        if (cls[i] == ADV_C) { /* outflow only: the upstream flux */
            f = F[(i + 1) * fs] = v.c * l->u[i + 1] * l->dt * l->rs[i + 1];
            if (++i >= i1 || cls[i] != ADV_D) continue;
            v.m1 = v.c; /* the window at the D cell after it */
            v.c = v.p1;
            v.p1 = v.p2;
            v.p2 = *adv_qat(l, i + 2, wrap);
            v.em1 = v.e0;
            v.e0 = v.ep1;
            v.ep1 = adv_extw(l, i + 1, v.c, v.p1, v.p2);
        } else {
            f = F[i * fs]; /* F[i]: read where the run starts */
        }
        int e = adv_scan_up(cls, i, i1, ADV_SCAN_NOT_D);
        adv_fwd_d_run(l, cn, &v, i, e, f, wrap, keep);
        i = e;
    }
}

/* adv_backward_range: cells [i0, i1) from the last, cell i - 1 after cell i;
 * a run of C, E, F, K cells as above, its E cells by adv_bwd_e_run, the D
 * cells between runs passed over by the scans. A C cell's left wind is < 0
 * and its right one >= 0: it is given -1 and 0 for them; F and K cells load
 * theirs. */
MU_HD void adv_backward_walk(const adv_line *l, const uint8_t *cls, const float *cn, int i0, int i1,
                             int wrap, int keep) {
    float *F = l->F;
    const int fs = (int)l->fs;
    const float dx = l->dx, rdx = l->rdx;
    for (int i = adv_scan_down(cls, i0, i1 - 1, ADV_SCAN_BWD); i >= i0;
         i = adv_scan_down(cls, i0, i, ADV_SCAN_BWD)) {
        adv_win v = adv_win_at(l, i, wrap);
        float f = F[(i + 1) * fs]; /* F[i + 1], read where the run starts */
        for (;;) {
            int c = cls[i];
            float *qn = l->qn + (ptrdiff_t)i * l->qs;
            if (c == ADV_E) {
                int lo = adv_scan_down(cls, i0, i, ADV_SCAN_NOT_E) + 1;
                f = adv_bwd_e_run(l, cn, &v, i, lo, f, wrap, keep);
                i = lo;
            } else if (c == ADV_F || c == ADV_K) {
                float fl = F[i * fs]; /* stored by no cell: the next cell's F[i + 1] */
                *qn = adv_bwd_f_v(v.c, v.m1, v.p1, l->u[i], l->u[i + 1], l->d0[i], l->d1[i], rdx, f,
                                  fl);
                f = fl;
            } else { /* C */
                float qv;
                f = adv_bwd_e_v(v.c, v.m1, v.p1, v.em1, v.ep1, -1.f, 0.f, cn[i], l->rs[i], l->d0[i],
                                l->d1[i], dx, rdx, f, &qv);
                *qn = qv;
                if (keep || i == i0 || cls[i - 1] != ADV_E) F[i * fs] = f;
            }
            if (--i < i0 || !adv_bwd_cell(cls[i])) break;
            v.p1 = v.c; /* the window at cell i */
            v.c = v.m1;
            v.m1 = v.m2;
            v.m2 = *adv_qat(l, i - 2, wrap);
            v.ep1 = v.e0;
            v.e0 = v.em1;
            v.em1 = adv_extw(l, i - 1, v.m2, v.m1, v.c);
        }
    }
}

#endif
