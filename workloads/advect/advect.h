/* `mutirao advect`: N tracer fields on a Z x X x Y grid (N fastest, then Z,
 * X, Y: the study's layout) carried by face winds with the monotone Walcek
 * scheme, one step = an X, a Y and a Z sweep with Walcek densities. The ranks
 * form field groups (the fields are independent given the winds: no messages
 * between groups but the step's error check and the diagnostics), and each
 * group's ranks X-Y blocks (mpi/cart.h), halos of 2 cells, with the flux
 * chains carried across rank boundaries so that every rank uses the same
 * interface flux. */
#ifndef MU_ADVECT_H
#define MU_ADVECT_H
#include <stdint.h>
#include "app.h"
#include "advect/engine.h"
#include "gpu/advect_gpu.h"
#include "mpi/cart.h"

#define ADV_PI 3.14159265358979323846

enum { ADV_WIND_CONSTANT, ADV_WIND_ROTATION, ADV_WIND_SWIRL, ADV_WIND_DIVERGENT, ADV_WIND_FILE };
enum {
    ADV_INIT_GAUSSIAN,
    ADV_INIT_COSINE,
    ADV_INIT_SQUARE,
    ADV_INIT_CONE,
    ADV_INIT_UNIFORM,
    ADV_INIT_FILE
};
enum { ADV_SCHED_LINES, ADV_SCHED_DATAFLOW };
#define ADV_HALO 2

typedef struct {
    int64_t n[3]; /* nx, ny, nz */
    int nf;       /* fields N */
    double len[3], dt;
    int64_t steps;
    int periodic[3];
    int wind;
    double u0[3], period;
    const char *wind_file;
    int init;
    double center[3], radius, amp, background;
    int init_3d;
    const char *init_file;
    int stratified;
    double scale_height;
    int schedule;
    int pgrid[2];
    int pf; /* field groups (0: chosen by adv_decompose) */
    const char *dump, *checkpoint;
    int restart; /* resume from checkpoint */
    int64_t checkpoint_every, log_every;
    const char *plot;
    const char *output;  /* the answer CSV (per field: mass, extremes, errors) */
    const char *h5, *nc; /* field file prefixes at output_steps */
    int64_t *output_steps;
    int n_output_steps;
} adv_cfg;

/* One axis's sweep inputs under steady winds (steady.c): the same every step,
 * so made on the first and kept (the scratch of adv_state points here then). */
typedef struct {
    float *u, *rs, *d0, *d1; /* face winds and densities, cell densities D0, D1 */
    uint8_t *cls;            /* cell classes */
    adv_seg *seg;            /* line segments as adv_seg_init left them */
    int *cyc;                /* periodic lines' cycle signs */
    double cmax;             /* the axis's largest Courant number */
} adv_steady;

/* The ranks of one node that hold the same X-Y block (different field groups;
 * share.c): each axis's sweep inputs in MPI-3 shared memory, made once between
 * them, each rank a contiguous slice of the lines (the inputs are per line:
 * the same bits whoever makes them). Scratch pointers wait here while the
 * state's point at the shared inputs (adv_share_swap). */
typedef struct {
    MPI_Comm comm; /* the ranks sharing (at least 2) */
    MPI_Win win;
    int size, rank;
    float *u[3], *rs[3], *d0[3], *d1[3]; /* shared, per axis, laid out as the scratch */
    uint8_t *cls[3];
    adv_seg *seg[3];
    int *pn[3];     /* per line: any face wind >= 0, any < 0 (periodic axes) */
    float *dens;    /* the cell densities through the sweeps, as adv_state's */
    int *cyc[3];    /* private: every line's cycle sign */
    float *rho;     /* private: rho(z), the X sweep's D0 */
    int made[3];    /* steady winds: the axis's inputs made (first step), kept */
    double cmax[3]; /* and this rank's lines' largest Courant number */
    float *scr_u, *scr_rs, *scr_d0, *scr_d1;
    uint8_t *scr_cls;
    double bytes; /* of the shared inputs */
} adv_share;

typedef struct {
    const adv_cfg *cfg;
    MPI_Comm comm;  /* every rank of the run: errors, diagnostics, output */
    MPI_Comm group; /* the ranks of this field group, over which cart is made */
    int pf, gid;    /* field groups, and this rank's */
    int threads;    /* host threads of this rank (set-up, norms) */
    int nall, f0;   /* fields of the run; this group's first */
    mu_cart cart;
    int nl[3];     /* local cells: nxl, nyl, nz */
    int64_t lo[3]; /* first global cell */
    int N, sx;     /* this group's fields; padded X extent nxl + 4 */
    float *q, *qn; /* fields with X-Y halos */
    float *q0;     /* the initial fields (owned cells) when read from a file, else NULL */
    double *shape; /* else the initial shape per owned cell (adv_init_value) */
    float *dens;   /* cell densities through the sweeps (owned, z fastest then x, y) */
    /* Scratch of one sweep, sized for the longest axis. */
    float *wu, *wrs, *wd0, *wd1, *flux, *sbuf, *rbuf;
    uint8_t *cls;
    adv_seg *seg;
    adv_task *tasks;
    int32_t *fcells;
    int *cyc;
    int64_t step;
    double cmax; /* largest Courant number of the last step confirmed */
    /* GPU ranks: the steps whose check is posted and not read
     * (adv_confirm), and the device seconds of the sweeps read so far. */
    int npend;
    int late; /* a CPU sweep's chain error, reported at the next collective check */
    int64_t pend_step[2];
    double gpu_sweep_s[3];
    int64_t ntasks[3]; /* dataflow: streams per axis in the last step */
    mu_gpu_adv *gpu;   /* the device copy, or NULL: the CPU runs the sweeps */
    int stale;         /* the device's fields are newer than q (advect_run.c's fields_home) */
    int peer;          /* axis + 1 of the halos packed ahead through peer memory, or 0 */
    int peer_rounds;   /* and the flux rounds along that axis (open borders) */
    float *hbuf;       /* halos: the second pair of buffers (2 x hmax), made at set-up */
    int64_t hmax;      /* floats of one direction's halo, largest axis */
    int64_t nbuf;      /* floats of sbuf and rbuf each */
    double *wcache[3]; /* per axis: the steady part of the face winds (G x (m+1)) */
    float *rcache[3];  /* and the face densities */
    int keep_winds;    /* CPU ranks, steady winds: each axis's inputs kept (steady[]) */
    adv_steady *steady[3];
    adv_share *share; /* CPU ranks sharing their block's inputs on the node, or NULL */
} adv_state;

static inline int64_t adv_idx(const adv_state *s, int x, int y, int z) {
    return (int64_t)s->N *
           (z + (int64_t)s->nl[2] * ((x + ADV_HALO) + (int64_t)s->sx * (y + ADV_HALO)));
}

/* wind.c: face winds and densities. The wind on the face right of cell (gx,
 * gy, gz) along axis is adv_wind() times, for X and Y, adv_wind_factor(t). */
double adv_wind(const adv_cfg *c, int axis, int64_t gx, int64_t gy, int64_t gz);
/* The steady winds along axis as a table over the global cell indices they
 * depend on: adv_wind(x, y, z) is (*tab)[x stride[0] + y stride[1] + z
 * stride[2]], a stride 0 for an index it does not depend on (freed by the caller). */
int adv_wind_table(const adv_cfg *c, int axis, double **tab, int64_t *entries, int64_t stride[3]);
double adv_wind_factor(const adv_cfg *c, double t);
int adv_wind_steady(const adv_cfg *c); /* the winds do not change with time */
double adv_rho(const adv_cfg *c, int64_t gz);
int adv_wind_load(const adv_cfg *c, MPI_Comm comm);
void adv_wind_free(void);
/* init.c: the initial fields. The analytic ones are background + amp (1 +
 * f/2) shape, the shape tabled per owned cell (host threads), the fields made
 * from it on the host or on the device with the same roundings. */
int adv_init_shape(adv_state *s);
int adv_init_fields(adv_state *s);
int adv_init_fields_file(adv_state *s);
static inline float adv_init_value(const adv_cfg *c, int f, double shape) {
    return (float)(c->background + c->amp * (1 + 0.5 * f) * shape);
}
/* decomp.c: the field groups and blocks of a run on P ranks (collective
 * checks): pf given or chosen (field groups first, blocks where a group does
 * not fit a rank's memory or ranks outnumber fields), and the reason logged. */
int adv_decompose(const adv_cfg *c, MPI_Comm comm, double mem_bytes, int *pf, int pgrid[2]);
static inline int adv_group_first(int nall, int pf, int gid) {
    return (int)((int64_t)nall * gid / pf);
}
/* sweep.c: one step X, Y, Z at step index k (time k dt); 0 or 1 with mu_error. */
int adv_step(adv_state *s, int64_t k);
/* A GPU rank of one block posts each step's Courant check and reads it once
 * the next step is queued; adv_confirm reads the oldest posted (collective:
 * the step's error on every rank, s->cmax its largest Courant number). Every
 * step is confirmed before anything is written (advect_run.c). */
int adv_confirm(adv_state *s);
/* Collective over the group, where any rank has a GPU: where the group's ranks are on one
 * node, on distinct GPUs with peer access, the halos packed ahead, and the
 * flux rounds along their axis where its borders are open, go straight into
 * the neighbours' device memory (CUDA IPC; s->peer, s->peer_rounds); else
 * through pinned host memory and MPI. Logs the choice. */
int adv_peer_open(adv_state *s);
/* steady.c: whether CPU ranks keep each axis's sweep inputs between steps
 * (steady winds and room for them in mem_bytes on every rank; collective,
 * logged); the inputs of the axis's sweep just classified kept (local: 0, or
 * 1 with mu_error); the kept ones exchanged with the state's scratch (a second
 * call undoes it); all freed. */
void adv_steady_decide(adv_state *s, double mem_bytes, int on_gpu);
int adv_steady_keep(adv_state *s, int axis, int G, int m, double cmax);
void adv_steady_swap(adv_state *s, int axis);
void adv_steady_free(adv_state *s);
/* share.c: whether the CPU ranks of a node with one block share its sweep
 * inputs (collective over s->comm: each block's ranks decide together,
 * logged, in the summary); the lines this
 * rank makes of an axis with G lines; the state's scratch pointed at axis's
 * shared inputs (on) or back (off); the node's sharing ranks meet (every
 * rank's stores seen after); all freed (collective). */
void adv_share_open(adv_state *s, double mem_bytes, int on_gpu);
void adv_share_lines(const adv_share *sh, int64_t G, int *g0, int *g1);
void adv_share_swap(adv_state *s, int axis, int on);
void adv_share_sync(adv_share *sh);
void adv_share_free(adv_state *s);
/* The steady winds of every axis to the device (local: 0 or 1 with mu_error). */
int adv_gpu_winds(adv_state *s);
void adv_halo(adv_state *s, int axis);
/* io.c: gather/scatter of the global fields, dump, checkpoint */
int adv_gather(adv_state *s, float **global_out);
int adv_write_raw(adv_state *s, const char *path);
int adv_checkpoint_write(adv_state *s, const char *path);
int adv_checkpoint_read(adv_state *s, const char *path);
int adv_plot(adv_state *s, const char *path, const char *title);
int adv_plot_check(void);
/* The fields of a step as one file at path (collective): hdf5.c by every rank
 * in parallel (MPI-IO), netcdf.c as NetCDF-CF through rank 0. A writer is NULL
 * in a build without its library (MUTIRAO_HAVE_HDF5, MUTIRAO_HAVE_NETCDF
 * unset); advect_command.c then refuses its option. */
typedef int (*adv_fields_writer)(adv_state *s, const char *path, int64_t step);
extern const adv_fields_writer adv_hdf5_write, adv_netcdf_write;
/* xdmf.c: the XDMF description of an HDF5 field file, beside it (.xmf; one rank). */
int adv_xdmf_write(const adv_state *s, const char *h5path, int64_t step);
/* advect_run.c: the state of a run (collective: groups, blocks, buffers, initial
 * fields; mem_bytes: what one rank may hold), its device copy (local: 0 or 1
 * with mu_error; from_host: the fields uploaded, else made there), and the
 * end of both. */
int adv_state_open(adv_state *s, const adv_cfg *cfg, MPI_Comm comm, int threads, double mem_bytes,
                   int on_gpu);
int adv_gpu_open(adv_state *s, int from_host);
void adv_state_close(adv_state *s);
int adv_run(mu_app *app, adv_cfg *cfg);

#endif
