/* mutirao's inflow scenario trees as a library call: the PAR(p) fit of a
 * monthly record held in memory and the tree of `mutirao scenarios` (GEVAZP:
 * lognormal generation conditioned on each node's past, k-means aggregation of
 * each node's scenarios into its openings), built stage by stage through the
 * task farm on the ranks of a communicator, on each rank's GPU where it has one.
 * The tree is the command's, byte for byte, on any number of ranks and
 * threads. Link with -lmutirao (pkg-config mutirao, or find_package(mutirao)
 * and the target mutirao::mutirao). */
#ifndef MUTIRAO_SCENARIOS_H
#define MUTIRAO_SCENARIOS_H
#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The options of `mutirao scenarios` (see `mutirao scenarios --help` for each
 * one's meaning) and their defaults; NULL strings mean the default. */
typedef struct {
    const char *tree;            /* the root, then each stage's openings ["1,30,200"] */
    int64_t m;                   /* scenarios generated per node [1024] */
    const char *start;           /* first generated month "YYYY-MM" [NULL: after the record] */
    int64_t pmax;                /* largest PAR order tried [6] */
    double pacf_conf;            /* order = last lag with |pacf| > this / sqrt(N) [1.96] */
    const char *sd_denominator;  /* "n" or "n-1" [n] */
    const char *acf_denominator; /* "n" or "pairs" [n] */
    int64_t min_years;           /* shorter records are refused [10] */
    int64_t seed;                /* Philox seed [1] */
    const char *method;          /* aggregation: "v2" (the study's) or "hw" (Hartigan-Wong) [v2] */
    const char
        *representative; /* a child's inflows: "centroid", "nearest" or "scaled" [centroid] */
    int64_t max_iter;    /* k-means iterations per node [50] */
    double delta_min;    /* lognormal lower-bound clamp [0.05] */
    const char *corr;    /* "normal" or "lognormal" spatial correlation [normal] */
    const char *split;   /* "auto", "on" or "off" [auto] */
    int64_t threads;     /* host threads per rank, 0: auto [0] */
    const char *device;  /* "auto" (GPU where present), "cpu" or "gpu" [auto] */
} mutirao_scenarios_options;

typedef struct {
    int64_t nodes;      /* in id order, stage by stage: the root is node 0 */
    int stations;       /* nst */
    int stages;         /* stochastic stages (the openings after the root) */
    int64_t first_leaf; /* the leaves are nodes first_leaf .. nodes - 1 */
    int64_t *parent;    /* nodes: the parent's id (-1 for the root) */
    int *stage;         /* nodes: 0 for the root, then 1 .. stages */
    double *prob;       /* nodes: probability given the parent */
    double *path_prob;  /* nodes: probability of the path from the root */
    double *q;          /* nodes x stations inflows (the root: the record's last month) */
    int first_year;     /* calendar month of stage 1 */
    int first_month;    /* 1..12 */
    int64_t clamped;    /* lognormal draws clamped to the lower bound */
    int nonpd_months;   /* months whose residual correlation is not positive definite */
    int gpu_ranks;      /* ranks whose device was bound */
} mutirao_scenarios_tree;

/* The defaults above. */
void mutirao_scenarios_options_default(mutirao_scenarios_options *opt);

/* Collective over comm. The record, read on rank 0 only (other ranks may pass
 * NULL for q and names; every rank passes the same sizes): nyears whole years
 * from January of first_year, q[(year * 12 + month) * nstations + station]
 * (month 0 = January) in m3/s, names[nstations] the stations' names (NULL:
 * "s1", "s2", ...). Fits the PAR(p) model and builds the tree, which every rank
 * receives; release it with mutirao_scenarios_tree_free. Returns 0, or 1 after
 * an error on any rank (message from mutirao_error_message()): the command's
 * option checks, a short record, a negative or non-finite inflow, a station
 * with zero variance in a month, no GPU for device "gpu". */
int mutirao_scenarios_tree_build(MPI_Comm comm, int nyears, int nstations, int first_year,
                                 const double *q, const char *const *names,
                                 const mutirao_scenarios_options *opt,
                                 mutirao_scenarios_tree *tree);
void mutirao_scenarios_tree_free(mutirao_scenarios_tree *tree);

#ifdef __cplusplus
}
#endif
#endif
