/* The block fast path of mu_xsum_add_array (see exactsum.c) for one vector
 * width, included by exactsum.c once per width with
 *   XV, XL   vector types: XW doubles, XW int64
 *   XMAX     lane-wise maximum of two XV (a NaN may or may not survive)
 *   XFN(n)   the instance's name for n
 *   XTARGET  the instance's function attribute (an instruction set), or nothing
 * and undefines them at its end, ready for the next width. Not a public
 * header. Every instance gives the same words: the extraction is exact, so the
 * lane count does not matter. */

/* The largest |x_i| (a NaN may or may not show: the extraction catches it). */
XTARGET static double XFN(max_abs)(const double *x, int k) {
    XL mask;
    for (int l = 0; l < XW; l++) mask[l] = INT64_MAX;
    XV m0 = {0}, m1 = m0;
    int i = 0;
    for (; i + 2 * XW <= k; i += 2 * XW) {
        XV v, w;
        memcpy(&v, x + i, sizeof v);
        memcpy(&w, x + i + XW, sizeof w);
        m0 = XMAX(m0, (XV)((XL)v & mask));
        m1 = XMAX(m1, (XV)((XL)w & mask));
    }
    m0 = XMAX(m0, m1);
    double m = 0;
    for (int l = 0; l < XW; l++) m = m0[l] > m ? m0[l] : m;
    for (; i < k; i++) m = fabs(x[i]) > m ? fabs(x[i]) : m;
    return m;
}

/* The level sums of x[0..n) (n a multiple of 2 XW) on the anchors M[0..levels)
 * into t; returns nonzero when a remainder is left (or a NaN/Inf met). */
XTARGET static inline int XFN(extract)(const double *x, int n, const double *M, int levels,
                                       double *t) {
    XV a[3], b[3], m[3];
    XL left; /* the remainders' bits, ORed */
    for (int l = 0; l < XW; l++) {
        left[l] = 0;
        for (int j = 0; j < 3; j++) {
            a[j][l] = b[j][l] = 0;
            m[j][l] = M[j];
        }
    }
    for (int i = 0; i < n; i += 2 * XW) {
        XV v, w;
        memcpy(&v, x + i, sizeof v);
        memcpy(&w, x + i + XW, sizeof w);
        for (int l = 0; l < levels; l++) {
            XV h = (v + m[l]) - m[l], g = (w + m[l]) - m[l];
            v -= h;
            w -= g;
            a[l] += h;
            b[l] += g;
        }
        left |= (XL)v | (XL)w;
    }
    int64_t any = 0;
    for (int l = 0; l < XW; l++) any |= left[l];
    for (int j = 0; j < levels; j++) {
        XV c = a[j] + b[j]; /* exact, as every partial sum of a level is */
        t[j] = 0;
        for (int l = 0; l < XW; l++) t[j] += c[l];
    }
    return (any & INT64_MAX) != 0; /* a -0 remainder is none */
}

/* s += x[0] + ... + x[k-1] (k <= BLOCK) by the levels; 0 when it cannot. */
XTARGET static int XFN(add_block)(mu_xsum *s, const double *x, int k) {
    double hi = XFN(max_abs)(x, k);
    if (hi == 0) { /* zeros, or NaN among zeros */
        for (int i = 0; i < k; i++)
            if (x[i] != x[i]) return 0;
        return 1;
    }
    int e = ilogb(hi); /* hi < 2^(e+1) */
    /* Inf, or too near the ends of the range for the anchors: no fast path. */
    if (!(hi <= DBL_MAX) || e > 1014 || e < -880) return 0;
    int n = k - k % (2 * XW);
    double M[3] = {ldexp(1.5, e + 8), ldexp(1.5, e + 8 - LEVEL_SHIFT),
                   ldexp(1.5, e + 8 - 2 * LEVEL_SHIFT)};
    double t[3] = {0, 0, 0};
    int levels = 2;
    if (XFN(extract)(x, n, M, 2, t)) {
        levels = 3;
        if (XFN(extract)(x, n, M, 3, t)) return 0;
    }
    for (int l = 0; l < levels; l++) mu_xsum_add(s, t[l]);
    for (int i = n; i < k; i++) mu_xsum_add(s, x[i]);
    return 1;
}

#undef XV
#undef XL
#undef XW
#undef XFN
#undef XTARGET
#undef XMAX
