/* 2-D over distributed data: the column-pair decomposition (Perumalla-Deo, as
 * in the study: Kadane over the strip's row sums for every pair (g, h)) on a
 * Pr x Pc grid of ranks. Rank (r, c) holds band r's rows of column block c of
 * the row-prefix table; the band's blocks pass around a ring so that every
 * block pair (G, H) meets once; with one band a rank keeps the best (value,
 * pair id) of its pairs, with several the pairs' band summaries are combined
 * in row order over the column. No rank holds the matrix or the table. */
#include <stdlib.h>
#include <string.h>
#include "maxsub/maxsub.h"
#include "core/error.h"
#include "core/log.h"
#include "core/memory.h"
#include "core/timer.h"
#include "gpu/gpu.h"
#include "gpu/maxsub_gpu.h"
#include "maxsub/block2d.h"
#include "maxsub/grid2d.h"
#include "maxsub/strip2d.h"

enum { RING_PIECE = 1 << 17 }; /* int64 values of one ring datatype: MPI counts stay int */

typedef struct {
    const mu_app *app;
    mu_mss2d_grid g;
    int empty;
    int64_t wmax;       /* widest block: the ring's buffers */
    int64_t *V;         /* own block, nr x (w + 1) (CPU ranks: a GPU keeps it on its device) */
    int64_t *ring[2];   /* the ring's host blocks, nr x (wmax + 1) each (see ring_buffers) */
    int locked[2];      /* ring[k] is page-locked (GPU ranks) */
    int64_t *visit;     /* this step's visitor: one of ring[] */
    int64_t vlo, vw;    /* its columns */
    int64_t B;          /* largest absolute row sum of the band's rows */
    MPI_Datatype piece; /* RING_PIECE int64 values */
    MPI_Request req[4]; /* the shift in flight: the next visitor comes in while a step runs */
    int nreq, landed, uploaded, ring_rc;
    int64_t nlo, nw;   /* the incoming block's columns */
    int64_t min_piece; /* fewest tiles between two polls of the shift */
    mu_gpu_mss2d *gpu;
    int64_t chunk; /* tiles per band reduction (pr > 1) */
    mu_mss2d_sum *sums, *sums_in;
    MPI_Datatype sum_type;
    MPI_Op sum_op;
    int64_t best, pair; /* this rank's best so far */
} dist;

static void free_dist(dist *d) {
    mu_gpu_mss2d_destroy(d->gpu);
    free(d->V);
    for (int k = 0; k < 2; k++) {
        if (d->locked[k])
            mu_gpu_host_free(d->ring[k], 1);
        else
            free(d->ring[k]);
    }
    if (d->piece != MPI_DATATYPE_NULL) MPI_Type_free(&d->piece);
    free(d->sums);
    free(d->sums_in);
    if (d->sum_op != MPI_OP_NULL) MPI_Op_free(&d->sum_op);
    if (d->sum_type != MPI_DATATYPE_NULL) MPI_Type_free(&d->sum_type);
    mu_mss2d_grid_free(&d->g);
}

/* MPI_Reduce's user function: inout = in (the earlier bands) followed by inout. */
static void combine_op(void *in, void *inout, int *len, MPI_Datatype *type) {
    (void)type;
    const mu_mss2d_sum *a = in;
    mu_mss2d_sum *b = inout;
    for (int i = 0; i < *len; i++) b[i] = mu_mss2d_sum_combine(a[i], b[i]);
}

static int64_t auto_chunk(const mu_app *app, int64_t chunk) {
    if (chunk > 0) return chunk < 1 << 16 ? chunk : 1 << 16; /* MPI counts are int */
    /* 2 MB of summaries on CPU ranks; two waves of tiles on a GPU. */
    int64_t mine = app->dev.use_gpu ? 2 * app->dev.info.sm_count : 16, best = 16;
    MPI_Allreduce(&mine, &best, 1, MPI_INT64_T, MPI_MAX, app->comm);
    return best;
}

/* Refuses up front what a rank cannot hold: the estimate against the limit. */
static int check_memory(const mu_app *app, const mu_maxsub_matrix *m, int64_t R, int64_t C, int pr,
                        int pc, int64_t chunk, double *need) {
    /* A GPU rank's host holds no block of its own, and no values when it makes them. */
    const int gpu = app->dev.use_gpu, raw = !(gpu && m->src == MU_MSS_SRC_PHILOX);
    double mine = mu_mss2d_grid_bytes(R, C, pr, pc, pr > 1 ? chunk : 0, gpu, raw);
    MPI_Allreduce(&mine, need, 1, MPI_DOUBLE, MPI_MAX, app->comm);
    double limit = m->max_memory > 0 ? m->max_memory : mu_mem_rank_available(app->dev.local_size);
    const char *what = m->max_memory > 0 ? "--max-memory" : "the node's available memory";
    int rc = 0;
    if (*need > limit) {
        int p = app->size;
        while (p < (1 << 24)) {
            int qr, qc;
            p *= 2;
            if (mu_mss2d_grid_shape(p, R, C, 0, &qr, &qc)) break;
            if (mu_mss2d_grid_bytes(R, C, qr, qc, qr > 1 ? chunk : 0, gpu, raw) <= limit) break;
        }
        rc = mu_error("maxsub 2-D: a %lld x %lld matrix on %d rank(s) needs about %.1f MiB per "
                      "rank, more than the %.1f MiB a rank may use (%s); run on more ranks "
                      "(about %d)",
                      (long long)R, (long long)C, app->size, *need / 1048576.0, limit / 1048576.0,
                      what, p);
    }
    return mu_error_collective(app->comm, rc);
}

/* The own block: values loaded, prefix columns built, values dropped. A GPU
 * rank builds it on its device (making Philox values there: no host copy). */
static int build_block(dist *d, mu_maxsub_matrix *m, int transposed) {
    const mu_mss2d_grid *g = &d->g;
    const int on_dev = d->gpu != NULL, made = on_dev && m->src == MU_MSS_SRC_PHILOX;
    int32_t *seg = NULL;
    int64_t *scratch = NULL;
    int rc = 0;
    if (g->in) {
        if (!made) seg = malloc((size_t)(g->nr * g->w) * sizeof *seg);
        if (!on_dev) d->V = malloc((size_t)(g->nr * (g->w + 1)) * sizeof *d->V);
        scratch = malloc((size_t)(4 * g->nr) * sizeof *scratch);
        if ((!made && !seg) || (!on_dev && !d->V) || !scratch)
            rc = mu_error("out of memory for a %lld x %lld block", (long long)g->nr,
                          (long long)g->w);
    }
    rc = mu_error_collective(d->app->comm, rc);
    if (!rc) rc = mu_mss2d_load(d->app, m, g, transposed, seg);
    free(m->k); /* scattered or copied: no rank keeps more than its block */
    m->k = NULL;
    int64_t *tot = scratch, *off = scratch + g->nr, *abs = scratch + 2 * g->nr;
    if (!rc && g->in && made) {
        /* Value (i, j) of the oriented block: segment i (or j transposed), offset j (or i). */
        mu_mss2d_segs sg = mu_mss2d_segments(g, transposed, g->i0, g->nr, g->lo, g->w);
        rc = MU_GPU(mu_gpu_mss2d_make_philox(d->gpu, m->spec, sg.first, transposed ? 1 : sg.stride,
                                             transposed ? sg.stride : 1, g->lo, g->w, tot, abs),
                    "rank %d: the block made on the GPU", d->app->rank);
    } else if (!rc && g->in && on_dev) {
        rc = MU_GPU(mu_gpu_mss2d_make_values(d->gpu, seg, transposed, g->lo, g->w, tot, abs),
                    "rank %d: the block's prefix on the GPU", d->app->rank);
    } else if (!rc && g->in) {
        mu_mss2d_prefix_rows(seg, g->nr, g->w, transposed, d->V, tot, abs);
    }
    free(seg);
    rc = mu_error_collective(d->app->comm, rc);
    if (!rc && g->in) {
        int add = mu_mss2d_band_scan(g, scratch, &d->B);
        if (on_dev)
            rc = MU_GPU(mu_gpu_mss2d_finish(d->gpu, add ? off : NULL, d->B),
                        "rank %d: the block's band offsets on the GPU", d->app->rank);
        else if (add)
            for (int64_t i = 0; i < g->nr; i++)
                for (int64_t j = 0; j <= g->w; j++) d->V[i * (g->w + 1) + j] += off[i];
    }
    free(scratch);
    return mu_error_collective(d->app->comm, rc);
}

/* Host blocks the ring needs: it receives into ring[(s + 1) % 2] at step s
 * and sends the step's visitor, which at step 0 is the own block (a GPU rank
 * fetches it into ring[0]). So ring[1] when pc > 1, ring[0] too when
 * there are two shifts or more or on a GPU. */
static int ring_buffers(const mu_mss2d_grid *g, int gpu) {
    return g->pc < 2 ? 0 : (g->pc >= 4 || gpu) ? 2 : 1;
}

/* Device slots: the own block, and the visitor with the next one uploading. */
static int device_slots(const mu_mss2d_grid *g) {
    return g->pc < 2 ? 1 : g->pc < 4 ? 2 : 3;
}

/* The ring's buffers, the band summaries' buffers and the own block's copy
 * the ring sends first from a GPU. */
static int prepare(dist *d) {
    const mu_mss2d_grid *g = &d->g;
    int rc = 0;
    const size_t bytes = (size_t)(g->nr * (d->wmax + 1)) * sizeof(int64_t);
    for (int k = 2 - ring_buffers(g, d->gpu != NULL); g->in && k < 2 && !rc; k++) {
        d->ring[k] = d->gpu ? mu_gpu_host_alloc(bytes, &d->locked[k]) : malloc(bytes);
        if (!d->ring[k]) rc = mu_error("out of memory for the ring's blocks");
    }
    size_t nsum = (size_t)d->chunk * MU_MSS_TILE * MU_MSS_TILE;
    if (!rc && g->in && g->pr > 1 &&
        (!(d->sums = malloc(nsum * sizeof *d->sums)) ||
         !(d->sums_in = malloc(nsum * sizeof *d->sums_in))))
        rc = mu_error("out of memory for %zu band summaries", nsum);
    if (!rc && g->in && d->gpu && g->pc > 1)
        rc = MU_GPU(mu_gpu_mss2d_fetch(d->gpu, 0, d->ring[0]),
                    "rank %d: the own block for the ring", d->app->rank);
    if (g->pr > 1) {
        MPI_Type_contiguous(4, MPI_INT64_T, &d->sum_type);
        MPI_Type_commit(&d->sum_type);
        MPI_Op_create(combine_op, 0, &d->sum_op);
    }
    MPI_Type_contiguous(RING_PIECE, MPI_INT64_T, &d->piece);
    MPI_Type_commit(&d->piece);
    /* Four waves of a GPU, 32 tiles on CPUs (auto --farm-chunk), between polls. */
    d->min_piece = 2 * d->chunk;
    return mu_error_collective(d->app->comm, rc);
}

/* The block pair of ring step s: G <= H; sg, sh: their device slots. */
typedef struct {
    mu_mss2d_block G, H;
    int sg, sh, diag;
    int64_t t0, t1;
} step_pair;

static step_pair pair_of_step(const dist *d, int s) {
    const mu_mss2d_grid *g = &d->g;
    mu_mss2d_block own = {d->V, g->lo, g->w}, vis = {d->visit, d->vlo, d->vw};
    int dblk = (g->c + s) % g->pc, own_first = s == 0 || g->c < dblk;
    int vslot = s > 0 ? 1 + (s - 1) % 2 : 0; /* uploaded during step s - 1 */
    step_pair p = {own_first ? own : vis,
                   own_first ? vis : own,
                   own_first ? 0 : vslot,
                   own_first ? vslot : 0,
                   s == 0,
                   0,
                   0};
    if (p.diag) {
        p.H = p.G;
        p.sh = p.sg;
    }
    int64_t nt = mu_mss2d_block_tile_count(p.G.w, p.H.w, p.diag);
    p.t1 = nt;
    if (s > 0 && 2 * s == g->pc) { /* met twice: each of the two ranks takes half */
        p.t0 = own_first ? 0 : nt / 2;
        p.t1 = own_first ? nt / 2 : nt;
    }
    return p;
}

/* ---- the ring: shift s moves every rank's step-s visitor to block c - 1
 * while step s runs; the step's work polls it so that MPI can progress, and a
 * GPU uploads the landed block on its copy stream beside the step's kernels. */

/* A GPU rank: the landed block into the slot of step s + 1. */
static void ring_upload(dist *d, int s) {
    if (!d->gpu || d->uploaded || d->ring_rc) return;
    d->uploaded = 1;
    d->ring_rc = MU_GPU(mu_gpu_mss2d_upload(d->gpu, 1 + s % 2, d->ring[(s + 1) % 2], d->nlo, d->nw),
                        "GPU 2-D block upload");
}

/* Starts shift s: the step's visitor (at step 0 the own block) to block c - 1,
 * block c + s + 1 from block c + 1 into the other ring buffer. Counts over
 * INT_MAX go as RING_PIECE-value pieces and a remainder. */
static void ring_post(dist *d, int s) {
    const mu_mss2d_grid *g = &d->g;
    const int64_t *out = s > 0 ? d->ring[s % 2] : d->gpu ? d->ring[0] : d->V;
    int64_t *in = d->ring[(s + 1) % 2];
    const int64_t nout = g->nr * ((s > 0 ? d->vw : g->w) + 1);
    mu_mss2d_split(g->cols, g->pc, (g->c + s + 1) % g->pc, &d->nlo, &d->nw);
    const int64_t nin = g->nr * (d->nw + 1);
    int to = (g->c + g->pc - 1) % g->pc, from = (g->c + 1) % g->pc;
    d->nreq = 0;
    d->landed = d->uploaded = 0;
    if (nin >= RING_PIECE)
        MPI_Irecv(in, (int)(nin / RING_PIECE), d->piece, from, 2 * s, g->band, &d->req[d->nreq++]);
    if (nin % RING_PIECE)
        MPI_Irecv(in + nin / RING_PIECE * RING_PIECE, (int)(nin % RING_PIECE), MPI_INT64_T, from,
                  2 * s + 1, g->band, &d->req[d->nreq++]);
    if (nout >= RING_PIECE)
        MPI_Isend(out, (int)(nout / RING_PIECE), d->piece, to, 2 * s, g->band, &d->req[d->nreq++]);
    if (nout % RING_PIECE)
        MPI_Isend(out + nout / RING_PIECE * RING_PIECE, (int)(nout % RING_PIECE), MPI_INT64_T, to,
                  2 * s + 1, g->band, &d->req[d->nreq++]);
}

/* Between pieces of a step's work: MPI progresses the shift; once it landed a
 * GPU starts uploading it. */
static void ring_poll(dist *d, int s) {
    if (d->nreq == 0 || d->landed) return;
    MPI_Status st[4]; /* not MPI_STATUSES_IGNORE: GCC's access checks take it for an array */
    MPI_Testall(d->nreq, d->req, &d->landed, st);
    if (d->landed) ring_upload(d, s);
}

/* The end of step s: shift s complete (on a GPU, uploaded); the visitor of step s + 1. */
static int ring_land(dist *d, int s) {
    MPI_Status st[4];
    if (!d->landed) MPI_Waitall(d->nreq, d->req, st);
    d->landed = 1;
    d->nreq = 0;
    ring_upload(d, s);
    if (d->gpu && !d->ring_rc)
        d->ring_rc = MU_GPU(mu_gpu_mss2d_upload_wait(d->gpu), "GPU 2-D block upload");
    d->visit = d->ring[(s + 1) % 2];
    d->vlo = d->nlo;
    d->vw = d->nw;
    int rc = d->ring_rc;
    d->ring_rc = 0;
    return rc;
}

/* One band: the best (value, pair id) of the step's tiles, in pieces with the
 * shift polled between them (the order does not matter: mu_mss2d_keep). */
static int step_best(dist *d, const step_pair *p, int s) {
    int64_t rows = d->g.nr, cols = d->g.cols, span = p->t1 - p->t0;
    int64_t piece = d->nreq ? (span + 7) / 8 : span;
    if (piece < d->min_piece) piece = d->min_piece;
    for (int64_t q = p->t0; q < p->t1; q += piece) {
        int64_t e = p->t1 - q < piece ? p->t1 : q + piece, b = 0, id = -1;
        if (d->gpu) {
            MU_TRY(MU_GPU(mu_gpu_mss2d_block_best(d->gpu, p->sg, p->sh, cols, p->diag, q, e,
                                                  d->empty, &b, &id),
                          "GPU 2-D tiles %lld..%lld", (long long)q, (long long)e - 1));
        } else {
            mu_mss2d_block_best(&p->G, &p->H, rows, cols, p->diag, q, e, d->empty, &b, &id);
        }
        mu_mss2d_keep(&d->best, &d->pair, b, id);
        ring_poll(d, s);
    }
    return 0;
}

/* Several bands: the step's tiles chunk by chunk, summaries combined over the
 * column in band order on band 0, which keeps the best. Collective over the
 * column (every rank of a column has the same blocks and tiles). */
static int step_sums(dist *d, const step_pair *p, int s) {
    int rc = 0;
    for (int64_t q = p->t0; q < p->t1; q += d->chunk) {
        int64_t n = p->t1 - q < d->chunk ? p->t1 - q : d->chunk;
        if (!rc && d->gpu)
            rc = MU_GPU(
                mu_gpu_mss2d_block_sums(d->gpu, p->sg, p->sh, p->diag, q, q + n, d->empty, d->sums),
                "GPU 2-D summaries %lld..%lld", (long long)q, (long long)(q + n - 1));
        else if (!rc)
            mu_mss2d_block_sums(&p->G, &p->H, d->g.nr, p->diag, q, q + n, d->empty, d->sums);
        if (rc) memset(d->sums, 0, (size_t)n * MU_MSS_TILE * MU_MSS_TILE * sizeof *d->sums);
        ring_poll(d, s);
        MPI_Reduce(d->sums, d->sums_in, (int)(n * MU_MSS_TILE * MU_MSS_TILE), d->sum_type,
                   d->sum_op, 0, d->g.column);
        if (d->g.r == 0)
            mu_mss2d_sums_keep(d->sums_in, p->G.w, p->H.w, p->G.lo, p->H.lo, d->g.cols, p->diag, q,
                               q + n, d->empty, &d->best, &d->pair);
    }
    return rc;
}

/* Every block pair once: ring steps 0 .. floor(pc / 2), the next visitor
 * travelling during each step but the last. */
static int run_ring(dist *d) {
    int rc = 0;
    const mu_mss2d_grid *g = &d->g;
    for (int s = 0; g->in && s <= g->pc / 2; s++) {
        if (s < g->pc / 2) ring_post(d, s);
        step_pair p = pair_of_step(d, s);
        if (g->pr > 1)
            rc |= step_sums(d, &p, s);
        else if (!rc)
            rc = step_best(d, &p, s);
        if (s < g->pc / 2) rc |= ring_land(d, s);
    }
    return mu_error_collective(d->app->comm, rc);
}

/* The best (value, smallest pair id) over all ranks; pair -1 when none counts. */
static void best_overall(const dist *d, int64_t *best, int64_t *pair) {
    int64_t v = d->pair >= 0 ? d->best : INT64_MIN, top = 0, id, win = 0;
    MPI_Allreduce(&v, &top, 1, MPI_INT64_T, MPI_MAX, d->app->comm);
    id = d->pair >= 0 && d->best == top ? d->pair : INT64_MAX;
    MPI_Allreduce(&id, &win, 1, MPI_INT64_T, MPI_MIN, d->app->comm);
    *pair = win == INT64_MAX ? -1 : win;
    *best = *pair < 0 ? (d->empty ? 0 : MU_MSS_NEG_INF) : top;
}

/* c[i] += sign V[i][j] over the own block's rows (local prefix column j). */
static int own_column(const dist *d, int64_t j, int sign, int64_t *c) {
    const mu_mss2d_grid *q = &d->g;
    if (!d->gpu) {
        for (int64_t i = 0; i < q->nr; i++) c[i] += sign * d->V[i * (q->w + 1) + j];
        return 0;
    }
    int64_t *col = malloc((size_t)q->nr * sizeof *col);
    if (!col) return mu_error("out of memory for %lld prefix sums", (long long)q->nr);
    int rc = MU_GPU(mu_gpu_mss2d_column(d->gpu, 0, j, col), "GPU prefix column %lld", (long long)j);
    for (int64_t i = 0; !rc && i < q->nr; i++) c[i] += sign * col[i];
    free(col);
    return rc;
}

/* Strip (g, h)'s row sums V[i][h+1] - V[i][g] summed on rank 0 from the ranks
 * holding those columns, then its rows by the 1-D rule. Collective. */
static int strip_rows(const dist *d, int64_t g, int64_t h, int64_t *sum, int64_t *r0, int64_t *r1) {
    const mu_mss2d_grid *q = &d->g;
    int64_t *c = calloc((size_t)q->rows, sizeof *c), *all = NULL;
    int rc = c ? 0 : mu_error("out of memory for %lld strip sums", (long long)q->rows);
    if (!rc && d->app->rank == 0 && !(all = malloc((size_t)q->rows * sizeof *all)))
        rc = mu_error("out of memory for %lld strip sums", (long long)q->rows);
    if (mu_error_collective(d->app->comm, rc)) {
        free(c);
        return 1;
    }
    if (q->in && g >= q->lo && g < q->lo + q->w) rc = own_column(d, g - q->lo, -1, c + q->i0);
    if (!rc && q->in && h >= q->lo && h < q->lo + q->w)
        rc = own_column(d, h + 1 - q->lo, 1, c + q->i0);
    if (mu_error_collective(d->app->comm, rc)) {
        free(c);
        free(all);
        return 1;
    }
    MPI_Reduce(c, all, (int)q->rows, MPI_INT64_T, MPI_SUM, 0, d->app->comm);
    if (d->app->rank == 0) mu_mss2d_best_rows(all, q->rows, d->empty, sum, r0, r1);
    free(c);
    free(all);
    return 0;
}

static void log_layout(const dist *d, int64_t rows, int64_t cols, int transposed, double need) {
    const mu_mss2d_grid *g = &d->g;
    mu_info("2-D maximum submatrix of a %lld x %lld matrix: %lld column pairs over the %s; "
            "grid %d band(s) x %d block(s), %d rank(s) idle (no grid of more fits), about %.1f "
            "MiB per rank",
            (long long)rows, (long long)cols, (long long)(g->cols * (g->cols + 1) / 2),
            transposed ? "rows" : "columns", g->pr, g->pc, d->app->size - g->pr * g->pc,
            need / 1048576.0);
}

/* The grid, the memory check and the own block. */
static int setup(dist *d, mu_maxsub_matrix *m, int empty_allowed, int64_t chunk, int *transposed) {
    const mu_app *app = d->app;
    *transposed = m->cols > m->rows;
    int64_t R = *transposed ? m->cols : m->rows, C = *transposed ? m->rows : m->cols;
    int pr = 1, pc = 1;
    d->empty = empty_allowed;
    d->best = empty_allowed ? 0 : MU_MSS_NEG_INF;
    d->pair = -1;
    d->sum_type = MPI_DATATYPE_NULL;
    d->sum_op = MPI_OP_NULL;
    d->piece = MPI_DATATYPE_NULL;
    d->g.band = d->g.column = MPI_COMM_NULL;
    int rc = mu_mss2d_grid_shape(app->size, R, C, m->bands, &pr, &pc);
    MU_TRY(mu_error_collective(app->comm, rc));
    d->chunk = auto_chunk(app, chunk);
    double need;
    MU_TRY(check_memory(app, m, R, C, pr, pc, d->chunk, &need));
    mu_mss2d_grid_make(app->comm, app->rank, R, C, pr, pc, &d->g);
    d->wmax = (C + pc - 1) / pc;
    log_layout(d, m->rows, m->cols, *transposed, need);
    if (app->dev.use_gpu && m->src == MU_MSS_SRC_PHILOX)
        mu_info("2-D blocks generated on the GPU of each rank (no host copy)");
    if (d->g.in && app->dev.use_gpu)
        rc = MU_GPU(mu_gpu_mss2d_open(d->g.nr, d->wmax, &d->gpu) ||
                        mu_gpu_mss2d_reserve(d->gpu, device_slots(&d->g)),
                    "rank %d GPU 2-D setup", app->rank);
    MU_TRY(mu_error_collective(app->comm, rc));
    mu_timer_begin("input");
    rc = build_block(d, m, *transposed);
    mu_timer_end("input");
    return rc;
}

int mu_maxsub_solve_2d(const mu_app *app, mu_maxsub_matrix *m, int empty_allowed, int64_t chunk,
                       mu_maxsub_2d_answer *ans) {
    dist d = {.app = app};
    int transposed = 0;
    int64_t orig_rows = m->rows, orig_cols = m->cols;
    int rc = setup(&d, m, empty_allowed, chunk, &transposed);
    free(m->k);
    m->k = NULL;
    if (!rc) {
        mu_timer_begin("prefix");
        rc = prepare(&d);
        mu_timer_end("prefix");
    }
    if (!rc) {
        mu_timer_begin("pairs");
        rc = run_ring(&d);
        mu_timer_end("pairs");
    }
    int64_t best = 0, pair = -1, g = -1, h = -1, r0 = -1, r1 = -1, sum = 0;
    if (!rc) best_overall(&d, &best, &pair);
    if (!rc && pair >= 0) {
        mu_mss_tri_unrank(d.g.cols, pair, &g, &h);
        rc = strip_rows(&d, g, h, &sum, &r0, &r1);
        if (!rc && app->rank == 0 && sum != best)
            rc = mu_error("internal: pair (%lld,%lld) recomputes to %lld, the pair search gave "
                          "%lld",
                          (long long)g, (long long)h, (long long)sum, (long long)best);
        rc = mu_error_collective(app->comm, rc);
    }
    if (!rc && app->rank == 0) {
        /* Back to the input's orientation: (row0, row1, col0, col1). */
        int64_t a0 = transposed ? g : r0, a1 = transposed ? h : r1;
        int64_t b0 = transposed ? r0 : g, b1 = transposed ? r1 : h;
        *ans = (mu_maxsub_2d_answer){orig_rows, orig_cols, sum, a0, a1, b0, b1, pair < 0};
    }
    free_dist(&d);
    return rc;
}
