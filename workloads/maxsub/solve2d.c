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
#include "gpu/maxsub_gpu.h"
#include "maxsub/block2d.h"
#include "maxsub/grid2d.h"
#include "maxsub/strip2d.h"

enum { RING_PIECE = 1 << 17 }; /* values a Sendrecv_replace moves: its own buffer stays small */

typedef struct {
    const mu_app *app;
    mu_mss2d_grid g;
    int empty;
    int64_t wmax;    /* widest block: the ring's buffer */
    int64_t *V;      /* own block, nr x (w + 1) */
    int64_t *visit;  /* the ring's block, nr x (wmax + 1) (pc > 1) */
    int64_t vlo, vw; /* the visitor's columns */
    int64_t B;       /* largest absolute row sum of the band's rows */
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
    free(d->visit);
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
    *need = mu_mss2d_grid_bytes(R, C, pr, pc, pr > 1 ? chunk : 0);
    double limit = m->max_memory > 0 ? m->max_memory : mu_mem_rank_available(app->dev.local_size);
    const char *what = m->max_memory > 0 ? "--max-memory" : "the node's available memory";
    int rc = 0;
    if (*need > limit) {
        int p = app->size;
        while (p < (1 << 24)) {
            int qr, qc;
            p *= 2;
            if (mu_mss2d_grid_shape(p, R, C, 0, &qr, &qc)) break;
            if (mu_mss2d_grid_bytes(R, C, qr, qc, qr > 1 ? chunk : 0) <= limit) break;
        }
        rc = mu_error("maxsub 2-D: a %lld x %lld matrix on %d rank(s) needs about %.1f MiB per "
                      "rank, more than the %.1f MiB a rank may use (%s); run on more ranks "
                      "(about %d)",
                      (long long)R, (long long)C, app->size, *need / 1048576.0, limit / 1048576.0,
                      what, p);
    }
    return mu_error_collective(app->comm, rc);
}

/* The own block: values loaded, prefix columns built, values dropped. */
static int build_block(dist *d, mu_maxsub_matrix *m, int transposed) {
    const mu_mss2d_grid *g = &d->g;
    int32_t *seg = NULL;
    int64_t *scratch = NULL;
    int rc = 0;
    if (g->in) {
        seg = malloc((size_t)(g->nr * g->w) * sizeof *seg);
        d->V = malloc((size_t)(g->nr * (g->w + 1)) * sizeof *d->V);
        scratch = malloc((size_t)(4 * g->nr) * sizeof *scratch);
        if (!seg || !d->V || !scratch)
            rc = mu_error("out of memory for a %lld x %lld block", (long long)g->nr,
                          (long long)g->w);
    }
    rc = mu_error_collective(d->app->comm, rc);
    if (!rc) rc = mu_mss2d_load(d->app, m, g, transposed, seg);
    free(m->k); /* scattered or copied: no rank keeps more than its block */
    m->k = NULL;
    if (!rc && g->in) mu_mss2d_prefix_block(g, seg, transposed, d->V, scratch, &d->B);
    free(seg);
    free(scratch);
    return rc;
}

/* The ring's buffer, the band summaries' buffers and the device. */
static int prepare(dist *d) {
    const mu_mss2d_grid *g = &d->g;
    int rc = 0;
    if (g->in && g->pc > 1 && !(d->visit = malloc((size_t)(g->nr * (d->wmax + 1)) * 8)))
        rc = mu_error("out of memory for the ring's block");
    size_t nsum = (size_t)d->chunk * MU_MSS_TILE * MU_MSS_TILE;
    if (!rc && g->in && g->pr > 1 &&
        (!(d->sums = malloc(nsum * sizeof *d->sums)) ||
         !(d->sums_in = malloc(nsum * sizeof *d->sums_in))))
        rc = mu_error("out of memory for %zu band summaries", nsum);
    if (!rc && g->in && d->app->dev.use_gpu)
        rc = MU_GPU(mu_gpu_mss2d_open(g->nr, d->wmax, &d->gpu) ||
                        mu_gpu_mss2d_load(d->gpu, 0, d->V, g->lo, g->w, d->B),
                    "rank %d GPU 2-D setup", d->app->rank);
    if (g->pr > 1) {
        MPI_Type_contiguous(4, MPI_INT64_T, &d->sum_type);
        MPI_Type_commit(&d->sum_type);
        MPI_Op_create(combine_op, 0, &d->sum_op);
    }
    return mu_error_collective(d->app->comm, rc);
}

/* The block pair of ring step s: G <= H; *own_g: the own block is G. */
typedef struct {
    mu_mss2d_block G, H;
    int sg, sh, diag;
    int64_t t0, t1;
} step_pair;

static step_pair pair_of_step(const dist *d, int s) {
    const mu_mss2d_grid *g = &d->g;
    mu_mss2d_block own = {d->V, g->lo, g->w}, vis = {d->visit, d->vlo, d->vw};
    int dblk = (g->c + s) % g->pc, own_first = s == 0 || g->c < dblk;
    step_pair p = {own_first ? own : vis,
                   own_first ? vis : own,
                   own_first ? 0 : 1,
                   own_first ? 1 : 0,
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

/* One band: the best (value, pair id) of the step's tiles. */
static int step_best(dist *d, const step_pair *p) {
    int64_t b = 0, id = -1;
    int64_t rows = d->g.nr, cols = d->g.cols;
    if (d->gpu) {
        MU_TRY(MU_GPU(mu_gpu_mss2d_block_best(d->gpu, p->sg, p->sh, cols, p->diag, p->t0, p->t1,
                                              d->empty, &b, &id),
                      "GPU 2-D tiles %lld..%lld", (long long)p->t0, (long long)p->t1 - 1));
    } else {
        mu_mss2d_block_best(&p->G, &p->H, rows, cols, p->diag, p->t0, p->t1, d->empty, &b, &id);
    }
    mu_mss2d_keep(&d->best, &d->pair, b, id);
    return 0;
}

/* Several bands: the step's tiles chunk by chunk, summaries combined over the
 * column in band order on band 0, which keeps the best. Collective over the
 * column (every rank of a column has the same blocks and tiles). */
static int step_sums(dist *d, const step_pair *p) {
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
        MPI_Reduce(d->sums, d->sums_in, (int)(n * MU_MSS_TILE * MU_MSS_TILE), d->sum_type,
                   d->sum_op, 0, d->g.column);
        if (d->g.r == 0)
            mu_mss2d_sums_keep(d->sums_in, p->G.w, p->H.w, p->G.lo, p->H.lo, d->g.cols, p->diag, q,
                               q + n, d->empty, &d->best, &d->pair);
    }
    return rc;
}

/* The ring's shift: the visitor goes to block c - 1, the one of c + 1 comes in. */
static int ring_shift(dist *d, int s) {
    const mu_mss2d_grid *g = &d->g;
    if (s == 0) {
        memcpy(d->visit, d->V, (size_t)(g->nr * (g->w + 1)) * sizeof *d->V);
        d->vlo = g->lo;
        d->vw = g->w;
    }
    const int64_t total = g->nr * (d->wmax + 1);
    int to = (g->c + g->pc - 1) % g->pc, from = (g->c + 1) % g->pc;
    for (int64_t a = 0; a < total; a += RING_PIECE) {
        int n = (int)(total - a < RING_PIECE ? total - a : RING_PIECE);
        MPI_Sendrecv_replace(d->visit + a, n, MPI_INT64_T, to, s, from, s, g->band,
                             MPI_STATUS_IGNORE);
    }
    mu_mss2d_split(g->cols, g->pc, (g->c + s + 1) % g->pc, &d->vlo, &d->vw);
    if (d->gpu)
        return MU_GPU(mu_gpu_mss2d_load(d->gpu, 1, d->visit, d->vlo, d->vw, d->B),
                      "GPU 2-D block upload");
    return 0;
}

/* Every block pair once: ring steps 0 .. floor(pc / 2). */
static int run_ring(dist *d) {
    int rc = 0;
    const mu_mss2d_grid *g = &d->g;
    for (int s = 0; g->in && s <= g->pc / 2; s++) {
        step_pair p = pair_of_step(d, s);
        if (g->pr > 1)
            rc |= step_sums(d, &p);
        else if (!rc)
            rc = step_best(d, &p);
        if (s < g->pc / 2) rc |= ring_shift(d, s);
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
    const int64_t ld = q->w + 1;
    for (int64_t i = 0; q->in && i < q->nr; i++) {
        if (g >= q->lo && g < q->lo + q->w) c[q->i0 + i] -= d->V[i * ld + g - q->lo];
        if (h >= q->lo && h < q->lo + q->w) c[q->i0 + i] += d->V[i * ld + h + 1 - q->lo];
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
    d->g.band = d->g.column = MPI_COMM_NULL;
    int rc = mu_mss2d_grid_shape(app->size, R, C, m->bands, &pr, &pc);
    MU_TRY(mu_error_collective(app->comm, rc));
    d->chunk = auto_chunk(app, chunk);
    double need;
    MU_TRY(check_memory(app, m, R, C, pr, pc, d->chunk, &need));
    mu_mss2d_grid_make(app->comm, app->rank, R, C, pr, pc, &d->g);
    d->wmax = (C + pc - 1) / pc;
    log_layout(d, m->rows, m->cols, *transposed, need);
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
