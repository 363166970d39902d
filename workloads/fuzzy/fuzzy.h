/* The fuzzy command: Fuzzy Minimals clustering (Flores-Sintas, Cadenas and
 * Martin), as in T. A. D. de Souza's UNESP 2017 study, corrected where it is
 * wrong (docs/fuzzy.md). Internal to
 * workloads/fuzzy. Data are row-major n x F doubles throughout; squared distances
 * are Euclidean. */
#ifndef MU_FUZZY_H
#define MU_FUZZY_H
#include <mpi.h>
#include <stdint.h>
#include "app.h"

/* ---- data ------------------------------------------------------------------ */

typedef struct {
    int64_t n;          /* objects */
    int F;              /* features */
    double *x;          /* n x F */
    char **names;       /* F feature names (header, or "x1".."xF") */
    int32_t *label;     /* n reference label ids, or NULL */
    int nlabels;        /* distinct reference labels */
    char **label_names; /* nlabels names, in order of first appearance */
    char *label_column; /* the reference column's name, or NULL */
    int64_t first_line; /* file line of the first object (messages), 0 for generated data */
} mu_fz_data;

/* Reads a CSV with a header, or whitespace/semicolon-separated text ('#'
 * comments, blank lines skipped). header: "auto" (a first line with a
 * non-numeric field is a header), "yes" or "no". label_column: NULL, a header
 * name or a 1-based column number; that column is kept aside as reference
 * labels (any text). Every other cell must be a finite number. Failures name
 * "file:line" and what was expected. */
int mu_fz_read(const char *path, const char *header, const char *label_column, mu_fz_data *d);

/* Three Gaussian blobs (this project's analogue of the study's test 2): centres
 * "x,y;x,y;..." (any dimension, all the same), standard deviation sigma,
 * coordinates rounded to integers; object i draws from Philox keyed by (seed, i),
 * so the data are the same on any layout. Reference labels = the blob. */
int mu_fz_gen_blobs(int64_t n, uint64_t seed, const char *centers, double sigma, mu_fz_data *d);

/* The stand-in for the study's 40646 US school locations (fuzzy_input.c says how it
 * is drawn): 2-D (latitude, longitude), Philox keyed by (seed, object). */
int mu_fz_gen_schools(int64_t n, uint64_t seed, mu_fz_data *d);

/* Checks what makes the covariance singular before any work: a constant column
 * (names the first object's line). */
int mu_fz_check_columns(const char *path, const mu_fz_data *d);

/* The largest |value| read: the covariance squares the values and sums them
 * over the objects, so larger ones overflow it (a file:line error instead). */
#define MU_FZ_MAX_ABS 1e150
#define MU_FZ_MAX_ABS_TEXT "1e150"

/* Checks that the covariance can be nonsingular: n objects span at most n - 1
 * dimensions, so F columns need more than F objects. */
int mu_fz_check_shape(const char *path, const mu_fz_data *d);

/* Bytes mu_fz_moments and the model take for F features (the exact sums of
 * the F (F + 1) / 2 cross products dominate). */
double mu_fz_model_bytes(int F);

/* Rank 0's data to every rank (n, F, names, values, labels). Collective. */
int mu_fz_bcast(MPI_Comm comm, mu_fz_data *d);
void mu_fz_free(mu_fz_data *d);

/* ---- the model: moments, log-determinant, the factor r ---------------------- */

/* Mean and covariance (two passes, divisor n - 1) of the n objects, of which
 * this rank holds nloc rows. Sums are exact (core/exactsum.h) and reduced over
 * comm (MPI_COMM_NULL: none), so the result is bitwise the same however the
 * rows are spread over ranks. cov: F x F. Collective. Returns 0, or 1 on
 * every rank when one lacks memory (reported through mu_error_collective). */
int mu_fz_moments(const double *x, int64_t nloc, int F, int64_t n, MPI_Comm comm, double *mean,
                  double *cov);

/* log det C by Cholesky (C is not changed). Returns 0, or 1 with *bad_col = the
 * first column whose pivot is not positive (C singular or not SPD). */
int mu_fz_logdet(const double *C, int F, double *logdet, int *bad_col);

typedef enum { MU_FZ_R_DENSITY = 0, MU_FZ_R_PRINTED = 1 } mu_fz_rnorm;

typedef struct {
    double r;
    int steps;     /* Newton (or bisection) steps after the bracket was found */
    int evals;     /* evaluations of the sums = allreduces */
    double resid;  /* g at the answer (log form) */
    double lo, hi; /* final bracket on r */
} mu_fz_rinfo;

/* The factor r of Eq. 3.9: r^F = K * sum_x 1/(1 + r^2 d2[x]), with K =
 * sqrt|C^-1| = exp(-logdet/2) (density) or that over n (the form as printed).
 * Solved for s = log r by Newton safeguarded with bisection in a bracket that
 * always holds the unique root: g(s) = log K + log S(s) - F s with
 * S = sum 1/(1 + e^2s d2) and g'(s) = -2 sum u(1-u) / S - F < 0. This rank holds
 * nloc of the n distances; each evaluation is one exact allreduce of two sums,
 * so every rank count takes the same steps to the same bits. Stops when a step
 * moves log r by less than tol (relative change of r). The rank's sums run on
 * up to threads host threads (the same bits on any number). Returns 0, or 1
 * with mu_error(). Collective. */
int mu_fz_solve_r(const double *d2, int64_t nloc, int64_t n, int F, double logdet, mu_fz_rnorm norm,
                  double tol, int threads, MPI_Comm comm, mu_fz_rinfo *info);

/* Memberships (Eq. 3.11) of the n objects to the m prototypes: mu[i*m + j] =
 * 1/(1 + r^2 d2(x_i, v_j)); labels[i] = argmax_j (the lowest j on ties) and
 * top_mu[i] its membership. Any output may be NULL. */
void mu_fz_memberships(const double *x, int64_t n, int F, const double *v, int m, double r,
                       double *mu, int32_t *labels, double *top_mu);

/* ---- partitions (the study's distribution, its section 4.4, as read here) ---- */

/* Stable lexicographic ascending order of the objects (ties keep input order),
 * then round-robin dealing: sorted position i goes to partition i mod p, each
 * partition stored contiguously; the first n mod p partitions get one more.
 * order[k] = the object at dealt position k; start[j] = first dealt position of
 * partition j (p + 1 entries). */
int mu_fz_deal(const double *x, int64_t n, int F, int p, int64_t *order, int64_t *start);

/* ---- the hierarchical merge (Algorithm 8 as single linkage) ---------------- */

typedef struct {
    int64_t a, b;  /* clusters joined: 0..m-1 raw prototypes, m+s the one made at step s */
    double height; /* Euclidean distance of the closest pair (single linkage) */
    int64_t size;  /* raw prototypes in the new cluster */
} mu_fz_merge;

/* Single linkage of m points (m >= 1): the m - 1 merges in ascending height
 * (Prim's minimum spanning tree, O(m^2) time, O(m) memory; equal heights in
 * the order Prim finds them). */
int mu_fz_linkage(const double *v, int64_t m, int F, mu_fz_merge *merges);

typedef enum { MU_FZ_CUT_GAP, MU_FZ_CUT_THRESHOLD, MU_FZ_CUT_K, MU_FZ_CUT_NONE } mu_fz_cut_rule;

/* Groups from the dendrogram: GAP cuts in the widest gap between successive
 * merge heights (no gap with fewer than two merges: nothing merged); THRESHOLD
 * merges every height <= value; K leaves value groups (at most m); NONE merges
 * nothing. group[i] of raw prototype i, numbered by their smallest member.
 * Returns the number of groups. */
int64_t mu_fz_cut(const mu_fz_merge *merges, int64_t m, mu_fz_cut_rule rule, double value,
                  int64_t *group);

/* Each group's unweighted mean (Table 5.4 from Table 5.3). out: groups x F. */
void mu_fz_group_means(const double *v, int64_t m, int F, const int64_t *group, int64_t groups,
                       double *out, int64_t *members);

/* ---- accuracy and plots ------------------------------------------------------ */

/* Adjusted Rand index and purity of labels a (0..ka-1) against reference b (0..kb-1). */
double mu_fz_ari(const int32_t *a, int ka, const int32_t *b, int kb, int64_t n);
double mu_fz_purity(const int32_t *a, int ka, const int32_t *b, int kb, int64_t n);

#endif
