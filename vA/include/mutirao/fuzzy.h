/* mutirao's Fuzzy Minimals clustering as a library call: the run of `mutirao
 * fuzzy` on the caller's objects, spread over the ranks of a communicator by
 * rows. The factor r, the iteration from every object, the acceptance, the
 * optional single-linkage merge and the memberships are the command's, so the
 * prototypes are the command's, bit for bit, on any number of ranks; the FM
 * iteration runs on each rank's GPU where it has one. Link with -lmutirao
 * (pkg-config mutirao, or find_package(mutirao) and the target
 * mutirao::mutirao). */
#ifndef MUTIRAO_FUZZY_H
#define MUTIRAO_FUZZY_H
#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The options of `mutirao fuzzy` (see `mutirao fuzzy --help` for each one's
 * meaning) and their defaults; strings NULL and reals NaN mean unset. */
typedef struct {
    const char *mode;   /* "exact" (FM over the whole set) or "partitioned" [exact] */
    int64_t partitions; /* partitioned: p [4] */
    int zscore;         /* 1: standardize each feature first [0] */
    const char *r_norm; /* "density" or "printed" [density] */
    double r;           /* use this r instead of solving for it [NaN: solve] */
    double r_tol;       /* Newton for r [1e-12] */
    const char *units;  /* "r" or "absolute": how eps1, eps2, threshold are read [r] */
    double eps1;        /* convergence [1e-6] */
    double eps2;        /* acceptance [NaN: 0.5, or 1e-5 with absolute units] */
    int64_t max_it;     /* iterations per start [10000] */
    const char *merge;  /* "auto", "yes" or "no": single-linkage merge [auto] */
    double threshold;   /* cut the dendrogram at this height [NaN: the widest gap] */
    int64_t k;          /* cut it into k groups [0: the widest gap] */
    int64_t farm_chunk; /* exact: smallest range of starts the task farm hands out [0: auto] */
    int64_t sum_block;  /* rows per summation block (multiple of 256, 0: one) [65536] */
    const char *device; /* "auto" (GPU where present), "cpu" or "gpu" [auto] */
} mutirao_fuzzy_options;

typedef struct {
    int64_t n;              /* objects (sum of nloc) */
    int features;           /* F */
    double r;               /* the factor r */
    int64_t raw_prototypes; /* accepted before the merge */
    int64_t m;              /* prototypes */
    double *prototypes;     /* m x F, in the data's units, on every rank */
    int32_t *labels;        /* nloc: the prototype of each of this rank's objects */
    double *memberships;    /* nloc x m, or NULL when n x m exceeds 2^27 entries */
    int64_t unconverged;    /* starts that hit max_it (not accepted) */
    int gpu_ranks;          /* ranks whose device was bound */
} mutirao_fuzzy_result;

/* The defaults above. */
void mutirao_fuzzy_options_default(mutirao_fuzzy_options *opt);

/* Collective over comm. This rank holds objects [row0, row0 + nloc) of the
 * n = sum of nloc, row0 being the sum of nloc over the lower ranks, as the
 * row-major nloc x features doubles x (a rank may hold none; features is the
 * same on every rank). res receives the prototypes on every rank and each
 * rank's labels and memberships of its own rows; release them with
 * mutirao_fuzzy_result_free. Returns 0, or 1 after an error on any rank
 * (message from mutirao_error_message()): the command's option checks, a value
 * that is not finite or beyond 1e150, a constant column, a singular
 * covariance, no start converged, no GPU for device "gpu". */
int mutirao_fuzzy_cluster(MPI_Comm comm, int64_t nloc, int features, const double *x,
                          const mutirao_fuzzy_options *opt, mutirao_fuzzy_result *res);
void mutirao_fuzzy_result_free(mutirao_fuzzy_result *res);

#ifdef __cplusplus
}
#endif
#endif
