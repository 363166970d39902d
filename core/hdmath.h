/* exp, log and cos(2 pi u) that give the same bits on the host and on the GPU.
 * The C library's and CUDA's versions differ in the last bits, and a k-means
 * assignment or a clamp downstream can turn one ulp into a different answer.
 * These use only IEEE operations that are correctly rounded everywhere (+, *,
 * /, sqrt, floor, exact scaling), in a fixed order, with no fused multiply-add:
 * device code goes through the _rn intrinsics, which nvcc never contracts, and
 * host code is C11 without extensions, where GCC does not contract either.
 * Accuracy: a few ulp (tests/test_core.c checks them against libm). */
#ifndef MU_CORE_HDMATH_H
#define MU_CORE_HDMATH_H
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "core/hd.h"

#ifdef __CUDA_ARCH__
#define MU_ADD(a, b) __dadd_rn((a), (b))
#define MU_MUL(a, b) __dmul_rn((a), (b))
#else
#define MU_ADD(a, b) ((a) + (b))
#define MU_MUL(a, b) ((a) * (b))
#endif

/* ln 2 split so that k * MU_LN2_HI is exact for |k| < 2^20 (fdlibm's split). */
#define MU_LN2_HI 6.93147180369123816490e-01
#define MU_LN2_LO 1.90821492927058770002e-10

/* 2^k for k in [-1022, 1023], built from its bits. */
MU_HD double mu_hd_pow2i(int k) {
    uint64_t b = (uint64_t)(k + 1023) << 52;
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

/* Horner's rule from the highest coefficient c[0]: p = p s + c[i], i = 1..n-1,
 * in that order, each step rounded (the bits depend on it). Called with a
 * constant n, so device code unrolls it and keeps c in registers. */
MU_HD double mu_hd_horner(const double *c, int n, double s) {
    double p = c[0];
    for (int i = 1; i < n; i++) p = MU_ADD(MU_MUL(p, s), c[i]);
    return p;
}

MU_HD double mu_hd_exp(double x) {
    if (x != x) return x;
    if (x > 709.782712893384) return INFINITY;
    if (x < -745.1332191019412) return 0.0;
    double kf = floor(MU_ADD(MU_MUL(x, 1.4426950408889634), 0.5));
    int k = (int)kf;
    /* r = x - k ln2, |r| <= 0.35: Taylor to degree 14 (last term < 4e-18). */
    double r = MU_ADD(MU_ADD(x, -MU_MUL(kf, MU_LN2_HI)), -MU_MUL(kf, MU_LN2_LO));
    /* Coefficients 1/i!, i = 14 down to 0. */
    const double inv_fact[15] = {
        1.1470745597729725e-11, 1.6059043836821613e-10, 2.0876756987868100e-09,
        2.5052108385441720e-08, 2.7557319223985888e-07, 2.7557319223985893e-06,
        2.4801587301587302e-05, 1.9841269841269841e-04, 1.3888888888888889e-03,
        8.3333333333333332e-03, 4.1666666666666664e-02, 1.6666666666666666e-01,
        5.0000000000000000e-01, 1.0000000000000000e+00, 1.0000000000000000e+00};
    double p = mu_hd_horner(inv_fact, 15, r);
    /* Scale by 2^k in two exact steps so that neither overflows nor underflows early. */
    int k1 = k / 2, k2 = k - k1;
    return MU_MUL(MU_MUL(p, mu_hd_pow2i(k1)), mu_hd_pow2i(k2));
}

MU_HD double mu_hd_log(double x) {
    if (x != x || x == INFINITY) return x;
    if (x < 0) return NAN;
    if (x == 0) return -INFINITY;
    int e = 0;
    double m = frexp(x, &e); /* exact: x = m 2^e, m in [0.5, 1) */
    if (m < 0.70710678118654752) {
        m = MU_MUL(m, 2.0);
        e--;
    }
    /* log m = 2 atanh f, f = (m - 1)/(m + 1), |f| <= 0.1716, f^2 <= 0.0295:
     * 2 f (1 + s/3 + s^2/5 + ... + s^11/23), last term < 1e-18. */
    double f = MU_ADD(m, -1.0) / MU_ADD(m, 1.0), s = MU_MUL(f, f);
    double p = 1.0 / 23.0;
    for (int j = 21; j >= 1; j -= 2) p = MU_ADD(MU_MUL(p, s), 1.0 / (double)j);
    double lm = MU_MUL(MU_MUL(2.0, f), p);
    double ef = (double)e;
    return MU_ADD(MU_MUL(ef, MU_LN2_HI), MU_ADD(MU_MUL(ef, MU_LN2_LO), lm));
}

/* cos x and sin x for |x| <= pi/4 by Taylor in s = x^2 (last terms below 1e-17). */
MU_HD double mu_hd_cos_small(double x) {
    /* (-1)^(i+1) / (2i)!, i = 9 down to 1 (cos x = 1 - p s): 1/18!, ..., -1/4!, 1/2!. */
    const double c[9] = {1.5619206968586225e-16,  -4.7794773323873853e-14, 1.1470745597729725e-11,
                         -2.0876756987868100e-09, 2.7557319223985888e-07,  -2.4801587301587302e-05,
                         1.3888888888888889e-03,  -4.1666666666666664e-02, 5.0000000000000000e-01};
    double s = MU_MUL(x, x), p = mu_hd_horner(c, 9, s);
    return MU_ADD(1.0, -MU_MUL(p, s));
}

MU_HD double mu_hd_sin_small(double x) {
    /* (-1)^i / (2i+1)!, i = 9 down to 1 (sin x = x + p s x): -1/19!, ..., 1/5!, -1/3!. */
    const double c[9] = {-8.2206352466243295e-18, 2.8114572543455206e-15,  -7.6471637318198164e-13,
                         1.6059043836821613e-10,  -2.5052108385441720e-08, 2.7557319223985893e-06,
                         -1.9841269841269841e-04, 8.3333333333333332e-03,  -1.6666666666666666e-01};
    double s = MU_MUL(x, x), p = mu_hd_horner(c, 9, s);
    return MU_ADD(x, MU_MUL(MU_MUL(p, s), x));
}

/* cos(2 pi u) for finite u. The reductions to [0, 1/8] subtract numbers of
 * u's own scale and are exact; only 2 pi u' is rounded. */
MU_HD double mu_hd_cos2pi(double u) {
    const double two_pi = 6.283185307179586;
    u = fabs(u);
    u = MU_ADD(u, -floor(u)); /* [0, 1) */
    if (u > 0.5) u = MU_ADD(1.0, -u);
    double sign = 1.0;
    if (u > 0.25) {
        u = MU_ADD(0.5, -u); /* cos(2 pi u) = -cos(2 pi (1/2 - u)) */
        sign = -1.0;
    }
    double v = u <= 0.125 ? mu_hd_cos_small(MU_MUL(two_pi, u))
                          : mu_hd_sin_small(MU_MUL(two_pi, MU_ADD(0.25, -u)));
    return MU_MUL(sign, v);
}

#endif
