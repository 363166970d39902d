/* The fuzzy run's settings (from the options, checked by fuzzy_command.c) and the
 * collective run itself (fuzzy_run.c) and its outputs (write.c, fuzzy_plot.c). */
#ifndef MU_FUZZY_RUN_H
#define MU_FUZZY_RUN_H
#include <stdint.h>
#include "app.h"
#include "fuzzy/fm.h"
#include "fuzzy/fuzzy.h"

/* What a run hands to a library call (rank 0; malloc'd, the caller frees). */
typedef struct {
    int64_t n;
    int F;
    double r;
    int64_t m_raw, m;    /* raw and final prototypes */
    double *proto;       /* m x F, in the input's units */
    int32_t *labels;     /* n: each object's prototype (largest membership) */
    double *mu;          /* n x m memberships, or NULL when too large to keep */
    int64_t unconverged; /* starts that hit max_it */
} mu_fz_out;

typedef struct {
    const char *input, *header, *label_column;
    int gen_blobs, gen_schools;
    int64_t n;
    uint64_t seed;
    const char *centers;
    double sigma;
    int zscore;
    int exact;      /* --mode=exact, else partitioned */
    int partitions; /* p */
    mu_fz_rnorm norm;
    double r_fixed; /* > 0: use this r, no solve */
    double r_tol;
    int units_abs;     /* 1: eps1, eps2, threshold are absolute (squared for eps1, eps2) */
    double eps1, eps2; /* as given (units per units_abs) */
    int64_t max_it;
    int merge; /* merge the raw prototypes by single linkage */
    mu_fz_cut_rule cut;
    double cut_value; /* threshold (per units_abs) or k */
    int64_t farm_chunk;
    int64_t sum_block; /* rows per summation block (fuzzy/fm.h) */
    int arith_fast;    /* --arith=fast: GPU ranks run the fast form */
    /* exact mode: checkpoints and the ring */
    const char *checkpoint;
    int64_t checkpoint_every; /* starts per round (0: auto) */
    int restart;
    int ring_mode;    /* ring: 0 no, 1 yes, 2 auto (when the set exceeds mem_limit) */
    double mem_limit; /* bytes a replicated copy of the set may take */
    /* outputs, NULL when not asked */
    const char *output;
    char *prefix; /* "<prefix>" or "<dir>/" */
    const char *plot;
    /* A library call (api/fuzzy.c): the data in memory on rank 0 (taken
     * over and cleared) instead of input or gen, and the result handed back in
     * out instead of printed; NULL for the command. */
    mu_fz_data *given;
    mu_fz_out *out;
} mu_fz_cfg;

/* The settings from the options, checked (fuzzy_command.c); given: the data come
 * from a library call, so there is no --input or --gen. c->prefix is
 * malloc'd. 0, or 1 after mu_error(). */
int mu_fz_read_cfg(const mu_opts *o, int rank, int given, mu_fz_cfg *c);
int mu_fz_run(mu_app *app, const mu_fz_cfg *cfg);

/* Checkpoints of an exact run (rank 0; checkpoint.c): the records (F doubles of
 * end point, iterations, converged) of starts [0, done), and a fingerprint of
 * the data and the settings that shape the trajectories. */
uint64_t mu_fz_fingerprint(const double *z, int64_t n, int F, const mu_fm_set *set);
int mu_fz_ckpt_write(const char *path, int64_t n, int F, uint64_t fp, int64_t done,
                     const double *rec);
/* The records are checked before use (finite end points, iteration counts
 * 0..max_it, converged 0 or 1). */
int mu_fz_ckpt_read(const char *path, int64_t n, int F, uint64_t fp, int64_t max_it, int64_t *done,
                    double *rec);

/* Exact FM with the data passed around a ring of ranks (ring.c): this rank
 * holds rows [row0, row0 + rows) of the n (whole summation blocks), runs the
 * starts among them, and rank 0 receives every start's record (F doubles,
 * iterations, converged) in object order. Collective. */
int mu_fz_ring(MPI_Comm comm, const mu_fm_set *set, int64_t n, int64_t row0, int64_t rows,
               double *rec);

/* What a run produced, on rank 0, for the writers. */
typedef struct {
    const mu_fz_data *d;         /* input units */
    const double *z;             /* the space FM ran in (z-scored or d->x) */
    const double *shift, *scale; /* z = (x - shift) / scale, per feature (NULL: identity) */
    double r;
    int64_t m_raw;
    const double *raw;        /* m_raw x F, in z space */
    const int64_t *raw_part;  /* partition of each raw prototype */
    const int64_t *raw_start; /* the object whose trajectory ended there */
    const int64_t *raw_group;
    const mu_fz_merge *merges; /* m_raw - 1, or NULL when not merged */
    int64_t m;
    const double *proto; /* m x F, z space */
    const int64_t *merged;
    const double *mu;       /* n x m, or NULL when too large to keep */
    const double *top;      /* n: each object's largest membership */
    const int32_t *labels;  /* n */
    const int64_t *objects; /* per prototype: hard-label counts */
} mu_fz_result;

/* The CSV outputs (rank 0): each written to a temporary name and renamed. */
int mu_fz_write_prototypes(const char *path, const mu_fz_result *res);
int mu_fz_write_all(const char *prefix, const mu_fz_result *res);
/* A PNG scatter of the objects coloured by label, prototypes marked (2-D: the
 * features; otherwise the first two principal axes), drawn by gnuplot. */
int mu_fz_plot(const char *path, const mu_fz_result *res);
/* 0 when gnuplot ($GNUPLOT, else gnuplot on PATH) runs, else 1 with mu_error(). */
int mu_fz_plot_check(void);

#endif
