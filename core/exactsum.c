#include "core/exactsum.h"
#include "core/error.h"

#include <float.h>
#include <math.h>

/* The fast path of mu_xsum_add_array, for a block of at most 256 values whose
 * largest magnitude is below 2^(E+1). Error-free extraction against anchors
 * (as in Demmel and Nguyen's reproducible summation): with M = 1.5 2^52 g for a
 * power of two g, h = (x + M) - M is x rounded to the grid of g (while |x| is
 * far below M) and, rounding to nearest, x - h is exact (|x - h| <= g/2, and
 * <= |x| once |x| >= g/2). Level 1 takes g = 2^(E-44), so the block's 256 h
 * values, all within 2^(E+1), sum exactly in one double (at most 2^53 g); each
 * further level takes the remainders (within the previous g) on a grid 2^-45
 * lower. When every remainder after two (else three) levels is zero, the
 * block's sum is exactly the sum of the level sums, which go to the words;
 * otherwise (NaN, Inf, values spread over more than about 80 binades) the block
 * goes value by value. Every nonzero h is a normal number. Directed rounding
 * would break "x - h is exact" for |x| far below g, and flushing subnormals to
 * zero would drop them, so the fast path runs only in the default mode (checked
 * per call). It needs no reassociation: never build this file with -ffast-math. */
enum { BLOCK = 256, LEVEL_SHIFT = 45 };

#ifdef __SSE2__
#include <emmintrin.h>
/* Round to nearest, no flush-to-zero, no denormals-are-zero (MXCSR). */
static int default_fp_mode(void) {
    return (_mm_getcsr() & 0xE040u) == 0;
}
#else
#include <fenv.h>
static int default_fp_mode(void) {
    return fegetround() == FE_TONEAREST;
}
#endif

/* Two lanes: SSE2 on x86-64, whatever the compiler makes of them elsewhere. */
typedef double v2d __attribute__((vector_size(16)));
typedef int64_t v2l __attribute__((vector_size(16)));
#ifdef __SSE2__
#define XMAX(a, b) ((v2d)_mm_max_pd((__m128d)(a), (__m128d)(b)))
#else
static inline v2d vmax2(v2d a, v2d b) {
    v2l gt = a > b;
    return (v2d)((gt & (v2l)a) | (~gt & (v2l)b));
}
#define XMAX(a, b) vmax2(a, b)
#endif
#define XV v2d
#define XL v2l
#define XW 2
#define XFN(name) name##_2
#define XTARGET
#include "core/exactsum_block_t.h"

/* Four lanes with AVX2 where the processor has it (chosen at run time, so the
 * build stays portable x86-64). */
#if defined(__x86_64__) && defined(__GNUC__)
#define MU_XSUM_AVX2 1
#include <immintrin.h>
typedef double v4d __attribute__((vector_size(32)));
typedef int64_t v4l __attribute__((vector_size(32)));
#define XMAX(a, b) ((v4d)_mm256_max_pd((__m256d)(a), (__m256d)(b)))
#define XV v4d
#define XL v4l
#define XW 4
#define XFN(name) name##_4
#define XTARGET __attribute__((target("avx2")))
#include "core/exactsum_block_t.h"
#define ADD_BLOCK_4 add_block_4
#else
#define ADD_BLOCK_4 add_block_2
#endif

static int lanes_in_use; /* 0 until first asked: then 2 or 4 */

int mu_xsum_lanes(int want) {
    int widest = 2;
#ifdef MU_XSUM_AVX2
    if (__builtin_cpu_supports("avx2")) widest = 4;
#endif
    lanes_in_use = want == 2 || (want == 4 && widest == 4) ? want : widest;
    return lanes_in_use;
}

void mu_xsum_add_array(mu_xsum *s, const double *v, int64_t n) {
    /* A benign race on first use: every thread finds the same answer. */
    int (*block)(mu_xsum *, const double *, int) =
        (lanes_in_use ? lanes_in_use : mu_xsum_lanes(0)) == 2 ? add_block_2 : ADD_BLOCK_4;
    if (!default_fp_mode()) block = NULL;
    for (int64_t c = 0; c < n; c += BLOCK) {
        int k = n - c < BLOCK ? (int)(n - c) : BLOCK;
        if (!block || !block(s, v + c, k))
            for (int i = 0; i < k; i++) mu_xsum_add(s, v[c + i]);
    }
}

void mu_xsum_allreduce(mu_xsum *s, int count, MPI_Comm comm) {
    /* Normalized words are below 2^32, so the sum over any realistic rank count fits. */
    for (int i = 0; i < count; i++) mu_xsum_normalize(&s[i]);
    mu_error_allreduce(s, count * MU_XSUM_WORDS, MPI_INT64_T, MPI_SUM, comm);
}

const char *mu_xsum_status_name(mu_xsum_status st) {
    static const char *const names[] = {"finite", "NaN", "Inf", "overflow"}; /* by value */
    return st >= MU_XSUM_HAS_NAN && st <= MU_XSUM_OVERFLOW ? names[st] : names[0];
}
