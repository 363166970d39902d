/* Internal to the scenarios run: what every task needs. */
#ifndef MU_SCENARIOS_RUN_H
#define MU_SCENARIOS_RUN_H
#include "scenarios/scenarios.h"
#include "gpu/scenarios_gen.h"
#include "mpi/taskfarm.h"

/* What a context owns: the rank's, or a lane's own (lanes.c keeps a lane's
 * when it copies the rank's context into it). */
typedef struct {
    mu_sc_gpu *gpu;
    double *Dnode;     /* --corr=lognormal: this node's factor (nst x nst) */
    double *Z, *zpast; /* scratch: M x nst, pmax x nst (tree) or per series (comb) */
    int z_locked;      /* Z is page-locked (mu_gpu_host_alloc) */
    char *err;         /* a lane: the message of its first failing node */
} mu_sc_bufs;
/* Frees b's buffers and zeroes it. */
void mu_sc_bufs_free(mu_sc_bufs *b);

typedef struct mu_sc_ctx {
    const mu_sc_cfg *c;
    const mu_sc_hist *h;
    const mu_sc_model *md;
    int64_t hist_end; /* months of the record before the first generated month */
    int start_m;      /* month (0..11) of the first generated month */
    mu_sc_tree *tree;
    int stage; /* the stage being built (0: children of the root) */
    int use_gpu;
    int64_t clamped;
    double km_s, km_dist_s; /* seconds in the k-means calls and in their distance steps */
    int lower_node;
    mu_sc_bufs buf; /* its own buffers */
    /* Host threads (lanes.c): threads is the resolved count; lanes[t] is
     * thread t's copy of this context with its own scratch and device buffers
     * (lane = 1 there: it keeps its seconds in gen_s/agg_s, not the timers). */
    int threads, nlanes, lane;
    struct mu_sc_ctx *lanes;
    double gen_s, agg_s;
    FILE *dump;       /* rank 0 with --node-scenarios: the open file (else NULL) */
    int64_t err_node; /* a lane: the first node that failed there (-1: none; buf.err its message) */
    const int64_t *todo; /* tree: the farm's task j is the stage's node todo[j] (NULL: node j) */
} mu_sc_ctx;

/* Work of one tree node (scenarios_run.c's node_work alone): its record into rec. */
typedef int (*mu_sc_node_fn)(mu_sc_ctx *x, int64_t v, double *rec);
/* Nodes v0 .. v0+count-1 into rec + j * rd, on up to x->threads host threads
 * (lanes made on first use, sized for x->c->m scenarios). The records do not
 * depend on the number of threads. 0, or 1 after mu_error with the message of
 * the lowest failing node among those tried (a failure stops the others). */
int mu_sc_lanes_run(mu_sc_ctx *x, int64_t v0, int64_t count, double *rec, size_t rd,
                    mu_sc_node_fn fn);
void mu_sc_lanes_close(mu_sc_ctx *x);
/* With on, OpenMP teams nested one level (a lane's or a phase's threads
 * starting their own); returns the earlier limit, which the caller restores
 * with omp_set_max_active_levels. */
int mu_sc_nest(int on);
/* Lane l's scenarios Z made page-locked on a GPU rank (faster copies to and
 * from the device), else touched: its first-touch cost off the stage. */
void mu_sc_lane_scratch(mu_sc_ctx *l);
/* Lanes made before the tree, so that its threads make their first use of
 * them while the rank has host work only (the fit): open makes at least n
 * lanes (a fresh set where fewer are open) of scratch for nst stations and
 * p_max pmax (0, or 1 after mu_error); warm is
 * thread t's first use of lane t, with a k-means context of kmax centres (a
 * failure is left to the lane's first node, which makes them again). */
int mu_sc_lanes_open(mu_sc_ctx *x, int n, int nst, int pmax);
void mu_sc_lane_warm(mu_sc_ctx *x, int t, int kmax);
/* The k-means key of a node: a Philox draw of its own stream, apart from the scenarios'. */
uint64_t mu_sc_node_key(uint64_t seed, int64_t node);
/* Record of one node's aggregation: k, iterations, the mean of its M scenarios
 * (nst), K x (probability, inflows) (child g at MU_SC_REC_CHILD), and with
 * --node-scenarios the M scenarios themselves (M x nst). */
size_t mu_sc_rec_doubles(const mu_sc_ctx *x, int K);
#define MU_SC_REC_CHILD(rec, nst, g) ((rec) + 2 + (nst) + (size_t)(g) * (1 + (nst)))
/* A node to aggregate: its id (logs, messages), the Philox stream of its
 * scenarios, its k-means key, the month generated, K groups, and its stage. */
typedef struct {
    int64_t node;
    uint64_t stream, key;
    int month, K, stage;
} mu_sc_node_id;
/* The node's record (mu_sc_rec_doubles), its standardized past already in
 * x->buf.zpast: generation and aggregation. comm == MPI_COMM_NULL: this rank
 * alone (a task of the farm); else every rank of comm calls it for the same
 * node and gets the same record: each generates its block of the M scenarios
 * (the draws are keyed by scenario, so the gathered set is the one a single
 * rank draws) and the k-means steps are shared (mu_agg_cluster_shared).
 * Errors are then collective. */
int mu_sc_node_record(mu_sc_ctx *x, const mu_sc_node_id *id, double *rec, MPI_Comm comm);
/* z = the inflows q of a month standardized by its monthly mean and deviation (nst). */
static inline void mu_sc_standardize(const mu_sc_model *md, const double *q, int month, double *z) {
    const int nst = md->nst;
    for (int s = 0; s < nst; s++) z[s] = (q[s] - md->mu[month * nst + s]) / md->sd[month * nst + s];
}
/* The standardized past (pmax x nst, lag-major) of the record months before end. */
void mu_sc_record_past(const mu_sc_ctx *x, int64_t end, double *zp);
/* The standardized past (pmax x nst, lag-major) of tree node v. */
void mu_sc_node_past(const mu_sc_ctx *x, int64_t v, double *zp);
/* The tree, stage by stage (collective). */
int mu_sc_build_tree(mu_app *app, mu_sc_ctx *x);
/* Checkpoints of the tree after a stage, with the nodes of the next stage
 * done so far (checkpoint.c). */
uint64_t mu_sc_fingerprint(const mu_sc_cfg *c, const mu_sc_hist *h, int64_t hist_end);
/* The records of a stage's nodes done so far: ndone of them, index[i] (of the
 * stage's nodes, increasing) with its record at rec + i * stride (the first
 * mu_sc_ckpt_rec_doubles(nst, K) doubles are kept: no node scenarios). */
typedef struct {
    int K;
    int64_t ndone;
    int64_t *index;
    double *rec;
    size_t stride;
} mu_sc_partial;
size_t mu_sc_ckpt_rec_doubles(int nst, int K);
void mu_sc_partial_free(mu_sc_partial *p);
/* Rank 0: the tree of stages_done stages and p, the next stage's nodes done (K its groups). */
int mu_sc_checkpoint_write(const char *path, uint64_t fp, int stages_done, const mu_sc_tree *t,
                           int nst, const mu_sc_partial *p);
/* Collective: t and p (empty) get the checkpoint's tree and the next stage's
 * nodes done, *stages_done its stages; every field checked first (one message
 * naming the file and the field). */
int mu_sc_checkpoint_read(MPI_Comm comm, const char *path, uint64_t fp, const mu_sc_cfg *c, int nst,
                          mu_sc_tree *t, int *stages_done, mu_sc_partial *p);
/* mu_sc_build_tree's return when a stop signal ended it after a checkpoint. */
#define MU_SC_STOPPED 3
/* Host threads (lanes) a GPU rank uses by default on a stage's nodes (flow.c). */
#define MU_SC_GPU_LANES 16
/* 1 when a stage of `nodes` nodes runs with all ranks on each node in turn
 * (scenarios_run.c's shared_stage) instead of the task farm: fewer nodes than ranks,
 * and --split=on, or auto on CPU ranks. */
int mu_sc_split_stage(const mu_sc_cfg *c, int use_gpu, int64_t nodes, int nranks);
/* The task farm's settings for a stage of `nodes` nodes on nranks ranks of
 * `threads` lanes each (mu_sc_build_tree's, and the NEWAVE bench's). */
mu_farm_cfg mu_sc_stage_farm(int threads, int64_t nodes, int nranks, const char *progress);
/* Generates one batch on this rank's device or CPU. */
int mu_sc_generate(mu_sc_ctx *x, int month, const mu_sc_gen_draw *d, double *Z);
/* Philox stream ids of the comb series and of the statistics sample, month t. */
#define MU_SC_COMB_STREAM(t) ((1ull << 63) | (uint64_t)(t))
#define MU_SC_STATS_STREAM(t) ((1ull << 62) | (uint64_t)(t))
/* The comb: S series over the horizon, through the task farm; rank 0 gets
 * out (S x horizon x nst). stream selects the Philox streams (comb or stats). */
int mu_sc_comb(mu_app *app, mu_sc_ctx *x, int64_t nser, int horizon, int stats, double *out);

/* --mode=openings (openings.c): the horizon's stages, each M scenarios of its
 * month into K = --openings representatives, through the task farm; rank 0
 * gets every stage's record (all: horizon x mu_sc_rec_doubles). Collective. */
int mu_sc_openings(mu_app *app, mu_sc_ctx *x, double *all);
/* The month after the record months that stage t's past ends with: the
 * latest before the first generated month with stage t's calendar month. */
int64_t mu_sc_opening_past_end(int64_t hist_end, int t);
/* Rank 0: the openings as CSV stage,year,month,opening,probability,<station>,... */
int mu_sc_write_openings(const char *path, const mu_sc_ctx *x, const double *all);

#endif
