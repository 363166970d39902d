/* Sweep inputs shared on a node. Field groups split the fields, not the grid:
 * every rank of a group recomputes its block's face winds, Walcek densities,
 * Courant numbers, classes, segments and cycle signs each sweep, a fixed cost
 * of about one field's walk that no number of ranks divides. The ranks of one
 * node that hold the same block make them once between them instead, in
 * MPI-3 shared memory, each a contiguous slice of the sweep's lines; they are
 * per line, so the bits do not depend on who makes them (sweep_winds.c: adv_share_winds). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "advect/advect.h"
#include "core/error.h"
#include "core/knobs.h"
#include "core/log.h"
#include "core/summary.h"
#include "core/timer.h"
#include "mpi/wait.h"

static int64_t axis_lines(const adv_state *s, int a) {
    return (int64_t)s->nl[0] * s->nl[1] * s->nl[2] / s->nl[a];
}

/* The next piece of bytes at *off from base (NULL: only counted), cache-line aligned. */
static void *carve(char *base, size_t *off, size_t bytes) {
    void *p = base ? base + *off : NULL;
    *off += (bytes + 63) / 64 * 64;
    return p;
}

/* The shared inputs of the three axes laid out from base; their bytes. */
static size_t layout(const adv_state *s, adv_share *sh, char *base) {
    size_t off = 0;
    sh->dens = carve(base, &off, (size_t)s->nl[0] * s->nl[1] * s->nl[2] * sizeof(float));
    for (int a = 0; a < 3; a++) {
        size_t G = (size_t)axis_lines(s, a), m = (size_t)s->nl[a];
        sh->u[a] = carve(base, &off, G * (m + 1) * sizeof(float));
        sh->rs[a] = carve(base, &off, G * (m + 1) * sizeof(float));
        sh->d0[a] = carve(base, &off, G * m * sizeof(float));
        sh->d1[a] = carve(base, &off, G * m * sizeof(float));
        sh->pn[a] = carve(base, &off, 2 * G * sizeof(int));
        sh->seg[a] = carve(base, &off, G * sizeof(adv_seg));
        sh->cls[a] = carve(base, &off, G * m);
    }
    return off;
}

/* The ranks of this node with this rank's block (want: 0 for none), or
 * MPI_COMM_NULL where it would be this rank alone (collective over s->comm). */
static MPI_Comm block_comm(const adv_state *s, int want) {
    int rank, n = 0;
    MPI_Comm node, blk;
    MPI_Comm_rank(s->comm, &rank);
    MPI_Comm_split_type(s->comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    int color = want ? s->cart.coords[0] + s->cart.dims[0] * s->cart.coords[1] : MPI_UNDEFINED;
    MPI_Comm_split(node, color, rank, &blk);
    MPI_Comm_free(&node);
    if (blk != MPI_COMM_NULL) MPI_Comm_size(blk, &n);
    if (n == 1) MPI_Comm_free(&blk);
    return blk;
}

/* Every rank of comm holds the same block (the decomposition gives every
 * group the same process grid: a check, as a wrong share would be silent). */
static int same_block(const adv_state *s, MPI_Comm comm) {
    int lo[4] = {(int)s->lo[0], (int)s->lo[1], s->nl[0], s->nl[1]}, hi[4];
    memcpy(hi, lo, sizeof hi);
    mu_allreduce(lo, 4, MPI_INT, MPI_MIN, comm);
    mu_allreduce(hi, 4, MPI_INT, MPI_MAX, comm);
    return !memcmp(lo, hi, sizeof lo);
}

/* This rank's private arrays: the cycle signs per axis and rho(z). */
static int private_alloc(const adv_state *s, adv_share *sh) {
    sh->rho = malloc((size_t)s->nl[2] * sizeof *sh->rho);
    int ok = sh->rho != NULL;
    for (int a = 0; a < 3; a++) {
        sh->cyc[a] = malloc((size_t)axis_lines(s, a) * sizeof *sh->cyc[a]);
        ok = ok && sh->cyc[a];
    }
    for (int z = 0; ok && z < s->nl[2]; z++) sh->rho[z] = (float)adv_rho(s->cfg, z);
    return ok;
}

/* The window, rank 0 of the block holding all of it (its pages land where
 * each slice is first written); 1 where any rank could not have it. */
static int window_alloc(adv_state *s, adv_share *sh, int ok) {
    size_t bytes = layout(s, sh, NULL);
    char *base = NULL;
    sh->win = MPI_WIN_NULL;
    MPI_Comm_set_errhandler(sh->comm, MPI_ERRORS_RETURN); /* a failure falls back, not aborts */
    mu_allreduce(&ok, 1, MPI_INT, MPI_MIN, sh->comm);
    if (!ok) return 1;
    MPI_Aint mine = sh->rank == 0 ? (MPI_Aint)bytes : 0, got = 0;
    ok = MPI_Win_allocate_shared(mine, 1, MPI_INFO_NULL, sh->comm, &base, &sh->win) == MPI_SUCCESS;
    int unit;
    if (ok) ok = MPI_Win_shared_query(sh->win, 0, &got, &unit, &base) == MPI_SUCCESS;
    ok = ok && (size_t)got >= bytes && base;
    mu_allreduce(&ok, 1, MPI_INT, MPI_MIN, sh->comm);
    if (!ok) {
        if (sh->win != MPI_WIN_NULL) MPI_Win_free(&sh->win);
        return 1;
    }
    layout(s, sh, base);
    sh->bytes = (double)bytes;
    MPI_Win_lock_all(MPI_MODE_NOCHECK, sh->win); /* passive epoch: loads, stores, Win_sync */
    return 0;
}

static void share_free(adv_share *sh) {
    if (sh->win != MPI_WIN_NULL) {
        MPI_Win_unlock_all(sh->win);
        MPI_Win_free(&sh->win);
    }
    MPI_Comm_free(&sh->comm);
    for (int a = 0; a < 3; a++) free(sh->cyc[a]);
    free(sh->rho);
    free(sh);
}

/* Each rank writes its own lines first, now: their pages are in place (on its
 * NUMA node, where it will write them) before the first step. */
static void touch_slices(const adv_state *s, adv_share *sh) {
    for (int a = 0; a < 3; a++) {
        int64_t G = axis_lines(s, a), m = s->nl[a];
        int g0, g1;
        adv_share_lines(sh, G, &g0, &g1);
        size_t n = (size_t)(g1 - g0);
        memset(sh->u[a] + g0 * (m + 1), 0, n * (size_t)(m + 1) * sizeof(float));
        memset(sh->rs[a] + g0 * (m + 1), 0, n * (size_t)(m + 1) * sizeof(float));
        memset(sh->d0[a] + g0 * m, 0, n * (size_t)m * sizeof(float));
        memset(sh->d1[a] + g0 * m, 0, n * (size_t)m * sizeof(float));
        memset(sh->cls[a] + g0 * m, 0, n * (size_t)m);
        memset(sh->seg[a] + g0, 0, n * sizeof(adv_seg));
        memset(sh->pn[a] + 2 * g0, 0, 2 * n * sizeof(int));
    }
    int64_t cells = (int64_t)s->nl[0] * s->nl[1] * s->nl[2]; /* in equal parts */
    int64_t c0 = cells * sh->rank / sh->size, c1 = cells * (sh->rank + 1) / sh->size;
    memset(sh->dens + c0, 0, (size_t)(c1 - c0) * sizeof(float));
    adv_share_sync(sh);
}

/* The share of this rank's block, or NULL (collective over s->comm). */
static adv_share *share_make(adv_state *s, double mem_bytes, int want) {
    MPI_Comm blk = block_comm(s, want);
    if (blk == MPI_COMM_NULL) return NULL;
    adv_share *sh = calloc(1, sizeof *sh);
    int ok = sh != NULL;
    mu_allreduce(&ok, 1, MPI_INT, MPI_MIN, blk);
    if (!ok) {
        free(sh);
        MPI_Comm_free(&blk);
        return NULL;
    }
    sh->comm = blk;
    sh->win = MPI_WIN_NULL;
    MPI_Comm_size(blk, &sh->size);
    MPI_Comm_rank(blk, &sh->rank);
    /* a quarter of the sharing ranks' memory at most: the fields come first */
    double need = (double)layout(s, sh, NULL);
    int fits = !(mem_bytes > 0) || need <= 0.25 * mem_bytes * sh->size;
    ok = same_block(s, blk) && private_alloc(s, sh) && fits;
    if (window_alloc(s, sh, ok)) {
        share_free(sh);
        return NULL;
    }
    touch_slices(s, sh);
    return sh;
}

/* The walks read the shared inputs: the scratch they replace is not needed. */
static void drop_scratch(adv_state *s) {
    free(s->wu);
    free(s->wrs);
    free(s->wd0);
    free(s->wd1);
    s->wu = s->wrs = s->wd0 = s->wd1 = NULL;
}

/* One line: what is shared, by how many ranks, and the summary's figures. */
static void share_report(const adv_state *s) {
    const adv_share *sh = s->share;
    int ranks = sh != NULL, lo = sh ? sh->size : 1 << 30, hi = sh ? sh->size : 1;
    double mb = sh ? sh->bytes / 1e6 : 0;
    int size;
    MPI_Comm_size(s->comm, &size);
    mu_allreduce(&ranks, 1, MPI_INT, MPI_SUM, s->comm);
    mu_allreduce(&lo, 1, MPI_INT, MPI_MIN, s->comm);
    mu_allreduce(&hi, 1, MPI_INT, MPI_MAX, s->comm);
    mu_allreduce(&mb, 1, MPI_DOUBLE, MPI_MAX, s->comm);
    char by[32];
    snprintf(by, sizeof by, lo == hi ? "%d" : "%d-%d", lo, hi);
    if (ranks)
        mu_info("advect: each sweep's face winds, Walcek densities, Courant numbers, classes and "
                "segments made once per block and node, in shared memory, by %s ranks a block (%d "
                "of the run's %d ranks; %.1f MB a block)",
                by, ranks, size, mb);
    mu_summary_int("inputs_shared_ranks", ranks);
    mu_summary_int("inputs_shared_by", hi);
}

void adv_share_open(adv_state *s, double mem_bytes, int on_gpu) {
    s->share = share_make(s, mem_bytes, !on_gpu);
    if (s->share) drop_scratch(s);
    share_report(s);
}

void adv_share_lines(const adv_share *sh, int64_t G, int *g0, int *g1) {
    *g0 = (int)(G * sh->rank / sh->size);
    *g1 = (int)(G * (sh->rank + 1) / sh->size);
}

void adv_share_swap(adv_state *s, int axis, int on) {
    adv_share *sh = s->share;
    if (on) {
        sh->scr_u = s->wu;
        sh->scr_rs = s->wrs;
        sh->scr_d0 = s->wd0;
        sh->scr_d1 = s->wd1;
        sh->scr_cls = s->cls;
        s->wu = sh->u[axis];
        s->wrs = sh->rs[axis];
        s->wd0 = sh->d0[axis];
        s->wd1 = sh->d1[axis];
        s->cls = sh->cls[axis];
    } else {
        s->wu = sh->scr_u;
        s->wrs = sh->scr_rs;
        s->wd0 = sh->scr_d0;
        s->wd1 = sh->scr_d1;
        s->cls = sh->scr_cls;
    }
}

void adv_share_sync(adv_share *sh) {
    mu_timer_begin("advect: shared inputs wait"); /* (the slowest sharer's lines, not work) */
    MPI_Win_sync(sh->win); /* this rank's stores out before the barrier ... */
    MPI_Request rq;
    MPI_Ibarrier(sh->comm, &rq);
    mu_waitall(1, &rq, MPI_STATUS_IGNORE);
    MPI_Win_sync(sh->win); /* ... and the others' in before the loads after it */
    mu_timer_end("advect: shared inputs wait");
}

void adv_share_free(adv_state *s) {
    if (s->share) share_free(s->share);
    s->share = NULL;
}
