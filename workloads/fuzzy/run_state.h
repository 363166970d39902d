/* Internal to the fuzzy run (fuzzy_run.c and the run_*.c files of its steps): the
 * run's state, the FM kernel seam, and the steps. */
#ifndef MU_FUZZY_RUN_STATE_H
#define MU_FUZZY_RUN_STATE_H
#include <stdint.h>
#include "fuzzy/fm.h"
#include "fuzzy/run.h"
#include "gpu/fuzzy_gpu.h"

/* ---- the kernel seam (run_starts.c) ---- */
typedef struct {
    mu_fm_set set;
    mu_gpu_fm *gpu; /* the device copy of this rank's rows, or NULL: the CPU */
    int64_t row0;   /* the set's first row in the device copy */
    int64_t base;   /* task farm: task t is start base + t */
    double gpu_ms;  /* kernel time on this rank */
    int fast;       /* --arith=fast in force (every rank on a GPU) */
} fm_ctx;

/* The acceptance on the device (fz_gpu_ranges). */
typedef struct {
    double eps2, *proto;
    int64_t *from, *nproto;
} fm_dev_accept;
/* Runs the device over ranges and turns its outputs into mu_fm_stat. With
 * acc, the acceptance runs on the device too (the same prototypes as
 * mu_fm_accept, to the bit): only the prototypes, packed in range order, their
 * starts and the counts per range come back; else the end points, into v. */
int fz_gpu_ranges(fm_ctx *c, const mu_gpu_fm_range *g, int ng, int64_t total, double *v,
                  const fm_dev_accept *acc, mu_fm_stat *st);
/* The FM iteration for starts [first, first + count) of the set: on the device
 * when this rank has one (the same bits, see gpu/fuzzy_gpu.h), else the CPU. */
int fz_fm_starts(fm_ctx *c, int64_t first, int64_t count, double *v, mu_fm_stat *st);
/* Task farm record per start: v (F doubles), iterations, converged. */
int fz_farm_task(int64_t first, int64_t count, void *results, void *vctx);

/* ---- the run's state ---- */
typedef struct {
    /* everywhere */
    int64_t n;
    int F;
    double *x;          /* this rank's rows: all (exact) or its partitions' (partitioned) */
    int64_t nloc;       /* rows in x */
    int64_t sum0, sum1; /* the rows of x this rank adds to reductions (a block in exact mode) */
    int ring;           /* exact mode with the data around a ring: x holds whole summation */
    int64_t ring0;      /* blocks, from global row ring0 */
    double *mean, *cov, *shift, *scale;
    double r;
    /* partitioned */
    int p;
    int64_t *pstart; /* p + 1 dealt offsets */
    int pa, pb;      /* this rank's partitions [pa, pb) */
    /* rank 0 */
    mu_fz_data d;   /* input units */
    double *z;      /* n x F in the space FM runs in (aliases d.x without zscore) */
    int64_t *order; /* partitioned: dealt position -> object */
    int64_t m_raw;
    double *raw; /* m_raw x F */
    int64_t *raw_part, *raw_start;
    int64_t unconverged, it_total, it_max;
} fz_state;

void fz_state_free(fz_state *s);

/* The steps, collective unless said: the data loaded, replicated or dealt
 * (run_load.c; fz_data_name: what messages call the data); the FM iteration
 * from every start, exact (run_exact.c; *stopped: a signal ended the run) or
 * partitioned (run_partitioned.c); rank 0's merge, memberships and outputs
 * (run_finish.c; local). */
int fz_load(mu_app *app, const mu_fz_cfg *c, fz_state *s);
const char *fz_data_name(const mu_fz_cfg *c);
int fz_fm_exact(mu_app *app, const mu_fz_cfg *c, fz_state *s, fm_ctx *ctx, double eps2,
                int *stopped);
int fz_fm_partitioned(mu_app *app, fz_state *s, fm_ctx *base, double eps2);
int fz_finish(const mu_fz_cfg *c, fz_state *s);
#endif
