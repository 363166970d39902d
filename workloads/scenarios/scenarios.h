/* `mutirao scenarios`: GEVAZP-style synthetic inflow scenarios. The historical
 * record (scenarios_input.c), the PAR(p) fit (par.c), generation with three-parameter
 * lognormal noise (gen.c on the CPU, gpu/scenarios_gen.cu on a device), the tree
 * built stage by stage through the task farm (tree.c), and the outputs (write.c,
 * stats.c, scenarios_plot.c). Months are 0..11 (0 = January) inside, 1..12 in files. */
#ifndef MU_SCENARIOS_SCENARIOS_H
#define MU_SCENARIOS_SCENARIOS_H
#include <stdint.h>
#include <stdio.h>
#include "app.h"
#include "gpu/scenarios_gen_core.h"
#include "scenarios/aggregate.h"
#include "scenarios/represent.h"

/* ---- the historical record -------------------------------------------------- */

typedef struct {
    char path[1024];
    int nyears, nst, first_year;
    char **names; /* nst station names (header columns) */
    double *q;    /* inflows, (year * 12 + month) * nst + station */
} mu_sc_hist;

/* What the reader keeps of the file's columns. */
typedef struct {
    const char *stations; /* comma list of column names, or NULL/"all" */
    int skip_zero;        /* drop stations with a zero month (artificial postos) */
    int nstations;        /* keep the first n after the above (0: all) */
    int min_years;        /* shorter records are refused */
} mu_sc_select;

/* Reads and checks the CSV (year, month, one column per station): whole years
 * from January to December, no gap, months in order, no negative or missing
 * value, no station with zero variance in a month. 0, or 1 with mu_error(). */
int mu_sc_read(const char *path, const mu_sc_select *sel, mu_sc_hist *h);
void mu_sc_hist_free(mu_sc_hist *h);
/* The checks of mu_sc_read on a record built in memory (who names it in
 * messages): at least min_years years, 1 to 1024 stations, values finite and
 * >= 0, no station with zero variance in a month. 0, or 1 with mu_error(). */
int mu_sc_check_record(const mu_sc_hist *h, int min_years, const char *who);
/* Rank 0's record to every rank. Collective. */
int mu_sc_hist_bcast(MPI_Comm comm, mu_sc_hist *h);

/* ---- the PAR(p) model (Maceira and Bezerra 1997) ----------------------------- */

typedef struct {
    int sd_n1;          /* 1: standard deviation with 1/(N-1); 0: 1/N (CEPEL) */
    int acf_pairs;      /* 1: autocorrelation over the pairs available; 0: 1/N (CEPEL) */
    int pmax;           /* largest order tried (6) */
    double pacf_conf;   /* significance multiplier of 1/sqrt(N) (1.96) */
    int quiet;          /* no warnings (every rank fits; rank 0 speaks) */
    int drop_dependent; /* the caller refits without md->dependent: no warning */
    int threads;        /* host threads for the months (0: OpenMP's default) */
} mu_sc_fit_cfg;

typedef struct {
    int nst, pmax, nyears;
    double *mu, *sd; /* 12 * nst: [m * nst + s] */
    int *order;      /* 12 * nst */
    double *phi;     /* 12 * nst * pmax: [(m * nst + s) * pmax + i], zero beyond the order */
    double *rho;     /* 12 * nst * pmax: periodic autocorrelation rho^m(i + 1) */
    double *pacf;    /* 12 * nst * pmax: phi^m_kk */
    double *sig_a;   /* 12 * nst: noise standard deviation (standardized units) */
    double *corr;    /* 12 * nst * nst: residual correlation across stations */
    double *factor;  /* 12 * nst * nst: D with D D^T = corr (row-major) */
    int lower[12];   /* 1: D is the Cholesky factor; 0: the eigen fallback (full) */
    double *resid;   /* nyears * 12 * nst residuals (NaN where lags are missing) */
    int nonstationary, nonpd;
    unsigned char *dependent; /* nst: 1 where a station is a linear combination of
                                 the ones before it in some month's residuals */
    double *radius;           /* nst: spectral radius of the year's companion product */
} mu_sc_model;

int mu_sc_fit(const mu_sc_hist *h, const mu_sc_fit_cfg *cfg, mu_sc_model *md);
void mu_sc_model_free(mu_sc_model *md);
/* The generation arguments of month m (pointers into the model). */
void mu_sc_month_args(const mu_sc_model *md, int m, mu_sc_gen_month *g);

/* ---- small dense linear algebra (linalg.c) ----------------------------------- */

/* Solves A x = b (n x n, row-major, copied) by Gaussian elimination with partial
 * pivoting; 1 when singular. */
int mu_sc_solve(const double *A, const double *b, int n, double *x);
/* Lower Cholesky factor L of A (n x n); 1 when A is not positive definite. */
int mu_sc_cholesky(const double *A, int n, double *L);
/* D with D D^T = R for a correlation matrix R: the Cholesky factor (*lower = 1),
 * or when R is not positive definite the eigen factor V diag(sqrt(max(l, 0)))
 * with rows rescaled to unit length (*lower = 0; *neg eigenvalues <= 0, *smallest). */
int mu_sc_factor(const double *R, int n, double *D, int *lower, int *neg, double *smallest);
/* dep[i] = 1 where variable i of the correlation matrix R is (within tol of
 * its variance) a linear combination of the variables before it that are not
 * themselves dependent: Cholesky in station order, skipping the zero pivots.
 * Returns the count, or -1 when out of memory. */
int mu_sc_dependent(const double *R, int n, double tol, unsigned char *dep);

/* ---- generation (gen.c) --------------------------------------------------------- */

/* M scenarios of one month on the CPU (the reference): Z is nscen x nst. */
void mu_sc_gen_cpu(const mu_sc_gen_month *g, const mu_sc_gen_draw *d, double *Z, int64_t *clamped);

/* The exact lognormal correlation for scenarios that share one
 * past (a tree node): the normal-space correlation rho_xi(i,j) =
 * ln(1 + R_ij sqrt((e^{s_i^2} - 1)(e^{s_j^2} - 1))) / (s_i s_j), clipped to [-1, 1],
 * makes the lognormal noises a correlate as R; its factor goes to D (nst x nst),
 * *lower as in mu_sc_factor. 0, or 1 when out of memory. */
int mu_sc_lognormal_factor(const mu_sc_gen_month *g, const double *R, const double *zpast,
                           double *D, int *lower);

/* ---- the run ---------------------------------------------------------------------- */

typedef struct {
    const char *input;
    mu_sc_select sel;
    mu_sc_fit_cfg fit;
    int start_year, start_month; /* first generated month (month 0..11) */
    int nstages;                 /* stochastic stages */
    int open[64];                /* openings per stochastic stage */
    int m;                       /* scenarios per node */
    uint64_t seed;
    mu_agg_method method;
    mu_sc_rep rep; /* the children's inflows (represent.h) */
    int max_iter;
    const char *tree_text; /* the --tree value, for messages */
    int comb;              /* 1: comb mode */
    int openings;          /* --mode=openings: K representatives a stage (else 0) */
    int64_t series;        /* comb: S */
    int horizon;           /* comb: months; openings: stages */
    double delta_min;
    int corr_lognormal;   /* tree: correlation transformed per node (exact for the lognormal) */
    int64_t stats_series; /* statistics sample: series */
    int stats_years;      /* and years each (after a year of burn-in) */
    const char *out_csv, *out_json, *model_json, *stats_path, *plot;
    const char *node_scenarios; /* tree: every node's M generated scenarios (CSV) */
    int plot_stations;
    const char *checkpoint; /* tree: file written on SIGTERM/SIGUSR1 and every k stages */
    int64_t checkpoint_every;
    int restart;
    int split; /* a stage with fewer nodes than ranks: 0 farm, 1 shared, 2 auto (scenarios_run.c) */
    int threads; /* host threads per rank for a stage's nodes (lanes.c); 0: auto */
    /* A library call (api/scenarios.c): the record in memory on rank 0
     * (taken over and cleared) instead of input, and the tree handed back in
     * out (struct mu_sc_out) instead of printed; NULL for the command. */
    mu_sc_hist *given;
    struct mu_sc_out *out;
} mu_sc_cfg;

/* The tree: nodes in id order, stage by stage. */
typedef struct {
    int64_t n, cap;
    int64_t *parent;
    int *stage;
    double *prob;  /* conditional on the parent */
    double *pprob; /* of the path from the root */
    double *q;     /* n * nst inflows */
    int *iters;    /* k-means iterations of the node's aggregation (-1 for leaves) */
    double *gmean; /* n * nst: mean of the node's M generated scenarios (NaN: leaves, and
                    * nodes restored from a checkpoint, which does not keep it) */
    int64_t stage_first[65];
} mu_sc_tree;

/* What a run hands to a library call (every rank holds the same tree). */
typedef struct mu_sc_out {
    mu_sc_tree tree;  /* taken over from the run */
    int64_t hist_end; /* months of the record before stage 1 */
    int64_t clamped;  /* lognormal draws clamped to the lower bound (rank 0) */
    int nonstationary, nonpd;
} mu_sc_out;

/* The settings from the options, checked (scenarios_command.c); given: the record comes
 * from a library call, so there is no --input. 0, or 1 after mu_error(). */
int mu_sc_read_cfg(const mu_opts *o, int given, mu_sc_cfg *c);
int mu_sc_run(mu_app *app, const mu_sc_cfg *c);
void mu_sc_tree_free(mu_sc_tree *t);

/* Writers (rank 0). */
int mu_sc_write_model(const char *path, const mu_sc_hist *h, const mu_sc_model *md,
                      const mu_sc_fit_cfg *fc);
/* Either path may be NULL. hist_end: months of the record before the first stage. */
int mu_sc_write_tree(const char *csv, const char *json, const mu_sc_hist *h, const mu_sc_tree *t,
                     int64_t hist_end);
/* --node-scenarios: the header (node,scenario,<stations>), then node v's m
 * scenarios (m x nst) as rows, full precision. */
void mu_sc_dump_header(FILE *f, const mu_sc_hist *h);
void mu_sc_dump_node(FILE *f, int64_t v, const double *z, int m, int nst);
/* Statistics report: generated against historical monthly moments. gen holds
 * nser series of len consecutive months (nser x len x nst), the first starting
 * in month start_m; the first burn months of each are left out. */
int mu_sc_write_stats(const char *path, const mu_sc_hist *h, const mu_sc_model *md,
                      const double *gen, int64_t nser, int len, int burn, int start_m);
/* The largest differences of the tree's stages (NaN: nothing compared).
 * node_mean: |tree / node sample - 1| of a stage mean, the node sample being
 * the scenarios the stage's parents generated (path-weighted; 0 up to
 * rounding for a mean-keeping representative); the others against the
 * statistics sample (the model's distribution of the month) and h_ against
 * the record's calendar month: relative for means and standard deviations,
 * absolute for lag-1 and cross-station correlations. */
typedef struct {
    double node_mean;
    double mean, std, lag1, corr;
    double h_mean, h_std, h_lag1, h_corr;
} mu_sc_tree_diff;
/* d->node_mean (the others NaN); needs nothing but the tree (its gmean). */
void mu_sc_tree_node_diff(const mu_sc_tree *t, int nstages, int nst, mu_sc_tree_diff *d);
/* Appends to the statistics report, per stage and station, the tree against
 * the sample (gen: nser x len x nst, series from the same record), the node
 * sample and the record (tree_stats.c), and fills d but d->node_mean. */
int mu_sc_tree_stats(const char *path, const mu_sc_hist *h, const mu_sc_tree *t, int nstages,
                     int start_m, const double *gen, int64_t nser, int len, mu_sc_tree_diff *d);
int mu_sc_plot(const char *png, const mu_sc_hist *h, const mu_sc_tree *t, int nplot,
               int64_t hist_end);
int mu_sc_plot_check(void);

#endif
